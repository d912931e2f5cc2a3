"""Mirrors torch.distributed.device_mesh: ``DeviceMesh``, an n-dimensional layout of the ranks, with one process
group per mesh dimension (the ranks that differ only along that dimension), and ``init_device_mesh``.

The groups are mstorch's process groups, so collectives over ``mesh.get_group(dim)`` work (peft and accelerate
read meshes this way). What shards over a mesh (DTensor, FSDP2, tensor parallelism) is still missing: see
``torch.distributed.tensor``."""
import math

import numpy as np

__all__ = ["init_device_mesh", "DeviceMesh"]


def _c10d():
    from . import distributed_c10d
    return distributed_c10d


def _ensure_world():
    c10d = _c10d()
    if not c10d.is_initialized():
        c10d.init_process_group()
    return c10d.get_world_size()


class DeviceMesh:
    """``DeviceMesh(device_type, mesh, *, mesh_dim_names=None)``: ``mesh`` holds global ranks (a tensor or nested
    lists); constructing it makes the per-dimension groups on every rank, as torch does."""

    def __init__(self, device_type, mesh, *, mesh_dim_names=None, backend_override=None, _init_backend=True,
                 _groups=None):
        from .. import _functions, _dtype
        arr = np.asarray(mesh.tolist() if hasattr(mesh, "tolist") else mesh, dtype=np.int64)
        self.device_type = device_type
        self.mesh = _functions.tensor(arr.tolist(), dtype=_dtype.int32).reshape(arr.shape)
        self._ranks = arr
        self.mesh_dim_names = tuple(mesh_dim_names) if mesh_dim_names is not None else None
        if self.mesh_dim_names is not None and len(self.mesh_dim_names) != arr.ndim:
            raise RuntimeError(f"mesh_shape and mesh_dim_names should have same length! Found len(mesh_dim_names): "
                               f"{len(self.mesh_dim_names)} and len(mesh_shape):{arr.ndim}.")
        if _groups is not None:
            self._groups = _groups
            return
        world = _ensure_world() if _init_backend else None
        if world is not None and arr.size > world:
            raise RuntimeError(f"Mesh should not be bigger than default world size {world}, but found {arr.size} "
                               "ranks!")
        self._groups = [self._make_group(dim) for dim in range(arr.ndim)] if _init_backend else [None] * arr.ndim

    def _make_group(self, dim):
        """The group along ``dim`` holding this rank; every rank makes every group of the dimension, in one
        order, as ``new_group`` requires."""
        c10d = _c10d()
        me, world = c10d.get_rank(), c10d.get_world_size()
        rows = np.moveaxis(self._ranks, dim, -1).reshape(-1, self._ranks.shape[dim])
        mine = None
        for row in rows:
            ranks = [int(r) for r in row]
            group = c10d.group.WORLD if ranks == list(range(world)) else c10d.new_group(ranks)
            if me in ranks:
                mine = group
        return mine

    # --- shape --------------------------------------------------------------------------------------------------
    @property
    def ndim(self):
        return self._ranks.ndim

    @property
    def shape(self):
        return tuple(self._ranks.shape)

    def size(self, mesh_dim=None):
        return int(self._ranks.size) if mesh_dim is None else int(self._ranks.shape[self._dim(mesh_dim)])

    def _dim(self, mesh_dim):
        if isinstance(mesh_dim, str):
            if self.mesh_dim_names is None or mesh_dim not in self.mesh_dim_names:
                raise KeyError(f"Invalid mesh_dim_names ('{mesh_dim}',) specified. Valid mesh_dim_names are "
                               f"{list(self.mesh_dim_names or ())}.")
            return self.mesh_dim_names.index(mesh_dim)
        return mesh_dim

    # --- ranks and groups ---------------------------------------------------------------------------------------
    def get_rank(self):
        return _c10d().get_rank()

    def get_coordinate(self):
        where = np.argwhere(self._ranks == self.get_rank())
        return tuple(int(i) for i in where[0]) if len(where) else None

    def get_local_rank(self, mesh_dim=None):
        if self.ndim > 1 and mesh_dim is None:
            raise RuntimeError(f"Found the DeviceMesh have {self.ndim} dimensions", "Optional kwarg `mesh_dim` needs "
                               "to be specified when device_mesh.ndim > 1.")
        coordinate = self.get_coordinate()
        return None if coordinate is None else coordinate[self._dim(0 if mesh_dim is None else mesh_dim)]

    def get_group(self, mesh_dim=None):
        if self.ndim > 1 and mesh_dim is None:
            raise RuntimeError(f"Found the DeviceMesh have {self.ndim} dimensions",
                               "Optional kwarg `mesh_dim` needs to be specified when device_mesh.ndim > 1.",
                               "If you want to get the list of all the ProcessGroups in the DeviceMesh,"
                               "please use `get_all_groups()` instead.")
        return self._groups[self._dim(0 if mesh_dim is None else mesh_dim)]

    def get_all_groups(self):
        return list(self._groups)

    def __getitem__(self, mesh_dim_names):
        """The sub-mesh over the named dimensions that holds this rank."""
        if self.mesh_dim_names is None:
            raise RuntimeError("Cannot slice a DeviceMesh without mesh_dim_names!")
        names = (mesh_dim_names,) if isinstance(mesh_dim_names, str) else tuple(mesh_dim_names)
        if any(n not in self.mesh_dim_names for n in names):
            raise KeyError(f"Invalid mesh_dim_names {names} specified. Valid mesh_dim_names are "
                           f"{list(self.mesh_dim_names)}.")
        if names == self.mesh_dim_names:
            return self
        dims = [self.mesh_dim_names.index(n) for n in names]
        coordinate = self.get_coordinate() or (0,) * self.ndim
        index = tuple(slice(None) if d in dims else coordinate[d] for d in range(self.ndim))
        sub = np.transpose(self._ranks[index], np.argsort(np.argsort(dims)))
        return DeviceMesh(self.device_type, sub, mesh_dim_names=names, _groups=[self._groups[d] for d in dims])

    # --- identity -----------------------------------------------------------------------------------------------
    def __repr__(self):
        sizes = self.shape if self.mesh_dim_names is None else \
            "(" + ", ".join(f"{n}={s}" for n, s in zip(self.mesh_dim_names, self.shape)) + ")"
        # torch prints the layout's strides; a dimension of size 1 has none
        strides = tuple(() if s == 1 else math.prod(self.shape[i + 1:]) for i, s in enumerate(self.shape))
        return f"DeviceMesh({sizes}, '{self.device_type}', stride={strides})"

    def __eq__(self, other):
        return isinstance(other, DeviceMesh) and (self.device_type, self.mesh_dim_names, self._ranks.tolist()) == \
            (other.device_type, other.mesh_dim_names, other._ranks.tolist())

    def __hash__(self):
        return hash((self.device_type, self.mesh_dim_names, str(self._ranks.tolist())))


def init_device_mesh(device_type, mesh_shape, *, mesh_dim_names=None, backend_override=None):
    """A mesh of ``mesh_shape`` over ranks ``0..n-1`` in order; initialises the default group (``env://``) when
    none exists, as torch does."""
    mesh_shape = tuple(mesh_shape)
    if mesh_dim_names is not None and len(mesh_dim_names) != len(mesh_shape):
        raise RuntimeError(f"mesh_shape and mesh_dim_names should have same length! Found len(mesh_dim_names): "
                           f"{len(mesh_dim_names)} and len(mesh_shape):{len(mesh_shape)}.")
    world = _ensure_world()
    if math.prod(mesh_shape) > world:
        raise RuntimeError(f"Mesh should not be bigger than default world size {world}, but found "
                           f"{math.prod(mesh_shape)} ranks!")
    return DeviceMesh(device_type, np.arange(math.prod(mesh_shape)).reshape(mesh_shape), mesh_dim_names=mesh_dim_names)
