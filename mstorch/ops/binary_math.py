"""Pointwise functions of two operands with torch's float semantics: atan2, hypot, logaddexp/logaddexp2,
nextafter, copysign, xlogy (and special.xlog1py's x_log), heaviside, ldexp, frexp, gcd/lcm, with their
gradients where MindSpore's differ. The operators and the functions of three operands are in arithmetic.py.
"""
import math

import numpy as np

import mindspore as ms
from .._runtime import read_host
from . import _msops as ops

from .. import _dtype as D
from .. import _ms_private as P
from .._tensor import Tensor
from ._helpers import promote, float_result, dtype_of, result_type, scalar_tensor, cast, records
from ._argerr import invalid_args, BINARY_SCALAR_SELF
from ._views import broadcast_shape
from ._registry import OPS
from .products import _node
from .pointwise import (F, register, _T, _bool, _f32, _bf16, _need_tensor, _not_impl,
                        _zero_grad, _float_operands, _COMPLEX, _empty_broadcast)
from .arithmetic import (_complex_div, _complex_mul, _host_result, _int_division, _need_input, _on_host, _sum_to,
                         _true_div)

_NUMBER = (bool, int, float)
_ONE = 1   # alpha's default: `alpha is _ONE` also tells True and 1.0 from 1


def _float_binary(name, kernel=None, bool_sub_node=None):
    """Binary float functions of two tensors: integer inputs compute in the default dtype, or are
    refused with torch's NotImplementedError when ``kernel`` names torch's CPU kernel. ``bool_sub_node``:
    torch's derivative subtracts the operands, which a bool operand refuses: backward raises there."""
    def deco(fn):
        def impl(input, other):
            _need_tensor(name, input, 1, "input")
            _need_tensor(name, other, 2)
            a, b, rt = promote(input, other)
            if rt._cat < D._FLOAT:
                if kernel:
                    _not_impl(kernel, a)
                a, b = _float_operands(a, b, rt, input, other)
            if bool_sub_node is not None and (input.dtype is _bool or other.dtype is _bool) and \
                    records() and (P.requires_grad(input) or P.requires_grad(other)):
                return _bool_sub_result(bool_sub_node, fn(a, b), other if P.requires_grad(other) else input)
            return fn(a, b)
        impl.__name__ = name
        return impl
    return deco


def _bool_sub_backward(saved, grad):
    raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
                       "invert a mask, use the `~` or `logical_not()` operator instead.")


def _bool_sub_result(node, r, x):
    """``r`` on ``x``'s graph through ``node``, whose backward raises; recorded also where ops/_bind.py runs the
    op unrecorded because ``x`` is empty (torch's backward raises for empty operands too)."""
    if P.grad_enabled():
        return node(ops.stop_gradient(r), x)
    P.set_grad_enabled(True)
    try:
        out = node(ops.stop_gradient(r), x)
    finally:
        P.set_grad_enabled(False)
    out._mstorch_unlinked = True
    return out


def _bool_sub_node(name):
    return _node(name, lambda r, x: (ops.add(r, ops.zeros_like(r)), ()), _bool_sub_backward)


def _atan2_backward(saved, g):
    # torch's: g * x / (x^2 + y^2) for y, -g * y / (x^2 + y^2) for x, 0 where x^2 + y^2 is 0 (MindSpore's
    # Atan2Grad gives NaN at the origin); in recorded ops (create_graph: _higher_order._OWN_FUNCTIONS).
    # torch squares each operand in its own dtype: a float16 y beside a float64 x has y^2 rounded to
    # float16, an int64 y^2 wraps around, and so does -y
    y, x = saved
    if y.dtype is _bool:   # (torch's formula negates y as it is)
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")
    d = _f32 if g.dtype is _bf16 else g.dtype   # (bfloat16 in float32: few bfloat16 kernels)
    g = cast(g, d)
    recip = ops.reciprocal(ops.add(cast(ops.mul(x, x), d), cast(ops.mul(y, y), d)))
    recip = ops.where(ops.isinf(recip), ops.zeros_like(recip), recip)
    gy = _sum_to(ops.mul(ops.mul(g, cast(x, d)), recip), y.shape)
    # (-y in y's own dtype: an int16 -32768 stays -32768, as torch's negation wraps)
    gx = _sum_to(ops.mul(ops.mul(g, cast(ops.neg(y), d)), recip), x.shape)
    return cast(gy, y.dtype), cast(gx, x.dtype)


