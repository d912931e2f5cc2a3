"""Regression tests against torch for the differential fuzzer's silent classes (issue 18, seventh batch):
values, gradients, shapes and dtypes that differed without an error. Each case is the fuzzer's reproducer
(or a reduced one): a source run on both sides that leaves its result in ``out``."""
import math

import pytest

from harness import check
from test_fuzz_regressions6 import _same

nan, inf = math.nan, math.inf
F64 = {"rtol": 1e-12, "atol": 1e-14}     # float64 results where the bug was a float32 step


def _grad(setup, expr, leaves="x"):
    """``setup`` makes the ``leaves`` (requiring grad); ``expr`` of them is weighted, summed and
    differentiated (several leaves, unlike test_fuzz_regressions6's)."""
    return (f"{setup}; r = {expr}; (r * T.linspace(-1, 2, r.numel()).reshape(r.shape).to(r.dtype)).sum()"
            f".backward(); out = (r, {', '.join(l + '.grad' for l in leaves.split(','))})")


# --- cholesky_solve: LAPACK's potrs (two triangular solves), not a solve with L L^H ------------------

@pytest.mark.parametrize("src", [
    # ill-conditioned float32 factor: forming L L^H squared the condition number (3e-4 relative off)
    "out = T.tensor([[0.004, 1.328, -0.092, 0.748, 0.875], [1.279, 0.743, 0.732, 0.137, -0.364], "
    "[1.159, -0.007, 0.246, 0.349, 0.287], [-0.072, 0.217, 0.347, 1.65, -0.111], "
    "[0.905, 1.489, 1.84, 1.898, 0.641]]).cholesky_solve(T.tensor([[-0.575, 0.767, -0.021, -0.603, 1.76], "
    "[0.386, -1.022, -0.901, 0.416, 2.059], [-0.165, 2.549, 1.924, -0.238, 1.34], "
    "[2.079, 2.028, 1.67, -1.363, 2.46], [-0.821, 2.211, -0.185, 0.454, 0.096]]), True)",
    # an entry near the float limit: L L^H overflowed to inf - inf
    "out = T.cholesky_solve(T.tensor([[1.795, 1.811], [1.304, inf], [0.0, nan]]), "
    "T.tensor([[0.48, 3.4028235e+38, -0.62], [0.74, -1.42, 1.16], [0.92, -0.01, 3.4028235e+38]]))",
    # a 2-d right-hand side with a batched factor: the batch shape
    "L = T.tensor([[[2., 0], [1, 3]], [[1., 0], [1, 3]], [[2., 0], [1, 1]]]); "
    "out = T.cholesky_solve(T.tensor([[1., 3, 4], [2, 5, 6]]), L, upper=True)",
    "L = T.tensor([[[2., 0], [1, 3]]]).expand(2, 3, 2, 2); o = T.zeros(0); "
    "r = T.cholesky_solve(T.tensor([[1.], [2]]), L, out=o); out = (r, o)",
])
def test_cholesky_solve_potrs(src):
    _same(src, rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve_grads(upper):
    # the factor's gradient covers both triangles (torch: the factor is a full matrix in A = L L^H);
    # a 2-d b requiring grad alone with a batched factor sums its gradient over the batch
    _same(_grad("x0 = T.tensor([[[-0.369, -1.779], [1.154, -0.851], [-0.199, -0.784]], [[0.106, 0.495], "
                "[1.107, 0.745], [1.924, 0.403]]], requires_grad=True); x1 = T.tensor([[2.253, 2.283, 2.375], "
                "[0.556, 1.548, 1.266], [1.207, -0.176, 2.11]], requires_grad=True)",
                f"T.cholesky_solve(x0, x1, {upper})", "x0,x1"), rtol=1e-4, atol=1e-5)
    _same("L = T.tensor([[[2., 0], [1, 3]], [[1., 0], [1, 3]]], dtype=T.float64); "
          "b = T.tensor([[1.], [2]], dtype=T.float64, requires_grad=True); "
          f"r = T.cholesky_solve(b, L, {upper}); r.sum().backward(); r = T.cholesky_solve(b, L, {upper}); "
          "r.sum().backward(); out = (r, b.grad, r.grad_fn.name())", **F64)


# --- integer trace wraps around; 0-d host results keep their shape ---------------------------------

@pytest.mark.parametrize("src", [
    "out = T.tensor([[-9223372036854775808, 0], [0, -1]]).trace()",
    "out = T.trace(T.tensor([[9223372036854775807, 5, 0], [0, 1, 7]]))",
    "out = T.tensor([[9007199254740993, 0], [0, 2]]).trace()",     # beyond 2^53: no double on the way
    "out = T.tensor([[2147483647, 0], [0, 1]], dtype=T.int32).trace()",
    "out = T.zeros(0, 3, dtype=T.int64).trace()",
])
def test_integer_trace(src):
    _same(src)


@pytest.mark.parametrize("src", [
    "out = T.floor_divide(T.tensor(3., dtype=T.float16), 2)",
    "out = T.floor_divide(T.tensor(-3.5), T.tensor(2.))",
    "out = T.div(T.tensor(3., dtype=T.bfloat16), 2, rounding_mode='floor')",
    "out = T.remainder(T.tensor(3., dtype=T.float16), 2)",
    "out = T.fmod(T.tensor(-3.), T.tensor(2.))",
    # the host nodes' names survive backward (repr of the result raised)
    "x = T.tensor(3., requires_grad=True); r = T.remainder(x, 2); r.backward(); out = (r, x.grad, repr(r))",
    "x = T.tensor([3., -2.5], requires_grad=True); r = T.fmod(x, 2); r.sum().backward(); "
    "out = (r, x.grad, r.grad_fn.name())",
])
def test_zero_dim_host_results(src):
    _same(src)


# --- empty complex means are (nan, nan) ----------------------------------------------------------------

@pytest.mark.parametrize("expr", [
    "T.mean(T.zeros(0, dtype=T.complex64))",
    "T.std_mean(T.zeros(0, dtype=T.complex64))[1]",
    "T.var_mean(T.zeros(2, 0, dtype=T.complex64), 1, keepdim=True)[1]",
    "T.zeros(2, 0, dtype=T.complex128).mean(1)",
])
def test_empty_complex_mean(expr):
    # parts apart: a complex NaN compares equal to any other whatever its parts
    _same(f"m = {expr}; out = (m.real, m.imag)")


# --- float64 kept in float64 ---------------------------------------------------------------------------

def test_local_response_norm_float64():
    # MindSpore rounds a Python float operand of a float64 tensor to float32 (alpha = 0.1)
    _same(_grad("x = T.tensor([[[0.3, -1.6, 0.7, -0.3], [0.1, 0.5, 1.0, 0.9], [1.3, 0.4, 1.1, -0.6]], "
                "[[1.5, -1.9, -0.3, 0.9], [1.6, -1.3, 1.0, -1.5], [-0.9, 0.1, 1.0, 1.7]]], dtype=T.float64, "
                "requires_grad=True)", "F.local_response_norm(x, 5, 0.1)"), **F64)
    _same(_grad("x = T.tensor([[[[1.5, -0.5], [1.0, 1.1]], [[-1.1, 0.4], [0.5, -0.6]], [[0.2, 3], [1, 2]]]], "
                "dtype=T.float64, requires_grad=True)", "F.local_response_norm(x, 2, 0.3, 0.6, 1.7)"), **F64)


@pytest.mark.parametrize("src", [
    # torch casts the gradient to the input's dtype before the reverse scan
    "x = T.tensor([0.1, 0.2, 0.3], dtype=T.float64, requires_grad=True); r = T.cumsum(x, 0, dtype=T.float32); "
    "(r * T.tensor([0.1, 0.7, 1.3])).sum().backward(); out = (r, x.grad, r.grad_fn.name())",
    "x = T.tensor([[0.1, 0.2], [0.3, 0.4]], dtype=T.float64, requires_grad=True); "
    "r = x.cumsum(1, dtype=T.bfloat16); (r * T.tensor([[0.1, 0.7], [1.3, 3.3]], dtype=T.bfloat16)).sum()"
    ".backward(); out = (r, x.grad)",
    "x = T.tensor(0.1, dtype=T.float64, requires_grad=True); r = T.cumsum(x, 0, dtype=T.float32); "
    "(r * 0.3).backward(); out = (r, x.grad)",
])
def test_cumsum_dtype_grad(src):
    _same(src, **F64)


def test_cumsum_dtype_double_backward():
    _same("x = T.tensor([[0.1, 0.2, 0.3]], requires_grad=True); w = T.tensor([0.1, 0.7, 1.3], dtype=T.float16, "
          "requires_grad=True); r = T.cumsum(x, 1, dtype=T.float16); "
          "g = T.autograd.grad((r * w).sum(), x, create_graph=True)[0]; "
          "out = (r, g, T.autograd.grad((g * T.tensor([1., 2, 3])).sum(), w)[0])", rtol=1e-3, atol=1e-3)


# --- losses --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_soft_margin_loss_formula(dtype):
    # torch's log1p(exp(-y x)) as written: inf where it overflows; half types rounded per step
    tol = {"float32": {"rtol": 1e-6, "atol": 1e-7}, "float64": {"rtol": 1e-6, "atol": 1e-7},
           "float16": {"rtol": 1e-2, "atol": 1e-3}, "bfloat16": {"rtol": 2e-2, "atol": 1e-2}}[dtype]
    _same(f"out = F.soft_margin_loss(T.tensor([[-3.4e+38, 3.4e+38], [-1.717, 0.255], [100, -100]], "
          f"dtype=T.{dtype}), T.tensor([[-inf, -0.22], [-0.31, -0.13], [-1, -1]], dtype=T.{dtype}), "
          "reduction='none')", **tol)
    _same(_grad(f"x = T.tensor([[1.3, -0.7, 1e-3, 9.], [nan, 2, -3, 0]], dtype=T.{dtype}, requires_grad=True)",
                f"F.soft_margin_loss(x, T.tensor([[1., -1, 1, -1], [1, 1, -1, -1]], dtype=T.{dtype}), "
                "reduction='sum')"), **tol)


def test_multilabel_margin_loss_ignores_uncounted_infinities():
    _same("out = F.multilabel_margin_loss(T.tensor([[1.1, 1.3, -3.5, -1.9, -0.8], [0.2, -1.3, 3.3, inf, -3.0]]), "
          "T.tensor([[-1, -1, -1, -1, -1], [1, 0, -1, 3, 3]]), reduction='none')")
    _same(_grad("x = T.tensor([[0.2, -1.3, 3.3, inf, -3.0], [1., nan, 2, -inf, 3]], requires_grad=True)",
                "F.multilabel_margin_loss(x, T.tensor([[3, 1, -1, 0, 0], [1, 0, -1, 2, 2]]), reduction='none')"))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_multilabel_margin_loss_half_refused(dtype):
    # torch's CPU kernel has no half types (ours computed a value)
    check(lambda T: T.nn.functional.multilabel_margin_loss(T.tensor([[0.2, -1.3, 3.3]], dtype=getattr(T, dtype)),
                                                           T.tensor([[1, 0, -1]])), raises=True)


# --- xlogy / xlog1py / kl_div: torch's gradients at a == 0 ---------------------------------------------

_A = "[0., 0, 0, 0, 0, 1, 1, 2, 2, 0, -0.0, 3]"
_B = "[0., -1, inf, nan, 2, 0, -1, inf, 3, -inf, 0.5, -0.0]"


@pytest.mark.parametrize("fn,shift", [("T.xlogy", ""), ("T.special.xlogy", ""), ("T.special.xlog1py", " - 1")])
def test_xlogy_grads(fn, shift):
    # b's gradient is a / b (NaN at 0 / 0), a's is log(b) (inf at a == 0, b == inf)
    _same(f"a = T.tensor({_A}, requires_grad=True); b = T.tensor({_B}, requires_grad=True); "
          f"r = {fn}(a, b{shift}); r.sum().backward(); out = (r, a.grad, b.grad, r.grad_fn.name())")


def test_xlogy_broadcast_double_backward():
    _same("a = T.tensor([[0.], [2]], dtype=T.float64, requires_grad=True); "
          "b = T.tensor([0.7, 3, 0.5], dtype=T.float64, requires_grad=True); r = T.xlogy(a, b); "
          "g = T.autograd.grad((r * T.tensor([[1., 2, 3], [4, 5, 6]], dtype=T.float64)).sum(), (a, b), "
          "create_graph=True); out = (r, g, T.autograd.grad(g[0].sum() + (g[1] * 3).sum(), (a, b)))", **F64)


def test_kl_div_target_grad_at_zero():
    _same(_grad("x = T.tensor([[0.5, -0.3, 1.2], [1.64, 0.43, -inf]], requires_grad=True); "
                "t = T.tensor([[0.0, 0.4, 0.6], [0.5, 0.9, 0.0]], requires_grad=True)",
                "F.kl_div(x, t, reduction='none')", "x,t"))


# --- grid_sample: the grid's gradient is 0 on a clipped border; NaN clips to 0 -------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mode", ["'bilinear', 'border', True", "'bilinear', 'reflection', True",
                                  "'bilinear', 'reflection', False", "'bicubic', 'border', True",
                                  "'nearest', 'border', False"])
