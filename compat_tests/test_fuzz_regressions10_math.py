"""Regression tests against torch for math classes the differential fuzzer found (issue 18, tenth batch):
clamp/threshold/atan2/logaddexp on bfloat16 and mixed dtypes, trigamma at its poles, complex arithmetic at
infinities (torch's plain complex product and Smith's division), logsumexp's gradient, reductions of 0-d
tensors, norm's dtype checks, empty broadcasts, and exception types."""
import math

import pytest

from harness import check


def _run(T, src):
    """A fuzzer case: statements ending in ``out = ...`` (a lone expression is the result)."""
    ns = {"T": T, "F": T.nn.functional, "nan": math.nan, "inf": math.inf}
    lines = [s.strip() for s in src.split(";")]
    if not lines[-1].startswith("out ="):
        lines[-1] = "out = " + lines[-1]
    exec("\n".join(lines), ns)  # noqa: S102 - a fixed test source, run on both libraries
    return ns["out"]


_BACKWARD = "g = r if isinstance(r, T.Tensor) else r[0]; " \
            "(g * T.linspace(-1, 2, g.numel()).reshape(g.shape).to(g.dtype)).sum().backward()"

VALUES = [
    # clamp: a Python bound is rounded to bfloat16 first (x == 0.30078125 lies inside max=0.3)
    "x0 = T.tensor([[[0.69921875, -0.5, -0.30078125], [-0.69921875, 0.30078125, -0.6015625]]], dtype=T.bfloat16, "
    "requires_grad=True); r = T.clamp(x0, max=0.3); " + _BACKWARD + "; out = (r, x0.grad)",
    "x0 = T.tensor([0.30078125, -0.30078125, 0.5], dtype=T.bfloat16, requires_grad=True); r = T.clamp_min(x0, -0.3); "
    "r.sum().backward(); out = (r, x0.grad)",
    "T.clamp(T.tensor([300, 257, -5]), max=T.tensor([256.9]).to(T.bfloat16))",
    # a NaN tensor bound is the result, with no gradient to x or to the bound
    "x0 = T.tensor([0.3, -0.3, 0.5], requires_grad=True); x1 = T.tensor([0.1, nan, 0.5], requires_grad=True); "
    "r = T.clamp(x0, x1, x1 + 1); r.sum().backward(); out = (r, x0.grad, x1.grad)",
    # a 0-d float operand beside a bfloat16 tensor is rounded to bfloat16 first
    "T.logaddexp(T.tensor([[-1.1120273, 1.4829292], [1.6744436, -0.046355244]]).to(T.bfloat16), T.tensor(2.2))",
    "T.atan2(T.tensor([[-1.1120273, 1.4829292], [1.6744436, -0.046355244]]).to(T.bfloat16), "
    "T.tensor(-2.02, dtype=T.float64), out=T.zeros(0, dtype=T.float64))",
    # atan2's gradient squares each operand in its own dtype
    "x0 = T.tensor([-0.300048828125, -1.1396484375, -0.68017578125], dtype=T.float16, requires_grad=True); "
    "x1 = T.tensor([1.089, 1.406], dtype=T.float64, requires_grad=True); r = T.arctan2(x0[1:], x1); "
    + _BACKWARD + "; out = (r, x0.grad, x1.grad)",
    # trigamma: torch's series, finite (huge) at the poles
    "T.polygamma(1, T.tensor([[-1, 2, 1], [-2, 5, -4]], dtype=T.int16))",
    "T.polygamma(1, T.tensor([-3.0, -0.5, 0.0, 0.3, 0.5, 2.5, 1e5, inf, -inf, nan]))",
    "T.polygamma(1, T.tensor([-3.0, -0.5, 0.3, 2.5, 1e5], dtype=T.float64))",
    "x0 = T.tensor([0.3, 2.5, -1.5, 7.0], requires_grad=True); r = T.polygamma(1, x0); r.sum().backward(); "
    "out = (r, x0.grad)",
    # complex add/sub scale the other operand by alpha as a complex product, even by 1
    "T.rsub(T.tensor([[complex(1e+30, 0.27), complex(-inf, 0.33)]]), T.tensor([[complex(1.36, 1.16), "
    "complex(1.05, -0.68)]]))",
    "T.tensor([complex(1.05, -0.68), 1+1j, 0j]) + T.tensor([complex(-inf, 0.33), complex(2, inf), complex(nan, 1)])",
    "T.tensor([complex(1.05, -0.68), 1+1j, 0j]) - T.tensor([-inf, 2.0, nan])",
    "x0 = T.tensor([complex(1.05, -0.68), 1+1j], requires_grad=True); x1 = T.tensor([complex(0.5, 0.33), "
    "complex(2, 1)], requires_grad=True); r = T.add(x0, x1, alpha=1+2j); r.abs().sum().backward(); "
    "out = (r, x0.grad, x1.grad)",
    # complex products: the plain formula (0 * inf is NaN), with a gradient
    "T.tensor([complex(inf, nan), complex(inf, 0), complex(inf, 1), complex(nan, 1)]) * "
    "T.tensor([complex(0, 2.91), complex(0, 1), complex(1, 1), complex(inf, 0)])",
    "T.tensor([complex(inf, 0), complex(inf, 1)]) * 2",
    "x0 = T.tensor([complex(1.05, -0.68), 1+1j, 2j], requires_grad=True); x1 = T.tensor([complex(0.5, 0.33), "
    "complex(0, 1), complex(-3, 0.1)], requires_grad=True); r = x0 * x1; r.abs().sum().backward(); "
    "out = (r, x0.grad, x1.grad)",
    # complex division: Smith's (c10::complex), part-wise by a zero divisor, with torch's gradient
    "T.tensor([complex(inf, 0.0), complex(inf, nan), complex(1, 2), complex(0, 0), complex(-1, nan)]) / "
    "T.tensor([complex(0, 2.91), complex(0, 2.91), complex(0, 0), complex(0, 0), complex(0, 0)])",
    "T.true_divide(T.tensor([[complex(-0.4, -0.42), complex(3.4028234663852886e+38, -0.51), complex(-1.5, -1.87)]]), "
    "T.tensor([[0.10009765625, -inf, -0.0]], dtype=T.bfloat16))",
    "x0 = T.tensor([complex(1.05, -0.68), 1+1j], requires_grad=True); x1 = T.tensor([complex(0.5, 0.33), "
    "complex(2, 1)], requires_grad=True); r = x0 / x1; r.abs().sum().backward(); out = (r, x0.grad, x1.grad)",
    "T.addcdiv(T.tensor([[complex(1.39, 2.98), complex(2.74, -3.86)], [complex(-4.21, 0.84), complex(1e+30, 0.1)]]), "
    "T.tensor([[4.0, 0.0], [inf, 2.6]]), T.tensor([[complex(-inf, 0.73), complex(-3.43, -0.52)], "
    "[complex(0.0, 2.91), complex(3.15, -0.62)]]), out=T.zeros(0, dtype=T.complex64))",
    "T.addcmul(T.tensor([0j, 1j]), T.tensor([inf, nan]), T.tensor([complex(0.0, 2.91), complex(1, 1)]))",
    # bfloat16 gradients summed to a broadcast operand's shape
    "x0 = T.tensor([[-1.96875], [-0.6015625], [-0.5]], dtype=T.bfloat16, requires_grad=True); "
    "x1 = T.tensor([0.0], dtype=T.bfloat16, requires_grad=True); r = T.divide(x0[1:], x1.expand(3)); "
    + _BACKWARD + "; out = (r, x0.grad, x1.grad)",
    # logsumexp: torch's gradient g * exp(x - result)
    "x0 = T.tensor([[inf, 1e+30], [-0.043, 2.075], [-2.983, 0.903], [-inf, 1e+30]], dtype=T.float64, "
    "requires_grad=True); r = T.logsumexp(x0, 0); " + _BACKWARD + "; out = (r, x0.grad)",
    "x0 = T.tensor([[65504.0], [inf]], dtype=T.float16, requires_grad=True); "
    "r = T.special.logsumexp(x0.expand(2, 3), (0, 1), True); " + _BACKWARD + "; out = (r, x0.grad)",
    # var/std over dim 0 of a 0-d tensor
    "T.var(T.tensor(-1.0, dtype=T.float16), 0)",
    "T.var(T.tensor(-2.4), 0, out=T.zeros(0))",
    "x0 = T.tensor(1.424, requires_grad=True); r = T.std(x0, dim=0, correction=0); " + _BACKWARD + "; out = (r, x0.grad)",
    # empty broadcasts (MindSpore's Maximum refuses an empty output)
    "T.logaddexp(T.zeros((1, 0), dtype=T.float16).t(), T.tensor([-0.199951171875], dtype=T.float16))",
    "T.tensor([[0.0], [0.0]]).expand(2, 0).logaddexp2(T.zeros((0,)))",
    "T.maximum(T.zeros((0, 8))[:, ::2], T.tensor([0.2, -0.4, 0.6, -0.0]))",
    # nansum(out=) computes in out's dtype
    "T.nansum(T.tensor([[False, True, False, True, False], [False, False, False, True, False]])[::2], "
    "out=T.zeros(0, dtype=T.bool))",
    "T.index_reduce(T.tensor(1.0), 0, T.tensor([0]), T.tensor(2.0), 'prod')",
    "T.threshold(T.tensor([0.2998046875, 0.30029296875, 9.0], dtype=T.float16), 0.29995, 1)",
]

