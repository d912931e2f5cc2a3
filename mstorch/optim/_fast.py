"""The fast optimizer step: torch's single-tensor update math, run where it costs least.

Measured on the CPU host (MindSpore 2.10, 20 parameters of (64, 64) and (64,), see benchmarks/optim.py):

- A MindSpore op costs 15-55 us to dispatch on CPU whatever its size (``copy_`` 14 us, ``add`` 29 us,
  a multiply by a Python float 55 us). torch's Adam is ~8 ops per parameter, so it costs ~5 ms a step
  for 20 parameters on raw MindSpore ops (16 ms through mstorch's wrappers), against 1.8 ms for
  MindSpore's own ``experimental.optim.Adam`` and 1 ms for torch.
- Rejected after measuring: a jit-compiled update (graph kernels still cost ~25 us each on CPU: 4.7 ms
  for Adam); MindSpore's fused per-parameter primitives (``ops.Adam`` 80 us, ``ApplyMomentum`` 46 us a
  call, and their rounding is not torch's: ``m + (g - m) * (1 - beta1)``, eps folded into the step
  size); one flat buffer for all parameters (the gradients must be concatenated every step, ~200 us,
  and the parameters written back one by one: ``copy_`` from a view of the buffer fails on CPU, and
  ``assign`` costs 35 us each).
- Chosen, on CPU: MindSpore keeps CPU tensors in host memory and documents that ``Tensor.asnumpy()``
  shares it. The update runs as NumPy ufuncs writing with ``out=`` into the parameters' and the
  states' own memory (~1 us an op), in torch's order of float32/float64 operations, so results agree
  with torch's kernels to an ulp per op (torch fuses some multiply-adds, and its vectorised sqrt is not
  correctly rounded). The arrays are cached per parameter and re-validated every step by object
  identity and data pointer (0.2 us): ``p.data = ...``, ``load_state_dict`` or a replaced state tensor
  are picked up. NumPy writes do not bump MindSpore's version counters, so the step bumps them in one
  call at the end: a backward through a graph that saved a parameter before ``step()`` still raises.
- float16/bfloat16 on the host: float32 copies of the parameter and its states, each op rounded
  once to the dtype (``_reduced_ops``; NumPy has no bfloat16 to share memory with), written back at
  the end of the step. Bit for bit with torch's vectorised loops; torch's scalar tail loop can differ
  by an ulp.
- Elsewhere, the same update on MindSpore ops (``DeviceOps``), each in-place op computed and then
  written with ``copy_`` (MindSpore's own ``add_``/``mul_`` leave the receiver unchanged on CPU): on
  GPU/Ascend (``asnumpy`` copies there), and for parameters whose memory NumPy cannot reach (views of
  other tensors, which are written back through ``Tensor._write``). ``MSTORCH_OPTIM_HOST=0`` forces
  this path.

How an optimizer uses it (see sgd.py and adam.py)::

    step = Step(self)
    for group in self.param_groups:
        lr = scalar(group["lr"])
        for p in group["params"]:
            got = step.take(p, ("step", "exp_avg"), init)   # None when p.grad is None
            if got is None:
                continue
            X, param, grad, (step_t, exp_avg) = got
            t = inc(step_t)                                  # state["step"] += 1, as a Python float
            X.lerp_(exp_avg, grad, 0.1)                      # written into state["exp_avg"]
            X.add_(param, exp_avg, -lr)                      # written into p
    step.finish()

``X`` is ``HostOps`` or ``DeviceOps``: the same functions, with torch's names and scalar semantics,
over NumPy arrays or MindSpore tensors. Functions ending in ``_`` write into their first argument;
the others return a new array and never write their inputs (``grad`` is p.grad's memory: read only).
The 0-d state tensors named in ``SCALAR_STATES`` (``step``, NAdam's ``mu_product``, ASGD's ``eta``
and ``mu``) are always handed out as 1-element host arrays, as torch keeps ``step`` on the host.
"""
import ctypes
import os

import numpy as np
import mindspore as ms
from mindspore import ops

from .._runtime import read_host
from .. import _ms_private as P
from .. import _runtime
from .._tensor import Tensor, beside, wrap