def test_grid_sample_border_grad(dtype, mode):
    _same(f"x = T.arange(12.).reshape(1, 1, 3, 4).to(T.{dtype}).requires_grad_(); "
          "g = T.tensor([[[[1.0, -1.0], [0.3, 1.0], [-1.0, 0.5], [1.2, -1.3], [0.25, 0.3333333]]]], "
          f"dtype=T.{dtype}, requires_grad=True); r = F.grid_sample(x, g, {mode}); "
          f"(r * T.tensor([1., 2, 3, 4, 5], dtype=T.{dtype}).reshape(r.shape)).sum().backward(); "
          "out = (r, x.grad, g.grad)", rtol=1e-4 if dtype == "float32" else 1e-9, atol=1e-5)


@pytest.mark.parametrize("padding", ["border", "reflection"])
def test_grid_sample_nan_coordinate_clips_to_zero(padding):
    _same(f"out = F.grid_sample(T.arange(12.).reshape(1, 1, 3, 4), T.tensor([[[[nan, 0.2], [0.5, nan]]]]), "
          f"'bilinear', '{padding}', False)")


# --- logcumsumexp accumulates pairwise (no shift by the whole dim's maximum) ---------------------------

@pytest.mark.parametrize("src", [
    "out = T.logcumsumexp(T.tensor([-100., 100., 3.]), 0)",
    "out = T.logcumsumexp(T.tensor([[[[0.8, 1.6, -1.7, nan], [-0.7, 1.0, 1e+30, -0.0]], "
    "[[1e+30, -0.1, 0.2, -0.8], [1.6, -0.3, 1.5, nan]]]]), -1)",
    "out = T.logcumsumexp(T.tensor([[0.3, -inf, 2, inf, 1, -inf], [-inf, -inf, 1, 2, 3, 4]]), 1)",
    "x = T.linspace(-3, 3, 105, dtype=T.float64).reshape(3, 7, 5).sin().mul(50).requires_grad_(); "
    "r = T.logcumsumexp(x, 1); (r * T.linspace(0, 1, 105, dtype=T.float64).reshape(3, 7, 5)).sum().backward(); "
    "out = (r, x.grad)",
    "out = T.logcumsumexp(T.tensor([1.5, -2, 60000], dtype=T.float16), 0)",
    "out = T.logcumsumexp(T.tensor(1.5), 0)",
])
def test_logcumsumexp_wide_range(src):
    _same(src)


