"""Regression tests against torch for linear-algebra classes the differential fuzzer found (issue 18, tenth
batch, third part): inf/NaN through LU (complex pivots, lu_solve's row order, inverse as a solve), gradients
at inf/NaN (vander, matrix_exp, norms, eigvalsh, lu of wide matrices, logdet of negative 1x1 determinants),
empty batches, bool and integer products torch answers without its kernel, and out= dtype checks of norms."""
import math

import pytest

from harness import check

inf, nan = math.inf, math.nan


def ev(src):
    return lambda T: eval(src, {"T": T, "inf": inf, "nan": nan, "complex": complex})


def run(src):
    """A fuzzer case of several statements: the value of ``out`` (or of the last expression)."""
    def fn(T):
        lines = [s.strip() for s in src.split(";")]
        if not lines[-1].startswith("out ="):
            lines[-1] = "out = " + lines[-1]
        env = {"T": T, "inf": inf, "nan": nan, "complex": complex}
        exec("\n".join(lines), env)
        return env["out"]
    return fn


def grad_case(setup, call):
    """The fuzzer's gradient form: ``call`` of x0 (set up by ``setup``), backward of a fixed weighting."""
    return (f"{setup}; r = {call}; g = r if isinstance(r, T.Tensor) else r[0]; "
            "(g * T.linspace(-1, 2, g.numel()).reshape(g.shape).to(g.dtype)).sum().backward(); out = (r, x0.grad,)")


_M = "T.tensor([[6.149556, -0.16557251, -3.5487685], [-0.16557251, 4.4358797, 2.1911454], [-3.5487685, 2.1911454, 9.928294]])"


# --- values ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("src", [
    # lu_solve permutes B's rows (getrs' swaps): a product with the permutation matrix made 0 * inf = NaN
    f"T.lu_solve(T.tensor([[-inf, 0.685, nan], [-0.338, 0.717, inf]]).t(), T.linalg.lu_factor({_M})[0], "
    f"T.linalg.lu_factor({_M})[1])",
    f"T.linalg.lu_solve(T.linalg.lu_factor({_M})[0], T.linalg.lu_factor({_M})[1], "
    "T.tensor([[1.0, 0.5], [-0.338, 0.717], [2.0, inf]]), adjoint=True)",
    # a complex pivot with an infinite part: MKL's scaled division gives NaN multipliers (NumPy's Smith
    # quotient gave 0), and inverse is torch's solve with the identity
    "T.inverse(T.tensor([[complex(inf, 2.19), complex(-1.544, 1.24), complex(2.659, 1.19)], [complex(-0.219, 2.22), "
    "complex(-0.435, 2.72), complex(2.404, -1.73)], [complex(1.178, -1.91), complex(-3.4028234663852886e+38, -1.2), "
    "complex(-2.549, -0.38)]]))",
    "T.linalg.lu_factor_ex(T.tensor([[complex(inf, 2.19), 1 + 1j], [complex(-0.219, 2.22), 2 + 0j]]))",
    "T.linalg.lu_factor_ex(T.tensor([[complex(inf, 2.19), 1 + 1j, 3], [complex(-0.219, 2.22), 2 + 0j, 3], [1, 2, 4]]))",
])
def test_values(src):
    check(ev(src), rtol=1e-4, atol=1e-5)


def test_inverse_out_complex_nan():
    src = ("T.inverse(T.tensor([[[complex(1.181, 0.94), complex(2.913, -0.96), complex(0.394, 1.96)], [complex(nan, 0.64), "
           "complex(2.226, -1.44), complex(0.983, 0.39)], [complex(1.032, 0.59), complex(1.491, -1.76), complex(-0.0, -2.91)]], "
           "[[complex(inf, 2.19), complex(-1.544, 1.24), complex(2.659, 1.19)], [complex(-0.219, 2.22), complex(-0.435, 2.72), "
           "complex(2.404, -1.73)], [complex(1.178, -1.91), complex(-3.4028234663852886e+38, -1.2), complex(-2.549, -0.38)]]]), "
           "out=T.zeros(0, dtype=T.complex64))")
    check(ev(src))


# --- gradients -------------------------------------------------------------------------------------

