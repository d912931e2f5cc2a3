"""torch.utils.tensorboard on the ``tensorboard`` package, as torch does it: event files written by
tensorboard's own ``EventFileWriter`` with its summary protos, so TensorBoard reads them as torch's.

Importing it needs the package (torch's errors when it is missing or too old)."""
import tensorboard
from packaging.version import Version

if not hasattr(tensorboard, "__version__") or Version(tensorboard.__version__) < Version("1.15"):
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above")

del Version
del tensorboard

from tensorboard.summary.writer.record_writer import RecordWriter  # noqa: E402

from .writer import FileWriter, SummaryWriter  # noqa: E402

__all__ = ["FileWriter", "RecordWriter", "SummaryWriter"]
