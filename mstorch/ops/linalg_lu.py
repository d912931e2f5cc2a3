"""torch.linalg's LU and LDL factorisations and their solvers: lu_factor(_ex), lu, lu_unpack, lu_solve,
ldl_factor(_ex), ldl_solve, and torch's older names torch.lu / torch.lu_solve.

MindSpore 2.10 has neither kernel on CPU (its Lu kernel has no CPU build; there is no Bunch-Kaufman
kernel), so both factorisations run LAPACK's algorithms on the host, one family apart from the kernel-backed
decompositions in ``linalg_decomp.py``; their backwards (LU) are torch's formulas in MindSpore ops.
"""

import math

import mindspore as ms
import numpy as np
from .._runtime import read_host
from . import _msops as ops

from .. import _dtype as D
from ._helpers import dtype_of, _scalar_name, cast
from ._registry import register
from .products import _broadcast_batch, _mm, _node
from .reduction import return_type, needs_grad
from .._warnings import warn_once
from .linalg_decomp import (F, LinAlgError, _batch_prefix, host_result, mH, need_lapack_dtype, trsolve,
                            _trsm_div)


# --- LU: lu_factor(_ex), lu, lu_unpack, lu_solve (MindSpore 2.10's Lu kernel has no CPU build) --------
# The factorisation is LAPACK's getrf algorithm (partial pivoting, the first largest |a| as pivot, a zero
# pivot reported in info and left unscaled) run on the host; its backward is torch's formula in MindSpore
# ops. Pivots are LAPACK's: 1-based int32 row interchanges.

lu_factor_rt = return_type("linalg_lu_factor", ("LU", "pivots"))
lu_factor_ex_rt = return_type("linalg_lu_factor_ex", ("LU", "pivots", "info"))
lu_rt = return_type("linalg_lu", ("P", "L", "U"))
lu_unpack_rt = return_type("lu_unpack", ("P", "L", "U"))
_lu_with_info_rt = return_type("_lu_with_info", ("LU", "pivots", "info"))


def _getrf(a):
    """(LU, pivots, info) of a host batch (B, m, n), as LAPACK's getrf in torch's MKL: multipliers by the
    pivot's reciprocal (a division where one entry is below the pivot of a square matrix up to 4x4, and
    for a subnormal pivot), the trailing update fused (one rounding of a - l u, so an exactly dependent
    row leaves a tiny nonzero residue rather than a zero pivot)."""
    a = a.copy()
    nb, m, n = a.shape
    k = min(m, n)
    piv = np.zeros((nb, k), np.int32)
    info = np.zeros(nb, np.int32)
    rows = np.arange(nb)
    small = m == n and n <= 4
    with np.errstate(all="ignore"):
        for j in range(k):
            col = a[:, j:, j]
            mag = np.abs(col.real) + np.abs(col.imag) if np.iscomplexobj(a) else np.abs(col)
            # LAPACK's i?amax: the first maximum; a NaN wins only in first place (later ones compare false)
            p = np.where(np.isnan(mag[:, 0]), 0, np.argmax(np.where(np.isnan(mag), -1, mag), axis=1)) + j
            piv[:, j] = p + 1
            top = a[rows, j].copy()
            a[rows, j] = a[rows, p]
            a[rows, p] = top
            d = a[:, j, j]
            zero = d == 0
            info[(info == 0) & zero] = j + 1
            d = np.where(zero, 1, d)[:, None]
            divide = (small and m - j - 1 == 1) | (np.abs(d) < (np.finfo(a.dtype).tiny if a.dtype.kind in "fc" else 1))
            a[:, j + 1:, j] = np.where(divide, _div(a[:, j + 1:, j], d), a[:, j + 1:, j] * _div(np.ones_like(d), d))
            a[:, j + 1:, j + 1:] = _fma_sub(a[:, j + 1:, j + 1:], a[:, j + 1:, j, None], a[:, j, None, j + 1:])
    return a, piv, info


def _div(x, d):
    """x / d as MKL divides: complex quotients scaled by |re| + |im| of the divisor, so an infinite pivot
    gives NaN multipliers (NumPy's Smith quotient gives 0 there and hides the inf)."""
    return _trsm_div(x, d) if np.iscomplexobj(d) else x / d


