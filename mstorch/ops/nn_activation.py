"""torch.nn.functional activations (relu6, leaky_relu, elu, gelu, silu, mish, hardtanh, softplus, glu, ...).

The top-level ops (``torch.relu``, ``torch.selu``, ``torch.softmax``...) live in ``activation.py``; the
``F.*`` forms that take extra arguments there (``inplace=``, ``dim=None``) are separate entries here,
keyed ``nn.functional.<name>``, that call those implementations.

MindSpore 2.10 CPU kernels checked against torch (forward and gradient, x in [-30, 30]): Elu (alpha 1),
GeLU (tanh form), SiLU, Sigmoid, HSigmoid, Softplus, Softsign, SoftShrink (float32/16 only) match. Not used:
ReLU6/HardTanh/LeakyReLU/HSwish (gradient differs from torch's exactly at the kinks), SeLU and Mish
(wrong gradient), LogSigmoid (log(sigmoid(x)): -inf below -104), Tanh (1e-4 relative error for
|x| > 2: torch.tanh's accurate composition is used).
bfloat16 has no CPU kernels: half types compute in float32 and round once, as torch's opmath does.
"""
import math
import warnings

import numpy as np
import mindspore as ms
from .._runtime import read_host
from . import _msops as ops
from mindspore.ops import operations as P

from .. import _dtype as D
from .. import _ms_private as MP
from . import _host
from . import _kernels as kernels
from .. import random as R
from .._tensor import Tensor, wrap, scalar_type_name
from ._helpers import dtype_of, float_result, scalar_tensor, wrap_dim, cast
from ._registry import OPS, PUBLIC, register
from . import activation as _top
from .pointwise import _not_impl, tanh_accurate
from .reduction import vector_norm
from ._views import check_no_overlap, grad_source, guard_result, repeated_writes
from ..autograd._higher_order import recompute_as
from ..autograd.function import Function

F = "nn.activation"
_f32, _f64, _f16, _bf16, _bool = ms.float32, ms.float64, ms.float16, ms.bfloat16, ms.bool_
_HALF = (_f16, _bf16)
_GELU_TANH, _SOFTPLUS = P.GeLU(), ops.Softplus()


def _tensor_arg(input, name):
    if isinstance(input, Tensor):
        return input._ms
    raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")


def _src(input, name, inplace=True, overlap_check=True):
    """The value to compute an in-place result from: a recorded copy when autograd records, since the
    write-back bumps the input's version and MindSpore checks saved inputs (torch saves the original)."""
    x = _tensor_arg(input, name)
    if inplace:   # (torch's checks of the receiver come before its kernel's dtype check)
        input._check_inplace()
        if overlap_check:
            check_no_overlap(input)
    return grad_source(x) if inplace else x


def _done(input, r, inplace, label=None):
    """F.*(inplace=True) writes the result into ``input`` and returns it, as torch's ``*_`` kernels.
    ``label``: torch's node, for the ops whose backward reads their result (``_views.guard_result``)."""
    if not inplace:
        return wrap(r)
    out = input._write(r)
    if label is not None:
        guard_result(input, r, label)
    return out


def _float_only(x, kernel):
    if dtype_of(x)._cat < D._FLOAT:
        _not_impl(kernel, x)


def _in_float(fn, x, *args):
    """Half types compute in float32 and round once (torch's opmath; MindSpore has no bfloat16 CPU kernels)."""
    if x.dtype in _HALF:
        return cast(fn(cast(x, _f32), *args), x.dtype)
    return fn(x, *args)


def _c(v, x):
    return scalar_tensor(v, dtype_of(x))


# --- the F forms of the top-level ops (inplace=, dim=None) -----------------------------------------

@register("nn.functional.relu", family=F, namespace="nn.functional", raw=True)
def f_relu(input, inplace=False):
    return _done(input, _top.relu(_src(input, "relu", inplace)), inplace, "Relu")


@register("nn.functional.selu", family=F, namespace="nn.functional", raw=True)
def f_selu(input, inplace=False):
    return _done(input, _top.selu(_src(input, "selu", inplace)), inplace, "Elu1")