RAISES = [
    "T.threshold_(T.tensor([[9, 9]], dtype=T.uint8), 0.5, -1.0)",
    "T.threshold(T.tensor([0.0, 1.0, 9.0], dtype=T.float16), 5, 65519.0)",
    "T.threshold(T.tensor([0.0, 1.0, 9.0]), 5, 2**70)",
    "T.norm(T.tensor([[True], [True], [True]]), dtype=T.float64)",
    "T.norm(T.tensor([[1.0], [2], [3]], dtype=T.float64), dtype=T.float32)",
    "T.norm(T.tensor([[1+1j], [2], [3]]), dtype=T.float32)",
    "T.tensor([[[-0.9453125, -1.0234375], [1.4921875, -0.435546875]]], dtype=T.bfloat16).norm('nuc', (0, 2), True)",
    "T.special.polygamma(0, T.tensor([complex(1.3, 0.15)])[1:])",
    "T.polygamma(1, T.tensor([complex(1.3, 0.15)]))",
    "T.gradient(T.tensor([11, 1, 6, 5], dtype=T.uint8))",
    "T.copysign(T.tensor([complex(-0.851, -3.23)]), T.tensor([complex(2.91, 1.04)]))",
    "T.frexp(T.tensor([[0, 1, 127], [4, -2, 127]], dtype=T.int8), out=T.zeros(0, dtype=T.int8))",
    "T.max(T.tensor([[complex(0.5, 2.74), complex(-0.884, 0.8)]]), other=T.tensor([1.5714406, -0.67208076]))",
    "T.min(T.zeros((0, 3), dtype=T.complex64), other=T.tensor([1.5, -0.6, 1.2]), out=T.zeros(0, dtype=T.complex64))",
    "x0 = T.tensor([[[0.5, 0.1, -0.6], [-0.8, -0.0, 0.6]]]); x3 = T.tensor([[[1.0, -0.3, 1.5]]]); "
    "out = T.index_reduce(x0, 0, T.tensor([1]), x3, 'amax')",
    "x0 = T.tensor([-1.5, 0.0, 2.0], requires_grad=True); r = T.atan2(T.tensor([True, False, True]), x0); "
    "r.sum().backward(); out = (r, x0.grad)",
]


@pytest.mark.parametrize("src", VALUES)
def test_values_as_torch(src):
    check(lambda T: _run(T, src), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("src", RAISES)
def test_raises_as_torch(src):
    check(lambda T: _run(T, src), raises=True)
