"""torch.linalg decompositions: cholesky, qr, svd/svdvals, eigh/eigvalsh, eig/eigvals, solve_triangular,
pinv, matrix_rank, lstsq.

MindSpore 2.10's CPU kernels: Cholesky, Qr, Svd, Eig, MatrixTriangularSolve exist; Cholesky, Qr and Eig
have no usable backward, so those get an autograd node of ours (``_node``) with torch's formulas. There is
no symmetric eigensolver kernel: ``eigh`` runs LAPACK's through NumPy on the host (a synchronisation) and
its backward is MindSpore ops. Singular and eigen vectors are unique only up to sign (LAPACK's choice is
not MindSpore's); values, reconstructions and sign-invariant gradients match torch.
"""

import math

import mindspore as ms
import numpy as np
from .._runtime import read_host
from . import _msops as ops
from mindspore.ops.operations.math_ops import MatrixTriangularSolve

from .. import _dtype as D
from ._helpers import dtype_of, _scalar_name, cast, records
from ._registry import register
from .products import _broadcast_batch, _mm, _node
from .reduction import return_type, needs_grad
from .. import _ms_private as P
from .._warnings import warn_once
from ..autograd._higher_order import own_backward

# --- inputs MindSpore's factorisations get wrong -------------------------------------------------

class LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError: a RuntimeError raised for singular or non-definite inputs."""


LinAlgError.__module__ = "torch.linalg"


def host_array(t):
    """``t`` on the host when MindSpore's linear-algebra kernels would get it wrong, else None: a
    non-finite entry, or one past the square root of the dtype's largest value (LAPACK scales such
    matrices; MindSpore's Eigen kernels square them and overflow). Tensors that need a gradient stay
    on MindSpore's kernels, whose autograd the host results lack."""
    if t.dtype not in (ms.float32, ms.float64, ms.complex64, ms.complex128) or t.size == 0 or \
            (P.requires_grad(t) and P.grad_enabled()):
        return None
    a = read_host(t)
    big = math.sqrt(np.finfo(a.real.dtype).max)
    if np.isfinite(a).all() and not (np.abs(a) > big).any():
        return None
    return a


def host_result(x, like):
    """A host array as a tensor of ``like``'s dtype (a tensor's, or a NumPy type)."""
    x = np.ascontiguousarray(x).reshape(np.shape(x))   # ascontiguousarray makes 0-d arrays 1-d
    return ms.Tensor(x.astype(dtype_of(like)._np if isinstance(like, ms.Tensor) else like))


def host_svd(a, compute_uv, full_matrices=False, name="linalg.svd"):
    """LAPACK's SVD of a host array batch, as torch's: a NaN is refused (LAPACK's NaN check), a matrix
    with an infinite entry gives NaN everywhere."""
    flat = a.reshape((-1,) + a.shape[-2:])
    bad = np.isnan(flat).any(axis=(-2, -1))
    if bad.any():
        where = f"(Batch element {int(bad.nonzero()[0][0])}): " if a.ndim > 2 else ""
        raise LinAlgError(f"{name}: {where}The algorithm failed to converge because the input matrix contained "
                          "non-finite values.")
    inf = ~np.isfinite(flat).all(axis=(-2, -1))
    clean = np.where(inf[:, None, None], 0, flat)
    if not compute_uv:
        s = np.linalg.svd(clean, compute_uv=False)
        s[inf] = np.nan
        return s.reshape(a.shape[:-2] + s.shape[-1:])
    u, s, vh = np.linalg.svd(clean, full_matrices=full_matrices)
    for x in (u, s, vh):
        x[inf] = np.nan
    return tuple(x.reshape(a.shape[:-2] + x.shape[1:]) for x in (u, s, vh))




F = "torch.linalg"
_COMPLEX = (ms.complex64, ms.complex128)

qr_rt = return_type("linalg_qr", ("Q", "R"))
svd_rt = return_type("linalg_svd", ("U", "S", "Vh"))
eigh_rt = return_type("linalg_eigh", ("eigenvalues", "eigenvectors"))
eig_rt = return_type("linalg_eig", ("eigenvalues", "eigenvectors"))
lstsq_rt = return_type("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))
cholesky_ex_rt = return_type("linalg_cholesky_ex", ("L", "info"))


# --- shared checks and helpers ------------------------------------------------------------------

# torch's kernels that an empty input never reaches (so no dtype is refused there)
_SKIPPED_WHEN_EMPTY = frozenset(("linalg_svd_cpu", "cholesky_cpu", "lu_cpu"))


def _empty_half_factor(A, node_name):
    """The empty factor of a float16/bfloat16 ``A`` (torch's kernel never runs for it), on ``A``'s graph with
    torch's backward, whose triangular solve has no half kernel: it raises. Recorded also where ops/_bind.py
    runs the op unrecorded because every input that needs a gradient is empty."""
    def bwd(saved, g):
        raise NotImplementedError(f"\"triangular_solve_cpu\" not implemented for '{_scalar_name(A)}'")
    if not (P.requires_grad(A) and records()):
        return ops.zeros(tuple(A.shape), A.dtype)
    node = _node(node_name, lambda a: (ops.zeros(tuple(a.shape), a.dtype), ()), bwd)
    if P.grad_enabled():
        return node(A)
    P.set_grad_enabled(True)
    try:
        out = node(A)
    finally:
        P.set_grad_enabled(False)
    out._mstorch_unlinked = True
    return out


def check_matrix(t, name, square=False, low_precision=False, arg="A", kernel=None):
    """torch's checks: rank, floating dtype, squareness, low precision (``kernel``: torch's CPU kernel
    name, which torch reports as NotImplementedError for half types)."""
    if t.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor {arg} must have at least 2 dimensions.")
    d = dtype_of(t)
    if d._cat < D._FLOAT:
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got {_scalar_name(t)}")
    if square and t.shape[-1] != t.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {t.shape[-2]} by "
                           f"{t.shape[-1]} matrices")
    if not low_precision and d in (D.float16, D.bfloat16) and not (t.size == 0 and kernel in _SKIPPED_WHEN_EMPTY):
        if kernel:
            raise NotImplementedError(f"\"{kernel}\" not implemented for '{_scalar_name(t)}'")
        raise RuntimeError(f"{name}: Low precision dtypes not supported. Got {_scalar_name(t)}")


def need_lapack_dtype(t, kernel):
    """torch's CPU LAPACK kernels take float32/64 and complex: others are NotImplementedError naming the kernel."""
    if dtype_of(t)._cat < D._FLOAT or t.dtype in (ms.float16, ms.bfloat16):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_scalar_name(t)}'")


def mT(x):
    return ops.swapaxes(x, -1, -2)


def mH(x):
    return ops.conj(mT(x)) if x.dtype in _COMPLEX else mT(x)


def eye_like(x, n=None):
    n = x.shape[-1] if n is None else n
    e = ops.eye(n, n, x.dtype)
    return ops.broadcast_to(e, tuple(x.shape[:-2]) + (n, n)) if x.ndim > 2 else e


