"""Mirrors ``torch.distributed.distributed_c10d``: the default process group and the collectives.

The collectives run on MindSpore's communication engine (``_pg.py``) on the tensors' own memory and
write their results into the caller's tensors in place, outside autograd, as torch's c10d ops do.
torch's backend names map onto the engine of the device: ``gloo`` (and ``None``) on the device MindSpore
runs on, ``nccl`` on GPU, ``hccl`` on Ascend. The process group starts from torch's rendezvous
(``env://``, ``tcp://``, ``file://``, a ``store``) through MindSpore's store, or from msrun's cluster
when msrun launched the process.
"""
import math
import os
import warnings
from datetime import timedelta
from urllib.parse import parse_qs, urlparse

from ._pg import ProcessGroup, ReduceOp, Work, check_reduce, concat, op_type
from .store import DistBackendError, DistStoreError, FileStore, HashStore, PrefixStore, Store, TCPStore

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
    from .. import _runtime
    return _runtime.device_target() == "GPU"


def is_mpi_available():
    return False


def is_ucc_available():
    return False


def is_xccl_available():
    return False


def is_hccl_available():
    from .. import _runtime
    return _runtime.device_target() == "Ascend"


def is_backend_available(backend):
    name = str(backend).lower()
    return name == Backend.GLOO or (name == Backend.NCCL and is_nccl_available()) or (
        name == Backend.HCCL and is_hccl_available())


def is_torchelastic_launched():
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


def get_node_local_rank(fallback_rank=None):
    if "LOCAL_RANK" in os.environ:
        return int(os.environ["LOCAL_RANK"])
    if os.environ.get("MS_ROLE") == "MS_WORKER" and "DEVICE_ID" in os.environ:   # msrun: the local rank
        return int(os.environ["DEVICE_ID"])
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

_ENGINE = {"started": None}     # (rank, world_size, engine backend) once MindSpore's engine runs here


def _under_msrun():
    return os.environ.get("MS_ROLE") in ("MS_WORKER", "MS_SCHED")


def _rendezvous(url, rank, world_size, timeout):
    """(store, rank, world_size) for ``env://``, ``tcp://`` and ``file://`` URLs, as torch.distributed.rendezvous."""
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
        if os.environ.get("TORCHELASTIC_USE_AGENT_STORE") == "True":
            # torchrun's agent serves its own store on MASTER_PORT; MindSpore's store cannot speak to it
            # and takes the next port (or MSTORCH_STORE_PORT)
            port = int(os.environ.get("MSTORCH_STORE_PORT", port + 1))
    elif scheme == "tcp":
        if parsed.port is None:
            raise error("port number missing")
        if "rank" not in query:
            raise error("rank parameter missing")
        if "world_size" not in query:
            raise error("world size parameter missing")
        rank, world_size = int(query["rank"]), int(query["world_size"])
        host, port = parsed.hostname, parsed.port
    elif scheme == "file":
        if "rank" not in query:
            raise error("rank parameter missing")
        if "world_size" not in query:
            raise error("world size parameter missing")
        rank, world_size = int(query["rank"]), int(query["world_size"])
        if world_size == 1:
            return HashStore(), rank, world_size
        return _file_rendezvous(parsed.path, rank, world_size, timeout), rank, world_size
    else:
        raise RuntimeError(f"No rendezvous handler for {scheme}://")
    if not 0 <= port < 2 ** 16:
        raise ValueError(f"port must have value from 0 to 65535 but was {port}.")
    if world_size == 1:
        return HashStore(), rank, world_size       # a single process: no network at all
    return TCPStore(host, port, world_size, rank == 0, timeout), rank, world_size