_HOST_DTYPES = frozenset((ms.float32, ms.float64))
# torch's 0-d state tensors (Adam's step, NAdam's mu_product, ASGD's eta and mu): host scalars everywhere
SCALAR_STATES = frozenset(("step", "mu_product", "eta", "mu"))


def _host_default():
    flag = os.environ.get("MSTORCH_OPTIM_HOST")
    if flag is not None:
        return flag.strip().lower() not in ("0", "false", "no", "off", "")
    return _runtime.host_workarounds()   # CPU; not on a device or the device path (MSTORCH_DEVICE_PATH=1)


class _Config:
    host = None   # decided at first use; tests flip it to run the MindSpore path on CPU


config = _Config()


def scalar(x):
    """A hyper-parameter as a Python number (torch accepts 1-element tensors for lr, weight_decay...)."""
    return x.item() if isinstance(x, Tensor) else x


def inc(step_arr):
    """``state["step"] += 1`` on its host array; the new value as a Python float."""
    step_arr += 1
    return float(step_arr[0])


def host_array(t):
    """A NumPy array over ``t``'s own memory (0-d as 1 element), or None where NumPy cannot reach it."""
    if not t.is_contiguous():
        return None
    a = read_host(t)
    if a.size and a.__array_interface__["data"][0] != t.data_ptr():
        return None
    return a.reshape(1) if a.ndim == 0 else a


_NP_OF = {ms.float32: np.dtype(np.float32), ms.float64: np.dtype(np.float64)}


def _grad_view(g):
    """A read-only NumPy view of a gradient's host memory, for the step. ``asnumpy()`` costs ~20 us a
    call (NumPy parses the buffer's PEP 3118 format string in Python); a view over the data pointer costs
    ~2 us. Used while kernels complete before returning (blocking launch) and p.grad keeps ``g`` alive."""
    dt = _NP_OF.get(g.dtype)
    if dt is None or not _runtime.launch_is_blocking() or not g.is_contiguous():
        return read_host(g) if g.is_contiguous() else read_host(g.contiguous())
    n = g.size
    if n == 0:
        return read_host(g)
    _runtime.note_host_read()
    buf = (ctypes.c_char * (n * dt.itemsize)).from_address(g.data_ptr())
    a = np.frombuffer(buf, dt).reshape(g.shape)
    a.flags.writeable = False
    return a


def _own_copy(t):
    """A tensor with ``t``'s value in memory of its own (host-reachable)."""
    return ms.Tensor(np.array(read_host(t), copy=True))


class HostOps:
    """Torch's tensor math on NumPy arrays; ``*_`` functions write with ``out=`` into the first argument.

    Python scalars take the array's dtype (NumPy 1.x value-based casting; arrays are never 0-d here),
    as torch casts a scalar to the tensor's dtype."""

    @staticmethod
    def neg(a):
        return np.negative(a)

    @staticmethod
    def add(a, b, alpha=1):
        return a + b if alpha == 1 else a + b * alpha

    @staticmethod
    def mul(a, b):
        return a * b

    @staticmethod
    def div(a, b):
        return a / b

    @staticmethod
    def sqrt(a):
        return np.sqrt(a)

    @staticmethod
    def abs(a):
        return np.abs(a)

    @staticmethod
    def sign(a):
        return np.sign(a)

    @staticmethod
    def maximum(a, b):
        return np.maximum(a, b)

    @staticmethod
    def clone(a):
        return a.copy()

    @staticmethod
    def add_(a, b, alpha=1):
        np.add(a, b if alpha == 1 else b * alpha, out=a)
        return a

    @staticmethod
    def mul_(a, b):
        np.multiply(a, b, out=a)
        return a

    @staticmethod
    def div_(a, b):
        np.divide(a, b, out=a)
        return a

    @staticmethod
    def sqrt_(a):
        np.sqrt(a, out=a)
        return a

    @staticmethod
    def maximum_(a, b):
        np.maximum(a, b, out=a)
        return a

    @staticmethod
    def clamp_(a, min=None, max=None):
        np.clip(a, min, max, out=a)
        return a

    @staticmethod
    def copy_(a, b):
        np.copyto(a, b)
        return a

    @staticmethod
    def lerp_(a, b, weight):
        # torch: weight as the tensor's dtype; a + w * (b - a) below 0.5, b - (b - a) * (1 - w) above
        w = a.dtype.type(weight)
        d = b - a
        if abs(w) < 0.5:
            d *= w
            np.add(a, d, out=a)
        else:
            d *= 1 - w
            np.subtract(b, d, out=a)
        return a

    @staticmethod
    def addcmul_(a, b, c, value=1):
        if value == 1:
            t = b * c
        else:
            t = b * value
            t *= c
        np.add(a, t, out=a)
        return a

    @staticmethod
    def addcdiv_(a, b, c, value=1):
        # torch's kernel: a + (value * b) / c
        if value == 1:
            t = b / c
        else:
            t = b * value
            t /= c
        np.add(a, t, out=a)
        return a


