"""Arithmetic: the operators (add, sub, mul, div, floor division, remainder, fmod, pow, neg, abs...) and
the pointwise functions of three operands (lerp, addcmul/addcdiv) and nan_to_num, with torch's float
semantics and type promotion. The functions of two operands (atan2, hypot, logaddexp, copysign, xlogy,
heaviside, ldexp, gcd/lcm...) are in binary_math.py; the registration wrapper and the checks shared with
the unary functions live in pointwise.py.

Implementations take mindspore.Tensors or Python scalars. MindSpore dtypes are singletons, so dtype tests
use ``is`` (``==`` on a MindSpore dtype costs ~2 µs). add/sub/mul/div on two tensors of one dtype take a
fast path: one dtype test and one MindSpore call. Where a MindSpore CPU kernel differs from torch
(inexact fmod, no bfloat16) the fix is commented.
"""
import builtins
import math

import numpy as np

import mindspore as ms
from .._runtime import read_host
from . import _kernels as kernels
from . import _msops as ops
from mindspore.ops import operations as P_ops

from .. import _dtype as D
from .. import _ms_private as P
from .._tensor import Tensor, scalar_type_name
from ._helpers import promote, float_result, dtype_of, to_operand, result_type, scalar_tensor, cast
from ._argerr import invalid_args, BINARY
from ._views import fresh, broadcast_shape
from .products import _node
from ..autograd._higher_order import own_backward
from .pointwise import (F, register, _T, _TRUE, _bool, _f32, _f64, _f16, _bf16, _need_tensor, _not_impl,
                        _zero_grad, _float_operands, _COMPLEX)

_NUMBER = (bool, int, float)
_ONE = 1   # alpha's default: `alpha is _ONE` also tells True and 1.0 from 1
# the classic primitives compute the same bits as ops.div / ops.sub, faster on CPU: RealDiv ~3x for any
# shapes (64x1000: 72 vs 241 us), Sub ~3x when broadcasting (66 vs 210 us; same shapes: ops.sub is faster)
_REALDIV, _SUB = P_ops.RealDiv(), P_ops.Sub()
_REALDIV_TYPES = frozenset((_f32, _f64))   # float16: its gradient rounds differently from torch's
_SUB_PRIM = frozenset((_f32, _f64, ms.int32, ms.int64))


def _check_other(name, other):
    if not isinstance(other, (_T, bool, int, float, complex)):
        raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")


def _need_input(name, x, other):
    if not isinstance(x, _T):
        raise invalid_args(name, (x, other), signatures=BINARY)


def _check_int_divisor(b):
    # torch checks integer division by zero on CPU (a host sync; integer division only); its CUDA
    # kernels do not, nor does the device path
    if isinstance(b, _T):
        if kernels.HOST_WORKAROUNDS and b.size and not bool(read_host(ops.all(b))):
            raise RuntimeError("ZeroDivisionError")
    elif b == 0:
        raise RuntimeError("ZeroDivisionError")


def _no_grad_result(r, *inputs):
    # rounding divisions have zero gradients in torch; composites of MindSpore ops would give NaN
    # where b == 0, so the result is cut from the graph and tied to the inputs by zero-gradient selects
    if any(P.requires_grad(x) for x in inputs):
        r = ops.stop_gradient(r)
        for x in inputs:
            if P.requires_grad(x):
                r = ops.where(_TRUE, r, x)
    return r




# --- arithmetic ---------------------------------------------------------------------------------

@register("add", family=F, inplace="add_", out=True, bf16=False)   # Add has bfloat16
def add(input, other, *, alpha=1):
    if isinstance(input, _T) and isinstance(other, _T):
        d = input.dtype
        if d is other.dtype and alpha is _ONE and d is not _bool and d not in _COMPLEX:
            return ops.add(input, other)
    elif not isinstance(input, _T) and not isinstance(other, _T):
        input = _scalar_input(input)
    _check_other("add", other)
    a, b, rt = promote(input, other)
    if alpha is not _ONE or rt.is_complex:
        b = _scaled(b, rt, alpha)
    if rt is D.bool_:
        return ops.logical_or(a, b)
    return ops.add(a, b)


def _scalar_input(x):
    # torch.add(2, 3) and friends: a Number as ``input`` is a 0-dim tensor of its own dtype
    return scalar_tensor(x, D.scalar_dtype(x))


def _scaled(b, rt, alpha):
    if isinstance(alpha, bool) and rt is not D.bool_:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if isinstance(alpha, float) and rt._cat < D._FLOAT:
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if rt is D.bool_:
        return b if alpha else ops.zeros_like(b)
    if rt.is_complex:
        return _scaled_complex(b, complex(alpha))
    return ops.mul(b, to_operand(alpha, rt))


def _scaled_complex(b, alpha):
    # torch scales a complex operand by alpha even when it is 1, as a complex product: an infinite part
    # makes the other part NaN ((1 + 0j) * (inf + 1j) is inf + nanj: 0 * inf)
    return _complex_mul(b, scalar_tensor(alpha, dtype_of(b)))


def _sub_bool_error(a, b):
    two = (isinstance(a, _T) and a.dtype is _bool or isinstance(a, bool)) and \
          (isinstance(b, _T) and b.dtype is _bool or isinstance(b, bool))
    if two:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                       "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")


def _has_bool(x):
    return isinstance(x, bool) or isinstance(x, _T) and x.dtype is _bool


@register("sub", family=F, inplace="sub_", out=True, aliases=("subtract",), bf16=False)
def sub(input, other, *, alpha=1):
    if isinstance(input, _T) and isinstance(other, _T):
        d = input.dtype
        if d is other.dtype and alpha is _ONE and d is not _bool and d is not _bf16 and d not in _COMPLEX:
            if d in _SUB_PRIM and input.shape != other.shape:
                return _SUB(input, other)   # broadcasting: the classic Sub is ~3x faster than ops.sub
            return ops.sub(input, other)
    elif not isinstance(input, _T) and not isinstance(other, _T):
        input = _scalar_input(input)
    _check_other("sub", other)
    if _has_bool(input) or _has_bool(other):
        _sub_bool_error(input, other)
    a, b, rt = promote(input, other)
    if alpha is not _ONE or rt.is_complex:
        b = _scaled(b, rt, alpha)
    if rt is D.bfloat16:   # no bfloat16 Sub kernel; Add has one
        return ops.add(a, ops.neg(b))
    return ops.sub(a, b)


