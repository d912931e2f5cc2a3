"""torch.special: table entries keyed ``special.<name>``; ``mstorch/special.py`` makes the module.

Most are a top-level op under torch.special's name (expit is sigmoid, gammaln is lgamma...) and bind
the same implementation. The rest use MindSpore's Bessel/Zeta kernels, SciPy's Cephes igamma, or short compositions:
ndtr, ndtri, log_ndtr and erfcx compute in float64 (erfc is accurate deep into its tail there) with an
asymptotic series beyond it. Where torch's derivative is a formula of its own (erfcx, log_ndtr, i1, entr,
ndtri, igamma), a node of ours computes that formula, rounded as torch rounds it. torch gives the Bessel
family (bessel_j0, modified_bessel_k0...) no gradient: their outputs here do not require grad either.
"""
import math

import mindspore as ms
from . import _msops as ops

from .. import _dtype as D
from .._dtype import scalar_type_name
from ._helpers import float_result, promote, dtype_of, cast, scalar_tensor
from ._argerr import invalid_args, BINARY_SCALAR_SELF
from ._registry import register, OPS
from .pointwise import _log1p, _float_operands
from .linalg_decomp import _node
from .reduction import needs_grad
from .. import _ms_private as P
from .._runtime import read_host
from ._views import infer_size
from .arithmetic import _sum_to
from .binary_math import x_log

F = "torch.special"
_f64 = ms.float64


def _same(name, top):
    return register(f"special.{name}", family=F, namespace="special", out=True, out_check=OPS[top].out_check)(
        OPS[top].impl)


for _name, _top in [("expit", "sigmoid"), ("logit", "logit"), ("erf", "erf"), ("erfc", "erfc"), ("erfinv", "erfinv"),
                    ("gammaln", "lgamma"), ("digamma", "digamma"), ("psi", "digamma"), ("polygamma", "polygamma"),
                    ("multigammaln", "mvlgamma"), ("xlogy", "xlogy"), ("i0", "i0"), ("log1p", "log1p"),
                    ("expm1", "expm1"), ("exp2", "exp2"), ("round", "round"), ("sinc", "sinc"),
                    ("logsumexp", "logsumexp")]:
    _same(_name, _top)


@register("special.softmax", family=F, namespace="special")
def softmax(input, dim, *, dtype=None):
    return OPS["softmax"].impl(input, dim, dtype)


@register("special.log_softmax", family=F, namespace="special")
def log_softmax(input, dim, *, dtype=None):
    return OPS["log_softmax"].impl(input, dim, dtype)


def _recorded(fn, *args):
    """``fn(*args)`` as the binding calls a differentiable op while autograd records (empty inputs that
    need gradients linked by hand: MindSpore's backward kernels refuse empty tensors). Ops whose backward
    can raise are registered as not differentiable, so that their raising node is recorded even for empty
    inputs (torch raises there too), and come here once it is ruled out."""
    if not P.grad_enabled():
        return fn(*args)
    from ._bind import _call_recorded
    return _call_recorded(fn, list(args), {})


def _unary(name, fn, differentiable=True, half_backward=True):
    """``half_backward=False``: torch has no float16/bfloat16 kernel for the derivative, so backward raises."""
    def compute(x):
        return cast(fn(cast(x, ms.float32)), ms.bfloat16) if x.dtype == ms.bfloat16 else fn(x)

    def impl(input):
        x = float_result(input)
        if not half_backward and x.dtype in (ms.float16, ms.bfloat16) and needs_grad(x):
            return _no_half_derivative(name, compute)(x)
        if not half_backward:
            return _recorded(compute, x)
        r = compute(x)
        return r if differentiable else ops.stop_gradient(r)
    impl.__name__ = name
    register(f"special.{name}", family=F, namespace="special", out=True,
             differentiable=differentiable and half_backward)(impl)


def _real_axis_only(fn, at_zero=None):
    """Bessel functions of the second kind are defined for x >= 0 only: torch gives NaN below 0 (MindSpore's
    kernels return +-inf there) and its limit at 0 (MindSpore's ``bessel_y1`` gives NaN)."""
    def wrapped(x):
        r = fn(x)
        r = ops.where(ops.less(x, 0), ops.full_like(r, float("nan")), r)
        if at_zero is not None:
            r = ops.where(ops.equal(x, 0), ops.full_like(r, at_zero), r)
        return r
    return wrapped


