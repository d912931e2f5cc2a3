"""Ranges: arange, range, linspace, logspace, reproducing torch's CPU kernels step for step.

Values are built on the host with NumPy (accumulation type, fused multiply-add, the order of torch's
vectorised chunks), so their float results are bit-identical to torch's.
"""
import math

import numpy as np
from .._runtime import read_host

from .. import _dtype as D
from .._cast import NP_BF16
from .._tensor import Tensor
from ._argerr import invalid_args
from ._registry import register
from .creation import F, _check_dtype, _check_fill, _finish, _host_to_ms, _num


# torch vectorises arange over 32-byte registers, two registers per loop step; each register starts
# from a base rounded to the output dtype, the rest of the elements take the scalar formula.

def _acc_dtype(dt):
    if dt._cat == D._INT:
        return np.int64
    if dt in (D.float16, D.bfloat16):
        return np.float32
    return np.float64


def _round_to(values, dt):
    """Round host values to ``dt`` as C++ conversions do (half and bfloat16 through float)."""
    if dt is D.bfloat16:
        return values.astype(np.float32).astype(NP_BF16).astype(np.float32)
    if dt is D.float16:
        return values.astype(np.float32).astype(np.float16)
    return values.astype(dt._np)


def _split(a):
    c = a * 134217729.0  # 2**27 + 1: Veltkamp's split of a double into two 26-bit halves
    hi = c - (c - a)
    return hi, a - hi


def _fma64(c, a, b):
    """c + a * b with one rounding (the compiled kernels' fused multiply-add), from error-free transforms."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    with np.errstate(all="ignore"):
        r = _fma_core(c, a, b)
        bad = ~np.isfinite(r)
        if bad.any():
            # past ~1.3e300 the split overflows (NaN): the same computation 2^600 smaller (exact scalings),
            # and where even that is not finite (an infinite product) the plain c + a * b
            big = 2.0 ** 600
            scaled = _fma_core(np.asarray(c, np.float64) / big, a / big, b) * big
            r = np.where(bad, np.where(np.isfinite(scaled), scaled, c + a * b), r)
        return r


def _fma_core(c, a, b):
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = c + p
    bb = s - c
    t = (c - (s - bb)) + (p - bb)
    return s + (t + e)


def _arange_values(start, step, n, dt):
    if dt._cat == D._INT:
        return np.int64(start) + np.int64(step) * np.arange(n, dtype=np.int64)
    idx = np.arange(n, dtype=np.float64)
    if _acc_dtype(dt) is np.float32:
        # half / bfloat16 accumulate in float
        start, step = np.float32(start), np.float32(step)
        out = _fma64(np.float64(start), step, idx).astype(np.float32).astype(np.float64)
        base_of = lambda i0: _fma64(np.float64(start), step, i0).astype(np.float32)  # noqa: E731
    else:
        start, step = float(start), float(step)
        out = _fma64(start, step, idx)
        base_of = lambda i0: _fma64(start, step, i0)  # noqa: E731
    width = 32 // dt.itemsize
    n_vec = n // (2 * width) * (2 * width)
    if n_vec:
        bases = _round_to(base_of(np.arange(0, n_vec, width, dtype=np.float64)), dt).astype(np.float64)
        out[:n_vec] = _fma64(bases[:, None], np.arange(width, dtype=np.float64)[None, :], float(step)).reshape(-1)
    return out


def _arange_size(start, end, step, dt):
    if math.isnan(step) or step == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {start} -> {end}")
    if not ((step > 0 and end >= start) or (step < 0 and end <= start)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dt is D.int64:
        xs, xe, xt = int(start), int(end), int(step)
        if xt == 0:
            raise ValueError("step must be nonzero")
        sgn = (xt > 0) - (xt < 0)
        q = xe - xs + xt - sgn
        return abs(q) // abs(xt) * (1 if (q >= 0) == (xt > 0) else -1)
    return int(math.ceil((float(end) - float(start)) / float(step)))


def _range_args(start, end, step):
    start, end, step = _num(start), _num(end), _num(step)
    if end is None:
        start, end = 0, start
    return start, end, step


@register("arange", family=F, namespace="torch", raw=True, out=True)
def arange(start=0, end=None, step=1, *, dtype=None, layout=None, device=None, requires_grad=False):
    start, end, step = _range_args(start, end, step)
    _check_dtype(dtype, "arange")
    if dtype is None:
        dtype = D.get_default_dtype() if any(isinstance(v, float) for v in (start, end, step)) else D.int64
    if dtype is D.bool_:
        raise NotImplementedError("\"arange_cpu\" not implemented for 'Bool'")
    n = _arange_size(start, end, step, dtype)
    if dtype._cat == D._INT:
        start, step = int(start), int(step)
    values = _arange_values(start, step, n, dtype)
    return _finish(_host_to_ms(_round_to(values, dtype) if dtype._cat != D._INT else values, dtype),
                   requires_grad, device)


@register("range", family=F, namespace="torch", raw=True, out=True,
          note="deprecated in torch; includes the end point")
def range_(start=0, end=None, step=1, *, dtype=None, layout=None, device=None, requires_grad=False):
    start, end, step = _range_args(start, end, step)
    _check_dtype(dtype, "range")
    dtype = dtype or D.get_default_dtype()
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not ((step > 0 and end >= start) or (step < 0 and end <= start)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype._cat == D._INT:
        xs, xe, xt = int(start), int(end), int(step)
        n = int((xe - xs) / xt) + 1 if xt else 0
        values = np.int64(xs) + np.int64(xt) * np.arange(n, dtype=np.int64)
        return _finish(_host_to_ms(values, dtype), requires_grad, device)
    acc = _acc_dtype(dtype)
    xs, xe, xt = acc(start), acc(end), acc(step)
    n = int((xe - xs) / xt + 1)
    values = xs + np.arange(n, dtype=acc) * xt
    return _finish(_host_to_ms(_round_to(values, dtype), dtype), requires_grad, device)


def _fma_f32(a, b, idx):
    """a + b * idx rounded once to float32, as the compiled kernel's fused multiply-add does."""
    return (np.float64(a) + np.float64(b) * idx.astype(np.float64)).astype(np.float32)


