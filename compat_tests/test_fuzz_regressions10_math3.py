"""Regression tests against torch for math classes the differential fuzzer found (issue 18, tenth batch, part
three): complex pow/float_power at 0.5 and -0.5, complex logaddexp and logsumexp (values and gradients),
torch.special backward that torch refuses on empty inputs, grouped_mm offsets, and exception classes."""
import math

import pytest

from harness import check

nan, inf = math.nan, math.inf


def _run(src):
    """A case's source (statements; the last one's value or ``out``) run with ``T``."""
    def fn(T):
        scope = {"T": T, "F": T.nn.functional, "nan": nan, "inf": inf}
        lines = [s.strip() for s in src.split(";")]
        if not lines[-1].startswith("out ="):
            lines[-1] = "out = " + lines[-1]
        exec("\n".join(lines), scope)
        return scope["out"]
    return fn


_Z = ("T.tensor([complex(inf, 1.0), complex(4.0, inf), complex(nan, 1), complex(-inf, 2), complex(-inf, -2), "
      "complex(inf, nan), complex(-inf, nan), complex(0, 0), complex(-4, 0), complex(-4, -0.0), complex(0, -inf), "
      "complex(3.4e38, 3.4e38), complex(0.5, 3.24)], dtype=T.{})")


@pytest.mark.parametrize("src", [
    # complex ** 0.5 is torch's sqrt (csqrt at infinities), ** -0.5 is 1 / sqrt by its complex division
    "T.float_power(" + _Z.format("complex64") + ", 0.5)",
    "T.float_power(" + _Z.format("complex128") + ", -0.5)",
    "T.pow(" + _Z.format("complex64") + ", 0.5)",
    "T.pow(" + _Z.format("complex64") + ", -0.5)",
    "z = T.tensor([complex(1., 2.), complex(-3, 0.5), complex(0.2, -1)], requires_grad=True); "
    "T.autograd.grad(T.pow(z, 0.5).abs().sum(), z)[0]",
    "z = T.tensor([complex(1., 2.), complex(-3, 0.5), complex(0.2, -1)], requires_grad=True); "
    "T.autograd.grad(T.pow(z, -0.5).abs().sum(), z)[0]",
    # complex logaddexp: ordered by real part, NaN, +-inf pairs, a real operand promoted
    "T.logaddexp(T.tensor([complex(-0.601, -0.17), complex(inf, 1), complex(-inf, 2), complex(inf, 3), "
    "complex(nan, 1), complex(1, nan), complex(2, 1), complex(-inf, 1), complex(0.3, 0.2), complex(3, 1)]), "
    "T.tensor([complex(0.5, 0.75), complex(inf, 2), complex(-inf, 0.5), complex(1, 1), complex(1, 1), complex(2, 0), "
    "complex(2, 1), complex(3, -1), complex(nan, 0), complex(3, 2)]))",
    "T.logaddexp(T.tensor([[-1.1120273, 1.4829292, -1.1731234], [1.6744436, -0.046355244, 0.44697544]])"
    ".to(T.bfloat16), T.tensor(complex(-1.1, -0.69)))",
    "T.logaddexp(T.tensor([complex(-0.601, -0.17)]), T.tensor([complex(0.5, 0.75)]), out=T.zeros(0, dtype=T.complex64))",
    "a = T.tensor([complex(-0.6, -0.17), complex(0.3, 1)], requires_grad=True); "
    "b = T.tensor(complex(0.5, 0.75), requires_grad=True); r = T.logaddexp(a, b); "
    "out = (r, *T.autograd.grad((r * T.tensor([complex(1, 2), complex(-1, 0.5)])).sum().abs(), (a, b)))",
    # complex logsumexp: shifted by the max real part; gradient g * conj(exp(x - result))
    "T.special.logsumexp(T.tensor([[complex(0.5, 1.72), complex(1.2, -0.81), complex(2.1, -0.17)], "
    "[complex(-0.11, -2.63), complex(-0.34, 0.45), complex(-1.87, -1.21)], [complex(-0.5, 2.01), complex(0.8, 0.89), "
    "complex(-1.1, 1.51)]])[::2], (0, 1), True)",
    "T.logsumexp(T.tensor([[complex(inf, 1), complex(1, 2)], [complex(-inf, 1), complex(-inf, 2)], "
    "[complex(nan, 1), complex(1, 1)], [complex(1e30, 1), complex(1e30, -1)]]), 1)",
    "T.logsumexp(T.zeros(0, 2, dtype=T.complex64), 0)",
    "x = T.tensor([[complex(0.5, 1.72), complex(1.2, -0.81)], [complex(-0.11, -2.63), complex(-0.34, 0.45)]], "
    "requires_grad=True); r = T.logsumexp(x, 1); "
    "out = (r, T.autograd.grad(r, x, T.tensor([complex(1, 2), complex(-1, 0.5)]))[0])",
    # grouped_mm: rows past the last offset stay in the result (torch leaves them unwritten: zero them here)
    "F.grouped_mm(T.ones(6, 4), T.ones(3, 4, 4), offs=T.tensor([2, 3, 5], dtype=T.int32))[:5]",
    "F.grouped_mm(T.ones(6, 4), T.ones(3, 4, 4), offs=T.tensor([2, 3, 5], dtype=T.int32)).shape",
    # gradients where torch has a derivative: empty inputs still get empty gradients
    "x1 = T.zeros((0,), dtype=T.float64, requires_grad=True); r = T.special.gammaincc(T.zeros((0,), dtype=T.float64), x1); "
    "r.sum().backward(); out = (r, x1.grad)",
    "x0 = T.zeros((0,), requires_grad=True); r = T.special.i1(x0); r.sum().backward(); out = (r, x0.grad)",
    "x0 = T.tensor([0.5, 2.0], requires_grad=True); r = T.special.i1e(x0); r.sum().backward(); out = (r, x0.grad)",
    "x0 = T.tensor([0.5, 2.0], requires_grad=True); r = T.special.gammainc(T.tensor(1.5), x0); r.sum().backward(); "
    "out = (r, x0.grad)",
    "T.nextafter(T.tensor(-1.28125, dtype=T.bfloat16), T.tensor(9.2e-41, dtype=T.bfloat16), "
    "out=T.zeros(0, dtype=T.bfloat16))",
    "T.nextafter(T.tensor(0.0, dtype=T.bfloat16), T.tensor(-1.0, dtype=T.bfloat16))",
    "T.clamp(T.tensor([True, False]), T.tensor([False, False]))",
    "T.ones(2, 2, dtype=T.bool).index_reduce(0, T.tensor([1]), T.ones(1, 2, dtype=T.bool), 'amax')",
])
def test_returns(src):
    check(_run(src), atol=1e-5)


