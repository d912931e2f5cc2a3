"""Pointwise ops: the family's registration wrapper (bfloat16 through float32) and shared argument checks,
unary float math (exp, log, trig, erf..., with the fixes where MindSpore's CPU kernels differ: log1p,
expm1, erfinv) and rounding. Arithmetic and the functions of three operands are in arithmetic.py, those
of two in binary_math.py; comparisons, logical/bitwise ops, clamp and the complex basics in comparison.py.
"""
import builtins
import math


import numpy as np
import mindspore as ms
from . import _msops as ops

from .. import _dtype as D
from .. import _ms_private as P
from .._tensor import scalar_type_name
from .._cast import NP_BF16
from ._helpers import MsTensor, float_result, dtype_of, result_type, scalar_tensor, cast, _node, to_operand
from ._registry import register as _register
from ._views import fresh

F = "pointwise"
_T = MsTensor
_bool, _f32, _f64, _f16, _bf16 = ms.bool_, ms.float32, ms.float64, ms.float16, ms.bfloat16
_TRUE = ms.Tensor(True)


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
        if isinstance(a, _T) and (a.dtype is _bf16 or back and a.dtype in _ROUND_TO_BF16):
            # a 0-d float operand of another dtype beside a bfloat16 tensor: torch casts it to the common
            # bfloat16 first (logaddexp(x, tensor(2.2)) adds 2.203125)
            return cast(a if a.dtype is _bf16 else cast(a, _bf16), _f32)
        return a

    def down(t):
        return cast(t, _bf16) if back and isinstance(t, _T) and t.dtype is _f32 else t
    r = fn(*[up(a) for a in args], **{k: up(v) for k, v in kwargs.items()})
    if not isinstance(r, tuple):
        return down(r)
    # (a torch.return_types namedtuple takes its fields as arguments)
    return type(r)(*(down(t) for t in r)) if hasattr(r, "_fields") else tuple(down(t) for t in r)


_ROUND_TO_BF16 = (_f16, _f32, _f64)


def _need_tensor(name, x, pos, arg="other"):
    """torch's argument parser: this argument must be a Tensor."""
    if not isinstance(x, _T):
        raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not {type(x).__name__}")


def _not_impl(kernel, t):
    raise NotImplementedError(f'"{kernel}" not implemented for \'{scalar_type_name(dtype_of(t))}\'')


def _zero_grad(r, x):
    """MindSpore's Round/Ceil/Sign give no gradient at all; torch gives zeros. A select that always
    picks ``r`` gives ``x`` the zero gradient, only when ``x`` needs one."""
    if P.requires_grad(x):
        return ops.where(_TRUE, r, x)
    return r


def _empty_broadcast(a, b):
    """An empty result of a and b broadcast (MindSpore's Maximum/Minimum refuse an empty output), on
    their graph; None when the result has elements."""
    if a.size and b.size:
        return None
    from ._views import broadcast_shape
    shape = broadcast_shape((a.shape, b.shape))
    return ops.zeros_on(shape, a.dtype, (a, b)) if 0 in shape else None


def _float_operands(a, b, rt, input=None, other=None):
    """Integer operands ``a, b`` (promoted to ``rt``) in the default float dtype. Given the caller's own
    operands ``input, other``, casts those instead: promote() has already cast them to the integer result
    type, which wraps a negative scalar or 0-d tensor beside an unsigned tensor (uint8 with -2 gives 254) or
    a large one beside a narrow tensor, where torch computes in float from the operand's own value."""
    if rt._cat < D._FLOAT:
        dt = D.get_default_dtype()
        if input is not None:
            return to_operand(input, dt), to_operand(other, dt)
        return cast(a, dt._ms), cast(b, dt._ms)
    return a, b


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
    if x.dtype in _COMPLEX:
        raise RuntimeError("rad2deg is not supported for complex tensors.")
    return _times_constant(x, 180.0 / math.pi)


def _deg2rad(x):
    if x.dtype in _COMPLEX:
        raise RuntimeError("deg2rad is not supported for complex tensors.")
    return _times_constant(x, math.pi / 180.0)