@register("rsub", family=F, namespace="torch")
def rsub(input, other, *, alpha=1):
    if _has_bool(input) or _has_bool(other):
        _sub_bool_error(input, other)
    a, b, rt = promote(input, other)
    if alpha is not _ONE or rt.is_complex:
        a = _scaled(a, rt, alpha)
    return ops.sub(b, a)


@register("mul", family=F, inplace="mul_", out=True, aliases=("multiply",), bf16=False)
def mul(input, other):
    if isinstance(input, _T) and isinstance(other, _T):
        if input.dtype is other.dtype and input.dtype not in _COMPLEX:
            return ops.mul(input, other)   # MindSpore's Mul on bool is logical and, as torch's
    elif not isinstance(input, _T) and not isinstance(other, _T):
        input = _scalar_input(input)
    _check_other("mul", other)
    a, b, rt = promote(input, other)
    if rt.is_complex:
        return _complex_mul(a, b)
    if rt is D.bfloat16 or rt is D.float16:
        if isinstance(input, _NUMBER):     # (number * tensor: torch's kernel sees the tensor first)
            input, other, a, b = other, input, b, a
        if _scalar_needs_grad(other, input, rt):
            return _half_scalar_op(_HalfScalarMul, a, other)
        s = _opmath_scalar(other, input, rt)
        if s is not None:
            return cast(ops.mul(cast(a, _f32), s), rt._ms)
    return ops.mul(a, b)


def _opmath_scalar(other, input, rt):
    """torch's CPU kernels (mul, div) of a half-precision result by a scalar second operand (a number, or a
    tensor with one element, broadcast to all) take the scalar at its own value in float32 and round the
    result once: bfloat16 x * 0.1 is x * 0.1f, not x * bfloat16(0.1) = x * 0.10009765625. That float32
    scalar, or None for other operands."""
    if not isinstance(input, _T):
        return None
    if isinstance(other, _NUMBER):
        return scalar_tensor(float(other), D.float32)
    if isinstance(other, _T) and other.size == 1 and other.dtype not in _COMPLEX:
        return other if other.dtype is _f32 else cast(other, _f32)
    return None


def _scalar_needs_grad(other, input, rt):
    """Whether ``other`` is a 0-d scalar of another dtype than the half result ``rt`` that requires grad
    (beside a tensor ``input``): its gradient is torch's, computed in the half type (_HalfScalarMul/Div)."""
    return isinstance(input, _T) and isinstance(other, _T) and other.ndim == 0 and other.dtype not in _COMPLEX \
        and other.dtype is not rt._ms and P.requires_grad(other) and P.grad_enabled()


def _half_scalar_op(node, a, other):
    out = node.apply(a, other)
    P.set_function_of_output(out, node)
    return out


class _HalfScalarMul(P.FunctionBase):
    """A half-precision tensor ``a`` times a 0-d scalar tensor of another dtype that requires grad: the value
    as _opmath_scalar's (the scalar at its float32 value, one rounding), the gradients as torch's backward
    computes them in the result's half type, each op rounded: grad * other for ``a``; for the scalar,
    grad * a, summed (float32 accumulation, rounded to the half type) and cast to the scalar's dtype. The
    backward is made of mul/div themselves, so a recording pass (create_graph) records torch's graph."""

    @staticmethod
    def forward(node, a, other):
        node.save_for_backward(a, other)
        return cast(ops.mul(cast(a, _f32), cast(other, _f32)), a.dtype)

    @staticmethod
    def _grads(a, other, g):
        return mul(g, other), mul(g, a)

    @classmethod
    def backward(cls, node, g):
        # in ops a recording pass records (create_graph: the nodes are in _higher_order._OWN_FUNCTIONS)
        a, other = node.saved_tensors
        ga, terms = cls._grads(a, other, g)
        go = cast(cast(ops.sum(cast(terms, _f32)), a.dtype), other.dtype)
        return (ga if P.requires_grad(a) else None), go


class _HalfScalarDiv(_HalfScalarMul):
    """``a`` / a 0-d scalar tensor, as _HalfScalarMul: grad / other for ``a``, -grad * ((a / other) / other)
    for the scalar, each quotient rounded to the half type."""

    @staticmethod
    def forward(node, a, other):
        node.save_for_backward(a, other)
        return cast(div(cast(a, _f32), cast(other, _f32)), a.dtype)

    @staticmethod
    def _grads(a, other, g):
        return div(g, other), ops.neg(mul(g, div(div(a, other), other)))


_HalfScalarMul = type("MulBackward0", (_HalfScalarMul,), {})   # torch's node names, kept by grad_fn
_HalfScalarDiv = type("DivBackward0", (_HalfScalarDiv,), {})


def _complex_mul(x, y):
    # torch's complex product is the plain formula (ac - bd) + (ad + bc)i, so an infinite part meeting a
    # zero gives NaN; MindSpore's complex Mul recovers infinities (C99 Annex G) and has no gradient
    a, b, c, d = ops.real(x), ops.imag(x), ops.real(y), ops.imag(y)
    return ops.complex_of_parts(ops.sub(ops.mul(a, c), ops.mul(b, d)), ops.add(ops.mul(a, d), ops.mul(b, c)))


