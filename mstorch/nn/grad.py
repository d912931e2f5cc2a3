"""torch.nn.grad (also ``torch.nn.functional.grad``): the gradients of conv1d/2d/3d with respect to their input
and weight for a given ``grad_output``. A convolution is linear in each, so each is one backward pass of the
convolution from a zero tensor of the wanted shape (values, dtypes and errors are the convolution's)."""
from .. import autograd
from ..ops.creation import zeros
from . import functional as F

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input", "conv3d_weight"]


def _input_grad(conv, input_size, weight, grad_output, stride, padding, dilation, groups):
    x = zeros(tuple(input_size), dtype=grad_output.dtype, requires_grad=True)
    with autograd.enable_grad():
        out = conv(x, weight.detach(), None, stride, padding, dilation, groups)
    return autograd.grad(out, x, grad_output)[0]


def _weight_grad(conv, input, weight_size, grad_output, stride, padding, dilation, groups):
    w = zeros(tuple(weight_size), dtype=grad_output.dtype, requires_grad=True)
    with autograd.enable_grad():
        out = conv(input.detach(), w, None, stride, padding, dilation, groups)
    return autograd.grad(out, w, grad_output)[0]


def _make(n, kind):
    """conv{n}d_input / conv{n}d_weight with torch's signature (one place builds all six)."""
    conv = getattr(F, f"conv{n}d")
    if kind == "input":
        def fn(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
            return _input_grad(conv, input_size, weight, grad_output, stride, padding, dilation, groups)
    else:
        def fn(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
            return _weight_grad(conv, input, weight_size, grad_output, stride, padding, dilation, groups)
    fn.__name__ = fn.__qualname__ = f"conv{n}d_{kind}"
    fn.__module__ = __name__
    fn.__doc__ = f"torch.nn.grad.conv{n}d_{kind}: the gradient of conv{n}d with respect to its {kind}."
    return fn


conv1d_input, conv1d_weight = _make(1, "input"), _make(1, "weight")
conv2d_input, conv2d_weight = _make(2, "input"), _make(2, "weight")
conv3d_input, conv3d_weight = _make(3, "input"), _make(3, "weight")
