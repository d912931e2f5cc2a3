"""torch.utils.tensorboard: as in torch, importing it needs the ``tensorboard`` package (it raises torch's
errors when the package is missing or too old).

``SummaryWriter`` (event files written with tensorboard's own ``EventFileWriter`` and summary protos, as torch
writes them) is not provided yet: with tensorboard installed, importing this module raises ImportError
naming the API (docs/known-differences.md)."""
import tensorboard
from packaging.version import Version

if not hasattr(tensorboard, "__version__") or Version(tensorboard.__version__) < Version("1.15"):
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above")

raise ImportError("torch.utils.tensorboard.SummaryWriter is not supported by mstorch yet: writing TensorBoard "
                  "event files on the tensorboard package is not implemented (see docs/known-differences.md)")
