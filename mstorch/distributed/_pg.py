"""The process group of ``mstorch.distributed``: collectives computed on the host with NumPy.

Every collective is one exchange through the group's store (``store.py``): each rank posts its
contribution (as bytes, under ``<group>/<sequence>/<rank>``) and takes the others'; reductions run
in rank order, so every rank computes the same bits. Collectives must be called in the same order
on every rank of a group, as torch requires. A group of size 1 never touches its store.
"""
import enum
import pickle

import numpy as np

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

_BITWISE = {ReduceOp.RedOpType.BAND: np.bitwise_and, ReduceOp.RedOpType.BOR: np.bitwise_or,
            ReduceOp.RedOpType.BXOR: np.bitwise_xor}
_ELEMENTWISE = {ReduceOp.RedOpType.SUM: np.add, ReduceOp.RedOpType.AVG: np.add,
                ReduceOp.RedOpType.PRODUCT: np.multiply, ReduceOp.RedOpType.MIN: np.minimum,
                ReduceOp.RedOpType.MAX: np.maximum, **_BITWISE}


def op_type(op):
    op = op.op if isinstance(op, ReduceOp) else op
    if not isinstance(op, ReduceOp.RedOpType) or op not in _ELEMENTWISE:
        raise ValueError(f"Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.ReduceOp``, "
                         f"but got {type(op)}.")
    return op


def reduce_arrays(arrays, op):
    """``op`` over ``arrays`` (one per rank, in rank order); NumPy dtype kept."""
    op = op_type(op)
    dtype = arrays[0].dtype
    if op in _BITWISE and not (np.issubdtype(dtype, np.integer) or dtype == np.bool_):
        raise RuntimeError(f"Cannot use ReduceOp.{op.name} with non-integral dtype")
    if np.iscomplexobj(arrays[0]) and op not in (ReduceOp.RedOpType.SUM, ReduceOp.RedOpType.AVG,
                                                 ReduceOp.RedOpType.PRODUCT):
        raise ValueError(f"all_reduce does not support {op} on complex tensors")
    fn = _ELEMENTWISE[op]
    result = arrays[0].copy()
    for a in arrays[1:]:
        result = fn(result, a)
    if op is ReduceOp.RedOpType.AVG:
        n = len(arrays)
        result = result // n if np.issubdtype(dtype, np.integer) else result / np.asarray(n, dtype=dtype)
    return np.asarray(result, dtype=dtype)


class Work:
    """Mirrors ``torch.distributed.Work`` for ``async_op=True``: mstorch's collectives are complete
    when they return, so ``wait()`` returns at once."""

    def __init__(self, result=None):
        self._result = result

    def wait(self, timeout=None):
        return True

    def is_completed(self):
        return True

    def is_success(self):
        return True

    def exception(self):
        return None

    def result(self):
        return self._result

    def get_future(self):
        from concurrent.futures import Future
        f = Future()
        f.set_result(self._result)
        f.wait = f.result   # torch.futures.Future.wait() returns the value
        f.value = f.result
        return f

    def synchronize(self):
        pass

    def source_rank(self):
        return self._result


class ProcessGroup:
    """Mirrors ``torch.distributed.ProcessGroup``: ``rank()``, ``size()``, ``name()``; the exchanges
    behind every collective."""

    def __init__(self, store, rank, size, ranks, backend, name):
        self._store, self._rank, self._size = store, rank, size
        self._ranks = list(ranks)          # global rank of each group rank
        self._backend, self._name = backend, name
        self._seq = 0
        self._p2p = {}                     # (src, dst) -> messages sent so far

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

    # --- exchanges ---------------------------------------------------------------------------
    def _key(self, *parts):
        return "/".join(["pg", self._name] + [str(p) for p in parts])

    def _next(self):
        self._seq += 1
        return self._seq

    def all_exchange(self, value, tag=None):
        """Every rank's ``value`` (any picklable), in rank order. A ``tag`` names the exchange instead of
        the group's sequence number (DDP's gradients: their order may differ between ranks)."""
        if self._size == 1:
            return [value]
        seq = self._next() if tag is None else tag
        self._store._post(self._key(seq, self._rank), pickle.dumps(value, protocol=5), self._size - 1)
        return [value if r == self._rank else pickle.loads(self._store._take(self._key(seq, r)))
                for r in range(self._size)]

    def one_to_all(self, value, src):
        """``src``'s ``value`` on every rank."""
        if self._size == 1:
            return value
        seq = self._next()
        if self._rank == src:
            self._store._post(self._key(seq, src), pickle.dumps(value, protocol=5), self._size - 1)
            return value
        return pickle.loads(self._store._take(self._key(seq, src)))

    def all_to_one(self, value, dst):
        """Every rank's ``value`` in rank order on ``dst``; None elsewhere."""
        if self._size == 1:
            return [value]
        seq = self._next()
        if self._rank != dst:
            self._store._post(self._key(seq, self._rank), pickle.dumps(value, protocol=5), 1)
            return None
        return [value if r == dst else pickle.loads(self._store._take(self._key(seq, r)))
                for r in range(self._size)]

    def scatter_from(self, values, src):
        """``values[r]`` from ``src`` to each rank ``r``."""
        if self._size == 1:
            return values[0]
        seq = self._next()
        if self._rank == src:
            for r, v in enumerate(values):
                if r != src:
                    self._store._post(self._key(seq, "to", r), pickle.dumps(v, protocol=5), 1)
            return values[src]
        return pickle.loads(self._store._take(self._key(seq, "to", self._rank)))

    def send(self, value, dst):
        n = self._p2p.get((self._rank, dst), 0)
        self._p2p[(self._rank, dst)] = n + 1
        self._store._post(self._key("p2p", self._rank, dst, n), pickle.dumps(value, protocol=5), 1)

    def recv(self, src):
        """(value, src); ``src=None`` takes the first message that arrives from any rank."""
        if src is None:
            import time
            while src is None:
                for r in range(self._size):
                    if r != self._rank and self._store.check(
                            [self._key("p2p", r, self._rank, self._p2p.get((r, self._rank), 0))]):
                        src = r
                        break
                else:
                    time.sleep(0.001)
        n = self._p2p.get((src, self._rank), 0)
        self._p2p[(src, self._rank)] = n + 1
        return pickle.loads(self._store._take(self._key("p2p", src, self._rank, n))), src

    def shutdown(self):
        close = getattr(self._store, "_close", None)
        if close is not None:
            close()
