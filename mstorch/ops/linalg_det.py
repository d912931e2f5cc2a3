"""Determinants and inverses: torch.det / logdet / slogdet / inverse and torch.linalg.slogdet, with their
gradients (torch's formulas in our own nodes where MindSpore's miss conjugates, signs or singular matrices:
the LU formula at a singular matrix, the SVD formula when a graph of the gradient is requested there).
The rest of torch.linalg that is not a factorisation is in linalg.py."""

import math

import mindspore as ms
import numpy as np
from .._runtime import read_host
from . import _msops as ops

from .. import _dtype as D
from ._helpers import dtype_of, _scalar_name
from ._registry import register
from .reduction import (return_type, needs_grad)
from .arithmetic import abs as _abs
from .binary_math import _atan2_node
from .. import _ms_private as P
from ..autograd._higher_order import own_backward
from .products import _mm
from .linalg_decomp import (LinAlgError, host_result, eye_like, mT,
                            ms_svd, _node)
from .linalg_lu import _getrf



F = "linalg"
NS = "torch.linalg"


# --- determinants and inverses (MindSpore has CPU kernels for float32/64 and complex) -------------

def _check_square(t, name):
    if t.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    d = dtype_of(t)
    if d._cat < D._FLOAT:
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got {_scalar_name(t)}")
    if t.shape[-1] != t.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {t.shape[-2]} by "
                           f"{t.shape[-1]} matrices")
    if d in (D.float16, D.bfloat16):
        if name != "linalg.det":
            raise RuntimeError(f"{name}: Low precision dtypes not supported. Got {_scalar_name(t)}")
        if t.size:   # (det's LU kernel: not reached by an empty input)
            raise NotImplementedError(f"\"lu_cpu\" not implemented for '{_scalar_name(t)}'")


def _small(t, one, empty):
    """Results for 0x0 and 1x1 matrices, which MindSpore's LU kernels reject."""
    n = t.shape[-1]
    if n == 0:
        return empty(t)
    if n == 1:
        return one(t)
    return None


@register("det", family=F)
def det(input):
    _check_square(input, "linalg.det")
    r = _small(input, lambda t: t.reshape(tuple(t.shape[:-2])),
               lambda t: ops.ones(tuple(t.shape[:-2]), t.dtype))
    if r is not None:
        return r
    d = ops.det(input)
    if dtype_of(input)._cat == D._FLOAT:
        diag, parity = _host_lu_diag(input)
        with np.errstate(all="ignore"):
            value = diag.prod(-1) * parity
        if needs_grad(input) and (bool(ops.any(ops.equal(d, 0))) or bool(_nearly_singular(value).any())):
            # a (nearly) singular matrix: torch's value and gradients (MindSpore's gradient is
            # det inv(A)^T, 0 at a singular matrix)
            return _det_singular_node(input)
        own_backward(d, _det_backward, input, P.detach(d))
        if not needs_grad(input):   # (the value swap breaks double backward: kept off the graph for now)
            d = _with_value(d, value, input)
    elif needs_grad(input):
        diag, parity = _host_lu_diag(input)
        with np.errstate(all="ignore"):
            nearly_singular = _nearly_singular(diag.prod(-1) * parity).any()
        # torch's formulas (MindSpore's gradient of a complex det misses the conjugates): the invertible one in
        # recorded ops; at a nearly singular matrix torch's first-order LU formula (create_graph refused by name)
        return _det_singular_node(input) if nearly_singular else _det_complex_node(input)
    return d


def _nearly_singular(det_value):
    """Where torch's det backward takes its SVD formula when a graph of the gradient is requested
    (|det A| < 100 eps, det by its LU: the host array ``det_value``)."""
    return np.abs(det_value) < 100 * np.finfo(det_value.dtype).eps


def _det_backward(node, grad_outputs, a, d):
    # d det(A) = det(A) tr(inv(A) dA): gA = g det(A) inv(A)^T, with det(A) reattached to its node (det
    # only takes this path where no matrix of the batch is nearly singular)
    (g,) = grad_outputs
    if g is None:
        return (None,)
    return (_det_grad_invertible(a, ops.mul(g, P.reattach(d, node, 0))),)