def _round_bf16(a):
    """Round float32 values in ``a`` to the nearest bfloat16 (ties to even), in place."""
    bits = a.view(np.uint32)
    nan = np.isnan(a)
    bits += np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))
    bits &= np.uint32(0xFFFF0000)
    if nan.any():
        a[nan] = np.nan
    return a


def _round_f16(a):
    np.copyto(a, a.astype(np.float16))
    return a


def _reduced_ops(round_):
    """``HostOps`` over float32 arrays holding float16/bfloat16 values: every op computes in float32 and
    rounds its result once to the parameter's dtype, as torch's reduced-precision kernels do (opmath).
    Python scalars stay float32 (opmath) except in ``add``, whose scalar operand and ``alpha`` torch
    first rounds to the tensor's dtype (measured on 4096 elements: 0 mismatches this way)."""
    def scalar(v):
        return float(round_(np.array([v], np.float32))[0]) if isinstance(v, (int, float)) else v

    ns = {}
    for name, f in vars(HostOps).items():
        if name.startswith("__"):
            continue
        f = f.__func__
        if name in ("add", "add_"):
            def op(a, b, alpha=1, _f=f):
                return round_(_f(a, scalar(b), scalar(alpha)))
        elif name.endswith("_"):
            def op(a, *args, _f=f, **kwargs):
                return round_(_f(a, *args, **kwargs))
        else:
            def op(*args, _f=f, **kwargs):
                return round_(_f(*args, **kwargs))
        ns[name] = staticmethod(op)
    return type("ReducedHostOps", (HostOps,), ns)


_REDUCED = {ms.float16: (_reduced_ops(_round_f16), np.float16),
            ms.bfloat16: (_reduced_ops(_round_bf16), None)}


def _f32_copy(t):
    a = np.array(read_host(t.astype(ms.float32)), copy=True)
    return a.reshape(1) if a.ndim == 0 else a


def _w(a, new):
    a.copy_(new)
    return a


_OPMATH = {ms.float16: ms.float32, ms.bfloat16: ms.float32}


def _s(a, v):
    """A Python scalar as a tensor of ``a``'s dtype (float32 for half types, torch's opmath): MindSpore
    would round a Python float to float32 even against a float64 tensor."""
    if isinstance(v, (int, float)):
        return ms.Tensor(v, _OPMATH.get(a.dtype, a.dtype))
    return v


def _r(a, out):
    """A new result in ``a``'s dtype (rounded once, after the op in opmath precision, as torch)."""
    return out if out.dtype == a.dtype else out.astype(a.dtype)


