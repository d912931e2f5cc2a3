"""Activation ops that torch exposes at top level (``torch.relu``, ``torch.softmax``...; the
``torch.nn.functional`` forms belong to the nn family).

softmax / log_softmax on MindSpore 2.10's CPU kernels (measured against torch):
- float32 Softmax is right (within ~8e-6 relative, its exp) on rows of finite values and -inf, but a
  row holding NaN or +inf comes out partly NaN where torch's is all NaN, and after a row of only -inf
  (written as zeros) it writes nothing more. Those rows are the only ones whose sum is not ~1: the
  row sums are checked on the host and the rare input that fails takes the max-shifted composition.
- float32 LogSoftmax is up to ~4e-6 absolute off (it subtracts max + log(sum) rounded as one float)
  and wrong on NaN/+inf rows; (x - max) - log(sum(exp(x - max))) is torch's formula and rounding.
- float64 Softmax is exact, with torch's NaN rows; float64 LogSoftmax is only float32-accurate.
- float16 kernels are ~8 half ulps off, and bfloat16 has none: both compute in float32 and round once,
  as torch's CPU kernels do.
"""
import numpy as np
import mindspore as ms
from .._runtime import read_host
from . import _kernels as kernels
from . import _msops as ops
from mindspore.ops import operations as _prims

from .. import _dtype as D
from .. import _ms_private as P
from .._cast import NP_BF16
from .._tensor import Tensor, wrap
from ..autograd.function import Function
from ..autograd.grad_mode import is_grad_enabled
from ..autograd._higher_order import record_own_backward
from ._helpers import dtype_of, scalar_tensor, wrap_dim, cast
from ._views import repeated_writes, check_no_overlap, guard_result, SAVES_RESULT
from .comparison import inplace_function
from .creation import _check_fill
from .pointwise import register, _not_impl, _need_tensor, _expm1

A = "activation"
_bool, _f64 = ms.bool_, ms.float64


def _inplace_function(method):
    """torch.selu_(x) and friends: in-place forms that are not Tensor methods in torch."""
    impl = method[:-1]

    def fn(input, *args, **kwargs):
        if not isinstance(input, Tensor):
            raise TypeError(f"{method}(): argument 'input' (position 1) must be Tensor, not "
                            f"{type(input).__name__}")
        if impl != "threshold" and not (impl == "celu" and (args[0] if args else kwargs.get("alpha", 1.0)) == 0):
            check_no_overlap(input)   # (torch's TensorIterator, before it looks for the dtype's kernel)
        r = _IMPLS[impl](input._ms, *args, **kwargs)
        if impl == "threshold":   # (torch's threshold_ writes an expanded receiver)
            with repeated_writes():
                return input._write(r)
        out = input._write(r)
        if method in SAVES_RESULT:
            guard_result(input, r, SAVES_RESULT[method])
        return out
    fn.__name__ = method
    return fn


@register("relu", family=A, inplace="relu_")
def relu(input):
    if input.dtype is _bool:
        raise RuntimeError("Boolean inputs not supported for relu")
    return ops.relu(input)


def _float_only(input, kernel):
    if dtype_of(input)._cat < D._FLOAT:
        _not_impl(kernel, input)


def _elu(input, alpha, scale, input_scale):
    # torch's elu family: the negative branch (and its gradient) holds for x <= 0
    d = dtype_of(input)
    zero = scalar_tensor(0, d)
    pos = ops.logical_not(ops.less_equal(input, zero))   # NaN takes the linear branch, as torch's x <= 0 test
    xn = ops.where(pos, zero, input)
    if input_scale != 1:
        xn = ops.mul(xn, scalar_tensor(input_scale, d))
    neg = ops.mul(_expm1(xn), scalar_tensor(alpha * scale, d))
    return ops.where(pos, ops.mul(input, scalar_tensor(scale, d)) if scale != 1 else input, neg)