def _det_complex_fwd(a):
    return ops.det(a), (a,)


def _det_complex_bwd(saved, g):
    """torch's gA = (g conj(det A)) inv(A)^H of invertible complex matrices, its complex products from real
    and imaginary parts (MindSpore's complex Mul has no gradient); det(A) by this node again when a graph of
    the gradient is requested."""
    (a,) = saved
    graph = needs_grad(g) or needs_grad(a)
    gr, gi = _parts(g)
    dr, di = _parts(_det_complex_node(a) if graph else ops.det(a))
    sr = ops.add(ops.mul(gr, dr), ops.mul(gi, di))
    si = ops.sub(ops.mul(gi, dr), ops.mul(gr, di))
    return _complex_grad_invertible(a, sr, si)


_det_complex_node = _node("LinalgDetBackward0", _det_complex_fwd, _det_complex_bwd)


def _slogdet_complex_fwd(a):
    sign, logabs = ops.slogdet(a)
    return (sign, ops.real(logabs)), (a,)


def _slogdet_complex_bwd(saved, gs, gl):
    """torch's gA = g inv(A)^H with g = g_logabsdet - i Im(conj(g_sign) sign) (the sign moves only along
    the unit circle; MindSpore's gradient ignores g_sign), from real and imaginary parts; the sign by this
    node again when a graph of the gradient is requested."""
    (a,) = saved
    _check_solvable(a)
    q = None
    if gs is not None:
        graph = needs_grad(gs) or needs_grad(a)
        gsr, gsi = _parts(gs)
        sr, si = _parts(_slogdet_complex_node(a)[0] if graph else ops.slogdet(a)[0])
        q = ops.sub(ops.mul(gsi, sr), ops.mul(gsr, si))
    if gl is None:
        gl = ops.zeros_like(q) if q is not None else ops.zeros(tuple(a.shape[:-2]), ops.real(a).dtype)
    if q is None:
        q = ops.zeros_like(gl)
    return _complex_grad_invertible(a, gl, q)


_slogdet_complex_node = _node("LinalgSlogdetBackward0", _slogdet_complex_fwd, _slogdet_complex_bwd)


def _cmul(x, y):
    """The product of two complex numbers given as (real part, imaginary part) pairs, in recorded ops."""
    (xr, xi), (yr, yi) = x, y
    return ops.sub(ops.mul(xr, yr), ops.mul(xi, yi)), ops.add(ops.mul(xr, yi), ops.mul(xi, yr))


def _conj(x):
    return x[0], ops.neg(x[1])


def _parts(x):
    """(real part, imaginary part) of ``x`` in recorded ops (0 for a real ``x``)."""
    if dtype_of(x)._cat == D._COMPLEX:
        return ops.real(x), ops.imag(x)
    return x, ops.zeros_like(x)


def _complex_grad_invertible(a, sr, si):
    """(sr + i si) inv(A)^H of complex matrices A in recorded ops: inv(A) = C + iD from the inverse of
    A's real form [[Re A, -Im A], [Im A, Re A]] = [[C, -D], [D, C]]^-1, the products from real parts."""
    re, im = ops.real(a), ops.imag(a)
    inv = ops.inverse(ops.cat((ops.cat((re, ops.neg(im)), -1), ops.cat((im, re), -1)), -2))
    n = a.shape[-1]
    ct = ops.swapaxes(inv[..., :n, :n], -1, -2)
    dt = ops.swapaxes(inv[..., n:, :n], -1, -2)
    sr = sr.expand_dims(-1).expand_dims(-1)
    si = si.expand_dims(-1).expand_dims(-1)
    return ops.complex_of_parts(ops.add(ops.mul(sr, ct), ops.mul(si, dt)), ops.sub(ops.mul(si, ct), ops.mul(sr, dt)))