@register("nn.functional.celu", family=F, namespace="nn.functional", raw=True)
def f_celu(input, alpha=1.0, inplace=False):
    return _done(input, _top.celu(_src(input, "celu", inplace), alpha), inplace, "Celu1")


@register("nn.functional.threshold", family=F, namespace="nn.functional", raw=True)
def f_threshold(input, threshold, value, inplace=False):
    x = _src(input, "threshold", inplace, overlap_check=False)   # (torch's threshold_ writes overlaps)
    # (torch.threshold's impl: its argument checks, half types compared in float32 as torch's opmath)
    r = _top.threshold(x, threshold, value)
    with repeated_writes():   # (torch's threshold_ writes an expanded receiver)
        return _done(input, r, inplace)


@register("nn.functional.sigmoid", family=F, namespace="nn.functional")
def f_sigmoid(input):
    return OPS["sigmoid"](input)


@register("nn.functional.tanh", family=F, namespace="nn.functional")
def f_tanh(input):
    return OPS["tanh"](input)


def _implicit_dim(name, ndim, stacklevel):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. "
                  "Change the call to include dim=X as an argument.", stacklevel=stacklevel + 1)
    return 0 if ndim in (0, 1, 3) else 1


@register("nn.functional.softmax", family=F, namespace="nn.functional")
def f_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _implicit_dim("softmax", input.ndim, _stacklevel)
    return _top.softmax(input, dim, dtype)


@register("nn.functional.log_softmax", family=F, namespace="nn.functional")
def f_log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _implicit_dim("log_softmax", input.ndim, _stacklevel)
    return _top.log_softmax(input, dim, dtype)


