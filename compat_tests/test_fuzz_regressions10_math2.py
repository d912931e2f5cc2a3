"""Regression tests against torch for math classes the differential fuzzer found (issue 18, tenth batch,
second part): lcm's wrap-around, complex sigmoid and small integer powers at infinities, ldexp's power
dtype, renorm's subnormal factor, half-precision products in order, complex means with NaN, var with no
degrees of freedom (value and gradient), nansum to an integer dtype, half-precision mul/div by a scalar,
and exception types."""

import pytest

from harness import check
from test_fuzz_regressions10_math import _run


_BACKWARD = "g = r if isinstance(r, T.Tensor) else r[0]; " \
            "(g * T.linspace(-1, 2, g.numel()).reshape(g.shape).to(g.dtype)).sum().backward()"

VALUES = [
    # lcm: |a / gcd * b| in C integer arithmetic, wrapping (narrow types in int, stored back)
    "T.lcm(T.tensor([[4]]), T.tensor(9223372036854775807))",
    "T.lcm(T.tensor([4, -2, 9223372036854775807, -9223372036854775808, 0, 6, -6]), "
    "T.tensor([9223372036854775807, 9223372036854775807, 2, 3, 0, 4, 4]))",
    "T.lcm(T.tensor([100, -100, 120, 0, 7], dtype=T.int8), T.tensor([3, 3, 7, 5, -128], dtype=T.int8))",
    "T.lcm(T.tensor([20000, -300], dtype=T.int16), T.tensor([3, 301], dtype=T.int16))",
    "T.lcm(T.tensor([2147483647, -5], dtype=T.int32), T.tensor([2, 3], dtype=T.int32))",
    "x = T.tensor([[-2, -5, 0], [2, -2, 9223372036854775807]]); "
    "out = (T.lcm_(x, T.tensor([[-1, 1, -3], [0, 9223372036854775807, 0]])), x)",
    # complex sigmoid: 1 / (1 + exp(-z)) with c10::complex's division (NaN once exp(-z) is infinite)
    "T.sigmoid(T.tensor([complex(-inf, -0.01), complex(-3.4e38, 1.83), complex(nan, 0.25), complex(1e30, -0.84), "
    "complex(-50, 1), complex(0.5, 0.5), complex(inf, 1)]))",
    "T.special.expit(T.tensor([complex(-1.131, 2.13), complex(-inf, -0.01)], dtype=T.complex128))",
    "x0 = T.tensor([1+2j, 0.5-1j], requires_grad=True); r = x0.sigmoid(); r.abs().sum().backward(); out = (r, x0.grad)",
    # complex ** 3 and ** -2 multiplied out (float_power too)
    "T.pow(T.tensor([complex(inf, -2.8), complex(3.4e38, 3.75), complex(nan, 0.28), 1+2j, 0j]), 3)",
    "T.pow(T.tensor([complex(inf, -2.8), 1+2j, 0j]), -2)",
    "T.tensor([[complex(0.5, 3.24), complex(nan, 0.28)], [complex(3.4028234663852886e+38, 3.75), "
    "complex(inf, -2.8)]]).float_power(2)",
    "T.tensor([complex(inf, -2.8), 1+2j, 0j]).float_power(3)",
    "T.tensor([1, -2, 0]).float_power(-1)",
    "x0 = T.tensor([1+2j, 0.5-1j], requires_grad=True); r = x0.float_power(3); r.abs().sum().backward(); "
    "out = (r, x0.grad)",
    # ldexp: a 0-d 2 of the input's dtype (float64, half types) raised to the exponent
    "T.ldexp(T.tensor(0.8, dtype=T.float64), T.tensor(2.19921875, dtype=T.float16))",
    "T.ldexp(T.tensor([0.8], dtype=T.float64), T.tensor([2.19921875], dtype=T.float16))",
    "T.ldexp(T.tensor(0.8, dtype=T.bfloat16), T.tensor(2.19921875, dtype=T.float16))",
    "T.ldexp(T.tensor([0.8]), T.tensor(2.19921875, dtype=T.float16))",
    "T.ldexp(T.tensor([3, 4]), T.tensor(2.19921875, dtype=T.float64))",
    # renorm: a subnormal factor (flushed by MindSpore) scaled
    "T.renorm(T.tensor([[-3.4028235e+38, 0.1, 1.2], [0.6, 0.0, 1.3]]), 1, 1, 0.5)",
    "x = T.tensor([[1.0, 0.0], [1.2, -3.4028235e+38], [-3.4028235e+38, 1.1], [0.5, 0.4]]); "
    "out = (x.renorm_(1, 1, 0.5), x)",
    # half-precision products one factor after another, each step rounded (65504 * -1.9 overflows)
    "T.prod(T.tensor([[[65504.0, 1.5185546875], [-1.8828125, -0.6689453125], [0.050994873046875, 0.0360107421875], "
    "[0.86376953125, 0.7412109375], [-1.140625, 1.7734375]]], dtype=T.float16), 1)",
    "T.prod(T.tensor([60000.0, 2.0, 0.25], dtype=T.float16))",
    "T.prod(T.tensor([[1.1, 1.3, 1.7, 2.9, 3.1, 0.7, 0.3]] * 3, dtype=T.bfloat16), 1, True)",
    "x0 = T.tensor([[1.1, 0.0, 1.7], [2.9, 3.1, 0.7]], dtype=T.float16, requires_grad=True); r = T.prod(x0, 1); "
    "r.sum().backward(); out = (r, x0.grad)",
    # complex mean: sum / (n + 0j), a NaN or infinite part makes the other NaN; with a gradient
    "T.mean(T.tensor([[complex(-1.67, 0.74), complex(nan, -1.18)], [complex(-1.41, -1.61), complex(1e+30, 1.1)]]))",
    "T.mean(T.tensor([[complex(-1.67, 0.74), complex(inf, -1.18)], [complex(1, inf), complex(2, 3)]], "
    "dtype=T.complex128), 1)",
    "x0 = T.tensor([[1+2j, 0.5-1j, 3], [1, 2j, 3]], requires_grad=True); r = x0.mean(1); r.abs().sum().backward(); "
    "out = (r, x0.grad)",
    "T.mean(T.tensor(1+2j), 0)",
    # var with n - correction <= 0: divided by 0 (NaN, not -inf, for NaN), with torch's gradient
    "T.var(T.tensor([[1.3, nan, -1.7], [2.25, 2.12, -1.23]])[::2], 0, out=T.zeros(0))",
    "T.std(T.tensor([[1.3, nan, -1.7]]), 0)",
    "x0 = T.tensor([[1.298, 0.675], [-1.927, 1.386], [-0.354, 0.605]], dtype=T.float64, requires_grad=True); "
    "r = T.var(x0[::2], 0, correction=2.5); " + _BACKWARD + "; out = (r, x0.grad)",
    "x0 = T.tensor([[1.0, 2.0], [3.0, 3.0]], requires_grad=True); r = T.var(x0, 1, correction=2); r.sum().backward(); "
    "out = (r, x0.grad)",
    "x0 = T.tensor([[1.0, 2.0], [3.0, 3.0]], requires_grad=True); r = T.var(x0, correction=4); r.sum().backward(); "
    "out = (r, x0.grad)",
    "x0 = T.tensor([[1.0, 2.0], [3.0, 3.0]], requires_grad=True); r = T.std(x0, 1, correction=3, keepdim=True); "
    "r.sum().backward(); out = (r, x0.grad)",
    # nansum to an integer dtype: NaN adds 0 (not the cast's INT_MIN)
    "T.nansum(T.tensor([1.5, nan, 2.7, -3.2]), dtype=T.int64)",
    "T.nansum(T.tensor([[1.5, nan], [2.7, -3.2]]), 1, dtype=T.int32)",
    "T.nansum(T.tensor([[1.5, nan], [2.7, -3.2]], dtype=T.bfloat16), 1, dtype=T.float32)",
    # half-precision mul/div by a scalar: the scalar kept in float32, one rounding
    "T.tensor([1.5, 0.3, -2.7, 100.3, 7.1], dtype=T.bfloat16) * 0.1",
    "0.3 * T.tensor([1.5, 0.3, -2.7, 100.3, 7.1], dtype=T.bfloat16)",
    "T.tensor([1.5, 0.3, -2.7, 100.3, 7.1], dtype=T.bfloat16) * T.tensor(0.1, dtype=T.float64)",
    "T.tensor([1.5, 0.3, -2.7, 100.3, 7.1], dtype=T.float16) * T.tensor(0.1)",
    "T.tensor([1.5, 0.3, -2.7, 100.3, 7.1], dtype=T.bfloat16) / 0.3",
    "T.tensor([1.5, 0.3, -2.7, 100.3, 7.1], dtype=T.float16) / 0.1",
    "T.tensor([1.5, 0.3, -2.7, 100.3, 7.1], dtype=T.bfloat16).div(0.3, rounding_mode='trunc')",
    "T.tensor([1.5, 0.3, -2.7, 100.3, 7.1], dtype=T.bfloat16).div(0.3, rounding_mode='floor')",
    # bfloat16 trunc division truncates the quotient rounded to bfloat16
    "T.tensor([1.5, 0.3, -2.7, 100.3, 7.1], dtype=T.bfloat16).div(T.tensor([0.3, 0.1, 0.7, 0.3, 0.3], "
    "dtype=T.bfloat16), rounding_mode='trunc')",
    "x0 = T.tensor([1.5, 0.3, -2.7], dtype=T.bfloat16, requires_grad=True); r = x0 * 0.1; r.sum().backward(); "
    "out = (r, x0.grad)",
]