def trsolve(a, b, upper, left=True, unitriangular=False):
    """Solve A X = B (or X A = B) for triangular A, batches broadcast; only A's triangle is read."""
    if unitriangular:
        a = (ops.triu(a, 1) if upper else ops.tril(a, -1)) + eye_like(a)
    else:
        a = ops.triu(a) if upper else ops.tril(a)
    if not left:   # X A = B  <=>  A^T X^T = B^T
        return mT(trsolve(mT(a), mT(b), not upper, unitriangular=unitriangular))
    batch = _broadcast_batch(a.shape[:-2], b.shape[:-2])
    if tuple(a.shape[:-2]) != batch:
        a = ops.broadcast_to(a, batch + tuple(a.shape[-2:]))
    if tuple(b.shape[:-2]) != batch:
        b = ops.broadcast_to(b, batch + tuple(b.shape[-2:]))
    if not (P.grad_enabled() and (P.requires_grad(a) or P.requires_grad(b))) and \
            (host_array(a) is not None or host_array(b) is not None or _subnormal(a) or _subnormal(b)):
        # inf/NaN: MindSpore's Eigen solver skips zero entries and divides complex numbers its own way;
        # subnormals: it flushes them to zero
        return host_result(host_trsm(read_host(a), read_host(b), upper, unitriangular), a)
    x = MatrixTriangularSolve(lower=not upper, adjoint=False)(a, b)
    # MindSpore's backward of MatrixTriangularSolve is not recorded completely: torch's formula for
    # double backward
    return own_backward(x, _trsolve_backward, a, P.detach(x), upper)


def _subnormal(t):
    """Whether a float32/64 (or complex) tensor holds a subnormal entry (MindSpore's kernels flush them)."""
    if t.dtype not in (ms.float32, ms.float64, ms.complex64, ms.complex128) or t.size == 0:
        return False
    a = read_host(t)
    parts = (a.real, a.imag) if np.iscomplexobj(a) else (a,)
    tiny = np.finfo(parts[0].dtype).tiny
    return any(bool(((p != 0) & (np.abs(p) < tiny)).any()) for p in parts)


def host_trsm(a, b, upper, unit=False):
    """A^-1 B for host batches of triangular A, as torch's BLAS trsm (MKL) spreads inf and NaN: every entry
    used (0 * inf is NaN), complex products plain. Measured on complex input: with several right-hand
    sides B is first scaled by alpha = 1 as a plain complex product (inf + 0j becomes inf + NaN j), and
    quotients are scaled by |c| + |d| (an infinite divisor gives NaN, not 0), except for a 1 x 1 A with
    several right-hand sides, which divides as C (Smith's quotient, NumPy's)."""
    x = b.copy()
    n, k = a.shape[-1], b.shape[-1]
    cplx = np.iscomplexobj(x)
    with np.errstate(all="ignore"):
        if cplx and k > 1 and n == 1:
            return x / a
        if cplx and k > 1:
            x = _times_one(x)
        for j in range(n - 1, -1, -1) if upper else range(n):
            if not unit:   # (a unit diagonal is not read: no division by 1 + 0j)
                x[..., j, :] = _trsm_div(x[..., j, :], a[..., j, j, None])
            rest = slice(0, j) if upper else slice(j + 1, n)
            x[..., rest, :] -= x[..., j, None, :] * a[..., rest, j, None]
    return x


def _complex(re, im, dtype):
    q = np.empty(np.shape(re), dtype)
    q.real, q.imag = re, im   # (not re + 1j * im: 1j * inf has a NaN real part)
    return q


def _times_one(z):
    """z * (1 + 0j) as a plain complex product: an infinite part makes the other part NaN."""
    return _complex(z.real * 1 - z.imag * 0, z.real * 0 + z.imag * 1, z.dtype)


def _trsm_div(x, d):
    if not np.iscomplexobj(d):
        return x / d
    s = np.abs(d.real) + np.abs(d.imag)
    c, e = d.real / s, d.imag / s
    den = c * c + e * e
    return _complex(((x.real * c + x.imag * e) / den) / s, ((x.imag * c - x.real * e) / den) / s, x.dtype)


def _trsolve_backward(node, grad_outputs, a, x, upper):
    # X = A^-1 B: gB = A^-H gX, gA = -gB X^H (the triangle mask is the graph's, before the kernel)
    (g,) = grad_outputs
    if g is None:
        return (None, None)
    gb = trsolve(mH(a), g, not upper)
    return ops.neg(_mm(gb, mH(P.reattach(x, node, 0)))), gb


def _batch_prefix(t, index):
    return f"(Batch element {index}): " if t.ndim > 2 else ""


# --- cholesky -----------------------------------------------------------------------------------

def _cholesky_backward(saved, gl):
    # torch's formula (Murray 2016): gA = L^-H sym(tril(L^H gL)) L^-1, sym halving the diagonal
    (l,) = saved
    ga = ops.tril(_mm(mH(l), gl))
    ga = ops.mul(ops.add(ga, mH(ops.tril(ga, -1))), ms.Tensor(0.5, ga.dtype))   # (a complex Mul: same dtypes)
    ga = trsolve(mH(l), ga, upper=True)
    return trsolve(l, ga, upper=False, left=False)


def _upper_node(name, l):
    """U = L^H on the graph of A (L: the lower factor of A^H, computed off the graph) with torch's backward
    of the upper factor, cholesky's formula with L and gU^H: not the adjoint of the lower factor's gradient,
    which differs where inf/NaN make it non-Hermitian."""
    u = mH(l)
    # (the output saved: double backward differentiates through it)
    return _node(name, lambda a: (u, (u,)), lambda saved, gu: _cholesky_backward((mH(saved[0]),), mH(gu)))


def _lower_cholesky(a):
    """LAPACK reads only the lower triangle; MindSpore's Cholesky refuses a matrix that is not
    Hermitian, so it gets the Hermitian matrix that triangle defines."""
    return ops.cholesky(ops.add(ops.tril(a), mH(ops.tril(a, -1))))


def _cholesky_fwd(a):
    l = _lower_cholesky(a)
    return l, (l,)


_cholesky_node = _node("LinalgCholeskyBackward0", _cholesky_fwd, _cholesky_backward)


def _leading_minor_failure(a):
    """(batch index, order) of the first matrix that is not positive-definite, found on the host."""
    flat = read_host(a).reshape((-1,) + tuple(a.shape[-2:]))
    for b, m in enumerate(flat):
        for k in range(1, m.shape[-1] + 1):
            try:
                np.linalg.cholesky(m[:k, :k])
            except np.linalg.LinAlgError:
                return b, k
    return None


@register("linalg.cholesky", family=F, namespace="linalg", out=True)
def cholesky(A, *, upper=False):
    check_matrix(A, "linalg.cholesky", square=True, kernel="cholesky_cpu")
    if A.size == 0 and A.dtype in (ms.float16, ms.bfloat16):
        return _empty_half_factor(A, "LinalgCholeskyExBackward0")
    if A.size == 0:   # (an empty batch too: nothing for LAPACK, whatever the dtype)
        return A.copy()
    if upper:   # LAPACK's upper factor reads A's upper triangle: the lower factor of A^H, transposed back
        if needs_grad(A):
            return _upper_node("LinalgCholeskyBackward0", cholesky(P.detach(mH(A))))(A)
        return mH(cholesky(mH(A)))
    ok = _cholesky_ok(A)
    if not ok and (A.dtype in _COMPLEX or not _all_finite(A)):
        # inf/NaN, or complex (MindSpore's Cholesky has no complex CPU kernel): LAPACK's elimination, on the host
        return _cholesky_host(A, "linalg.cholesky", True)
    bad = _leading_minor_failure(A) if not ok else None
    if bad is not None:
        raise LinAlgError(f"linalg.cholesky: {_batch_prefix(A, bad[0])}The factorization could not be completed "
                          f"because the input is not positive-definite (the leading minor of order {bad[1]} is "
                          "not positive-definite).")
    l = _cholesky_node(A) if needs_grad(A) else _lower_cholesky(A)
    return mH(l) if upper else l