def _det_grad_invertible(a, scale):
    """scale inv(A)^T (real matrices), in recorded ops."""
    return ops.mul(scale.expand_dims(-1).expand_dims(-1), ops.swapaxes(ops.inverse(a), -1, -2))


def _det_grad_svd(a, g):
    """torch's gradient of det at a singular matrix, which stays differentiable there: with A = U S V^H,
    gA = U diag(g conj(det(U) det(V^H)) prod_{j != i} S_j) V^H (the conjugated adjugate of A^T from the
    singular values), the products of the other singular values by exclusive running products as torch's
    (no division). Complex matrices in real and imaginary parts (MindSpore's complex Mul and MatMul have no
    gradient), their determinants of U and V by our complex det node."""
    s, u, v = ms_svd(a)
    cols = ops.unbind(s, -1)
    n = len(cols)
    before, after = [ops.ones_like(cols[0])], [ops.ones_like(cols[0])]
    for i in range(1, n):
        before.append(ops.mul(before[-1], cols[i - 1]))
        after.append(ops.mul(after[-1], cols[n - i]))
    others = ops.stack([ops.mul(before[i], after[n - 1 - i]) for i in range(n)], -1).expand_dims(-2)
    if dtype_of(a)._cat == D._COMPLEX:
        # conj(det U det V^H) = conj(det U) det V
        alpha = _cmul(_cmul(_parts(g), _conj(_parts(_det_complex_node(u)))), _parts(_det_complex_node(v)))
        ur, ui = _cmul(_parts(u), (alpha[0].expand_dims(-1).expand_dims(-1), alpha[1].expand_dims(-1).expand_dims(-1)))
        vr, vi = _parts(v)
        ur, ui = ops.mul(ur, others), ops.mul(ui, others)
        # (U D) V^H = (Ur + i Ui)(Vr^T - i Vi^T)
        ga = ops.complex_of_parts(ops.add(_mm(ur, mT(vr)), _mm(ui, mT(vi))),
                                  ops.sub(_mm(ui, mT(vr)), _mm(ur, mT(vi))))
    else:
        alpha = ops.mul(g, ops.mul(ops.det(u), ops.det(v)))   # (real: det(V^H) = det(V))
        ga = _mm(ops.mul(u, ops.mul(alpha.expand_dims(-1).expand_dims(-1), others)), mT(v))
    host_s = read_host(s)
    repeated = (host_s[..., :, None] == host_s[..., None, :]).sum((-2, -1)) > n
    if repeated.any():
        # torch's SVD backward divides by S_j^2 - S_i^2 even where no gradient reaches U or V: equal
        # singular values (two zeros: rank n - 2) make that matrix's second derivative NaN, which a
        # branch of ``where`` that is never taken hands on (0 * NaN) without touching the gradient
        poison = ms.Tensor(np.where(repeated, np.nan, 0).astype(host_s.dtype)[..., None, None])
        re, im = _parts(a)
        nan = ops.mul(re, poison) if dtype_of(a)._cat != D._COMPLEX else ops.complex_of_parts(
            ops.mul(re, poison), ops.mul(im, poison))
        ga = ops.where(ops.ones_like(re).astype(ms.bool_), ga, nan)
    return ga


def _det_grad_recorded(a, g, det_value):
    """torch's det backward when a graph of the gradient is requested, in recorded ops (real matrices):
    g det(A) inv(A)^T where |det A| >= 100 eps (``det_value``: torch's det on the host), the SVD formula
    elsewhere. A mixed batch runs each formula on a stand-in for the other's matrices (the identity,
    diag(1..n): finite gradients, which ``where`` multiplies by 0), as torch's masked batches do."""
    mask = _nearly_singular(det_value.reshape(tuple(g.shape)))
    if not mask.any():
        return _det_grad_inv_any(a, g)
    if mask.all():
        return _det_grad_svd(a, g)
    m = ms.Tensor(mask).expand_dims(-1).expand_dims(-1)
    n = a.shape[-1]
    stand_in = ops.diag(ops.arange(1, n + 1).astype(a.dtype))
    a_inv = ops.where(m, eye_like(a), a)
    a_svd = ops.where(m, a, stand_in)
    return ops.where(m, _det_grad_svd(a_svd, g), _det_grad_inv_any(a_inv, g))