@register("div", family=F, inplace="div_", out=True, aliases=("divide",), bf16=False)
def div(input, other, *, rounding_mode=None):
    if isinstance(input, _T) and isinstance(other, _T):
        d = input.dtype
        if d is other.dtype and rounding_mode is None and (d is _f32 or d is _f64 or d is _f16):
            return _true_div(input, other)
    elif not isinstance(input, _T) and not isinstance(other, _T):
        input = _scalar_input(input)
    a, b, rt = promote(input, other)
    if rt is D.bfloat16 or rt is D.float16:
        if rounding_mode is None and _scalar_needs_grad(other, input, rt):
            return _half_scalar_op(_HalfScalarDiv, a, other)
        s = _opmath_scalar(other, input, rt)
        if s is not None:
            return cast(div(cast(a, _f32), s, rounding_mode=rounding_mode), rt._ms)
    if rounding_mode is None:
        if rt.is_complex:
            return _complex_div(a, b)
        a, b = _float_operands(a, b, rt, input, other)
        return _true_div(a, b)
    if rt is D.bfloat16:
        if rounding_mode == "trunc":   # torch truncates the quotient rounded to bfloat16 (1.5 / 0.30078125 is 5)
            q = cast(cast(_true_div(cast(a, _f32), cast(b, _f32)), _bf16), _f32)
            return _no_grad_result(cast(ops.trunc(q), _bf16), a, b)
        return cast(div(cast(a, _f32), cast(b, _f32), rounding_mode=rounding_mode), _bf16)
    if rounding_mode == "trunc":
        if rt._cat < D._FLOAT:
            if rt is D.bool_:
                _not_impl("div_trunc_cpu", a)
            _check_int_divisor(b)
            return _int_division(a, b, _np_trunc_divide, ops.truncate_div)
        return _no_grad_result(ops.trunc(_true_div(a, b)), a, b)
    if rounding_mode == "floor":
        if rt._cat < D._FLOAT:
            if rt is D.bool_:
                _not_impl("div_floor_cpu", a)
            _check_int_divisor(b)
            return _int_division(a, b, np.floor_divide, ops.floor_div)
        return _no_grad_result(_floor_divide_float(a, b), a, b)
    raise RuntimeError(
        f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'")


def _complex_div(x, y):
    """torch's CPU complex division (c10::complex's: Smith's scaling by the larger part of y, and a
    part-wise division by 0 for y == 0), in real ops: MindSpore's complex Div gives other values at
    infinities and past overflow, and a wrong gradient. (torch's vectorised chunks of 8+ elements scale
    differently, which shows at infinities and overflow only.)"""
    a, b, c, d = ops.real(x), ops.imag(x), ops.real(y), ops.imag(y)
    t = dtype_of(a)
    one, zero = scalar_tensor(1, t), scalar_tensor(0, t)
    abs_c, abs_d = ops.abs(c), ops.abs(d)
    by_zero = ops.logical_and(ops.equal(abs_c, zero), ops.equal(abs_d, zero))
    first = ops.logical_and(ops.greater_equal(abs_c, abs_d), ops.logical_not(by_zero))
    second = ops.logical_and(ops.logical_not(first), ops.logical_not(by_zero))
    # each branch divides by its own safe stand-in elsewhere, so the branches not taken stay finite and
    # pass no NaN to the gradient
    c1 = ops.where(first, c, one)
    rat1 = ops.div(d, c1)
    scl1 = ops.reciprocal(ops.add(c1, ops.mul(d, rat1)))
    re1 = ops.mul(ops.add(a, ops.mul(b, rat1)), scl1)
    im1 = ops.mul(ops.sub(b, ops.mul(a, rat1)), scl1)
    d2 = ops.where(second, d, one)
    rat2 = ops.div(c, d2)
    scl2 = ops.reciprocal(ops.add(d2, ops.mul(c, rat2)))
    re2 = ops.mul(ops.add(ops.mul(a, rat2), b), scl2)
    im2 = ops.mul(ops.sub(ops.mul(b, rat2), a), scl2)
    # by zero: a / +0 and b / +0, IEEE's (a times an infinity: +-inf, NaN for 0 and NaN)
    inf = ops.where(by_zero, scalar_tensor(math.inf, t), zero)
    re = ops.where(by_zero, ops.mul(a, inf), ops.where(first, re1, re2))
    im = ops.where(by_zero, ops.mul(b, inf), ops.where(first, im1, im2))
    return ops.complex_of_parts(re, im)


def _true_div_kernel(a, b):
    return _REALDIV(a, b) if a.dtype in _REALDIV_TYPES else ops.div(a, b)


def _true_div_host(a, b):
    """a / b for floats. MindSpore's CPU Div/RealDiv give x / 0 the sign of x alone (1 / -0.0 is +inf)
    and NaN / 0 -inf; torch follows IEEE. Where b has a zero (looked up on the host, zero-copy on CPU)
    the result there is a times an infinity of b's sign (read on the host too: MindSpore's CopySign
    drops the sign of -0.0): IEEE's value, NaN for 0 and NaN."""
    y = read_host(cast(b, _f32) if b.dtype is _bf16 else b)
    if y.all():
        return _REALDIV(a, b) if a.dtype in _REALDIV_TYPES else ops.div(a, b)
    if P.grad_enabled() and (P.requires_grad(a) or P.requires_grad(b)):
        out = _DivByZero.apply(a, b)
        P.set_function_of_output(out, _DivByZero)
        return out
    return _true_div_zeros(a, b, y)


def _true_div_zeros(a, b, y):
    if a.dtype is _bf16:   # no bfloat16 Equal/Select kernels: exact through float32
        return cast(_true_div_zeros(cast(a, _f32), cast(b, _f32), y), _bf16)
    with np.errstate(all="ignore"):
        signed_inf = _host_result(np.where(y == 0, np.copysign(np.float32(np.inf), y), 1).astype(y.dtype), b)
    zero = ops.equal(b, scalar_tensor(0, dtype_of(b)))
    q = ops.div(a, ops.where(zero, scalar_tensor(1, dtype_of(b)), b))
    # (a 0-d divisor's host array comes back 1-d: b's own shape again)
    return ops.where(zero, ops.mul(a, signed_inf.reshape(b.shape)), q)


class _DivByZero(P.FunctionBase):
    """a / b where b has zeros, with torch's gradients there too: grad / b for a and -grad * ((a / b) / b)
    for b, both IEEE's infinities or NaN at the zeros (a quotient composed with where() would give b's
    zeros a zero gradient)."""

    @staticmethod
    def forward(node, a, b):
        y = read_host(cast(b, _f32) if b.dtype is _bf16 else b)
        node.save_for_backward(a, b)
        return _true_div_zeros(a, b, y)

    @staticmethod
    def backward(node, g):
        # in ops a recording pass records (create_graph: the node is in _higher_order._OWN_FUNCTIONS)
        a, b = node.saved_tensors
        ga = _sum_to(_true_div_host(g, b), a.shape) if P.requires_grad(a) else None
        gb = _sum_to(ops.neg(ops.mul(g, _true_div_host(_true_div_host(a, b), b))), b.shape) \
            if P.requires_grad(b) else None
        return ga, gb


_DivByZero = type("DivBackward0", (_DivByZero,), {})   # torch's node name, kept by grad_fn



# the device path: the device's Div follows IEEE for a zero divisor; only MindSpore's CPU kernel needs the look
_true_div = _true_div_host if kernels.HOST_WORKAROUNDS else _true_div_kernel


# --- fmod, remainder, floor division of floats ---------------------------------------------------
# MindSpore's CPU kernels compute them as a - trunc(a / b) * b (FMod, float64 FloorMod) or lose the
# remainder of large quotients (float32 FloorMod: 3e38 % 3 gives 0, torch 2), give NaN for an infinite
# divisor (torch: fmod(x, inf) = x) and drop the sign of zero. On CPU they run on the host with the
# C library's exact fmod and torch's formulas around it (ATen's div_floor / remainder kernels); half
# types in float32, as torch's CPU does. Gradients: fmod/remainder pass g to a and -g * trunc/floor(a / b)
# to b, as torch's derivatives; floor division has none.

def _on_host(a):
    # complex operands keep the device path, whose kernels refuse them as torch does
    return kernels.HOST_WORKAROUNDS and a.dtype not in (ms.complex64, ms.complex128)


def _host_operands(a, b):
    x, y = read_host(a), read_host(b)
    if a.dtype is _f16 or a.dtype is _bf16:
        x, y = x.astype(np.float32), y.astype(np.float32)
    return x, y


def _host_result(v, like):
    # np.ascontiguousarray makes a 0-d result 1-d: keep its shape
    return cast(ms.Tensor(np.ascontiguousarray(v).reshape(np.shape(v))), like.dtype)


def _np_fmod(x, y):
    return np.fmod(x, y)


def _np_trunc_divide(x, y):
    return (x - np.fmod(x, y)) // y   # (x - fmod is a multiple of y: exact)


def _int_division(a, b, np_fn, kernel):
    """Integer fmod / remainder / floor and trunc division, exact on the host: MindSpore's CPU kernels
    go through floating point (int32 fmod(2**31 - 1, 3) gave -65, int64 ones lose digits past 2**53).
    numpy's integer semantics are C's and Python's, as torch's; INT_MIN // -1 wraps as torch's."""
    if not _on_host(a):
        return kernel(a, b)
    with np.errstate(all="ignore"):
        return _host_result(np_fn(read_host(a), read_host(b)), a)


def _np_remainder(x, y):
    m = np.fmod(x, y)
    return np.where((m != 0) & ((y < 0) != (m < 0)), m + y, m)


def _np_floor_divide(x, y):
    m = np.fmod(x, y)
    d = (x - m) / y
    d = np.where((m != 0) & ((y < 0) != (m < 0)), d - 1, d)
    f = np.floor(d)
    f = np.where(d - f > 0.5, f + 1, f)
    f = np.where(d == 0, np.copysign(np.zeros_like(d), x / y), f)
    return np.where(y == 0, x / y, f)


def _sum_to(g, shape):
    """A broadcast gradient summed back to an operand's shape."""
    shape = tuple(shape)
    if tuple(g.shape) == shape:
        return g
    lead = g.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(lead + k for k, s in enumerate(shape) if s == 1 and g.shape[lead + k] != 1)
    if not dims:
        return g.reshape(shape)
    if g.dtype is _bf16:   # (no bfloat16 ReduceSum kernel: torch accumulates in float32 too)
        return cast(ops.sum(cast(g, _f32), dims, True), _bf16).reshape(shape)
    return ops.sum(g, dims, True).reshape(shape)


class _HostRemainder(P.FunctionBase):
    """fmod / remainder with their exact host value and torch's gradients."""

    @staticmethod
    def forward(node, a, b, np_fn, round_fn):
        node.round_fn = round_fn
        node.save_for_backward(a, b)
        x, y = _host_operands(a, b)
        with np.errstate(all="ignore"):
            return _host_result(np_fn(x, y), a)

    @staticmethod
    def backward(node, g):
        a, b = node.saved_tensors
        q = node.round_fn(a, b)
        return _sum_to(g, a.shape), _sum_to(ops.neg(ops.mul(g, q)), b.shape), None, None


# named as torch's nodes; the name stays on the output for grad_fn after backward frees the node
_HOST_REMAINDER_NODES = {f: type(name, (_HostRemainder,), {})
                         for f, name in ((_np_fmod, "FmodBackward0"), (_np_remainder, "RemainderBackward0"))}


def _host_remainder(a, b, np_fn, round_fn):
    if P.grad_enabled() and (P.requires_grad(a) or P.requires_grad(b)):
        cls = _HOST_REMAINDER_NODES[np_fn]
        out = cls.apply(a, b, np_fn, round_fn)
        P.set_function_of_output(out, cls)
        return out
    x, y = _host_operands(a, b)
    with np.errstate(all="ignore"):
        return _host_result(np_fn(x, y), a)


def _trunc_divide(a, b):
    return ops.trunc(_true_div(a, b))


def _floor_divide_float(a, b):
    if _on_host(a):
        x, y = _host_operands(a, b)
        with np.errstate(all="ignore"):
            return _host_result(_np_floor_divide(x, y), a)
    return _floor_divide_device(a, b)


def _floor_divide_device(a, b):
    # torch's div_floor for floats (Python's float //): built on fmod, so 1.0 // 0.1 is 9.0, not 10.0
    mod = _fmod_float(a, b)
    q = ops.div(ops.sub(a, mod), b)
    zero = scalar_tensor(0, dtype_of(q))
    fix = ops.logical_and(ops.not_equal(mod, zero), ops.not_equal(ops.less(b, zero), ops.less(mod, zero)))
    q = ops.where(fix, ops.sub(q, scalar_tensor(1, dtype_of(q))), q)
    fl = ops.floor(q)
    fl = ops.where(ops.greater(ops.sub(q, fl), scalar_tensor(0.5, dtype_of(q))),
                   ops.add(fl, scalar_tensor(1, dtype_of(q))), fl)
    true_q = ops.div(a, b)
    fl = ops.where(ops.equal(q, zero), ops.copysign(ops.zeros_like(q), true_q), fl)
    return ops.where(ops.equal(b, zero), true_q, fl)


@register("true_divide", family=F, inplace="true_divide_", out=True)
def true_divide(input, other):
    return div(input, other)


def _floor_divide_backward(saved, grad):
    raise RuntimeError("derivative for aten::floor_divide is not implemented")


# torch's floor_divide has no derivative (div(rounding_mode="floor") has a zero one): backward through it raises
_floor_divide_node = _node("FloorDivideBackward0", lambda r: (ops.add(r, ops.zeros_like(r)), ()),
                           _floor_divide_backward)


@register("floor_divide", family=F, inplace="floor_divide_", out=True)
def floor_divide(input, other):
    r = div(input, other, rounding_mode="floor")
    return _floor_divide_node(r) if P.requires_grad(r) else r


@register("remainder", family=F, inplace="remainder_", out=True, out_requires="tensor_self")
def remainder(input, other):
    if not isinstance(input, _T) and not isinstance(other, _T):
        _need_tensor("remainder", input, 1, "input")
    a, b, rt = promote(input, other)
    if rt._cat < D._FLOAT:
        if rt is D.bool_:
            _not_impl("remainder_cpu", a)
        _check_int_divisor(b)
        return _int_division(a, b, np.remainder, ops.floor_mod)
    if not isinstance(input, _T) and P.grad_enabled() and P.requires_grad(other):
        # torch's remainder(Scalar, Tensor) has no derivative: backward through it raises
        return _remainder_scalar_node(_floor_mod(a, ops.stop_gradient(b)), other)
    return _floor_mod(a, b)


def _remainder_scalar_backward(saved, grad):
    raise RuntimeError("derivative for aten::remainder is not implemented")


_remainder_scalar_node = _node("NotImplemented", lambda r, b: (ops.add(r, ops.zeros_like(r)), ()),
                               _remainder_scalar_backward)


def _floor_mod(a, b):
    if _on_host(a):
        return _host_remainder(a, b, _np_remainder, _floor_divide_float)   # torch: -g * a.div(b, 'floor')
    # FloorMod is exact in float32 but not in half precision: go through float32 (exact there too)
    if a.dtype is _f16 or a.dtype is _bf16:
        return cast(ops.floor_mod(cast(a, _f32), cast(b, _f32)), a.dtype)
    return ops.floor_mod(a, b)


@register("fmod", family=F, inplace="fmod_", out=True, out_requires="tensor_self")
def fmod(input, other):
    _need_input("fmod", input, other)
    a, b, rt = promote(input, other)
    if rt._cat < D._FLOAT:
        if rt is D.bool_:
            _not_impl("fmod_cpu", a)
        _check_int_divisor(b)
        return _int_division(a, b, np.fmod, ops.fmod)
    return _fmod_float(a, b)


def _fmod_float(a, b):
    if _on_host(a):
        return _host_remainder(a, b, _np_fmod, _trunc_divide)   # torch: -g * a.div(b, 'trunc')
    # MindSpore's float32 FMod is a - trunc(a/b)*b in float32 (errors up to 5% of b); its FloorMod is
    # exact. fmod is the floor remainder moved by b where the signs of a and b differ.
    if a.dtype is _f64:
        return ops.fmod(a, b)
    if a.dtype is _f16 or a.dtype is _bf16:   # the floor remainder need not fit in half precision
        return cast(_fmod_float(cast(a, _f32), cast(b, _f32)), a.dtype)
    r = ops.floor_mod(a, b)
    zero = scalar_tensor(0, dtype_of(a))
    fix = ops.logical_and(ops.not_equal(r, zero), ops.not_equal(ops.less(a, zero), ops.less(b, zero)))
    return ops.where(fix, ops.sub(r, b), r)


@register("pow", family=F, inplace="pow_", out=True)
def pow(input, exponent):
    if isinstance(input, _T) and isinstance(exponent, _NUMBER) and not isinstance(exponent, bool):
        rt = result_type(input, exponent)
        base = input if input.dtype is rt._ms else cast(input, rt._ms)
        if exponent == 2:
            return ops.square(base)
        if rt.is_complex and exponent in (3, -2):
            # torch multiplies these out: plain complex products (NaN where an infinite part meets a
            # zero: (inf - 2.8j) ** 3 is nan - inf j), and 1 / z^2 by its complex division
            sq = _complex_mul(base, base)
            return _complex_mul(sq, base) if exponent == 3 else _complex_div(ops.ones_like(sq), sq)
        if rt.is_complex and exponent in (0.5, -0.5):
            # torch takes these as sqrt and 1 / sqrt (its complex division): the branch cut and the
            # infinities follow csqrt (inf ** 0.5 with any finite imaginary part is inf + 0j), not exp(log)
            root = ops.sqrt(base)
            return root if exponent > 0 else _complex_div(ops.ones_like(root), root)
        if exponent == 0 and rt._cat >= D._FLOAT:
            # 1 everywhere with a zero gradient (MindSpore's PowGrad gives 0 * 0^-1 = NaN at 0)
            return _no_grad_result(ops.ones_like(base), base)
        if rt in (D.float32, D.float64) and exponent in (0.5, -0.5):
            # torch computes these as sqrt / rsqrt: -inf ** 0.5 is NaN there (IEEE pow gives inf). Half
            # precision keeps pow, whose gradient rounds as torch's does.
            return ops.sqrt(base) if exponent > 0 else ops.rsqrt(base)
        if rt._cat < D._FLOAT and exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        if rt._cat < D._FLOAT and rt is not D.bool_:
            return _wrapping_pow(base, exponent)
        return ops.pow(base, to_operand(exponent, rt))
    if not isinstance(input, _T) and not isinstance(exponent, _T):
        raise invalid_args("pow", (input, exponent), signatures=(
            "Tensor input, Tensor exponent, *, Tensor out = None", "Number self, Tensor exponent, *, Tensor out = None",
            "Tensor input, Number exponent, *, Tensor out = None"))
    a, b, rt = promote(input, exponent)
    if rt is D.bool_:
        _not_impl("pow", a)
    if rt._cat < D._FLOAT and isinstance(exponent, _T):
        return _int_pow(a, b)
    if rt._cat == D._FLOAT and P.grad_enabled() and (P.requires_grad(a) or P.requires_grad(b)):
        return _pow_node(a, b)
    return ops.pow(a, b)


def _pow_backward(saved, g):
    # torch's: g * e * a^(e - 1) for a, 0 where e == 0; g * a^e * log(a) for e, 0 where a == 0 and e >= 0
    # (MindSpore's PowGrad gives 0 * inf = NaN there); in recorded ops (create_graph: _OWN_FUNCTIONS)
    a, e = saved
    zero = ops.zeros_like(g)
    ga = ops.where(ops.equal(e, ops.zeros_like(e)), zero,
                   ops.mul(ops.mul(g, e), ops.pow(a, ops.sub(e, ops.ones_like(e)))))
    at_zero = ops.logical_and(ops.equal(a, ops.zeros_like(a)), ops.greater_equal(e, ops.zeros_like(e)))
    ge = ops.where(at_zero, zero, ops.mul(g, ops.mul(ops.pow(a, e), ops.log(a))))
    return _sum_to(ga, a.shape), _sum_to(ge, e.shape)


_pow_node = _node("PowBackward1", lambda a, e: (ops.pow(a, e), (a, e)), _pow_backward)


def _wrapping_pow(a, e):
    """Integer a ** e (e >= 0, a tensor or an int) by repeated squaring: MindSpore's integer Pow goes
    through double and saturates; torch multiplies in the integer type, wrapping around on overflow."""
    if isinstance(e, int):
        r, top = ops.ones_like(a), e
    else:
        shape = broadcast_shape((a.shape, e.shape))
        a, e = ops.broadcast_to(a, shape), ops.broadcast_to(e, shape)
        r, top = ops.ones_like(a), int(read_host(e).max()) if e.size else 0
    while top:
        odd = top & 1 if isinstance(e, int) else ops.equal(ops.bitwise_and(e, ops.ones_like(e)), ops.ones_like(e))
        if isinstance(e, int):
            r = ops.mul(r, a) if odd else r
        else:
            r = ops.where(odd, ops.mul(r, a), r)
            e = ops.bitwise_right_shift(e, ops.ones_like(e))   # (FloorDiv goes through double)
        top >>= 1
        if top:
            a = ops.mul(a, a)
    return r


def _int_pow(a, b):
    # torch: a ** negative integer is 1 for a == 1, +-1 for a == -1, else 0 (MindSpore gives 0 for all)
    r = _wrapping_pow(a, ops.maximum(b, scalar_tensor(0, dtype_of(b))))
    neg = ops.less(b, scalar_tensor(0, dtype_of(b)))
    one = scalar_tensor(1, dtype_of(a))
    special = ops.where(ops.equal(a, one), one,
                        ops.where(ops.equal(a, ops.neg(one)),
                                  ops.sub(one, ops.mul(ops.bitwise_and(b, one), scalar_tensor(2, dtype_of(a)))),
                                  ops.zeros_like(r)))
    return ops.where(neg, special, r)


@register("float_power", family=F, out="exact")
def float_power(input, exponent):
    if not isinstance(input, _T) and not isinstance(exponent, _T):
        _need_tensor("float_power", input, 1, "input")
    cplx = any(isinstance(x, complex) or isinstance(x, _T) and dtype_of(x).is_complex for x in (input, exponent))
    rt = D.complex128 if cplx else D.float64
    if isinstance(input, _T) and isinstance(exponent, (int, float)) and not isinstance(exponent, bool):
        return pow(to_operand(input, rt), exponent)   # torch's pow, with its special exponents
    return ops.pow(to_operand(input, rt), to_operand(exponent, rt))


@register("float_power_", family=F, namespace="Tensor", raw=True)
def float_power_(self, exponent):
    want = D.complex128 if self.dtype.is_complex or isinstance(exponent, complex) else D.float64
    if self.dtype is not want:
        raise RuntimeError(f"the base given to float_power_ has dtype {scalar_type_name(self.dtype)} but the "
                           f"operation's result requires dtype {scalar_type_name(want)}")
    e = exponent._ms if isinstance(exponent, Tensor) else exponent
    return self._write(float_power(self._ms, e))


@register("neg", family=F, inplace="neg_", out="exact", aliases=("negative",))
def neg(input):
    if input.dtype is _bool:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert "
            "a mask, use the `~` or `logical_not()` operator instead.")
    return ops.neg(input)


