"""LAPACK's Householder form of QR: torch.geqrf (the reflectors and their scales, as LAPACK's geqrf leaves
them) and torch.ormqr (a product with the Q they represent). geqrf runs LAPACK's own geqrf on the host
(numpy's ``qr(mode="raw")``, the routine torch calls; MindSpore 2.10 has no such kernel) and, as torch's,
has no derivative; ormqr multiplies by Q built from the reflectors (``linalg.householder_product`` of the
reflectors padded to a square matrix), in MindSpore ops, so it has gradients to all three operands."""
import numpy as np

from .._runtime import read_host
from . import _msops as ops
from ._helpers import _scalar_name
from ._registry import register
from .linalg_decomp import householder_product, host_result, mH, need_lapack_dtype, _node
from .products import _mm
from .reduction import return_type

F = "linalg"

_geqrf_rt = return_type("geqrf", ("a", "tau"))


def _geqrf_fwd(a):
    h = read_host(a)
    m, n = h.shape[-2:]
    if h.size == 0:
        raw, tau = np.zeros(h.shape, h.dtype), np.zeros(h.shape[:-2] + (min(m, n),), h.dtype)
    else:
        raw, tau = np.linalg.qr(h, mode="raw")   # (LAPACK's column-major result: the transpose)
        raw = np.swapaxes(raw, -1, -2)
    return (host_result(raw, a), host_result(tau, a)), ()


def _geqrf_bwd(saved, *grads):
    raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


_geqrf_node = _node("GeqrfBackward0", _geqrf_fwd, _geqrf_bwd)


@register("geqrf", family=F, out="tuple")
def geqrf(input):
    if input.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    need_lapack_dtype(input, "geqrf_cpu")
    return _geqrf_rt(*_geqrf_node(input))


@register("ormqr", family=F, out=True)
def ormqr(input, input2, input3, left=True, transpose=False):
    a, tau, other = input, input2, input3
    name = "torch.ormqr"
    if a.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if other.ndim < 2:
        raise RuntimeError(f"{name}: other must have at least 2 dimensions.")
    side = -2 if left else -1
    k = tau.shape[-1] if tau.ndim else 1
    if k != min(other.shape[side], a.shape[-1]):
        raise RuntimeError(f"{name}: tau.shape[-1] must be equal to min(other.shape[{side}], input.shape[-1])")
    if other.shape[side] != a.shape[-2]:
        raise RuntimeError(f"{name}: other.shape[{side}] must be equal to input.shape[-2]")
    if tau.ndim != a.ndim - 1:
        raise RuntimeError(f"{name}: Expected tau to have one dimension less than input, but got tau.ndim equal to "
                           f"{tau.ndim} and input.ndim is equal to {a.ndim}")
    if other.ndim != a.ndim:
        raise RuntimeError(f"{name}: Expected other to have the same number of dimensions as input, but got "
                           f"other.ndim equal to {other.ndim} and input.ndim is equal to {a.ndim}")
    for t, what in ((tau, "tau"), (other, "other")):
        if t.dtype != a.dtype:
            raise RuntimeError(f"{name}: Expected input and {what} to have the same dtype, but input has dtype"
                               f"{_scalar_name(a)} and {what} has dtype {_scalar_name(t)}")
    need_lapack_dtype(a, "ormqr_cpu")
    mn = a.shape[-2]
    batch = tuple(a.shape[:-2])
    # Q (mn x mn) = H_1 ... H_k: the reflectors beside zero columns, whose scales 0 make them identities
    pad = mn - a.shape[-1]
    full = a if pad == 0 else ops.cat([a, ops.zeros(batch + (mn, pad), a.dtype)], -1) if pad > 0 else a[..., :mn]
    scales = ops.cat([tau, ops.zeros(batch + (mn - k,), a.dtype)], -1) if mn > k else tau
    q = householder_product(full, scales)
    if transpose:
        q = mH(q)
    return _mm(q, other) if left else _mm(other, q)
