"""torch.sparse on mstorch: ``mm``, ``addmm``, ``sum`` and ``softmax``/``log_softmax`` for sparse tensors.

The COO layout is complete for these; CSR tensors (``torch.sparse_csr_tensor``, ``to_sparse_csr``) work
through their COO form. The element-wise and product ops live in the sparse op table (``ops/sparse.py``).
"""
from .._sparse_tensor import SparseCooTensor, SparseCsrTensor, make as _make, sparse_coo_tensor as _coo_tensor
from .. import _dtype as D
from ..ops import sparse as _ops
from ..ops._registry import PUBLIC

__all__ = ["mm", "addmm", "sum", "softmax", "log_softmax", "FloatTensor", "DoubleTensor", "LongTensor"]


def mm(mat1, mat2, reduce="sum"):
    """torch.sparse.mm: sparse @ dense is dense, sparse @ sparse is sparse; gradients reach both."""
    if reduce != "sum":
        raise NotImplementedError(f"mstorch: torch.sparse.mm(reduce={reduce!r}) is not supported")
    _mm = PUBLIC["mm"]
    return _mm(mat1, mat2)


def addmm(mat, mat1, mat2, *, beta=1.0, alpha=1.0):
    """torch.sparse.addmm: beta * mat + alpha * (mat1 @ mat2) with a sparse ``mat1``."""
    _addmm = PUBLIC["addmm"]
    return _addmm(mat, mat1, mat2, beta=beta, alpha=alpha)


def sum(input, dim=None, dtype=None):  # noqa: A001  (torch's name)
    """torch.sparse.sum: the full reduction is a dense 0-d tensor; over ``dim`` a sparse or dense result."""
    if not isinstance(input, (SparseCooTensor, SparseCsrTensor)):
        return input.sum() if dim is None else input.sum(dim)
    return _ops.sparse_sum(input, dim, False, dtype)


def _grouped(input, dim, log):
    import numpy as np
    tensor = PUBLIC["tensor"]
    zeros = PUBLIC["zeros"]
    if not isinstance(input, SparseCooTensor):
        raise TypeError("mstorch: torch.sparse.softmax expects a sparse COO tensor")
    if input.dense_dim() != 0:
        raise NotImplementedError("mstorch: sparse softmax of a hybrid sparse tensor is not supported")
    s = input.coalesce()
    n = s.ndim
    dim = dim % n
    idx = s._idx.numpy()
    others = [d for d in range(n) if d != dim]
    if others:
        key = np.ravel_multi_index(tuple(idx[others]), tuple(s._shape[d] for d in others))
    else:
        key = np.zeros(idx.shape[1], np.int64)
    _, group = np.unique(key, return_inverse=True)
    group = group.reshape(-1).astype(np.int64)
    ngroups = int(group.max()) + 1 if group.size else 0
    vals = s._vals
    # subtract each group's maximum (a constant for autograd) for stability
    host = vals.detach().float().numpy() if vals.dtype.itemsize < 4 else vals.detach().numpy()
    gmax = np.full(ngroups, -np.inf, host.dtype)
    np.maximum.at(gmax, group, host)
    g = tensor(group)
    shifted = vals - tensor(gmax[group]).to(vals.dtype)
    e = shifted.exp()
    denom = zeros(ngroups, dtype=vals.dtype).index_add(0, g, e).index_select(0, g)
    out = shifted - denom.log() if log else e / denom
    return _make(s._idx, out, s._shape, True)


def softmax(input, dim, *, dtype=None):
    """torch.sparse.softmax: softmax over the stored entries along ``dim`` (absent entries are -inf)."""
    if dtype is not None:
        input = input.to(dtype)
    return _grouped(input, dim, False)


def log_softmax(input, dim, *, dtype=None):
    """torch.sparse.log_softmax (see ``softmax``)."""
    if dtype is not None:
        input = input.to(dtype)
    return _grouped(input, dim, True)


def _legacy(dtype_name):
    """torch.sparse.FloatTensor(indices, values, size) and friends: the pre-1.0 constructors pygcn-era
    scripts still call."""
    def ctor(*args):
        from .._size import Size
        float32 = D.float32
        float64 = D.float64
        int64 = D.int64
        zeros = PUBLIC["zeros"]
        dtype = {"Float": float32, "Double": float64, "Long": int64}[dtype_name]
        if all(isinstance(a, int) for a in args):   # FloatTensor(2, 3): an empty sparse tensor of that size
            return _coo_tensor(zeros(len(args), 0, dtype=int64), zeros(0, dtype=dtype), Size(args))
        indices, values, *size = args   # torch keeps the values' own dtype here
        return _coo_tensor(indices, values, *size)
    ctor.__name__ = ctor.__qualname__ = f"{dtype_name}Tensor"
    return ctor


FloatTensor = _legacy("Float")
DoubleTensor = _legacy("Double")
LongTensor = _legacy("Long")
