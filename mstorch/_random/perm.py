"""torch's randperm on the CPU (``randperm_cpu``): Fisher-Yates over 0..n-1, swapping position i with
j_i = i + random() % (n - i) for i = 0 .. n-2, reproduced in blocks of consecutive swaps.

Within a block [s, e) the swaps mostly touch distinct positions and then commute: the block is applied at
once (position i takes the value at j_i, j_i the value at i). Two kinds of conflicts break that, and
both are rare while the block is short against n - s: several swaps of the block sharing a target, and a
swap targeting a later index of the same block. Sequentially, position x ends up with the value that
position j_x held at step x; tracing that back through the block gives

    value(x) = V(pred(x)) if an earlier swap q of the block shares x's target (the latest such q),
               the value at j_x when the block started otherwise;
    V(q)     = V(L(q)) if an earlier swap of the block targets position q (the latest such swap L(q)),
               the value at q when the block started otherwise,

and an outside target p ends with V(its last swap). The block is first applied as if conflict-free, then
the few positions these rules change are rewritten.
"""
import array

import numpy as np

from . import native as N

_TAIL = 2048        # the last swaps run one at a time
_FRACTION = 12      # block length: (n - s) / _FRACTION swaps, so ~1/_FRACTION of them conflict
_SHIFT = 28         # key = target << _SHIFT | step (n < 2**28 here)


def randperm(gen, n):
    """int64 array: torch.randperm(n) for the generator's next draws."""
    if n < 2:
        return np.arange(n, dtype=np.int64)
    if n >= 0xFFFFFFFF // 20:
        raise RuntimeError(f"mstorch.randperm: n={n} takes torch's random64 algorithm, not reproduced")
    if N.on():
        out = np.empty(n, np.int64)
        N.call(gen, "ms_randperm", n - 1, out.ctypes.data, n)
        return out
    r = gen._u32(n - 1)
    steps = np.arange(n, dtype=np.intp)
    j = np.remainder(r, np.arange(n, 1, -1, dtype=np.uint32)).astype(np.intp)
    j += steps[:n - 1]
    vals = steps.astype(np.int32)
    stamp = np.full(n, -1, np.int32)      # stamp[p]: the latest swap so far that targeted p
    s, last = 0, n - 1
    while last - s > _TAIL:
        e = min(last - _TAIL, s + max(64, (n - s) // _FRACTION))
        _block(vals, stamp, j, steps, s, e)
        s = e
    _tail(vals, j, s, last)
    return vals.astype(np.int64)


def _block(vals, stamp, j, steps, s, e):
    jb, ib = j[s:e], steps[s:e]
    start_i = vals[s:e].copy()            # values at the block's indices when it starts
    start_t = vals[jb]                    # ... and at its targets
    stamp[jb] = ib                        # repeated targets: the last swap's stamp stays
    latest = stamp[jb]
    vals[jb] = start_i
    vals[s:e] = start_t
    shared = latest != ib
    inward = jb < e
    inward &= jb != ib
    if shared.any() or inward.any():
        _fix(vals, stamp, j, s, e, jb, ib, start_i, shared, latest, jb[inward])


def _fix(vals, stamp, j, s, e, jb, ib, start_i, shared, latest, hit):
    """Rewrite the positions a conflicting block leaves wrong (see the module docstring)."""
    m = e - s
    pred = np.full(m, -1, np.intp)        # pred[x - s]: the previous swap of the block sharing x's target
    if shared.any():
        tgt = jb[shared] << _SHIFT
        keys = np.unique(np.concatenate([tgt | ib[shared], tgt | latest[shared]]))
        same = (keys[1:] >> _SHIFT) == (keys[:-1] >> _SHIFT)
        members = keys & ((1 << _SHIFT) - 1)
        later, earlier = members[1:][same], members[:-1][same]
        pred[later - s] = earlier
        vals[later] = _value_at_step(earlier, stamp, pred, start_i, s)
    if hit.size:
        # a swap q whose own position an earlier swap of the block targeted: if q is the last swap to
        # its target and that target lies beyond the block, the target keeps V(q)
        q = np.unique(hit)
        q = q[stamp[j[q]] == q]
        q = q[j[q] >= e]
        if q.size:
            vals[j[q]] = _value_at_step(q, stamp, pred, start_i, s)


def _value_at_step(q, stamp, pred, start_i, s):
    """V(q) for swaps q of the block: the value at position q when swap q runs."""
    q = q.copy()
    while True:
        t = stamp[q].astype(np.intp)
        back = np.where(t == q, pred[q - s], np.where(t >= s, t, -1))
        more = back >= 0
        if not more.any():
            return start_i[q - s]
        q[more] = back[more]


def _tail(vals, j, s, last):
    if s >= last:
        return
    part = array.array("i", vals[s:].tobytes())
    for k, t in enumerate((j[s:last] - s).tolist()):
        part[k], part[t] = part[t], part[k]
    vals[s:] = np.frombuffer(part, np.int32)