def _atan2_value(a, b, rt):
    if rt is D.bfloat16:   # (no bfloat16 Atan2 kernel: in float32, rounded once)
        return cast(ops.atan2(cast(a, _f32), cast(b, _f32)), _bf16)
    return ops.atan2(a, b)


def _atan2_forward(y, x):
    a, b, rt = promote(y, x)
    return _atan2_value(a, b, rt), (y, x)


_atan2_node = _node("Atan2Backward0", _atan2_forward, _atan2_backward)


def _atan2(input, other):
    _need_tensor("atan2", input, 1, "input")
    _need_tensor("atan2", other, 2)
    a, b, rt = promote(input, other)
    if rt._cat < D._FLOAT:
        return ops.atan2(*_float_operands(a, b, rt, input, other))
    if P.grad_enabled() and (P.requires_grad(input) or P.requires_grad(other)):
        # (the node takes the unpromoted operands: its gradient squares them as they are)
        return _atan2_node(input, other)
    return _atan2_value(a, b, rt)


register("atan2", family=F, inplace="atan2_", out=True, aliases=("arctan2",), bf16=False)(_atan2)


@register("hypot", family=F, inplace="hypot_", out=True)
@_float_binary("hypot", "hypot_cpu")
def hypot(a, b):
    if a.dtype in _COMPLEX:   # (torch's hypot has no complex kernel; before the empty result)
        _not_impl("hypot_cpu", a)
    empty = _empty_broadcast(a, b)   # (MindSpore's Maximum refuses an empty output)
    if empty is not None:
        return empty
    if P.grad_enabled() and (P.requires_grad(a) or P.requires_grad(b)):
        return _hypot_node(a, b)
    return _hypot(a, b)


def _hypot_backward(saved, g):
    # torch's: g * a / r and g * b / r (0 beside an infinite side, NaN at the origin as torch's); the
    # composition's own chain meets 0 * inf there. In recorded ops (create_graph: _OWN_FUNCTIONS)
    a, b = saved
    r = _hypot_node(a, b) if P.grad_enabled() and (P.requires_grad(a) or P.requires_grad(b)) else _hypot(a, b)
    return _sum_to(ops.div(ops.mul(g, a), r), a.shape), _sum_to(ops.div(ops.mul(g, b), r), b.shape)


_hypot_node = _node("HypotBackward0", lambda a, b: (_hypot(a, b), (a, b)), _hypot_backward)


def _hypot(a, b):
    d = dtype_of(a)
    plain = ops.sqrt(ops.add(ops.square(a), ops.square(b)))
    # where the squares overflow (|x| > ~1.8e19 in float32) or underflow, torch's hypot scales by the
    # larger magnitude first; the scale is a constant to autograd, so the gradient stays a / r
    m = ops.maximum(ops.abs(a), ops.abs(b))
    finite = ops.logical_and(ops.isfinite(a), ops.isfinite(b))
    tiny = scalar_tensor(math.sqrt(float(np.finfo(np.float32 if d.itemsize <= 4 else np.float64).tiny)), d)
    rescale = ops.logical_and(finite, ops.logical_or(ops.isinf(plain), ops.logical_and(
        ops.less(plain, tiny), ops.greater(m, scalar_tensor(0, d)))))
    scale = ops.stop_gradient(ops.where(rescale, m, ops.ones_like(m)))
    r = ops.mul(scale, ops.sqrt(ops.add(ops.square(ops.div(a, scale)), ops.square(ops.div(b, scale)))))
    # an infinite side gives inf, also beside a NaN (C's hypot)
    return ops.where(ops.logical_or(ops.isinf(a), ops.isinf(b)), ops.full_like(r, math.inf), r)