def _fma_sub(z, x, y):
    """z - x y rounded once (a fused multiply-add): float32 through float64, float64 by an exact product
    (Dekker's split) and an exact sum; complex and non-finite values as z - x y."""
    plain = z - x * y
    if z.dtype == np.float32:
        return (z.astype(np.float64) - x.astype(np.float64) * y.astype(np.float64)).astype(np.float32)
    if z.dtype != np.float64:
        return plain
    x, y = np.broadcast_arrays(x, y)
    p = x * y
    xh, xl = _split(x)
    yh, yl = _split(y)
    e = ((xh * yh - p) + xh * yl + xl * yh) + xl * yl   # x y = p + e exactly
    s = z - p
    t = s - z
    err = (z - (s - t)) - (p + t)                       # z - p = s + err exactly
    r = s + (err - e)
    return np.where(np.isfinite(r), r, plain)


def _split(v):
    c = 134217729.0 * v   # 2^27 + 1
    hi = c - (c - v)
    return hi, v - hi


def host_lu_solve(a, b, trans="N"):
    """A^-1 B (trans "T": A^-T B, "C": A^-H B) for host batches a (B, n, n), b (B, n, k), as torch's solve
    runs LAPACK: getrf, then getrs' row interchanges and triangular solves (no entry skipped: NaN and inf
    spread as there, 0 * inf included)."""
    lu, piv, _ = _getrf(a)
    x = b.copy()
    n = a.shape[-1]
    rows = np.arange(a.shape[0])
    with np.errstate(all="ignore"):
        if trans == "N":
            for j in range(n):
                _swap_rows(x, rows, j, piv[:, j] - 1)
            for k in range(n):               # L (unit lower), column by column
                x[:, k + 1:] -= x[:, k][:, None, :] * lu[:, k + 1:, k, None]
            for k in range(n - 1, -1, -1):   # U
                x[:, k] /= lu[:, k, k, None]
                x[:, :k] -= x[:, k][:, None, :] * lu[:, :k, k, None]
            return x
        h = np.conj(lu) if trans == "C" else lu
        for i in range(n):                   # U^T (U^H), row by row
            x[:, i] = (x[:, i] - np.einsum("bk,bkc->bc", h[:, :i, i], x[:, :i])) / h[:, i, i, None]
        for i in range(n - 1, -1, -1):       # L^T (L^H), unit
            x[:, i] = x[:, i] - np.einsum("bk,bkc->bc", h[:, i + 1:, i], x[:, i + 1:])
        for j in range(n - 1, -1, -1):
            _swap_rows(x, rows, j, piv[:, j] - 1)
    return x


def _swap_rows(x, rows, j, p):
    top = x[:, j].copy()
    x[:, j] = x[rows, p]
    x[rows, p] = top


def _permutation(piv, m, dtype, batch):
    """P (batch + (m, m)) with A = P L U, from LAPACK's row interchanges (host pivots, batch + (k,))."""
    nb = math.prod(batch)
    piv = piv.reshape((nb, piv.shape[-1]))
    perm = np.tile(np.arange(m), (nb, 1))
    rows = np.arange(nb)
    for i in range(piv.shape[1]):
        j = piv[:, i] - 1
        top = perm[:, i].copy()
        perm[:, i] = perm[rows, j]
        perm[rows, j] = top
    p = np.zeros((nb, m, m), dtype)
    p[rows[:, None], perm, np.arange(m)[None, :]] = 1
    return ms.Tensor(p.reshape(tuple(batch) + (m, m)))


def _unpack(lu, m, n):
    k = min(m, n)
    if lu.size == 0:   # (MindSpore's kernels fault on empty matrices)
        batch = tuple(lu.shape[:-2])
        return ops.zeros(batch + (m, k), lu.dtype), ops.zeros(batch + (k, n), lu.dtype)
    l = ops.add(ops.tril(lu[..., :, :k], -1), ops.eye(m, k, lu.dtype))
    return l, ops.triu(lu[..., :k, :])