def _det_grad_inv_any(a, g):
    """g det(A) inv(A)^T of invertible real matrices, (g conj(det A)) inv(A)^H of complex ones, recorded."""
    if dtype_of(a)._cat == D._COMPLEX:
        return _det_complex_bwd((a,), g)
    return _det_grad_invertible(a, ops.mul(g, ops.det(a)))


def _det_singular_fwd(a):
    h = read_host(a)
    n = h.shape[-1]
    lu, piv, _ = _getrf(np.swapaxes(h.reshape((-1, n, n)), -1, -2))
    diag = np.diagonal(lu, axis1=-2, axis2=-1)
    parity = np.where((piv != np.arange(1, n + 1)).sum(-1) % 2 == 1, -1, 1).astype(h.dtype)
    with np.errstate(all="ignore"):
        det_host = diag.prod(-1) * parity
    return host_result(det_host.reshape(h.shape[:-2]), a), (a,)


def _det_singular_bwd(saved, g):
    """torch's first-order gradient of det where a matrix is singular: g det(A) A^-T from torch's LU of A^T
    on the host, its zero pivots replaced by the dtype's eps, so that an exactly singular matrix gets 0 and
    one whose LU leaves a rounding residue as pivot gets (nearly) its cofactor matrix (MindSpore's Det
    gradient, det inv(A)^T, is 0 at both). When a graph of the gradient is requested, torch's differentiable
    formulas instead (_det_grad_recorded)."""
    (a,) = saved
    h = read_host(a)
    n = h.shape[-1]
    cplx = np.iscomplexobj(h)
    # (of a complex matrix: torch's LU of A^H, whose determinant conj(det A) scales its gradient)
    ht = np.swapaxes(h.reshape((-1, n, n)), -1, -2)
    lu, piv, _ = _getrf(np.conj(ht) if cplx else ht)
    diag = np.diagonal(lu, axis1=-2, axis2=-1)
    parity = np.where((piv != np.arange(1, n + 1)).sum(-1) % 2 == 1, -1, 1).astype(h.dtype)
    if needs_grad(g) or needs_grad(a):   # a graph of the gradient is requested
        with np.errstate(all="ignore"):
            return _det_grad_recorded(a, g, diag.prod(-1) * parity)
    eps = np.finfo(h.dtype).eps
    with np.errstate(all="ignore"):
        u = lu.copy()
        idx = np.arange(n)
        u[:, idx, idx] = np.where(diag == 0, eps, diag)
        # (A^T)^-1 = U^-1 L^-1 P^T: X = inv(A^T) by the row interchanges and the two triangular solves
        x = np.broadcast_to(np.eye(n, dtype=h.dtype), u.shape).copy()
        rows = np.arange(u.shape[0])
        for j in range(n):
            top = x[:, j].copy()
            x[:, j] = x[rows, piv[:, j] - 1]
            x[rows, piv[:, j] - 1] = top
        for k in range(n):
            x[:, k + 1:] -= x[:, k][:, None, :] * u[:, k + 1:, k, None]
        for k in range(n - 1, -1, -1):
            x[:, k] /= u[:, k, k, None]
            x[:, :k] -= x[:, k][:, None, :] * u[:, :k, k, None]
        scale = read_host(g).reshape(-1) * (diag.prod(-1) * parity)
        grad = scale[:, None, None] * x
    return host_result(grad.reshape(h.shape), a)


_det_singular_node = _node("LinalgDetBackward0", _det_singular_fwd, _det_singular_bwd)


def _slogdet_backward(node, grad_outputs, a):
    # the sign is piecewise constant; d log|det A| = tr(inv(A) dA): gA = g inv(A)^T (logabsdet: output 1).
    # torch solves A^H X = g I there, which raises at a singular matrix (log|det| is -inf: no derivative)
    g = grad_outputs[1]
    if g is None:
        return (None,)
    _check_solvable(a)
    return (_det_grad_invertible(a, g),)