_COMPLEX = (ms.complex64, ms.complex128)


def _exp2(x):
    if x.dtype not in _COMPLEX:
        return ops.exp2(x)
    # torch's exp(ln2 * z) scales each part by ln2; MindSpore's complex product by ln2 + 0j makes
    # inf * 0 = NaN of an infinite part (exp2(inf + 1.69j) is inf + infj, not inf + NaNj)
    s = scalar_tensor(math.log(2.0), D.float64 if x.dtype == ms.complex128 else D.float32)
    return ops.exp(ops.complex_of_parts(ops.mul(ops.real(x), s), ops.mul(ops.imag(x), s)))


def _log1p_complex(z):
    # no complex Log1p kernel: torch's formula, log|1 + z| + i arg(1 + z) with |1 + z| from
    # 0.5 log1p(x (x + 2) + y^2) near 0 (x itself where that underflows to 0), from hypot further out
    x, y = ops.real(z), ops.imag(z)
    d = dtype_of(x)
    one = scalar_tensor(1, d)
    theta = ops.atan2(y, ops.add(x, one))
    r = ops.add(ops.mul(x, ops.add(x, scalar_tensor(2, d))), ops.square(y))
    near = ops.where(ops.equal(r, scalar_tensor(0, d)), x, ops.mul(_log1p(r), scalar_tensor(0.5, d)))
    far = ops.log(ops.hypot(ops.add(x, one), y))
    return ops.complex_of_parts(ops.where(ops.less(ops.hypot(x, y), scalar_tensor(0.5, d)), near, far), theta)


def _expm1_complex(z):
    # no complex Expm1 kernel: torch's formula, expm1(x) cos(y) - 2 sin(y / 2)^2 + i exp(x) sin(y)
    x, y = ops.real(z), ops.imag(z)
    d = dtype_of(x)
    a = ops.sin(ops.mul(y, scalar_tensor(0.5, d)))
    re = ops.sub(ops.mul(_expm1(x), ops.cos(y)), ops.mul(ops.square(a), scalar_tensor(2, d)))
    return ops.complex_of_parts(re, ops.mul(ops.exp(x), ops.sin(y)))


def _log1p(x):
    # MindSpore's Log1p is log(1 + x): all precision is lost for tiny x. 2*atanh(x / (x + 2)) is exact
    # to ~1 ulp on |x| < 0.5 (its input is clamped there so the unused branch stays finite for autograd);
    # outside that range, log(1 + x) is.
    if x.dtype in _COMPLEX:
        return _log1p_complex(x)
    d = dtype_of(x)
    xs = ops.clamp(x, -0.5, 0.5)
    small = ops.mul(ops.atanh(ops.div(xs, ops.add(xs, scalar_tensor(2, d)))), scalar_tensor(2, d))
    return ops.where(ops.less(ops.abs(x), scalar_tensor(0.5, d)), small, ops.log1p(x))


def _expm1(x):
    # MindSpore's Expm1 is exp(x) - 1 (no precision for tiny x). 2 sinh(x/2) exp(x/2) keeps it on
    # |x| <= 4; beyond, exp(x) - 1 is as exact as exp and reaches -1 exactly, as torch does.
    if x.dtype in _COMPLEX:
        return _expm1_complex(x)
    d = dtype_of(x)
    h = ops.mul(ops.clamp(x, -4.0, 4.0), scalar_tensor(0.5, d))
    mid = ops.mul(ops.mul(ops.sinh(h), ops.exp(h)), scalar_tensor(2, d))
    return ops.where(ops.less_equal(ops.abs(x), scalar_tensor(4.0, d)), mid, ops.sub(ops.exp(x), scalar_tensor(1, d)))


_SQRT_PI_2 = 2 / math.sqrt(math.pi)


def _erfinv(x):
    if P.grad_enabled() and P.requires_grad(x):
        out = _ErfinvNode.apply(x)
        P.set_function_of_output(out, _ErfinvNode)
        return out
    return _erfinv_value(x)


