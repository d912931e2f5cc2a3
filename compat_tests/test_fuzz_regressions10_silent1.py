"""Regression tests against torch for silent classes the differential fuzzer found (issue 18, tenth batch,
pointwise group): values or gradients that differed from torch's without an error."""
import pytest

from harness import check
from test_fuzz_regressions10_math import _run

inf, nan = float("inf"), float("nan")


@pytest.mark.parametrize("src", [
    # integer inputs computed in float: a negative scalar or 0-d tensor beside an unsigned tensor keeps its sign
    "T.copysign(T.tensor([[3], [4], [4]], dtype=T.uint8), -2)",
    "T.div(T.tensor([3, 4], dtype=T.uint8), -2)",
    "T.true_divide(T.tensor([3, 4], dtype=T.uint8), T.tensor(-2))",
    "T.atan2(T.tensor([3, 4], dtype=T.uint8), T.tensor(-2))",
    "T.xlogy(T.tensor([3, 4], dtype=T.int8), T.tensor(1000))",
    "T.special.xlog1py(T.tensor([3, 4], dtype=T.uint8), -2)",
    "T.special.zeta(T.tensor([1, 2], dtype=T.int8), T.tensor(1000))",
    # bfloat16's own largest value replaces inf (float32's rounds to inf in bfloat16)
    "T.nan_to_num(T.tensor([inf, -inf, nan, 1.5], dtype=T.bfloat16))",
    "T.nan_to_num(T.tensor([inf, -inf, nan, 1.5], dtype=T.bfloat16), 0.1, 1e39, -3e38)",
    # complex exp2 at an infinite real part: each part scaled by ln2, no inf * 0
    "T.special.exp2(T.tensor([complex(inf, 1.69), complex(inf, -1.69), complex(-inf, 1.69), complex(inf, 3.0), "
    "complex(1.624, 1.49)]))",
    "T.exp2(T.tensor([complex(inf, 1.69), complex(inf, 0.0)], dtype=T.complex128))",
])
def test_value(src):
    check(lambda T: eval(src, {"T": T, "inf": inf, "nan": nan}))


@pytest.mark.parametrize("src", [
    "x0 = T.tensor([[inf], [0.4609375]], dtype=T.bfloat16, requires_grad=True); r = T.nan_to_num(x0); "
    "(r * T.tensor([[-1.0], [2.0]], dtype=T.bfloat16)).sum().backward(); out = (r, x0.grad)",
    # the negation in atan2's gradient wraps in the integer operand's dtype (-(-32768) is -32768 in int16)
    "x1 = T.tensor(1.96875, dtype=T.bfloat16, requires_grad=True); "
    "r = T.arctan2(T.tensor([[0, 3, -1], [1, -32768, -32768]], dtype=T.int16), x1); "
    "(r * T.linspace(-1, 2, 6).reshape(2, 3).to(r.dtype)).sum().backward(); out = (r, x1.grad)",
])
def test_grad(src):
    check(lambda T: _run(T, src))