def _lu_backward(saved, g):
    # torch's formula, from A = P L U with L unit lower (m x k), U upper (k x n), k = min(m, n)
    lu, p = saved
    m, n = lu.shape[-2], lu.shape[-1]
    l, u = _unpack(lu, m, n)
    gl, gu = ops.tril(g[..., :, :min(m, n)], -1), ops.triu(g[..., :min(m, n), :])
    if m == n:
        x = ops.add(ops.tril(_mm(mH(l), gl), -1), ops.triu(_mm(gu, mH(u))))
        return _mm(p, trsolve(mH(u), trsolve(mH(l), x, upper=True, unitriangular=True), upper=False, left=False))
    if m < n:
        # wide: U = [U1 | U2]; as torch orders it, only the strictly lower part (L^H gL - gU U^H) goes
        # through U1^-H and gU1 is added after (gU1 U1^H U1^-H could overflow where gU1 does not)
        u1, gu1, gu2 = u[..., :, :m], gu[..., :, :m], gu[..., :, m:]
        x = ops.tril(ops.sub(_mm(mH(l), gl), _mm(gu, mH(u))), -1)
        ga = ops.cat((ops.add(trsolve(mH(u1), x, upper=False, left=False), gu1), gu2), -1)
        return _mm(p, trsolve(mH(l), ga, upper=True, unitriangular=True))
    # tall: L = [L1; L2], L2 = B2 U^-1 feeds U too
    l1, l2, gl1, gl2 = l[..., :n, :], l[..., n:, :], gl[..., :n, :], gl[..., n:, :]
    x = ops.add(ops.tril(_mm(mH(l1), gl1), -1), ops.triu(ops.sub(_mm(gu, mH(u)), _mm(mH(l2), gl2))))
    gb1 = trsolve(mH(u), trsolve(mH(l1), x, upper=True, unitriangular=True), upper=False, left=False)
    gb2 = trsolve(mH(u), gl2, upper=False, left=False)
    return _mm(p, ops.cat((gb1, gb2), -2))


def _lu_check(A, name, pivot):
    if A.ndim < 2:
        raise RuntimeError(f"{name}: Expected tensor with 2 or more dimensions. Got size: {list(A.shape)} instead")
    if A.size:
        need_lapack_dtype(A, "lu_cpu")   # (an empty input never reaches the kernel)
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")


def _lu_factor(A):
    """(LU tensor, host pivots (batch, k), host info (batch,), P tensor or None when not needed)."""
    m, n = A.shape[-2], A.shape[-1]
    batch = tuple(A.shape[:-2])
    a = read_host(A)
    if a.size == 0:   # nothing to factor (any dtype: torch checks it only for the kernel)
        k = min(m, n)
        lu, piv, info = a, np.zeros(batch + (k,), np.int32), np.zeros(batch, np.int32)
    else:
        lu, piv, info = _getrf(a.reshape((math.prod(batch), m, n)))
    host = host_result(lu.reshape(a.shape), A)
    if host.dtype != A.dtype:   # (an empty bfloat16 matrix reads back as NumPy float64; torch keeps bfloat16)
        host = cast(host, A.dtype)
    out = host
    if needs_grad(A):
        p = _permutation(piv, m, a.dtype, batch)
        out = _node("LinalgLuFactorExBackward0", lambda x: (host, (host, p)), _lu_backward)(A)
    return out, piv.reshape(batch + (min(m, n),)), info.reshape(batch)


@register("linalg.lu_factor_ex", family=F, namespace="linalg", out=True)
def lu_factor_ex(A, *, pivot=True, check_errors=False):
    _lu_check(A, "torch.lu_factor", pivot)
    lu, piv, info = _lu_factor(A)
    if check_errors and (info < 0).any():   # (LAPACK's illegal-argument codes; a zero pivot is no error)
        raise LinAlgError("linalg.lu_factor_ex: illegal argument")
    return lu_factor_ex_rt(lu, ms.Tensor(piv), ms.Tensor(info))


@register("linalg.lu_factor", family=F, namespace="linalg", out=True)
def lu_factor(A, *, pivot=True):
    _lu_check(A, "torch.lu_factor", pivot)
    lu, piv, info = _lu_factor(A)
    bad = np.flatnonzero(info.reshape(-1))
    if bad.size:
        b = int(bad[0])
        i = int(info.reshape(-1)[b])
        raise RuntimeError(f"torch.linalg.lu_factor: {_batch_prefix(A, b)}U[{i},{i}] is zero and using it on "
                           "lu_solve would result in a division by zero. If you still want to perform the "
                           "factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")
    return lu_factor_rt(lu, ms.Tensor(piv))