def _check_solvable(a):
    """torch's slogdet backward solves A^H X = g I, which raises at a singular matrix (log|det| is -inf:
    no derivative)."""
    n = a.shape[-1]
    zero_pivot = _zero_pivot(np.swapaxes(read_host(a).reshape((-1, n, n)), -1, -2)) > 0
    if zero_pivot.any():
        where = f"(Batch element {int(zero_pivot.nonzero()[0][0])}): " if a.ndim > 2 else ""
        raise LinAlgError(f"torch.linalg.solve: {where}The solver failed because the input matrix is singular.")
    is_singular(mT(a), "linalg.solve")   # (raises where torch's LU leaves a rounding residue as a pivot)


@register("logdet", family=F)
def logdet(input):
    _check_square(input, "logdet")
    r = _small(input, _logdet_1x1, lambda t: ops.zeros(tuple(t.shape[:-2]), t.dtype))
    if r is not None:
        return r
    # log(det) through slogdet as torch: a negative determinant is NaN whose gradient is zero (MindSpore's
    # LogDet back-propagates through log|det| there)
    if dtype_of(input)._cat == D._COMPLEX:
        if needs_grad(input):
            # torch's log(sign) + logabsdet, log(sign) from the sign's parts (MindSpore's complex Log
            # gradient divides complex numbers, which has no gradient)
            sign, logabs = _slogdet_complex_node(input)
            sr, si = ops.real(sign), ops.imag(sign)
            log_mag = ops.mul(ops.log(ops.add(ops.mul(sr, sr), ops.mul(si, si))), 0.5)
            return ops.complex_of_parts(ops.add(log_mag, logabs), _atan2_node(si, sr))
        sign, logabs = ops.slogdet(input)
        return ops.add(ops.log(sign), logabs)
    sign, logabs = ops.slogdet(input)
    if dtype_of(input)._cat == D._FLOAT:
        own_backward(logabs, _slogdet_backward, input)
        if not needs_grad(input):   # (the value swap breaks double backward: kept off the graph for now)
            sign, logabs = _lu_slogdet(input, logabs)
    return ops.where(ops.lt(sign, 0), ops.full_like(logabs, math.nan), logabs)


def _logdet_1x1(t):
    v = t.reshape(tuple(t.shape[:-2]))
    if dtype_of(t)._cat == D._COMPLEX:
        return ops.log(v)
    # torch's NaN for a negative determinant is a constant beside log|det|: its gradient is 0 (times
    # 1 / det: -0.0), not log's 1 / det
    return ops.where(ops.lt(v, 0), ops.full_like(v, math.nan), ops.log(v))


slogdet_rt = return_type("slogdet", ("sign", "logabsdet"))


@register("slogdet", family=F)
def slogdet(input):
    _check_square(input, "linalg.slogdet")
    n = input.shape[-1]
    if n <= 1:
        v = input.reshape(tuple(input.shape[:-2])) if n else ops.ones(tuple(input.shape[:-2]), input.dtype)
        mag = _abs(v)   # a real magnitude for complex input (mindspore.ops.abs keeps the complex dtype)
        return slogdet_rt(ops.sign(v) if dtype_of(input)._cat == D._FLOAT else ops.div(v, mag.astype(v.dtype)),
                          ops.log(mag))
    if dtype_of(input)._cat == D._COMPLEX and needs_grad(input):
        return slogdet_rt(*_slogdet_complex_node(input))
    sign, logabs = ops.slogdet(input)
    if logabs.dtype in (ms.complex64, ms.complex128):   # MindSpore's log|det| keeps the complex dtype
        logabs = ops.real(logabs)
    if dtype_of(input)._cat == D._FLOAT:
        own_backward(logabs, _slogdet_backward, input)
        if not needs_grad(input):   # (the value swap breaks double backward: kept off the graph for now)
            sign, logabs = _lu_slogdet(input, logabs)
    return slogdet_rt(sign, logabs)