def _formula_grad(name, fn, dfn):
    """``fn``'s value with torch's derivative ``dfn(x, fn(x))`` (the composed ``fn``'s own autograd meets
    0 * inf at the ends of the domain, or passes nothing back through its selects): a node of ours whose
    backward is in ops a recording pass records (create_graph: _higher_order._OWN_FUNCTIONS)."""
    def backward(saved, g):
        (x,) = saved
        return ops.mul(g, dfn(x, wrapped(x)))
    node = _node(name, lambda x: (fn(x), (x,)), backward)

    def wrapped(x):
        return node(x) if P.grad_enabled() and P.requires_grad(x) else fn(x)
    return wrapped


def _i1(x):
    # on x = 0 take x / 2, i1 to first order (value 0, +0.0 as torch's); the derivative is torch's
    # formula (_i1_derivative: MindSpore's BesselI1 gradient is 1 at 0, NaN at NaN)
    # (+ 0: -0.0 -> 0.0; constants of x's dtype: a Python float promotes a 0-d float16 x to float32)
    d = dtype_of(x)
    return ops.where(ops.equal(x, 0), ops.add(ops.mul(x, scalar_tensor(0.5, d)), scalar_tensor(0.0, d)),
                     ops.bessel_i1(x))


_EPS = {ms.float16: 2.0 ** -10, ms.bfloat16: 2.0 ** -7, ms.float32: 2.0 ** -23, ms.float64: 2.0 ** -52}


def _i1_derivative(x, y):
    # torch's i1_backward: i0(x) - i1(x) / x where |x| > eps, else 1/2 (NaN included: NaN > eps is false);
    # x = eps stands in elsewhere so the unused side stays finite. (MindSpore's BesselI1 gradient gives NaN
    # at NaN and slightly under 1/2 at tiny x.)
    eps = scalar_tensor(_EPS[x.dtype], dtype_of(x))
    big = ops.gt(ops.abs(x), eps)
    safe = ops.where(big, x, eps)
    return ops.where(big, ops.sub(ops.bessel_i0(safe), ops.div(y, safe)), ops.full_like(x, 0.5))


def _no_half_derivative(name, fn):
    def bwd(saved, g):
        raise NotImplementedError(f"\"{name}_backward\" not implemented for '{'Half' if g.dtype == ms.float16 else 'BFloat16'}'")
    return _node(f"Special{name.upper()}Backward0", lambda a: (fn(a), ()), bwd)


for _name, _fn, _grad in [
    ("i0e", ops.bessel_i0e, True), ("i1", _formula_grad("SpecialI1Backward0", _i1, _i1_derivative), True),
    ("i1e", ops.bessel_i1e, True),
    ("bessel_j0", ops.bessel_j0, False), ("bessel_j1", ops.bessel_j1, False),
    ("bessel_y0", _real_axis_only(ops.bessel_y0, -math.inf), False),
    ("bessel_y1", _real_axis_only(ops.bessel_y1, -math.inf), False),
    ("modified_bessel_i0", ops.bessel_i0, False), ("modified_bessel_i1", ops.bessel_i1, False),
    ("modified_bessel_k0", _real_axis_only(ops.bessel_k0), False),
    ("modified_bessel_k1", _real_axis_only(ops.bessel_k1), False),
    ("scaled_modified_bessel_k0", _real_axis_only(ops.bessel_k0e), False),
    ("scaled_modified_bessel_k1", _real_axis_only(ops.bessel_k1e), False),
]:
    _unary(_name, _fn, _grad, half_backward=_name not in ("i1", "i1e"))


def _spherical_j0(x):
    # sin(x) / x: 1 at 0, and 0 at +-inf (torch's limit; sin(inf) / inf is NaN)
    zero = ops.equal(x, 0)
    safe = ops.where(zero, ops.ones_like(x), x)
    r = ops.where(zero, ops.ones_like(x), ops.div(ops.sin(safe), safe))
    return ops.where(ops.isinf(x), ops.zeros_like(x), r)