def _potf2(a):
    """LAPACK's unblocked lower Cholesky (potf2) of one host matrix, stopping where it fails as LAPACK
    does: the columns before the failing order k factorised, the non-positive pivot stored unrooted at
    (k-1, k-1), the rest the input's lower triangle. Returns (L, info)."""
    l = np.tril(a).copy()
    for j in range(a.shape[-1]):
        row = l[j, :j]
        ajj = (a[j, j] - np.dot(row, row.conj())).real
        if not ajj > 0:   # (NaN included)
            l[j, j] = ajj
            return l, j + 1
        l[j, j] = np.sqrt(ajj)
        with np.errstate(all="ignore"):
            l[j + 1:, j] = (a[j + 1:, j] - l[j + 1:, :j] @ row.conj()) / l[j, j]
            if np.isinf(ajj) and a.dtype == np.float32:   # (MKL's single-precision kernel: NaN below an inf pivot)
                l[j + 1:, j] = np.nan
    return l, 0


@register("linalg.cholesky_ex", family=F, namespace="linalg", out=True,
          note="a failed factorisation's partial result is LAPACK's unblocked one (potf2)")
def cholesky_ex(A, *, upper=False, check_errors=False):
    check_matrix(A, "linalg.cholesky", square=True, kernel="cholesky_cpu")
    if A.size == 0 and A.dtype in (ms.float16, ms.bfloat16):
        return cholesky_ex_rt(_empty_half_factor(A, "LinalgCholeskyExBackward0"),
                              ops.zeros(tuple(A.shape[:-2]), ms.int32))
    if upper and A.shape[-1]:   # (as in cholesky: the upper triangle is read)
        if needs_grad(A):
            l, info = cholesky_ex(P.detach(mH(A)), check_errors=check_errors)
            return cholesky_ex_rt(_upper_node("LinalgCholeskyExBackward0", l)(A), info)
        l, info = cholesky_ex(mH(A), check_errors=check_errors)
        return cholesky_ex_rt(mH(l), info)
    batch = tuple(A.shape[:-2])
    if A.size == 0:
        l, info = A.copy(), ops.zeros(batch, ms.int32)
    elif _cholesky_ok(A):
        l = _cholesky_node(A) if needs_grad(A) else _lower_cholesky(A)
        info = ops.zeros(batch, ms.int32)
    else:
        l, info = _cholesky_host(A, "linalg.cholesky_ex", check_errors)
    return cholesky_ex_rt(mH(l) if upper else l, info)


def _cholesky_host(A, name, check_errors):
    """(L, info) of LAPACK's unblocked Cholesky on the host (partial factors where it fails), L on the
    graph of ``A``; ``check_errors``: torch's error for the first failing matrix instead; ``name``
    "linalg.cholesky": L alone."""
    a = read_host(A)
    flat = a.reshape((-1,) + a.shape[-2:])
    parts = [_potf2(m) for m in flat]
    infos = np.array([i for _, i in parts], np.int32)
    if check_errors and infos.any():
        b = int(np.flatnonzero(infos)[0])
        raise LinAlgError(f"{name}: {_batch_prefix(A, b)}The factorization could not be completed "
                          f"because the input is not positive-definite (the leading minor of order {infos[b]} "
                          "is not positive-definite).")
    host_l = host_result(np.stack([x for x, _ in parts]).reshape(a.shape), A)
    # torch differentiates the partial factor with cholesky's formula too
    node = "LinalgCholeskyBackward0" if name == "linalg.cholesky" else "LinalgCholeskyExBackward0"
    l = _node(node, lambda x: (host_l, (host_l,)), _cholesky_backward)(A) if needs_grad(A) else host_l
    if name == "linalg.cholesky":
        return l
    return l, ms.Tensor(infos.reshape(tuple(A.shape[:-2])))


def _all_finite(a):
    return bool(np.isfinite(read_host(a)).all())


def _cholesky_ok(a):
    """Whether every matrix is real, positive-definite with finite entries (MindSpore's kernel's domain)."""
    try:
        flat = read_host(a)
        if not np.isfinite(flat).all() or a.dtype in _COMPLEX:
            return False
        np.linalg.cholesky(np.tril(flat) + np.swapaxes(np.tril(flat, -1), -1, -2).conj())
        return True
    except np.linalg.LinAlgError:
        return False


# --- qr -----------------------------------------------------------------------------------------

def _copyltu(m):
    lower = ops.tril(m, -1)
    return ops.add(ops.add(lower, mH(lower)), ops.mul(m, eye_like(m)))


def _qr_square_backward(q, r, gq, gr):
    """A = QR with R square (m >= n, reduced): gA = (gQ + Q copyltu(M)) R^-H, M = R gR^H - gQ^H Q."""
    m = ops.sub(_mm(r, mH(gr)), _mm(mH(gq), q))
    b = ops.add(gq, _mm(q, _copyltu(m)))
    return mH(trsolve(r, mH(b), upper=True))


def _qr_backward(saved, gq, gr):
    a, q, r = saved
    m, n = a.shape[-2], a.shape[-1]
    if m >= n:
        if q.shape[-1] != n:
            raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
        return _qr_square_backward(q, r, gq, gr)
    # wide A = [X | Y], R = [U | V]: X = QU is square, Y = QV
    y, u, gu, gv = a[..., m:], r[..., :m], gr[..., :m], gr[..., m:]
    gx = _qr_square_backward(q, u, ops.add(gq, _mm(y, mH(gv))), gu)
    return ops.cat((gx, _mm(q, gv)), -1)


def _qr_fwd(mode):
    def fwd(a):
        q, r = _qr_value(a, mode)
        return (q, r), (a, q, r)
    return fwd


def _qr_value(A, mode):
    """(Q, R); LAPACK's on the host for non-finite or huge entries, which MindSpore's kernel turns to NaN."""
    a = host_array(A)
    if a is None:
        return ops.qr(A, mode)
    q, r = np.linalg.qr(a, mode)
    return host_result(q, A), host_result(r, A)


_qr_nodes = {mode: _node("LinalgQrBackward0", _qr_fwd(mode), _qr_backward) for mode in ("reduced", "complete")}


@register("linalg.qr", family=F, namespace="linalg", out="tuple")
def qr(A, mode="reduced"):
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
                           "'r', or 'complete'")
    check_matrix(A, "linalg.qr", kernel="geqrf_cpu")
    if mode == "r":
        r = _qr_value(ops.stop_gradient(A), "reduced")[1]
        if needs_grad(A):   # torch: R alone is not differentiable through linalg.qr
            r = _qr_r_only(A, r)
        return qr_rt(ops.zeros((0,), A.dtype), r)
    if needs_grad(A):
        return qr_rt(*_qr_nodes[mode](A))
    return qr_rt(*_qr_value(A, mode))