@pytest.mark.parametrize("setup, call", [
    # vander's cumprod with torch's formula: NaN at an infinite x (reversed sum of g * out over x)
    ("x0 = T.tensor([inf, 0.165, -inf], requires_grad=True)", "T.linalg.vander(x0)"),
    ("x0 = T.tensor([0.0, 0.5, -2.0], requires_grad=True)", "T.linalg.vander(x0, N=4)"),
    # the SVD of a matrix with entries past sqrt(max) on the host (LAPACK's scaling)
    ("x0 = T.tensor([[-1.6, 0.5], [1e+30, -0.2], [1.0, -0.5], [-0.0, -0.5], [-0.3, -1.3]], requires_grad=True)",
     "T.nuclear_norm(x0, True)"),
    # a NaN row sum: torch's amax backward sends NaN to the whole slice, and |x|'s gradient at 0 is
    # sgn(0) * NaN
    ("x0 = T.tensor([[-1.2], [0.0], [-1.56], [-1.0], [nan], [0.02]], requires_grad=True)", "T.linalg.norm(x0[1:], inf)"),
    ("x0 = T.tensor([[0.0, 1.0], [-1.56, 2.0], [nan, 0.5]], requires_grad=True)", "T.linalg.matrix_norm(x0, 1)"),
    # matrix_exp of a matrix with an infinite entry: NaN gradient (torch's block-matrix backward)
    ("x0 = T.tensor([[-inf]], requires_grad=True)", "T.linalg.matrix_exp(x0)"),
    ("x0 = T.tensor([[-0.64, -1.71, -0.11], [0.53, 1.16, -1.74], [-1.74, -inf, 0.0]], requires_grad=True)",
     "T.matrix_exp(x0)"),
    # logdet of negative 1x1 determinants: a NaN constant, gradient -0.0
    ("x0 = T.tensor([[[-0.07]], [[2.586]], [[8.32]], [[1.302]], [[-0.92]], [[0.4]], [[5.33]], [[-2.901]]], "
     "requires_grad=True)", "T.logdet(x0[::2])"),
    ("x0 = T.tensor([[[0.0]], [[-2.0]]], requires_grad=True)", "T.logdet(x0)"),
    # eigenvalues only: torch skips the eigenvector term (NaN gaps of NaN eigenvalues)
    ("x0 = T.tensor([[-0.56, 1.05, 1.04], [0.32, -0.0, 0.95], [0.0, -0.19, inf]], requires_grad=True)",
     "T.linalg.eigvalsh(x0, UPLO='U')"),
    # wide LU: gU1 added after the solve with U1^H, as torch orders it (no overflow of gU1 U1^H)
    ("x0 = T.tensor([[[0.55, 1e+30]], [[-0.92, 0.23]], [[-3.4028235e+38, 0.04]]], requires_grad=True)",
     "T.lu(x0, get_infos=True)"),
    ("x0 = T.tensor([[1.0, 2.0, -1.0, 0.5], [0.3, -2.0, 1.5, 2.0]], requires_grad=True)", "T.linalg.lu_factor(x0)"),
    # the 1-norm of a 0-d tensor with dim=-1
    ("x0 = T.tensor(-0.5, requires_grad=True)", "T.linalg.vector_norm(x0, 2, -1, True)"),
    ("x0 = T.tensor([[0.0, 1.0], [2.0, nan]], requires_grad=True)", "T.linalg.vector_norm(x0, 1, 1)"),
])
def test_grads(setup, call):
    check(run(grad_case(setup, call)), rtol=1e-4, atol=1e-5)


# --- calls torch answers ------------------------------------------------------------------------------

@pytest.mark.parametrize("src", [
    "T.linalg.inv(T.zeros((0, 1, 1)))",
    "T.inverse(T.zeros((0, 3, 3), dtype=T.float64))",
    "T.matrix_power(T.zeros((0, 1, 1)), -2)",
    "T.tensor([[[1.2]]])[1:].matrix_power(-2)",
    "T.linalg.lu_factor_ex(T.zeros((0, 4, 5), dtype=T.bool))",
    "T.linalg.lu_factor(T.zeros((3, 2, 0), dtype=T.uint8).permute(2, 1, 0))",
    # bool tensordot / inner: a one-element result of a non-contiguous operand is summed without a kernel
    "T.inner(T.tensor([False, True, False, False, False, False])[::2], T.tensor([False, True, False]))",
    "T.tensor([False, True, False, False, True, False])[1:].inner(T.tensor([False]).expand(5))",
    "T.inner(T.tensor([[True, False, True]])[:, ::2], T.tensor([True, True]))",
    "T.tensordot(T.tensor([True, False, True])[::2], T.tensor([True, False, True])[::2], 1)",
    "T.inner(T.zeros(2, 0, dtype=T.bool), T.zeros(3, 0, dtype=T.bool))",
    # bool products torch answers without its kernel (an empty result or inner dimension)
    "T.zeros((0,), dtype=T.bool).baddbmm(T.zeros((1, 0, 1), dtype=T.bool).permute(2, 1, 0), "
    "T.zeros((1, 1, 0), dtype=T.bool)[:, :, ::2], alpha=0.5)",
    "T.addmm(T.zeros((2, 2), dtype=T.bool), T.ones((2, 0), dtype=T.bool), T.ones((0, 2), dtype=T.bool), beta=True)",
    "T.addmm(T.zeros((2, 2), dtype=T.bool), T.ones((2, 0), dtype=T.bool), T.ones((0, 2), dtype=T.bool), beta=0)",
    "T.addmm(T.zeros((2, 2), dtype=T.uint8), T.ones((2, 0), dtype=T.uint8), T.ones((0, 2), dtype=T.uint8), beta=0.0)",
    # a subnormal (not zero) diagonal entry of a Cholesky factor: LAPACK inverts it
    "T.cholesky_inverse(T.tensor([[0.61, 0.84, -0.45], [inf, -1e-45, 1.39], [-inf, 2.42, 1.06]]), True)",
    "T.tensor([[0.89, 0.29, 0.68, -1e-45]]).expand(4, 4).cholesky_inverse()",
])
def test_returns(src):
    check(ev(src), rtol=1e-4, atol=1e-5)


