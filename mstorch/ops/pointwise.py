"""Pointwise ops: arithmetic, unary float math, rounding, with torch's type promotion (binary float
functions, lerp and addcmul/addcdiv are in pointwise_binary.py; comparisons, logical/bitwise ops, clamp
and the complex basics in comparison.py; same family).

Implementations take mindspore.Tensors or Python scalars. MindSpore dtypes are singletons, so dtype tests
use ``is`` (``==`` on a MindSpore dtype costs ~2 µs). add/sub/mul/div on two tensors of one dtype take a
fast path: one dtype test and one MindSpore call. Where a MindSpore CPU kernel differs from torch
(inexact fmod, log1p/expm1/erfinv; no gradient from round/ceil/sign; no bfloat16) the fix is commented.
"""
import builtins
import math

import numpy as np

import mindspore as ms
from . import _msops as ops
from mindspore.ops import operations as P_ops

from .. import _dtype as D
from .. import _ms_private as P
from .. import _runtime
from .._tensor import Tensor, scalar_type_name
from ._helpers import MsTensor, promote, float_result, dtype_of, to_operand, result_type, scalar_tensor, cast
from ._argerr import invalid_args, BINARY
from ._registry import register as _register
from ._views import fresh
from ..autograd._higher_order import own_backward

F = "pointwise"
_T = MsTensor
_bool, _f32, _f64, _f16, _bf16 = ms.bool_, ms.float32, ms.float64, ms.float16, ms.bfloat16
_NUMBER = (bool, int, float)
_TRUE = ms.Tensor(True)
_ONE = 1   # alpha's default: `alpha is _ONE` also tells True and 1.0 from 1
# the classic primitives compute the same bits as ops.div / ops.sub, faster on CPU: RealDiv ~3x for any
# shapes (64x1000: 72 vs 241 us), Sub ~3x when broadcasting (66 vs 210 us; same shapes: ops.sub is faster)
_REALDIV, _SUB = P_ops.RealDiv(), P_ops.Sub()
_REALDIV_TYPES = frozenset((_f32, _f64))   # float16: its gradient rounds differently from torch's
_SUB_PRIM = frozenset((_f32, _f64, ms.int32, ms.int64))


def register(name, *, bf16=True, **kw):
    """The op table's register, plus bfloat16 support for the impl (``bf16=False``: it handles bf16)."""
    def deco(fn):
        return _register(name, **kw)(_bf16_via_f32(fn) if bf16 and not kw.get("raw") else fn)
    return deco


def _bf16_via_f32(fn):
    # MindSpore's CPU kernels lack bfloat16 (Add, Mul and Div aside): compute in float32 and round once,
    # as torch's CPU kernels do
    def run(*args, **kwargs):
        for a in args:
            if isinstance(a, _T) and a.dtype is _bf16:
                return _run_in_f32(fn, args, kwargs)
        return fn(*args, **kwargs)
    run.__name__ = fn.__name__
    return run


def _run_in_f32(fn, args, kwargs):
    operands = [a for a in (*args, *kwargs.values()) if isinstance(a, (_T, bool, int, float))]
    back = result_type(*operands) is D.bfloat16

    def up(a):
        return cast(a, _f32) if isinstance(a, _T) and a.dtype is _bf16 else a

    def down(t):
        return cast(t, _bf16) if back and isinstance(t, _T) and t.dtype is _f32 else t
    r = fn(*[up(a) for a in args], **{k: up(v) for k, v in kwargs.items()})
    return type(r)(down(t) for t in r) if isinstance(r, tuple) else down(r)


def _need_tensor(name, x, pos, arg="other"):
    """torch's argument parser: this argument must be a Tensor."""
    if not isinstance(x, _T):
        raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not {type(x).__name__}")


def _check_other(name, other):
    if not isinstance(other, (_T, bool, int, float, complex)):
        raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")


def _need_input(name, x, other):
    if not isinstance(x, _T):
        raise invalid_args(name, (x, other), signatures=BINARY)


