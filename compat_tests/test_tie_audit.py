"""Audits against torch: embedding_bag(mode="max") ties and NaN, floor_divide's missing derivative, and the
boundary audit (division by zero, equal clamp bounds, negative-order norms with zeros, atan2 and pow at 0, erfinv, logit, entr and ndtri at their domain ends).

torch's max bag is a running maximum per column that takes a row only when it is greater: of equal maxima
the first row in the bag is picked and gets the whole gradient; a bag starting with NaN stays NaN and a
later NaN is skipped. mstorch spread the gradient evenly over tied rows (MindSpore's UnsortedSegmentMax
backward), a silent gradient difference found by a repeated-run audit of accumulating kernels.
"""
import math

import numpy as np
import pytest

from harness import check

nan = math.nan
W = {"ones": np.ones((4, 2), np.float32),
     "ties": np.array([[1., 5], [3, 2], [3, 5], [0, 0]], np.float32),
     "nan": np.array([[nan, 5], [3, nan], [3, 5], [-1, 0]], np.float32)}
BAGS = {"offsets": ([2, 1, 3, 0, 1], [0, 3]), "empty bag": ([0, 1, 2, 3], [0, 2, 2]),
        "fixed length": ([[0, 1], [2, 3], [1, 1]], None), "one bag": ([1, 2, 0, 3], [0])}