_unary("spherical_bessel_j0", _spherical_j0, False)


def _entr(x):
    pos = ops.gt(x, 0)
    safe = ops.where(pos, x, ops.ones_like(x))
    neg_inf = ops.full(x.shape, -math.inf, dtype=x.dtype)
    inner = ops.where(ops.equal(x, 0), ops.zeros_like(x), neg_inf)
    inner = ops.where(ops.isnan(x), x, inner)
    return ops.where(pos, ops.neg(ops.mul(safe, ops.log(safe))), inner)


# torch: -(1 + log x): inf at 0, NaN below
_unary("entr", _formula_grad("SpecialEntrBackward0", _entr, lambda x, y: ops.neg(ops.add(ops.log(x), 1.0))))

_SQRT1_2 = math.sqrt(0.5)   # (torch's M_SQRT1_2, 0.7071067811865476; 1 / math.sqrt(2) is an ulp below)
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def _rounded(fn, v):
    """``fn(v)`` in float64, rounded to v's dtype: correctly rounded, as torch's float32 exp/log/lgamma are
    to within an ulp (MindSpore's float32 Exp is off by up to ~2e-6 relative)."""
    return cast(fn(cast(v, _f64)), v.dtype) if v.dtype != _f64 else fn(v)


def _in_f64(fn):
    def run(x):
        return cast(fn(cast(x, _f64)), x.dtype) if x.dtype != _f64 else fn(x)
    return run


def _ndtr(x):
    return ops.mul(ops.erfc(ops.mul(x, -_SQRT1_2)), 0.5)


_unary("ndtr", _in_f64(_ndtr))


def _log_ndtr(x):
    # torch's formula, t = x / sqrt 2: x < -1: log(erfcx(-t) / 2) - t^2, else log1p(-erfc(t) / 2). erfcx,
    # erfc and the logs run in float64 (accurate deep into the tails); t and t^2 in x's dtype, as torch
    # computes them: where t^2 rounds or overflows, the value and torch's derivative
    # exp(-(y + x^2 / 2)) (which subtracts x^2 / 2 back) meet torch's
    t = ops.mul(x, _SQRT1_2)
    t64 = cast(t, _f64)
    lo_t = ops.clamp(t64, max=-_SQRT1_2)   # (the other side's elements see a harmless operand)
    lower = ops.sub(cast(ops.log(ops.mul(_erfcx(ops.neg(lo_t)), 0.5)), x.dtype), ops.mul(t, t))
    upper = cast(_log1p(ops.neg(ops.mul(ops.erfc(ops.clamp(t64, min=-_SQRT1_2)), 0.5))), x.dtype)
    return ops.where(ops.lt(x, -1.0), lower, upper)


# torch: grad / sqrt(2 pi) * exp(-(y + x^2 / 2)), in x's dtype (NaN at NaN and -inf, its overflows at huge -x)
_unary("log_ndtr", _formula_grad("SpecialLogNdtrBackward0", _log_ndtr, lambda x, y: ops.div(
    _rounded(ops.exp, ops.neg(ops.add(y, ops.div(ops.mul(x, x), 2.0)))), math.sqrt(2 * math.pi))))


def _erfcx_parts(x):
    # exp(x^2) erfc(x) directly up to x = 25 (float64 erfc is accurate there); beyond it the asymptotic
    # series 1/(x sqrt(pi)) (1 - 1/(2x^2) + 3/(4x^4) - ...), which is exact to float64 there: (direct,
    # the series' bracket, the clamped x it saw)
    direct_x = ops.clamp(x, max=25.0)
    direct = ops.mul(ops.exp(ops.square(direct_x)), ops.erfc(direct_x))
    big = ops.clamp(x, min=25.0)
    z = ops.reciprocal(ops.mul(ops.square(big), 2.0))
    series, term, coeff = ops.ones_like(big), ops.ones_like(big), 1.0
    for k in range(1, 6):
        term = ops.mul(term, z)
        coeff = -coeff * (2 * k - 1)
        series = ops.add(series, ops.mul(term, coeff))
    return direct, series, big