@pytest.mark.parametrize("src", [
    "T.greater_equal(T.zeros((1, 0), dtype=T.float16), T.tensor(complex(-2.74, -0.83)))",
    "T.lt(T.zeros(2, dtype=T.float16), 1j)",
    "x0 = T.zeros((0,), dtype=T.float64, requires_grad=True); x1 = T.zeros((0,), dtype=T.float64, requires_grad=True); "
    "r = T.special.gammaincc(x0, x1); r.sum().backward()",
    "x0 = T.zeros((0,), dtype=T.bfloat16, requires_grad=True); r = T.special.i1e(x0); r.sum().backward()",
    "x0 = T.zeros((0, 2), dtype=T.float16, requires_grad=True); r = T.special.i1(x0); r.sum().backward()",
    "x0 = T.zeros((3, 0), requires_grad=True); x1 = T.zeros((3, 0), requires_grad=True); "
    "r = T.special.zeta(x0, x1); r.sum().backward()",
    "x0 = T.tensor([0.5, 2.0], requires_grad=True); r = T.special.zeta(x0, 2.0); r.sum().backward()",
    "x0 = T.tensor([[-0.1, -1.48, -1.58, -0.82]], requires_grad=True); F.grouped_mm(x0, T.ones(4, 4, 4), "
    "offs=T.tensor([2, 3, 6], dtype=T.int32))",
    "F.grouped_mm(T.ones(2, 4, 4), T.ones(4, 8), offs=T.tensor([2, 3, 8], dtype=T.int32))",
    "T.fft.ifftshift(T.tensor(1.354, requires_grad=True))",
    "T.fft.fftshift(T.ones(3), dim=())",
    "T.clip(T.tensor([[False], [False], [False]]).expand(3, 0), T.zeros((0,), dtype=T.bool), "
    "T.zeros((0,), dtype=T.bool))",
    "T.clamp(T.tensor([True, False]), T.tensor([False, False]), T.tensor([True, True]))",
    "T.index_reduce(T.tensor([[True, False, True], [True, False, False]]), 1, T.tensor([0, -1, 2, 3, 0, 2])[::2], "
    "T.tensor([[False, True, True], [True, False, False], [False, False, False]])[1:], 'mean', include_self=False, "
    "out=T.zeros(0, dtype=T.bool))",
    "T.tensor([[complex(0.388, -0.05), complex(-0.063, 1.56)], [complex(0.408, -0.36), complex(1.607, 1.52)]])"
    ".index_reduce(-1, T.tensor([1]), T.tensor([[complex(0.84, 0.56)], [complex(0.84, 1.68)]]), 'amin', "
    "include_self=False)",
    "T.tensor([1j, 2]).index_reduce(0, T.tensor([1]), T.tensor([1j]), 'prod')",
    "T.tensor([True, False]).index_reduce(0, T.tensor([5]), T.tensor([True]), 'amax')",
    "T.floor(T.tensor([1j]))",
    "T.tensor([complex(1.2, -0.03)]).ceil_()",
    "T.fix(T.tensor([1j]))",
    "T.index_reduce(T.zeros((2, 0), dtype=T.float64), -1, T.tensor([1], dtype=T.int32), "
    "T.tensor([[1.43], [0.76]], dtype=T.float64), 'amin', include_self=False)",
])
def test_raises(src):
    check(_run(src), raises=True)
