"""Mirrors ``torch.distributed.distributed_c10d``: the default process group and the collectives.

Tensors travel as NumPy arrays (``bfloat16`` as ``float32``, exactly) and results are written back
into the caller's tensors in place, outside autograd, as torch's c10d ops do. Every backend name
(``gloo``, ``nccl``, ``hccl``, ...) runs this host implementation; see docs/known-differences.md.
"""
import os
import warnings
from datetime import timedelta
from urllib.parse import parse_qs, urlparse

import numpy as np

from ._pg import ProcessGroup, ReduceOp, Work, reduce_arrays
from .store import HashStore, PrefixStore, Store, TCPStore

default_pg_timeout = timedelta(minutes=30)

_NOT_INIT = "Default process group has not been initialized, please make sure to call init_process_group."


class Backend(str):
    """Mirrors ``torch.distributed.Backend``: ``Backend("GLOO")`` is the str ``"gloo"``."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"
    XCCL = "xccl"
    FAKE = "fake"
    HCCL = "hccl"
    backend_list = [UNDEFINED, GLOO, NCCL, XCCL, UCC, MPI, FAKE, HCCL]
    default_device_backend_map = {"cpu": GLOO, "cuda": NCCL, "npu": HCCL, "xpu": XCCL}

    def __new__(cls, name):
        if not isinstance(name, str):
            raise ValueError("Backend constructor parameter must be string-ish")
        value = getattr(Backend, name.upper(), Backend.UNDEFINED)
        if value == Backend.UNDEFINED:
            value = name.lower()
        return value        # a plain str, as torch's


def _check_backend(backend):
    for part in str(backend).split(","):
        name = part.split(":")[-1].strip().lower()
        if name not in Backend.backend_list or name == Backend.UNDEFINED:
            raise AssertionError(f"Unknown backend type {name}")


class _WorldMeta(type):
    @property
    def WORLD(cls):   # noqa: N802
        return _world["default_pg"]


class group(metaclass=_WorldMeta):  # noqa: N801
    """Mirrors ``torch.distributed.group``: ``group.WORLD`` is the default group (None before init)."""


class GroupMember(metaclass=_WorldMeta):
    NON_GROUP_MEMBER = -100


_world = {"default_pg": None, "store": None, "backends": {}, "groups": 0}


def is_available():
    return True


def is_initialized():
    return _world["default_pg"] is not None


def is_gloo_available():
    return True


def is_nccl_available():
    return False


def is_mpi_available():
    return False


def is_ucc_available():
    return False


def is_xccl_available():
    return False


def is_backend_available(backend):
    return str(backend).lower() in (Backend.GLOO, Backend.NCCL, Backend.HCCL)


def is_torchelastic_launched():
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


def get_node_local_rank(fallback_rank=None):
    if "LOCAL_RANK" in os.environ:
        return int(os.environ["LOCAL_RANK"])
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError("LOCAL_RANK is not in the environment. Consider passing fallback_rank to allow "
                       "`get_node_local_rank` to work, assuming you are not running in a multi-device context "
                       "and want the code to run locally instead.")


def _default_group():
    if _world["default_pg"] is None:
        raise ValueError(_NOT_INIT)
    return _world["default_pg"]


def _group(group):
    return _default_group() if group is None else group


def _not_in_group(group):
    return group is not None and group == GroupMember.NON_GROUP_MEMBER


# --- rendezvous ---------------------------------------------------------------------------------

def _rendezvous(url, rank, world_size, timeout):
    """(store, rank, world_size) for ``env://`` and ``tcp://`` URLs, as torch.distributed.rendezvous."""
    parsed = urlparse(url)
    query = {k: v[-1] for k, v in parse_qs(parsed.query).items()}
    if rank != -1:
        query["rank"] = str(rank)
    if world_size != -1:
        query["world_size"] = str(world_size)
    scheme = parsed.scheme

    def error(msg):
        return ValueError(f"Error initializing torch.distributed using {scheme}:// rendezvous: {msg}")

    if scheme == "env":
        def env(var):
            value = os.environ.get(var)
            if not value:
                raise error(f"environment variable {var} expected, but not set")
            return value
        rank = int(query["rank"]) if "rank" in query else int(env("RANK"))
        world_size = int(query["world_size"]) if "world_size" in query else int(env("WORLD_SIZE"))
        host, port = env("MASTER_ADDR"), int(env("MASTER_PORT"))
    elif scheme == "tcp":
        if parsed.port is None:
            raise error("port number missing")
        if "rank" not in query:
            raise error("rank parameter missing")
        if "world_size" not in query:
            raise error("world size parameter missing")
        rank, world_size = int(query["rank"]), int(query["world_size"])
        host, port = parsed.hostname, parsed.port
    else:
        raise RuntimeError(f"No rendezvous handler for {scheme}://")
    if not 0 <= port < 2 ** 16:
        raise ValueError(f"port must have value from 0 to 65535 but was {port}.")
    if world_size == 1:
        return HashStore(), rank, world_size       # a single process: no network at all
    return TCPStore(host, port, world_size, rank == 0, timeout), rank, world_size


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None):
    """Mirrors ``torch.distributed.init_process_group``; ``env://`` (torchrun's RANK, WORLD_SIZE,
    MASTER_ADDR, MASTER_PORT), ``tcp://host:port`` or an explicit ``store``."""
    if _world["default_pg"] is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if store is not None and init_method is not None:
        raise AssertionError("Cannot specify both init_method and store.")
    if store is not None:
        if not world_size > 0:
            raise AssertionError("world_size must be positive if using store")
        if not rank >= 0:
            raise AssertionError("rank must be non-negative if using store")
    elif init_method is None:
        init_method = "env://"
    if timeout is not None and not isinstance(timeout, timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got {type(timeout)}")
    backend = Backend(backend) if backend is not None else Backend.GLOO
    _check_backend(backend)
    timeout = default_pg_timeout if timeout is None else timeout
    if store is None:
        store, rank, world_size = _rendezvous(init_method, rank, world_size, timeout)
    if not 0 <= rank < world_size:
        raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {world_size - 1}]")
    store.set_timeout(timeout)
    pg = ProcessGroup(PrefixStore("default_pg", store), rank, world_size, range(world_size), backend, "0")
    _world.update(default_pg=pg, store=store, backends={pg: backend}, groups=1)