_log1p_unit = ops.log1p_unit


@register("logaddexp", family=F, out=True)
@_float_binary("logaddexp", "logaddexp_cpu", _bool_sub_node("LogaddexpBackward0"))
def logaddexp(a, b):
    empty = _empty_broadcast(a, b)
    if empty is not None:
        return empty
    if a.dtype in _COMPLEX:
        if P.grad_enabled() and (P.requires_grad(a) or P.requires_grad(b)):
            return _complex_logaddexp_node(a, b)
        return _complex_logaddexp(a, b)
    r = ops.add(ops.maximum(a, b), _log1p_unit(ops.exp(ops.neg(ops.abs(ops.sub(a, b))))))
    return _equal_infinities(a, b, r)


def _complex_logaddexp(a, b):
    """torch's complex logaddexp (MindSpore has no kernel): log1p(exp(lo - hi)) + hi with lo, hi the
    operands ordered by real part (b is lo on ties and beside a NaN); NaN + NaNj where lo has a NaN part, lo itself
    where both real parts are -inf, log(exp(lo) + exp(hi)) where both are +inf."""
    shape = broadcast_shape((a.shape, b.shape))
    a, b = ops.broadcast_to(a, shape), ops.broadcast_to(b, shape)
    swap = ops.logical_not(ops.less(ops.real(a), ops.real(b)))
    lo, hi = ops.where(swap, b, a), ops.where(swap, a, b)
    exp, log, log1p = OPS["exp"].impl, OPS["log"].impl, OPS["log1p"].impl
    r = ops.add(log1p(exp(ops.sub(lo, hi))), hi)
    lo_re = ops.real(lo)
    both_inf = ops.logical_and(ops.isinf(lo_re), ops.equal(lo_re, ops.real(hi)))
    r = ops.where(both_inf, ops.where(ops.less(lo_re, ops.zeros_like(lo_re)), lo,
                                      log(ops.add(exp(lo), exp(hi)))), r)
    nan = ops.logical_or(ops.isnan(lo_re), ops.isnan(ops.imag(lo)))
    nan_c = ops.complex_of_parts(ops.full_like(lo_re, math.nan), ops.full_like(lo_re, math.nan))
    return ops.where(nan, nan_c, r)


def _complex_logaddexp_backward(saved, g):
    # torch's: g / conj(1 + exp(b - a)) for a, g / conj(1 + exp(a - b)) for b (its complex division)
    a, b = saved
    exp = OPS["exp"].impl
    one = ops.ones_like(g)
    ga = _complex_div(g, ops.conj(ops.add(one, exp(ops.sub(b, a)))))
    gb = _complex_div(g, ops.conj(ops.add(one, exp(ops.sub(a, b)))))
    return _sum_to(ga, a.shape), _sum_to(gb, b.shape)


_complex_logaddexp_node = _node("LogaddexpBackward0", lambda a, b: (_complex_logaddexp(a, b), (a, b)),
                                _complex_logaddexp_backward)


def _equal_infinities(a, b, r):
    # logaddexp(inf, inf): inf - inf is NaN, torch returns the infinity
    return ops.where(ops.logical_and(ops.equal(a, b), ops.isinf(a)), a, r)


def _complex_out_check(args, out):
    """torch checks that out= can hold the result type before its kernel refuses a complex one."""
    ts = [t for t in args[:2] if isinstance(t, Tensor)]
    if not any(t.dtype.is_complex for t in ts):
        return
    rt = D.result_type_parts([t.dtype for t in ts if t.dim()], [t.dtype for t in ts if not t.dim()],
                             [v for v in args[:2] if not isinstance(v, Tensor)])
    if not D.can_cast(rt, out.dtype):
        raise RuntimeError(f"result type {D.SCALAR_TYPE_NAMES[rt]} can't be cast to the desired output type "
                           f"{D.SCALAR_TYPE_NAMES[out.dtype]}")


