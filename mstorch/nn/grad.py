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


def conv1d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    return _input_grad(F.conv1d, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv1d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    return _weight_grad(F.conv1d, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv2d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    return _input_grad(F.conv2d, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv2d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    return _weight_grad(F.conv2d, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv3d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    return _input_grad(F.conv3d, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv3d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    return _weight_grad(F.conv3d, input, weight_size, grad_output, stride, padding, dilation, groups)