def _not_impl(kernel, t):
    raise NotImplementedError(f'"{kernel}" not implemented for \'{scalar_type_name(dtype_of(t))}\'')


def _check_int_divisor(b):
    # torch checks integer division by zero on CPU (a host sync; integer division only)
    if isinstance(b, _T):
        if b.size and not bool(ops.all(b).asnumpy()):
            raise RuntimeError("ZeroDivisionError")
    elif b == 0:
        raise RuntimeError("ZeroDivisionError")


def _zero_grad(r, x):
    """MindSpore's Round/Ceil/Sign give no gradient at all; torch gives zeros. A select that always
    picks ``r`` gives ``x`` the zero gradient, only when ``x`` needs one."""
    if P.requires_grad(x):
        return ops.where(_TRUE, r, x)
    return r


def _no_grad_result(r, *inputs):
    # rounding divisions have zero gradients in torch; composites of MindSpore ops would give NaN
    # where b == 0, so the result is cut from the graph and tied to the inputs by zero-gradient selects
    if any(P.requires_grad(x) for x in inputs):
        r = ops.stop_gradient(r)
        for x in inputs:
            if P.requires_grad(x):
                r = ops.where(_TRUE, r, x)
    return r


def _float_operands(a, b, rt):
    if rt._cat < D._FLOAT:
        dt = D.get_default_dtype()._ms
        return cast(a, dt), cast(b, dt)
    return a, b


# --- arithmetic ---------------------------------------------------------------------------------

@register("add", family=F, inplace="add_", out=True, bf16=False)   # Add has bfloat16
def add(input, other, *, alpha=1):
    if isinstance(input, _T) and isinstance(other, _T):
        d = input.dtype
        if d is other.dtype and alpha is _ONE and d is not _bool:
            return ops.add(input, other)
    elif not isinstance(input, _T) and not isinstance(other, _T):
        input = _scalar_input(input)
    _check_other("add", other)
    a, b, rt = promote(input, other)
    if alpha is not _ONE:
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
    return ops.mul(b, to_operand(alpha, rt))


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
        if d is other.dtype and alpha is _ONE and d is not _bool and d is not _bf16:
            if d in _SUB_PRIM and input.shape != other.shape:
                return _SUB(input, other)   # broadcasting: the classic Sub is ~3x faster than ops.sub
            return ops.sub(input, other)
    elif not isinstance(input, _T) and not isinstance(other, _T):
        input = _scalar_input(input)
    _check_other("sub", other)
    if _has_bool(input) or _has_bool(other):
        _sub_bool_error(input, other)
    a, b, rt = promote(input, other)
    if alpha is not _ONE:
        b = _scaled(b, rt, alpha)
    if rt is D.bfloat16:   # no bfloat16 Sub kernel; Add has one
        return ops.add(a, ops.neg(b))
    return ops.sub(a, b)


@register("rsub", family=F, method=False)
def rsub(input, other, *, alpha=1):
    if _has_bool(input) or _has_bool(other):
        _sub_bool_error(input, other)
    a, b, rt = promote(input, other)
    if alpha is not _ONE:
        a = _scaled(a, rt, alpha)
    return ops.sub(b, a)


@register("mul", family=F, inplace="mul_", out=True, aliases=("multiply",), bf16=False)
def mul(input, other):
    if isinstance(input, _T) and isinstance(other, _T):
        if input.dtype is other.dtype:
            return ops.mul(input, other)   # MindSpore's Mul on bool is logical and, as torch's
    elif not isinstance(input, _T) and not isinstance(other, _T):
        input = _scalar_input(input)
    _check_other("mul", other)
    a, b, rt = promote(input, other)
    return ops.mul(a, b)