def _erfinv_value(x):
    # MindSpore's Erfinv is exact up to |x| ~ 0.95 and 2-30% off in the tails. Tails start from
    # Winitzki's closed form (~2e-3), then two Halley steps on erf(y) = x (erf itself is exact).
    d = dtype_of(x)
    if d.itemsize == 2:
        return cast(_erfinv_value(cast(x, _f32)), x.dtype)
    ax = ops.abs(x)
    central = ops.less(ax, scalar_tensor(0.95, d))
    xt = ops.where(central, ops.full_like(x, 0.975), x)
    ln = ops.log(ops.mul(ops.sub(scalar_tensor(1, d), xt), ops.add(scalar_tensor(1, d), xt)))
    a = 0.147
    t = ops.add(ops.mul(ln, scalar_tensor(0.5, d)), scalar_tensor(2 / (math.pi * a), d))
    tail = ops.sqrt(ops.sub(ops.sqrt(ops.sub(ops.square(t), ops.mul(ln, scalar_tensor(1 / a, d)))), t))
    y = ops.where(central, ops.erfinv(x), ops.copysign(tail, x))
    c = scalar_tensor(_SQRT_PI_2, d)
    for _ in range(2):
        f = ops.sub(ops.erf(y), x)
        y = ops.sub(y, ops.div(f, ops.add(ops.mul(ops.exp(ops.neg(ops.square(y))), c), ops.mul(y, f))))
    inf = ops.copysign(scalar_tensor(math.inf, d).broadcast_to(x.shape), x)
    return ops.where(ops.equal(ax, scalar_tensor(1, d)), inf, y)


class _ErfinvNode(P.FunctionBase):
    """erfinv with torch's gradient sqrt(pi) / 2 * exp(erfinv(x)^2): infinite at +-1 (a gradient through the
    composed value above met 0 * inf there, NaN). The backward is in ops a recording pass records
    (create_graph: _higher_order._OWN_FUNCTIONS)."""

    @staticmethod
    def forward(node, x):
        node.save_for_backward(x)
        return _erfinv_value(x)

    @staticmethod
    def backward(node, g):
        (x,) = node.saved_tensors
        y = _erfinv(x)
        return ops.mul(g, ops.mul(ops.exp(ops.square(y)), scalar_tensor(math.sqrt(math.pi) / 2, dtype_of(y))))


_ErfinvNode = type("ErfinvBackward0", (_ErfinvNode,), {})   # torch's node name, kept by grad_fn


def tanh_accurate(x):
    """tanh within 4 float32 ulps of torch. MindSpore's float32 Tanh is exact below |x| = 2 and up to 1e-4
    off above; there 2 sigmoid(2x) - 1 is exact to the rounding of a value near 1 (and +-1 at +-inf, NaN
    for NaN). Other dtypes' kernels are exact."""
    if x.dtype is not _f32:
        return ops.tanh(x)
    two = scalar_tensor(2.0, D.float32)
    tail = ops.sub(ops.mul(ops.sigmoid(ops.mul(x, two)), two), scalar_tensor(1.0, D.float32))
    return ops.where(ops.less(ops.abs(x), two), ops.tanh(x), tail)


def _sigmoid(x):
    """A complex input is torch's 1 / (1 + exp(-z)), divided as c10::complex divides (NaN once exp(-z) is
    infinite: sigmoid(-inf + 0.01j) is nan + nan j; MindSpore's kernel gives the limit 0)."""
    if x.dtype not in _COMPLEX:
        return ops.sigmoid(x)
    from .arithmetic import _complex_div   # (arithmetic.py builds on this module)
    e = ops.exp(ops.neg(x))
    den = ops.complex_of_parts(ops.add(ops.real(e), scalar_tensor(1, dtype_of(ops.real(e)))), ops.imag(e))
    return _complex_div(ops.ones_like(den), den)