@register("positive", family=F, raw=True)
def positive(input):
    if input.dtype is D.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


@register("abs", family=F, inplace="abs_", out="exact", aliases=("absolute",))
def abs(input):
    if input.dtype is _bool:
        _not_impl("abs_cpu", input)
    if input.dtype is ms.complex64:   # the magnitude, a float (via double: ComplexAbs is not hypot)
        return _complex_magnitude(input.astype(ms.complex128)).astype(ms.float32)
    if input.dtype is ms.complex128:
        return _complex_magnitude(input)
    return ops.abs(input)


_complex_abs = ops.ComplexAbs()


def _complex_magnitude(z):
    # MindSpore's ComplexAbs backward is not recorded for double backward: torch's g * sgn(z) in recorded ops
    return own_backward(_complex_abs(z), _complex_abs_backward, z)


def _complex_abs_backward(node, grad_outputs, z):
    (g,) = grad_outputs
    if g is None:
        return (None,)
    mag = _complex_abs(z)
    zero = ops.equal(mag, 0)        # sgn(0) = 0, and (as torch's) so is its derivative there
    scale = ops.where(zero, ops.zeros_like(mag), ops.div(g, ops.where(zero, ops.ones_like(mag), mag)))
    return (ops.complex_of_parts(ops.mul(scale, ops.real(z)), ops.mul(scale, ops.imag(z))),)