def _file_rendezvous(path, rank, world_size, timeout):
    """``file://``: torch keeps the whole store in the file (a FileStore); MindSpore's engine rendezvous
    through its TCP store, so here the file is a FileStore that carries only that store's address: rank
    0 serves MindSpore's store on a free port and sets its address there, the others get it. As torch's
    FileStore, the file may exist empty before the job, and the last rank out removes it."""
    from .store import free_port, own_address
    files = FileStore(path, world_size)
    files.set_timeout(timeout)
    if rank == 0:
        host = os.environ.get("MASTER_ADDR") or own_address()
        store = TCPStore(host, free_port(host), world_size, True, timeout, wait_for_workers=False)
        files.set(_FILE_ADDRESS_KEY, f"{store.host} {store.port}")
        return store
    try:
        host, port = files.get(_FILE_ADDRESS_KEY).decode().split()
    except RuntimeError:
        raise DistStoreError(f"file:// rendezvous: rank 0 wrote no address into {path} within {timeout}") from None
    return TCPStore(host, int(port), world_size, False, timeout)


_FILE_ADDRESS_KEY = "mstorch/tcp_store_address"


def _engine_backend(backend):
    """MindSpore's engine for torch's backend name on this device (torch's errors where it would refuse)."""
    from .. import _runtime
    device = _runtime.device_target()
    names = {part.split(":")[-1].strip().lower() for part in str(backend).split(",")}
    if Backend.NCCL in names and Backend.GLOO not in names and device != "GPU":
        raise RuntimeError("ProcessGroupNCCL is only supported with GPUs, no GPUs found!")
    if Backend.HCCL in names and Backend.GLOO not in names and device != "Ascend":
        raise RuntimeError("mstorch: the hccl backend needs MindSpore on Ascend (MindSpore runs on "
                           f"{device})")
    return {"CPU": "mccl", "GPU": "nccl", "Ascend": "hccl"}[device]


def _start_engine(engine, store, rank, world_size, timeout):
    """MindSpore's engine for this process: from msrun's cluster, or from ``store``. Once per process."""
    from mindspore import communication
    started = _ENGINE["started"]
    if started is not None:
        if started != (rank, world_size, engine) and not (_under_msrun() and store is None):
            raise RuntimeError(
                "mstorch.distributed: MindSpore's communication engine already runs in this process as rank "
                f"{started[0]} of {started[1]} ({started[2]}); it cannot be started again with another rank, "
                "world size or backend (MindSpore starts it once per process)")
        return communication.GlobalComm.WORLD_COMM_GROUP
    # a collective that waits longer than this for a peer fails instead of hanging (MindSpore's own
    # default on CPU is 30 s; torch's timeout is the process group's)
    os.environ.setdefault("MS_CPU_COMM_OP_TIMEOUT", str(max(1, math.ceil(timeout.total_seconds()))))
    from .. import _ms_private as P
    if store is None:
        communication.init(engine)      # msrun's scheduler process serves the cluster here and exits
    else:
        P.init_comm_with_store(backend=engine, timeout=timeout, world_size=world_size, rank=rank,
                               store=store.ms_store)
    _ENGINE["started"] = (communication.get_rank(), communication.get_group_size(), engine)
    return communication.GlobalComm.WORLD_COMM_GROUP


def _ms_store(store):
    """The TCPStore under ``store`` (a PrefixStore's too): the engine rendezvous through MindSpore's store."""
    while isinstance(store, PrefixStore):
        store = store.underlying_store
    if not isinstance(store, TCPStore):
        raise ValueError(f"mstorch.distributed: MindSpore's communication engine starts from a TCPStore, not a "
                         f"{type(store).__name__}")
    return store


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None):
    """Mirrors ``torch.distributed.init_process_group``: ``env://`` (torchrun's RANK, WORLD_SIZE,
    MASTER_ADDR, MASTER_PORT), ``tcp://host:port``, ``file://path`` or an explicit ``store``; under msrun
    its cluster (MS_ROLE, RANK_ID, MS_WORKER_NUM) instead."""
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
    backend = Backend(backend) if backend is not None else Backend.UNDEFINED
    if backend != Backend.UNDEFINED:
        _check_backend(backend)
    engine = _engine_backend(backend)
    timeout = default_pg_timeout if timeout is None else timeout
    if _under_msrun():
        group = _start_engine(engine, None, rank, world_size, timeout)
        rank, size = _ENGINE["started"][:2]
        if world_size not in (-1, size):
            raise ValueError(f"mstorch.distributed: world_size={world_size} but msrun started {size} workers")
        store = None
    else:
        if store is None:
            store, rank, world_size = _rendezvous(init_method, rank, world_size, timeout)
        if not 0 <= rank < world_size:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {world_size - 1}]")
        store.set_timeout(timeout)
        group, size = None, world_size
        if world_size > 1:
            group = _start_engine(engine, _ms_store(store), rank, world_size, timeout)
    pg = ProcessGroup(rank, size, range(size), backend, "0", group, timeout)
    _world.update(default_pg=pg, store=store, backends={pg: backend}, groups=1)
    if group is not None:
        pg.barrier().wait()     # the store-based start returns before every rank has joined