def _erfcx(x):
    direct, series, big = _erfcx_parts(x)
    # (series / sqrt(pi) / x: x sqrt(pi) overflows above 1e308)
    return ops.where(ops.gt(x, 25.0), ops.div(ops.div(series, math.sqrt(math.pi)), big), direct)


def _erfcx_derivative(x, y):
    # torch's 2 x erfcx(x) - 2 / sqrt(pi), in x's dtype as torch rounds it. Above 1e37 (float64: 1e307)
    # erfcx(x) nears the subnormal range, and MindSpore's kernel threads flush subnormals to zero (2 x y
    # would read 0): there in float64 with x erfcx(x) as one product (the series / sqrt(pi)), and where
    # torch's 2 x overflows, its result is that inf (times erfcx > 0); at x = +inf, inf * 0: NaN.
    c = 2 / math.sqrt(math.pi)
    plain = ops.sub(ops.mul(ops.mul(x, 2.0), y), c)
    x64 = cast(x, _f64)
    _, series, _ = _erfcx_parts(x64)
    d = cast(ops.sub(ops.mul(ops.div(series, math.sqrt(math.pi)), 2.0), c), x.dtype)
    two_x = ops.mul(x, 2.0)
    d = ops.where(ops.isinf(two_x), ops.where(ops.isinf(x), ops.full_like(x, math.nan), two_x), d)
    return ops.where(ops.gt(x, 1e307 if x.dtype == _f64 else 1e37), d, plain)


# torch: 2 x erfcx(x) - 2 / sqrt(pi): inf where 2 x overflows, NaN at +inf (inf * 0)
_unary("erfcx", _formula_grad("SpecialErfcxBackward0", _in_f64(_erfcx), _erfcx_derivative))


def _ndtri(p):
    # z = ndtri(q) for q = min(p, 1 - p) (1 - p is exact for p >= 0.5): Abramowitz-Stegun 26.2.23 as the
    # start (error < 5e-4), then Newton steps on log ndtr(z) = log q, which keep the relative precision
    # of tiny q; the result is z or -z
    upper = ops.gt(p, 0.5)
    q = ops.where(upper, ops.sub(1.0, p), p)
    qs = ops.clamp(q, 1e-300, 0.5)
    t = ops.sqrt(ops.mul(ops.log(qs), -2.0))
    num = ops.add(ops.mul(ops.add(ops.mul(t, 0.010328), 0.802853), t), 2.515517)
    den = ops.add(ops.mul(ops.add(ops.mul(ops.add(ops.mul(t, 0.001308), 0.189269), t), 1.432788), t), 1.0)
    z = ops.neg(ops.sub(t, ops.div(num, den)))
    log_q = ops.log(qs)
    for _ in range(4):
        cdf = _ndtr(z)
        pdf = ops.exp(ops.sub(ops.mul(ops.square(z), -0.5), _LOG_SQRT_2PI))
        z = ops.sub(z, ops.mul(ops.sub(ops.log(cdf), log_q), ops.div(cdf, pdf)))
    y = ops.where(upper, ops.neg(z), z)
    inf = ops.full(p.shape, math.inf, dtype=p.dtype)
    y = ops.where(ops.equal(p, 0.0), ops.neg(inf), ops.where(ops.equal(p, 1.0), inf, y))
    outside = ops.logical_or(ops.logical_or(ops.lt(p, 0.0), ops.gt(p, 1.0)), ops.isnan(p))
    return ops.where(outside, ops.full(p.shape, math.nan, dtype=p.dtype), y)


# torch: sqrt(2 pi) exp(ndtri(p)^2 / 2): inf at 0 and 1, NaN outside [0, 1]
_unary("ndtri", _in_f64(_formula_grad("SpecialNdtriBackward0", _ndtri, lambda p, y: ops.mul(
    ops.exp(ops.mul(ops.square(y), 0.5)), math.sqrt(2 * math.pi)))))


def _no_derivative(what, fn):
    def bwd(saved, g):
        raise NotImplementedError(f"the derivative for '{what}' is not implemented.")
    return _node(f"{what.split(':')[0].capitalize()}Backward0", lambda a, b: (fn(a, b), ()), bwd)