@register("lu_unpack", family=F, namespace="torch", out=True)
def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    if LU_pivots.dtype != ms.int32:
        raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.\n"
                           "Note: this function is intended to be used with the output produced by "
                           "torch.linalg.lu_factor")
    if LU_data.ndim < 2:
        raise RuntimeError(f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(LU_data.shape)} instead")
    m, n = LU_data.shape[-2], LU_data.shape[-1]
    empty = ops.zeros((0,), LU_data.dtype)
    l, u = _unpack(LU_data, m, n) if unpack_data else (empty, empty)
    p = empty
    if unpack_pivots:
        batch = tuple(LU_data.shape[:-2])
        piv = read_host(LU_pivots)
        if piv.size and (piv.min() < 1 or piv.max() > m):
            raise RuntimeError("torch.lu_unpack: pivots out of range")
        p = _permutation(piv, m, dtype_of(LU_data)._np, batch)
    return lu_unpack_rt(p, l, u)


@register("linalg.lu", family=F, namespace="linalg", out=True)
def lu(A, *, pivot=True):
    _lu_check(A, "linalg.lu", pivot)
    m, n = A.shape[-2], A.shape[-1]
    lu_, piv, _ = _lu_factor(A)
    l, u = _unpack(lu_, m, n)
    batch = tuple(A.shape[:-2])
    p = _permutation(piv, m, dtype_of(A)._np, batch)
    return lu_rt(p if p.dtype == A.dtype else cast(p, A.dtype), l, u)


def _check_factor_and_rhs(name, factor, factor_arg, B):
    """torch's checks of a solve from a factorisation: both at least 2-D, the factor square."""
    for t, arg in ((factor, factor_arg), (B, "B")):
        if t.ndim < 2:
            raise RuntimeError(f"{name}: The input tensor {arg} must have at least 2 dimensions.")
    if factor.shape[-1] != factor.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {factor.shape[-2]} by "
                           f"{factor.shape[-1]} matrices")


@register("linalg.lu_solve", family=F, namespace="linalg", out=True)
def lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    name = "linalg.lu_solve"
    _check_factor_and_rhs(name, LU, "LU", B)
    k = B.shape[-2] if left else B.shape[-1]
    if LU.shape[-1] != k:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation {eq} ({LU.shape[-2]}x"
                           f"{LU.shape[-1]} and {B.shape[-2]}x{B.shape[-1]})")
    if LU.dtype != B.dtype:
        raise RuntimeError(f"{name}: Expected LU and B to have the same dtype, but found LU of type "
                           f"{_scalar_name(LU)} and B of type {_scalar_name(B)} instead")
    if pivots.dtype != ms.int32:
        raise RuntimeError(f"{name}: pivots should be a Tensor of scalar type torch.int32")
    need_lapack_dtype(LU, "lu_solve_cpu")
    if not left:   # X A = B  <=>  A^H X^H = B^H
        return mH(lu_solve(LU, pivots, mH(B), adjoint=not adjoint))
    m = LU.shape[-1]
    piv = read_host(pivots)
    order = _row_order(piv, m)
    l, u = _unpack(LU, m, m)
    if adjoint:   # A^H = U^H L^H P^T: X = P L^-H U^-H B
        y = trsolve(mH(l), trsolve(mH(u), B, upper=False), upper=True, unitriangular=True)
        return _take_rows(y, np.argsort(order, axis=-1))
    return trsolve(u, trsolve(l, _take_rows(B, order), upper=False, unitriangular=True), upper=True)


def _row_order(piv, m):
    """perm (batch + (m,)) with P^T B = B[perm], from LAPACK's row interchanges (host pivots, batch + (k,))."""
    batch = piv.shape[:-1]
    flat = piv.reshape((-1, piv.shape[-1]))
    perm = np.tile(np.arange(m), (flat.shape[0], 1))
    rows = np.arange(flat.shape[0])
    for i in range(flat.shape[1]):
        j = flat[:, i] - 1
        top = perm[:, i].copy()
        perm[:, i] = perm[rows, j]
        perm[rows, j] = top
    return perm.reshape(batch + (m,))


def _take_rows(x, order):
    """x's rows in the host ``order`` (batches broadcast): a gather, not a product with the permutation
    matrix, whose zeros would turn an inf or NaN of B into NaN in every row (getrs swaps rows)."""
    batch = _broadcast_batch(x.shape[:-2], order.shape[:-1])
    shape = batch + tuple(x.shape[-2:])
    if tuple(x.shape) != shape:
        x = ops.broadcast_to(x, shape)
    if x.size == 0:
        return x
    index = np.broadcast_to(order[..., None], shape).astype(np.int64)
    return ops.gather_elements(x, x.ndim - 2, ms.Tensor(np.ascontiguousarray(index)))


