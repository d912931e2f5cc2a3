"""Fuzzer regressions (seed 9104, silent classes of group S2): determinants of nearly singular matrices
take torch's LU residue (its getrf of A^T in MKL's order), not MindSpore's."""

import pytest

from harness import check, on_lapack_residues

_SING = ("[[[0.9, 0.9, 0.0], [0.6, -1.1, -0.2], [0.1, 1.0, 0.2]], [[1.0, -1.7, -1.4], [-0.2, -1.5, -0.3], "
         "[1.2, -0.2, -1.1]]]")


@pytest.mark.parametrize("src", [
    on_lapack_residues(f"T.linalg.slogdet(T.tensor({_SING}, dtype=T.float64))"),
    f"T.linalg.det(T.tensor({_SING}, dtype=T.float64))",
    on_lapack_residues(f"T.logdet(T.tensor({_SING}, dtype=T.float64))"),
    on_lapack_residues(f"T.slogdet(T.tensor({_SING}, dtype=T.float32))"),
    # torch's signs: -0.0 for a singular matrix with an odd permutation, 0 for a NaN pivot
    "(T.linalg.slogdet(T.tensor([[1., 2.], [2., 4.]])), T.linalg.det(T.tensor([[1., 2.], [2., 4.]])))",
    "(T.linalg.slogdet(T.tensor([[float('nan'), 1.], [2., 3.]])), T.logdet(T.tensor([[float('inf'), 1.], [2., 3.]])))",
])
def test_singular_determinant_residue(src):
    check(lambda T: eval(src))


@pytest.mark.parametrize("op", ["linalg.slogdet", "linalg.det"])
def test_determinant_gradient_kept(op):
    def run(T):
        x = T.tensor([[2.0, 1.0, 0.5], [0.3, -1.0, 0.2], [1.0, 0.4, 3.0]], dtype=T.float64, requires_grad=True)
        r = T.linalg.slogdet(x)[1] if op == "linalg.slogdet" else T.linalg.det(x)
        r.sum().backward()
        return r, x.grad
    check(run)