def _binary_float(name, fn, no_grad_first=None, float_kernel=None):
    """``float_kernel``: torch's kernel, which has no integer or bool dtype (no promotion to float)."""
    def impl(input, other):
        if not isinstance(input, ms.Tensor) and not isinstance(other, ms.Tensor):
            raise invalid_args(f"special_{name}", (input, other), signatures=BINARY_SCALAR_SELF)
        a, b, rt = promote(input, other)
        if float_kernel and not rt.is_floating_point:
            infer_size(tuple(a.shape), tuple(b.shape))   # (torch broadcasts before its kernel refuses the dtype)
            raise NotImplementedError(f"\"{float_kernel}\" not implemented for '{scalar_type_name(rt)}'")
        a, b = _float_operands(a, b, rt, input, other)
        run = fn
        if getattr(fn, "first_dtype", False) and isinstance(input, ms.Tensor) and input.dtype != a.dtype:
            # (fn wants the first operand's own dtype, or the default float one for an integer operand)
            d = dtype_of(input)
            first = input.dtype if d.is_floating_point else D.get_default_dtype()._ms
            run = (lambda x, y: fn(x, y, first))
        if a.dtype in (ms.bfloat16, ms.float16):   # (Igamma/Igammac have no half kernels; torch's round once)
            run = (lambda x, y, f=run: cast(f(cast(x, ms.float32), cast(y, ms.float32)), x.dtype))
        if no_grad_first and needs_grad(a):   # torch has no derivative for this argument: backward raises
            return _no_derivative(no_grad_first, run)(a, b)
        return _recorded(run, a, b) if no_grad_first else run(a, b)
    impl.__name__ = name
    # (the raising node is recorded for empty inputs too: _recorded)
    register(f"special.{name}", family=F, namespace="special", out=True, differentiable=not no_grad_first)(impl)


def _xlog1py(a, b):
    return x_log(a, b, _log1p, -1, "SpecialXlog1PyBackward0")


_binary_float("xlog1py", _xlog1py)
def _zeta(x, q):
    # Hurwitz zeta at a pole of q (q = 0, -1, -2, ...) with x > 1: torch (Cephes) gives +inf, MindSpore's
    # kernel NaN
    if x.shape != q.shape:   # MindSpore's Zeta broadcasts only a single element
        shape = infer_size(tuple(x.shape), tuple(q.shape))
        x, q = ops.broadcast_to(x, shape), ops.broadcast_to(q, shape)
    if x.size == 0:   # (the kernel refuses empty input)
        return ops.add(x, q)
    # (a NaN x too: Cephes tests x == 1 and x < 1 before the pole)
    pole = ops.logical_and(ops.logical_and(ops.le(q, 0), ops.equal(q, ops.floor(q))), ops.logical_not(ops.lt(x, 1)))
    # torch runs Cephes' series in double. Where its terms q^-x underflow to 0 (q > 1, x huge) the sum
    # stays 0, and its Euler-Maclaurin tail multiplies 23 factors of about x: beyond the double range
    # (x > 2.5e13, or inf) that is inf * 0, NaN; at q = +inf it is inf / inf. MindSpore's kernel gives 0.
    inf = ops.full_like(q, float("inf"))
    x64, q64 = cast(x, _f64), cast(q, _f64)
    underflow = ops.logical_and(ops.gt(q64, 1), ops.equal(ops.pow(q64, ops.neg(x64)), 0))
    overflow = ops.gt(ops.mul(ops.log(x64), 23.0), math.log(1.7976931348623157e308))
    undefined = ops.logical_or(ops.equal(q, inf), ops.logical_and(underflow, overflow))
    out = ops.where(pole, inf, ops.zeta(x, q))
    return ops.where(undefined, ops.full_like(q, float("nan")), out)