@register("logaddexp2", family=F, out=True, out_check=_complex_out_check)
@_float_binary("logaddexp2", "logaddexp2_cpu", _bool_sub_node("Logaddexp2Backward0"))
def logaddexp2(a, b):
    if a.dtype in _COMPLEX:   # (torch's logaddexp2 has no complex kernel; before the empty result)
        _not_impl("logaddexp2_cpu", a)
    empty = _empty_broadcast(a, b)
    if empty is not None:
        return empty
    d = dtype_of(a)
    t = _log1p_unit(ops.exp2(ops.neg(ops.abs(ops.sub(a, b)))))
    r = ops.add(ops.maximum(a, b), ops.mul(t, scalar_tensor(1 / math.log(2), d)))
    return _equal_infinities(a, b, r)


def _np_nextafter(x, y, bf16):
    """C's nextafter on host arrays; bfloat16 (which NumPy lacks) steps the top 16 bits of its float32
    pattern. MindSpore's NextAfter returns float32 inputs unchanged on CPU."""
    if not bf16:
        return np.nextafter(x, y)
    x, y = np.broadcast_arrays(np.asarray(x, np.float32), np.asarray(y, np.float32))
    if not x.ndim:   # (0-d: NumPy's shifts give scalars of a wider type, which cannot be viewed as float32)
        return _np_nextafter(x.reshape(1), y.reshape(1), bf16).reshape(())
    bits = (x.view(np.uint32) >> 16).astype(np.int64)
    # away from zero (the magnitude's bits + 1) when y lies beyond x on x's side
    bits = np.where((y > x) == (x > 0), bits + 1, bits - 1)
    bits = np.where(x == 0, np.where(np.signbit(y), 0x8001, 0x0001), bits)
    r = (bits.astype(np.uint32) << 16).view(np.float32)
    r = np.where(x == y, y, r)
    return np.where(np.isnan(x) | np.isnan(y), np.float32(np.nan), r)


class NextafterBackward0(P.FunctionBase):
    """nextafter's host value with torch's gradients: ``grad`` for ``input`` where it differs from ``other``
    (zero where they are equal), zeros for ``other``."""

    @staticmethod
    def forward(node, a, b):
        node.save_for_backward(a, b)
        return _nextafter_value(a, b)

    @staticmethod
    def backward(node, g):
        a, b = node.saved_tensors
        if a.dtype is _bf16:   # (no bfloat16 NotEqual/Select kernels: in float32, exact)
            kept = cast(ops.where(ops.not_equal(cast(a, _f32), cast(b, _f32)), cast(g, _f32),
                                  ops.zeros(g.shape, _f32)), _bf16)
        else:
            kept = ops.where(ops.not_equal(a, b), g, ops.zeros_like(g))
        return _sum_to(kept, a.shape), ops.zeros(b.shape, g.dtype)


def _nextafter_value(a, b):
    x, y = read_host(a), read_host(b)
    return _host_result(_np_nextafter(x, y, a.dtype is _bf16), a)


@register("nextafter", family=F, inplace="nextafter_", out=True, bf16=False)
@_float_binary("nextafter", "nextafter_cpu")
def nextafter(a, b):
    if a.dtype in _COMPLEX:
        _not_impl("nextafter_cpu", a)
    if P.grad_enabled() and (P.requires_grad(a) or P.requires_grad(b)):
        out = NextafterBackward0.apply(a, b)
        P.set_function_of_output(out, NextafterBackward0)   # grad_fn keeps its name after backward frees it
        return out
    return _nextafter_value(a, b)