@register("sign", family=F, inplace="sign_", out="exact")
def sign(input):
    d = input.dtype
    if d is _bool:
        return fresh(input)
    if d is ms.uint8:
        return ops.minimum(input, scalar_tensor(1, D.uint8))
    if d is ms.int8 or d is ms.int16:   # no CPU Sign kernel for these
        one = scalar_tensor(1, dtype_of(input))
        return ops.maximum(ops.minimum(input, one), ops.neg(one))
    return _zero_grad(ops.sign(input), input)


@register("sgn", family=F, inplace="sgn_", out="exact")
def sgn(input):
    if dtype_of(input).is_complex:
        mag = ops.abs(input)
        return ops.where(ops.equal(mag, 0), ops.zeros_like(input), ops.div(input, cast(mag, input.dtype)))
    return sign(input)


@register("signbit", family=F, out="exact")
def signbit(input):
    d = dtype_of(input)
    if d._cat >= D._FLOAT:   # MindSpore's SignBit misses -0.0; 1/-0.0 is -inf
        zero = scalar_tensor(0, d)
        return ops.logical_or(ops.less(input, zero), ops.less(ops.reciprocal(input), zero))
    if d.is_signed:
        return ops.less(input, scalar_tensor(0, d))
    return ops.zeros(input.shape, _bool)


