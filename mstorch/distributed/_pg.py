"""Process groups of ``mstorch.distributed`` on MindSpore's communication engine.

A ``ProcessGroup`` names a MindSpore communication group (``mccl`` on CPU, ``nccl`` on GPU, ``hccl``
on Ascend) and runs every collective as engine calls on MindSpore tensors, in place. What the engine
lacks is composed from engine calls (measured on MindSpore 2.10's CPU engine, DESIGN.md):

- it moves (broadcast, all_gather, gather, scatter, send/recv) uint8, int8, int32, int64, float16,
  bfloat16, float32 and float64; bool, int16 and complex travel widened exactly (bool as uint8, int16
  as int32, complex as (real, imag) float pairs) and are narrowed back on arrival;
- it all-reduces int8, int16, int32, int64, float16, bfloat16 and float32 with sum/prod/min/max/avg;
  other dtypes and the bitwise ops are all-gathered and folded here in rank order (every rank then
  computes the same bits);
- reduce, reduce_scatter, all_gather_into_tensor and all_to_all have no CPU kernel: they are an
  all-reduce plus a slice, an all-gather plus a concatenation, and point-to-point messages.

A group of one process (world size 1, ``new_group([r])``) never enters the engine: each collective's
result is then its input. The engine is started once per process (MindSpore cannot start it again
after it was released), see ``distributed_c10d.init_process_group``.
"""
import enum
import pickle

import mindspore as ms
import mindspore.mint.distributed as md
from mindspore import ops

from .. import _ms_private as P
from .._future import _CFuture
from .._runtime import read_host
from .store import DistBackendError

__all__ = ["ReduceOp", "ProcessGroup", "Work"]


class ReduceOp:
    """Mirrors ``torch.distributed.ReduceOp``: ``ReduceOp.SUM`` etc. are ``ReduceOp.RedOpType`` members."""

    class RedOpType(enum.Enum):
        SUM = 0
        AVG = 1
        PRODUCT = 2
        MIN = 3
        MAX = 4
        BAND = 5
        BOR = 6
        BXOR = 7
        PREMUL_SUM = 8
        UNUSED = 9

        def __repr__(self):
            return f"<RedOpType.{self.name}: {self.value}>"

        def __str__(self):
            return f"RedOpType.{self.name}"

    def __init__(self, op=None):
        self.op = ReduceOp.RedOpType.SUM if op is None else op

    def __eq__(self, other):
        other = other.op if isinstance(other, ReduceOp) else other
        return self.op == other

    def __hash__(self):
        return hash(self.op)


for _m in ReduceOp.RedOpType:
    setattr(ReduceOp, _m.name, _m)

_R = ReduceOp.RedOpType
_ENGINE_OP = {_R.SUM: "sum", _R.AVG: "avg", _R.PRODUCT: "prod", _R.MIN: "min", _R.MAX: "max"}
_BITWISE = (_R.BAND, _R.BOR, _R.BXOR)

# what MindSpore 2.10's CPU engine (mccl) moves and all-reduces; GPU/Ascend engines take these too
_MOVES = frozenset((ms.uint8, ms.int8, ms.int32, ms.int64, ms.float16, ms.bfloat16, ms.float32, ms.float64))
_REDUCES = frozenset((ms.int8, ms.int16, ms.int32, ms.int64, ms.float16, ms.bfloat16, ms.float32))
_WIDER = {ms.bool_: ms.uint8, ms.int16: ms.int32, ms.uint16: ms.int32, ms.uint32: ms.int64}
_COMPLEX_PARTS = {ms.complex64: ms.float32, ms.complex128: ms.float64}
_INTEGRAL = frozenset((ms.bool_, ms.uint8, ms.int8, ms.int16, ms.int32, ms.int64, ms.uint16, ms.uint32, ms.uint64))