def destroy_process_group(group=None):
    """Mirrors ``torch.distributed.destroy_process_group``."""
    if group == GroupMember.NON_GROUP_MEMBER:
        return
    pg = _world["default_pg"] if group is None else group
    if pg is None:
        raise AssertionError("Process group cannot be None")
    if pg not in _world["backends"]:
        raise ValueError("Invalid process group specified")
    if group is None or pg is _world["default_pg"]:
        store = _world["store"]
        _world.update(default_pg=None, store=None, backends={}, groups=0)
        if hasattr(store, "_close"):
            store._close()
    else:
        del _world["backends"][pg]


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None, device_id=None, sort_ranks=True):
    """Mirrors ``torch.distributed.new_group``: every rank must call it, in the same order."""
    world = _default_group()
    ranks = list(range(world.size())) if ranks is None else list(ranks)
    if sort_ranks:
        ranks = sorted(ranks)
    for r in ranks:
        if not 0 <= r < world.size():
            raise ValueError("The new group's rank should be within the world_size set by init_process_group")
    _world["groups"] += 1
    name = str(_world["groups"] - 1)
    backend = Backend(backend) if backend is not None else _world["backends"][world]
    if world.rank() not in ranks:
        return GroupMember.NON_GROUP_MEMBER
    pg = ProcessGroup(PrefixStore(f"group_{name}", _world["store"]), ranks.index(world.rank()), len(ranks),
                      ranks, backend, name)
    _world["backends"][pg] = backend
    return pg


def get_rank(group=None):
    if _not_in_group(group):
        return -1
    return _default_group().rank() if group is None else group.rank()


def get_world_size(group=None):
    if _not_in_group(group):
        return -1
    return _group(group).size()


def get_backend(group=None):
    pg = _group(group)
    if _not_in_group(pg):
        raise ValueError("Invalid process group specified")
    return Backend(_world["backends"][pg])


def get_process_group_ranks(group):
    return list(_group(group)._ranks)


def get_group_rank(group, global_rank):
    if group is None or group is _world["default_pg"]:
        return global_rank
    if global_rank not in group._ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {group}")
    return group._ranks.index(global_rank)


