"""Regression tests against torch for linear-algebra classes the differential fuzzer found (issue 18, tenth
batch): cholesky_inverse as LAPACK's potri, matrix_exp past the float range, solve / solve_ex / inv_ex through
LAPACK's LU on the host (NaN, inf, subnormal and singular inputs, MKL's fused elimination), einsum's dtype
rules, matmul / tensordot / matrix_norm / cond / matrix_rank / cholesky_solve / eigh edge cases."""
import pytest

from harness import check, on_lapack_residues


def _run(src):
    """A fuzzer reproducer: statements separated by '; ', the last one's value (or ``out``) returned."""
    def run(T):
        ns = {"T": T, "inf": float("inf"), "nan": float("nan")}
        lines = [s.strip() for s in src.split("; ")]
        if not lines[-1].startswith("out ="):
            lines[-1] = "out = " + lines[-1]
        for line in lines:
            exec(line, ns)
        return ns["out"]
    return run


_GRAD = "g = r if isinstance(r, T.Tensor) else r[0]; " \
        "(g * T.linspace(-1, 2, g.numel()).reshape(g.shape).to(g.dtype)).sum().backward()"


@pytest.mark.parametrize("src", [
    # cholesky_inverse: potri's W^H W (float32 precision), its inf/NaN pattern, a complex factor's diagonal
    "T.cholesky_inverse(T.tensor([[1.58, -0.63, 0.61], [2.37, -0.63, 0.66], [0.55, 2.37, -0.1]]))",
    "T.cholesky_inverse(T.tensor([[1.58, -0.63, 0.61], [2.37, -0.63, 0.66], [0.55, 2.37, -0.1]]), upper=True)",
    "T.cholesky_inverse(T.tensor([[2.6, 1.9, 1e+30], [1.0, 0.7, 1.5], [inf, 2.2, 2.4]]))",
    "T.cholesky_inverse(T.tensor([[6e-20, 0.0], [0.0, 1.0]]))",
    "T.cholesky_inverse(T.tensor([[1 + 1j, 0], [0.5 + 0.2j, 2 - 1j]]))",
    "T.cholesky_inverse(T.tensor([[1 + 1j, 0], [0.5 + 0.2j, 2 - 1j]]).mH.contiguous(), upper=True)",
    # matrix_exp: a 1-norm past the float range (no OverflowError), scaling below double's normal range
    "T.tensor([[1.5, -0.5], [3.4028235e+38, -0.0]]).matrix_exp()",
    "T.matrix_exp(T.tensor([[-3.1, 6.34, -1.08], [4.61, 4.8, 1.7976931348623157e+308], [-1.84, -4.76, -8.35]], "
    "dtype=T.float64).t())",
    "T.matrix_exp(T.tensor([[0.0, 1e30], [0.0, 0.0]]))",
    "T.matrix_exp(T.stack([T.tensor([[nan, 0.0], [0.0, 0.0]]), T.eye(2)]))",
    # solve / solve_ex / inv_ex: LAPACK's LU on the host for NaN, inf, subnormal and singular matrices
    "x0 = T.tensor([[[[-0.892, 5.618], [3.262, 3.44]], [[1e+30, inf], [1.334, 1.7976931348623157e+308]]]], "
    "dtype=T.float64, requires_grad=True); x1 = T.tensor([[[[nan], [0.54]], [[0.85], [1.33]]]], dtype=T.float64, "
    "requires_grad=True); r = T.linalg.solve_ex(x0, x1.permute(3, 2, 1, 0)); " + _GRAD + "; out = (r, x0.grad, x1.grad)",
    "x0 = T.tensor([[[1.7976931348623157e+308, 6.0, 3.0], [5.0, 2.5, 1e+30], [nan, 3.4, 4.2]], [[7.9, 7.3, -inf], "
    "[3.7, -0.0, 1.4], [6.2, 8.3, 0.0]]], dtype=T.float64, requires_grad=True); x1 = T.tensor([[0.12, 0.71, 0.52]], "
    "dtype=T.float64, requires_grad=True); r = T.linalg.solve(x0, x1.expand(2, 3)); " + _GRAD
    + "; out = (r, x0.grad, x1.grad)",
    "x0 = T.tensor([[[0.8, 4.7], [-0.0, -0.0]], [[3.2, 1e-45], [3.4028235e+38, 1e-45]]], requires_grad=True); "
    "x1 = T.tensor([[[0.29], [-0.13]], [[nan], [1.54]]], requires_grad=True); r = T.linalg.solve_ex(x0, x1); "
    + _GRAD + "; out = (r, x0.grad, x1.grad)",
    "T.linalg.solve_ex(T.tensor([[[1., 2, 3], [2, 4, 6], [1, 1, 1]], [[1., 0, 0], [0, 1, 0], [0, 0, 1]]]), "
    "T.ones(2, 3, 2))",
    "T.linalg.solve_ex(T.tensor([[[1., 2, 3], [2, 4, 6], [1, 1, 1]], [[1., 0, 0], [0, 1, 0], [0, 0, 1]]]), "
    "T.ones(2, 2, 3), left=False)",
    "T.linalg.inv_ex(T.tensor([[[1., 2, 3], [2, 4, 6], [1, 1, 1]], [[1., 0, 0], [0, 1, 0], [0, 0, 1]]]))",
    # the LU is MKL's: multipliers by the reciprocal, fused updates (a dependent row's tiny residue)
    on_lapack_residues("T.linalg.lu_factor(T.tensor([[7.530508041381836], [2.9707798957824707], [2.1868202686309814], "
    "[-3.9781606197357178]], dtype=T.float64).expand(4, 4))"),
    on_lapack_residues("T.linalg.lu_factor_ex(T.tensor([[1.58], [-0.45], [7.68], [11.77]]).expand(4, 4))"),
    "T.linalg.lu_factor(T.tensor([[0.3, -1.2, 2.5, 0.7, 1.1], [1.9, 0.4, -0.6, 2.2, -1.3], [-0.8, 1.6, 0.9, -2.1, "
    "0.5], [2.4, -0.2, 1.3, 0.6, -0.9], [0.1, 2.7, -1.5, 1.8, 0.35]]))",
    # einsum: nothing summed multiplies (promoting, bool included); sums of bool/integers are int64
    "x2 = T.tensor([-0.94, -1.76, -1.09], dtype=T.float64, requires_grad=True); t0 = T.tensor(2.0); "
    "r = T.einsum(',i->i', t0, x2); " + _GRAD + "; out = (r, x2.grad)",
    "T.einsum(',i->i', T.tensor(2., dtype=T.float64), T.tensor([1., 2, 3]))",
    "T.einsum('i,->i', T.tensor([1, 2, 3]), T.tensor(2.5))",
    "T.einsum('i,j->ij', T.tensor([True, False]), T.tensor([True, True]))",
    "T.einsum('ij,j->ij', T.tensor([[True, False], [True, True]]), T.tensor([1, 2]))",
    "T.einsum('ij,jk->', T.tensor([[True, False], [True, True]]), T.tensor([[True, False], [True, True]]))",
    "T.einsum('ij->j', T.tensor([[True, False], [True, True]]))",
    "T.einsum('i,i->i', T.tensor([1., 2], dtype=T.bfloat16), T.tensor([1., 2]))",
    # matmul / tensordot: an empty broadcast batch, a size-1 contracted dimension
    "T.matmul(T.ones(3, 1, 3, 5), T.zeros((5, 5, 0)))",
    "T.tensor([[-0.11], [-0.271]], dtype=T.float64).matmul(T.zeros((2, 1, 0), dtype=T.float64))",
    "T.tensordot(T.tensor([[[-1.05, -1.66, 0.79], [-0.31, -0.57, -1.51]]]), T.tensor([[[1.465, 0.243, 1.096, "
    "-1.368], [-0.48, -0.013, 0.443, -1.903], [-1.038, 0.35, -0.815, -0.951]]]), dims=1)",
    "T.tensordot(T.ones(2, 1), T.ones(0, 4), dims=([1], [0]))",
    # norms, cond, rank, eigh, cholesky, lu of empty or low-precision input
    "T.linalg.matrix_norm(T.zeros((3, 0), dtype=T.float64), 1)",
    "T.linalg.norm(T.zeros((1, 0), dtype=T.float64), 1)",
    "T.linalg.matrix_norm(T.zeros((0, 3)), float('inf'))",
    "T.linalg.matrix_norm(T.ones((2, 4, 3), dtype=T.float64), float('inf'), dim=(2, 0), keepdim=True)",
    "T.linalg.cond(T.zeros((2, 0), dtype=T.float64), 1)",
    "T.linalg.matrix_rank(T.zeros((0, 1, 3), dtype=T.float16)[::2], tol=0.5)",
    "T.linalg.matrix_rank(T.zeros((2, 0, 3), dtype=T.int32), tol=0.5)",
    "T.cholesky(T.zeros((0, 0), dtype=T.int8))",
    "T.linalg.eigvalsh(T.zeros((0, 1, 1), dtype=T.bool))",
    "T.linalg.eigh(T.zeros((0, 2, 2), dtype=T.float16))",
    "T.zeros((0, 4, 4), dtype=T.uint8)[:, ::2].lu(get_infos=True)",
])
def test_same_as_torch(src):
    check(_run(src), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("src", [
    # cholesky_inverse: potri refuses a zero on the factor's diagonal
    "x0 = T.tensor([[1.22, 1.0, -2.72], [inf, -0.7, 0.0], [-0.0, -1e-45, -0.82], [-0.06, 0.08, 0.0]], "
    "requires_grad=True); r = T.cholesky_inverse(x0[1:]); " + _GRAD + "; out = (r, x0.grad)",
    "T.cholesky_inverse(T.stack([T.eye(3), T.tensor([[1., 0, 0], [1, 0, 0], [1, 1, 1]])]))",
    # exception types and their order
    "T.linalg.matrix_rank(T.tensor([[-0.77392578125]], dtype=T.float16), rtol=0.9)",
    "T.linalg.matrix_rank(T.tensor([[-0.77]], dtype=T.float16))",
    "T.linalg.matrix_rank(T.tensor([[1]]), tol=0.5)",
    "T.cholesky_solve(T.zeros((3, 0, 4, 3), dtype=T.bool), T.zeros((3, 0, 4, 3), dtype=T.bool))",
    "T.cholesky_solve(T.zeros((2, 3, 1), dtype=T.bfloat16), T.zeros((3, 1, 1), dtype=T.bfloat16))",
    "T.cholesky_solve(T.zeros((2, 3, 1), dtype=T.bfloat16), T.zeros((2, 3, 3), dtype=T.bfloat16))",
    "T.linalg.matrix_norm(T.zeros((3, 0), dtype=T.float64), -1)",
    "T.linalg.cond(T.tensor([[7.2890625]], dtype=T.float16), 'nuc')",
    "T.linalg.cond(T.tensor([[7.2890625]], dtype=T.bfloat16), 'fro')",
    "T.linalg.cond(T.zeros((2, 0), dtype=T.float64)[:, ::2], 'nuc')",
    "T.linalg.cond(T.zeros((2, 2), dtype=T.int64), 1)",
    "T.tensor([[[[True, True, True]]], [[[False, True, True]]], [[[False, False, True]]]]).matmul("
    "T.tensor([[[[False, False, False]]], [[[True, True, True]]], [[[False, True, True]]], "
    "[[[True, False, False]]]])[1:])",
    "T.ones(2, 3, 4) @ T.ones(5, 6)",
    "T.ones(2, 3, 0) @ T.ones(5)",
    "T.einsum('ij,j->i', T.tensor([[True, False], [True, True]]), T.tensor([1, 2]))",
    "T.einsum('i,i->', T.tensor([1., 2], dtype=T.bfloat16), T.tensor([1., 2]))",
    "T.einsum('i,i,i', T.tensor([1., 2], dtype=T.float64), T.tensor([1., 2], dtype=T.float64), T.tensor([1., 2]))",
])
def test_raises_as_torch(src):
    check(_run(src), raises=True)
