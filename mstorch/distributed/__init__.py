"""torch.distributed on mstorch: process groups on MindSpore's communication engine (mccl on CPU, nccl on
GPU, hccl on Ascend), started by torch's rendezvous or by msrun (see ``distributed_c10d`` and ``_pg``)."""
from .distributed_c10d import *  # noqa: F401,F403
from .distributed_c10d import __all__ as _c10d_all
from .distributed_c10d import default_pg_timeout  # noqa: F401
from ._reducer import (GradBucket, _DEFAULT_FIRST_BUCKET_BYTES, _broadcast_coalesced,  # noqa: F401
                       _compute_bucket_assignment_by_size)
from .device_mesh import DeviceMesh, init_device_mesh  # noqa: F401
from .store import DistBackendError, DistError, DistNetworkError, DistStoreError  # noqa: F401

__all__ = list(_c10d_all) + ["DeviceMesh", "init_device_mesh", "DistBackendError", "DistError", "DistNetworkError", "DistStoreError",
                             "default_pg_timeout", "GradBucket"]
