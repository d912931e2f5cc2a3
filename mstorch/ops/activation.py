"""Activation ops that torch exposes at top level (``torch.relu``, ``torch.softmax``...; the
``torch.nn.functional`` forms belong to the nn family).

MindSpore's CPU Softmax stops writing its output after a row that is all -inf (the rows after it keep
whatever the buffer held); its LogSoftmax has no such fault, so softmax is exp(log_softmax). Its
float64 LogSoftmax is only float32-accurate: float64 uses x - max - log(sum(exp(x - max))).
"""
import mindspore as ms
from mindspore import ops

from .. import _dtype as D
from .._tensor import Tensor
from ._helpers import dtype_of, scalar_tensor, wrap_dim
from .comparison import inplace_function
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
        return input._write(_IMPLS[impl](input._ms, *args, **kwargs))
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
    pos = ops.greater(input, zero)
    xn = ops.where(pos, zero, input)
    if input_scale != 1:
        xn = ops.mul(xn, scalar_tensor(input_scale, d))
    neg = ops.mul(_expm1(xn), scalar_tensor(alpha * scale, d))
    return ops.where(pos, ops.mul(input, scalar_tensor(scale, d)) if scale != 1 else input, neg)


@register("selu", family=A, method=False)
def selu(input):
    _float_only(input, "elu_cpu")
    return _elu(input, 1.6732632423543772848170429916717, 1.0507009873554804934193349852946, 1)


@register("celu", family=A, method=False)
def celu(input, alpha=1.0):
    _float_only(input, "elu_cpu")
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return _elu(input, alpha, 1, 1 / alpha)


@register("threshold", family=A, method=False)
def threshold(input, threshold, value):
    if input.dtype is _bool:
        _not_impl("threshold_cpu", input)
    d = dtype_of(input)
    return ops.where(ops.greater(input, scalar_tensor(threshold, d)), input, scalar_tensor(value, d))


@register("hardshrink", family=A, functional=True)
def hardshrink(input, lambd=0.5):
    _float_only(input, "hardshrink_cpu")
    d = dtype_of(input)
    return ops.where(ops.greater(ops.abs(input), scalar_tensor(lambd, d)), input, scalar_tensor(0, d))


@register("prelu", family=A, functional=True)
def prelu(input, weight):
    _need_tensor("prelu", weight, 2, "weight")
    _float_only(input, "prelu_cpu")
    if weight.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}")
    channels = input.shape[1] if input.ndim >= 2 else 1
    if weight.size != 1 and weight.size != channels:
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                           f"{weight.size} and channel size = {channels}.")
    w = weight
    if weight.size != 1 and input.ndim > 2:
        w = weight.reshape((channels,) + (1,) * (input.ndim - 2))
    elif weight.ndim == 1 and weight.size == 1 and input.ndim == 0:
        w = weight.reshape(())
    return ops.where(ops.greater(input, scalar_tensor(0, dtype_of(input))), input, ops.mul(w, input))


def _softmax_input(name, input, dim, dtype):
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise TypeError(f"{name}(): argument 'dim' (position 2) must be int, not {type(dim).__name__}")
    axis = wrap_dim(dim, input.ndim)
    if dtype is not None:
        input = input.astype(dtype._ms) if input.dtype is not dtype._ms else input
    elif dtype_of(input)._cat < D._FLOAT:
        last = axis == input.ndim - 1 or input.ndim == 0
        _not_impl(f"{name}{'_lastdim' if last else ''}_kernel_impl", input)
    return input, axis


def _log_softmax(x, axis):
    if x.ndim == 0 or x.size == 0:
        return ops.sub(x, x) if x.ndim == 0 else x.copy()
    if x.dtype is _f64:
        s = ops.sub(x, ops.stop_gradient(ops.amax(x, axis, True)))
        return ops.sub(s, ops.log(ops.sum(ops.exp(s), axis, True)))
    return ops.log_softmax(x, axis)


@register("log_softmax", family=A)
def log_softmax(input, dim, dtype=None):
    x, axis = _softmax_input("log_softmax", input, dim, dtype)
    return _log_softmax(x, axis)


@register("softmax", family=A)
def softmax(input, dim, dtype=None):
    x, axis = _softmax_input("softmax", input, dim, dtype)
    if x.ndim == 0:
        return ops.exp(ops.sub(x, x))
    return ops.exp(_log_softmax(x, axis))


_IMPLS = {"selu": selu, "celu": celu, "threshold": threshold}
register("relu_", family=A, method=False, raw=True, functional=True)(inplace_function("relu_"))
for _name in ("selu_", "celu_", "threshold_"):
    register(_name, family=A, method=False, raw=True, functional=True)(_inplace_function(_name))
