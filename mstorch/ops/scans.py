"""Cumulative ops (cumsum, cumprod, cummax/cummin, logcumsumexp, their in-place forms) and diff.

MindSpore's CumSum/CumProd accumulate in the input's dtype; torch accumulates float32 in float64 and half
types in float32 (``_CUM_ACC``), bool and integer scans promote to int64, and the empty or 0-d cases
MindSpore's kernels refuse are answered by hand.
"""
import math

import mindspore as ms
import numpy as np
from .._runtime import read_host
from . import _msops as ops

from .. import _dtype as D
from .. import _ms_private as P
from ._helpers import wrap_dim, result_type, cast
from ._registry import register, OPS
from .reduction import (F, _FROM_MS, _acc_dtype, _back, as_int64, comparable, empty_result, is_float,
                        needs_grad, return_type)

cummax_rt = return_type("cummax", ("values", "indices"))
cummin_rt = return_type("cummin", ("values", "indices"))


def _cum_input(input, dim, dtype):
    d = wrap_dim(dim, input.ndim)
    out_dt = _acc_dtype(input, dtype)
    x = cast(input, out_dt) if input.dtype != out_dt else input
    if x.dtype == ms.bfloat16:
        x = cast(x, ms.float32)
    return (x.reshape(1) if x.ndim == 0 else x), d, out_dt


# torch's CPU scans accumulate in the wider type (double for float32, float for the half types)
_CUM_ACC = {ms.float32: ms.float64, ms.float16: ms.float32, ms.complex64: ms.complex128}


def _cum_run(fn, x, d, input, out_dt):
    if x.size == 0:                  # MindSpore's kernels fail on empty input
        return cast(x, out_dt) if x.dtype != out_dt else x.copy()
    if out_dt in _CUM_ACC:   # (bfloat16 is float32 already)
        x = cast(x, _CUM_ACC[out_dt])
    return _cum_finish(fn(x, d), input, out_dt)


def _cum_finish(r, input, out_dt):
    if input.ndim == 0:
        r = r.reshape(())
    return r if r.dtype == out_dt else cast(r, out_dt)


def _no_bool_scan(name, dtype, input):
    """torch's scan kernels have no bool variant (a bool input scans in int64); a 0-d or empty input never
    reaches them (its result is the input converted)."""
    if dtype is D.bool_ and input.ndim and input.size:
        raise NotImplementedError(f"\"{name}_out_cpu\" not implemented for 'Bool'")
    return dtype is D.bool_


@register("cumsum", family=F, out="dtype")
def cumsum(input, dim, *, dtype=None):
    if _no_bool_scan("cumsum", dtype, input):
        wrap_dim(dim, input.ndim)
        return cast(input, ms.bool_) if input.dtype != ms.bool_ else input.copy()
    x, d, out_dt = _cum_input(input, dim, dtype)
    if x is not input and input.size and needs_grad(input) and _FROM_MS[input.dtype]._cat == D._FLOAT:
        out = CumsumBackward0.apply(input, x, d, out_dt)
        P.set_function_of_output(out, CumsumBackward0)   # grad_fn's name after backward frees the node
        return out
    return _cum_run(ops.cumsum, x, d, input, out_dt)


class CumsumBackward0(P.FunctionBase):   # (the class names the node, as torch's)
    """cumsum(x, dtype=) of a float x in another dtype: torch casts the gradient to x's dtype before its
    reverse scan (the gradient of a float64 x summed in float32 is a float64 sum of the float32 gradient);
    MindSpore's Cast backward would round the scanned gradient to the result's dtype."""

    @staticmethod
    def forward(node, input, x, d, out_dt):
        node.d, node.in_dt = d, input.dtype
        return _cum_run(ops.cumsum, x, d, input, out_dt)

    @staticmethod
    def backward(node, g):
        g = cast(g, node.in_dt)
        if node.in_dt in _CUM_ACC or node.in_dt == ms.bfloat16:   # (no bfloat16 CPU flip: float32 holds it)
            g = cast(g, _CUM_ACC.get(node.in_dt, ms.float32))
        flat = g.reshape(1) if g.ndim == 0 else g
        gx = ops.flip(ops.cumsum(ops.flip(flat, (node.d,)), node.d), (node.d,)).reshape(g.shape)
        return cast(gx, node.in_dt), None, None, None