@register("copysign", family=F, inplace="copysign_", out=True)
def copysign(input, other):
    _need_input("copysign", input, other)
    a, b, rt = promote(input, other)
    shape = broadcast_shape((a.shape, b.shape))   # torch's message (MindSpore's CopySign reports internal shapes)
    if rt.is_complex:
        _not_impl("copysign_cpu", a)
    a, b = _float_operands(a, b, rt, input, other)
    if a.shape != b.shape:   # (MindSpore's CopySign broadcasts operands of different ranks wrongly)
        a, b = ops.broadcast_to(a, shape), ops.broadcast_to(b, shape)
    # MindSpore's CopySign reads -0.0 as positive: give it the sign of 1/b (-inf) instead
    b2 = ops.where(ops.equal(b, scalar_tensor(0, dtype_of(b))), ops.reciprocal(b), b)
    return _zero_grad(ops.copysign(a, b2), b)   # torch's gradient for `other` is zero, MindSpore's none


@register("xlogy", family=F, inplace="xlogy_", out=True)
def xlogy(input, other):
    if not isinstance(input, _T) and not isinstance(other, _T):
        raise invalid_args("xlogy", (input, other), signatures=BINARY_SCALAR_SELF)
    a, b, rt = promote(input, other)
    a, b = _float_operands(a, b, rt, input, other)
    return x_log(a, b, ops.log, 0)


def x_log(a, b, log_fn, pole, node_name="XlogyBackward0"):
    """``a * log_fn(b)`` as torch's xlogy (pole 0) / xlog1py (pole -1): 0 where a == 0 unless b is NaN,
    with torch's gradients (_XLogNode)."""
    if P.grad_enabled() and (P.requires_grad(a) or P.requires_grad(b)):
        cls = _XLOG_NODES[node_name]
        out = cls.apply(a, b, log_fn, pole)
        P.set_function_of_output(out, cls)
        return out
    return _x_log_value(a, b, log_fn, pole)


class _XLogNode(P.FunctionBase):
    """torch's gradients of xlogy / xlog1py: a's is log_fn(b), 0 where a == 0 and b <= pole (log(inf)
    = inf at a == 0 too); b's is a / (b - pole), NaN at a == b - pole == 0. Composing them from
    ``where`` would give 0 at those points."""

    @staticmethod
    def forward(node, a, b, log_fn, pole):
        node.log_fn, node.pole = log_fn, pole
        node.save_for_backward(a, b)
        return _x_log_value(a, b, log_fn, pole)

    @staticmethod
    def backward(node, g):
        a, b = node.saved_tensors
        d = dtype_of(a)
        masked = ops.logical_and(ops.equal(a, scalar_tensor(0, d)), ops.le(b, scalar_tensor(node.pole, d)))
        # torch's xlogy(grad, b) (0 where grad is 0: the zeros that masking hands a recorded pass do not meet
        # log(b) = NaN or -inf there), through the op itself, whose node differentiates it again
        ga = ops.where(masked, ops.zeros_like(g), x_log(g, b, node.log_fn, node.pole, type(node).__name__))
        shifted = b if node.pole == 0 else ops.sub(b, scalar_tensor(node.pole, d))
        # torch's formula in its order, grad * a / b: g * a overflows to inf before the division (a large
        # a == b gives inf, not g); IEEE signs: 3 / -0.0 is -inf
        gb = _true_div(ops.mul(g, a), shifted)
        return _sum_to(ga, a.shape), _sum_to(gb, b.shape), None, None


_XLOG_NODES = {name: type(name, (_XLogNode,), {}) for name in ("XlogyBackward0", "SpecialXlog1PyBackward0")}