def _qr_r_only(a, r):
    def bwd(saved, gr):
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please "
                           "use linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.")
    return _node("LinalgQrBackward0", lambda x: (ops.qr(x, "reduced")[1], ()), bwd)(a)


# --- svd ----------------------------------------------------------------------------------------

def _svd_check(A, driver, name="linalg.svd"):
    if driver is not None:
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with "
                           "cuSOLVER backend.")
    check_matrix(A, "linalg.svd", kernel="linalg_svd_cpu")


@register("linalg.svd", family=F, namespace="linalg", out="tuple",
          note="singular vectors may differ from torch's by sign (U, Vh columns/rows flipped together)")
def svd(A, full_matrices=True, *, driver=None):
    _svd_check(A, driver)
    k = min(A.shape[-2], A.shape[-1])
    if k == 0:
        m, n = A.shape[-2], A.shape[-1]
        b = tuple(A.shape[:-2])
        um, vn = (m, n) if full_matrices else (0, 0)
        u = eye_like(A, m) if um else ops.zeros(b + (m, 0), A.dtype)
        vh = eye_like(A, n) if vn else ops.zeros(b + (0, n), A.dtype)
        return svd_rt(u, ops.zeros(b + (0,), _real(A.dtype)), vh)
    m, n = A.shape[-2], A.shape[-1]
    a = _svd_host(A)
    if full_matrices and m != n and needs_grad(A):
        # MindSpore's Svd backward is wrong for the completed bases; torch's ignores the gradient of the
        # columns beyond min(m, n) (they span a fixed complement), so they come from a detached call
        s, u, v = ms_svd(A, full_matrices=False, compute_uv=True)
        _, uf, vf = ms_svd(ops.stop_gradient(A), full_matrices=True, compute_uv=True)
        u = ops.cat((u, uf[..., k:]), -1) if m > k else u
        v = ops.cat((v, vf[..., k:]), -1) if n > k else v
        return svd_rt(u, s, mH(v))
    if a is not None:
        return svd_rt(*(host_result(x, A if i != 1 else _real_np(A)) for i, x in enumerate(
            host_svd(a, True, full_matrices))))
    s, u, v = ms_svd(A, full_matrices=full_matrices, compute_uv=True)
    return svd_rt(u, s, mH(v))


def _svd_host(A, name="linalg.svd"):
    """host_array(A) for the SVD family; a tensor that needs grad stays on MindSpore's kernel, but a NaN
    in it is still refused as torch's LAPACK check does."""
    a = host_array(A)
    parts = (ops.real(A), ops.imag(A)) if A.dtype in _COMPLEX else (A,)    # IsNan has no complex kernel
    if a is None and needs_grad(A) and A.size and any(bool(ops.any(ops.isnan(p))) for p in parts):
        host_svd(read_host(A), False, name=name)   # raises
    return a


def svd_parts(A, name="linalg.svd"):
    """(S, U, V) of the reduced SVD, as ops.svd gives them; LAPACK's on the host for inputs MindSpore's
    kernel gets wrong (non-finite or huge entries)."""
    a = _svd_host(A, name)
    if a is None:
        return ms_svd(A, full_matrices=False, compute_uv=True)
    u, s, vh = host_svd(a, True, name=name)
    return host_result(s, _real_np(A)), host_result(u, A), mH(host_result(vh, A))


def ms_svd(A, full_matrices=False, compute_uv=True):
    """MindSpore's Svd, with torch's real singular values for a complex matrix (MindSpore's are complex).
    A matrix that needs grad gets the reduced SVD through our node (torch's backward formula)."""
    if needs_grad(A) and A.dtype in (ms.float32, ms.float64, ms.complex64, ms.complex128) and (
            not full_matrices or A.shape[-1] == A.shape[-2]):
        r = _svd_node(A)
        return r if compute_uv else r[0]
    r = ops.svd(A, full_matrices=full_matrices, compute_uv=compute_uv)
    if A.dtype not in (ms.complex64, ms.complex128):
        return r
    return (ops.real(r[0]),) + tuple(r[1:]) if compute_uv else ops.real(r)


def _svd_fwd(a):
    h = read_host(a) if a.size else None
    # MindSpore's kernel returns numbers for an inf entry (NaN everywhere, as torch's LAPACK) and loses
    # the small singular vectors of matrices with entries past sqrt(max) (LAPACK scales them first)
    if h is not None and (not np.isfinite(h).all() or (np.abs(h) > math.sqrt(np.finfo(h.dtype).max)).any()):
        u, s, vh = host_svd(h, True)
        s, u, v = host_result(s, _real_np(a)), host_result(u, a), mH(host_result(vh, a))
        return (s, u, v), (s, u, v)
    s, u, v = ops.svd(a, full_matrices=False, compute_uv=True)
    if a.dtype in _COMPLEX:
        s = ops.real(s)     # (MindSpore's singular values of a complex matrix are complex)
    return (s, u, v), (s, u, v)


def _over_nonzero(num, den):
    """num / den (den real), and 0 where num is exactly 0 and den is 0 or not finite: torch skips the terms of gradients no one asked
    for (U, V of svdvals), where MindSpore hands zeros, which would give 0/0 at repeated or zero singular
    values. Elsewhere the plain quotient, so that its derivative in num stays 1 / den where num is 0 (double
    backward). A complex num is divided part by part (MindSpore's complex Div and Mul have no gradient)."""
    if num.dtype in _COMPLEX:
        return ops.complex_of_parts(_over_nonzero(ops.real(num), den), _over_nonzero(ops.imag(num), den))
    skip = ops.logical_and(ops.equal(num, 0), ops.logical_not(ops.logical_and(ops.isfinite(den), ops.ne(den, 0))))
    return ops.div(num, ops.where(skip, ops.ones_like(den), den))


def _scale(x, r):
    """x * r for a real r; part by part for a complex x (MindSpore's complex Mul has no gradient)."""
    if x.dtype not in _COMPLEX:
        return ops.mul(x, r)
    return ops.complex_of_parts(ops.mul(ops.real(x), r), ops.mul(ops.imag(x), r))


def _like(r, x):
    """The real ``r`` as ``x``'s dtype (complex: zero imaginary part)."""
    return ops.complex_of_parts(r, ops.zeros_like(r)) if x.dtype in _COMPLEX else r


def _zero_or_none(g):
    return g is None or not bool(ops.any(ops.ne(g, 0)))