def _host_lu_diag(input):
    """(U's diagonal, the permutation's sign) of torch's LU of each real matrix, on the host (linalg_lu's
    getrf in MKL's order): a (nearly) singular matrix's determinant is the rounding residue of its
    elimination, which differs between MindSpore's and torch's orders by orders of magnitude."""
    a = read_host(input)
    n = a.shape[-1]
    # torch factors A^T (the column-major view of a row-major A: no copy), det(A^T) = det(A)
    lu, piv, _ = _getrf(np.swapaxes(a.reshape((-1, n, n)), -1, -2))
    swaps = (piv != np.arange(1, n + 1)).sum(-1) % 2
    return np.diagonal(lu, axis1=-2, axis2=-1), np.where(swaps == 1, -1, 1).astype(a.dtype)


def _with_value(graph, value, input):
    """The host array ``value`` (shaped as ``graph``) carrying ``graph``'s gradient: detach(graph) - graph
    is an exact +0 where graph is finite, and value - (+0) keeps a -0.0."""
    value = host_result(value.reshape(tuple(graph.shape)), input)
    zero = ops.where(ops.isfinite(graph), ops.sub(P.detach(graph), graph), ops.zeros_like(graph))
    return ops.sub(value, zero)


def _lu_slogdet(input, logabs):
    """(sign, log|det|) of real matrices from torch's LU, keeping the gradient of MindSpore's ``logabs``."""
    diag, parity = _host_lu_diag(input)
    with np.errstate(all="ignore"):
        # torch's sgn: 0 for a NaN pivot
        sign = np.where(diag > 0, 1, np.where(diag < 0, -1, 0)).astype(diag.dtype).prod(-1) * parity
        value = np.log(np.abs(diag)).sum(-1)
    return host_result(sign.reshape(tuple(logabs.shape)), input), _with_value(logabs, value, input)




def is_singular(x, name="linalg.inv"):
    """A bool per matrix: the exact zero pivot that torch's LU (LAPACK's getrf in MKL's order, fused
    updates) meets, by the same elimination on the host (NaN and inf pivots are not zero: torch returns
    NaN there instead of raising)."""
    n = x.shape[-1]
    if x.size == 0:   # (an empty batch: nothing to factor)
        return ops.zeros(tuple(x.shape[:-2]), ms.bool_)
    a = read_host(x).reshape((-1, n, n))
    pivots = _zero_pivot(a)
    flags = pivots > 0
    if n > 1 and not flags.all():
        # MindSpore's LU (unfused updates) meets an exact zero where torch's leaves a rounding residue as
        # the pivot: torch then returns the huge values that residue gives, which no other elimination
        # reproduces, and MindSpore's kernels fail or return others
        logabs = ops.slogdet(x)[1]
        if dtype_of(x)._cat == D._COMPLEX:     # MindSpore's log|det| of a complex matrix is complex
            logabs = ops.real(logabs)
        zero = read_host(ops.logical_and(ops.isinf(logabs), ops.lt(logabs, 0))).reshape(-1)
        if (zero & ~flags & np.isfinite(a).all(axis=(-2, -1))).any():
            raise LinAlgError(f"{name}: the input matrix is singular to working precision: torch's LU leaves a "
                              "rounding residue as a pivot and returns the huge values it gives, which mstorch "
                              "does not reproduce")
    return ms.Tensor(flags.reshape(tuple(x.shape[:-2])))


def _zero_pivot(a):
    """The 1-based index of the first zero pivot that LAPACK's getrf meets in each matrix of the batch
    ``a`` (0 where none), by the same elimination on the host (linalg_lu's, torch's MKL order)."""
    return _getrf(np.asarray(a))[2]


slogdet_rt = return_type("linalg_slogdet", ("sign", "logabsdet"))


@register("linalg.slogdet", family=NS, namespace="linalg", out="tuple")
def linalg_slogdet(A):
    return slogdet_rt(*slogdet(A))
