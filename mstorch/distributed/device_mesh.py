"""torch.distributed.device_mesh: the ``DeviceMesh`` type exists; building a mesh raises.

A device mesh is the n-dimensional layout of ranks that DTensor, FSDP2 and tensor parallelism shard over;
mstorch has none of those (see ``torch.distributed.tensor``), so a mesh would have no user."""
from ..ops._registry import unsupported

__all__ = ["init_device_mesh", "DeviceMesh"]

REASON = "mstorch has no device meshes: DTensor, FSDP2 and tensor parallelism, which shard over them, are missing"


def _refuse(api):
    return NotImplementedError(f"torch.{api} is not supported by mstorch: {REASON}")


class DeviceMesh:
    """Mirrors torch.distributed.device_mesh.DeviceMesh as a type; constructing one raises."""

    mstorch_difference = "the type exists for isinstance checks and annotations; constructing a mesh raises"

    def __init__(self, device_type, mesh=None, *args, **kwargs):
        raise _refuse("distributed.device_mesh.DeviceMesh")


def init_device_mesh(device_type, mesh_shape=None, *, mesh_dim_names=None, backend_override=None):
    raise _refuse("distributed.device_mesh.init_device_mesh")


unsupported("distributed.device_mesh.init_device_mesh", REASON)