def _svd_backward(saved, gs, gu, gv):
    """torch's svd_backward (reduced SVD A = U diag(S) V^H, k = min(m, n)), in recorded ops:
    gA = U [skew(U^H gU) S / E + S skew(V^H gV) / E + diag(gS)] V^H, E_ij = S_j^2 - S_i^2 (1 on the
    diagonal), skew(X) = X - X^H, plus the parts of gU (m > n) or gV (m < n) outside the span of U or V.
    Complex matrices add diag(skew(U^H gU)) / 2S (i Im(diag(U^H gU)) / S: the phase of the vectors)."""
    s, u, v = saved
    m, n = u.shape[-2], v.shape[-2]
    if _zero_or_none(gu) and _zero_or_none(gv):
        # singular values alone (svdvals, norms): torch's gA = U diag(gS) V^H, with no S / E terms (whose
        # inf - inf at an infinite singular value would be NaN)
        gs = ops.zeros_like(s) if gs is None else gs
        return _mm(_scale(u, ops.expand_dims(gs, -2)), mH(v))
    s_row, s_col = ops.expand_dims(s, -2), ops.expand_dims(s, -1)
    s2 = ops.mul(s, s)
    eye = eye_like(s_col, s.shape[-1])
    e = ops.add(ops.sub(ops.expand_dims(s2, -2), ops.expand_dims(s2, -1)), eye)
    uhgu, vhgv = _mm(mH(u), gu), _mm(mH(v), gv)
    skew_u = ops.sub(uhgu, mH(uhgu))
    ga = ops.add(_scale(_over_nonzero(skew_u, e), s_row),
                 _scale(_over_nonzero(ops.sub(vhgv, mH(vhgv)), e), s_col))
    if gs is not None:
        ga = ops.add(ga, _like(ops.mul(ops.expand_dims(gs, -1), eye), ga))
    if u.dtype in _COMPLEX:
        ga = ops.add(ga, _over_nonzero(_scale(skew_u, eye), ops.mul(s_row, 2)))
    if m > n:      # gA = [U gA + (I - U U^H) gU S^-1] V^H
        gus = _over_nonzero(gu, s_row)
        ga = ops.sub(ops.add(_mm(u, ga), gus), _mm(u, _mm(mH(u), gus)))
        return _mm(ga, mH(v))
    if m < n:      # gA = U [gA V^H + S^-1 gV^H (I - V V^H)]
        sgv = _over_nonzero(mH(gv), s_col)
        ga = ops.sub(ops.add(_mm(ga, mH(v)), sgv), _mm(_mm(sgv, v), mH(v)))
        return _mm(u, ga)
    return _mm(_mm(u, ga), mH(v))


# MindSpore's Svd backward is not recorded for double backward: matrices that need grad get torch's formula
_svd_node = _node("LinalgSvdBackward0", _svd_fwd, _svd_backward)


def _real(dt):
    return {ms.complex64: ms.float32, ms.complex128: ms.float64}.get(dt, dt)


def svdvals_ms(A):
    if A.size == 0:   # (an empty batch too: MindSpore's Svd takes no empty input)
        return ops.zeros(tuple(A.shape[:-2]) + (min(A.shape[-2], A.shape[-1]),), _real(A.dtype))
    a = _svd_host(A)
    if a is not None:
        return host_result(host_svd(a, False), _real_np(A))
    return ms_svd(A, compute_uv=False)


@register("linalg.svdvals", family=F, namespace="linalg", out=True)
def svdvals(A, *, driver=None):
    _svd_check(A, driver)
    return svdvals_ms(A)


# --- eigh / eigvalsh (LAPACK through NumPy on the host) -------------------------------------------

def _eigh_host(a, uplo):
    try:
        w, v = np.linalg.eigh(read_host(a), UPLO=uplo)
    except np.linalg.LinAlgError:   # (LAPACK's failure: torch's LinAlgError, without its error code)
        raise LinAlgError("linalg.eigh: The algorithm failed to converge because the input matrix is "
                          "ill-conditioned or has too many repeated eigenvalues") from None
    return ms.Tensor(np.ascontiguousarray(w).astype(_real_np(a))), ms.Tensor(np.ascontiguousarray(v).astype(
        read_host(a).dtype))


def _real_np(a):
    return np.float32 if a.dtype in (ms.float32, ms.complex64) else np.float64


def _eigh_backward(saved, gw, gv):
    # gA = V (diag(gL) + sym-part of V^H gV divided by (L_j - L_i)) V^H, torch's formula for real inputs
    w, v = saved
    vhgv = _mm(mH(v), gv)
    diff = ops.sub(ops.expand_dims(w, -2), ops.expand_dims(w, -1))   # E_ij = L_j - L_i
    eye = eye_like(vhgv)
    # (the eigenvector term where gV is 0: torch skips it when only the eigenvalues are used, so NaN
    # eigenvalue gaps give no NaN there)
    inner = _over_nonzero(ops.mul(ops.sub(vhgv, mH(vhgv)), 0.5), ops.add(diff, eye))
    inner = ops.add(ops.mul(inner, ops.sub(1, eye)), ops.mul(ops.expand_dims(gw, -1), eye))
    return _mm(_mm(v, inner), mH(v))


def _eigh_fwd(uplo):
    def fwd(a):
        w, v = _eigh_host(a, uplo)
        return (w, v), (w, v)
    return fwd


_eigh_nodes = {u: _node("LinalgEighBackward0", _eigh_fwd(u), _eigh_backward) for u in ("L", "U")}


def _eigh_check(A, UPLO):
    if UPLO not in ("L", "U", "l", "u"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    # torch's order: rank, squareness (worded as linalg.eigh's for eigvalsh too), then its kernel's dtypes
    if A.ndim < 2:
        raise RuntimeError("linalg.eigh: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.eigh: A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")
    if A.size:   # (torch answers an empty input without its kernel, in the input's own dtype)
        need_lapack_dtype(A, "linalg_eigh_cpu")
    return UPLO.upper()


def _eigh_empty(A):
    """linalg.eigh of an empty batch: eigenvalues (real for complex input) and eigenvectors, both empty."""
    w = ops.zeros(tuple(A.shape[:-1]), _real(A.dtype) if A.dtype in _COMPLEX else A.dtype)
    return w, ops.zeros(tuple(A.shape), A.dtype)


@register("linalg.eigh", family=F, namespace="linalg", out="tuple",
          note="computed by LAPACK through NumPy on the host; eigenvectors may differ from torch's by sign")
def eigh(A, UPLO="L"):
    uplo = _eigh_check(A, UPLO)
    if A.size == 0 and not needs_grad(A):
        return eigh_rt(*_eigh_empty(A))
    if needs_grad(A):
        return eigh_rt(*_eigh_nodes[uplo](A))
    return eigh_rt(*_eigh_host(A, uplo))


@register("linalg.eigvalsh", family=F, namespace="linalg", out=True)
def eigvalsh(A, UPLO="L"):
    uplo = _eigh_check(A, UPLO)
    if A.size == 0 and not needs_grad(A):
        return _eigh_empty(A)[0]
    if needs_grad(A):
        return _eigh_nodes[uplo](A)[0]
    return _eigh_host(A, uplo)[0]


# --- eig / eigvals (MindSpore's Eig kernel; no backward) ----------------------------------------

def _eig_check(A, name):
    if dtype_of(A)._cat < D._FLOAT:
        raise RuntimeError(f"Unknown Complex ScalarType for {_scalar_name(A)}")
    check_matrix(A, name, square=True, kernel="linalg_eig_out_cpu")
    if needs_grad(A):
        # (no backend name in the text: _bind would take it for a backend error and rewrap it)
        raise NotImplementedError(f"mstorch.{name}: the gradient of torch.{name} is not supported (the Eig "
                                  "kernel has no backward); call it under torch.no_grad() or on a detached tensor")


_TO_COMPLEX = {ms.float32: ms.complex64, ms.float64: ms.complex128}


@register("linalg.eig", family=F, namespace="linalg", out="tuple",
          note="no gradient; eigenvalues may come in another order than torch's (LAPACK's order is unspecified)")
def eig(A):
    _eig_check(A, "linalg.eig")
    w, v = ops.eig(A)
    # MindSpore's vectors are not normalised as LAPACK's: unit 2-norm columns
    norms = ops.sqrt(ops.sum(ops.real(ops.mul(v, ops.conj(v))), -2, True))
    return eig_rt(w, ops.div(v, cast(norms, v.dtype)))


@register("linalg.eigvals", family=F, namespace="linalg", out=True,
          note="no gradient; eigenvalues may come in another order than torch's")
def eigvals(A):
    _eig_check(A, "linalg.eigvals")
    return ops.eigvals(A)


# --- solve_triangular ---------------------------------------------------------------------------

@register("linalg.solve_triangular", family=F, namespace="linalg", out=True)
def solve_triangular(A, B, *, upper=None, left=True, unitriangular=False):
    if upper is None:
        raise TypeError('linalg_solve_triangular() missing 1 required positional arguments: "upper"')
    for t, arg in ((A, "A"), (B, "B")):
        if t.ndim < 2:
            raise RuntimeError(f"linalg.solve_triangular: The input tensor {arg} must have at least 2 dimensions.")
    # (torch's order: the shapes, then the kernel's dtype, then the dtypes' agreement)
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.solve_triangular: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    k = B.shape[-2] if left else B.shape[-1]
    if A.shape[-1] != k:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"linalg.solve_triangular: Incompatible shapes of A and B for the equation {eq} "
                           f"({A.shape[-2]}x{A.shape[-1]} and {B.shape[-2]}x{B.shape[-1]})")
    need_lapack_dtype(A, "triangular_solve_cpu")
    if A.dtype != B.dtype:
        raise RuntimeError(f"linalg.solve_triangular: Expected A and B to have the same dtype, but found A of type "
                           f"{_scalar_name(A)} and B of type {_scalar_name(B)} instead")
    check_matrix(A, "linalg.solve_triangular", square=True)
    return trsolve(A, B, upper, left, unitriangular)


