"""Pointwise functions of two or three operands with torch's float semantics: atan2, hypot, logaddexp(2),
copysign, xlogy, heaviside, ldexp, gcd/lcm, lerp, addcmul/addcdiv, nan_to_num (family "pointwise";
the registration wrapper and shared checks live in pointwise.py)."""
import builtins
import math

import mindspore as ms
import numpy as np
from . import _msops as ops

from .. import _dtype as D
from ._helpers import promote, float_result, dtype_of, to_operand, result_type, scalar_tensor, cast
from ._argerr import invalid_args, BINARY_SCALAR_SELF
from ._views import fresh, broadcast_shape
from .pointwise import F, register, _T, _need_tensor, _need_input, _not_impl, _float_operands, _zero_grad


def _float_binary(name, kernel=None):
    """Binary float functions of two tensors: integer inputs compute in the default dtype, or are
    refused with torch's NotImplementedError when ``kernel`` names torch's CPU kernel."""
    def deco(fn):
        def impl(input, other):
            _need_tensor(name, input, 1, "input")
            _need_tensor(name, other, 2)
            a, b, rt = promote(input, other)
            if rt._cat < D._FLOAT:
                if kernel:
                    _not_impl(kernel, a)
                a, b = _float_operands(a, b, rt)
            return fn(a, b)
        impl.__name__ = name
        return impl
    return deco


register("atan2", family=F, inplace="atan2_", out=True, aliases=("arctan2",))(
    _float_binary("atan2")(ops.atan2))


@register("hypot", family=F, inplace="hypot_", out=True)
@_float_binary("hypot", "hypot_cpu")
def hypot(a, b):
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
@_float_binary("logaddexp", "logaddexp_cpu")
def logaddexp(a, b):
    r = ops.add(ops.maximum(a, b), _log1p_unit(ops.exp(ops.neg(ops.abs(ops.sub(a, b))))))
    return _equal_infinities(a, b, r)


def _equal_infinities(a, b, r):
    # logaddexp(inf, inf): inf - inf is NaN, torch returns the infinity
    return ops.where(ops.logical_and(ops.equal(a, b), ops.isinf(a)), a, r)


@register("logaddexp2", family=F, out=True)
@_float_binary("logaddexp2", "logaddexp2_cpu")
def logaddexp2(a, b):
    d = dtype_of(a)
    t = _log1p_unit(ops.exp2(ops.neg(ops.abs(ops.sub(a, b)))))
    r = ops.add(ops.maximum(a, b), ops.mul(t, scalar_tensor(1 / math.log(2), d)))
    return _equal_infinities(a, b, r)


@register("copysign", family=F, inplace="copysign_", out=True)
def copysign(input, other):
    _need_input("copysign", input, other)
    a, b, rt = promote(input, other)
    broadcast_shape((a.shape, b.shape))   # torch's message (MindSpore's CopySign reports internal shapes)
    a, b = _float_operands(a, b, rt)
    # MindSpore's CopySign reads -0.0 as positive: give it the sign of 1/b (-inf) instead
    b2 = ops.where(ops.equal(b, scalar_tensor(0, dtype_of(b))), ops.reciprocal(b), b)
    return _zero_grad(ops.copysign(a, b2), b)   # torch's gradient for `other` is zero, MindSpore's none


@register("xlogy", family=F, inplace="xlogy_", out=True)
def xlogy(input, other):
    if not isinstance(input, _T) and not isinstance(other, _T):
        raise invalid_args("xlogy", (input, other), signatures=BINARY_SCALAR_SELF)
    a, b, rt = promote(input, other)
    a, b = _float_operands(a, b, rt)
    # 0 * log(y) is 0 unless y is NaN: log(1) stands in for log(y) there, which keeps gradients finite
    d = dtype_of(a)
    use_one = ops.logical_and(ops.equal(a, scalar_tensor(0, d)), ops.logical_not(ops.isnan(b)))
    return ops.mul(a, ops.log(ops.where(use_one, scalar_tensor(1, d), b)))


@register("heaviside", family=F, inplace="heaviside_", out=True)
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
    """torch's ldexp takes an int exponent: int64 exponents wrap to int32 (INT64_MAX is -1, so 2**-1);
    for a float64 input 2**e is formed in float64 (float32 would overflow past 2**127)."""
    if not isinstance(other, ms.Tensor) or other.dtype != ms.int64:
        return other
    e = cast(ops.bitwise_and(other, ms.Tensor(0xFFFFFFFF, ms.int64)), ms.int64)
    e = ops.where(ops.ge(e, 2 ** 31), ops.sub(e, 2 ** 32), e)
    return cast(e, ms.float64 if isinstance(input, ms.Tensor) and input.dtype == ms.float64 else ms.int32)