_binary_float("zeta", _zeta, no_grad_first="zeta")
def _cephes_igamma(upper):
    """torch's igamma/igammac kernel is Cephes' (Temme's asymptotic series for large a near x), as SciPy's
    gammainc/gammaincc (a MindSpore dependency), run here on the host in float64. MindSpore's Igamma/Igammac
    drift from a ~ 1e3 on (relative 1e-4) and give garbage or NaN from a ~ 1e7."""
    def kernel(a, x):
        from scipy import special as sc   # (imported on first use: SciPy's import is slow)
        if a.shape != x.shape:
            shape = infer_size(tuple(a.shape), tuple(x.shape))
            a, x = ops.broadcast_to(a, shape), ops.broadcast_to(x, shape)
        f = sc.gammaincc if upper else sc.gammainc
        r = f(read_host(a).astype("float64"), read_host(x).astype("float64"))
        return ms.Tensor(r.astype(dtype_of(a)._np).reshape(tuple(a.shape)))
    return kernel


def _igamma_edges(kernel, upper):
    """Regularized incomplete gamma with torch's boundary rules, checked in its order: a or x negative
    gives nan; a = 0 gives the x = inf limit for x > 0 (else nan); x = 0 gives 0 (upper: 1); a = inf gives
    the x = 0 limit (nan when x is inf too); x = inf gives 1 (upper: 0). MindSpore's Igamma/Igammac
    return nan at a = 0 and a = inf. The kernel sees safe operands at those places (no nan gradient)."""
    def fn(a, x):
        lo, hi = (1.0, 0.0) if upper else (0.0, 1.0)   # the values at x = 0 and at x = inf

        def full(v):
            return ops.full_like(out, v)
        negative = ops.logical_or(ops.lt(a, 0), ops.lt(x, 0))
        a_zero, x_zero = ops.equal(a, 0), ops.equal(x, 0)
        a_inf, x_inf = ops.isinf(a), ops.isinf(x)
        edge = ops.logical_or(ops.logical_or(negative, ops.logical_or(a_zero, x_zero)),
                              ops.logical_or(a_inf, x_inf))
        one = ops.ones_like(a)
        out = kernel(ops.where(edge, one, a), ops.where(edge, ops.ones_like(x), x))
        out = ops.where(x_inf, full(hi), out)
        out = ops.where(a_inf, ops.where(x_inf, full(math.nan), full(lo)), out)
        out = ops.where(x_zero, full(lo), out)
        out = ops.where(a_zero, ops.where(ops.gt(x, 0), full(hi), full(math.nan)), out)
        return ops.where(negative, full(math.nan), out)

    def bwd(saved, g, a_dtype):   # torch's formula everywhere, edges included (nan at a = inf, 0 at a = 0)
        # (the arithmetic in the operands' dtype as torch's; exp, log and lgamma in float64 rounded to it:
        # torch's float32 ones are within an ulp, MindSpore's float32 Exp is off by up to ~2e-6 relative).
        # torch takes lgamma of a as given, before promotion: a float32 a beside a float64 x gives a float32
        # lgamma (an integer a: the default float dtype), and the gradient float32's precision
        a, x = saved
        lg = _rounded(ops.lgamma, a)
        if a_dtype is not None and a_dtype != a.dtype:
            lg = cast(_rounded(ops.lgamma, cast(a, a_dtype)), a.dtype)
        arg = ops.sub(ops.sub(ops.mul(ops.sub(a, 1), _rounded(ops.log, x)), x), lg)
        d = _rounded(ops.exp, arg)
        return None, _sum_to(ops.mul(g, ops.neg(d) if upper else d), x.shape)
    nodes = {}

    def run(a, x, a_dtype=None):
        if not (needs_grad(x) and not needs_grad(a)):
            return fn(a, x)
        node = nodes.get(a_dtype)
        if node is None:
            node = nodes[a_dtype] = _node("IgammacBackward0" if upper else "IgammaBackward0",
                                          lambda a, x: (fn(a, x), (a, x)), lambda sv, g: bwd(sv, g, a_dtype))
        return node(a, x)
    run.first_dtype = True
    return run


_binary_float("gammainc", _igamma_edges(_cephes_igamma(False), False), no_grad_first="igamma: input",
              float_kernel="igamma_cpu")
_binary_float("gammaincc", _igamma_edges(_cephes_igamma(True), True), no_grad_first="igammac: input",
              float_kernel="igammac_cpu")