@register("cumprod", family=F, out="dtype")
def cumprod(input, dim, *, dtype=None):
    if _no_bool_scan("cumprod", dtype, input):
        wrap_dim(dim, input.ndim)
        return cast(input, ms.bool_) if input.dtype != ms.bool_ else input.copy()
    x, d, out_dt = _cum_input(input, dim, dtype)
    if x.size and needs_grad(x):
        xo = input if input.dtype == out_dt else cast(input, out_dt)   # (bfloat16 kept: torch's backward dtype)
        return _cumprod_node(xo, d)
    return _cum_run(ops.cumprod, x, d, input, out_dt)


def _cum_inplace(name, fn):
    # hand-written rather than the generic in-place form: torch computes in the receiver's dtype and
    # refuses a different dtype= (the generic form would cast the result back silently)
    def impl(self, dim, *, dtype=None):
        if dtype is not None and dtype is not self.dtype:
            from .arithmetic import _c_name
            raise RuntimeError(f"Bad in-place call: input tensor dtype {_c_name(self.dtype)} and output tensor dtype "
                               f"{_c_name(dtype)} should match")
        _no_bool_scan(name, self.dtype, self._ms)
        return self._write(fn(self._ms, dim, dtype=self.dtype))
    impl.__name__ = name + "_"
    return register(name + "_", family=F, namespace="Tensor", raw=True)(impl)


def _cumprod_scan(x, d):
    """cumprod as log2(n) multiplications of shifted copies (Hillis-Steele): its autograd is exact when
    the input holds zeros, where MindSpore's CumProd gradient divides by them and gives nan (linalg's
    vander uses it)."""
    n = x.shape[d]
    out, s = x, 1
    while s < n:
        shape = list(x.shape)
        shape[d] = s
        shifted = ops.cat((ops.ones(tuple(shape), x.dtype), ops.narrow(out, d, 0, n - s)), d)
        out = out * shifted
        s *= 2
    return out


def _cumprod_plain(x, d):
    """cumprod of a non-empty, not 0-d ``x`` in its own dtype, accumulated as torch's (no autograd)."""
    y = cast(x, ms.float32) if x.dtype == ms.bfloat16 else x
    return _cum_run(ops.cumprod, y, d, x, x.dtype)


def _cumprod_any(x, d):
    # differentiable while a backward pass records itself (create_graph), plain otherwise
    return _cumprod_node(x, d) if needs_grad(x) else _cumprod_plain(x, d)


def _rcumsum(g, d):
    """The reversed cumulative sum along d, accumulated as torch's cumsum."""
    acc = ms.float32 if g.dtype == ms.bfloat16 else _CUM_ACC.get(g.dtype)   # (no bfloat16 CPU flip)
    h = g if acc is None else cast(g, acc)
    r = ops.flip(ops.cumsum(ops.flip(h, (d,)), d), (d,))
    return r if acc is None else cast(r, g.dtype)