@pytest.mark.parametrize("weights", W)
@pytest.mark.parametrize("bags", BAGS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
def test_embedding_bag_max_ties_and_nan(weights, bags, dtype):
    inp, off = BAGS[bags]

    def fn(T):
        w = T.tensor(W[weights], dtype=getattr(T, dtype), requires_grad=True)
        out = T.nn.functional.embedding_bag(T.tensor(inp), w, None if off is None else T.tensor(off), mode="max")
        (out * T.tensor([1.0, 2.0], dtype=out.dtype)).sum().backward()
        return out, w.grad
    check(fn)


def test_embedding_bag_max_padding_idx_and_last_offset():
    def fn(T):
        w = T.tensor(W["ties"], requires_grad=True)
        out = T.nn.functional.embedding_bag(T.tensor([2, 1, 3, 0, 1, 2]), w, T.tensor([0, 3, 6]), mode="max",
                                            padding_idx=2, include_last_offset=True)
        out.sum().backward()
        return out, w.grad
    check(fn)


def test_floor_divide_has_no_derivative():
    # torch's floor_divide (and //) has no derivative: backward raises; div(rounding_mode="floor") has a zero one
    def fn(T):
        x = T.tensor([1.0, 3.0, -2.5], requires_grad=True)
        (x // 2).sum().backward()
    check(fn, raises=True)

    def fn_div(T):
        x = T.tensor([1.0, 3.0, -2.5], requires_grad=True)
        x.div(2, rounding_mode="floor").sum().backward()
        return x.grad
    check(fn_div)


# --- the boundary audit: op_db samples rerun with integer values in [-2, 2] (zeros, ties, equal bounds) ---

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_div_gradients_at_a_zero_divisor(dtype):
    # torch: grad / b for a and -grad * ((a / b) / b) for b, infinities or NaN at b == 0 (the divisor's was 0)
    def fn(T):
        a = T.tensor([[1.0, 0.0, -2.0, 3.0]], dtype=getattr(T, dtype), requires_grad=True)
        b = T.tensor([[0.0], [-0.0], [2.0]], dtype=getattr(T, dtype), requires_grad=True)
        r = a / b
        (r * T.arange(1.0, 13.0, dtype=r.dtype).reshape(3, 4)).sum().backward()
        return r, a.grad, b.grad
    check(fn)


def test_div_double_backward_at_a_zero_divisor():
    def fn(T):
        a = T.tensor([1.0, 2.0, 0.0], dtype=T.float64, requires_grad=True)
        b = T.tensor([0.0, 2.0, -0.0], dtype=T.float64, requires_grad=True)
        ga, gb = T.autograd.grad((a / b * T.tensor([1.0, 2.0, 3.0], dtype=T.float64)).sum(), (a, b),
                                 create_graph=True)
        return (ga, gb) + T.autograd.grad((ga * 1.5).sum() + gb.sum(), (a, b))
    check(fn)


def test_clamp_gradient_with_equal_tensor_bounds():
    # torch's gradient reaches min only where min < max: below min == max it reaches nothing
    def fn(T):
        x = T.tensor([-2.0, 0.0, 2.0, 3.0, 1.5], requires_grad=True)
        lo = T.tensor([2.0, 2.0, 2.0, 2.0, 1.0], requires_grad=True)
        hi = T.tensor([2.0, 2.0, 2.0, 2.0, 0.5], requires_grad=True)
        r = T.clamp(x, lo, hi)
        (r * T.arange(1.0, 6.0)).sum().backward()
        return r, x.grad, lo.grad, hi.grad
    check(fn)


@pytest.mark.parametrize("ord", [-1, -2, -0.5, 0.5])
@pytest.mark.parametrize("grad", [False, True])
def test_vector_norm_negative_order_with_zeros(ord, grad):
    # a zero element makes sum(|x|**p) infinite for p < 0, so the norm is 0 (the zeros were dropped)
    def fn(T):
        x = T.tensor([[1.0, 0.0, -2.0], [0.0, 0.0, 0.0], [1.0, -1.0, 2.0]], requires_grad=grad)
        n = T.linalg.vector_norm(x, ord, 1)
        if not grad:
            return n, T.norm(x, ord, 1)
        n.sum().backward()
        return n, x.grad
    check(fn)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_atan2_gradient_at_the_origin(dtype):
    # torch's gradient is 0 where x^2 + y^2 is 0 (or underflows); MindSpore's Atan2Grad gave NaN
    def fn(T):
        y = T.tensor([0.0, 0.0, 1e-30, 1.0, -0.0, 0.5], dtype=getattr(T, dtype), requires_grad=True)
        x = T.tensor([0.0, 1.0, 0.0, 0.0, -0.0, 2.0], dtype=getattr(T, dtype), requires_grad=True)
        r = T.atan2(y, x)
        (r * T.arange(1.0, 7.0, dtype=r.dtype)).sum().backward()
        return r, y.grad, x.grad
    check(fn)


def test_pow_gradients_at_zero():
    # torch: d/da is 0 where the exponent is 0, d/de is 0 where a == 0 and e >= 0 (MindSpore: NaN)
    def fn(T):
        a = T.tensor([0.0, 0.0, 0.0, 2.0, 0.0, 0.5], requires_grad=True)
        e = T.tensor([0.0, 1.0, 2.0, 0.0, -1.0, 1.5], requires_grad=True)
        r = T.pow(a, e)
        (r * T.arange(1.0, 7.0)).sum().backward()
        b = T.tensor([0.0, 1.0, -2.0], requires_grad=True)
        (b ** 0).sum().backward()
        return r, a.grad, e.grad, b.grad
    check(fn, rtol=2e-6)


def test_pow_atan2_double_backward():
    def fn(T):
        a = T.tensor([0.5, 2.0, 0.0], dtype=T.float64, requires_grad=True)
        e = T.tensor([1.5, 0.0, 2.0], dtype=T.float64, requires_grad=True)
        ga, ge = T.autograd.grad(T.pow(a, e).sum(), (a, e), create_graph=True)
        y = T.tensor([0.5, 0.0], dtype=T.float64, requires_grad=True)
        x = T.tensor([2.0, 0.0], dtype=T.float64, requires_grad=True)
        gy, gx = T.autograd.grad(T.atan2(y, x).sum(), (y, x), create_graph=True)
        return T.autograd.grad(ga.sum() + ge.sum(), (a, e)) + T.autograd.grad(gy.sum() + gx.sum(), (y, x))
    check(fn)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_erfinv_gradient_at_plus_minus_one(dtype):
    # torch's sqrt(pi) / 2 * exp(erfinv(x)^2) is infinite at +-1 (the composed tail gave NaN there)
    def fn(T):
        x = T.tensor([-2.0, -1.0, 0.0, 1.0, 2.0, 0.5, 0.9], dtype=getattr(T, dtype), requires_grad=True)
        y = T.erfinv(x)
        y.backward(T.ones_like(y))
        return y, x.grad
    check(fn, rtol=1e-3 if dtype == "float16" else 2e-5)


@pytest.mark.parametrize("eps", [None, 0.1])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_logit_gradient_at_and_beyond_the_domain_ends(eps, dtype):
    # torch: NaN outside [0, 1], infinite at 0 and 1 (the composed formula gave finite values / NaN there)
    def fn(T):
        # (not -0.0: torch's float32 and float64 kernels give its infinity opposite signs; documented)
        x = T.tensor([-2.0, 0.0, 0.0, 0.05, 0.5, 1.0, 2.0, 0.95, 0.1], dtype=getattr(T, dtype), requires_grad=True)
        y = T.logit(x, eps)
        y.backward(T.tensor([1.0, 1.0, -1.0, 2.0, 1.0, -1.0, 1.0, 1.0, 1.0], dtype=y.dtype))
        return y, x.grad
    check(fn)


def test_logit_double_backward():
    def fn(T):
        x = T.tensor([0.3, 0.0, 0.05], dtype=T.float64, requires_grad=True)
        g1, = T.autograd.grad(T.logit(x).sum(), x, create_graph=True)
        g2, = T.autograd.grad(T.logit(x, 0.1).sum(), x, create_graph=True)
        return T.autograd.grad(g1.sum() + g2.sum(), x)
    check(fn)


@pytest.mark.parametrize("name", ["entr", "ndtri"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_special_gradients_at_the_domain_ends(name, dtype):
    # torch: entr' = -(1 + log x) (inf at 0, NaN below), ndtri' = sqrt(2 pi) exp(ndtri(p)^2 / 2) (inf at 0 and 1,
    # NaN outside); the composed values' own autograd gave 0 there
    def fn(T):
        x = T.tensor([-2.0, -1.0, 0.0, 1.0, 2.0, 0.5, 0.3, 1e-3], dtype=getattr(T, dtype), requires_grad=True)
        y = getattr(T.special, name)(x)
        y.backward(T.ones_like(y))
        g, = T.autograd.grad(getattr(T.special, name)(x[5:]).sum() * 1.0, x, create_graph=True)
        return y, x.grad, T.autograd.grad(g.sum(), x)[0]
    check(fn, atol=1e-6 if dtype == "float32" else 1e-12)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_logit_eps_bounds_round_to_the_half_type(dtype):
    # in bfloat16, 1 - 1e-6 is 1, so the clamped logit is inf (found by tools/fuzz.py --boundary)
    def fn(T):
        x = T.tensor([2.0, -2.0, 0.5, 1e-7, 0.9999, 0.3], dtype=getattr(T, dtype), requires_grad=True)
        y = T.logit(x, 0.01)
        y.sum().backward()
        return T.logit(x.detach(), 1e-6), y, x.grad
    check(fn)


# --- the hour of fuzzing (65,330 cases, seeds drawn at random): classes fixed ---------------------------

def test_conv_tbc_over_no_time_steps_is_the_bias():
    def fn(T):
        x = T.zeros((0, 2, 1), requires_grad=True)
        w = T.tensor([[[-1.88, -0.35, 1.47]]], requires_grad=True)
        b = T.tensor([1.576, 1.884, 0.37], requires_grad=True)
        r = T.conv_tbc(x, w, b, 1)
        r.sum().backward()
        return r, w.grad, b.grad
    check(fn)


@pytest.mark.parametrize("shape", [(2, 1, 0), (2, 1, 0, 3), (2, 1, 0, 3, 3)])
def test_convolution_of_empty_spatial_input_raises(shape):
    def fn(T):
        n = len(shape) - 2
        return getattr(T.nn.functional, f"conv{n}d")(T.zeros(shape), T.ones((3, 1) + (1,) * n), padding=1)
    check(fn, raises=True)


def test_index_add_and_copy_of_a_0d_tensor_stay_0d():
    def fn(T):
        x = T.tensor(1.48, requires_grad=True)
        s = T.tensor(-1.92, requires_grad=True)
        r = T.index_add(x, 0, T.tensor(0, dtype=T.int32), s, alpha=2.0)
        r.backward()
        return r, x.grad, s.grad, T.index_copy(T.tensor(1.5), 0, T.tensor([0]), T.tensor(2.0))
    check(fn)


def test_lu_of_empty_bfloat16_keeps_the_dtype():
    check(lambda T: (T.linalg.lu(T.zeros((0, 0), dtype=T.bfloat16)), T.linalg.lu_factor(T.zeros((2, 0, 3), dtype=T.bfloat16))))


def test_spherical_bessel_j0_at_infinity():
    check(lambda T: T.special.spherical_bessel_j0(T.tensor([-float("inf"), 2.2, 0.0, float("inf"), 1e30])))


@pytest.mark.parametrize("dtypes", [("bfloat16", "bfloat16", "float32"), ("float32", "float32", "float64"),
                                    ("float16", "float32", None), ("bfloat16", "bfloat16", None)])
def test_cross_entropy_probability_targets_promote_with_the_weight(dtypes):
    # torch's result dtype is the promotion of the input, the target and the weight (it was the input's)
    xd, td, wd = dtypes

    def fn(T):
        x = T.tensor([[0.5, -0.9, 2.1], [1.0, 0.2, -0.3]], dtype=getattr(T, xd), requires_grad=True)
        t = T.tensor([[0.2, 0.3, 0.5], [0.1, 0.6, 0.3]], dtype=getattr(T, td))
        w = None if wd is None else T.tensor([0.5, 1.0, 2.0], dtype=getattr(T, wd))
        r = T.nn.functional.cross_entropy(x, t, w, reduction="sum")
        r.backward()
        return r, x.grad
    # (values at the half types' precision: see docs/known-differences.md)
    check(fn, rtol=1e-2 if xd in ("bfloat16", "float16") else 1e-5, atol=1e-2 if xd in ("bfloat16", "float16") else 1e-6)