# --- block_diag: torch's result_type (0-d blocks promote only across categories) ------------------------

@pytest.mark.parametrize("src", [
    "out = T.block_diag(T.tensor([[0.51171875, 1.3203125]], dtype=T.bfloat16), T.tensor(3.0))",
    "out = T.block_diag(T.ones(2, dtype=T.bool), T.tensor(3, dtype=T.int8), T.tensor([[1, 2]], dtype=T.uint8))",
    "out = T.block_diag(T.tensor(1, dtype=T.int8), T.tensor(2., dtype=T.float16))",
    "out = T.block_diag(T.ones(1, 2, dtype=T.int64), T.tensor(3., dtype=T.float64))",
    "x = T.tensor([[1., 2]], dtype=T.float16, requires_grad=True); r = T.block_diag(x, T.tensor(3.)); "
    "r.sum().backward(); out = (r, x.grad)",
])
def test_block_diag_dtype(src):
    _same(src)


# --- an empty integer sum is int64, as a non-empty one ---------------------------------------------------

@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32"])
def test_empty_integer_sum_dtype(dtype):
    _same(f"out = F.hinge_embedding_loss(T.zeros((0, 0), dtype=T.{dtype}).t(), T.zeros((0, 0), dtype=T.{dtype}), "
          "reduction='sum')")
    _same(f"out = (T.zeros(0, 2, dtype=T.{dtype}).sum(), T.zeros(0, 2, dtype=T.{dtype}).sum(0), "
          f"F.l1_loss(T.zeros(0, dtype=T.{dtype}), T.zeros(0, dtype=T.{dtype}), reduction='sum'))")
