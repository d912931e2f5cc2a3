"""torch.distributed.tensor._utils: the helpers that need a device mesh raise (no DTensor in mstorch)."""
from . import refuse


def compute_local_shape_and_global_offset(global_shape, mesh, placements, skip_offset=False):
    raise refuse("distributed.tensor._utils.compute_local_shape_and_global_offset")
