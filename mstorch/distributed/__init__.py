"""torch.distributed on mstorch: a process group for CPU processes (one machine or several reachable over
TCP), with the collectives computed on the host (see ``distributed_c10d``)."""
from .distributed_c10d import *  # noqa: F401,F403
from .distributed_c10d import __all__ as _c10d_all
from .distributed_c10d import default_pg_timeout  # noqa: F401
from ._reducer import (GradBucket, _DEFAULT_FIRST_BUCKET_BYTES, _broadcast_coalesced,  # noqa: F401
                       _compute_bucket_assignment_by_size)
from .store import DistError, DistNetworkError, DistStoreError  # noqa: F401

__all__ = list(_c10d_all) + ["DistError", "DistNetworkError", "DistStoreError", "default_pg_timeout", "GradBucket"]
