"""torch.nn.parallel on mstorch: ``DistributedDataParallel`` over ``mstorch.distributed`` and
``DataParallel`` as the single-device pass-through torch uses without GPUs."""
import warnings

from .data_parallel import DataParallel, data_parallel
from .distributed import DistributedDataParallel

__all__ = ["data_parallel", "DataParallel", "DistributedDataParallel"]


class DistributedDataParallelCPU(DistributedDataParallel):
    def __init__(self, *args, **kwargs):
        warnings.warn("`torch.nn.parallel.DistributedDataParallelCPU` is deprecated, please use "
                      "`torch.nn.parallel.DistributedDataParallel` instead.", FutureWarning, stacklevel=2)
        super().__init__(*args, **kwargs)