RAISES = [
    # argument and meta checks before the dtype's kernel (or the reduction's own checks)
    "T.min(T.zeros((0,)), -1, True, out=T.zeros(0))",
    "T.max(T.zeros((0,)), 0, out=T.zeros(0))",
    "x0 = T.zeros((0, 1), requires_grad=True); r = T.norm(x0, -inf, 0); r.sum().backward(); out = (r, x0.grad)",
    "T.norm(T.zeros((0, 1)), inf)",
    "F.celu_(T.tensor([[True], [True]]).expand(2, 3))",
    "F.celu_(T.tensor([[True], [True]]).expand(2, 3), 0.0)",
    "F.selu_(T.tensor([[1.0], [2.0]]).expand(2, 3))",
    "T.clamp_(T.zeros((0, 1), dtype=T.complex64).t(), min=T.tensor([-1.1, 1.4, -1.1], dtype=T.float64))",
    "T.lerp(T.tensor([[5, -4], [-4, -5], [1, 0]], dtype=T.int32).t(), T.tensor([2147483647, -2147483648, 2147483647, "
    "1, 2], dtype=T.int32), 0.25)",
    "T.nanmean(T.zeros((5, 0), dtype=T.bool), 1, dtype=T.float64)",
    "T.round(T.tensor([3, 4], dtype=T.int32), decimals=0)",
    "T.round(T.tensor([3, 0, -4]), decimals=0, out=T.zeros(0, dtype=T.int64))",
    "T.bitwise_right_shift(T.tensor([[True, True], [False, True]]), T.tensor([[False, False], [True, True]]))",
    "T.bitwise_left_shift(T.tensor([True, False]), T.tensor([True, True]), out=T.zeros(0, dtype=T.bool))",
    "T.tensor(0.0).count_nonzero(1)",
]