# --- pinv, matrix_rank, lstsq (compositions over SVD / eigh) -----------------------------------------

_EPS = {ms.float32: float(np.finfo(np.float32).eps), ms.float64: float(np.finfo(np.float64).eps),
        ms.complex64: float(np.finfo(np.float32).eps), ms.complex128: float(np.finfo(np.float64).eps)}


def _tol(s_max, A, atol, rtol):
    """torch's cutoff max(atol, rtol * sigma_max); rtol defaults to eps * max(m, n) unless atol > 0."""
    def as_t(x):
        return x if isinstance(x, ms.Tensor) else ms.Tensor(float(x), s_max.dtype)
    if rtol is None:
        zero_atol = atol is None or (not isinstance(atol, ms.Tensor) and atol <= 0)
        rtol = _EPS[A.dtype] * max(A.shape[-2], A.shape[-1]) if zero_atol else 0.0
    tol = ops.mul(as_t(rtol), s_max)
    if atol is not None:
        tol = ops.maximum(as_t(atol), tol)
    return tol


def _pinv_value(A, atol, rtol, hermitian):
    if hermitian:
        w, v = _eigh_host(A, "L")
        absw = ops.abs(w)
        tol = _tol(ops.amax(absw, -1, True), A, atol, rtol)
        keep = ops.gt(absw, tol)
        inv = ops.where(keep, ops.div(1, ops.where(keep, w, ops.ones_like(w))), ops.zeros_like(w))
        return _mm(ops.mul(v, ops.expand_dims(cast(inv, v.dtype), -2)), mH(v))
    s, u, v = svd_parts(A)
    tol = _tol(ops.amax(s, -1, True), A, atol, rtol)
    keep = ops.gt(s, tol)
    inv = ops.where(keep, ops.div(1, ops.where(keep, s, ops.ones_like(s))), ops.zeros_like(s))
    return _mm(ops.mul(v, ops.expand_dims(cast(inv, v.dtype), -2)), mH(u))


def pinv_backward(g, p, a):
    """torch's gradient of P = pinv(A), which treats P as the exact pseudo-inverse at A (so also for
    cut-off singular values and hermitian=True)."""
    m, n = a.shape[-2], a.shape[-1]
    ph, gh = mH(p), mH(g)
    if m <= n:
        k = _mm(gh, p)
        kph = _mm(k, ph)
        r = ops.add(ops.sub(kph, mH(_mm(p, k))), _mm(_mm(ph, p), ops.sub(gh, _mm(k, a))))
        return ops.sub(r, _mm(_mm(a, p), kph))
    k = _mm(p, gh)
    phk = _mm(ph, k)
    r = ops.add(ops.sub(_mm(_mm(ops.sub(gh, _mm(a, k)), p), ph), mH(_mm(k, p))), phk)
    return ops.sub(r, _mm(_mm(phk, p), a))


@register("linalg.pinv", family=F, namespace="linalg", out=True)
def pinv(A, *, atol=None, rtol=None, hermitian=False, rcond=None):
    if isinstance(atol, (int, float)) and rtol is None and rcond is None:
        # torch's overload for a number atol sizes its default rtol by A's matrix dims and the dtype's
        # epsilon before any other check
        if A.ndim < 2:
            raise IndexError("Dimension specified as -2 but tensor has no dimensions" if A.ndim == 0 else
                             "Dimension out of range (expected to be in range of [-1, 0], but got -2)")
        if A.dtype not in (ms.float32, ms.float64, ms.complex64, ms.complex128):
            raise RuntimeError("This function doesn't handle types other than float and double")
    if dtype_of(A)._cat < D._FLOAT or A.ndim < 2 or A.dtype in (ms.float16, ms.bfloat16):
        raise RuntimeError(f"linalg.pinv({_scalar_name(A)}{{{list(A.shape)}}}): expected a tensor with 2 or more "
                           "dimensions of float, double, cfloat or cdouble types")
    if rcond is not None:
        rtol = rcond
    if A.size == 0:
        return ops.zeros(tuple(A.shape[:-2]) + (A.shape[-1], A.shape[-2]), A.dtype)
    if not needs_grad(A):
        return _pinv_value(A, atol, rtol, hermitian)

    def fwd(a):
        p = _pinv_value(a, atol, rtol, hermitian)
        return p, (a, p)
    return _node("LinalgPinvBackward0", fwd, lambda saved, g: pinv_backward(g, saved[1], saved[0]))(A)


@register("linalg.matrix_rank", family=F, namespace="linalg", out=True)
def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None):
    if tol is not None:
        atol, rtol = tol, 0.0
    # torch looks up the dtype's epsilon only for a default rtol; otherwise an empty input is rank 0
    # whatever its dtype, and a non-empty one meets the SVD's (eigh's) own checks
    if rtol is None and A.dtype not in (ms.float32, ms.float64, ms.complex64, ms.complex128):
        raise RuntimeError("This function doesn't handle types other than float and double")
    if A.ndim < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor A must have at least 2 dimensions.")
    if A.size == 0:
        return ops.zeros(tuple(A.shape[:-2]), ms.int64)
    check_matrix(A, "linalg.eigh" if hermitian else "linalg.svd",
                 kernel="linalg_eigh_cpu" if hermitian else "linalg_svd_cpu")
    a = ops.stop_gradient(A)
    s = ops.abs(eigvalsh(a)) if hermitian else svdvals_ms(a)
    tol_ = _tol(ops.amax(s, -1, True), A, atol, rtol)
    return ops.sum(cast(ops.gt(s, tol_), ms.int64), -1)