@register("reciprocal", family=F, inplace="reciprocal_", out=True)
def reciprocal(input):
    return ops.reciprocal(float_result(input))


@register("square", family=F, inplace="square_", out=True)
def square(input):
    if input.dtype is _bool:
        return cast(input, ms.int64)
    return ops.square(input)






@register("lerp", family=F, inplace="lerp_", out=True)
def lerp(input, end, weight):
    _need_tensor("lerp", end, 2, "end")
    d = dtype_of(input)
    if end.dtype is not input.dtype:
        raise RuntimeError(f"expected dtype {_c_name(d)} for `end` but got dtype {_c_name(dtype_of(end))}")
    if isinstance(weight, _T) and weight.dtype is not input.dtype:
        raise RuntimeError(f"expected dtype {_c_name(d)} for `weight` but got dtype {_c_name(dtype_of(weight))}")
    if d._cat < D._FLOAT:
        # (torch's TensorIterator broadcasts the operands before it looks for the dtype's kernel)
        broadcast_shape((input.shape, end.shape) + ((weight.shape,) if isinstance(weight, _T) else ()))
        _not_impl("lerp_kernel_tensor" if isinstance(weight, _T) else "lerp_kernel_scalar", input)
    if d in (D.float16, D.bfloat16):   # torch computes half types in float32, rounding once
        w = cast(weight, ms.float32) if isinstance(weight, _T) else weight
        return cast(lerp(cast(input, ms.float32), cast(end, ms.float32), w), d._ms)
    diff = ops.sub(end, input)
    # torch's formula: exact at both ends (weight 0 gives input, weight 1 gives end)
    if not isinstance(weight, _T):
        w = scalar_tensor(weight, d)
        if builtins.abs(weight) < 0.5:
            return ops.add(input, ops.mul(w, diff))
        return ops.sub(end, ops.mul(diff, scalar_tensor(1 - weight, d)))
    if d.is_complex and P.grad_enabled() and (P.requires_grad(input) or P.requires_grad(end) or
                                              P.requires_grad(weight)):
        # (MindSpore's Mul has no complex gradient): torch's, g * conj(1 - w), g * conj(w), g * conj(end - input)
        return _complex_lerp_node(input, end, weight)
    return _lerp_tensor_weight(input, end, weight, d, diff)


