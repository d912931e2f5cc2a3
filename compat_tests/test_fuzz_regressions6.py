"""Regression tests against torch for the differential fuzzer's silent classes (issue 18, sixth batch):
values, gradients and dtypes that differed without an error. Each case is the fuzzer's reproducer (or a
reduced one): a source run on both sides that leaves its result in ``out``."""
import math

import pytest

from harness import check

nan, inf = math.nan, math.inf


def _same(src, **kw):
    def fn(T):
        env = {"T": T, "F": T.nn.functional, "nan": nan, "inf": inf}
        exec(src, env)  # noqa: S102
        return env["out"]
    check(fn, **kw)


def _grad(setup, expr):
    """``setup`` makes ``x`` (requiring grad); ``expr`` of ``x`` is weighted, summed and differentiated."""
    return (f"{setup}; r = {expr}; (r * T.linspace(-1, 2, r.numel()).reshape(r.shape).to(r.dtype)).sum()"
            ".backward(); out = (r, x.grad)")


# --- regularized incomplete gamma at its boundaries ---------------------------------------------------

_A = "[0., 0, 0, 0, nan, nan, inf, inf, inf, 1, 1, 1, 2, -1, 0, 2.5, -0.0]"
_X = "[0., 1, inf, nan, 0, 1, 0, 1, inf, 0, inf, nan, -1, 1, -0.0, 1.5, 2]"


