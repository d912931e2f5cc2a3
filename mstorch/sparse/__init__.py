"""torch.sparse on mstorch: ``mm``, ``sum`` and ``softmax``/``log_softmax`` for sparse COO tensors.

Only the COO layout exists (see ``mstorch/_sparse_tensor.py``); CSR/CSC/BSR/BSC are not supported.
"""
from .._sparse_tensor import SparseCooTensor, sparse_mm, make as _make
from .._tensor import Tensor

__all__ = ["mm", "sum", "softmax", "log_softmax"]


def mm(mat1, mat2, reduce="sum"):
    """torch.sparse.mm(sparse, dense): a dense result; gradients reach the dense operand and values."""
    if reduce != "sum":
        raise NotImplementedError(f"mstorch: torch.sparse.mm(reduce={reduce!r}) is not supported")
    if not isinstance(mat1, SparseCooTensor):
        from .. import mm as dense_mm
        return dense_mm(mat1, mat2)
    return sparse_mm(mat1, mat2)


def sum(input, dim=None, dtype=None):  # noqa: A001  (torch's name)
    """torch.sparse.sum: the full reduction is a dense 0-d tensor; over ``dim`` a sparse or dense result."""
    if not isinstance(input, SparseCooTensor):
        return input.sum() if dim is None else input.sum(dim)
    if dim is None:
        return input.sum(dtype=dtype)
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    dense = input.to_dense(dtype).sum(dims)
    k = input.sparse_dim()
    n = input.ndim
    left = k - len({d % n for d in dims if d % n < k})
    if left == 0:
        return dense
    return dense.to_sparse(left)


def _grouped(input, dim, log):
    import numpy as np
    from .. import tensor, zeros
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


def _dispatching(dense_fn):
    """``mstorch.mm``/``matmul`` with a sparse COO first (or second) argument go to the sparse product."""
    def fn(*args, **kwargs):
        if args and type(args[0]) is SparseCooTensor or len(args) > 1 and type(args[1]) is SparseCooTensor:
            if kwargs.get("out") is not None:
                raise NotImplementedError("mstorch: out= is not supported for products with a sparse operand")
            a, b = args[0], args[1]
            return sparse_mm(a, b) if type(a) is SparseCooTensor else b.__rmatmul__(a)
        return dense_fn(*args, **kwargs)
    fn.__name__ = dense_fn.__name__
    fn.__qualname__ = dense_fn.__qualname__
    fn.__doc__ = dense_fn.__doc__
    return fn


def install(namespace):
    """Hook sparse dispatch into ``mstorch.mm``/``mstorch.matmul`` and ``Tensor.to_sparse``."""
    for name in ("mm", "matmul"):
        namespace[name] = _dispatching(namespace[name])
    namespace["spmm"] = namespace["mm"]   # torch.spmm: mm with a sparse first operand
    SparseCooTensor.layout = namespace["sparse_coo"]
    assert Tensor.layout is namespace["strided"]