@register("selu", family=A, namespace="torch")
def selu(input):
    _float_only(input, "elu_cpu")
    return _elu(input, 1.6732632423543772848170429916717, 1.0507009873554804934193349852946, 1)


@register("celu", family=A, namespace="torch")
def celu(input, alpha=1.0):
    if alpha == 0:   # (torch's check, before elu's dtype dispatch)
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    _float_only(input, "elu_cpu")
    return _elu(input, alpha, 1, 1 / alpha)


@register("threshold", family=A, namespace="torch", bf16=False)
def threshold(input, threshold, value):
    check_threshold_args(input, threshold, value)
    d = dtype_of(input)
    # torch: x <= threshold ? value : x, so NaN stays NaN
    if d in (D.float16, D.bfloat16):
        # torch compares half types in float32 with the threshold unrounded (its opmath type); MindSpore's CPU
        # select has no bfloat16 kernel. The value is rounded to the dtype first, so the result rounds back exactly
        x = cast(input, ms.float32)
        v = cast(scalar_tensor(value, d), ms.float32)
        return cast(ops.where(ops.less_equal(x, scalar_tensor(threshold, D.float32)), v, x), d._ms)
    return ops.where(ops.less_equal(input, scalar_tensor(threshold, d)), scalar_tensor(value, d), input)


def check_threshold_args(input, threshold, value):
    """torch's threshold checks (also for nn.functional.threshold): each Scalar fits int64 or uint64, the
    input is not bool, and both convert without overflow: the value to the input's dtype, the threshold to
    its opmath type (float32 for the half types)."""
    for v in (threshold, value):
        if isinstance(v, int) and not isinstance(v, bool) and not -2 ** 63 <= v < 2 ** 64:
            raise OverflowError("int too big to convert" if v > 0 else "can't convert negative int to unsigned")
    if input.dtype is _bool:
        _not_impl("threshold_cpu", input)
    d = dtype_of(input)
    _check_fill(threshold, D.float32 if d in (D.float16, D.bfloat16) else d)
    _check_fill(value, d)


@register("hardshrink", family=A, namespace=("torch", "Tensor", "nn.functional"))
def hardshrink(input, lambd=0.5):
    _float_only(input, "hardshrink_cpu")
    d = dtype_of(input)
    # torch: -lambd <= x <= lambd ? 0 : x, so NaN stays NaN
    return ops.where(ops.less_equal(ops.abs(input), scalar_tensor(lambd, d)), scalar_tensor(0, d), input)


@register("prelu", family=A, namespace=("torch", "Tensor", "nn.functional"))
def prelu(input, weight):
    _need_tensor("prelu", weight, 2, "weight")
    # (torch's order: the parameter count, the weight's rank, then the kernel's dtype)
    channels = input.shape[1] if input.ndim >= 2 else 1
    if weight.size != 1 and weight.size != channels:
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                           f"{weight.size} and channel size = {channels}.")
    if weight.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}")
    _float_only(input, "prelu_cpu")
    w = weight
    if weight.size != 1 and input.ndim > 2:
        w = weight.reshape((channels,) + (1,) * (input.ndim - 2))
    elif weight.ndim == 1 and weight.size == 1 and input.ndim == 0:
        w = weight.reshape(())
    # the weight multiplies only the non-positive part, so its gradient sees no inf * 0 from the others
    pos = ops.greater(input, scalar_tensor(0, dtype_of(input)))
    return ops.where(pos, input, ops.mul(w, ops.where(pos, ops.zeros_like(input), input)))


def _softmax_input(name, input, dim, dtype):
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise TypeError(f"{name}(): argument 'dim' (position 2) must be int, not {type(dim).__name__}")
    axis = wrap_dim(dim, input.ndim)
    if dtype is not None:
        input = cast(input, dtype._ms)
    elif dtype_of(input)._cat < D._FLOAT and input.size:   # (empty: torch answers without its kernel)
        last = axis == input.ndim - 1 or input.ndim == 0
        _not_impl(f"{name}{'_lastdim' if last else ''}_kernel_impl", input)
    return input, axis


