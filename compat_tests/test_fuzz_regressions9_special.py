"""Regression tests against torch for silent-wrong classes the differential fuzzer found (issue 18,
ninth batch): gradients of torch.special functions (gammainc/gammaincc, erfcx, i1, log_ndtr) at
non-finite and huge values, and their float32 rounding."""
import math

import numpy as np
import pytest

from harness import check
from test_fuzz_regressions9 import _grads

nan, inf = math.nan, math.inf
BIG32 = 3.4028235e38
BIG64 = 1.7976931348623157e308



# --- gammainc / gammaincc: the derivative w.r.t. x -------------------------------------------------

@pytest.mark.parametrize("name", ["gammainc", "gammaincc"])
def test_igamma_grad_of_a_float64_scalar_x_with_float32_a(name):
    # (the computation is float32, as torch's; its exp/log/lgamma must be as exact as torch's: MindSpore's
    # float32 Exp was ~1e-6 off)
    def f(T):
        x = T.tensor(2.7, dtype=T.float64, requires_grad=True)
        r = getattr(T.special, name)(T.tensor([0.5, 2.0, 3.0]), x)
        (r * T.linspace(-1, 2, 3)).sum().backward()
        return x.grad
    check(f, rtol=2e-7, atol=0)


@pytest.mark.parametrize("name", ["gammainc", "gammaincc"])
def test_igamma_grad_float32_rounding(name):
    rng = np.random.RandomState(0)
    a = rng.uniform(0.1, 10, 64).astype(np.float32)
    x = rng.uniform(0.01, 15, 64).astype(np.float32)

    def f(T):
        xt = T.tensor(x, requires_grad=True)
        getattr(T.special, name)(T.tensor(a), xt).sum().backward()
        return xt.grad
    # (2.5e-6: torch's vectorised float32 exp/log differ by an ulp or two between CPUs, AMD EPYC against Intel)
    check(f, rtol=2.5e-6, atol=0)


# --- erfcx: torch's 2 x erfcx(x) - 2 / sqrt(pi) ----------------------------------------------------

def test_erfcx_grad_fuzz_case():
    def f(T):
        x = T.tensor([-9.3, 22.81, 1e30, BIG32, -0.0, 16.07], requires_grad=True)
        return _grads(T, [x], lambda T, x: T.special.erfcx(x))
    for _ in range(3):   # (MindSpore's kernel threads flush subnormals in some calls, not others)
        check(f)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_erfcx_grad_at_extremes(dtype):
    vals = [nan, inf, -inf, 0.0, -0.0, 1.0, -1.0, 0.5, 5.0, -5.0, 10.0, 22.81, 25.0, 26.5, 40.0, 1e10,
            1e30, -1e30, 1e37, 1.7e38, 1.71e38, BIG32, -BIG32, -9.3, -30.0]
    if dtype == "float64":
        vals += [1e300, 3e307, 8e307, 1e308, BIG64, -BIG64]

    def f(T):
        x = T.tensor(vals, dtype=getattr(T, dtype), requires_grad=True)
        return _grads(T, [x], lambda T, x: T.special.erfcx(x))
    for _ in range(3):
        check(f)


# --- i1: torch's i0(x) - i1(x) / x, 1/2 where |x| <= eps (NaN included) ------------------------------

def test_i1_grad_fuzz_case():
    def f(T):
        x = T.tensor([[nan, 1e30, -inf]], requires_grad=True)
        return _grads(T, [x], lambda T, x: T.special.i1(x))
    check(f)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_i1_grad_at_extremes_and_tiny(dtype):
    def f(T):
        x = T.tensor([nan, inf, -inf, 1e30, 0.0, -0.0, 1e-8, -1e-8, 1e-20, 2e-16, 1e-7, 1.2e-7, 1.0, -2.5,
                      50.0, 90.0, 713.0, -800.0], dtype=getattr(T, dtype), requires_grad=True)
        return _grads(T, [x], lambda T, x: T.special.i1(x))
    check(f, rtol=1e-6, atol=1e-7)


# --- log_ndtr: torch's exp(-(y + x^2 / 2)) / sqrt(2 pi) ----------------------------------------------

def test_log_ndtr_grad_fuzz_case():
    def f(T):
        x = T.tensor([BIG64, -1.58, -16.78, -BIG64, -inf, -1.23, -18.56, nan, -26.71, -23.97], dtype=T.float64,
                     requires_grad=True)
        return _grads(T, [x], lambda T, x: T.special.log_ndtr(x))
    check(f, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_log_ndtr_grad_at_extremes(dtype):
    # at huge -x torch's derivative subtracts x^2 / 2 from the value (-t^2 with t = x / sqrt 2, rounded):
    # inf, 1/sqrt(2 pi) or 0 where they round apart, NaN where x^2 overflows
    vals = [nan, inf, -inf, 0.0, -0.0, -1.0, -0.999, -1.001, 3.0, 10.0, 40.0, -5.0, -36.9, -37.0, -37.1, -40.0,
            -1e10, -1e20, -1e30, -1e38, -1.7e38, -BIG32, BIG32]
    if dtype == "float64":
        vals += [-1e155, -1e160, BIG64, -BIG64]
    tol = {"float32": (1e-5, 1e-6), "float64": (1e-9, 1e-12)}[dtype]

    def f(T):
        x = T.tensor(vals, dtype=getattr(T, dtype), requires_grad=True)
        return _grads(T, [x], lambda T, x: T.special.log_ndtr(x))
    check(f, rtol=tol[0], atol=tol[1])


# --- second derivatives through the formula nodes ----------------------------------------------------

@pytest.mark.parametrize("name,vals", [("erfcx", [-1.5, 0.3, 2.0, 30.0]), ("log_ndtr", [-40.0, -3.0, 0.5, 2.0]),
                                       ("i1", [0.0, 1.5, -2.0])])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_special_double_backward(name, vals, dtype):
    def f(T):
        x = T.tensor(vals, dtype=getattr(T, dtype), requires_grad=True)
        (g,) = T.autograd.grad(getattr(T.special, name)(x).sum(), x, create_graph=True)
        (gg,) = T.autograd.grad((g * g).sum(), x)
        return g.detach(), gg
    # (float32: log_ndtr's derivative cancels y + x^2 / 2, in torch as here; its rounding shows at -40)
    check(f, rtol=1e-5 if dtype == "float64" else 2e-4)