class DeviceOps:
    """``HostOps`` on MindSpore tensors (classic ops, which run on every device); ``*_`` functions
    compute and then ``copy_`` into the first argument."""

    @staticmethod
    def neg(a):
        return ops.neg(a)

    @staticmethod
    def add(a, b, alpha=1):
        return _r(a, ops.add(a, _s(a, b) if alpha == 1 else ops.mul(b, _s(a, alpha))))

    @staticmethod
    def mul(a, b):
        return _r(a, ops.mul(a, _s(a, b)))

    @staticmethod
    def div(a, b):
        return _r(a, ops.div(a, _s(a, b)))

    @staticmethod
    def sqrt(a):
        return ops.sqrt(a)

    @staticmethod
    def abs(a):
        return ops.abs(a)

    @staticmethod
    def sign(a):
        return ops.sign(a)

    @staticmethod
    def maximum(a, b):
        return ops.maximum(a, b)

    @staticmethod
    def clone(a):
        return a.copy()

    @staticmethod
    def add_(a, b, alpha=1):
        return _w(a, ops.add(a, _s(a, b) if alpha == 1 else ops.mul(b, _s(a, alpha))))

    @staticmethod
    def mul_(a, b):
        return _w(a, ops.mul(a, _s(a, b)))

    @staticmethod
    def div_(a, b):
        return _w(a, ops.div(a, _s(a, b)))

    @staticmethod
    def sqrt_(a):
        return _w(a, ops.sqrt(a))

    @staticmethod
    def maximum_(a, b):
        return _w(a, ops.maximum(a, b))

    @staticmethod
    def clamp_(a, min=None, max=None):
        return _w(a, ops.clamp(a, None if min is None else _s(a, min), None if max is None else _s(a, max)))

    @staticmethod
    def copy_(a, b):
        return _w(a, b)

    @staticmethod
    def lerp_(a, b, weight):
        d = ops.sub(b, a)
        if abs(weight) < 0.5:
            return _w(a, ops.add(a, ops.mul(d, _s(a, weight))))
        return _w(a, ops.sub(b, ops.mul(d, _s(a, 1 - weight))))

    @staticmethod
    def addcmul_(a, b, c, value=1):
        t = ops.mul(b, c) if value == 1 else ops.mul(ops.mul(b, _s(a, value)), c)
        return _w(a, ops.add(a, t))

    @staticmethod
    def addcdiv_(a, b, c, value=1):
        t = ops.div(b, c) if value == 1 else ops.div(ops.mul(b, _s(a, value)), c)
        return _w(a, ops.add(a, t))


class _Entry:
    """What one parameter's update works on, cached between steps."""
    __slots__ = ("pm", "ptr", "keys", "states", "host", "param", "bufs", "touched")


class Step:
    """One ``optimizer.step()``: hands out each parameter's memory for the update to write in place.

    Call ``take`` for every parameter (in torch's order), run the update on what it returns, then
    ``finish()`` once."""
    __slots__ = ("opt", "cache", "touched", "writeback", "host")

    def __init__(self, optimizer):
        cache = optimizer.__dict__.get("_fast_cache")
        if cache is None:
            cache = optimizer.__dict__["_fast_cache"] = {}
        self.opt = optimizer
        self.cache = cache
        self.touched = []      # MindSpore tensors written by NumPy: their version counters are bumped
        self.writeback = []    # (param, scratch tensor) for parameters NumPy and copy_ cannot write
        if config.host is None:
            config.host = _host_default()
        self.host = config.host

    def take(self, p, keys=(), init=None):
        """``(X, param, grad, buffers)`` for parameter ``p``, or None when ``p.grad`` is None.

        ``keys``: names of the state tensors to hand out, in order (None for a missing one);
        ``init(p, state)`` fills an empty state first (torch's lazy state initialisation)."""
        pm = p._ms
        g = P.grad(pm)
        if g is None:
            return None
        if init is not None:
            state = self.opt.state[p]
            if not state:
                init(p, state)
        else:
            state = self.opt.state.get(p) if keys else None
        if self.host and pm.dtype in _REDUCED:
            return self._take_reduced(p, pm, g, state, keys)
        e = self.cache.get(p)
        if (e is None or e.pm is not pm or e.ptr != pm.data_ptr() or e.keys != keys
                or not _states_unchanged(e, state)):
            e = self._entry(p, pm, state, keys)
        if e.touched:
            self.touched.extend(e.touched)
        if e.host:
            ga = _grad_view(g)
            return HostOps, e.param, (ga.reshape(1) if ga.ndim == 0 else ga), e.bufs
        param = e.param
        if param is None:   # memory of another tensor: update a copy, written back by finish()
            param = pm.copy()
            self.writeback.append((p, param))
        return DeviceOps, param, g, e.bufs

    def _take_reduced(self, p, pm, g, state, keys):
        """float16/bfloat16 on the host: float32 copies of the parameter and its states, updated with
        one rounding per op and written back by finish() (NumPy has no bfloat16 to share memory with)."""
        bufs = []
        for k in keys:
            t = None if state is None else state.get(k)
            if t is None:
                bufs.append(None)
            elif k in SCALAR_STATES:
                a = host_array(t._ms) if t._view is None else None
                if a is None:
                    t = state[k] = beside(t, _own_copy(t._ms))
                    a = host_array(t._ms)
                self.touched.append(t._ms)
                bufs.append(a)
            else:
                a = _f32_copy(t._ms)
                self.writeback.append((t, a))
                bufs.append(a)
        param = _f32_copy(pm)
        self.writeback.append((p, param))
        return _REDUCED[pm.dtype][0], param, _f32_copy(g), tuple(bufs)

    def new_state(self, p, key, value):
        """``state[key]`` = a new tensor holding a copy of ``value`` (an array handed out by ``take`` or
        computed from one, of p's shape); returns its array for the rest of this update."""
        self.cache.pop(p, None)
        if not isinstance(value, np.ndarray):
            t = value.copy()
            self.opt.state[p][key] = beside(p, t)
            return t
        t = ms.Tensor(np.array(value, copy=True).reshape(p._ms.shape))
        if p._ms.dtype in _REDUCED:   # a state of the parameter's dtype, updated as a float32 copy
            self.opt.state[p][key] = state = beside(p, t.astype(p._ms.dtype))
            a = np.array(value, dtype=np.float32, copy=True)
            self.writeback.append((state, a))
            return a
        self.opt.state[p][key] = state = beside(p, t)
        a = host_array(t)
        if a is None:   # no shared memory: the array is copied into the tensor by finish()
            a = read_host(t).reshape(-1 if t.ndim == 0 else t.shape)
            self.writeback.append((state, a))
        else:
            self.touched.append(t)
        return a

    def finish(self):
        for target, value in self.writeback:
            target._write(ms.Tensor(value.reshape(target._ms.shape)) if isinstance(value, np.ndarray) else value)
        self.writeback = []
        P.bump_versions(self.touched)
        self.touched = []

    def _entry(self, p, pm, state, keys):
        e = None
        if self.host and pm.dtype in _HOST_DTYPES and p._view is None:
            a = host_array(pm)
            if a is not None:
                e = _build(pm, state, keys, a, True)
        if e is None:
            own = p._view is None and pm.is_contiguous() and not pm.storage_offset()
            e = _build(pm, state, keys, pm if own else None, False)
        self.cache[p] = e
        return e