_f32, _f16, _bf16 = ms.float32, ms.float16, ms.bfloat16
_NP_HALF = {_f16: np.float16, _bf16: NP_BF16}
# classic primitives: on CPU their broadcasting Sub and RealDiv are ~3x faster than ops.sub/ops.div
# (64x1000 by 64x1: 66 vs 210 us), and ArgMaxWithValue ~4x faster than ReduceMax (45 vs 204 us)
_reduce_sum = _prims.ReduceSum(keep_dims=True)
_sub, _div, _exp, _log = _prims.Sub(), _prims.RealDiv(), _prims.Exp(), _prims.Log()
_ROW_MAX = {}            # axis -> ArgMaxWithValue primitive
_SOFTMAX = {}            # axis -> Softmax primitive (cheaper to call than ops.softmax)


def _untracked(fn, *args):
    """``fn(*args)`` without recording it for autograd (values that only steer the computation)."""
    if P.grad_enabled():
        P.set_grad_enabled(False)
        try:
            return fn(*args)
        finally:
            P.set_grad_enabled(True)
    return fn(*args)


def _row_max_of(x, axis):
    kernel = _ROW_MAX.get(axis)
    if kernel is None:
        kernel = _ROW_MAX[axis] = _prims.ArgMaxWithValue(axis=axis, keep_dims=True)
    return kernel(x)[1]


def _shifted(x, axis):
    # x - max(x): the max is a constant for autograd (softmax does not depend on the shift); a NaN max
    # (ArgMaxWithValue may pick one) only makes the row NaN, as it is anyway
    return _sub(x, _untracked(_row_max_of, x, axis))


def _softmax_composed(x, axis):
    e = _exp(_shifted(x, axis))
    return _div(e, _reduce_sum(e, axis))


def _rows_sum_to_one(y, axis):
    # on the host: asnumpy() of a CPU tensor is a view (~5 us), cheaper than a reduction kernel (~50 us)
    r = read_host(y).sum(axis)
    return bool(((r > 0.75) & (r < 1.25)).all())   # NaN fails both tests


def softmax_kernel(x, axis):
    """MindSpore's Softmax kernel, with our own backward for double backward: the backward of
    MindSpore's SoftmaxBackward fails ("The pointer[input_tensor] is null")."""
    kernel = _SOFTMAX.get(axis)
    if kernel is None:
        kernel = _SOFTMAX[axis] = ops.Softmax(axis)
    y = kernel(x)
    if P.requires_grad(y):
        record_own_backward(y, _softmax_backward, P.detach(y), axis)
    return y


def _softmax_backward(node, grad_outputs, y, axis):
    # torch's formula, y (g - sum(g y)), in recorded ops on y reattached to its node
    (g,) = grad_outputs
    if g is None:
        return (None,)
    y = P.reattach(y, node, 0)
    gy = ops.mul(g, y)
    return (ops.sub(gy, ops.mul(y, _reduce_sum(gy, axis))),)


def _softmax32_checked(x, axis):
    y = softmax_kernel(x, axis)
    if _rows_sum_to_one(y, axis):
        return y
    return _softmax_composed(x, axis)


# MindSpore's CPU Softmax loses rows (the check above reads each result's row sums on the host); the
# device path trusts the device's kernel
_softmax32 = _softmax32_checked if kernels.HOST_WORKAROUNDS else softmax_kernel


def _in_f32(fn, x, axis):
    return cast(fn(cast(x, _f32), axis), x.dtype)


