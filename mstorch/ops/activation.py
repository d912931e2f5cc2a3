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
from ._registry import register
from .pointwise import _not_impl, _need_tensor, _expm1

A = "activation"
_bool, _f64 = ms.bool_, ms.float64


def _inplace_function(method):
    """torch.relu_(x) and friends: the in-place op as a top-level function."""
    def fn(input, *args, **kwargs):
        if not isinstance(input, Tensor):
            raise TypeError(f"{method}(): argument 'input' (position 1) must be Tensor, not "
                            f"{type(input).__name__}")
        return getattr(input, method)(*args, **kwargs) if hasattr(Tensor, method) else \
            input._write(_IMPLS[method[:-1]](input._ms, *_raw(args), **kwargs))
    fn.__name__ = method
    return fn


def _raw(args):
    return [a._ms if isinstance(a, Tensor) else a for a in args]


@register("relu", family=A, inplace="relu_")
def relu(input):
    if input.dtype is _bool:
        raise RuntimeError("Boolean inputs not supported for relu")
    return ops.relu(input)


def _float_only(input, kernel):
    if dtype_of(input)._cat < D._FLOAT:
        _not_impl(kernel, input)


@register("selu", family=A, method=False)
def selu(input):
    _float_only(input, "elu_cpu")
    alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
    d = dtype_of(input)
    neg = ops.mul(_expm1(ops.minimum(input, scalar_tensor(0, d))), scalar_tensor(alpha * scale, d))
    return ops.add(ops.mul(ops.relu(input), scalar_tensor(scale, d)), neg)


@register("celu", family=A, method=False)
def celu(input, alpha=1.0):
    _float_only(input, "elu_cpu")
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    d = dtype_of(input)
    neg = ops.mul(_expm1(ops.div(ops.minimum(input, scalar_tensor(0, d)), scalar_tensor(alpha, d))),
                  scalar_tensor(alpha, d))
    return ops.add(ops.relu(input), neg)


@register("threshold", family=A, method=False)
def threshold(input, threshold, value):
    if input.dtype is _bool:
        _not_impl("threshold_cpu", input)
    d = dtype_of(input)
    return ops.where(ops.greater(input, scalar_tensor(threshold, d)), input, scalar_tensor(value, d))


@register("hardshrink", family=A)
def hardshrink(input, lambd=0.5):
    _float_only(input, "hardshrink_cpu")
    d = dtype_of(input)
    return ops.where(ops.greater(ops.abs(input), scalar_tensor(lambd, d)), input, scalar_tensor(0, d))


@register("prelu", family=A)
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
for _name in ("relu_", "selu_", "celu_", "threshold_"):
    register(_name, family=A, method=False, raw=True)(_inplace_function(_name))