def _log_base(fn, base):
    """log2 / log10: a complex input is log(z) with both parts scaled (MindSpore's complex kernels give a
    NaN imaginary part at an infinite real part, as a complex product by 1 / ln(base) would)."""
    scale = 1 / math.log(base)

    def log_b(x):
        if not dtype_of(x).is_complex:
            return fn(x)
        z = ops.log(x)
        s = scalar_tensor(scale, D.float64 if x.dtype == ms.complex128 else D.float32)
        return ops.complex_of_parts(ops.mul(ops.real(z), s), ops.mul(ops.imag(z), s))
    return log_b


def _lgamma(x):
    """lgamma; a float64 one that needs gradients with torch's grad * digamma(x) in float64 (MindSpore's
    Lgamma backward takes digamma at float32's precision: -inf at 1e300, NaN beside a pole)."""
    if x.dtype is _f64 and x.size and P.grad_enabled() and P.requires_grad(x):
        return _lgamma_node(x)
    return ops.lgamma(x)


_lgamma_node = _node("LgammaBackward0", lambda x: (ops.lgamma(x), (x,)),
                     lambda saved, g: ops.mul(g, ops.digamma(saved[0])))


for _name, _fn in [
    ("exp", ops.exp), ("log", ops.log), ("sqrt", ops.sqrt), ("rsqrt", ops.rsqrt), ("sin", ops.sin),
    ("cos", ops.cos), ("tan", ops.tan), ("tanh", tanh_accurate), ("sigmoid", _sigmoid),
    ("log1p", _log1p), ("expm1", _expm1), ("log2", _log_base(ops.log2, 2)),
    ("log10", _log_base(ops.log10, 10)),
    ("erf", ops.erf), ("erfc", ops.erfc), ("erfinv", _erfinv), ("sinh", ops.sinh), ("cosh", ops.cosh),
    ("asin", ops.asin), ("acos", ops.acos), ("atan", ops.atan), ("asinh", ops.asinh),
    ("acosh", ops.acosh), ("atanh", ops.atanh), ("exp2", _exp2), ("deg2rad", _deg2rad),
    ("rad2deg", _rad2deg), ("digamma", ops.digamma), ("lgamma", _lgamma), ("i0", ops.i0),
]:
    _unary_float(_name, _fn, aliases={"asin": ("arcsin",), "acos": ("arccos",), "atan": ("arctan",),
                                      "asinh": ("arcsinh",), "acosh": ("arccosh",),
                                      "atanh": ("arctanh",)}.get(_name, ()))


@register("sinc", family=F, inplace="sinc_", out=True)
def sinc(input):
    x = float_result(input)
    if x.dtype == ms.float16:   # torch computes half in float32 (pi * 65504 overflows float16)
        return cast(sinc(cast(x, _f32)), ms.float16)
    d = dtype_of(x)
    zero = ops.equal(x, scalar_tensor(0, d))
    px = ops.mul(ops.where(zero, scalar_tensor(1, d), x), scalar_tensor(math.pi, d))   # no 0/0, in value or grad
    return ops.where(zero, scalar_tensor(1, d), ops.div(ops.sin(px), px))


@register("logit", family=F, inplace="logit_", out=True, bf16=False)
def logit(input, eps=None):
    x = float_result(input)
    bounds = None if eps is None else (eps, 1 - eps)
    if x.dtype is _bf16:
        # bounds of bfloat16 (1 - 1e-6 is 1 there, and the logit inf, as in torch), computed in float32
        if bounds is not None:
            bounds = tuple(float(np.array(v, dtype=NP_BF16)) for v in bounds)
        return cast(_logit(cast(x, _f32), bounds), _bf16)
    return _logit(x, bounds)


def _logit(x, bounds):
    if P.grad_enabled() and P.requires_grad(x):
        out = _LogitNode.apply(x, bounds)
        P.set_function_of_output(out, _LogitNode)
        return out
    return _logit_value(x, bounds)


def _logit_value(x, bounds):
    if bounds is not None:   # (float16 bounds round to float16 in its clamp)
        x = ops.clamp(x, *bounds)
    return ops.log(ops.div(x, ops.sub(scalar_tensor(1, dtype_of(x)), x)))