def destroy_process_group(group=None):
    """Mirrors ``torch.distributed.destroy_process_group``. MindSpore's engine keeps running until the
    process exits (it cannot be started again once released); a later ``init_process_group`` with the
    same rank and world size uses it again."""
    if group == GroupMember.NON_GROUP_MEMBER:
        return
    pg = _world["default_pg"] if group is None else group
    if pg is None:
        raise AssertionError("Process group cannot be None")
    if pg not in _world["backends"]:
        raise ValueError("Invalid process group specified")
    if group is None or pg is _world["default_pg"]:
        _world.update(default_pg=None, store=None, backends={}, groups=0)
    else:
        del _world["backends"][pg]


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None, device_id=None, sort_ranks=True):
    """Mirrors ``torch.distributed.new_group``: every rank must call it, in the same order; its members
    create the MindSpore group together."""
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
    engine_group = None
    if len(ranks) > 1:
        from mindspore import communication
        engine_group = f"mstorch_group_{name}"
        try:
            communication.create_group(engine_group, ranks)
        except RuntimeError as e:
            raise DistBackendError(f"mstorch.distributed.new_group: MindSpore could not create the group of ranks "
                                   f"{ranks}: {str(e).strip().splitlines()[0]}") from None
    pg = ProcessGroup(ranks.index(world.rank()), len(ranks), ranks, backend, name, engine_group,
                      timeout or world._timeout)
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


# --- torch tensors onto the engine -------------------------------------------------------------

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


# dtypes gloo refuses (torch 2.13: "Invalid scalar type"), for every collective and for some
_GLOO_REFUSES = ("int16", "uint16", "uint32", "uint64")
_GLOO_REFUSES_IN = {"gather": ("complex64", "complex128")}


def _check_dtype(pg, *tensors, what=None):
    if _world["backends"].get(pg) in (Backend.GLOO, Backend.UNDEFINED):
        refused = _GLOO_REFUSES + _GLOO_REFUSES_IN.get(what, ())
        for t in tensors:
            if str(t.dtype).split(".")[-1] in refused:
                raise RuntimeError("Invalid scalar type")


class _Io:
    """The MindSpore tensors the engine reads and writes for a list of torch tensors: a tensor's own
    memory when it owns all of it (contiguous, not a view), else a contiguous copy written back into the
    tensor once the collective completed."""

    def __init__(self, tensors, copy_in=True):
        from .._tensor import solid
        from .._ms_private import detach
        self.tensors, self.engine, self.back = tensors, [], []
        for t in tensors:
            m = t._ms
            if t._view is None and solid(m):
                self.engine.append(m)
            else:
                c = _copy(detach(m)) if copy_in else _zeros(m)
                self.engine.append(c)
                self.back.append((t, c))

    def written(self):
        from .._ms_private import bump_versions
        from .._tensor import wrap
        from ..autograd.grad_mode import no_grad
        bump_versions([m for t, m in zip(self.tensors, self.engine) if m is t._ms])
        with no_grad():
            for t, c in self.back:
                t.copy_(wrap(c))


