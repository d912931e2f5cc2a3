"""Regression tests against torch for silent-wrong classes the differential fuzzer found (issue 18,
second batch): linear algebra on non-finite or huge inputs, gradients at NaN/inf, empty inputs."""
import math

import pytest

from harness import check

nan, inf = math.nan, math.inf
BIG32 = 3.4028235e38


def _grads(T, make, fn, weights=None):
    """fn on tensors made by make(T) (all requiring grad), then backward of a weighted sum: (result, grads)."""
    xs = make(T)
    r = fn(T, *xs)
    g = r if isinstance(r, T.Tensor) else r[0]
    w = T.linspace(-1, 2, g.numel()).reshape(g.shape).to(g.dtype) if weights is None else weights
    (g * w).sum().backward()
    return (r.detach() if isinstance(r, T.Tensor) else tuple(x.detach() for x in r),) + tuple(x.grad for x in xs)


# --- linalg on inputs MindSpore's kernels overflow on: LAPACK on the host ---------------------------

def test_qr_huge_entry():
    check(lambda T: T.linalg.qr(T.tensor([[0.92, 0.01, 1.67, 1.9, 1.91], [-0.98, 1.92, -0.79, 1.33, 1.12],
                                          [1.76, BIG32, 0.47, -0.0, 0.08]])), atol=1e-5)


@pytest.mark.parametrize("fn", ["inv", "inv_ex", "inverse"])
def test_inverse_huge_and_tiny_entries(fn):
    def f(T):
        a = T.tensor([[BIG32, -1e-45, -1.28], [5.4, -3.49, 3.94], [-2.71, 6.79, 4.59]]).t()
        return T.inverse(a) if fn == "inverse" else getattr(T.linalg, fn)(a)
    check(f)


def test_cond_fro_overflow():
    check(lambda T: T.linalg.cond(T.tensor([[BIG32, 0.7], [1e-45, 8.8]]), "fro"))


def test_svdvals_inf_row_is_nan():
    check(lambda T: T.linalg.svdvals(T.tensor(
        [[[-5e-324, 0.9, 1.3], [1.2, -1.1, 0.2], [-1.4, -0.4, 0.4], [-0.0, -1.3, 1.8], [-0.7, 1.2, -5e-324],
          [1.2, 1.2, -0.8]],
         [[-0.0, -inf, 1.3], [0.3, 1.3, 0.6], [-0.6, 0.0, -0.5], [0.7, -2.5, -2.5], [-0.2, 0.0, 0.0],
          [-3.0, 1.7, 0.8]]], dtype=T.float64)[:, ::2]))


@pytest.mark.parametrize("fn", ["svdvals", "svd", "pinv", "matrix_rank", "cond"])
def test_svd_family_refuses_nan(fn):
    # LAPACK's NaN check: torch raises linalg.LinAlgError (a RuntimeError)
    def f(T):
        a = T.tensor([[1.0, 2, 3], [4, nan, 6], [7, 8, 10]])
        r = getattr(T.linalg, fn)(a)
        return r[1] if fn == "svd" else r
    check(f, raises=True)


@pytest.mark.parametrize("fn", ["svdvals", "cond"])
def test_svd_family_inf_gives_nan(fn):
    # (torch's U/Vh, and so pinv, of such a matrix are whatever MKL leaves: see docs/known-differences.md)
    check(lambda T: getattr(T.linalg, fn)(T.tensor([[1.0, 2, 3], [4, inf, 6], [7, 8, 10]])))


def test_pinv_inf_batch_element():
    check(lambda T: T.linalg.pinv(T.tensor(
        [[[-0.87, -0.13, -0.0], [-0.04, -0.89, -0.89], [inf, -0.6, 0.55]],
         [[-0.56, -0.0, 1.65], [0.88, 0.05, 1.6], [0.78, -0.0, -1.04]]]), rtol=0.5))


def test_logdet_negative_determinant_grad():
    check(lambda T: _grads(T, lambda T: [T.tensor([[1.8, 4.2], [1.6, 1.0]], dtype=T.float64, requires_grad=True)],
                           lambda T, x: T.logdet(x)))


def test_logdet_positive_and_batched():
    check(lambda T: _grads(T, lambda T: [T.tensor([[[2.0, 1.0], [1.0, 3.0]], [[1.0, 2.0], [3.0, 1.0]]],
                                                   requires_grad=True)],
                           lambda T, x: T.logdet(x)), rtol=1e-5)


# --- gradients at NaN / inf ------------------------------------------------------------------------

@pytest.mark.parametrize("fn", ["min", "max"])
def test_full_min_max_grad_goes_to_nan(fn):
    def make(T):
        return [T.tensor([[-0.9, 1.5, nan], [0.2, -inf, 0.8], [nan, 1.0, 2.0]], dtype=T.float64,
                         requires_grad=True)]
    check(lambda T: _grads(T, make, lambda T, x: getattr(T, fn)(x[::2])))