@pytest.mark.parametrize("fn", ["T.special.gammainc", "T.special.gammaincc", "T.igamma", "T.igammac"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
def test_igamma_boundaries(fn, dtype):
    _same(f"out = {fn}(T.tensor({_A}, dtype=T.{dtype}), T.tensor({_X}, dtype=T.{dtype}))")


def test_igamma_inf_expanded():
    _same("out = T.igamma(T.tensor([inf]).expand(3), T.tensor([-3.4028235e+38, 1.2, 1.1]))")
    _same("out = T.igammac(T.tensor([-3.3895313892515355e+38, 1.6015625, 1.703125], dtype=T.bfloat16), "
          "T.tensor([inf], dtype=T.bfloat16).expand(3))")


@pytest.mark.parametrize("fn", ["T.special.gammainc", "T.special.gammaincc"])
def test_igamma_grad_at_boundaries(fn):
    # torch's x-gradient formula everywhere: 0 at a = 0, nan at a = inf, nan at x = 0 for a < 1
    _same(_grad("a = T.tensor([0., 1, 2, inf, 0.5]); x = T.tensor([[1.], [0.5], [0.]], requires_grad=True)",
                f"{fn}(a, x)"))
    _same(_grad("a = T.tensor([0., 1, 2.5, 3], dtype=T.float64); "
                "x = T.tensor([[1., 0, 2, inf], [0.5, 3, 4, 1]], dtype=T.float64, requires_grad=True)",
                f"{fn}(a, x)"), rtol=1e-6)


# --- Cholesky reads one triangle ---------------------------------------------------------------------

_NONSYM = "[[4., 1, 0], [-7, 3, 0.5], [20, 0.1, 2]]"


@pytest.mark.parametrize("src", [
    f"out = T.linalg.cholesky(T.tensor({_NONSYM}).t())",                     # lower triangle only
    f"out = T.linalg.cholesky(T.tensor({_NONSYM}), upper=True)",            # upper triangle only
    f"out = T.cholesky(T.tensor([{_NONSYM}, {_NONSYM}]), upper=True)",
    "out = T.linalg.cholesky_ex(T.tensor([[4.78, 2.29, 5.96], [6.88, 3.09, 5.64], [-1.31, 9.25, 9.89]]), "
    "upper=True)",                                                          # failed: partial upper factor
    f"out = T.linalg.cholesky_ex(T.tensor({_NONSYM}), upper=True)",
])
def test_cholesky_triangle(src):
    _same(src)


def test_cholesky_upper_grad():
    _same(_grad(f"x = T.tensor({_NONSYM}).requires_grad_()", "T.linalg.cholesky(x, upper=True)"),
          rtol=1e-4, atol=1e-5)
    _same(_grad(f"x = T.tensor({_NONSYM}).t().contiguous().requires_grad_()", "T.linalg.cholesky_ex(x)[0]"),
          rtol=1e-4, atol=1e-5)


# --- matrix_power(A, 0), cumulative sums, integer powers ----------------------------------------------

def test_matrix_power_zero_of_non_finite():
    _same("out = T.matrix_power(T.tensor([[-0.93, -0.42, nan], [-0.6, 1.39, 1.18], [0.53, inf, -0.83]], "
          "dtype=T.float16), 0)")
    _same(_grad("x = T.tensor([[[1., nan], [2, 3]]] * 2, requires_grad=True)", "T.linalg.matrix_power(x, 0)"))


@pytest.mark.parametrize("src", [
    "out = T.tensor([1e8, 1., -1e8]).cumsum(0)",                     # float32 accumulates in double
    "out = T.tensor([6e4, 1e4, -1e4], dtype=T.float16).cumsum(0)",  # float16 in float32
    "out = T.tensor([1e8, 1., -1e8], dtype=T.bfloat16).cumsum(0)",  # bfloat16 in float32, not double
    "out = T.tensor([[2147483647, -2147483648, 0, 4], [4, -2, -2147483648, 2147483647]], dtype=T.int32)"
    ".cumsum(1, dtype=T.float32)",
    "x = T.tensor([1e8, 1., -1e8]); out = (x.cumsum_(0), x)",
    "out = T.tensor([1e20, 3., 1e-20, 7.]).cumprod(0)",
])
def test_cumsum_accumulates_wider(src):
    _same(src)


@pytest.mark.parametrize("src", [
    "out = T.tensor([[0, 3, 255], [2, 6, 5]], dtype=T.uint8).pow(T.tensor(255, dtype=T.uint8))",
    "out = T.tensor([3, 5, -7]).pow(41)",
    "out = T.tensor([3, 5, -7], dtype=T.int32).pow(T.tensor([21, 30, 33], dtype=T.int32))",
    "out = T.pow(3, T.tensor([50, 41]))",
    "out = T.tensor([2, 3]) ** 63",
    "out = T.tensor([[2], [3]]) ** T.tensor([-1, 0, 2, 9223372036854775807])",
    "out = T.tensor([[-1], [1], [5]]) ** T.tensor([-1, -2, 0, 2])",
    "x = T.tensor([[0, 3, 255], [2, 6, 5]], dtype=T.uint8); out = (x.pow_(T.tensor(255, dtype=T.uint8)), x)",
    "out = T.tensor([-3, 5], dtype=T.int16) ** T.tensor([-3, 5], dtype=T.int16)",
])
def test_integer_pow_wraps(src):
    _same(src)


# --- NaN/inf in losses, zeta, norms, SVD -------------------------------------------------------------

@pytest.mark.parametrize("fn", ["F.huber_loss(x, t, reduction='none', delta=0.3)",
                                "F.smooth_l1_loss(x, t, reduction='none', beta=0.3)"])
def test_huber_grad_at_infinite_difference(fn):
    _same(f"x = T.tensor([0.3, nan, inf, -inf, 1, -0.3, 0.1, 0.879], requires_grad=True); "
          f"t = T.tensor([0., 1, 1, 1, inf, 0, nan, -inf], requires_grad=True); r = {fn}; "
          "(r * T.arange(8.)).sum().backward(); out = (r, x.grad, t.grad)")


def test_zeta_at_infinity():
    _same("out = T.special.zeta(T.tensor([inf, inf, inf, inf, inf, inf, 2, 2, 2, -inf, nan, 1, 0.5, 3, inf]), "
          "T.tensor([2., 1, 0.5, 0, -1, inf, inf, -inf, -1.5, 2, 2, 2, 2, -2, 1.0001]))")
    _same("out = T.special.zeta(T.tensor([3.75, inf, 2.84], dtype=T.float64), 2.0)")


@pytest.mark.parametrize("expr", ["T.norm(x, -inf, 0)", "T.linalg.vector_norm(x, inf, 1, keepdim=True)",
                                  "T.linalg.vector_norm(x, inf)", "T.linalg.vector_norm(x, -inf, 0)"])
def test_inf_norm_grad_with_nan(expr):
    _same(_grad("x = T.tensor([[1.046, 0.0, nan, -0.223], [-1.686, -0.386, -0.038, -0.0], "
                "[0.924, -1.443, -inf, 0.946]], requires_grad=True)", expr))
    _same(_grad("x = T.tensor([[1., -1, 0.5], [2, -2, 0]], dtype=T.float64, requires_grad=True)", expr))


def test_nuclear_norm_grad_of_infinite_matrix():
    _same(_grad("x = T.tensor([[[0.3, -1.2, 0.6, -0.3], [0.5, -0.5, 0.3, -inf], [-0.0, -0.6, 0.3, 0.4]]], "
                "requires_grad=True)", "T.linalg.matrix_norm(x, 'nuc', keepdim=True)"))
    _same(_grad("x = T.tensor([[0.3, -1.2], [0.5, inf]], requires_grad=True)", "T.linalg.matrix_norm(x, 2)"))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_bce_at_zero_and_one_with_target_grad(dtype):
    # the target's gradient is infinite at x = 0 or 1 (torch's); the loss itself stays finite
    _same(f"x = T.tensor([[0.9, 0.5, 0.0], [0.7, 1.0, 0.5]], dtype=T.{dtype}, requires_grad=True); "
          f"t = T.tensor([[0.75, 0.3, 0.36], [0.258, 0.804, 0.5]], dtype=T.{dtype}, requires_grad=True); "
          "r = F.binary_cross_entropy(x, t, reduction='sum'); r.backward(); out = (r, x.grad, t.grad)",
          rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("fn", ["dropout", "alpha_dropout", "feature_alpha_dropout", "dropout2d"])
def test_dropout_complex_refused_before_drawing(fn):
    check(lambda T: getattr(T.nn.functional, fn)(T.tensor([[[complex(1, 2), 3]]]), 0.5, True), raises=True)
    # the generator did not move
    _same(f"T.manual_seed(0)\ntry:\n    F.{fn}(T.tensor([[[complex(1, 2), 3]]]), 0.5, True)\n"
          "except NotImplementedError:\n    pass\nout = T.rand(3)")


@pytest.mark.parametrize("fn", ["log10", "log2"])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_log_base_at_infinity(fn, dtype):
    _same(f"out = T.{fn}(T.tensor([complex(-inf, 2.19), complex(inf, 1), complex(-3.4e38, 2.71), complex(1, inf), "
          f"complex(nan, 1), complex(0, 0), complex(0.5, -0.5)], dtype=T.{dtype}))")
    _same(f"x = T.tensor([complex(1, 2.19), complex(0.5, -0.5)], requires_grad=True); y = x.{fn}(); "
          "y.abs().sum().backward(); out = (y, x.grad)")


@pytest.mark.parametrize("src", [
    "out = T.tensor([[complex(2.8, -2.11), complex(0.0, 0.36)], [complex(-0.9, 0.4), complex(1.1, -1.47)]]).t().all()",
    "out = T.tensor([[complex(0.0, 0.36), 0], [0, 0]]).any(1)",
    "out = T.tensor([[complex(0.0, 0.36), 0], [0, 0]], dtype=T.complex128).all(0)",
    "out = T.tensor([complex(0.0, 0.36), 0]).bool()",
    "out = T.tensor([complex(0.0, -0.0), complex(nan, 0)]).to(T.bool)",
    "out = T.where(T.tensor([complex(0.0, 0.36), 0]).bool(), 1, 2)",
])
def test_complex_truth_reads_both_parts(src):
    _same(src)


def test_small_dtype_results():
    _same("out = T.special.i1(T.tensor(0.101, dtype=T.float16))")   # 0-d float16 stays float16
    _same("out = T.cumulative_trapezoid(T.tensor([[10, 5, 0, 7, 6], [7, 4, 2, 5, 7]], dtype=T.uint8), "
          "T.tensor([[3, 8, 6, 0, 8], [7, 5, 5, 8, 6]], dtype=T.uint8))")   # the uint8 product wraps first


def test_zeta_where_its_series_underflows():
    _same("out = T.special.zeta(T.tensor([100., 200, 1e4, 60, 90, 1e30, inf, 1e30, 1e30, 1e14, 1e13]), "
          "T.tensor([2., 2, 2, 3, 3, 1, 1, 0.5, 1.0001, 2, 2]))")
    _same("out = T.special.zeta(T.tensor([100., 200, 1e4, 600, 900, 1e30, inf, 1e30, 3e13, 2e13], dtype=T.float64), "
          "T.tensor([2., 2, 2, 3, 3, 1, 1, 0.5, 2, 2], dtype=T.float64))")


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_inverse_grad_uses_the_whole_input(upper):
    # torch's backward multiplies by the input itself, the triangle it did not read included
    _same(_grad("x = T.tensor([[[0.64, -0.81, -0.49], [2.0, 2.54, -0.57], [2.0, -0.5, -1.15]]], requires_grad=True)",
                f"T.cholesky_inverse(x, {upper})"), rtol=1e-4, atol=1e-4)
    _same(f"x = T.tensor([[2., 0.5], [1, 3]], dtype=T.float64, requires_grad=True); r = T.cholesky_inverse(x, {upper}); "
          "g, = T.autograd.grad((r * r).sum(), x, create_graph=True); g.sum().backward(); out = (r, g, x.grad)")


@pytest.mark.parametrize("src", [
    "out = T.le(T.tensor([0.10009765625, 0.5], dtype=T.bfloat16), 0.1)",   # 0.1 rounds to 0.10009765625
    "out = T.le(T.tensor([0.10009765625], dtype=T.bfloat16), 0.1, out=T.zeros(0, dtype=T.bfloat16))",
    "out = T.tensor([0.10009765625, 1], dtype=T.bfloat16) != 0.1",
    "x = T.tensor([0.10009765625, 1], dtype=T.bfloat16); out = (x.gt_(0.1), x)",
    "out = T.tensor([0.10009765625, 1], dtype=T.bfloat16) < T.tensor([0.1, 2], dtype=T.float16)",
])
def test_bfloat16_compares_with_the_rounded_scalar(src):
    _same(src)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve_grad_uses_the_whole_factor(upper):
    _same("b = T.tensor([[[1., 2], [3, 4]], [[0.5, 1], [2, -1]]], requires_grad=True); "
          "f = T.tensor([[2., 0.3], [0.5, 1.5]], requires_grad=True); "
          f"r = T.cholesky_solve(b, f, upper={upper}); (r * T.arange(8.).reshape(2, 2, 2)).sum().backward(); "
          "out = (r, b.grad, f.grad)", rtol=1e-4, atol=1e-5)
    _same(_grad("x = T.tensor([[-0.9, -0.4, 0.9, 0.5], [-0.6, 2.1, 1.3, 2.0], [0.1, 0.2, -1.0, 1.1], "
                "[1.1, 1.4, -0.2, 0.2]], dtype=T.float64, requires_grad=True)",
                f"T.cholesky_solve(T.tensor([[-0.155, -0.218], [-0.435, 1.295], [1.405, 1.835], [-0.033, -0.413]], "
                f"dtype=T.float64), x, upper={upper})"))