def _x_log_value(a, b, log_fn, pole):
    # where a == 0 and log_fn(b) is not finite (b <= pole or b = inf), b + 1 stands in for b: the product is 0
    d = dtype_of(a)
    zero_a = ops.equal(a, scalar_tensor(0, d))
    unsafe = ops.logical_and(zero_a, ops.logical_or(ops.le(b, scalar_tensor(pole, d)), ops.isinf(b)))
    r = ops.mul(a, log_fn(ops.where(unsafe, scalar_tensor(pole + 1, d), b)))
    # 0 * (negative log) is -0.0 where torch gives 0: adding +0.0 there (and -0.0, a no-op, elsewhere)
    return ops.add(r, ops.where(zero_a, scalar_tensor(0.0, d), scalar_tensor(-0.0, d)))


@register("heaviside", family=F, inplace="heaviside_", out="exact")
def heaviside(input, values):
    _need_tensor("heaviside", values, 2, "values")
    if input.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    if dtype_of(input).is_complex:
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    zero = scalar_tensor(0, dtype_of(input))
    pos = cast(ops.greater(input, zero), input.dtype)
    return ops.where(ops.equal(input, zero), cast(values, input.dtype), pos)


def _ldexp_exponent(other, input):
    """torch's ldexp takes an int exponent: int64 exponents wrap to int32 (INT64_MAX is -1, so 2**-1)."""
    if not isinstance(other, ms.Tensor) or other.dtype != ms.int64:
        return other
    e = cast(ops.bitwise_and(other, ms.Tensor(0xFFFFFFFF, ms.int64)), ms.int64)
    e = ops.where(ops.ge(e, 2 ** 31), ops.sub(e, 2 ** 32), e)
    return cast(e, ms.int32)


@register("ldexp", family=F, inplace="ldexp_", out="exact", bf16=False)
def ldexp(input, other):
    other = _ldexp_exponent(other, input)
    _need_tensor("ldexp", other, 2)
    # the dtype (measured on torch): a float exponent promotes with the input (uint8 with float16
    # exponents is float16); an integer exponent leaves the input's float type
    if dtype_of(input)._cat >= D._FLOAT and not dtype_of(input).is_complex and dtype_of(other)._cat < D._FLOAT:
        # torch's ldexp kernel: a real float input scaled by an integer exponent (which may not be bool)
        if other.dtype == ms.bool_:
            raise NotImplementedError('"ldexp_cpu_exp" not implemented for \'Bool\'')
        return _scale_by_power_of_two(input, other)
    # otherwise torch's input * 2 ** other (0 * 2 ** 2000 is NaN there too). torch raises a 2 of the
    # input's dtype, 0-d, to the exponent (a float32 or integer input: the exponent's float type), so a
    # 0-d exponent beside a float64 input powers in float64 and one with dims in its own dtype; half
    # types power in float32 and round, a complex power is the real one's
    xd = dtype_of(input)
    if xd._cat >= D._FLOAT and xd is not D.float32:
        if xd.is_complex and other.dtype == ms.float16 and other.ndim:
            raise NotImplementedError('"pow" not implemented for \'ComplexHalf\'')
        pt = result_type(scalar_tensor(2, xd), other)
    else:
        pt = dtype_of(float_result(other))
    if dtype_of(other).is_complex:
        e = ops.exp2(cast(other, pt._ms))
    else:
        real = D.float64 if pt in (D.float64, D.complex128) else D.float32
        e = cast(ops.exp2(cast(other, real._ms)), pt._ms)
    input, e, _ = promote(input, e)
    x = float_result(input)
    if x.dtype in (ms.complex64, ms.complex128):   # torch's plain complex product: NaN * inf parts stay NaN
        return _complex_mul(x, cast(e, x.dtype))
    return ops.mul(x, cast(e, x.dtype))


def _scale_by_power_of_two(x, e):
    """x * 2 ** e rounded once, as C's ldexp (torch's for an integer exponent): in float64, where each factor
    2 ** k (|k| <= 1000) is exact, with the exponent clamped where the result stops changing, so inf scaled
    down stays inf and 0 scaled up stays 0 (one factor 2 ** e would overflow or underflow and give NaN)."""
    wide, e = cast(x, ms.float64), cast(e, ms.float64)
    if x.dtype != ms.float64:   # every float32/float16/bfloat16 value times 2 ** +-400 is 0, inf or exact
        return cast(ops.mul(wide, ops.exp2(ops.clamp(e, -400.0, 400.0))), x.dtype)
    e = ops.clamp(e, -2200.0, 2200.0)
    for _ in range(3):
        k = ops.clamp(e, -1000.0, 1000.0)
        wide, e = ops.mul(wide, ops.exp2(k)), ops.sub(e, k)
    return wide