class CumprodBackward0(P.FunctionBase):   # (the class names the node, as torch's)
    """cumprod with torch's gradient formula: without zeros in x, the reversed cumulative sum of
    grad * out divided by x (so an overflowed product gives inf/-inf gradients as torch's, where the
    exact product of the other elements is finite); with zeros, the products around the first zero
    (MindSpore's CumProd gradient divides by the zeros and gives NaN). The backward is written in
    differentiable ops, recorded for create_graph."""

    @staticmethod
    def forward(node, x, d):
        node.d = d
        node.save_for_backward(x)
        return _cumprod_plain(x, d) if x.ndim else _cumprod_plain(x.reshape(1), d).reshape(())

    @staticmethod
    def backward(node, g):
        (x,), d = node.saved_tensors, node.d
        if x.size <= 1 or x.shape[d] == 1:
            return g, None
        cplx = x.dtype in (ms.complex64, ms.complex128)
        out = _cumprod_any(x, d)
        half = x.dtype == ms.bfloat16   # (few bfloat16 CPU kernels: float32, rounded as torch's steps)
        if half:
            x, out, g = cast(x, ms.float32), cast(out, ms.float32), cast(g, ms.float32)
        rnd = (lambda t: cast(cast(t, ms.bfloat16), ms.float32)) if half else (lambda t: t)
        cx = ops.conj(x) if cplx else x
        w = rnd(ops.mul(ops.conj(out) if cplx else out, g))
        zero = ops.equal(x, 0)
        if not bool(read_host(ops.any(zero))):
            r = ops.div(rnd(_rcumsum(w, d)), cx)
            return (cast(r, ms.bfloat16) if half else r), None
        if needs_grad(x) or needs_grad(g):   # (a pass that records itself: every position's dependence)
            r = _cumprod_grad_scan(cx, g, d)
            return (cast(r, ms.bfloat16) if half else r), None
        # zeros: before the first zero the same formula on the products before it; at the first zero the
        # sum over k up to the second zero of g_k times the product of the other factors up to k; 0 after
        nz = ops.cumsum(cast(zero, ms.int32), d)
        before, one = ops.equal(nz, 0), ops.equal(nz, 1)
        first = ops.logical_and(zero, one)
        mid = ops.logical_and(one, ops.logical_not(zero))
        unit = ops.ones_like(cx)
        gb = ops.div(_rcumsum(ops.where(before, w, ops.zeros_like(w)), d), ops.where(before, cx, unit))
        pre = ops.narrow(_cumprod_any(ops.where(before, cx, unit), d), d, x.shape[d] - 1, 1)
        after = _cumprod_any(ops.where(mid, cx, unit), d)
        s1 = ops.sum(ops.mul(ops.where(one, g, ops.zeros_like(g)), after), d, True)
        gf = ops.mul(pre, s1)
        r = ops.where(before, gb, ops.where(first, ops.broadcast_to(gf, gb.shape), ops.zeros_like(gb)))
        return (cast(r, ms.bfloat16) if half else r), None


def _cumprod_grad_scan(cx, g, d):
    """sum over k >= i of g_k times the product of cx_j, j <= k, j != i, for every i, in differentiable ops:
    the exclusive product before i times the reversed recurrence R_i = g_i + cx_{i+1} R_{i+1}, solved as
    a Hillis-Steele scan of its affine steps. For double backward through inputs with zeros, where the
    first-order formula's hard zeros after the first zero still depend on the inputs."""
    n = cx.shape[d]

    def shifted(t, k):    # t moved k places back along d, zeros after
        shape = list(t.shape)
        shape[d] = k
        return ops.cat((ops.narrow(t, d, k, n - k), ops.zeros(tuple(shape), t.dtype)), d)

    ones = list(cx.shape)
    ones[d] = 1
    before = ops.cat((ops.ones(tuple(ones), cx.dtype), ops.narrow(_cumprod_any(cx, d), d, 0, n - 1)), d)
    a, b, s = shifted(cx, 1), g, 1
    while s < n:
        b = ops.add(b, ops.mul(a, shifted(b, s)))
        a = ops.mul(a, shifted(a, s))
        s *= 2
    return ops.mul(before, b)


def _cumprod_node(x, d):
    out = CumprodBackward0.apply(x, d)
    P.set_function_of_output(out, CumprodBackward0)   # grad_fn's name after backward frees the node
    return out


def _cum_extreme(name, fn, rt):
    def impl(input, dim):
        if input.size == 0:   # (torch answers an empty input before it looks at dim)
            return rt(input.copy(), ops.zeros(input.shape, ms.int64))
        d = wrap_dim(dim, input.ndim)
        if input.ndim == 0:
            return rt(input.copy(), ops.zeros((), ms.int64))
        x, dt = comparable(input)
        values, idx = fn(x, d)
        idx = as_int64(idx)
        if needs_grad(input):     # CumMax's own gradient needs a scatter kernel the CPU lacks
            values = ops.gather_elements(x, d, idx)
        return rt(_back(values, dt), idx)
    impl.__name__ = name
    return register(name, family=F, out="tuple")(impl)