@register("lu", family=F)
def legacy_lu(A, pivot=True, get_infos=False):
    warn_once("torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will be "
              "removed in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced "
              "with\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = torch.lu(A, "
              "compute_pivots, get_infos=True)\nshould be replaced with\nLU, pivots, info = "
              "torch.linalg.lu_factor_ex(A, compute_pivots)")
    r = lu_factor_ex(A, pivot=pivot)
    return _lu_with_info_rt(*r) if get_infos else (r.LU, r.pivots)


@register("lu_solve", family=F, out=True)
def legacy_lu_solve(input, LU_data, LU_pivots):
    warn_once("torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a future "
              "PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed.\nX = torch.lu_solve(B, "
              "LU, pivots)\nshould be replaced with\nX = torch.linalg.lu_solve(LU, pivots, B)")
    return lu_solve(LU_data, LU_pivots, input)


# --- LDL: linalg.ldl_factor(_ex), linalg.ldl_solve (MindSpore 2.10 has no Bunch-Kaufman kernel) --------------
# LAPACK's ?sytf2 / ?hetf2 (uplo "L") run on the host: Bunch-Kaufman pivoting with 1x1 and 2x2 diagonal
# blocks, a zero column reported in info and skipped. The compact result is torch's: L's multipliers and D
# in the lower triangle, the upper triangle zeroed; pivots are LAPACK's 1-based int32 (a 2x2 block's pair
# both -p). Solving is ?sytrs / ?hetrs. torch gives neither a derivative.

ldl_factor_rt = return_type("linalg_ldl_factor", ("LD", "pivots"))
ldl_factor_ex_rt = return_type("linalg_ldl_factor_ex", ("LD", "pivots", "info"))
_BK_ALPHA = (1 + math.sqrt(17)) / 8


def _cabs1(x):
    return abs(x.real) + abs(x.imag) if isinstance(x, complex) or np.iscomplexobj(x) else abs(x)


def _amax(v):
    """LAPACK's i?amax: the index of the first largest |re| + |im| (0 for an empty vector)."""
    if v.size == 0:
        return 0
    return int(np.argmax(np.abs(v.real) + np.abs(v.imag) if np.iscomplexobj(v) else np.abs(v)))


def _bk_pivot(a, k, n, herm):
    """The pivot of step k: (kp, kstep), or None for a zero (or NaN) column."""
    akk = a[k, k]
    absakk = abs(akk.real) if herm else _cabs1(akk)
    imax, colmax = k, 0.0
    if k < n - 1:
        imax = k + 1 + _amax(a[k + 1:, k])
        colmax = _cabs1(a[imax, k])
    if max(absakk, colmax) == 0 or absakk != absakk:
        return None
    if absakk >= _BK_ALPHA * colmax:
        return k, 1
    # the largest off-diagonal entry of row/column imax (the lower triangle holds it)
    rowmax = _cabs1(a[imax, k + _amax(a[imax, k:imax])]) if imax > k else 0.0
    if imax < n - 1:
        rowmax = max(rowmax, _cabs1(a[imax + 1 + _amax(a[imax + 1:, imax]), imax]))
    if absakk >= _BK_ALPHA * colmax * (colmax / rowmax):
        return k, 1
    if (abs(a[imax, imax].real) if herm else _cabs1(a[imax, imax])) >= _BK_ALPHA * rowmax:
        return imax, 1
    return imax, 2


def _bk_swap(a, k, kk, kp, kstep, herm):
    """Interchange rows and columns kk and kp of the trailing (lower) submatrix."""
    cj = np.conj if herm else (lambda x: x)
    a[kp + 1:, [kk, kp]] = a[kp + 1:, [kp, kk]]
    seg = cj(a[kk + 1:kp, kk].copy())
    a[kk + 1:kp, kk] = cj(a[kp, kk + 1:kp])
    a[kp, kk + 1:kp] = seg
    if herm:
        a[kp, kk] = np.conj(a[kp, kk])
    a[kk, kk], a[kp, kp] = a[kp, kp], a[kk, kk]
    if kstep == 2:
        a[k + 1, k], a[kp, k] = a[kp, k], a[k + 1, k]