RETURNS = [
    # 0-d reductions over dim 0, empty broadcasts
    "T.amax(T.tensor(0, dtype=T.uint8), 0)",
    "T.amax(T.tensor(-2, dtype=T.int32), 0, out=T.zeros(0, dtype=T.int32))",
    "x0 = T.tensor(2.5, requires_grad=True); r = T.amin(x0, -1, True); r.backward(); out = (r, x0.grad)",
    "T.tensor(-1.8798828125, dtype=T.float16).count_nonzero(0)",
    "T.round(T.tensor([3, 4], dtype=T.int32))",
    "T.round(T.tensor([3.5, 0.25]), decimals=0)",
    "x0 = T.zeros((0, 3), requires_grad=True); x1 = T.tensor([0.438, -1.004, 3.4028235e+38], requires_grad=True); "
    "r = T.hypot(x0, x1); " + _BACKWARD + "; out = (r, x0.grad, x1.grad)",
    "T.zeros((0, 2), dtype=T.bfloat16).hypot(T.tensor([0.30078125, 0.80078125], dtype=T.bfloat16))",
    # copysign of operands of different ranks (MindSpore's kernel broadcast them wrongly)
    "T.copysign(T.tensor([[-1.1, 1.4, -1.1], [1.6, -0.04, 0.4]]).to(T.bfloat16), T.tensor([[[3, -3, -2], [1, -5, 1]]]))",
    "x0 = T.tensor([[-1.1, 1.4, -1.1], [1.6, -0.04, 0.4]], requires_grad=True); x1 = T.tensor([-1.0, 2.0, -0.0], "
    "requires_grad=True); r = T.copysign(x0, x1); r.sum().backward(); out = (r, x0.grad, x1.grad)",
]


@pytest.mark.parametrize("src", VALUES)
def test_values_as_torch(src):
    check(lambda T: _run(T, src), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("src", RAISES)
def test_raises_as_torch(src):
    check(lambda T: _run(T, src), raises=True)


@pytest.mark.parametrize("src", RETURNS)
def test_returns_as_torch(src):
    check(lambda T: _run(T, src))
