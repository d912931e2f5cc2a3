"""torch.linalg.ldl_factor / ldl_factor_ex / ldl_solve against torch: the compact LD (multipliers and D in the
lower triangle), LAPACK's Bunch-Kaufman pivots (1x1 and 2x2 blocks, negative for a 2x2 pair), info for a
zero column, hermitian and symmetric complex factors, batches, the solves, and torch's errors."""
import numpy as np
import pytest

from harness import check
from test_autograd import check_message


def _sym(n, batch=(), dtype="float64", cplx=False, herm=False, seed=0):
    rng = np.random.RandomState(seed + n)
    a = rng.standard_normal(batch + (n, n))
    if cplx:
        a = a + 1j * rng.standard_normal(batch + (n, n))
    a = a + (np.conj(np.swapaxes(a, -1, -2)) if herm else np.swapaxes(a, -1, -2))
    return a.astype(dtype)


# matrices whose Bunch-Kaufman steps take each branch: 1x1 without interchange, 1x1 with, 2x2 blocks
MATRICES = {
    "random": _sym(4),
    "batch": _sym(6, (2,)),
    "float32": _sym(5, dtype="float32"),
    "zero_diagonal": np.array([[0., 1, 2], [1, 0, 3], [2, 3, 0]], np.float32),
    "small_diagonal": np.array([[1e-3, 5., 0.1, 2.], [5., 1e-3, 3., 1.], [0.1, 3., 2., 7.], [2., 1., 7., 1e-4]]),
    "batch3": _sym(7, (3,), seed=3),
    "hermitian": _sym(6, dtype="complex128", cplx=True, herm=True),
    "complex_symmetric": _sym(4, dtype="complex128", cplx=True),
    "complex64": _sym(4, dtype="complex64", cplx=True, herm=True, seed=5),
}


def _factor_and_solve(T, a, herm):
    A = T.tensor(a)
    ld, piv, info = T.linalg.ldl_factor_ex(A, hermitian=herm)
    b = np.random.RandomState(1).standard_normal(a.shape[:-1] + (2,)).astype(a.dtype)
    x = T.linalg.ldl_solve(ld, piv, T.tensor(b), hermitian=herm)
    f = T.linalg.ldl_factor(A, hermitian=herm)
    return ld, piv, info, x, f.LD, f.pivots, type(f).__name__, f.LD is f[0]


@pytest.mark.parametrize("herm", [False, True])
@pytest.mark.parametrize("name", sorted(MATRICES))
def test_ldl_factor_solve(name, herm):
    tol = 1e-4 if MATRICES[name].dtype in (np.float32, np.complex64) else 1e-9
    check(lambda T: _factor_and_solve(T, MATRICES[name], herm), rtol=tol, atol=tol)


def test_ldl_solve_broadcast():
    a = _sym(4)
    check(lambda T: (lambda f: T.linalg.ldl_solve(f.LD, f.pivots, T.ones(3, 4, 2, dtype=T.float64)))(
        T.linalg.ldl_factor(T.tensor(a))), rtol=1e-9, atol=1e-9)


def test_ldl_singular_info():
    check(lambda T: tuple(T.linalg.ldl_factor_ex(T.zeros(2, 3, 3))))
    check(lambda T: T.linalg.ldl_factor(T.zeros(3, 3)), raises=True)


ERRORS = {
    "not_square": lambda T: T.linalg.ldl_factor(T.ones(2, 3)),
    "one_dim": lambda T: T.linalg.ldl_factor(T.ones(3)),
    "integer": lambda T: T.linalg.ldl_factor(T.ones(2, 2, dtype=T.int64)),
    "half": lambda T: T.linalg.ldl_factor(T.eye(2, dtype=T.float16)),
    "solve_shapes": lambda T: T.linalg.ldl_solve(T.eye(3), T.ones(3, dtype=T.int32), T.ones(2, 1)),
    "solve_dtypes": lambda T: T.linalg.ldl_solve(T.eye(3), T.ones(3, dtype=T.int32), T.ones(3, 1).double()),
    "backward": lambda T: T.linalg.ldl_factor(T.eye(3).requires_grad_())[0].sum().backward(),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_ldl_errors(case):
    check(ERRORS[case], raises=True)


def test_ldl_error_messages():
    for case in ("not_square", "one_dim", "integer", "solve_shapes", "solve_dtypes", "backward"):
        check_message(ERRORS[case])