def _lerp_tensor_weight(input, end, weight, d, diff):
    # each branch sees the weight only where it is taken (elsewhere a constant): the weight's gradient,
    # g * diff, then comes from one branch, with no 0 * inf = NaN from the other where diff is infinite
    if d.is_complex:   # (MindSpore's Abs of a complex tensor is complex: compared by its real part)
        small = ops.less(ops.real(ops.abs(weight)), scalar_tensor(0.5, d.to_real()))
    else:
        small = ops.less(ops.abs(weight), scalar_tensor(0.5, d))
    one = scalar_tensor(1, d)
    mul = _complex_mul if d.is_complex else ops.mul   # (torch's plain complex product)
    lo = ops.add(input, mul(ops.where(small, weight, scalar_tensor(0, d)), diff))
    hi = ops.sub(end, mul(diff, ops.sub(one, ops.where(small, one, weight))))
    return ops.where(small, lo, hi)


def _complex_lerp_backward(saved, g):
    a, b, w = saved
    one = ops.ones_like(w)
    return (_sum_to(ops.mul(g, ops.conj(ops.sub(one, w))), a.shape), _sum_to(ops.mul(g, ops.conj(w)), b.shape),
            _sum_to(ops.mul(g, ops.conj(ops.sub(b, a))), w.shape))