def test_inverse_empty_batch_backward():
    check(run(grad_case("x0 = T.zeros((0, 1, 1), requires_grad=True)", "T.inverse(x0)")))


# --- errors ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("src", [
    "T.linalg.tensorinv(T.tensor(10.71), ind=1)",
    "T.inner(T.tensor([False, True, True]), T.tensor([False, True, True]))",
    "T.inner(T.tensor([[True, False], [True, True]])[:, ::2], T.tensor([[True, False], [True, True]])[:, ::2])",
    # empty inner dimension: torch scales the input in place by beta (result type checks)
    "T.addmm(T.tensor([[0]], dtype=T.uint8).t(), T.zeros((1, 0), dtype=T.uint8), T.zeros((0, 1), dtype=T.uint8), "
    "beta=0.5, alpha=2.0)",
    "T.addmm(T.zeros((2, 2), dtype=T.bool), T.ones((2, 0), dtype=T.bool), T.ones((0, 2), dtype=T.bool))",
    "T.addmm(T.zeros((2, 2)), T.ones((2, 0)), T.ones((0, 2)), beta=2j)",
    "T.baddbmm(T.zeros((1, 2, 2), dtype=T.uint8), T.ones((1, 2, 0), dtype=T.uint8), T.ones((1, 0, 2), dtype=T.uint8), "
    "beta=0.5)",
    "T.addbmm(T.zeros((2, 2), dtype=T.bool), T.ones((1, 2, 0), dtype=T.bool), T.ones((1, 0, 2), dtype=T.bool))",
    "T.baddbmm(T.zeros((1, 1, 1), dtype=T.bool).expand(5, 3, 3), T.zeros((5, 3, 0), dtype=T.bool), "
    "T.zeros((5, 0, 3), dtype=T.bool), out=T.zeros(0, dtype=T.bool))",
    "T.baddbmm(T.zeros((1, 2, 2), dtype=T.bool), T.ones((1, 2, 2), dtype=T.bool), T.ones((1, 2, 2), dtype=T.bool))",
    "T.addbmm(T.zeros((2, 2), dtype=T.bool), T.ones((1, 2, 1), dtype=T.bool), T.ones((1, 1, 2), dtype=T.bool))",
    # the input's dtype against the matrices' before the kernel's dtype check
    "T.addmm(T.full((2, 2), nan), T.tensor([[True], [True]]), T.tensor([[False, True]]).expand(1, 2), beta=0, "
    "out=T.zeros(0, dtype=T.bool))",
    # shape before dtype; pinv's number-atol overload sizes its rtol first
    "T.cholesky_inverse(T.zeros((0, 3, 1), dtype=T.uint8), out=T.zeros(0, dtype=T.uint8))",
    "T.cholesky_inverse(T.tensor([[4, -1], [-5, -2]], dtype=T.int16), True)",
    "T.linalg.pinv(T.tensor([-5, 0, -5]), atol=1.0)",
    "T.linalg.pinv(T.tensor(5.0), atol=1.0)",
    "T.linalg.pinv(T.tensor([[-5, 0, -5]]), atol=1.0)",
    # the norms' out= takes only the real dtype of the input
    "T.frobenius_norm(T.tensor([[[complex(0.4, 0.76)], [complex(1.1, 1.85)]]]).expand(2, 2, 3), 1, "
    "out=T.zeros(0, dtype=T.complex64))",
    "T.frobenius_norm(T.ones(2, 3), 1, out=T.zeros(0, dtype=T.float64))",
    "T.nuclear_norm(T.ones(2, 3, dtype=T.complex64), out=T.zeros(0, dtype=T.complex64))",
    "T.linalg.vector_norm(T.ones(2, 3, dtype=T.complex64), 2, 1, out=T.zeros(0, dtype=T.complex64))",
    "T.linalg.norm(T.ones(2, 3, dtype=T.complex64), 2, 1, out=T.zeros(0, dtype=T.complex64))",
    "T.linalg.matrix_norm(T.ones(2, 3, dtype=T.complex64), out=T.zeros(0, dtype=T.complex64))",
])
def test_raises(src):
    check(ev(src), raises=True)
