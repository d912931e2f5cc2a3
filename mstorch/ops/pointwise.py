"""Pointwise ops: arithmetic, unary math, comparisons and logical ops, with torch's type promotion.

Implementations take mindspore.Tensors or Python scalars. Families are built by small factories:
a unary float op (int inputs compute in the default dtype), a binary op with promotion, a comparison.
"""
import mindspore as ms
from mindspore import ops

from .. import _dtype as D
from ._helpers import MsTensor, promote, float_result, dtype_of, to_operand, result_type, _scalar_name
from ._registry import register

F = "pointwise"
_bool = ms.bool_


def _tensor_first(a, b):
    if not isinstance(a, MsTensor) and not isinstance(b, MsTensor):
        raise TypeError("expected at least one Tensor argument")


# --- arithmetic ---------------------------------------------------------------------------------

@register("add", family=F, inplace="add_", out=True)
def add(input, other, *, alpha=1):
    a, b, rt = promote(input, other)
    if alpha != 1:
        _check_alpha(rt, alpha)
        b = ops.mul(b, to_operand(alpha, rt))
    if rt is D.bool_:
        return ops.logical_or(a, b)
    return ops.add(a, b)


@register("sub", family=F, inplace="sub_", out=True, aliases=("subtract",))
def sub(input, other, *, alpha=1):
    a, b, rt = promote(input, other)
    if rt is D.bool_:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead.")
    if alpha != 1:
        _check_alpha(rt, alpha)
        b = ops.mul(b, to_operand(alpha, rt))
    return ops.sub(a, b)


@register("rsub", family=F, method=False)
def rsub(input, other, *, alpha=1):
    return sub(other, input, alpha=alpha)


def _check_alpha(rt, alpha):
    if isinstance(alpha, float) and rt._cat < D._FLOAT:
        raise RuntimeError(f"For integral input tensors, argument alpha must not be a floating point number.")


@register("mul", family=F, inplace="mul_", out=True, aliases=("multiply",))
def mul(input, other):
    a, b, rt = promote(input, other)
    if rt is D.bool_:
        return ops.logical_and(a, b)
    return ops.mul(a, b)


@register("div", family=F, inplace="div_", out=True, aliases=("divide",))
def div(input, other, *, rounding_mode=None):
    a, b, rt = promote(input, other)
    if rounding_mode is None:
        if rt._cat < D._FLOAT:
            dt = D.get_default_dtype()._ms
            a, b = a.astype(dt), b.astype(dt)
        return ops.div(a, b)
    if rounding_mode == "trunc":
        if rt._cat < D._FLOAT:
            return ops.truncate_div(a, b)
        return ops.trunc(ops.div(a, b))
    if rounding_mode == "floor":
        return ops.floor_div(a, b) if rt._cat < D._FLOAT else ops.floor(ops.div(a, b))
    raise RuntimeError(
        f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'")


@register("true_divide", family=F, inplace="true_divide_", out=True)
def true_divide(input, other):
    return div(input, other)


@register("floor_divide", family=F, inplace="floor_divide_", out=True)
def floor_divide(input, other):
    return div(input, other, rounding_mode="floor")


@register("remainder", family=F, inplace="remainder_", out=True)
def remainder(input, other):
    a, b, rt = promote(input, other)
    return ops.sub(a, ops.mul(ops.floor_div(a, b) if rt._cat < D._FLOAT else ops.floor(ops.div(a, b)), b))


@register("fmod", family=F, inplace="fmod_", out=True)
def fmod(input, other):
    a, b, rt = promote(input, other)
    if rt._cat < D._FLOAT:
        return ops.sub(a, ops.mul(ops.truncate_div(a, b), b))
    return ops.fmod(a, b)


@register("pow", family=F, inplace="pow_", out=True)
def pow(input, exponent):
    if isinstance(input, MsTensor) and isinstance(exponent, (int, float)) and not isinstance(exponent, bool):
        rt = result_type(input, exponent)
        base = input if input.dtype == rt._ms else input.astype(rt._ms)
        if exponent == 2:
            return ops.square(base)
        if exponent == 1:
            return base.copy()
        if rt._cat < D._FLOAT and exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        return ops.pow(base, exponent)
    a, b, rt = promote(input, exponent)
    return ops.pow(a, b)


@register("float_power", family=F, inplace="float_power_", out=True)
def float_power(input, exponent):
    a, b, rt = promote(input, exponent)
    dt = ms.complex128 if rt.is_complex else ms.float64
    return ops.pow(a.astype(dt), b.astype(dt))


@register("neg", family=F, inplace="neg_", out=True, aliases=("negative",))
def neg(input):
    if input.dtype == _bool:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert "
            "a mask, use the `~` or `logical_not()` operator instead.")
    return ops.neg(input)


@register("abs", family=F, inplace="abs_", out=True, aliases=("absolute",))
def abs(input):
    if input.dtype == _bool:
        return input.copy()
    return ops.abs(input)