_complex_lerp_node = _node(
    "LerpBackward1", lambda a, b, w: (_lerp_tensor_weight(a, b, w, dtype_of(a), ops.sub(b, a)), (a, b, w)),
    _complex_lerp_backward)


def _c_name(d):
    return {D.float32: "float", D.float64: "double", D.float16: "c10::Half", D.bfloat16: "c10::BFloat16",
            D.int64: "long int", D.int32: "int", D.int16: "short int", D.int8: "signed char",
            D.uint8: "unsigned char", D.bool_: "bool"}.get(d, str(d))


@register("addcmul", family=F, inplace="addcmul_", out=True)
def addcmul(input, tensor1, tensor2, *, value=1):
    rt = result_type(input, tensor1, tensor2)
    return _pointwise3(input, tensor1, tensor2, value, rt, ops.mul)


@register("addcdiv", family=F, inplace="addcdiv_", out=True)
def addcdiv(input, tensor1, tensor2, *, value=1):
    if dtype_of(tensor1)._cat < D._FLOAT and dtype_of(tensor2)._cat < D._FLOAT:
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will "
            "perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be "
            "implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer "
            "inputs and as (input + value * tensor1 / tensor2) for float inputs. The future addcdiv "
            "behavior is just the latter implementation: (input + value * tensor1 / tensor2), for all "
            "dtypes.")
    rt = result_type(input, tensor1, tensor2)
    if isinstance(tensor2, _T) and dtype_of(tensor2)._cat < D._FLOAT and P.grad_enabled() and \
            isinstance(tensor1, _T) and P.requires_grad(tensor1):
        # torch's derivative for tensor1 forms value / tensor2 in tensor2's dtype (fill_, then div_): an
        # integer or bool tensor2 cannot hold the quotient, so backward raises there. The result keeps
        # input's graph; tensor1's is a term of value -0.0 (which leaves every value as it is), so that a
        # gradient of input alone does not run the raising node, as torch's engine does not
        d2 = dtype_of(tensor2)
        node = _ADDCDIV_INT_NODES.get(d2)
        if node is None:
            def bwd(saved, grad):
                raise RuntimeError(f"result type {D.SCALAR_TYPE_NAMES[D.get_default_dtype()]} can't be cast to the "
                                   f"desired output type {D.SCALAR_TYPE_NAMES[d2]}")
            node = _ADDCDIV_INT_NODES[d2] = _node("AddcdivBackward0", lambda z, x: (ops.neg(z), ()), bwd)
        r = _pointwise3(input, ops.stop_gradient(tensor1), tensor2, value, rt, _true_div)
        return _addcdiv_join(r, node(ops.stop_gradient(ops.zeros_like(r)), tensor1))
    return _pointwise3(input, tensor1, tensor2, value, rt, _true_div)   # (IEEE signs: 0.8 / -0.0 is -inf)


_ADDCDIV_INT_NODES = {}
# r + the carrier's -0.0 under torch's node name; the gradient goes on to both
_addcdiv_join = _node("AddcdivBackward0", lambda r, c: (ops.add(r, c), ()), lambda saved, g: (g, g))


def _pointwise3(input, tensor1, tensor2, value, rt, op):
    """torch's addcmul/addcdiv kernel: input + (value * tensor1) op tensor2, in that order, with half
    types computed in float32 and rounded once (so value * tensor1 * tensor2 may pass 65504 on the way).
    torch's float32 addcmul is a fused multiply-add, (value * tensor1) * tensor2 + input rounded once:
    emulated in float64, where the product of two float32 values is exact."""
    half = rt in (D.float16, D.bfloat16)
    ct = D.float32 if half else rt
    a, b, c = (to_operand(t, ct) if not half else cast(to_operand(t, rt), ms.float32)
               for t in (input, tensor1, tensor2))
    if ct.is_complex:   # (a complex product by value even when it is 1, as torch's: see _scaled_complex)
        b = _scaled_complex(b, complex(value))
        op = _complex_mul if op is ops.mul else _complex_div
    elif value != 1:
        b = ops.mul(to_operand(value, ct), b)
    if op is ops.mul and ct is D.float32:
        f64 = ms.float64
        r = cast(ops.add(ops.mul(cast(b, f64), cast(c, f64)), cast(a, f64)), ms.float32)
    else:
        r = ops.add(a, op(b, c))
    return cast(r, rt._ms) if half else r


@register("nan_to_num", family=F, inplace="nan_to_num_", out="exact", bf16=False)
def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    d = dtype_of(input)
    if d._cat < D._FLOAT:
        return fresh(input)
    if input.dtype in _COMPLEX:
        # torch replaces in the real and the imaginary part alike
        parts = (nan_to_num(part, nan, posinf, neginf) for part in (ops.real(input), ops.imag(input)))
        return ops.complex_of_parts(*parts)
    info = _finfo_max(d)
    posinf = info if posinf is None else posinf
    neginf = -info if neginf is None else neginf
    # the replacements in the input's dtype (bfloat16's max is its own: float32's rounds to inf in bfloat16);
    # bfloat16 selects in float32 (few bfloat16 kernels), rounded back exactly
    fills = [scalar_tensor(float(v), d) for v in (nan, posinf, neginf)]
    x = input
    if d is D.bfloat16:
        x, fills = cast(x, _f32), [cast(v, _f32) for v in fills]
    ct = dtype_of(x)
    # MindSpore's NanToNum has no float64 kernel; three selects work for every float type
    x = ops.where(ops.isnan(x), fills[0], x)
    x = ops.where(ops.equal(x, scalar_tensor(math.inf, ct)), fills[1], x)
    x = ops.where(ops.equal(x, scalar_tensor(-math.inf, ct)), fills[2], x)
    return cast(x, _bf16) if d is D.bfloat16 else x


def _finfo_max(d):
    return {D.float32: 3.4028234663852886e38, D.float64: 1.7976931348623157e308, D.float16: 65504.0,
            D.bfloat16: 3.3895313892515355e38}[d]