@register("ldexp", family=F, inplace="ldexp_", out=True)
def ldexp(input, other):
    other = _ldexp_exponent(other, input)
    _need_tensor("ldexp", other, 2)
    # the dtype (measured on torch): a float exponent promotes with the input (uint8 with float16
    # exponents is float16); an integer exponent leaves the input's float type
    e = ops.exp2(float_result(other))
    if dtype_of(other)._cat >= D._FLOAT:
        input, e, _ = promote(input, e)
    x = float_result(input)
    return ops.mul(x, cast(e, x.dtype))


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


@register("lcm", family=F, inplace="lcm_", out=True)
def lcm(input, other):
    a, b, rt = _gcd_operands("lcm", input, other)
    if rt in (D.int8, D.uint8, D.int16):   # CPU Lcm has int32/64 only
        return cast(ops.lcm(cast(a, ms.int32), cast(b, ms.int32)), rt._ms)
    return ops.lcm(a, b)


@register("lerp", family=F, inplace="lerp_", out=True)
def lerp(input, end, weight):
    _need_tensor("lerp", end, 2, "end")
    d = dtype_of(input)
    if end.dtype is not input.dtype:
        raise RuntimeError(f"expected dtype {_c_name(d)} for `end` but got dtype {_c_name(dtype_of(end))}")
    if isinstance(weight, _T) and weight.dtype is not input.dtype:
        raise RuntimeError(f"expected dtype {_c_name(d)} for `weight` but got dtype {_c_name(dtype_of(weight))}")
    if d._cat < D._FLOAT:
        _not_impl("lerp_kernel_tensor" if isinstance(weight, _T) else "lerp_kernel_scalar", input)
    diff = ops.sub(end, input)
    # torch's formula: exact at both ends (weight 0 gives input, weight 1 gives end)
    if not isinstance(weight, _T):
        w = scalar_tensor(weight, d)
        if builtins.abs(weight) < 0.5:
            return ops.add(input, ops.mul(w, diff))
        return ops.sub(end, ops.mul(diff, scalar_tensor(1 - weight, d)))
    lo = ops.add(input, ops.mul(weight, diff))
    hi = ops.sub(end, ops.mul(diff, ops.sub(scalar_tensor(1, d), weight)))
    return ops.where(ops.less(ops.abs(weight), scalar_tensor(0.5, d)), lo, hi)


def _c_name(d):
    return {D.float32: "float", D.float64: "double", D.float16: "c10::Half", D.bfloat16: "c10::BFloat16",
            D.int64: "long int", D.int32: "int", D.int16: "short int", D.int8: "signed char",
            D.uint8: "unsigned char", D.bool_: "bool"}.get(d, str(d))


@register("addcmul", family=F, inplace="addcmul_", out=True)
def addcmul(input, tensor1, tensor2, *, value=1):
    rt = result_type(input, tensor1, tensor2)
    prod = ops.mul(to_operand(tensor1, rt), to_operand(tensor2, rt))
    if value != 1:
        prod = ops.mul(to_operand(value, rt), prod)
    return ops.add(to_operand(input, rt), prod)


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
    q = ops.div(to_operand(tensor1, rt), to_operand(tensor2, rt))
    if value != 1:
        q = ops.mul(to_operand(value, rt), q)
    return ops.add(to_operand(input, rt), q)


@register("nan_to_num", family=F, inplace="nan_to_num_", out=True)
def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    d = dtype_of(input)
    if d._cat < D._FLOAT:
        return fresh(input)
    info = _finfo_max(d)
    posinf = info if posinf is None else posinf
    neginf = -info if neginf is None else neginf
    # MindSpore's NanToNum has no float64 kernel; three selects work for every float type
    x = ops.where(ops.isnan(input), scalar_tensor(float(nan), d), input)
    x = ops.where(ops.equal(x, scalar_tensor(math.inf, d)), scalar_tensor(float(posinf), d), x)
    return ops.where(ops.equal(x, scalar_tensor(-math.inf, d)), scalar_tensor(float(neginf), d), x)


def _finfo_max(d):
    return {D.float32: 3.4028234663852886e38, D.float64: 1.7976931348623157e308, D.float16: 65504.0,
            D.bfloat16: 3.3895313892515355e38}[d]
