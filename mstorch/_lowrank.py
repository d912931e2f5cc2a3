"""torch.svd_lowrank: randomized low-rank SVD (Halko et al. 2009, algorithms 4.4 and 5.1), composed from
randn, matmul, linalg.qr and linalg.svd in torch's order, so the same seed gives torch's factors."""
from . import _dtype as D
from . import linalg
from .ops.random import randn

__all__ = ["svd_lowrank"]


def _approximate_basis(A, q, niter, M):
    """An orthonormal Q with q columns such that Q Q^H (A - M) approximates A - M."""
    dtype = A.dtype if A.dtype in (D.float16, D.float32, D.float64) else D.float32
    R = randn(A.shape[-1], q, dtype=dtype, device=A.device)

    def times(X, Y, MX):
        out = X.matmul(Y)
        return out if MX is None else out - MX.matmul(Y)

    Q = linalg.qr(times(A, R, M)).Q
    for _ in range(niter):
        Q = linalg.qr(times(A.mH, Q, None if M is None else M.mH)).Q
        Q = linalg.qr(times(A, Q, M)).Q
    return Q


def svd_lowrank(A, q=6, niter=2, M=None):
    """Mirrors torch.svd_lowrank: (U, S, V) with A - M ~= U diag(S) V^H."""
    q = 6 if q is None else q
    niter = 2 if niter is None else niter
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.size())
    if m < n:   # work on the tall orientation, then swap the factors back
        A = A.mH
        M = None if M is None else M.mH
    Q = _approximate_basis(A, q, niter, M)
    B = Q.mH.matmul(A)
    if M is not None:
        B = B - Q.mH.matmul(M)
    U, S, Vh = linalg.svd(B, full_matrices=False)
    V = Vh.mH
    U = Q.matmul(U)
    if m < n:
        U, V = V, U
    return U, S, V