def _copy(m):
    from mindspore.ops import auto_generate
    return auto_generate.copy(m)


def _zeros(m):
    from mindspore import ops
    return ops.zeros(m.shape, m.dtype)


def _run(async_op, work, outputs=None, result=None):
    """Complete ``work`` (now, or on ``wait()`` when ``async_op``) and write ``outputs`` back."""
    if outputs is not None:
        inner = work._finish

        def finish():
            if inner is not None:
                inner()
            for io in outputs:
                io.written()
        work._finish = finish
    work._result = result if result is not None else [io.tensors for io in outputs or ()]
    if async_op:
        return work
    work.wait()
    return None


def _engine_call(fn, *args):
    """``fn`` with autograd off (c10d ops are not recorded)."""
    from ..autograd.grad_mode import no_grad
    with no_grad():
        return fn(*args)


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
    op = op_type(op)
    _check_dtype(pg, tensor)
    from .._dtype import scalar_type_name
    check_reduce(tensor._ms.dtype, op, scalar_type_name(tensor.dtype))
    io = _Io([tensor])
    return _run(async_op, _engine_call(pg.all_reduce, io.engine[0], op), [io], [tensor])


def all_reduce_coalesced(tensors, op=ReduceOp.SUM, group=None, async_op=False):
    works = [all_reduce(t, op, group, async_op=True) for t in tensors]
    return _run(async_op, Work(handles=[_WaitAll(works)]), result=list(tensors))


class _WaitAll:
    """One handle over several works."""

    def __init__(self, works):
        self.works = [w for w in works if w is not None]

    def wait(self):
        for w in self.works:
            w.wait()


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """Mirrors ``torch.distributed.broadcast`` (in place)."""
    _check_tensor(tensor, "tensor")
    if _not_in_group(group):
        return None
    pg = _group(group)
    root = _group_rank(pg, src, group_src)
    _check_root(pg, root, "broadcast")
    _check_dtype(pg, tensor)
    io = _Io([tensor], copy_in=pg.rank() == root)
    return _run(async_op, _engine_call(pg.broadcast, io.engine[0], root), [io], [tensor])


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    """Mirrors ``torch.distributed.reduce``: the result lands in ``dst``'s tensor only."""
    _check_tensor(tensor, "tensor")
    if _not_in_group(group):
        return None
    pg = _group(group)
    root = _group_rank(pg, dst, group_dst)
    _check_root(pg, root, "reduce")
    op = op_type(op)
    _check_dtype(pg, tensor)
    from .._dtype import scalar_type_name
    check_reduce(tensor._ms.dtype, op, scalar_type_name(tensor.dtype), "reduce")
    io = _Io([tensor])
    return _run(async_op, _engine_call(pg.reduce, io.engine[0], root, op), [io], [tensor])


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
    _check_dtype(pg, tensor)
    outs, x = _Io(tensor_list, copy_in=False), _Io([tensor])
    return _run(async_op, _engine_call(pg.all_gather, outs.engine, x.engine[0]), [outs], list(tensor_list))


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Mirrors ``torch.distributed.all_gather_into_tensor``: the inputs concatenated (or stacked) in rank
    order (an all_gather into the rows of the output)."""
    _check_tensor(output_tensor, "output_tensor")
    _check_tensor(input_tensor, "input_tensor")
    if _not_in_group(group):
        return None
    pg = _group(group)
    if output_tensor.numel() != input_tensor.numel() * pg.size():
        raise ValueError("output tensor size must be equal to world_size times input tensor size")
    _check_dtype(pg, input_tensor)
    out, x = _Io([output_tensor], copy_in=False), _Io([input_tensor])
    parts = [_zeros(x.engine[0]) for _ in range(pg.size())]

    def gather():
        work = pg.all_gather(parts, x.engine[0])
        inner = work._finish

        def finish():
            if inner is not None:
                inner()
            out.engine[0].copy_(concat(parts).reshape(out.engine[0].shape))
        work._finish = finish
        return work
    return _run(async_op, _engine_call(gather), [out], [output_tensor])


_all_gather_base = all_gather_into_tensor


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """Mirrors ``torch.distributed.reduce_scatter``: rank r gets ``op`` over every rank's ``input_list[r]``."""
    _check_tensor(output, "output")
    _check_tensor_list(input_list, "input_list")
    if _not_in_group(group):
        return None
    pg = _group(group)
    op = op_type(op)
    _check_dtype(pg, output, *input_list)
    from .._dtype import scalar_type_name
    check_reduce(output._ms.dtype, op, scalar_type_name(output.dtype), "reduce_scatter")
    out, ins = _Io([output], copy_in=False), _Io(input_list)
    return _run(async_op, _engine_call(pg.reduce_scatter, out.engine[0], ins.engine, op), [out], [output])


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
    _check_dtype(pg, *input_tensor_list)
    outs, ins = _Io(output_tensor_list, copy_in=False), _Io(input_tensor_list)
    return _run(async_op, _engine_call(pg.all_to_all, outs.engine, ins.engine), [outs], list(output_tensor_list))


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
    ins = list(input.split(splits(input, input_split_sizes, "Input"), 0))
    outs = list(output.split(splits(output, output_split_sizes, "Output"), 0))
    return all_to_all(outs, ins, group, async_op)


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
    _check_dtype(pg, tensor, what="gather")
    x = _Io([tensor])
    outs = _Io(gather_list, copy_in=False) if pg.rank() == root else None
    work = _engine_call(pg.gather, x.engine[0], outs.engine if outs else None, root)
    return _run(async_op, work, [outs] if outs else [], list(gather_list or []))


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
    elif scatter_list:
        raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
    _check_dtype(pg, tensor)
    x = _Io([tensor], copy_in=False)
    ins = _Io(scatter_list) if pg.rank() == root else None
    return _run(async_op, _engine_call(pg.scatter, x.engine[0], ins.engine if ins else None, root), [x], [tensor])