_LSTSQ_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


@register("linalg.lstsq", family=F, namespace="linalg",
          note="solved through the SVD (the minimum-norm solution, as gelsy/gelsd/gelss give)")
def lstsq(A, B, rcond=None, *, driver=None):
    if driver is not None and driver not in _LSTSQ_DRIVERS:
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    if A.dtype not in (ms.float32, ms.float64, ms.complex64, ms.complex128):
        raise RuntimeError("This function doesn't handle types other than float and double")
    check_matrix(A, "torch.linalg.lstsq")
    if A.dtype != B.dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got "
                           f"input's dtype {_scalar_name(A)} and other's dtype {_scalar_name(B)}")
    if not 0 <= A.ndim - B.ndim <= 1:
        raise RuntimeError("torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and "
                           "(input.dim() - other.dim()) <= 1")
    # torch's vector right-hand side: 1-d, or A's shape without its last dim; else a (batched) matrix
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    b = ops.expand_dims(B, -1) if vector else B
    if A.shape[-2] != b.shape[-2]:
        raise RuntimeError(f"torch.linalg.lstsq: input.size(-2) should match other.size({-1 if vector else -2})")
    # torch's message for batches that differ; a matrix B one dim short of A is checked (in torch's
    # result-shape step) as if its leading dims were A's batch
    _broadcast_batch(tuple(A.shape[:-2]), tuple(B.shape[:-1] if A.ndim - B.ndim == 1 else b.shape[:-2]))
    driver = driver or "gelsy"
    m, n = A.shape[-2], A.shape[-1]
    if rcond is None or rcond < 0:
        rtol = _EPS[A.dtype] * max(m, n)
    else:
        rtol = rcond
    a = host_array(A) if A.size and b.size else None
    if A.size and b.size:
        _lapack_lstsq_checks(read_host(A), read_host(b), driver)
    if A.size == 0 or b.size == 0:   # (no SVD kernel for empty input): a zero solution, no singular value
        batch = tuple(np.broadcast_shapes(tuple(A.shape[:-2]), tuple(b.shape[:-2])))
        x = ops._empty_product(A, b, batch + (n, b.shape[-1]))
        s = ops.zeros(batch + (min(m, n),), _real(A.dtype))
        keep = ops.zeros(batch + (min(m, n),), ms.bool_)
    elif a is not None and not needs_grad(B):
        s, keep, x = _lstsq_host(a, read_host(b), rtol, A)
    else:
        s, u, v = svd_parts(A, "linalg.lstsq")
        keep = ops.gt(s, ops.mul(ops.amax(ops.stop_gradient(s), -1, True), rtol))
        inv = ops.where(keep, ops.div(1, ops.where(keep, s, ops.ones_like(s))), ops.zeros_like(s))
        x = _mm(_scale(v, ops.expand_dims(inv, -2)), _mm(mH(u), b))
    rank = ops.sum(cast(keep, ms.int64), -1)
    empty = ops.zeros((0,), _real(A.dtype))
    if driver == "gels":
        rank = ops.zeros((0,), ms.int64)
    svals = ops.stop_gradient(s) if driver in ("gelsd", "gelss") else empty
    # torch's residuals are an output of the differentiable node even when empty (they require grad)
    residuals = _on_graph(empty, x) if needs_grad(A) or needs_grad(B) else empty
    # residuals only where LAPACK gives them: m > n, a full-rank A, and a driver other than gelsy
    if m > n and driver != "gelsy" and (driver == "gels" or bool(ops.all(ops.equal(rank, n)))):
        r = ops.sub(_mm(A, x), b)
        residuals = ops.sum(ops.real(ops.mul(r, ops.conj(r))) if r.dtype in _COMPLEX else ops.square(r), -2)
    if vector:
        x = ops.squeeze(x, -1)
    return lstsq_rt(x, residuals, rank, svals)


# where the (1-based) arguments A and B sit in LAPACK's drivers: ?gels(trans, m, n, nrhs, a, lda, b, ...)
_LSTSQ_ARGS = {"gels": (5, 7), "gelsy": (4, 6), "gelsd": (4, 6), "gelss": (4, 6)}


def _lapack_lstsq_checks(a, b, driver):
    """torch's errors from its LAPACK (MKL) call, batch element by batch element: MKL refuses a NaN in A,
    then (unless A is all zeros: x = 0 without looking at B) a NaN in B, as an illegal argument, which
    torch reports as an internal assert (gelsd also an infinite entry of A, NaN once A is scaled); gels stops at an exact zero on the diagonal of its triangular
    factor (not full rank)."""
    batch = _broadcast_batch(a.shape[:-2], b.shape[:-2])
    flat_a = np.broadcast_to(a, batch + a.shape[-2:]).reshape((-1,) + a.shape[-2:])
    flat_b = np.broadcast_to(b, batch + b.shape[-2:]).reshape((-1,) + b.shape[-2:])
    arg_a, arg_b = _LSTSQ_ARGS[driver]
    for i, (ai, bi) in enumerate(zip(flat_a, flat_b)):
        where = f"(Batch element {i}): " if batch else ""
        arg = arg_a if np.isnan(ai).any() else arg_b if ai.any() and np.isnan(bi).any() else \
            arg_a if driver == "gelsd" and np.isinf(ai).any() else None   # (gelsd: NaN after scaling A)
        if arg is not None:
            raise RuntimeError(
                'false INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp"'
                f":1613, please report a bug to PyTorch. torch.linalg.lstsq: {where}Argument {arg} has illegal "
                "value. Most certainly there is a bug in the implementation calling the backend library.")
        k = _gels_zero_pivot(ai) if driver == "gels" else 0
        if k:
            raise LinAlgError(f"torch.linalg.lstsq: {where}The least squares solution could not be computed "
                              f"because the input matrix does not have full rank (error code: {k}).")


def _gels_zero_pivot(a):
    """The 1-based index of the first exact zero on the diagonal of gels' factor (R of A's QR when A is
    tall, L of its LQ when wide), 0 if none. An all-zero A is solved without factoring (x = 0). An
    infinite entry makes gels scale A by 0 (finite entries 0, infinite ones NaN); a reflector then is
    the identity while its column below the diagonal is zero (its diagonal stays 0 or NaN) and turns
    every later column to NaN once that part holds a NaN."""
    t = a if a.shape[0] >= a.shape[1] else a.T.conj()
    if np.isfinite(t).all():
        if not t.any():
            return 0
        d = np.diagonal(np.linalg.qr(t, mode="r"))
        zero = np.flatnonzero(d == 0)
        return int(zero[0]) + 1 if zero.size else 0
    t = np.where(np.isinf(t), np.nan, 0.0)
    for k in range(t.shape[1]):
        if np.isnan(t[k + 1:, k]).any():
            return 0
        if t[k, k] == 0:
            return k + 1
    return 0


