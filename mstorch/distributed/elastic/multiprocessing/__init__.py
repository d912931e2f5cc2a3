"""torch.distributed.elastic.multiprocessing: ``errors`` (ChildFailedError, record)."""
from . import errors  # noqa: F401