@pytest.mark.parametrize("fn", ["selu", "elu", "celu"])
def test_elu_family_grad_at_nan_and_large_negative(fn):
    def make(T):
        return [T.tensor([-1.3, -1e-30, nan, -19.0, -12.1, BIG32, -7.8, -BIG32, -inf, 0.0, 2.0],
                         requires_grad=True)]
    check(lambda T: _grads(T, make, lambda T, x: getattr(T.nn.functional, fn)(x)))


def test_prelu_strided_weight_with_inf():
    def make(T):
        return [T.tensor([[-BIG32, 0.31, 4.88], [1e-30, BIG32, inf]], requires_grad=True),
                T.tensor([-0.4, -2.9], requires_grad=True)]
    check(lambda T: _grads(T, make, lambda T, x, w: T.nn.functional.prelu(x, w[::2])))


def test_cdist_nan_distance():
    check(lambda T: T.cdist(T.tensor([[nan, inf], [0.004, -1.373], [-0.26, -0.221]], dtype=T.float64),
                            T.tensor([[-0.59, -0.02], [-5e-324, 1.14]], dtype=T.float64)))


def test_cdist_overflowing_square_grad():
    def make(T):
        return [T.tensor([[[-0.6, 0.7], [-1.1, -0.3], [-0.9, -0.8]], [[inf, -1e-30], [0.5, -BIG32], [-1.4, 0.6]]],
                         requires_grad=True),
                T.tensor([[[BIG32, 0.72], [1e30, -0.77], [-0.67, 0.0], [0.57, -0.0]]], requires_grad=True)]
    check(lambda T: _grads(T, make, lambda T, a, b: T.cdist(a, b)))


def test_cdist_pdist_coincident_points_grad():
    check(lambda T: _grads(T, lambda T: [T.tensor([[1.0, 2], [1, 2], [0, 0]], requires_grad=True)],
                           lambda T, x: T.pdist(x)))
    check(lambda T: _grads(T, lambda T: [T.tensor([[1.0, 2], [3, 4]], requires_grad=True)],
                           lambda T, x: T.cdist(x, x)))


# --- empty inputs ---------------------------------------------------------------------------------

def test_masked_scatter_empty_source_grad():
    def make(T):
        return [T.zeros((0, 6), requires_grad=True), T.tensor([-0.79], requires_grad=True)]
    check(lambda T: _grads(T, make, lambda T, x, s: T.masked_scatter(x[:, ::2], T.zeros((0, 3), dtype=T.bool), s)))


def test_masked_scatter_nothing_selected_keeps_signed_zero():
    def make(T):
        return [T.tensor([-0.0, 1.0, 2.0], requires_grad=True), T.zeros((0,), requires_grad=True)]
    check(lambda T: _grads(T, make, lambda T, x, s: T.masked_scatter(x, T.tensor([False, False, False]), s)))


# --- integer semantics ----------------------------------------------------------------------------

def test_margin_ranking_loss_uint8_float_margin():
    def f(T):
        a = T.tensor([[0, 10, 9, 6], [10, 0, 0, 0], [9, 6, 0, 255]], dtype=T.uint8)
        b = T.tensor([[0, 0, 5], [2, 0, 4], [0, 0, 6], [9, 255, 0]], dtype=T.uint8).t()
        t = T.tensor([[6, 10, 6, 0], [7, 0, 0, 10], [0, 0, 1, 0]], dtype=T.uint8)
        return [T.nn.functional.margin_ranking_loss(a, b, t, margin=-0.2, reduction=r) for r in ("sum", "none")]
    check(f)


def test_margin_ranking_loss_int_margin_keeps_int():
    check(lambda T: T.nn.functional.margin_ranking_loss(T.tensor([1, 5, 3]), T.tensor([2, 2, 2]), T.tensor([1, -1, 1]),
                                                        margin=1, reduction="none"))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_ldexp_int64_exponent_wraps_to_int32(dtype):
    def f(T):
        x = T.tensor([[1.609, 1.084], [0.319, -0.866], [1.0, 1.0]], dtype=getattr(T, dtype))
        e = T.tensor([[0, 1], [2, 9223372036854775807], [-9223372036854775808, 1000]])
        y = x.clone()
        return T.ldexp(x, e), y.ldexp_(e), y
    check(f)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("edtype", ["int16", "int32", "int64"])
def test_ldexp_integer_exponent_scales_exactly(dtype, edtype):
    # C's ldexp, rounded once: inf scaled far down stays inf, 0 scaled far up stays 0 (one factor 2 ** e
    # would be 0 or inf and give NaN), results below the type's smallest normal round once
    def f(T):
        x = T.tensor([inf, 3.0, -inf, nan, 0.0, 1.5, -1.5, 1e-3, 5.0, 1.5, 2.0], dtype=getattr(T, dtype))
        e = T.tensor([-32768, -32768, 2000, 5, 2000, -24, -25, -1070, 3, -1000, 1023], dtype=getattr(T, edtype))
        y = x.clone()
        return T.ldexp(x, e), y.ldexp_(e), y
    check(f, rtol=0, atol=0)