def _build(pm, state, keys, param, host):
    """The cache entry of one parameter; None when a host entry cannot reach a state's memory."""
    bufs, states, touched = [], [], [pm] if host else []
    for k in keys:
        t = None if state is None else state.get(k)
        if t is None:
            bufs.append(None)
            states.append((k, None, None))
            continue
        if host or (k in SCALAR_STATES and t._ms.ndim == 0):
            a = host_array(t._ms) if t._view is None else None
            if a is None:   # not its own memory (a view, a device copy): give the state its own
                t = state[k] = beside(t, _own_copy(t._ms))
                a = host_array(t._ms)
                if a is None:
                    if host:
                        return None
                    raise RuntimeError(f"mstorch optimizers keep state[{k!r}] in host memory; it is not there")
            bufs.append(a)
            touched.append(t._ms)
        else:
            tm = t._ms
            if t._view is not None or not tm.is_contiguous() or tm.storage_offset():
                t = state[k] = beside(t, tm.copy())
            bufs.append(t._ms)
        states.append((k, t, t._ms))
    e = _Entry()
    e.pm, e.ptr, e.keys, e.host, e.param = pm, pm.data_ptr(), keys, host, param
    e.bufs, e.states, e.touched = tuple(bufs), tuple(states), tuple(touched)
    return e


def _states_unchanged(e, state):
    for k, t, tm in e.states:
        s = None if state is None else state.get(k)
        if s is not t or (s is not None and s._ms is not tm):
            return False
    return True


def zeros_state(p):
    """torch.zeros_like(p) as a state tensor."""
    return beside(p, ops.zeros_like(p._ms))




def step_tensor(value=0.0):
    """torch's ``state["step"]``: a float32 0-d tensor on the host."""
    return wrap(ms.Tensor(np.array(value, dtype=np.float32)))


__all__ = ["Step", "HostOps", "DeviceOps", "SCALAR_STATES", "scalar", "inc", "host_array", "zeros_state",
           "step_tensor", "config"]