def _ldl_one(a, herm):
    """?sytf2 / ?hetf2 lower on one host matrix (modified in place); returns (pivots, info)."""
    n = a.shape[0]
    piv = np.zeros(n, np.int32)
    info = 0
    k = 0
    while k < n:
        found = _bk_pivot(a, k, n, herm)
        if found is None:
            info = info or k + 1
            if herm:
                a[k, k] = a[k, k].real
            piv[k] = k + 1
            k += 1
            continue
        kp, kstep = found
        kk = k + kstep - 1
        if kp != kk:
            _bk_swap(a, k, kk, kp, kstep, herm)
        if herm:
            a[k, k] = a[k, k].real
            if kstep == 2:
                a[k + 1, k + 1] = a[k + 1, k + 1].real
        if kstep == 1:
            if k < n - 1:
                x = a[k + 1:, k].copy()
                d11 = 1 / (a[k, k].real if herm else a[k, k])
                outer = np.outer(x, np.conj(x) if herm else x)
                a[k + 1:, k + 1:] -= np.tril(d11 * outer)
                if herm:
                    idx = np.arange(k + 1, n)
                    a[idx, idx] = a[idx, idx].real
                a[k + 1:, k] = x * d11
            piv[k] = kp + 1
        else:
            if k < n - 2:
                _bk_block_update(a, k, n, herm)
            piv[k] = piv[k + 1] = -(kp + 1)
        k += kstep
    return piv, info


def _bk_block_update(a, k, n, herm):
    """The trailing update of a 2x2 pivot block at k (LAPACK's loop, column by column)."""
    if herm:
        d = abs(a[k + 1, k])
        d11 = a[k + 1, k + 1].real / d
        d22 = a[k, k].real / d
        tt = 1 / (d11 * d22 - 1)
        d21 = a[k + 1, k] / d
        d = tt / d
    else:
        d21 = a[k + 1, k]
        d11 = a[k + 1, k + 1] / d21
        d22 = a[k, k] / d21
        d21 = (1 / (d11 * d22 - 1)) / d21
    for j in range(k + 2, n):
        if herm:
            wk = d * (d11 * a[j, k] - d21 * a[j, k + 1])
            wkp1 = d * (d22 * a[j, k + 1] - np.conj(d21) * a[j, k])
            a[j:, j] -= a[j:, k] * np.conj(wk) + a[j:, k + 1] * np.conj(wkp1)
            a[j, j] = a[j, j].real
        else:
            wk = d21 * (d11 * a[j, k] - a[j, k + 1])
            wkp1 = d21 * (d22 * a[j, k + 1] - a[j, k])
            a[j:, j] -= a[j:, k] * wk + a[j:, k + 1] * wkp1
        a[j, k] = wk
        a[j, k + 1] = wkp1


def _ldl_check(A, name):
    if A.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")
    if dtype_of(A)._cat < D._FLOAT:
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got {_scalar_name(A)}")
    need_lapack_dtype(A, "ldl_factor_kernel_cpu")


def _ldl_factor(A, hermitian):
    _ldl_check(A, "torch.linalg.ldl_factor_ex")
    n = A.shape[-1]
    batch = tuple(A.shape[:-2])
    a = read_host(A).reshape((-1, n, n)).copy()
    herm = hermitian and np.iscomplexobj(a)   # (real matrices take ?sytrf either way, as torch's)
    piv = np.zeros((a.shape[0], n), np.int32)
    info = np.zeros(a.shape[0], np.int32)
    for b in range(a.shape[0]):
        piv[b], info[b] = _ldl_one(a[b], herm)
    ld = host_result(np.tril(a).reshape(batch + (n, n)), A)
    if needs_grad(A):
        ld = _node("LinalgLdlFactorExBackward0", lambda x: (ld, ()), _no_ldl_derivative)(A)
    return ld, piv.reshape(batch + (n,)), info.reshape(batch)


def _no_ldl_derivative(saved, *grads):
    raise RuntimeError("derivative for aten::linalg_ldl_factor_ex is not implemented")


@register("linalg.ldl_factor_ex", family=F, namespace="linalg", out=True)
def ldl_factor_ex(A, *, hermitian=False, check_errors=False):
    ld, piv, info = _ldl_factor(A, hermitian)
    if check_errors and info.size and info.reshape(-1).any():
        _ldl_error(info)
    return ldl_factor_ex_rt(ld, ms.Tensor(piv), ms.Tensor(info))


