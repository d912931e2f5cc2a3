"""LayerNorm, GroupNorm, RMSNorm, LocalResponseNorm, CrossMapLRN2d (torch's parameters, init and repr)."""
import numbers

from ...autograd import Function
from ..._functions import stack
from ...ops.creation import empty, zeros
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["LocalResponseNorm", "CrossMapLRN2d", "LayerNorm", "GroupNorm", "RMSNorm"]


class _LocalNorm(Module):
    """LocalResponseNorm's and CrossMapLRN2d's shared attributes and repr (torch has no common base)."""

    def __init__(self, size, alpha, beta, k):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class LocalResponseNorm(_LocalNorm):
    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__(size, alpha, beta, k)

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)


class _CrossMapLRN2dFunction(Function):
    """torch's legacy (Lua) cross-channel LRN: the window of squares is a running sum over channels that
    adds the channel ``pre_pad - 1`` ahead and drops the one ``pre_pad`` behind only past ``pre_pad``, and
    the backward is its hand-written formula (not the forward's exact derivative); both computed as torch
    does, channel by channel, so the roundings are torch's."""

    @staticmethod
    def forward(ctx, input, size, alpha=1e-4, beta=0.75, k=1):
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
        channels = input.size(1)
        square = input.pow(2)
        pre_pad = int((size - 1) / 2 + 1)
        running = zeros(input.shape[:1] + input.shape[2:], dtype=input.dtype)
        for c in range(min(pre_pad, channels)):
            running = running + square[:, c]
        scales = [running]
        for c in range(1, channels):
            if c < channels - pre_pad + 1:
                running = running + square[:, c + pre_pad - 1]
            if c > pre_pad:
                running = running - square[:, c - pre_pad]
            scales.append(running)
        scale = stack(scales, 1).mul(alpha / size).add(k)
        output = scale.pow(-beta).mul(input)
        ctx.size, ctx.alpha, ctx.beta, ctx.scale = size, alpha, beta, scale
        ctx.save_for_backward(input, output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, output = ctx.saved_tensors
        size, scale = ctx.size, ctx.scale
        channels = input.size(1)
        ratio_factor = 2 * ctx.alpha * ctx.beta / size
        lead = int(size - (size - 1) / 2)
        if lead + channels > channels + size - 1:   # (size 1: torch's narrow of its padded buffer fails)
            raise RuntimeError(f"start ({lead}) + length ({channels}) exceeds dimension size ({channels + size - 1}).")
        ratio = grad_output.mul(output).div(scale)
        pad = zeros(input.shape[:1] + (1,) + input.shape[2:], dtype=input.dtype)
        padded = [pad[:, 0]] * lead + list(ratio.unbind(1)) + [pad[:, 0]] * (size - 1 - lead)
        base = scale.pow(-ctx.beta).mul(grad_output)
        accum = stack(padded[:size - 1], 0).sum(0) if size > 1 else zeros(pad[:, 0].shape, dtype=input.dtype)
        grads = []
        for c in range(channels):
            accum = accum + padded[c + size - 1]
            grads.append(base[:, c].addcmul(input[:, c], accum, value=-ratio_factor))
            accum = accum - padded[c]
        return stack(grads, 1), None, None, None, None


class CrossMapLRN2d(_LocalNorm):
    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__(size, alpha, beta, k)

    def forward(self, input):
        return _CrossMapLRN2dFunction.apply(input, self.size, self.alpha, self.beta, self.k)


def _shape(normalized_shape):
    if isinstance(normalized_shape, numbers.Integral):
        return (normalized_shape,)
    return tuple(normalized_shape)


def _register_affine(module, shape, affine, bias, dtype, device):
    """weight (and bias) of ``shape``, or registered as None as torch does when they are off;
    ``bias=None``: the layer has no bias at all (RMSNorm)."""
    slots = {"weight": affine} if bias is None else {"weight": affine, "bias": affine and bias}
    for name, wanted in slots.items():
        if wanted:
            setattr(module, name, Parameter(empty(shape, dtype=dtype, device=device)))
        else:
            module.register_parameter(name, None)


def _reset_affine(module):
    if module.weight is not None:
        init.ones_(module.weight)
    if getattr(module, "bias", None) is not None:
        init.zeros_(module.bias)


class LayerNorm(Module):
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = _shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _register_affine(self, self.normalized_shape, elementwise_affine, bias, dtype, device)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_affine(self)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")


class GroupNorm(Module):
    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        _register_affine(self, (num_channels,), affine, bias, dtype, device)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_affine(self)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class RMSNorm(Module):
    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = _shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _register_affine(self, self.normalized_shape, elementwise_affine, None, dtype, device)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_affine(self)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