def barrier(group=None, async_op=False, device_ids=None):
    """Mirrors ``torch.distributed.barrier``."""
    if _not_in_group(group):
        return None
    return _run(async_op, _group(group).barrier(), result=[])


def monitored_barrier(group=None, timeout=None, wait_all_ranks=False):
    barrier(group)


def _peer(pg, rank, group_rank, what):
    peer = _group_rank(pg, rank, group_rank)
    if peer == pg.rank():
        raise ValueError(f"Invalid {what} rank: {what} rank should not be the same as the rank of the current "
                         "process.")
    return peer


def _any_source(pg):
    """``recv(src=None)``: MindSpore's engine receives from a named rank only, which is unambiguous in a
    group of two."""
    if pg.size() != 2:
        raise RuntimeError("mstorch.distributed.recv: receiving from any source (src=None) needs a group of two "
                           "processes: MindSpore's communication engine receives from a named rank only")
    return 1 - pg.rank()


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Mirrors ``torch.distributed.isend``."""
    _check_tensor(tensor, "tensor")
    pg = _group(group)
    peer = _peer(pg, dst, group_dst, "destination")
    _check_dtype(pg, tensor)
    x = _Io([tensor])
    return _run(True, _engine_call(pg.send, x.engine[0], peer, tag), result=[tensor])


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    """Mirrors ``torch.distributed.irecv``."""
    _check_tensor(tensor, "tensor")
    pg = _group(group)
    peer = _any_source(pg) if src is None and group_src is None else _peer(pg, src, group_src, "source")
    _check_dtype(pg, tensor)
    x = _Io([tensor], copy_in=False)
    work = _run(True, _engine_call(pg.recv, x.engine[0], peer, tag), [x], [tensor])
    work._source = get_global_rank(group, peer)
    return work


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Mirrors ``torch.distributed.send`` (returns once the engine took the message)."""
    isend(tensor, dst, group, tag, group_dst).wait()


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Mirrors ``torch.distributed.recv``; returns the sender's rank."""
    work = irecv(tensor, src, group, tag, group_src)
    work.wait()
    return work._source