def get_global_rank(group, group_rank):
    if group is None or group is _world["default_pg"]:
        return group_rank
    if not 0 <= group_rank < len(group._ranks):
        raise ValueError(f"Group rank {group_rank} is not part of group {group}")
    return group._ranks[group_rank]


def _group_rank(pg, global_rank, group_rank, default=0):
    if group_rank is not None:
        if global_rank is not None:
            raise ValueError("Can't specify both group_rank and global_rank")
        return group_rank
    return get_group_rank(pg, default if global_rank is None else global_rank)


# --- tensors to and from NumPy -----------------------------------------------------------------

def _check_tensor(t, name):
    from .._tensor import Tensor
    if not isinstance(t, Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type torch.Tensor\n"
                        f"             but got {type(t)} instead.")


def _check_tensor_list(ts, name):
    from .._tensor import Tensor
    if not isinstance(ts, list):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type List[torch.Tensor]\n"
                        f"             but got {type(ts)} instead.")
    if not all(isinstance(t, Tensor) for t in ts):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type List[torch.Tensor]\n"
                        f"             but got {type(ts)} with elements of type {[type(t) for t in ts]}.")


def _array(t):
    from .._dtype import bfloat16
    d = t.detach()
    return np.ascontiguousarray((d.float() if d.dtype is bfloat16 else d).numpy())


def _write(t, array):
    """``t[...] = array`` in place, outside autograd (c10d ops are not recorded)."""
    from ..autograd.grad_mode import no_grad
    from ..ops.creation import from_numpy
    with no_grad():
        t.copy_(from_numpy(np.ascontiguousarray(array)).reshape(t.shape))


def _ret(async_op, result=None):
    return Work(result) if async_op else None


def _prefix(pg):
    return "ProcessGroupNCCL" if _world["backends"].get(pg) == Backend.NCCL else "ProcessGroupGloo"


def _check_root(pg, root, what):
    if not 0 <= root < pg.size():
        raise RuntimeError(f"{_prefix(pg)}::{what}: invalid root rank: {root}")


# --- collectives --------------------------------------------------------------------------------