def op_type(op):
    op = op.op if isinstance(op, ReduceOp) else op
    if not isinstance(op, ReduceOp.RedOpType) or op not in (*_ENGINE_OP, *_BITWISE):
        raise ValueError(f"Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.ReduceOp``, "
                         f"but got {type(op)}.")
    return op


def check_reduce(dtype, op, torch_dtype_name, what="all_reduce"):
    """torch's refusals (gloo, measured with torch 2.13) for ``op`` on a tensor of MindSpore ``dtype`` in
    collective ``what``."""
    if dtype in _COMPLEX_PARTS and op not in (_R.SUM, _R.AVG):
        if what == "all_reduce":
            raise ValueError(f"all_reduce does not support {op} on complex tensors")
        # torch 2.13's C++ check prints the op's number as a raw character here
        name = "reduce" if what == "reduce" else "all_reduce"
        raise RuntimeError(f"{name} does not support{chr(op.value)}on complex tensors")
    if op in _BITWISE and dtype not in _INTEGRAL:
        raise RuntimeError(f"Cannot use ReduceOp.{op.name} with non-integral dtype")
    if op is _R.AVG and dtype in _INTEGRAL:
        raise RuntimeError(f"result type Float can't be cast to the desired output type {torch_dtype_name}")


# --- carriers: dtypes the engine cannot move travel as dtypes it can ----------------------------

def to_carrier(x):
    """``x`` as a dtype the engine moves (the same tensor when it moves ``x``'s own)."""
    if x.dtype in _MOVES:
        return x
    if x.dtype in _COMPLEX_PARTS:
        return ops.stack([ops.real(x), ops.imag(x)], -1)
    wide = _WIDER.get(x.dtype)
    if wide is None:
        raise RuntimeError(f"mstorch.distributed: MindSpore's communication engine cannot carry {x.dtype} tensors")
    return ops.cast(x, wide)


def from_carrier(c, dtype):
    if c.dtype == dtype:
        return c
    if dtype in _COMPLEX_PARTS:
        return _COMPLEX(c[..., 0], c[..., 1])
    return ops.cast(c, dtype)


def empty_carrier(x):
    """A receive buffer for ``x`` in its carrier dtype."""
    if x.dtype in _MOVES:
        return ops.zeros(x.shape, x.dtype)
    if x.dtype in _COMPLEX_PARTS:
        return ops.zeros(tuple(x.shape) + (2,), _COMPLEX_PARTS[x.dtype])
    return ops.zeros(x.shape, _WIDER.get(x.dtype, x.dtype))


_COMPLEX = ops.Complex()


def own_copy(m):
    """A copy of ``m`` in memory of its own (MindSpore's CPU ``copy_`` refuses a slice as its source)."""
    from mindspore.ops import auto_generate
    return auto_generate.copy(m)


def concat(parts):
    """``parts`` flattened and concatenated (MindSpore's CPU concatenation lacks bfloat16: through float32,
    exactly)."""
    if parts[0].dtype == ms.bfloat16:
        return ops.cast(ops.cat([ops.cast(p.reshape(-1), ms.float32) for p in parts]), ms.bfloat16)
    return ops.cat([p.reshape(-1) for p in parts])


def fold(values, op, dtype):
    """``op`` over ``values`` (one per rank, in rank order), in ``dtype``."""
    if dtype == ms.bool_:     # MindSpore's arithmetic refuses bool: or/and on uint8, as torch's bool ops
        values = [ops.cast(v, ms.uint8) for v in values]
        op = {_R.SUM: _R.MAX, _R.PRODUCT: _R.MIN}.get(op, op)
    fn = {_R.SUM: ops.add, _R.AVG: ops.add, _R.PRODUCT: ops.mul, _R.MIN: ops.minimum, _R.MAX: ops.maximum,
          _R.BAND: ops.bitwise_and, _R.BOR: ops.bitwise_or, _R.BXOR: ops.bitwise_xor}[op]
    out = values[0]
    for v in values[1:]:
        out = fn(out, v)
    if op is _R.AVG:
        out = out / len(values)
    return ops.cast(out, dtype) if out.dtype != dtype else out