def batch_isend_irecv(p2p_op_list):
    """Mirrors ``torch.distributed.batch_isend_irecv``: the sends first, then the receives."""
    ordered = sorted(p2p_op_list, key=lambda p: p.op is not isend)
    return [p.op(p.tensor, p.peer, p.group, p.tag) for p in ordered]


class P2POp:
    """Mirrors ``torch.distributed.P2POp``."""

    def __init__(self, op, tensor, peer=None, group=None, tag=0, group_peer=None):
        if op not in (isend, irecv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.isend`` or "
                             "``torch.distributed.irecv``.")
        self.op, self.tensor, self.group, self.tag = op, tensor, group, tag
        self.peer = peer if group_peer is None else get_global_rank(group, group_peer)


# --- object collectives (pickled into uint8 tensors that the engine moves, as torch does) -------------

def all_gather_object(object_list, obj, group=None):
    """Mirrors ``torch.distributed.all_gather_object``."""
    if _not_in_group(group):
        return
    for i, o in enumerate(_group(group).all_gather_objects(obj)):
        object_list[i] = o


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Mirrors ``torch.distributed.broadcast_object_list`` (in place on the list)."""
    if _not_in_group(group):
        return
    pg = _group(group)
    root = _group_rank(pg, src, group_src)
    object_list[:] = pg.broadcast_objects(list(object_list), root)


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    """Mirrors ``torch.distributed.gather_object``."""
    if _not_in_group(group):
        return
    pg = _group(group)
    root = _group_rank(pg, dst, group_dst)
    if pg.rank() == root and object_gather_list is None:
        raise AssertionError("Must provide object_gather_list on dst rank")
    values = pg.all_gather_objects(obj)
    if pg.rank() == root:
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
    values = pg.broadcast_objects(list(scatter_object_input_list) if pg.rank() == root else None, root)
    scatter_object_output_list[0] = values[pg.rank()]


def send_object_list(object_list, dst=None, group=None, device=None, group_dst=None):
    pg = _group(group)
    pg.send_objects(list(object_list), _peer(pg, dst, group_dst, "destination"))


def recv_object_list(object_list, src=None, group=None, device=None, group_src=None):
    pg = _group(group)
    peer = _any_source(pg) if src is None and group_src is None else _peer(pg, src, group_src, "source")
    object_list[:] = pg.recv_objects(peer)
    return get_global_rank(group, peer)


class _ReduceOpDeprecated:
    def __getattr__(self, name):
        warnings.warn("`torch.distributed.reduce_op` is deprecated, please use `torch.distributed.ReduceOp` "
                      "instead", FutureWarning, stacklevel=2)
        return getattr(ReduceOp.RedOpType, name)


reduce_op = _ReduceOpDeprecated()

__all__ = ["Backend", "GroupMember", "P2POp", "ProcessGroup", "ReduceOp", "Store", "TCPStore", "FileStore", "HashStore", "PrefixStore",
           "Work", "all_gather", "all_gather_into_tensor", "all_gather_object", "all_reduce", "all_reduce_coalesced",
           "all_to_all", "all_to_all_single", "barrier", "batch_isend_irecv", "broadcast", "broadcast_object_list", "destroy_process_group", "gather",
           "gather_object", "get_backend", "get_global_rank", "get_group_rank", "get_node_local_rank",
           "get_process_group_ranks", "get_rank", "get_world_size", "group", "init_process_group", "irecv",
           "is_available", "is_backend_available", "is_gloo_available", "is_hccl_available", "is_initialized", "is_mpi_available",
           "is_nccl_available", "is_torchelastic_launched", "is_ucc_available", "is_xccl_available", "isend",
           "monitored_barrier", "new_group", "recv", "recv_object_list", "reduce", "reduce_op", "reduce_scatter",
           "reduce_scatter_tensor", "scatter", "scatter_object_list", "send", "send_object_list"]