class _LogitNode(P.FunctionBase):
    """logit with torch's gradient: grad / (x (1 - x)), NaN outside [0, 1] and infinite (the sign of grad) at
    0 and 1; with eps, 0 outside [eps, 1 - eps]. The composed log(x / (1 - x)) gave finite values outside
    the domain and NaN at its ends. In ops a recording pass records (_higher_order._OWN_FUNCTIONS)."""

    @staticmethod
    def forward(node, x, bounds):
        node.save_for_backward(x)
        node.bounds = bounds
        return _logit_value(x, bounds)

    @staticmethod
    def backward(node, g):
        (x,) = node.saved_tensors
        d = dtype_of(x)
        one = scalar_tensor(1, d)
        lo, hi = (0.0, 1.0) if node.bounds is None else node.bounds
        outside = ops.logical_or(ops.less(x, scalar_tensor(lo, d)), ops.greater(x, scalar_tensor(hi, d)))
        den = ops.mul(x, ops.sub(one, x))
        # (MindSpore's Div gives g / 0 the sign of g, as torch's kernel does here)
        r = ops.div(g, den)
        fill = scalar_tensor(math.nan if node.bounds is None else 0.0, d)
        return ops.where(outside, ops.broadcast_to(fill, r.shape), r), None


_LogitNode = type("LogitBackward0", (_LogitNode,), {})   # torch's node name, kept by grad_fn


@register("polygamma", family=F, inplace="polygamma_", out=True)
def polygamma(n, input):
    if isinstance(n, _T):      # the method form: x.polygamma(n)
        n, input = input, n
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"polygamma(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    if input.dtype in _COMPLEX:
        _not_impl({0: "digamma", 1: "trigamma"}.get(n, "polygamma"), input)
    x = float_result(input)
    if n == 0:
        return ops.digamma(x)
    if n == 1:
        return _trigamma_node(x) if P.grad_enabled() and P.requires_grad(x) else _trigamma(x)
    return ops.polygamma(ms.Tensor(n, ms.int64), x)


def _trigamma(x):
    # torch's series: reflection below 1/2, six recurrence steps, then the asymptotic expansion. At the
    # poles (x = 0, -1, -2...) sin(pi x) is not exactly 0, so torch's value is huge but finite
    # (1.29e15 at -1 in float32) where MindSpore's Polygamma gives inf. float16 computes in float32
    d = x.dtype
    if d is _f16:
        return cast(_trigamma(cast(x, _f32)), _f16)

    def c(v):
        return scalar_tensor(v, dtype_of(x))
    pi = float(np.float32(math.pi)) if d is _f32 else math.pi
    pi2 = float(np.float32(pi) * np.float32(pi)) if d is _f32 else math.pi * math.pi
    reflect = ops.less(x, c(0.5))
    sin = ops.sin(ops.mul(c(pi), x))
    result = ops.where(reflect, ops.neg(ops.div(c(pi2), ops.mul(sin, sin))), c(0.0))
    x = ops.where(reflect, ops.sub(c(1.0), x), x)
    for _ in range(6):
        result = ops.add(result, ops.reciprocal(ops.mul(x, x)))
        x = ops.add(x, c(1.0))
    ixx = ops.reciprocal(ops.mul(x, x))
    head = ops.add(c(1.0), ops.div(c(1.0), ops.mul(c(2.0), x)))
    tail = ops.mul(ixx, ops.sub(c(1 / 6), ops.mul(ixx, ops.sub(c(1 / 30), ops.mul(ixx, c(1 / 42))))))
    result = ops.add(result, ops.div(ops.add(head, tail), x))
    return ops.where(reflect, ops.neg(result), result)


def _trigamma_backward(saved, g):
    # torch's: grad * polygamma(2, x)
    (x,) = saved
    return ops.mul(g, ops.polygamma(ms.Tensor(2, ms.int64), x))