# --- work -------------------------------------------------------------------------------------

class Work:
    """Mirrors ``torch.distributed.Work`` for ``async_op=True``.

    Holds the engine's handles of the collective and what completes it on this side (writing the result
    into a tensor the engine could not write itself, folding, narrowing). ``wait()`` waits on the
    handles, then runs that completion once; ``is_completed()`` completes the work first (MindSpore's
    handles cannot be polled), so it never answers False. ``get_future()`` gives a torch Future whose
    ``wait()``/``value()`` complete the work; its value is ``result`` (the list of output tensors, as
    torch's)."""

    def __init__(self, handles=(), finish=None, result=None, what="collective", group=None):
        self._handles, self._finish, self._result = list(handles), finish, result
        self._what, self._group = what, group
        self._done, self._error = False, None

    def wait(self, timeout=None):
        if not self._done:
            self._done = True
            try:
                for h in self._handles:
                    h.wait()
                if self._finish is not None:
                    self._finish()
            except RuntimeError as e:
                self._error = backend_error(self._what, self._group, e)
            self._handles, self._finish = [], None
        if self._error is not None:
            raise self._error
        return True

    def is_completed(self):
        self.wait()
        return True

    def is_success(self):
        self.wait()
        return self._error is None

    def exception(self):
        return self._error

    def result(self):
        self.wait()
        return self._result

    def source_rank(self):
        self.wait()
        return self._source

    def synchronize(self):
        self.wait()

    def get_future(self):
        """torch.Future of the work's result list; waiting on it (or on a future chained from it with
        ``then``) waits on the work."""
        def result():
            if self._error is not None:
                raise self._error
            return self._result
        return _CFuture._after(self.wait, result)

    _source = -1




def backend_error(what, group, error):
    first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    if isinstance(error, DistBackendError):
        return error
    name = group.name() if group is not None else "?"
    timeout = getattr(group, "_timeout", None)
    return DistBackendError(
        f"mstorch.distributed: {what} failed in MindSpore's communication engine ({first}) on process group "
        f"{name!r}: a rank of the group has died, or did not reach the same collective within the timeout "
        f"({timeout}).")


# --- process groups -----------------------------------------------------------------------------