@register("sign", family=F, inplace="sign_", out=True)
def sign(input):
    if input.dtype == _bool:
        return input.copy()
    return ops.sign(input)


@register("reciprocal", family=F, inplace="reciprocal_", out=True)
def reciprocal(input):
    return ops.reciprocal(float_result(input))


@register("square", family=F, inplace="square_", out=True)
def square(input):
    if input.dtype == _bool:
        return input.astype(ms.int64)
    return ops.square(input)


# --- unary float math --------------------------------------------------------------------------

def _unary_float(name, fn, aliases=()):
    def impl(input):
        return fn(float_result(input))
    impl.__name__ = name
    register(name, family=F, inplace=name + "_", out=True, aliases=aliases)(impl)


for _name, _fn in [
    ("exp", ops.exp), ("log", ops.log), ("sqrt", ops.sqrt), ("rsqrt", ops.rsqrt), ("sin", ops.sin),
    ("cos", ops.cos), ("tan", ops.tan), ("tanh", ops.tanh), ("sigmoid", ops.sigmoid),
    ("log1p", ops.log1p), ("expm1", ops.expm1), ("log2", ops.log2), ("log10", ops.log10),
    ("erf", ops.erf), ("erfc", ops.erfc), ("erfinv", ops.erfinv), ("sinh", ops.sinh), ("cosh", ops.cosh),
    ("asin", ops.asin), ("acos", ops.acos), ("atan", ops.atan), ("asinh", ops.asinh),
    ("acosh", ops.acosh), ("atanh", ops.atanh), ("exp2", ops.exp2),
]:
    _unary_float(_name, _fn, aliases={"asin": ("arcsin",), "acos": ("arccos",), "atan": ("arctan",),
                                      "asinh": ("arcsinh",), "acosh": ("arccosh",),
                                      "atanh": ("arctanh",)}.get(_name, ()))


def _unary_keep(name, fn):
    """Ops that keep integer dtypes (floor/ceil/round/trunc are identities on integers in torch)."""
    def impl(input):
        if dtype_of(input)._cat < D._FLOAT:
            return input.copy()
        return fn(input)
    impl.__name__ = name
    register(name, family=F, inplace=name + "_", out=True)(impl)


for _name, _fn in [("floor", ops.floor), ("ceil", ops.ceil), ("trunc", ops.trunc)]:
    _unary_keep(_name, _fn)


@register("round", family=F, inplace="round_", out=True)
def round(input, *, decimals=0):
    if dtype_of(input)._cat < D._FLOAT:
        return input.copy()
    if decimals == 0:
        return ops.round(input)
    scale = 10.0 ** decimals
    return ops.div(ops.round(ops.mul(input, scale)), scale)


@register("frac", family=F, inplace="frac_", out=True)
def frac(input):
    return ops.sub(input, ops.trunc(input))


# --- clamp / min-max ---------------------------------------------------------------------------

@register("clamp", family=F, inplace="clamp_", out=True, aliases=("clip",))
def clamp(input, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    rt = result_type(*(x for x in (input, min, max) if x is not None))
    x = input if input.dtype == rt._ms else input.astype(rt._ms)
    if min is not None:
        x = ops.maximum(x, to_operand(min, rt))
    if max is not None:
        x = ops.minimum(x, to_operand(max, rt))
    return x


@register("clamp_min", family=F, inplace="clamp_min_", out=True)
def clamp_min(input, min):
    return clamp(input, min=min)


@register("clamp_max", family=F, inplace="clamp_max_", out=True)
def clamp_max(input, max):
    return clamp(input, max=max)


def _binary(name, fn, inplace=True):
    def impl(input, other):
        a, b, rt = promote(input, other)
        return fn(a, b)
    impl.__name__ = name
    register(name, family=F, inplace=(name + "_") if inplace else None, out=True)(impl)


for _name, _fn in [("maximum", ops.maximum), ("minimum", ops.minimum)]:
    _binary(_name, _fn, inplace=False)


@register("atan2", family=F, inplace="atan2_", out=True, aliases=("arctan2",))
def atan2(input, other):
    a, b, rt = promote(input, other)
    if rt._cat < D._FLOAT:
        dt = D.get_default_dtype()._ms
        a, b = a.astype(dt), b.astype(dt)
    return ops.atan2(a, b)


@register("hypot", family=F, inplace="hypot_", out=True)
def hypot(input, other):
    a, b, rt = promote(input, other)
    return ops.sqrt(ops.add(ops.square(a), ops.square(b)))


@register("lerp", family=F, inplace="lerp_", out=True)
def lerp(input, end, weight):
    diff = ops.sub(end, input)
    w = weight if isinstance(weight, MsTensor) else to_operand(weight, dtype_of(input))
    return ops.add(input, ops.mul(w, diff))


@register("addcmul", family=F, inplace="addcmul_", out=True)
def addcmul(input, tensor1, tensor2, *, value=1):
    prod = ops.mul(tensor1, tensor2)
    if value != 1:
        prod = ops.mul(prod, to_operand(value, dtype_of(prod)))
    return add(input, prod)


@register("addcdiv", family=F, inplace="addcdiv_", out=True)
def addcdiv(input, tensor1, tensor2, *, value=1):
    if dtype_of(tensor1)._cat < D._FLOAT and dtype_of(tensor2)._cat < D._FLOAT:
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future release addcdiv will "
            "perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be "
            "implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer "
            "inputs and as (input + value * tensor1 / tensor2) for float inputs. The future addcdiv "
            "behavior is just the latter implementation: (input + value * tensor1 / tensor2), for all "
            "dtypes.")
    q = ops.div(tensor1, tensor2)
    if value != 1:
        q = ops.mul(q, to_operand(value, dtype_of(q)))
    return add(input, q)