cumsum_ = _cum_inplace("cumsum", cumsum)
cumprod_ = _cum_inplace("cumprod", cumprod)
cummax = _cum_extreme("cummax", ops.cummax, cummax_rt)
cummin = _cum_extreme("cummin", ops.cummin, cummin_rt)


@register("logcumsumexp", family=F, out="exact")
def logcumsumexp(input, dim):
    x = input if is_float(input) else cast(input, D.get_default_dtype()._ms)
    d = wrap_dim(dim, x.ndim)
    if x.size == 0:
        return x.copy()
    if x.ndim == 0:
        return x.copy()
    if _FROM_MS[x.dtype]._cat == D._COMPLEX:
        return _logcumsumexp_complex(x, d)
    # a scan of logaddexp over shifted copies (Hillis-Steele, log2(n) steps), as torch accumulates
    # log(exp(a) + exp(b)) element by element: one shift by the whole dim's maximum would underflow the
    # earlier terms (logcumsumexp([-100, 100]) gave -inf first)
    n, step = x.shape[d], 1
    add = OPS["logaddexp"]
    while step < n:
        pad_shape = tuple(step if i == d else s for i, s in enumerate(x.shape))
        shifted = ops.concat([ops.full(pad_shape, -math.inf, dtype=x.dtype), ops.narrow(x, d, 0, n - step)], d)
        x = add(x, shifted)
        step *= 2
    return x


def _log_add_exp_complex(acc, x):
    """torch's complex log(exp(acc) + exp(x)), elementwise: ordered by real part (``acc`` is the smaller one of
    a tie; a NaN operand wins), log1p(exp(min - max)) + max, with its own answers for equal infinite real
    parts."""
    nan_x = np.isnan(x.real) | np.isnan(x.imag)
    nan_a = np.isnan(acc.real) | np.isnan(acc.imag)
    first = x.real < acc.real
    lo, hi = np.where(first, x, acc), np.where(first, acc, x)
    with np.errstate(all="ignore"):
        r = np.log1p(np.exp(lo - hi)) + hi
        both_inf = ~np.isfinite(lo.real) & (lo.real == hi.real)
        r = np.where(both_inf & (lo.real < 0), lo, r)
        r = np.where(both_inf & (lo.real > 0), np.log(np.exp(lo) + np.exp(hi)), r)
        nan = np.array(complex(math.nan, math.nan), r.dtype)
        return np.where(nan_x | nan_a, nan, r).astype(acc.dtype)


def _logcumsumexp_complex(x, d):
    """Complex logcumsumexp as torch's CPU scan, element by element along ``d`` in the input's precision (on
    the host: MindSpore has no complex log1p). Its gradient is not implemented: refused rather than lost."""
    if needs_grad(x):
        raise NotImplementedError("mstorch.logcumsumexp: the gradient of complex logcumsumexp is not implemented "
                                  "(MindSpore has no complex log1p kernel); compute it under torch.no_grad()")
    a = np.moveaxis(read_host(x), d, 0)
    out = np.empty_like(a)
    acc = np.full(a.shape[1:], complex(-math.inf, 0), a.dtype)   # (torch's scan starts from -inf)
    for i in range(a.shape[0]):
        acc = _log_add_exp_complex(acc, a[i])
        out[i] = acc
    return ms.Tensor(np.ascontiguousarray(np.moveaxis(out, 0, d)))


@register("diff", family=F, out=True)
def diff(input, n=1, dim=-1, prepend=None, append=None):
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = wrap_dim(dim, input.ndim)
    parts = [t for t in (prepend, input, append) if t is not None]
    for t in parts:
        if t.ndim != input.ndim:
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    if len(parts) > 1:
        rt = result_type(*parts)._ms
        x = ops.cat([t if t.dtype == rt else cast(t, rt) for t in parts], d)
    else:
        x = input
    if n == 0:
        return x.copy()
    for _ in range(n):
        size = x.shape[d]
        if size <= 1:
            shape = list(x.shape)
            shape[d] = 0
            return empty_result(x, tuple(shape))
        hi, lo = ops.narrow(x, d, 1, size - 1), ops.narrow(x, d, 0, size - 1)
        x = ops.logical_xor(hi, lo) if x.dtype == ms.bool_ else hi - lo
    return x