@register("div", family=F, inplace="div_", out=True, aliases=("divide",), bf16=False)
def div(input, other, *, rounding_mode=None):
    if isinstance(input, _T) and isinstance(other, _T):
        d = input.dtype
        if d is other.dtype and rounding_mode is None and (d is _f32 or d is _f64 or d is _f16):
            return _true_div(input, other)
    elif not isinstance(input, _T) and not isinstance(other, _T):
        input = _scalar_input(input)
    a, b, rt = promote(input, other)
    if rounding_mode is None:
        a, b = _float_operands(a, b, rt)
        return _true_div(a, b)
    if rt is D.bfloat16:
        return cast(div(cast(a, _f32), cast(b, _f32), rounding_mode=rounding_mode), _bf16)
    if rounding_mode == "trunc":
        if rt._cat < D._FLOAT:
            if rt is D.bool_:
                _not_impl("div_trunc_cpu", a)
            _check_int_divisor(b)
            return ops.truncate_div(a, b)
        return _no_grad_result(ops.trunc(_true_div(a, b)), a, b)
    if rounding_mode == "floor":
        if rt._cat < D._FLOAT:
            if rt is D.bool_:
                _not_impl("div_floor_cpu", a)
            _check_int_divisor(b)
            return ops.floor_div(a, b)
        return _no_grad_result(_floor_divide_float(a, b), a, b)
    raise RuntimeError(
        f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'")


def _true_div(a, b):
    """a / b for floats. MindSpore's CPU Div/RealDiv give x / 0 the sign of x alone (1 / -0.0 is +inf)
    and NaN / 0 -inf; torch follows IEEE. Where b has a zero (looked up on the host, zero-copy on CPU)
    the result there is a times an infinity of b's sign (read on the host too: MindSpore's CopySign
    drops the sign of -0.0): IEEE's value, NaN for 0 and NaN."""
    y = (cast(b, _f32) if b.dtype is _bf16 else b).asnumpy()
    if y.all():
        return _REALDIV(a, b) if a.dtype in _REALDIV_TYPES else ops.div(a, b)
    if a.dtype is _bf16:   # no bfloat16 Equal/Select kernels: exact through float32
        return cast(_true_div(cast(a, _f32), cast(b, _f32)), _bf16)
    with np.errstate(all="ignore"):
        # infinities where b is zero, 1 elsewhere: the unused branch's gradient stays finite there too
        signed_inf = _host_result(np.where(y == 0, np.copysign(np.float32(np.inf), y), 1).astype(y.dtype), b)
    zero = ops.equal(b, scalar_tensor(0, dtype_of(b)))
    # the quotient by b with its zeros replaced by 1: its gradient stays finite where it is not used
    safe = ops.where(zero, scalar_tensor(1, dtype_of(b)), b)
    q = _REALDIV(a, safe) if a.dtype in _REALDIV_TYPES else ops.div(a, safe)
    # (a 0-d divisor's host array comes back 1-d: b's own shape again)
    return ops.where(zero, ops.mul(a, signed_inf.reshape(b.shape)), q)


# --- fmod, remainder, floor division of floats ---------------------------------------------------
# MindSpore's CPU kernels compute them as a - trunc(a / b) * b (FMod, float64 FloorMod) or lose the
# remainder of large quotients (float32 FloorMod: 3e38 % 3 gives 0, torch 2), give NaN for an infinite
# divisor (torch: fmod(x, inf) = x) and drop the sign of zero. On CPU they run on the host with the
# C library's exact fmod and torch's formulas around it (ATen's div_floor / remainder kernels); half
# types in float32, as torch's CPU does. Gradients: fmod/remainder pass g to a and -g * trunc/floor(a / b)
# to b, as torch's derivatives; floor division has none.

def _on_host(a):
    # complex operands keep the device path, whose kernels refuse them as torch does
    return _runtime.device_target() == "CPU" and a.dtype not in (ms.complex64, ms.complex128)


def _host_operands(a, b):
    x, y = a.asnumpy(), b.asnumpy()
    if a.dtype is _f16 or a.dtype is _bf16:
        x, y = x.astype(np.float32), y.astype(np.float32)
    return x, y


def _host_result(v, like):
    return cast(ms.Tensor(np.ascontiguousarray(v)), like.dtype)


def _np_fmod(x, y):
    return np.fmod(x, y)


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
    return ops.sum(g, dims, True).reshape(shape) if dims else g.reshape(shape)


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


def _host_remainder(a, b, np_fn, round_fn):
    if P.grad_enabled() and (P.requires_grad(a) or P.requires_grad(b)):
        return _HostRemainder.apply(a, b, np_fn, round_fn)
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


@register("floor_divide", family=F, inplace="floor_divide_", out=True)
def floor_divide(input, other):
    return div(input, other, rounding_mode="floor")


@register("remainder", family=F, inplace="remainder_", out=True)
def remainder(input, other):
    if not isinstance(input, _T) and not isinstance(other, _T):
        _need_tensor("remainder", input, 1, "input")
    a, b, rt = promote(input, other)
    if rt._cat < D._FLOAT:
        if rt is D.bool_:
            _not_impl("remainder_cpu", a)
        _check_int_divisor(b)
        return ops.floor_mod(a, b)
    return _floor_mod(a, b)


def _floor_mod(a, b):
    if _on_host(a):
        return _host_remainder(a, b, _np_remainder, _floor_divide_float)   # torch: -g * a.div(b, 'floor')
    # FloorMod is exact in float32 but not in half precision: go through float32 (exact there too)
    if a.dtype is _f16 or a.dtype is _bf16:
        return cast(ops.floor_mod(cast(a, _f32), cast(b, _f32)), a.dtype)
    return ops.floor_mod(a, b)


@register("fmod", family=F, inplace="fmod_", out=True)
def fmod(input, other):
    _need_input("fmod", input, other)
    a, b, rt = promote(input, other)
    if rt._cat < D._FLOAT:
        if rt is D.bool_:
            _not_impl("fmod_cpu", a)
        _check_int_divisor(b)
        return ops.fmod(a, b)
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
        if rt in (D.float32, D.float64) and exponent in (0.5, -0.5):
            # torch computes these as sqrt / rsqrt: -inf ** 0.5 is NaN there (IEEE pow gives inf). Half
            # precision keeps pow, whose gradient rounds as torch's does.
            return ops.sqrt(base) if exponent > 0 else ops.rsqrt(base)
        if rt._cat < D._FLOAT and exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
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
    return ops.pow(a, b)


def _int_pow(a, b):
    # torch: a ** negative integer is 1 for a == 1, +-1 for a == -1, else 0 (MindSpore gives 0 for all)
    r = ops.pow(a, ops.maximum(b, scalar_tensor(0, dtype_of(b))))
    neg = ops.less(b, scalar_tensor(0, dtype_of(b)))
    one = scalar_tensor(1, dtype_of(a))
    special = ops.where(ops.equal(a, one), one,
                        ops.where(ops.equal(a, ops.neg(one)),
                                  ops.sub(one, ops.mul(ops.bitwise_and(b, one), scalar_tensor(2, dtype_of(a)))),
                                  ops.zeros_like(r)))
    return ops.where(neg, special, r)


@register("float_power", family=F, out=True)
def float_power(input, exponent):
    if not isinstance(input, _T) and not isinstance(exponent, _T):
        _need_tensor("float_power", input, 1, "input")
    cplx = any(isinstance(x, complex) or isinstance(x, _T) and dtype_of(x).is_complex for x in (input, exponent))
    rt = D.complex128 if cplx else D.float64
    return ops.pow(to_operand(input, rt), to_operand(exponent, rt))


@register("float_power_", family=F, function=False, raw=True)
def float_power_(self, exponent):
    want = D.complex128 if self.dtype.is_complex or isinstance(exponent, complex) else D.float64
    if self.dtype is not want:
        raise RuntimeError(f"the base given to float_power_ has dtype {scalar_type_name(self.dtype)} but the "
                           f"operation's result requires dtype {scalar_type_name(want)}")
    e = exponent._ms if isinstance(exponent, Tensor) else exponent
    return self._write(float_power(self._ms, e))


@register("neg", family=F, inplace="neg_", out=True, aliases=("negative",))
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


@register("abs", family=F, inplace="abs_", out=True, aliases=("absolute",))
def abs(input):
    if input.dtype is _bool:
        _not_impl("abs_cpu", input)
    if input.dtype is ms.complex64:   # the magnitude, a float (via double: ComplexAbs is not hypot)
        return _complex_abs(input.astype(ms.complex128)).astype(ms.float32)
    if input.dtype is ms.complex128:
        return _complex_abs(input)
    return ops.abs(input)


_complex_abs = ops.ComplexAbs()


@register("sign", family=F, inplace="sign_", out=True)
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


@register("sgn", family=F, inplace="sgn_", out=True)
def sgn(input):
    if dtype_of(input).is_complex:
        mag = ops.abs(input)
        return ops.where(ops.equal(mag, 0), ops.zeros_like(input), ops.div(input, cast(mag, input.dtype)))
    return sign(input)


@register("signbit", family=F, out=True)
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


# --- unary float math --------------------------------------------------------------------------

def _unary_float(name, fn, aliases=()):
    def impl(input):
        return fn(float_result(input))
    impl.__name__ = name
    register(name, family=F, inplace=name + "_", out=True, aliases=aliases)(impl)


def _times_constant(x, c):
    # torch multiplies by the constant in the input's computation type (half types in float32);
    # MindSpore's Rad2Deg/Deg2Rad use a float32 constant for float64 too (2.8e-8 relative off)
    if x.dtype is _f16 or x.dtype is _bf16:
        return cast(ops.mul(cast(x, _f32), scalar_tensor(c, D.float32)), x.dtype)
    return ops.mul(x, scalar_tensor(c, dtype_of(x)))


def _rad2deg(x):
    return _times_constant(x, 180.0 / math.pi)


def _deg2rad(x):
    return _times_constant(x, math.pi / 180.0)


def _log1p(x):
    # MindSpore's Log1p is log(1 + x): all precision is lost for tiny x. 2*atanh(x / (x + 2)) is exact
    # to ~1 ulp on |x| < 0.5 (its input is clamped there so the unused branch stays finite for autograd);
    # outside that range, log(1 + x) is.
    d = dtype_of(x)
    xs = ops.clamp(x, -0.5, 0.5)
    small = ops.mul(ops.atanh(ops.div(xs, ops.add(xs, scalar_tensor(2, d)))), scalar_tensor(2, d))
    return ops.where(ops.less(ops.abs(x), scalar_tensor(0.5, d)), small, ops.log1p(x))


def _expm1(x):
    # MindSpore's Expm1 is exp(x) - 1 (no precision for tiny x). 2 sinh(x/2) exp(x/2) keeps it on
    # |x| <= 4; beyond, exp(x) - 1 is as exact as exp and reaches -1 exactly, as torch does.
    d = dtype_of(x)
    h = ops.mul(ops.clamp(x, -4.0, 4.0), scalar_tensor(0.5, d))
    mid = ops.mul(ops.mul(ops.sinh(h), ops.exp(h)), scalar_tensor(2, d))
    return ops.where(ops.less_equal(ops.abs(x), scalar_tensor(4.0, d)), mid, ops.sub(ops.exp(x), scalar_tensor(1, d)))


_SQRT_PI_2 = 2 / math.sqrt(math.pi)


def _erfinv(x):
    # MindSpore's Erfinv is exact up to |x| ~ 0.95 and 2-30% off in the tails. Tails start from
    # Winitzki's closed form (~2e-3), then two Halley steps on erf(y) = x (erf itself is exact).
    d = dtype_of(x)
    if d.itemsize == 2:
        return cast(_erfinv(cast(x, _f32)), x.dtype)
    ax = ops.abs(x)
    central = ops.less(ax, scalar_tensor(0.95, d))
    # the tail formula sees only tail inputs: at x = 0 its sqrt(0) would put a NaN gradient into the
    # branch `where` drops (0 * inf)
    xt = ops.where(central, ops.full_like(x, 0.975), x)
    ln = ops.log(ops.mul(ops.sub(scalar_tensor(1, d), xt), ops.add(scalar_tensor(1, d), xt)))
    a = 0.147
    t = ops.add(ops.mul(ln, scalar_tensor(0.5, d)), scalar_tensor(2 / (math.pi * a), d))
    tail = ops.sqrt(ops.sub(ops.sqrt(ops.sub(ops.square(t), ops.mul(ln, scalar_tensor(1 / a, d)))), t))
    e = ops.erfinv(x)
    # MindSpore's ErfinvGrad has no backward: torch's formula in recorded ops for double backward
    own_backward(e, _erfinv_backward, P.detach(e))
    y = ops.where(central, e, ops.copysign(tail, x))
    c = scalar_tensor(_SQRT_PI_2, d)
    for _ in range(2):
        f = ops.sub(ops.erf(y), x)
        y = ops.sub(y, ops.div(f, ops.add(ops.mul(ops.exp(ops.neg(ops.square(y))), c), ops.mul(y, f))))
    inf = ops.copysign(scalar_tensor(math.inf, d).broadcast_to(x.shape), x)
    return ops.where(ops.equal(ax, scalar_tensor(1, d)), inf, y)


def _erfinv_backward(node, grad_outputs, y):
    # d erfinv(x) / dx = sqrt(pi) / 2 exp(erfinv(x)^2), with erfinv(x) reattached to its node
    (g,) = grad_outputs
    if g is None:
        return (None,)
    y = P.reattach(y, node, 0)
    return (ops.mul(g, ops.mul(ops.exp(ops.square(y)), scalar_tensor(math.sqrt(math.pi) / 2, dtype_of(y)))),)


def tanh_accurate(x):
    """tanh within 4 float32 ulps of torch. MindSpore's float32 Tanh is exact below |x| = 2 and up to 1e-4
    off above; there 2 sigmoid(2x) - 1 is exact to the rounding of a value near 1 (and +-1 at +-inf, NaN
    for NaN). Other dtypes' kernels are exact."""
    if x.dtype is not _f32:
        return ops.tanh(x)
    two = scalar_tensor(2.0, D.float32)
    tail = ops.sub(ops.mul(ops.sigmoid(ops.mul(x, two)), two), scalar_tensor(1.0, D.float32))
    return ops.where(ops.less(ops.abs(x), two), ops.tanh(x), tail)


for _name, _fn in [
    ("exp", ops.exp), ("log", ops.log), ("sqrt", ops.sqrt), ("rsqrt", ops.rsqrt), ("sin", ops.sin),
    ("cos", ops.cos), ("tan", ops.tan), ("tanh", tanh_accurate), ("sigmoid", ops.sigmoid),
    ("log1p", _log1p), ("expm1", _expm1), ("log2", ops.log2), ("log10", ops.log10),
    ("erf", ops.erf), ("erfc", ops.erfc), ("erfinv", _erfinv), ("sinh", ops.sinh), ("cosh", ops.cosh),
    ("asin", ops.asin), ("acos", ops.acos), ("atan", ops.atan), ("asinh", ops.asinh),
    ("acosh", ops.acosh), ("atanh", ops.atanh), ("exp2", ops.exp2), ("deg2rad", _deg2rad),
    ("rad2deg", _rad2deg), ("digamma", ops.digamma), ("lgamma", ops.lgamma), ("i0", ops.i0),
]:
    _unary_float(_name, _fn, aliases={"asin": ("arcsin",), "acos": ("arccos",), "atan": ("arctan",),
                                      "asinh": ("arcsinh",), "acosh": ("arccosh",),
                                      "atanh": ("arctanh",)}.get(_name, ()))


@register("sinc", family=F, inplace="sinc_", out=True)
def sinc(input):
    x = float_result(input)
    d = dtype_of(x)
    zero = ops.equal(x, scalar_tensor(0, d))
    px = ops.mul(ops.where(zero, scalar_tensor(1, d), x), scalar_tensor(math.pi, d))   # no 0/0, in value or grad
    return ops.where(zero, scalar_tensor(1, d), ops.div(ops.sin(px), px))


@register("logit", family=F, inplace="logit_", out=True)
def logit(input, eps=None):
    x = float_result(input)
    if eps is not None:
        x = ops.clamp(x, eps, 1 - eps)
    return ops.log(ops.div(x, ops.sub(scalar_tensor(1, dtype_of(x)), x)))


@register("polygamma", family=F, inplace="polygamma_", out=True)
def polygamma(n, input):
    if isinstance(n, _T):      # the method form: x.polygamma(n)
        n, input = input, n
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"polygamma(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    x = float_result(input)
    return ops.digamma(x) if n == 0 else ops.polygamma(ms.Tensor(n, ms.int64), x)


@register("mvlgamma", family=F, inplace="mvlgamma_", out=True)
def mvlgamma(input, p):
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    x = float_result(input)
    d = dtype_of(x)
    # sum of lgamma(x - j/2) plus a constant (MindSpore's kernel refuses x <= (p-1)/2, torch does not)
    r = ops.lgamma(x)
    for j in range(1, p):
        r = ops.add(r, ops.lgamma(ops.sub(x, scalar_tensor(j / 2, d))))
    return ops.add(r, scalar_tensor(p * (p - 1) / 4 * math.log(math.pi), d))


@register("angle", family=F, out=True)
def angle(input):
    d = dtype_of(input)
    if d.is_complex:
        return ops.angle(input)
    x = float_result(input)
    pi = ops.where(ops.less(x, scalar_tensor(0, dtype_of(x))), scalar_tensor(math.pi, dtype_of(x)),
                   scalar_tensor(0, dtype_of(x)))
    return ops.where(ops.isnan(x), x, pi) if d._cat >= D._FLOAT else pi


def _unary_keep(name, fn, kernel, zero_grad=False):
    """floor/ceil/trunc: identities on integers in torch, undefined on bool."""
    def impl(input):
        d = dtype_of(input)
        if d._cat < D._FLOAT:
            if d is D.bool_:
                _not_impl(kernel, input)
            return fresh(input)
        r = fn(input)
        return _zero_grad(r, input) if zero_grad else r
    impl.__name__ = name
    register(name, family=F, inplace=name + "_", out=True, aliases=("fix",) if name == "trunc" else ())(impl)


_unary_keep("floor", ops.floor, "floor_vml_cpu")
_unary_keep("ceil", ops.ceil, "ceil_vml_cpu", zero_grad=True)
_unary_keep("trunc", ops.trunc, "trunc_vml_cpu")


@register("round", family=F, inplace="round_", out=True)
def round(input, *, decimals=0):
    d = dtype_of(input)
    if d._cat < D._FLOAT:
        if d is D.bool_:
            _not_impl("round_vml_cpu", input)
        if decimals:
            _not_impl("round_cpu", input)
        return fresh(input)
    if decimals == 0:
        return _zero_grad(ops.round(input), input)
    # torch scales by 10**|decimals| the way that keeps the scale exact: x * s / s, or x / s * s
    s = scalar_tensor(10.0 ** builtins.abs(decimals), d)
    if decimals > 0:
        return ops.div(_zero_grad(ops.round(ops.mul(input, s)), input), s)
    return ops.mul(_zero_grad(ops.round(ops.div(input, s)), input), s)


@register("frac", family=F, inplace="frac_", out=True)
def frac(input):
    if dtype_of(input)._cat < D._FLOAT:
        _not_impl("frac_cpu", input)
    return ops.sub(input, ops.trunc(input))
