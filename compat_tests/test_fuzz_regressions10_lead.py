"""Regression tests against torch (issue 18, tenth batch): gradients of amax/amin where a reduced slice
holds NaN (torch divides by the count of elements equal to the NaN result, none: NaN to the whole slice)."""
import pytest

from harness import check


@pytest.mark.parametrize("src", [
    "T.amax(x, 1)", "T.amin(x, 1, True)", "T.amax(x)", "T.amin(x, (0, 1))", "T.amax(x.t(), 0)",
    "T.amax(x[0, 1], 0)", "T.amin(x[1], 0)",
])
@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
def test_amax_amin_gradient_at_nan(src, dtype):
    def f(T):
        x = T.tensor([[1., float("nan"), 2.], [3., float("inf"), 5.]], dtype=getattr(T, dtype), requires_grad=True)
        r = eval(src)
        (r * T.linspace(1, 2, r.numel()).reshape(r.shape).to(r.dtype)).sum().backward()
        return r, x.grad
    check(f)