def _lstsq_host(a, b, rtol, like):
    """(singular values, kept, solution) of lstsq on the host (inputs with huge or non-finite entries), in
    double precision, rounded to ``like``'s dtype once at the end: in float32 the solution of a matrix with
    an entry near the float32 maximum is subnormal, and MindSpore's kernel threads flush subnormals to
    zero (the result then depended on which thread ran the product)."""
    wide = np.complex128 if np.iscomplexobj(a) else np.float64
    u, s, vh = host_svd(a.astype(wide), True, name="linalg.lstsq")
    keep = s > s.max(axis=-1, keepdims=True) * rtol
    inv = np.where(keep, 1 / np.where(keep, s, 1), 0)
    x = np.swapaxes(vh, -1, -2).conj() @ (inv[..., :, None] * (np.swapaxes(u, -1, -2).conj() @ b.astype(wide)))
    return host_result(s, _real_np(like)), ms.Tensor(keep), host_result(x, like)


def _on_graph(empty, t):
    """``empty`` (no elements) as a function of ``t``: it requires grad, and nothing flows back through it."""
    link = ops.mul(ops.sum(ops.real(t) if t.dtype in _COMPLEX else t), 0)
    return ops.broadcast_to(cast(link, empty.dtype).reshape(1), tuple(empty.shape))


@register("linalg.householder_product", family=F, namespace="linalg", out=True)
def householder_product(A, tau):
    """The first n columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^H, with v_i column i of A below the
    diagonal and 1 on it (LAPACK's orgqr/ungqr, which MindSpore 2.10 has no CPU kernel for): the
    reflectors applied right to left to the identity's first n columns, in MindSpore ops (so with
    gradients to A and tau)."""
    name = "torch.linalg.householder_product"
    if A.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if tau.ndim != A.ndim - 1:
        raise RuntimeError(f"{name}: Expected tau to have one dimension less than input, but got tau.ndim "
                           f"equal to {tau.ndim} and input.ndim is equal to {A.ndim}")
    m, n, k = A.shape[-2], A.shape[-1], tau.shape[-1]
    if m < n:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if n < k:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if tuple(tau.shape[:-1]) != tuple(A.shape[:-2]):
        raise RuntimeError(f"{name}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
                           f"{list(tau.shape[:-1])}")
    if tau.dtype != A.dtype:
        raise RuntimeError(f"{name}: tau dtype {_scalar_name(tau)} does not match input dtype {_scalar_name(A)}")
    need_lapack_dtype(A, "orgqr_cpu")
    batch = tuple(A.shape[:-2])
    q = ops.broadcast_to(ops.eye(m, n, A.dtype), batch + (m, n))
    rows = ops.arange(m)
    for i in reversed(range(k)):
        col = A[..., :, i]
        v = ops.where(rows > i, col, ops.where(rows == i, ops.ones((), A.dtype), ops.zeros((), A.dtype)))
        w = _mm(ops.expand_dims(ops.conj(v) if A.dtype in _COMPLEX else v, -2), q)      # v^H Q: (..., 1, n)
        q = q - ops.expand_dims(ops.expand_dims(tau[..., i], -1), -1) * (ops.expand_dims(v, -1) * w)
    return q


# --- torch's older names for the decompositions (torch.cholesky, torch.qr, torch.svd, ...) -----------
# torch keeps them as thin forms of the torch.linalg functions, with a deprecation warning for some

_LEGACY_QR = return_type("qr", ("Q", "R"))
_LEGACY_SVD = return_type("svd", ("U", "S", "V"))
_TRIANGULAR = return_type("triangular_solve", ("solution", "cloned_coefficient"))


def _named(name, fn, *args, **kwargs):
    """Call a torch.linalg implementation; its errors name ``name`` as torch's legacy op does."""
    try:
        return fn(*args, **kwargs)
    except RuntimeError as e:   # (LinAlgError included)
        text = str(e)
        if not text.startswith(f"linalg.{name}:"):
            raise
        raise type(e)(text[len("linalg."):]) from None


@register("cholesky", family=F, out=True)
def legacy_cholesky(input, upper=False):
    warn_once("torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future "
              "PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)\n"
              "and\nU = torch.cholesky(A, upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\n"
              "This transform will produce equivalent results for all valid (symmetric positive definite) inputs.")
    if input.ndim >= 2 and input.size == 0:   # torch answers an empty input as it is, square or not
        if input.dtype in (ms.float16, ms.bfloat16):
            return _empty_half_factor(input, "CholeskyBackward0")
        return ops.zeros(tuple(input.shape), input.dtype)
    if input.ndim >= 2 and input.shape[-1] != input.shape[-2]:   # (before the kernel's dtype check)
        raise RuntimeError(f"cholesky: A must be batches of square matrices, but they are {input.shape[-2]} by "
                           f"{input.shape[-1]} matrices")
    if input.ndim >= 2 and (dtype_of(input)._cat < D._FLOAT or input.dtype in (ms.float16, ms.bfloat16)):
        raise NotImplementedError(f"\"cholesky_cpu\" not implemented for '{_scalar_name(input)}'")
    return _named("cholesky", cholesky, input, upper=upper)


@register("triangular_solve", family=F, out="tuple")
def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False):
    warn_once("torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be removed "
              "in a future PyTorch release.\ntorch.linalg.solve_triangular has its arguments reversed and does not "
              "return a copy of one of the inputs.\nX = torch.triangular_solve(B, A).solution\nshould be replaced "
              "with\nX = torch.linalg.solve_triangular(A, B).")
    for t, arg in ((input, "b"), (A, "A")):
        if t.ndim < 2:
            raise RuntimeError(f"torch.triangular_solve: Expected {arg} to have at least 2 dimensions, but it has "
                               f"{t.ndim} dimensions instead")
    batch = _broadcast_batch(tuple(input.shape[:-2]), tuple(A.shape[:-2]))
    a = ops.broadcast_to(A, batch + tuple(A.shape[-2:])) if tuple(A.shape[:-2]) != batch else A
    x = solve_triangular(mT(a) if transpose else a, input, upper=upper != transpose, unitriangular=unitriangular)
    return _TRIANGULAR(x, a.copy())


@register("qr", family=F, out="tuple")
def legacy_qr(input, some=True):
    warn_once("torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch release.\n"
              "The boolean parameter 'some' has been replaced with a string parameter 'mode'.\nQ, R = torch.qr(A, some)"
              "\nshould be replaced with\nQ, R = torch.linalg.qr(A, 'reduced' if some else 'complete')")
    return _LEGACY_QR(*qr(input, "reduced" if some else "complete"))


@register("svd", family=F, out="tuple")
def legacy_svd(input, some=True, compute_uv=True):
    if input.ndim < 2:
        raise RuntimeError(f"linalg.svd: input should have at least 2 dimensions, but has {input.ndim} dimensions "
                           "instead")
    if not compute_uv:   # torch: zero-filled U (m x m) and V (n x n), whatever ``some`` says
        s = svdvals(input)
        m, n = input.shape[-2], input.shape[-1]
        batch = tuple(input.shape[:-2])
        return _LEGACY_SVD(ops.zeros(batch + (m, m), input.dtype), s, ops.zeros(batch + (n, n), input.dtype))
    u, s, vh = svd(input, full_matrices=not some)
    return _LEGACY_SVD(u, s, mH(vh))


@register("orgqr", family=F, out=True)
def orgqr(input, input2):
    return householder_product(input, input2)