_trigamma_node = _node("PolygammaBackward0", lambda x: (_trigamma(x), (x,)), _trigamma_backward)


def _mvlgamma_check(input, p):
    if input.dtype == ms.bool_:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")


@register("mvlgamma", family=F, out=True)
def mvlgamma(input, p):
    _mvlgamma_check(input, p)
    if dtype_of(input).is_complex:   # (torch's arange of the offsets in the input's dtype, even for no element)
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{scalar_type_name(dtype_of(input))}'")
    x = float_result(input)
    d = dtype_of(x)
    # sum of lgamma(x - j/2) plus a constant (MindSpore's kernel refuses x <= (p-1)/2, torch does not)
    r = _lgamma(x)
    for j in range(1, p):
        r = ops.add(r, _lgamma(ops.sub(x, scalar_tensor(j / 2, d))))
    return ops.add(r, scalar_tensor(p * (p - 1) / 4 * math.log(math.pi), d))


@register("mvlgamma_", family=F, namespace="Tensor", raw=True)
def mvlgamma_(self, p):
    """torch's mvlgamma_ is self.copy_(the sum of lgamma over arange(...) + self): the arange of a complex
    dtype refuses before copy_ checks an expanded receiver's overlap (the generic in-place checks it first)."""
    self._check_inplace()
    _mvlgamma_check(self._ms, p)
    if self.dtype.is_complex:
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{scalar_type_name(self.dtype)}'")
    if not self.dtype.is_floating_point:   # (torch's wording, the types as it names them)
        raise RuntimeError(f"mvlgamma: result type {scalar_type_name(self.dtype)} can't be cast to the desired "
                           f"output type {scalar_type_name(D.get_default_dtype())}")
    src = self._ms
    if P.requires_grad(src) and P.grad_enabled():
        src = fresh(src)   # (lgamma saves its input, which the write below changes)
    return self._write(mvlgamma(src, p))


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
        if d.is_complex:   # (torch's own check, before its kernel and an in-place receiver's overlap check)
            raise NotImplementedError(f"{name} is not supported for complex inputs")
        if d._cat < D._FLOAT:
            if d is D.bool_:
                _not_impl(kernel, input)
            return fresh(input)
        r = fn(input)
        return _zero_grad(r, input) if zero_grad else r
    impl.__name__ = name
    register(name, family=F, inplace=name + "_", out="exact", aliases=("fix",) if name == "trunc" else ())(impl)


_unary_keep("floor", ops.floor, "floor_vml_cpu")
_unary_keep("ceil", ops.ceil, "ceil_vml_cpu", zero_grad=True)
_unary_keep("trunc", ops.trunc, "trunc_vml_cpu")


@register("round", family=F, inplace="round_", out="exact")
def round(input, *, decimals=None):
    d = dtype_of(input)
    if d._cat < D._FLOAT:
        # (torch's round.decimals overload has no integer kernel, even for decimals=0; plain round has)
        if d is D.bool_ or decimals == 0:
            _not_impl("round_vml_cpu", input)
        if decimals:
            _not_impl("round_cpu", input)
        return fresh(input)
    decimals = decimals or 0
    if decimals == 0:
        return _zero_grad(ops.round(input), input)
    if input.dtype in (ms.float16, ms.bfloat16):
        # torch's half kernels scale and round in float32 (-65504 * 100 stays finite) and round once
        return cast(round(cast(input, ms.float32), decimals=decimals), input.dtype)
    # torch scales by 10**|decimals| the way that keeps the scale exact: x * s / s, or x / s * s
    s = scalar_tensor(10.0 ** builtins.abs(decimals), d)
    if decimals > 0:
        return ops.div(_zero_grad(ops.round(ops.mul(input, s)), input), s)
    return ops.mul(_zero_grad(ops.round(ops.div(input, s)), input), s)


@register("frac", family=F, inplace="frac_", out="exact")
def frac(input):
    if dtype_of(input)._cat < D._FLOAT:
        _not_impl("frac_cpu", input)
    return ops.sub(input, ops.trunc(input))