def _linspace_values(start, end, steps, dt):
    with np.errstate(all="ignore"):   # (end points near the limit overflow quietly, as torch's kernel does)
        return _linspace_host(start, end, steps, dt)


def _linspace_host(start, end, steps, dt):
    idx = np.arange(steps, dtype=np.int64)
    half = steps // 2
    lo, hi = idx < half, steps - idx - 1
    if dt._cat == D._COMPLEX:
        s, e = complex(start), complex(end)
        step = (e - s) / (steps - 1)
        return np.where(lo, s + step * idx, e - step * hi)
    if dt._cat <= D._INT:
        # the integer kernel computes in double from the truncated end points
        s, e = float(int(start.real if isinstance(start, complex) else start)), float(int(end.real if isinstance(end, complex) else end))
        step = (e - s) / (steps - 1)
        return np.trunc(np.where(lo, s + step * idx, e - step * hi))
    if dt is D.float32:
        s, e = np.float32(start), np.float32(end)
        step = np.float32((e - s) / np.float32(steps - 1))
        return np.where(lo, _fma_f32(s, step, idx), _fma_f32(e, -step, hi))
    if dt is D.float64:
        s, e = float(start), float(end)
        step = (e - s) / (steps - 1)
        return np.where(lo, _fma64(s, step, idx), _fma64(e, -step, hi))
    # half / bfloat16: every operation rounds to the 16-bit type (through float)
    r = lambda v: _round_to(np.asarray(v, dtype=np.float32), dt).astype(np.float32)  # noqa: E731
    s, e = r(start), r(end)
    step = r(r(e - s) / r(steps - 1))
    return np.where(lo, r(s + r(step * r(idx))), r(e - r(step * r(hi))))


@register("linspace", family=F, namespace="torch", raw=True, out=True)
def linspace(start, end, steps, *, dtype=None, layout=None, device=None, requires_grad=False):
    start, end = _linspace_point(start, "start"), _linspace_point(end, "end")
    if not isinstance(steps, int) or isinstance(steps, bool):
        raise invalid_args("linspace", (start, end, steps), signatures=(
            "Tensor start, Tensor end, int steps, *, Tensor out = None, torch.dtype dtype = None, torch.layout "
            "layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False",))
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    _check_dtype(dtype, "linspace")
    if dtype is None:
        dtype = D.complex_of_default() if isinstance(start, complex) or isinstance(end, complex) else D.get_default_dtype()
    if steps == 0:
        values = np.zeros(0)
    elif steps == 1:
        _check_fill(start, dtype)
        values = np.array([start])
    else:
        values = _linspace_values(start, end, steps, dtype)
    return _finish(_host_to_ms(_round_to(values, dtype) if dtype._cat >= D._FLOAT else values.astype(dtype._np),
                                dtype), requires_grad, device)


def _linspace_point(x, which):
    if isinstance(x, Tensor):
        if x.dim() != 0:
            raise RuntimeError(f"linspace only supports 0-dimensional start and end tensors, but got {which} "
                               f"with {x.dim()} dimension(s).")
        return x.item()
    return x


@register("logspace", family=F, namespace="torch", raw=True, out=True)
def logspace(start, end, steps, base=10.0, *, dtype=None, layout=None, device=None, requires_grad=False):
    start, end = _linspace_point(start, "start"), _linspace_point(end, "end")
    if not isinstance(steps, int) or isinstance(steps, bool):
        raise TypeError(f"logspace(): argument 'steps' must be int, not {type(steps).__name__}")
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    _check_dtype(dtype, "logspace")
    dtype = dtype or D.get_default_dtype()
    base = float(base)
    if dtype._cat == D._COMPLEX:
        values = np.power(base, read_host(linspace(start, end, steps, dtype=D.complex128)._ms))
    elif steps == 0:
        values = np.zeros(0)
    elif steps == 1:
        values = np.array([base ** float(start)])
    else:
        # start and end rounded to the output type, the exponent and the power in double
        s, e = _round_scalar(start, dtype), _round_scalar(end, dtype)
        step = float(_round_scalar(e - s, dtype)) / (steps - 1)
        idx = np.arange(steps, dtype=np.float64)
        # RangeFactories.cpp is built for baseline x86-64: no fused multiply-add here
        exps = np.where(idx < steps // 2, s + step * idx, e - step * (steps - idx - 1))
        values = np.array([math.pow(base, x) for x in exps.tolist()])  # libm's pow, as torch (NumPy's SIMD pow differs)
    if dtype._cat <= D._INT:
        return _finish(_host_to_ms(np.trunc(values).astype(dtype._np), dtype), requires_grad, device)
    return _finish(_host_to_ms(_round_to(values, dtype), dtype), requires_grad, device)


def _round_scalar(x, dt):
    if dt._cat <= D._INT:
        return float(int(x))
    return float(_round_to(np.array([x], dtype=np.float64), dt)[0])