@register("softmin", family=F, namespace="nn.functional")
def softmin(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _implicit_dim("softmin", input.ndim, _stacklevel)
    if input.dtype is _bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")
    if input.numel() == 0:   # (nothing to negate: softmax's answer for empty inputs of any dtype)
        return _top.softmax(input, dim, dtype)
    if dtype is None and input.dtype is _bf16:   # no bfloat16 Neg kernel; the negation is exact in float32
        return cast(_top.softmax(ops.neg(cast(input, _f32)), dim, None), _bf16)
    return _top.softmax(ops.neg(input), dim, dtype)


# --- piecewise-linear activations (torch's gradient is 0 at the kinks of hardtanh, slope at 0 for leaky) ---

def _no_complex_clamp(input):
    # torch's hardtanh is a clamp, which refuses complex inputs before looking at an in-place receiver's memory
    if isinstance(input, Tensor) and input._ms.dtype in (ms.complex64, ms.complex128):
        raise NotImplementedError("clamp is not supported for complex types")


def _hardtanh(x, lo, hi):
    _no_complex_clamp(wrap(x))
    if x.dtype is _bool:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if x.dtype is ms.uint8 and (math.trunc(lo) < 0 or math.trunc(hi) < 0):   # (torch: the limits as integers)
        raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
    if x.dtype is _bf16:
        return _in_float(_hardtanh, x, lo, hi)
    lo_t, hi_t = _c(lo, x), _c(hi, x)
    return ops.where(ops.less_equal(x, lo_t), lo_t, ops.where(ops.greater_equal(x, hi_t), hi_t, x))


@register("hardtanh", family=F, namespace="nn.functional", raw=True)
def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    _no_complex_clamp(input)
    x = _src(input, "hardtanh", inplace)
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _done(input, _hardtanh(x, min_val, max_val), inplace)


@register("hardtanh_", family=F, namespace="nn.functional", raw=True)
def hardtanh_(input, min_val=-1.0, max_val=1.0):
    _no_complex_clamp(input)
    return input._write(_hardtanh(_src(input, "hardtanh_"), min_val, max_val))


@register("relu6", family=F, namespace="nn.functional", raw=True)
def relu6(input, inplace=False):
    return _done(input, _hardtanh(_src(input, "relu6", inplace), 0, 6), inplace)


def _leaky_relu(x, slope):
    _float_only(x, "leaky_relu_cpu")
    if x.dtype is _bf16:
        return _in_float(_leaky_relu, x, slope)
    return ops.where(ops.greater(x, _c(0, x)), x, ops.mul(x, _c(slope, x)))


@register("leaky_relu", family=F, namespace="nn.functional", raw=True)
def leaky_relu(input, negative_slope=0.01, inplace=False):
    return _done(input, _leaky_relu(_src(input, "leaky_relu", inplace), negative_slope), inplace, "LeakyRelu1")


@register("leaky_relu_", family=F, namespace="nn.functional", raw=True)
def leaky_relu_(input, negative_slope=0.01):
    return _done(input, _leaky_relu(_src(input, "leaky_relu_"), negative_slope), True, "LeakyRelu1")


# --- smooth activations ----------------------------------------------------------------------------

def _elu(x, alpha):
    _float_only(x, "elu_cpu")
    if x.dtype in _HALF:
        return _in_float(_elu, x, alpha)
    e = ops.elu(x)                       # x > 0: x; else expm1(x) (MindSpore's Elu is exact there)
    # MindSpore's EluGrad has no backward: double backward differentiates the composition
    recompute_as(e, _elu1, x)
    if alpha == 1.0:
        return e
    return ops.where(ops.greater(x, _c(0, x)), x, ops.mul(e, _c(alpha, x)))


def _elu1(x):
    # exp of the negative part only: exp(large x) in the branch `where` drops would make a 0 * inf NaN
    return ops.where(ops.greater(x, _c(0, x)), x, ops.expm1(ops.minimum(x, _c(0, x))))


@register("elu", family=F, namespace="nn.functional", raw=True)
def elu(input, alpha=1.0, inplace=False):
    return _done(input, _elu(_src(input, "elu", inplace), alpha), inplace, "Elu1")


@register("elu_", family=F, namespace="nn.functional", raw=True)
def elu_(input, alpha=1.0):
    return _done(input, _elu(_src(input, "elu_"), alpha), True, "Elu1")


_SQRT1_2 = 1 / math.sqrt(2)
_SQRT_2_PI = math.sqrt(2) * (2 / math.sqrt(math.pi)) * 0.5   # torch's kBeta: M_SQRT2 * M_2_SQRTPI * 0.5


def _gelu(x, approximate):
    if x.dtype in _HALF:
        return _in_float(_gelu, x, approximate)
    return kernels.ACTIVE["gelu"](x, approximate)


def _gelu_native(x, approximate):
    if approximate == "tanh":
        if x.dtype == _f64:   # MindSpore's GeLU kernel holds its constants in float32 (4e-13 off in float64)
            inner = ops.mul(ops.add(x, ops.mul(ops.mul(ops.mul(x, x), x), _c(0.044715, x))), _c(_SQRT_2_PI, x))
            return ops.mul(ops.mul(x, _c(0.5, x)), ops.add(tanh_accurate(inner), _c(1.0, x)))
        out = _GELU_TANH(x)
        # the kernel's x (1 + tanh) overflows past FLT_MAX / 2 where torch's 0.5 x (1 + tanh) is x
        return ops.where(ops.greater(x, _c(_F32_HALF_MAX, x)), x, out) if x.dtype == _f32 else out
    if MP.grad_enabled() and MP.requires_grad(x):
        out = _NativeGelu.apply(x)
        MP.set_function_of_output(out, _NativeGelu)
        return out
    return _gelu_erf(x)


def _gelu_erf(x):
    # x * Phi(x) with Phi(x) = erfc(-x / sqrt(2)) / 2: torch's 0.5 x (1 + erf(x / sqrt(2))) in one op fewer,
    # and without its cancellation below x = -3 (the two differ there by < 1e-7 absolute)
    # Phi underflows to 0 below -40 in every float type: the product is then x * 0 outright, as the autodiff
    # of erfc at a huge x squares it (inf) and its 0 * inf would make torch's zero gradient NaN
    tail = ops.logical_and(ops.less(x, _c(-40.0, x)), ops.greater(x, _c(-math.inf, x)))   # (-inf: NaN, as torch)
    xs = ops.where(tail, _c(-40.0, x), x)
    out = ops.where(tail, ops.mul(x, _c(0.0, x)),
                    ops.mul(x, ops.mul(ops.erfc(ops.mul(xs, _c(-_SQRT1_2, x))), _c(0.5, x))))
    if kernels.HOST_WORKAROUNDS and x.dtype == _f32:
        # torch's CPU kernel: NaN at +-inf (its vectorised erf), inf past FLT_MAX / 2 (x (1 + erf) overflows)
        out = ops.where(ops.isinf(x), _c(math.nan, x),
                        ops.where(ops.greater(x, _c(_F32_HALF_MAX, x)), ops.add(out, _c(math.inf, x)), out))
    return out


_F32_HALF_MAX = float(np.finfo(np.float32).max) / 2


def _gelu_host(x, approximate):
    """The erf form in numpy on the tensor's host memory (``_host``): MindSpore's CPU Erfc kernel takes
    10-25 ms on a 4x64x512 activation where numpy needs a few; the gradient is torch's formula in numpy too.
    The tanh form stays native: numpy's tanh rounds otherwise than torch's vectorised one, and the
    gradient's 1 - tanh^2 makes that 1.3e-6 (measured), over the layer tests' atol."""
    if not _host.usable(x) or approximate == "tanh" or x.dtype == _f64:
        return _gelu_native(x, approximate)   # float64 erf: no faster host path than MindSpore's
    if MP.grad_enabled() and MP.requires_grad(x):
        out = _HostGelu.apply(x)
        MP.set_function_of_output(out, _HostGelu)
        return out
    return _host.tensor(_gelu_np(_host.array(x)), x.dtype)


def _gelu_np(a):
    with _host.kernel("GeLU"):
        # torch's CPU order, x (1 + erf) / 2: inf past FLT_MAX / 2, as its kernel; and its vectorised erf
        # is NaN at +-inf, so is its gelu
        out = a * (1 + _erf32(a * np.float32(_SQRT1_2))) * np.float32(0.5)
        return np.where(np.isinf(a), np.float32(np.nan), out).astype(a.dtype, copy=False)


def _gelu_grad_np(a):
    """d gelu / dx, torch's backward formula (GeluBackward's erf branch)."""
    t = a.dtype.type
    with _host.kernel("GeLUGrad"):
        return t(0.5) * (1 + _erf32(a * t(_SQRT1_2))) + a * np.exp(t(-0.5) * a * a) * t(0.5 * _SQRT_2_PI)


# erf in float32 as a rational function of x^2 on [-4, 4] (Cephes' coefficients, as Eigen and XLA evaluate
# float erf): 4.2e-7 absolute error against the exact erf, the order of torch's own float32 GELU (checked
# on 2M points over [-10, 10]: 1.4e-6 from torch's gelu at |x| = 10, one float32 ulp there)
_ERF_P = tuple(np.float32(c) for c in (-2.72614225801306e-10, 2.77068142495902e-08, -2.10102402082508e-06,
                                       -5.69250639462346e-05, -7.34990630326855e-04, -2.95459980854025e-03,
                                       -1.60960333262415e-02))
_ERF_Q = tuple(np.float32(c) for c in (-1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03,
                                       -7.37332916720468e-03, -1.42647390514189e-02))


def _erf32(x):
    x = np.clip(x, np.float32(-4), np.float32(4))
    x2 = x * x
    p = np.full_like(x, _ERF_P[0])
    for c in _ERF_P[1:]:
        p *= x2
        p += c
    q = np.full_like(x, _ERF_Q[0])
    for c in _ERF_Q[1:]:
        q *= x2
        q += c
    return x * p / q


def _gelu_grad_recorded(x):
    """The same derivative in recorded MindSpore ops (create_graph: it differentiates again)."""
    cdf = ops.mul(ops.erfc(ops.mul(x, _c(-_SQRT1_2, x))), _c(0.5, x))
    pdf = ops.mul(ops.exp(ops.mul(ops.mul(x, x), _c(-0.5, x))), _c(0.5 * _SQRT_2_PI, x))
    return ops.add(cdf, ops.mul(x, pdf))


class _HostGelu(MP.FunctionBase):
    @staticmethod
    def forward(node, x):
        node.save_for_backward(x)
        return _host.tensor(_gelu_np(_host.array(x)), x.dtype)

    @staticmethod
    def backward(node, g):
        (x,) = node.saved_tensors
        if MP.grad_enabled():
            return ops.mul(g, _gelu_grad_recorded(x))
        with _host.quiet():
            return _host.tensor(_host.array(g) * _gelu_grad_np(_host.array(x)), x.dtype)


_HostGelu.__name__ = "GeluBackward0"


class _NativeGelu(MP.FunctionBase):
    """The erf form in MindSpore ops, differentiated by torch's formula: the autodiff of x Phi(x) multiplies
    the incoming gradient by x before Phi's 0 derivative, which overflows to inf * 0 = NaN at huge x."""
    @staticmethod
    def forward(node, x):
        node.save_for_backward(x)
        return _gelu_erf(x)

    @staticmethod
    def backward(node, g):
        (x,) = node.saved_tensors
        return ops.mul(g, _gelu_grad_recorded(x))


_NativeGelu.__name__ = "GeluBackward0"
kernels.candidates("gelu", native=_gelu_native, host=_gelu_host)


@register("gelu", family=F, namespace="nn.functional")
def gelu(input, *, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    _float_only(input, "GeluKernelImpl")
    return _gelu(input, approximate)


def _silu(x):
    _float_only(x, "silu_cpu")
    if x.dtype in (ms.complex64, ms.complex128):
        if MP.grad_enabled() and MP.requires_grad(x):
            raise RuntimeError("silu does not support automatic differentiation for outputs with complex dtype.")
        return _complex_quotient(x, ops.add(ops.exp(ops.neg(x)), _c(1.0, x)))
    return _in_float(_silu_real, x)




def _complex_quotient(num, den):
    """num / den as torch's complex division (Smith's: scaled by the larger part of ``den``), on the parts:
    MindSpore divides by an infinite ``den`` as C99 does (0), torch gets NaN where the scaling meets inf/inf."""
    a, b, c, d = ops.real(num), ops.imag(num), ops.real(den), ops.imag(den)
    wide = ops.greater_equal(ops.abs(c), ops.abs(d))
    zero = ops.logical_and(ops.equal(c, _c(0.0, c)), ops.equal(d, _c(0.0, d)))
    # |c| >= |d|: r = d / c, s = 1 / (c + d r); otherwise r = c / d, s = 1 / (d + c r)
    big, small = ops.where(wide, c, d), ops.where(wide, d, c)
    safe = ops.where(zero, _c(1.0, c), big)
    r = ops.div(small, safe)
    s = ops.div(_c(1.0, c), ops.add(safe, ops.mul(small, r)))
    re = ops.where(wide, ops.add(a, ops.mul(b, r)), ops.add(ops.mul(a, r), b))
    im = ops.where(wide, ops.sub(b, ops.mul(a, r)), ops.sub(ops.mul(b, r), a))
    re, im = ops.mul(re, s), ops.mul(im, s)
    # 0 / 0: torch divides each part by a zero (inf or NaN, signed)
    re = ops.where(zero, ops.div(a, ops.abs(c)), re)
    im = ops.where(zero, ops.div(b, ops.abs(d)), im)
    return ops.complex_of_parts(re, im)


def _silu_real(x):
    if MP.grad_enabled() and MP.requires_grad(x):
        return Silu.apply(wrap(x))._ms
    return ops.silu(x)


class Silu(Function):
    """silu with torch's gradient, dy s (1 + x (1 - s)) for s = sigmoid(x), in recorded ops (double
    backward differentiates it): dy at a huge x (x * 0), -0 at a huge negative one, NaN at an infinite
    one, where MindSpore's SiLUGrad gives NaN for all of them. Named after torch's node (SiluBackward0)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return wrap(ops.silu(x._ms))

    @staticmethod
    def backward(ctx, grad):
        x, g = ctx.saved_tensors[0]._ms, grad._ms
        one = _c(1.0, x)
        # torch's steps, s = 1 / (1 + exp(-x)) (s is 1 once exp(-x) is below half an ulp of 1); a float32
        # exp computed in float64 and rounded: MindSpore's float32 exp is a few ulps off
        e = ops.exp(ops.neg(x)) if x.dtype == ms.float64 else cast(ops.exp(ops.neg(cast(x, ms.float64))), x.dtype)
        s = ops.div(one, ops.add(one, e))
        return wrap(ops.mul(ops.mul(g, s), ops.add(one, ops.mul(x, ops.sub(one, s)))))


@register("silu", family=F, namespace="nn.functional", raw=True)
def silu(input, inplace=False):
    return _done(input, _silu(_src(input, "silu", inplace)), inplace)


def _mish32(x):
    # tanh(softplus(x)) = n / (n + 2) with n = e^x (e^x + 2): no tanh (MindSpore's is inaccurate past 2)
    # and no cancellation; above 20 torch's softplus is x itself and tanh rounds to 1
    e = ops.exp(ops.minimum(x, _c(20.0, x)))
    n = ops.mul(e, ops.add(e, _c(2.0, x)))
    return ops.mul(x, ops.div(n, ops.add(n, _c(2.0, x))))


@register("mish", family=F, namespace="nn.functional", raw=True)
def mish(input, inplace=False):
    x = _src(input, "mish", inplace)
    _float_only(x, "mish_cpu")
    return _done(input, _in_float(_mish32, x), inplace)


def _hardsigmoid(x):
    _float_only(x, "hardsigmoid_cpu")
    return _in_float(_hardsigmoid32, x)


def _hardsigmoid32(x):
    if MP.grad_enabled() and MP.requires_grad(x):
        # MindSpore's gradient at NaN is 1/6, torch's 0 (NaN is not inside (-3, 3))
        return _nan_apart(x, _hardsigmoid_kernel, ops.stop_gradient)
    return _hardsigmoid_kernel(x)


def _hardsigmoid_kernel(x):
    # MindSpore's HSigmoidGrad has no backward: double backward differentiates the composition
    return recompute_as(ops.hardsigmoid(x), _hardsigmoid_composed, x)


def _nan_apart(x, fn, at_nan):
    """``fn(x)`` with the NaN elements kept out of ``fn`` (it sees 0 there, so its backward makes no
    0 * NaN) and given ``at_nan(x)`` instead: torch's backward of a kink-guarded activation passes a
    NaN element's gradient by its own comparisons, not by the kernel's formula."""
    nan = ops.isnan(x)
    return ops.where(nan, at_nan(x), fn(ops.where(nan, ops.zeros_like(x), x)))


def _hardsigmoid_composed(x):
    # x / 6 + 1 / 2 strictly inside (-3, 3) (torch's gradient is 0 at the kinks), else 0 or 1
    inside = ops.less(ops.abs(x), _c(3.0, x))
    return ops.where(inside, ops.add(ops.div(x, _c(6.0, x)), _c(0.5, x)), cast(ops.greater(x, _c(0, x)), x.dtype))


@register("hardsigmoid", family=F, namespace="nn.functional", raw=True)
def hardsigmoid(input, inplace=False):
    return _done(input, _hardsigmoid(_src(input, "hardsigmoid", inplace)), inplace)


def _hardswish32(x):
    # x * hardsigmoid(x): torch's gradient (0 at -3, 1 at 3; MindSpore's HSwish differs there)
    if not (MP.grad_enabled() and MP.requires_grad(x)):
        return ops.mul(x, _hardsigmoid_kernel(x))
    # torch's backward passes the gradient through at NaN (its x < 3 test fails): the value there is x
    return _nan_apart(x, lambda v: ops.mul(v, _hardsigmoid_kernel(v)), lambda v: v)


@register("hardswish", family=F, namespace="nn.functional", raw=True)
def hardswish(input, inplace=False):
    x = _src(input, "hardswish", inplace)
    _float_only(x, "hardswish_cpu")
    return _done(input, _in_float(_hardswish32, x), inplace)


def _softplus32(x, beta, threshold):
    z = x if beta == 1 else ops.mul(x, _c(beta, x))
    sp = _SOFTPLUS(z)
    if beta != 1:
        sp = ops.div(sp, _c(beta, x))
    return ops.where(ops.greater(z, _c(threshold, x)), x, sp)


@register("softplus", family=F, namespace="nn.functional")
def softplus(input, beta=1, threshold=20):
    _float_only(input, "softplus_cpu")
    return _in_float(_softplus32, input, beta, threshold)


@register("softsign", family=F, namespace="nn.functional")
def softsign(input):
    if input.dtype is _bool:
        _not_impl("abs_cpu", input)
    if dtype_of(input)._cat < D._FLOAT:
        # torch's input / (input.abs() + 1): abs and + 1 in the integer dtype, which wrap (int8 abs(-128) is
        # -128, 127 + 1 is -128, uint8 255 + 1 is 0), then a true division
        den = ops.add(ops.abs(input), scalar_tensor(1, dtype_of(input)))
        return ops.div(float_result(input), float_result(den))
    if input.dtype in (ms.complex64, ms.complex128):
        # torch's input / (input.abs() + 1): a complex tensor over its real magnitude plus one
        den = ops.add(OPS["abs"].impl(input), scalar_tensor(1, D._FROM_MS[input.dtype].to_real()))
        return OPS["div"].impl(input, den)
    return _in_float(ops.softsign, input)


def _logsigmoid32(x):
    return ops.neg(_SOFTPLUS(ops.neg(x)))     # Softplus is stable for large inputs


@register("logsigmoid", family=F, namespace="nn.functional")
def logsigmoid(input):
    _float_only(input, "log_sigmoid_cpu")
    return _in_float(_logsigmoid32, input)


@register("tanhshrink", family=F, namespace="nn.functional")
def tanhshrink(input):
    if input.dtype is _bool:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")
    x = float_result(input)
    # torch's tanhshrink is ``input - input.tanh()``: in half precision tanh is rounded before the
    # subtraction (which cancels near 0), so it is rounded here too
    t = _in_float(tanh_accurate, x)
    return _in_float(ops.sub, x, cast(t, _f32) if x.dtype in _HALF else t)


def _softshrink(x, lambd):
    if x.dtype is _f64:     # no float64 SoftShrink kernel
        return _softshrink_composed(x, lambd)
    # MindSpore's kernel maps NaN to 0; torch keeps it. Its gradient kernel has no backward: double
    # backward differentiates the composition
    return ops.where(ops.ne(x, x), x, recompute_as(ops.softshrink(x, float(lambd)), _softshrink_composed, x, lambd))


def _softshrink_composed(x, lambd):
    lam = _c(lambd, x)
    inner = ops.where(ops.less(x, ops.neg(lam)), ops.add(x, lam), ops.mul(x, _c(0.0, x)))
    return ops.where(ops.greater(x, lam), ops.sub(x, lam), inner)


@register("softshrink", family=F, namespace="nn.functional")
def softshrink(input, lambd=0.5):
    _float_only(input, "softshrink_check")
    if lambd < 0:
        raise RuntimeError(f"lambda must be in range [0, 3.40282e+38] for input dtype Float, but found {lambd:g}")
    return _in_float(_softshrink, input, lambd)


@register("glu", family=F, namespace="nn.functional")
def glu(input, dim=-1):
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    axis = wrap_dim(dim, input.ndim)
    n = input.shape[axis]
    if n % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {axis} is size {n}")
    _float_only(input, "glu_cpu")
    if n == 0:   # (MindSpore's split refuses pieces of size 0)
        return ops._empty_of(input, input.shape)

    def run(x):
        a, b = ops.split(x, n // 2, axis)
        return ops.mul(a, ops.sigmoid(b))
    return _in_float(run, input)


# --- rrelu: torch draws one uniform double per element <= 0, in order, from the CPU generator ---------

def _rrelu(input, lower, upper, training, generator, inplace):
    checked = inplace and training   # (torch's training kernel checks the dtype before the receiver's overlap)
    x = _src(input, "rrelu", inplace, overlap_check=not checked)
    if checked:
        _float_only(x, "rrelu_with_noise_out_cpu")
        if x.dtype == _f16:
            _not_impl("rrelu_with_noise_out_cpu", x)
        check_no_overlap(input)
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if not training:
        return _leaky_relu(x, (lower + upper) / 2)
    _float_only(x, "rrelu_with_noise_out_cpu")
    if x.dtype == _f16:   # (torch's CPU kernel has bfloat16, not float16; empty input refused too)
        _not_impl("rrelu_with_noise_out_cpu", x)
    host = read_host(cast(x, _f32) if x.dtype in _HALF else x)
    neg = host <= 0
    noise = np.ones(host.shape, np.float64 if x.dtype is _f64 else np.float32)
    k = int(neg.sum())
    if k:
        noise[neg] = R.uniform(R._check_generator(generator), k, D.float64, float(lower), float(upper))
    n = ms.Tensor(noise)
    if x.dtype in _HALF:
        return cast(ops.mul(cast(x, _f32), n), x.dtype)
    return ops.mul(x, n)


@register("rrelu", family=F, namespace=("torch", "nn.functional"), raw=True)
def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False, *, generator=None):
    # one entry for torch.rrelu(input, lower, upper, training, generator) and F.rrelu(..., inplace)
    return _done(input, _rrelu(input, lower, upper, training, generator, inplace), inplace, "RreluWithNoise1")


@register("rrelu_", family=F, namespace=("torch", "nn.functional"), raw=True)
def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, *, generator=None):
    return input._write(_rrelu(input, lower, upper, training, generator, True))


# --- normalize -------------------------------------------------------------------------------------

@register("normalize", family=F, namespace="nn.functional", out=True)
def normalize(input, p=2.0, dim=1, eps=1e-12):
    if dtype_of(input)._cat < D._FLOAT:
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. "
                           f"Got {scalar_type_name(dtype_of(input))}")
    axis = wrap_dim(dim, input.ndim)
    axes = (axis,) if input.ndim else ()   # (a 0-d input's dim is the whole of it)
    if input.size == 0 and (p < 0 or p == math.inf):   # torch's refusal of a norm with no identity, in its words
        OPS["linalg.vector_norm"].impl(input, p, dim, True)
    dt = input.dtype
    if dt in _HALF:
        # torch rounds the norm to the half dtype and clamps it by eps rounded to it too (1e-12 is 0 in
        # float16: a zero row is 0 / 0 = NaN there); the division is computed in float32 and rounded once
        x = cast(input, _f32)
        norm = cast(cast(vector_norm(x, p, axes, True), dt), _f32)
        eps_h = float(read_host(cast(ms.Tensor(float(eps), _f32), dt)).astype(np.float32))
        return cast(ops.div(x, ops.clamp(norm, eps_h)), dt)
    norm = ops.clamp(vector_norm(input, p, axes, True), eps)
    if dt in (ms.complex64, ms.complex128):   # (the real norm divides a complex input: no mixed Div kernel)
        norm = cast(norm, dt)
    return ops.div(input, norm)


@register("gumbel_softmax", family=F, namespace="nn.functional", raw=True)
def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    # composed from Tensor ops, as torch's: the noise is exponential_() from the generator torch would use
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=3)
    noise = PUBLIC["empty_like"](logits)
    if logits.numel():   # (torch's exponential_ of nothing returns before its dtype check)
        noise.exponential_()
    gumbels = -noise.log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = PUBLIC["zeros_like"](logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