def _ldl_error(info):
    # (torch reports a singular block through its generic LAPACK check, which has no message for sytrf)
    code = int(info.reshape(-1)[np.flatnonzero(info.reshape(-1))[0]])
    raise RuntimeError('false INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/ATen/native/'
                       'BatchLinearAlgebra.cpp":1642, please report a bug to PyTorch. torch.linalg.ldl_factor: '
                       f"Unknown error code: {code}.")


@register("linalg.ldl_factor", family=F, namespace="linalg", out=True)
def ldl_factor(A, *, hermitian=False):
    ld, piv, info = _ldl_factor(A, hermitian)
    if info.size and info.reshape(-1).any():
        _ldl_error(info)
    return ldl_factor_rt(ld, ms.Tensor(piv))


def _ldl_solve_one(a, piv, b, herm):
    """?sytrs / ?hetrs lower: solve with the compact factor ``a`` (n x n) for the columns of ``b``."""
    n = a.shape[0]
    cj = np.conj if herm else (lambda x: x)
    k = 0
    while k < n:   # L D Y = B
        if piv[k] > 0:
            kp = piv[k] - 1
            b[[k, kp]] = b[[kp, k]]
            b[k + 1:] -= np.outer(a[k + 1:, k], b[k])
            b[k] /= a[k, k].real if herm else a[k, k]
            k += 1
        else:
            kp = -piv[k] - 1
            b[[k + 1, kp]] = b[[kp, k + 1]]
            b[k + 2:] -= np.outer(a[k + 2:, k], b[k]) + np.outer(a[k + 2:, k + 1], b[k + 1])
            akm1k = a[k + 1, k]
            akm1 = (a[k, k] / cj(akm1k)) if herm else a[k, k] / akm1k
            ak = a[k + 1, k + 1] / akm1k
            denom = akm1 * ak - 1
            bkm1 = b[k] / cj(akm1k) if herm else b[k] / akm1k
            bk = b[k + 1] / akm1k
            b[k] = (ak * bkm1 - bk) / denom
            b[k + 1] = (akm1 * bk - bkm1) / denom
            k += 2
    k = n - 1
    while k >= 0:   # L^T X = Y (L^H for hermitian)
        if piv[k] > 0:
            b[k] -= cj(a[k + 1:, k]) @ b[k + 1:]
            kp = piv[k] - 1
            b[[k, kp]] = b[[kp, k]]
            k -= 1
        else:
            b[k] -= cj(a[k + 1:, k]) @ b[k + 1:]
            b[k - 1] -= cj(a[k + 1:, k - 1]) @ b[k + 1:]
            kp = -piv[k] - 1
            b[[k, kp]] = b[[kp, k]]
            k -= 2
    return b


@register("linalg.ldl_solve", family=F, namespace="linalg", out=True)
def ldl_solve(LD, pivots, B, *, hermitian=False):
    name = "torch.linalg.ldl_solve"
    _check_factor_and_rhs(name, LD, "LD", B)
    n = LD.shape[-1]
    if B.shape[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for {name}: each A matrix is {n} by {n} but each b matrix "
                           f"is {B.shape[-2]} by {B.shape[-1]}")
    if LD.dtype != B.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {_scalar_name(B)} and A "
                           f"of type {_scalar_name(LD)} instead.")
    if dtype_of(pivots)._cat >= D._FLOAT or pivots.dtype == ms.bool_:
        raise RuntimeError(f"{name}: Expected pivots to be integers. Got {_scalar_name(pivots)}")
    need_lapack_dtype(LD, "ldl_solve_cpu")
    batch = _broadcast_batch(tuple(LD.shape[:-2]), tuple(B.shape[:-2]))
    a = np.broadcast_to(read_host(LD), batch + (n, n)).reshape((-1, n, n))
    p = np.broadcast_to(read_host(pivots).astype(np.int64), batch + (n,)).reshape((-1, n))
    b = np.broadcast_to(read_host(B), batch + tuple(B.shape[-2:])).reshape((-1,) + tuple(B.shape[-2:])).copy()
    herm = hermitian and np.iscomplexobj(a)
    for i in range(a.shape[0]):
        _ldl_solve_one(a[i], p[i], b[i], herm)
    return host_result(b.reshape(batch + tuple(B.shape[-2:])), B)