class ProcessGroup:
    """Mirrors ``torch.distributed.ProcessGroup``: ``rank()``, ``size()``, ``name()``; every collective as
    calls of MindSpore's engine on group ``name`` (``ranks`` are the global ranks of its members).

    Its methods take and fill MindSpore tensors that own their memory (contiguous, offset 0); each returns
    a ``Work``. ``distributed_c10d`` maps torch's tensors onto them."""

    def __init__(self, rank, size, ranks, backend, name, engine_group=None, timeout=None):
        self._rank, self._size = rank, size
        self._ranks = list(ranks)          # global rank of each group rank
        self._backend, self._name = backend, name
        self._group = engine_group         # MindSpore's group name; None for a group of one process
        self._timeout = timeout
        self._seq = 0

    def rank(self):
        return self._rank

    def size(self):
        return self._size

    def name(self):
        return self._name

    @property
    def group_name(self):
        return self._name

    def _get_backend_name(self):
        return self._backend

    def __repr__(self):
        return f"<mstorch.distributed.ProcessGroup {self._name} rank {self._rank} of {self._size}>"

    def _next(self):
        """A counter every rank advances the same way (collective construction, e.g. DDP's)."""
        self._seq += 1
        return self._seq

    def _work(self, handles=(), finish=None, result=None, what="collective"):
        return Work(handles, finish, result, what, self)

    def _call(self, what, fn, *args):
        """One engine call; its failure (a rank died, a timeout) as torch's DistBackendError."""
        try:
            return fn(*args)
        except RuntimeError as e:
            raise backend_error(what, self, e) from None

    # --- engine primitives ----------------------------------------------------------------------
    def _all_gather_list(self, x):
        """Every rank's ``x`` (any dtype), in rank order; synchronous."""
        if self._group is None:
            return [x]
        c = to_carrier(x)
        outs = [empty_carrier(x) for _ in range(self._size)]
        self._call("all_gather", md.all_gather, outs, c, self._group)
        return [from_carrier(o, x.dtype) for o in outs]

    def _send(self, x, peer, tag=0):
        """Handle of sending ``x`` to group rank ``peer``."""
        out = self._call("send", P.comm_isend, to_carrier(x), peer, self._group, tag)
        return out[1] if isinstance(out, tuple) else None

    def _recv_into(self, x, peer, tag=0):
        """(handle, finish) receiving from group rank ``peer`` into ``x``."""
        c = x if x.dtype in _MOVES else empty_carrier(x)
        out = self._call("recv", P.comm_irecv, c, tag, peer, self._group)
        handle = out[1] if isinstance(out, tuple) else None
        finish = None if c is x else (lambda: x.copy_(from_carrier(c, x.dtype)))
        return handle, finish

    # --- collectives ------------------------------------------------------------------------------
    def all_reduce(self, x, op):
        op = op_type(op)
        if self._group is None:
            return self._work(result=[x])
        if x.dtype in _REDUCES and op in _ENGINE_OP:
            out = self._call("all_reduce", md.all_reduce, x, _ENGINE_OP[op], self._group, True)
            return self._work([out] if out is not None else [], result=[x], what="all_reduce")
        if x.dtype in _COMPLEX_PARTS:     # sum/avg (torch's only complex ops): of the (real, imag) parts
            c = to_carrier(x)
            self.all_reduce(c, op).wait()
            x.copy_(from_carrier(c, x.dtype))
            return self._work(result=[x])
        x.copy_(fold(self._all_gather_list(x), op, x.dtype))
        return self._work(result=[x])

    def broadcast(self, x, root):
        if self._group is None:
            return self._work(result=[x])
        src = self._ranks[root]
        if x.dtype in _MOVES:
            out = self._call("broadcast", md.broadcast, x, src, self._group, True)
            return self._work([out] if out is not None else [], result=[x], what="broadcast")
        c = to_carrier(x) if self._rank == root else empty_carrier(x)
        self._call("broadcast", md.broadcast, c, src, self._group)
        if self._rank != root:
            x.copy_(from_carrier(c, x.dtype))
        return self._work(result=[x])

    def all_gather(self, outs, x):
        if self._group is None:
            outs[0].copy_(x)
            return self._work(result=[outs])
        if x.dtype in _MOVES:
            out = self._call("all_gather", md.all_gather, outs, x, self._group, True)
            return self._work([out] if out is not None else [], result=[outs], what="all_gather")
        for o, v in zip(outs, self._all_gather_list(x)):
            o.copy_(v)
        return self._work(result=[outs])

    def reduce(self, x, root, op):
        """``op`` over the group into ``x`` on ``root``; the others' ``x`` unchanged (as torch's gloo)."""
        y = x.copy()
        self.all_reduce(y, op).wait()
        if self._rank == root:
            x.copy_(y)
        return self._work(result=[x])

    def reduce_scatter(self, out, ins, op):
        """Rank r's ``out``: ``op`` over every rank's ``ins[r]`` (an all-reduce of them all, then a slice)."""
        flat = concat(ins) if len(ins) > 1 else own_copy(ins[0].reshape(-1))
        self.all_reduce(flat, op).wait()
        n = out.size
        out.copy_(own_copy(flat[self._rank * n:(self._rank + 1) * n]).reshape(out.shape))
        return self._work(result=[out])

    def gather(self, x, outs, root):
        """``outs`` (on ``root`` only) filled with every rank's ``x``: one message from each other rank."""
        if self._group is None:
            outs[0].copy_(x)
            return self._work(result=[outs])
        if self._rank != root:
            return self._work([h for h in [self._send(x, root)] if h is not None], what="gather")
        outs[root].copy_(x)
        return self._receive_all(outs, "gather")

    def _receive_all(self, outs, what):
        handles, finishes = [], []
        for r, o in enumerate(outs):
            if r != self._rank:
                h, f = self._recv_into(o, r)
                handles += [h] if h is not None else []
                finishes += [f] if f is not None else []
        return self._work(handles, (lambda: [f() for f in finishes]) if finishes else None, [outs], what)

    def scatter(self, x, ins, root):
        """``x`` on rank r filled with ``root``'s ``ins[r]``: one message to each other rank."""
        if self._group is None or self._rank == root:
            handles = [h for r, i in enumerate(ins) if r != self._rank for h in [self._send(i, r)] if h is not None]
            x.copy_(ins[self._rank])
            return self._work(handles, result=[x], what="scatter")
        h, f = self._recv_into(x, root)
        return self._work([h] if h is not None else [], f, [x], "scatter")

    def all_to_all(self, outs, ins):
        """Rank r's ``outs[i]`` is rank i's ``ins[r]``: a message to and from every other rank."""
        sends = [h for r, i in enumerate(ins) if r != self._rank for h in [self._send(i, r)] if h is not None]
        outs[self._rank].copy_(ins[self._rank])
        work = self._receive_all(outs, "all_to_all")
        work._handles = sends + work._handles
        return work

    def barrier(self):
        if self._group is None:
            return self._work()
        out = self._call("barrier", P.comm_barrier, self._group, True)
        return self._work([out[1]] if isinstance(out, tuple) else [], what="barrier")

    def send(self, x, peer, tag=0):
        return self._work([h for h in [self._send(x, peer, tag)] if h is not None], what="send")

    def recv(self, x, peer, tag=0):
        h, f = self._recv_into(x, peer, tag)
        work = self._work([h] if h is not None else [], f, [x], "recv")
        work._source = peer
        return work

    # --- objects (pickled into uint8 tensors, as torch does) ---------------------------------------
    def broadcast_objects(self, objs, root):
        if self._group is None:
            return objs
        if self._rank == root:
            data = _to_bytes(objs)
            size = ms.Tensor([data.shape[0]], ms.int64)
        else:
            size = ms.Tensor([0], ms.int64)
        self.broadcast(size, root).wait()
        if self._rank != root:
            data = ops.zeros((int(read_host(size)[0]),), ms.uint8)
        self.broadcast(data, root).wait()
        return objs if self._rank == root else _from_bytes(data)

    def all_gather_objects(self, obj):
        if self._group is None:
            return [obj]
        data = _to_bytes(obj)
        sizes = [int(read_host(s)[0]) for s in self._all_gather_list(ms.Tensor([data.shape[0]], ms.int64))]
        padded = ops.cat([data, ops.zeros((max(sizes) - data.shape[0],), ms.uint8)]) if max(sizes) > data.shape[0] \
            else data
        return [_from_bytes(d[:n]) for d, n in zip(self._all_gather_list(padded), sizes)]

    def send_objects(self, objs, peer):
        data = _to_bytes(objs)
        self.send(ms.Tensor([data.shape[0]], ms.int64), peer).wait()
        self.send(data, peer).wait()

    def recv_objects(self, peer):
        size = ms.Tensor([0], ms.int64)
        self.recv(size, peer).wait()
        data = ops.zeros((int(read_host(size)[0]),), ms.uint8)
        self.recv(data, peer).wait()
        return _from_bytes(data)


def _to_bytes(obj):
    import numpy as np
    return ms.Tensor(np.frombuffer(pickle.dumps(obj, protocol=5), dtype=np.uint8).copy())


def _from_bytes(t):
    return pickle.loads(read_host(t).tobytes())