def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Mirrors ``torch.distributed.all_reduce`` (in place)."""
    _check_tensor(tensor, "tensor")
    if _not_in_group(group):
        return None
    pg = _group(group)
    arrays = pg.all_exchange(_array(tensor))
    _write(tensor, reduce_arrays(arrays, op))
    return _ret(async_op)


def all_reduce_coalesced(tensors, op=ReduceOp.SUM, group=None, async_op=False):
    for t in tensors:
        all_reduce(t, op, group)
    return _ret(async_op)


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """Mirrors ``torch.distributed.broadcast`` (in place)."""
    _check_tensor(tensor, "tensor")
    if _not_in_group(group):
        return None
    pg = _group(group)
    root = _group_rank(pg, src, group_src)
    _check_root(pg, root, "broadcast")
    value = pg.one_to_all(_array(tensor) if pg.rank() == root else None, root)
    if pg.rank() != root:
        _write(tensor, value)
    return _ret(async_op)


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    """Mirrors ``torch.distributed.reduce``: the result lands in ``dst``'s tensor only."""
    _check_tensor(tensor, "tensor")
    if _not_in_group(group):
        return None
    pg = _group(group)
    root = _group_rank(pg, dst, group_dst)
    _check_root(pg, root, "reduce")
    arrays = pg.all_to_one(_array(tensor), root)
    if arrays is not None:
        _write(tensor, reduce_arrays(arrays, op))
    return _ret(async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Mirrors ``torch.distributed.all_gather``."""
    _check_tensor_list(tensor_list, "tensor_list")
    _check_tensor(tensor, "tensor")
    if _not_in_group(group):
        return None
    pg = _group(group)
    if len(tensor_list) != pg.size():
        raise RuntimeError(f"{_prefix(pg)}::allgather: invalid output tensor list at index 0 (expected length "
                           f"{pg.size()}, got {len(tensor_list)})")
    for out, a in zip(tensor_list, pg.all_exchange(_array(tensor))):
        _write(out, a)
    return _ret(async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Mirrors ``torch.distributed.all_gather_into_tensor``: the inputs concatenated (or stacked) in rank order."""
    _check_tensor(output_tensor, "output_tensor")
    _check_tensor(input_tensor, "input_tensor")
    if _not_in_group(group):
        return None
    pg = _group(group)
    arrays = pg.all_exchange(_array(input_tensor))
    if output_tensor.numel() != input_tensor.numel() * pg.size():
        raise ValueError("output tensor size must be equal to world_size times input tensor size")
    _write(output_tensor, np.concatenate([a.reshape(-1) for a in arrays]))
    return _ret(async_op)


_all_gather_base = all_gather_into_tensor


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """Mirrors ``torch.distributed.reduce_scatter``: rank r gets ``op`` over every rank's ``input_list[r]``."""
    _check_tensor(output, "output")
    _check_tensor_list(input_list, "input_list")
    if _not_in_group(group):
        return None
    pg = _group(group)
    lists = pg.all_exchange([_array(t) for t in input_list])
    _write(output, reduce_arrays([lst[pg.rank()] for lst in lists], op))
    return _ret(async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Mirrors ``torch.distributed.reduce_scatter_tensor``: ``input`` split evenly along dim 0."""
    pg = _group(group)
    chunks = list(input.chunk(pg.size(), 0))
    return reduce_scatter(output, chunks, op, group, async_op)


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """Mirrors ``torch.distributed.all_to_all``: rank r's ``output[i]`` is rank i's ``input[r]``."""
    _check_tensor_list(output_tensor_list, "output_tensor_list")
    _check_tensor_list(input_tensor_list, "input_tensor_list")
    pg = _group(group)
    lists = pg.all_exchange([_array(t) for t in input_tensor_list])
    for out, lst in zip(output_tensor_list, lists):
        _write(out, lst[pg.rank()])
    return _ret(async_op)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None, async_op=False):
    """Mirrors ``torch.distributed.all_to_all_single``: ``input`` is split along dim 0 (evenly, or by
    ``input_split_sizes``), piece i goes to rank i, and the pieces received fill ``output`` in rank order."""
    _check_tensor(output, "output")
    _check_tensor(input, "input")
    pg = _group(group)
    n = pg.size()

    def splits(t, sizes, what):
        if not sizes:
            if t.shape[0] % n:
                raise RuntimeError(f"{what} tensor's dim 0 ({t.shape[0]}) is not divisible by the world size {n}")
            return [t.shape[0] // n] * n
        if len(sizes) != n or sum(sizes) != t.shape[0]:
            raise RuntimeError("Split sizes doesn't match total dim 0 size")
        return list(sizes)
    a = _array(input)
    edges = np.cumsum([0] + splits(input, input_split_sizes, "Input"))
    lists = pg.all_exchange([a[edges[i]:edges[i + 1]] for i in range(n)])
    received = [lst[pg.rank()] for lst in lists]
    out_sizes = splits(output, output_split_sizes, "Output")
    if [r.shape[0] for r in received] != out_sizes:
        raise RuntimeError("Split sizes doesn't match total dim 0 size")
    _write(output, np.concatenate(received, axis=0))
    return _ret(async_op)


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    """Mirrors ``torch.distributed.gather``: ``gather_list`` is filled on ``dst`` only."""
    _check_tensor(tensor, "tensor")
    if _not_in_group(group):
        return None
    pg = _group(group)
    root = _group_rank(pg, dst, group_dst)
    if pg.rank() == root:
        if gather_list is None:
            raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
        _check_tensor_list(gather_list, "gather_list")
    elif gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    arrays = pg.all_to_one(_array(tensor), root)
    if arrays is not None:
        for out, a in zip(gather_list, arrays):
            _write(out, a)
    return _ret(async_op)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    """Mirrors ``torch.distributed.scatter``: rank r receives ``src``'s ``scatter_list[r]``."""
    _check_tensor(tensor, "tensor")
    if _not_in_group(group):
        return None
    pg = _group(group)
    root = _group_rank(pg, src, group_src)
    if pg.rank() == root:
        if not scatter_list:
            raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
        _check_tensor_list(scatter_list, "scatter_list")
        values = [_array(t) for t in scatter_list]
    else:
        if scatter_list:
            raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
        values = None
    _write(tensor, pg.scatter_from(values, root))
    return _ret(async_op)


def barrier(group=None, async_op=False, device_ids=None):
    """Mirrors ``torch.distributed.barrier``."""
    if _not_in_group(group):
        return None
    _group(group).all_exchange(None)
    return _ret(async_op)


def monitored_barrier(group=None, timeout=None, wait_all_ranks=False):
    barrier(group)


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Mirrors ``torch.distributed.send`` (blocking; matched with ``recv`` in order)."""
    _check_tensor(tensor, "tensor")
    pg = _group(group)
    peer = _group_rank(pg, dst, group_dst)
    if peer == pg.rank():
        raise ValueError("Invalid destination rank: destination rank should not be the same as the rank of the "
                         "current process.")
    pg.send(_array(tensor), peer)


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Mirrors ``torch.distributed.recv``; returns the sender's rank."""
    _check_tensor(tensor, "tensor")
    pg = _group(group)
    peer = None if src is None and group_src is None else _group_rank(pg, src, group_src)
    if peer == pg.rank():
        raise ValueError("Invalid source rank: source rank should not be the same as the rank of the current "
                         "process.")
    value, peer = pg.recv(peer)
    _write(tensor, value)
    return get_global_rank(group, peer)


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    send(tensor, dst, group, tag, group_dst)
    return Work()


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    return Work(recv(tensor, src, group, tag, group_src))


# --- object collectives ---------------------------------------------------------------------------

def all_gather_object(object_list, obj, group=None):
    """Mirrors ``torch.distributed.all_gather_object``."""
    if _not_in_group(group):
        return
    for i, o in enumerate(_group(group).all_exchange(obj)):
        object_list[i] = o


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Mirrors ``torch.distributed.broadcast_object_list`` (in place on the list)."""
    if _not_in_group(group):
        return
    pg = _group(group)
    root = _group_rank(pg, src, group_src)
    values = pg.one_to_all(list(object_list) if pg.rank() == root else None, root)
    object_list[:] = values


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    """Mirrors ``torch.distributed.gather_object``."""
    if _not_in_group(group):
        return
    pg = _group(group)
    root = _group_rank(pg, dst, group_dst)
    if pg.rank() == root and object_gather_list is None:
        raise AssertionError("Must provide object_gather_list on dst rank")
    values = pg.all_to_one(obj, root)
    if values is not None:
        for i, o in enumerate(values):
            object_gather_list[i] = o


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None, group=None,
                        group_src=None):
    """Mirrors ``torch.distributed.scatter_object_list``: element 0 of the output list gets this rank's object."""
    if _not_in_group(group):
        return
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size at least 1.")
    pg = _group(group)
    root = _group_rank(pg, src, group_src)
    values = list(scatter_object_input_list) if pg.rank() == root else None
    scatter_object_output_list[0] = pg.scatter_from(values, root)


def send_object_list(object_list, dst=None, group=None, device=None, group_dst=None):
    pg = _group(group)
    pg.send(list(object_list), _group_rank(pg, dst, group_dst))


def recv_object_list(object_list, src=None, group=None, device=None, group_src=None):
    pg = _group(group)
    peer = None if src is None and group_src is None else _group_rank(pg, src, group_src)
    values, peer = pg.recv(peer)
    object_list[:] = values
    return get_global_rank(group, peer)


class _ReduceOpDeprecated:
    def __getattr__(self, name):
        warnings.warn("`torch.distributed.reduce_op` is deprecated, please use `torch.distributed.ReduceOp` "
                      "instead", FutureWarning, stacklevel=2)
        return getattr(ReduceOp.RedOpType, name)


reduce_op = _ReduceOpDeprecated()

__all__ = ["Backend", "GroupMember", "ProcessGroup", "ReduceOp", "Store", "TCPStore", "HashStore", "PrefixStore",
           "Work", "all_gather", "all_gather_into_tensor", "all_gather_object", "all_reduce", "all_reduce_coalesced",
           "all_to_all", "all_to_all_single", "barrier", "broadcast", "broadcast_object_list", "destroy_process_group", "gather",
           "gather_object", "get_backend", "get_global_rank", "get_group_rank", "get_node_local_rank",
           "get_process_group_ranks", "get_rank", "get_world_size", "group", "init_process_group", "irecv",
           "is_available", "is_backend_available", "is_gloo_available", "is_initialized", "is_mpi_available",
           "is_nccl_available", "is_torchelastic_launched", "is_ucc_available", "is_xccl_available", "isend",
           "monitored_barrier", "new_group", "recv", "recv_object_list", "reduce", "reduce_op", "reduce_scatter",
           "reduce_scatter_tensor", "scatter", "scatter_object_list", "send", "send_object_list"]