class Softmax(Function):
    """float16/bfloat16 softmax: computed in float32 and rounded once, as torch's kernel; its backward is
    torch's, y * (g - sum(g * y)) in float32 on the rounded output y, rounded once (a float32 output would
    move the gradient by the output's rounding, ~5e-4 relative). Recorded under create_graph, on the output
    recomputed from x. Named after torch's node (SoftmaxBackward0)."""

    @staticmethod
    def forward(ctx, x, axis):
        y = _untracked(_in_f32, _softmax, x._ms, axis)
        ctx.save_for_backward(x)
        ctx.y, ctx.axis = y, axis
        return wrap(y)

    @staticmethod
    def backward(ctx, grad):
        x, axis = ctx.saved_tensors[0]._ms, ctx.axis
        recorded = grad.requires_grad and is_grad_enabled()
        y = cast(_in_f32(_softmax, x, axis) if recorded else ctx.y, _f32)
        g = cast(grad._ms, _f32)
        return wrap(cast(ops.mul(y, ops.sub(g, ops.sum(ops.mul(g, y), axis, True))), x.dtype)), None


def _softmax(x, axis):
    d = x.dtype
    if d is _f16 or d is _bf16:
        if x.size and P.grad_enabled() and P.requires_grad(x):
            return Softmax.apply(wrap(x), axis)._ms
        return _in_f32(_softmax, x, axis)
    if x.ndim == 0:   # one element: 1, or NaN for NaN and infinities, with torch's gradient
        return _softmax_composed(x.reshape((1,)), 0).reshape(())
    if x.size == 0:
        return x.copy()
    if d is _f32:
        return _softmax32(x, axis)
    if d is _f64:
        return softmax_kernel(x, axis)
    return _softmax_composed(x, axis)


def _log_softmax_composed(x, axis):
    s = _shifted(x, axis)
    return _sub(s, _log(_reduce_sum(_exp(s), axis)))


def _rounded_to(t, np_dtype):
    # t as if stored in a half type (a constant offset: the rounding has no gradient, as in torch)
    if not kernels.HOST_WORKAROUNDS:   # the device path: the rounding by Cast kernels
        half = _f16 if np_dtype == np.float16 else _bf16
        return ops.add(t, ops.stop_gradient(ops.sub(cast(cast(t, half), _f32), t)))
    v = read_host(t)
    return ops.add(t, ms.Tensor(v.astype(np_dtype).astype(np.float32) - v))


def _log_softmax_half_lastdim(x, axis):
    # torch's last-dim kernel for float16/bfloat16 keeps each row's sum of exponentials and its log in
    # the input's dtype; the rest is float32
    np_half = _NP_HALF[x.dtype]
    s = _shifted(cast(x, _f32), axis)
    total = _rounded_to(_reduce_sum(ops.exp(s), axis), np_half)
    return cast(ops.sub(s, _rounded_to(ops.log(total), np_half)), x.dtype)


def _log_softmax(x, axis):
    d = x.dtype
    if (d is _f16 or d is _bf16) and x.size:
        if axis == x.ndim - 1:
            return _log_softmax_half_lastdim(x, axis)
        return _in_f32(_log_softmax, x, axis)
    if x.ndim == 0:
        return _log_softmax_composed(x.reshape((1,)), 0).reshape(())
    if x.size == 0:
        return x.copy()
    return _log_softmax_composed(x, axis)


@register("log_softmax", family=A, bf16=False)
def log_softmax(input, dim, dtype=None):
    x, axis = _softmax_input("log_softmax", input, dim, dtype)
    return _log_softmax(x, axis)


@register("softmax", family=A, bf16=False)
def softmax(input, dim, dtype=None):
    x, axis = _softmax_input("softmax", input, dim, dtype)
    return _softmax(x, axis)


_IMPLS = {"selu": selu, "celu": celu, "threshold": threshold}
register("relu_", family=A, namespace=("torch", "nn.functional"), raw=True)(inplace_function("relu_"))
for _name in ("selu_", "celu_", "threshold_"):
    register(_name, family=A, namespace=("torch", "nn.functional"), raw=True)(_inplace_function(_name))