@register("logaddexp", family=F, out=True)
def logaddexp(input, other):
    a, b, rt = promote(input, other)
    m = ops.maximum(a, b)
    return ops.add(m, ops.log1p(ops.exp(ops.neg(ops.abs(ops.sub(a, b))))))


@register("nan_to_num", family=F, inplace="nan_to_num_", out=True)
def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    if dtype_of(input)._cat < D._FLOAT:
        return input.copy()
    return ops.nan_to_num(input, nan, posinf, neginf)


# --- comparisons and logical ops ---------------------------------------------------------------

def _compare(name, fn, aliases=()):
    def impl(input, other):
        a, b, rt = promote(input, other)
        return fn(a, b)
    impl.__name__ = name
    register(name, family=F, inplace=name + "_", out=True, aliases=aliases)(impl)


for _name, _fn, _al in [("eq", ops.equal, ()), ("ne", ops.not_equal, ("not_equal",)),
                        ("lt", ops.less, ("less",)), ("le", ops.less_equal, ("less_equal",)),
                        ("gt", ops.greater, ("greater",)), ("ge", ops.greater_equal, ("greater_equal",))]:
    _compare(_name, _fn, _al)


@register("equal", family=F)
def equal(input, other):
    if tuple(input.shape) != tuple(other.shape):
        return False
    a, b, rt = promote(input, other)
    return bool(ops.equal(a, b).all().asnumpy())


def _logical(name, fn):
    def impl(input, other):
        return fn(input.astype(_bool), to_operand(other, D.bool_) if not isinstance(other, MsTensor)
                  else other.astype(_bool))
    impl.__name__ = name
    register(name, family=F, inplace=name + "_", out=True)(impl)


for _name, _fn in [("logical_and", ops.logical_and), ("logical_or", ops.logical_or),
                   ("logical_xor", ops.logical_xor)]:
    _logical(_name, _fn)


@register("logical_not", family=F, inplace="logical_not_", out=True)
def logical_not(input):
    return ops.logical_not(input.astype(_bool))


def _bitwise(name, fn, bool_fn):
    def impl(input, other):
        a, b, rt = promote(input, other)
        if rt._cat >= D._FLOAT:
            raise RuntimeError(f'"{name}_cpu" not implemented for \'{_scalar_name(a)}\'')
        if rt is D.bool_:
            return bool_fn(a, b)
        return fn(a, b)
    impl.__name__ = name
    register(name, family=F, inplace=name + "_", out=True)(impl)


_bitwise("bitwise_and", ops.bitwise_and, ops.logical_and)
_bitwise("bitwise_or", ops.bitwise_or, ops.logical_or)
_bitwise("bitwise_xor", ops.bitwise_xor, ops.logical_xor)


@register("bitwise_not", family=F, inplace="bitwise_not_", out=True)
def bitwise_not(input):
    if input.dtype == _bool:
        return ops.logical_not(input)
    if dtype_of(input)._cat >= D._FLOAT:
        raise RuntimeError(f'"bitwise_not_cpu" not implemented for \'{_scalar_name(input)}\'')
    return ops.invert(input)


@register("isnan", family=F)
def isnan(input):
    return ops.isnan(input) if dtype_of(input)._cat >= D._FLOAT else ops.zeros(input.shape, _bool)


@register("isinf", family=F)
def isinf(input):
    return ops.isinf(input) if dtype_of(input)._cat >= D._FLOAT else ops.zeros(input.shape, _bool)


@register("isfinite", family=F)
def isfinite(input):
    return ops.isfinite(input) if dtype_of(input)._cat >= D._FLOAT else ops.ones(input.shape, _bool)


@register("isclose", family=F)
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    a, b, rt = promote(input, other)
    if rt._cat < D._FLOAT:
        return ops.equal(a, b)
    diff = ops.abs(ops.sub(a, b))
    close = ops.less_equal(diff, ops.add(ops.mul(ops.abs(b), rtol), atol))
    close = ops.logical_or(close, ops.equal(a, b))
    if equal_nan:
        close = ops.logical_or(close, ops.logical_and(ops.isnan(a), ops.isnan(b)))
    return close


@register("allclose", family=F)
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(isclose(input, other, rtol, atol, equal_nan).all().asnumpy())