_frexp_rt = None


@register("frexp", family=F, out="tuple")
def frexp(input):
    """x = mantissa * 2**exponent with 0.5 <= |mantissa| < 1 (0, inf and NaN kept, exponent 0), as C's frexp:
    computed in float64, where dividing by powers of two is exact; the division is split in two so 2**e
    cannot overflow."""
    global _frexp_rt
    if dtype_of(input)._cat < D._FLOAT or dtype_of(input).is_complex:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    if _frexp_rt is None:
        from .reduction import return_type
        _frexp_rt = return_type("frexp", ("mantissa", "exponent"))
    x = cast(input, ms.float64)
    a = ops.abs(x)
    regular = ops.logical_and(ops.isfinite(x), ops.ne(a, 0))
    e = ops.add(ops.floor(ops.log2(ops.where(regular, a, ops.ones_like(a)))), 1)
    half = ops.floor(ops.div(e, 2))
    m = ops.div(ops.div(x, ops.exp2(half)), ops.exp2(ops.sub(e, half)))
    # log2 can round across a power of two: one step of correction puts |m| in [0.5, 1)
    am = ops.abs(m)
    big, small = ops.ge(am, 1), ops.lt(am, 0.5)
    m = ops.where(big, ops.div(m, 2), ops.where(small, ops.mul(m, 2), m))
    e = ops.where(big, ops.add(e, 1), ops.where(small, ops.sub(e, 1), e))
    m = ops.where(regular, m, x)
    e = ops.where(regular, e, ops.zeros_like(e))
    return _frexp_rt(cast(m, input.dtype), cast(e, ms.int32))


def _gcd_operands(name, input, other):
    _need_tensor(name, other, 2)
    a, b, rt = promote(input, other)
    if rt._cat >= D._FLOAT or rt is D.bool_:
        _not_impl(f"{name}_cpu", a)
    return a, b, rt


@register("gcd", family=F, inplace="gcd_", out=True)
def gcd(input, other):
    a, b, rt = _gcd_operands("gcd", input, other)
    if rt in (D.int8, D.uint8):     # CPU Gcd has int16/32/64 only
        return cast(ops.gcd(cast(a, ms.int16), cast(b, ms.int16)), rt._ms)
    return ops.gcd(a, b)


def _np_lcm(x, y):
    # torch's: gcd g, then |x / g * y| in C integer arithmetic (wrapping: lcm(4, 2**63 - 1) is 4). Narrow
    # types compute in int, as C promotes them, and wrap when stored back.
    with np.errstate(all="ignore"):
        wide = x.dtype.itemsize < 4
        g = np.gcd(x, y)
        xs, ys = (x.astype(np.int64), y.astype(np.int64)) if wide else (x, y)
        q = xs // np.where(g == 0, 1, g).astype(xs.dtype)   # (exact: g divides x)
        r = np.abs(q * ys)
        return np.where(g == 0, 0, r).astype(x.dtype)


@register("lcm", family=F, inplace="lcm_", out=True)
def lcm(input, other):
    a, b, rt = _gcd_operands("lcm", input, other)
    if _on_host(a):   # MindSpore's Lcm gives a negative lcm past overflow
        return _int_division(a, b, _np_lcm, ops.lcm)
    if rt in (D.int8, D.uint8, D.int16):   # CPU Lcm has int32/64 only
        return cast(ops.lcm(cast(a, ms.int32), cast(b, ms.int32)), rt._ms)
    return ops.lcm(a, b)