def test_ldexp_float_exponent_is_a_product():
    check(lambda T: T.ldexp(T.tensor([0.0, 1.0, inf]), T.tensor([2000.0, -200.0, -2000.0])))


@pytest.mark.parametrize("dtype", ["int64", "int32", "float32", "float64"])
def test_cosine_embedding_loss_zero_rows(dtype):
    # integer inputs promote to float with torch's eps: an all-zero or empty row has cosine 0, not 0 / 0
    def f(T):
        F = T.nn.functional
        a = T.tensor([[1, 2], [0, 0], [3, -1]], dtype=getattr(T, dtype))
        b = T.tensor([[2, 3], [0, 0], [0, 0]], dtype=getattr(T, dtype))
        t = T.tensor([1, -1, 1])
        e = T.zeros((0,), dtype=getattr(T, dtype))
        return tuple(F.cosine_embedding_loss(a, b, t, margin=0.1, reduction=r) for r in ("mean", "none", "sum")) + \
            (F.cosine_embedding_loss(e, e, T.tensor(-1.0), margin=0.1),)
    check(f)


def test_cosine_embedding_loss_bool_target():
    # a bool target True is 1, never also -1
    check(lambda T: T.cosine_embedding_loss(T.tensor([[False], [False], [True]]), T.tensor([[False], [True], [True]]),
                                            T.tensor([True, False, True]), 0.0, 0))


def test_ldexp_float_and_complex_exponents():
    # the power is taken in the exponent's type (a bfloat16 power rounded to bfloat16), in the complex type
    # for a complex input (a float16 exponent with dims has no complex kernel in torch)
    check(lambda T: (T.ldexp(T.tensor([1.5, -3.0]), T.tensor([2.828125, -1.3], dtype=T.bfloat16)),
                     T.ldexp(T.tensor([1.5, -3.0], dtype=T.float64), T.tensor([2.828125, -1.3])),
                     T.ldexp(T.tensor([1, 2]), T.tensor([2.828125, -1.3], dtype=T.bfloat16)),
                     T.ldexp(T.tensor([complex(-0.28, 2.91)]), T.tensor([complex(3.611, 2.92)])),
                     T.ldexp(T.tensor([1.5]), T.tensor([complex(3.611, 2.92)])),
                     T.ldexp(T.tensor([complex(0.6, -0.65)]), T.tensor(0.1629638671875, dtype=T.float16))))
    check(lambda T: T.ldexp(T.tensor([complex(1, 1)]), T.tensor([0.5], dtype=T.float16)), raises=True)


def test_ldexp_bool_exponent_and_out_casting():
    check(lambda T: T.ldexp(T.tensor([1.0]), T.tensor([True])), raises=True)    # torch's kernel takes no bool
    check(lambda T: (T.ldexp(T.tensor([1, 0]), T.tensor([True, False])),
                     T.ldexp(T.tensor([1.0, 2]), T.tensor([1.0, 2], dtype=T.float64), out=T.zeros(2)),
                     T.ldexp(T.tensor([1, 2]), T.tensor([1, 2]), out=T.zeros(2, dtype=T.float16))))
    check(lambda T: T.ldexp(T.tensor([1.0, 2]), T.tensor([1, 2]), out=T.zeros(2, dtype=T.float64)), raises=True)


# --- special functions ----------------------------------------------------------------------------

@pytest.mark.parametrize("fn", ["i1", "i1e", "i0e"])
def test_bessel_i_grad_at_signed_zero(fn):
    def make(T):
        return [T.tensor([[2.1, 1.8, 2.4], [2.5, -0.6, -0.8], [-1.6, 0.0, -0.0]], requires_grad=True)]
    check(lambda T: _grads(T, make, lambda T, x: getattr(T.special, fn)(x)))


def test_inv_ex_singular_beside_huge():
    def f(T):
        a = T.tensor([[[BIG32, 1.0], [2.0, 3.0]], [[1.0, 2.0], [3.0, 4.0]]])
        r = T.linalg.inv_ex(a)
        return r.inverse, r.info
    check(f)


@pytest.mark.parametrize("fn", ["svdvals", "svd", "pinv"])
def test_svd_family_refuses_nan_with_grad(fn):
    def f(T):
        a = T.tensor([[[1.8, 1.4, 1e30], [0.2, nan, 0.9], [nan, 1.5, 1.7]]], requires_grad=True)
        r = getattr(T.linalg, fn)(a)
        return r[1] if fn == "svd" else r
    check(f, raises=True)


def test_matrix_norm_2_huge_entry():
    check(lambda T: [T.linalg.matrix_norm(T.tensor([[1e30, 2.0], [3.0, 4.0]]), o) for o in (2, -2)])
