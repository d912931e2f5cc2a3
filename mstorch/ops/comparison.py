"""Comparisons, logical and bitwise ops, NaN/inf tests, isclose, and clamp/maximum/minimum: the
pointwise ops whose results are masks or selections (family "pointwise"; helpers in pointwise.py).
Also the complex basics (real, imag, conj) and the family's top-level in-place functions (``torch.exp_``)."""
import mindspore as ms
from .._runtime import read_host
from . import _msops as ops

from .. import _dtype as D
from .. import _ms_private as P
from ._argerr import invalid_args, BINARY
from ._helpers import promote, dtype_of, to_operand, result_type, scalar_tensor, cast
from .._tensor import Tensor, wrap
from ._views import fresh
from ._registry import OPS
from .reduction import _nan_both
from .pointwise import F, register, _need_tensor, _not_impl, _T, _empty_broadcast

_bool = ms.bool_

# --- clamp / min-max ---------------------------------------------------------------------------

@register("clamp", family=F, inplace="clamp_", out="exact", aliases=("clip",), bf16=False)
def clamp(input, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    kinds = {isinstance(x, _T) for x in (min, max) if x is not None}
    if len(kinds) > 1 or not all(isinstance(x, (_T, bool, int, float)) for x in (min, max) if x is not None):
        raise invalid_args("clamp", (input, min) + ((max,) if max is not None else ()), signatures=(
            "Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None",
            "Tensor input, Number min = None, Number max = None, *, Tensor out = None"))
    if dtype_of(input).is_complex:   # (torch's check, before the bounds broadcast)
        raise NotImplementedError("clamp is not supported for complex types")
    rt = result_type(*(x for x in (input, min, max) if x is not None))
    if rt is D.bool_ and kinds == {True} and min is not None and max is not None:
        # (one tensor bound goes through torch's maximum/minimum, which take bool; both, its clamp kernel)
        raise NotImplementedError("\"clamp_cpu\" not implemented for 'Bool'")
    if rt is not D.bfloat16:
        return _clamp(input, min, max, rt, kinds == {True})
    # MindSpore's CPU comparisons and selects lack bfloat16: clamp in float32, every operand first rounded
    # to bfloat16 as torch's are (a Python bound 0.3 is 0.30078125 there: x == 0.30078125 is inside it)
    def up(v):
        if v is None:
            return None
        return cast(cast(v, ms.bfloat16) if isinstance(v, _T) else scalar_tensor(v, D.bfloat16), ms.float32)
    return cast(_clamp(up(input), up(min), up(max), D.float32, kinds == {True}), ms.bfloat16)


def _clamp(input, min, max, rt, tensor_bounds):
    x = xin = input if input.dtype is rt._ms else cast(input, rt._ms)
    # selects, not Maximum/Minimum: NaN passes through and, at x == bound, the gradient goes to x (torch)
    nan_bounds = rt._cat >= D._FLOAT and tensor_bounds   # a NaN in a tensor bound propagates too
    if min is not None:
        lo = to_operand(min, rt)
        if max is not None and tensor_bounds and P.requires_grad(lo):
            # torch's gradient reaches min only where min < max (x below min == max: nowhere)
            lo = ops.where(ops.less(lo, to_operand(max, rt)), lo, P.detach(lo))
        x = ops.where(ops.less(x, lo), lo, _nan_bound(x, lo) if nan_bounds else x)
    if max is not None:
        hi = to_operand(max, rt)
        x = ops.where(ops.greater(x, hi), hi, _nan_bound(x, hi) if nan_bounds else x)
    if xin is not x and P.requires_grad(xin) and ops._has_nan(xin):
        # torch passes the gradient only where min <= x <= max holds, which it does not for NaN
        x = ops.where(ops.isnan(xin), P.detach(x), x)
    if max is not None and min is not None and tensor_bounds and P.requires_grad(hi) and ops._has_nan(xin):
        # ... but max's reaches a NaN x too where max < min (torch: x > max or max < min): the NaN result
        # (NaN + 0) carries it
        x = ops.where(ops.logical_and(ops.isnan(xin), ops.less(hi, lo)), ops.add(P.detach(x), ops.sub(hi, P.detach(hi))), x)
    return x


def _nan_bound(x, bound):
    # a NaN bound is the result, but torch's gradient reaches neither x (x >= NaN fails) nor the bound
    # (x < NaN fails too)
    return ops.where(ops.isnan(bound), P.detach(bound), x)


@register("clamp_min", family=F, inplace="clamp_min_", out="exact", bf16=False)
def clamp_min(input, min):
    return clamp(input, min=min)


@register("clamp_max", family=F, inplace="clamp_max_", out="exact", bf16=False)
def clamp_max(input, max):
    return clamp(input, max=max)


def _minmax(name, fn, bool_fn):
    def impl(input, other):
        _need_tensor(name, input, 1, "input")
        _need_tensor(name, other, 2)
        a, b, rt = promote(input, other)
        if rt is D.bool_:
            return bool_fn(a, b)
        empty = _empty_broadcast(a, b)
        if empty is not None:
            return empty
        r = fn(a, b)
        if rt._cat >= D._FLOAT:   # MindSpore returns b when either is NaN: a NaN in a must win too
            r = _nan_both(a, b, r)
        return r
    impl.__name__ = name
    register(name, family=F, out=True)(impl)


_minmax("maximum", ops.maximum, ops.logical_or)
_minmax("minimum", ops.minimum, ops.logical_and)


def _fminmax(name, keep_first):
    def impl(input, other):
        _need_tensor(name, input, 1, "input")
        _need_tensor(name, other, 2)
        a, b, rt = promote(input, other)
        # one select, as torch's gradient has it: ties and a NaN in `other` pick `input`
        first = keep_first(a, b)
        if rt._cat >= D._FLOAT:
            first = ops.logical_or(first, ops.isnan(b))
        return ops.where(first, a, b)
    impl.__name__ = name
    register(name, family=F, out=True)(impl)


_fminmax("fmax", ops.greater_equal)
_fminmax("fmin", ops.less_equal)




# --- comparisons ---------------------------------------------------------------------------------

def _compare(name, fn, aliases=()):
    def impl(input, other):
        if not isinstance(input, _T):
            raise invalid_args(name, (input, other), signatures=BINARY)
        if isinstance(other, _T) and input.dtype is other.dtype:
            a, b = input, other
        else:
            try:
                a, b, _ = promote(input, other)
            except RuntimeError as exc:
                if name in ("eq", "ne") or "complex32" not in str(exc):
                    raise
                # float16 with a complex operand promotes to complex32, which torch orders with no kernel
                raise NotImplementedError(f"\"{name}_cpu\" not implemented for 'ComplexHalf'") from None
        if a.dtype is ms.bfloat16:
            # torch compares in the common dtype, a Python scalar rounded to bfloat16 first; MindSpore has no
            # bfloat16 comparison kernels, and float32 holds every bfloat16 value (the generic bf16 route
            # would compare with the scalar rounded to float32 only)
            a, b = cast(a, ms.float32), cast(b, ms.float32)
        return fn(a, b)
    impl.__name__ = name
    # (the (Number, Tensor) overloads have no out=)
    register(name, family=F, inplace=name + "_", out=True, out_requires="tensor_self", aliases=aliases,
             bf16=False)(impl)


for _name, _fn, _al in [("eq", ops.equal, ()), ("ne", ops.not_equal, ("not_equal",)),
                        ("lt", ops.less, ("less",)), ("le", ops.less_equal, ("less_equal",)),
                        ("gt", ops.greater, ("greater",)), ("ge", ops.greater_equal, ("greater_equal",))]:
    _compare(_name, _fn, _al)


@register("equal", family=F)
def equal(input, other):
    _need_tensor("equal", input, 1, "input")
    _need_tensor("equal", other, 2)
    if tuple(input.shape) != tuple(other.shape):
        return False
    if input.size == 0:
        return True
    a, b, rt = promote(input, other)
    return bool(read_host(ops.equal(a, b).all()))


# --- logical and bitwise -------------------------------------------------------------------------

def _as_bool(x):
    return x if x.dtype is _bool else ops.not_equal(x, scalar_tensor(0, dtype_of(x)))


def _logical(name, fn):
    def impl(input, other):
        _need_tensor(name, input, 1, "input")
        _need_tensor(name, other, 2)
        return fn(_as_bool(input), _as_bool(other))
    impl.__name__ = name
    register(name, family=F, inplace=name + "_", out=True)(impl)


for _name, _fn in [("logical_and", ops.logical_and), ("logical_or", ops.logical_or),
                   ("logical_xor", ops.logical_xor)]:
    _logical(_name, _fn)


@register("logical_not", family=F, inplace="logical_not_", out=True)
def logical_not(input):
    return ops.logical_not(_as_bool(input))


_KERNELS = {"bitwise_left_shift": "lshift", "bitwise_right_shift": "rshift"}


def _bitwise_operands(name, input, other):
    if not isinstance(input, _T) and not isinstance(other, _T):
        _need_tensor(name, input, 1, "input")
    a, b, rt = promote(input, other)
    if rt._cat >= D._FLOAT:
        _not_impl(f"{_KERNELS.get(name, name)}_cpu", a)
    return a, b, rt


def _bitwise(name, fn, bool_fn):
    def impl(input, other):
        a, b, rt = _bitwise_operands(name, input, other)
        return bool_fn(a, b) if rt is D.bool_ else fn(a, b)
    impl.__name__ = name
    register(name, family=F, inplace=name + "_", out=True, out_requires="tensor_self")(impl)


_bitwise("bitwise_and", ops.bitwise_and, ops.logical_and)
_bitwise("bitwise_or", ops.bitwise_or, ops.logical_or)
_bitwise("bitwise_xor", ops.bitwise_xor, ops.logical_xor)


@register("bitwise_not", family=F, inplace="bitwise_not_", out="exact")
def bitwise_not(input):
    if input.dtype is _bool:
        return ops.logical_not(input)
    if dtype_of(input)._cat >= D._FLOAT:
        _not_impl("bitwise_not_cpu", input)
    return ops.invert(input)


def _shift(name, left):
    def impl(input, other):
        a, b, rt = _bitwise_operands(name, input, other)
        if rt is D.bool_:   # (torch's shift kernels have no bool one)
            _not_impl(f"{_KERNELS[name]}_cpu", a)
        bits = 8 * dtype_of(a).itemsize
        # torch: shifting by a negative amount or by the bit width or more gives 0 (left, or right on
        # unsigned) or the sign fill (right on signed); C leaves it undefined
        zero = scalar_tensor(0, dtype_of(b))
        out_of_range = ops.logical_or(ops.less(b, zero), ops.greater_equal(b, scalar_tensor(bits, dtype_of(b))))
        if left:
            r = ops.bitwise_left_shift(a, ops.where(out_of_range, zero, b))
            r = ops.where(out_of_range, ops.zeros_like(r), r)
        else:
            cap = scalar_tensor(bits - 1, dtype_of(b))
            r = ops.bitwise_right_shift(a, ops.where(out_of_range, cap, b))
            if not dtype_of(a).is_signed:
                r = ops.where(out_of_range, ops.zeros_like(r), r)
        return r
    impl.__name__ = name
    register(name, family=F, inplace=name + "_", out=True, out_requires="tensor_self")(impl)


_shift("bitwise_left_shift", True)
_shift("bitwise_right_shift", False)


# --- NaN / inf tests, isclose ------------------------------------------------------------------

def _float_test(name, fn, int_value, combine=None):
    def impl(input):
        if combine is not None and dtype_of(input).is_complex:   # (MindSpore's kernels take no complex)
            return combine(fn(ops.real(input)), fn(ops.imag(input)))
        if dtype_of(input)._cat >= D._FLOAT:
            return fn(input)
        return (ops.ones if int_value else ops.zeros)(input.shape, _bool)
    impl.__name__ = name
    register(name, family=F)(impl)


_float_test("isnan", ops.isnan, False, ops.logical_or)
_float_test("isinf", ops.isinf, False, ops.logical_or)
_float_test("isfinite", ops.isfinite, True, ops.logical_and)
_float_test("isposinf", lambda x: ops.equal(x, scalar_tensor(float("inf"), dtype_of(x))), False)
_float_test("isneginf", lambda x: ops.equal(x, scalar_tensor(float("-inf"), dtype_of(x))), False)


@register("isreal", family=F)
def isreal(input):
    if dtype_of(input).is_complex:
        return ops.equal(ops.imag(input), scalar_tensor(0, dtype_of(input).to_real()))
    return ops.ones(input.shape, _bool)


@register("isclose", family=F)
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    _need_tensor("isclose", input, 1, "input")
    _need_tensor("isclose", other, 2)
    if input.dtype is not other.dtype:
        from .._tensor import scalar_type_name
        raise RuntimeError(f"{scalar_type_name(dtype_of(input))} did not match "
                           f"{scalar_type_name(dtype_of(other))}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol:g}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol:g}")
    close = ops.equal(input, other)
    d = dtype_of(input)
    cplx = d._cat == D._COMPLEX
    if equal_nan and d._cat >= D._FLOAT:
        nan = OPS["isnan"].impl   # (a complex one: NaN in either part)
        close = ops.logical_or(close, ops.logical_and(nan(input), nan(other)))
    if rtol == 0 and atol == 0:
        return close
    a, b = input, other
    if d._cat < D._FLOAT:   # torch compares integers with tolerances in the default float dtype
        a, b = cast(a, D.get_default_dtype()._ms), cast(b, D.get_default_dtype()._ms)
    fd = dtype_of(a)
    # (complex: the magnitudes, real as torch's; MindSpore's Abs of a complex tensor stays complex)
    mag = OPS["abs"].impl if cplx else ops.abs
    allowed = mag(ops.mul(b, scalar_tensor(rtol, fd)))
    allowed = ops.add(allowed, scalar_tensor(atol, dtype_of(allowed)))
    actual = mag(ops.sub(a, b))
    return ops.logical_or(close, ops.logical_and(ops.isfinite(actual), ops.less_equal(actual, allowed)))


@register("allclose", family=F)
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(read_host(isclose(input, other, rtol, atol, equal_nan).all()))


# --- complex basics ------------------------------------------------------------------------------

@register("real", family=F, namespace="torch", raw=True)
def real(input):
    if not input.dtype.is_complex:
        return input
    return wrap(ops.real(input._ms))


@register("imag", family=F, namespace="torch", raw=True)
def imag(input):
    if not input.dtype.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return wrap(ops.imag(input._ms))


@register("conj", family=F, raw=True)
def conj(input):
    return wrap(ops.conj(input._ms)) if input.dtype.is_complex else input


@register("conj_physical", family=F, inplace="conj_physical_", out="exact")
def conj_physical(input):
    return ops.conj(input) if dtype_of(input).is_complex else fresh(input)


@register("resolve_conj", family=F, raw=True)
def resolve_conj(input):
    return input


@register("resolve_neg", family=F, raw=True)
def resolve_neg(input):
    return input


def _tensor_input(name, input):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")


@register("is_conj", family=F, raw=True)
def is_conj(input):
    _tensor_input("is_conj", input)
    return False


@register("is_neg", family=F, raw=True)
def is_neg(input):
    _tensor_input("is_neg", input)
    return False


# --- torch.exp_(x) and friends: in-place ops as top-level functions ------------------------------

def inplace_function(method):
    def fn(input, *args, **kwargs):
        if not isinstance(input, Tensor):
            raise TypeError(f"{method}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
        return getattr(input, method)(*args, **kwargs)
    fn.__name__ = method
    return fn


for _name, _al in [
    ("neg_", ("negative_",)), ("abs_", ()), ("reciprocal_", ()), ("square_", ()), ("exp_", ()), ("log_", ()),
    ("sqrt_", ()), ("rsqrt_", ()), ("sin_", ()), ("cos_", ()), ("tan_", ()), ("tanh_", ()), ("sigmoid_", ()),
    ("log1p_", ()), ("expm1_", ()), ("log2_", ()), ("log10_", ()), ("erf_", ()), ("erfc_", ()), ("sinh_", ()),
    ("cosh_", ()), ("asin_", ("arcsin_",)), ("acos_", ("arccos_",)), ("atan_", ("arctan_",)),
    ("asinh_", ("arcsinh_",)), ("acosh_", ("arccosh_",)), ("atanh_", ("arctanh_",)), ("exp2_", ()),
    ("deg2rad_", ()), ("rad2deg_", ()), ("i0_", ()), ("sinc_", ()), ("logit_", ()), ("floor_", ()), ("ceil_", ()),
    ("trunc_", ("fix_",)), ("round_", ()), ("frac_", ()), ("xlogy_", ()), ("ldexp_", ()), ("gcd_", ()),
    ("lcm_", ()), ("nan_to_num_", ()), ("conj_physical_", ()), ("clamp_", ("clip_",)), ("clamp_min_", ()),
    ("clamp_max_", ()),
]:
    register(_name, family=F, namespace="torch", raw=True, aliases=_al)(inplace_function(_name))
