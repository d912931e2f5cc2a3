"""Identity, Linear, Bilinear (torch's layouts and default inits)."""
import math

from ...ops.creation import empty
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Identity", "Linear", "Bilinear"]


def _register_weight_and_bias(module, weight_shape, out_features, bias, dtype, device):
    module.weight = Parameter(empty(weight_shape, dtype=dtype, device=device))
    if bias:
        module.bias = Parameter(empty(out_features, dtype=dtype, device=device))
    else:
        module.register_parameter("bias", None)


def _reset_kaiming_uniform(weight, bias):
    """torch's default for Linear and Conv*: kaiming_uniform(a=sqrt(5)) weights, U(+-1/sqrt(fan_in)) bias."""
    init.kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in, _ = init._calculate_fan_in_and_fan_out(weight)
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        init.uniform_(bias, -bound, bound)


class Identity(Module):
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """Mirrors torch.nn.Linear: weight (out_features, in_features), kaiming_uniform(a=sqrt(5)) init."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        _register_weight_and_bias(self, (out_features, in_features), out_features, bias, dtype, device)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_kaiming_uniform(self.weight, self.bias)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class NonDynamicallyQuantizableLinear(Linear):
    """torch.nn.modules.linear.NonDynamicallyQuantizableLinear: a Linear under another name (the out
    projection of MultiheadAttention); like torch, not exported from nn."""


class Bilinear(Module):
    """Mirrors torch.nn.Bilinear."""

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        _register_weight_and_bias(self, (out_features, in1_features, in2_features), out_features, bias, dtype, device)
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")



