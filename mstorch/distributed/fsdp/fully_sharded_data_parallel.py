"""torch.distributed.fsdp.fully_sharded_data_parallel (see the package docstring)."""
from ...nn.modules.module import Module

__all__ = ["FullyShardedDataParallel"]


class FullyShardedDataParallel(Module):
    """torch.distributed.fsdp.FullyShardedDataParallel: the type exists (no mstorch module is one); wrapping
    a module raises."""

    def __init__(self, module, *args, **kwargs):
        raise NotImplementedError(
            "torch.distributed.fsdp.FullyShardedDataParallel is not supported by mstorch: it shards parameters "
            "across ranks with torch's flat-parameter machinery; use torch.nn.parallel.DistributedDataParallel")
