"""Sparse COO tensors: the subset of torch's ``sparse_coo`` layout that graph/GNN scripts use.

A ``SparseCooTensor`` is an ``mstorch.Tensor`` (``isinstance`` holds, as in torch) that holds an int64
``indices`` tensor of shape (sparse_dim, nnz), a ``values`` tensor of shape (nnz, *dense_shape) and the
full size. Everything is computed with ordinary dense mstorch ops on those two tensors, so autograd
flows to ``values`` (a dense gradient on the ``_values()`` leaf; ``.grad`` presents it as a sparse tensor
with the same indices) and to the dense operand of a product.

A sparse tensor has no dense ``_ms``: any op that is not implemented here reads it and raises torch's
``NotImplementedError: Could not run 'aten::<op>' with arguments from the 'SparseCPU' backend``.
"""
import sys

from . import _dtype as D
from ._tensor import Tensor, _parse_to
from ._size import Size

_new = object.__new__


def _calling_op():
    """The name of the op that tried to read a sparse tensor's dense storage (best effort)."""
    f = sys._getframe(2)
    for _ in range(8):
        if f is None:
            break
        if f.f_code.co_filename.endswith("_bind.py") and "name" in f.f_locals:
            return f.f_locals["name"]
        if not f.f_code.co_filename.endswith("_sparse_tensor.py") and not f.f_code.co_name.startswith(("_", "<")):
            return f.f_code.co_name
        f = f.f_back
    return "unknown"


def _no_dense(self):
    op = _calling_op()
    raise NotImplementedError(
        f"Could not run 'aten::{op}' with arguments from the 'SparseCPU' backend. mstorch's sparse COO "
        "tensors support construction, coalesce, to_dense, t/transpose, scalar mul, sum and mm with a dense "
        "matrix; call .to_dense() first for other ops.")


def _long(x):
    from . import tensor, int64
    if isinstance(x, Tensor):
        return x if x.dtype is int64 else x.to(int64)
    return tensor(x, dtype=int64)


def make(indices, values, shape, coalesced):
    s = _new(SparseCooTensor)
    s._idx = indices
    s._vals = values
    s._shape = tuple(int(n) for n in shape)
    s._coalesced = bool(coalesced)
    return s


class SparseCooTensor(Tensor):
    """torch.Tensor with ``layout=torch.sparse_coo``."""

    _ms = property(_no_dense)
    is_sparse = True
    layout = None   # set to mstorch.sparse_coo in mstorch/__init__.py

    def __new__(cls, *args, **kwargs):
        raise TypeError("use mstorch.sparse_coo_tensor(indices, values, size) to build a sparse tensor")

    # --- structure -------------------------------------------------------------------------------

    @property
    def dtype(self):
        return self._vals.dtype

    @property
    def shape(self):
        return Size(self._shape)

    def size(self, dim=None):
        if dim is None:
            return Size(self._shape)
        n = len(self._shape)
        if not -n <= dim < n:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
        return self._shape[dim]

    @property
    def ndim(self):
        return len(self._shape)

    def dim(self):
        return len(self._shape)

    ndimension = dim

    def numel(self):
        n = 1
        for d in self._shape:
            n *= d
        return n

    nelement = numel

    def __len__(self):
        if not self._shape:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    def sparse_dim(self):
        return self._idx.shape[0]

    def dense_dim(self):
        return len(self._shape) - self._idx.shape[0]

    def _nnz(self):
        return self._idx.shape[1]

    @property
    def nnz(self):   # not a torch attribute; kept for scripts written against older docs
        return self._nnz()

    def is_coalesced(self):
        return self._coalesced

    def _indices(self):
        return self._idx

    def _values(self):
        return self._vals

    def indices(self):
        if not self._coalesced:
            raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call .coalesce() first")
        return self._idx

    def values(self):
        if not self._coalesced:
            raise RuntimeError("Cannot get values on an uncoalesced tensor, please call .coalesce() first")
        return self._vals

    def is_contiguous(self, memory_format=None):
        raise RuntimeError("is_contiguous is not supported for sparse tensors (layout Sparse)")

    # --- conversions -----------------------------------------------------------------------------

    def _flat_index(self):
        """Row-major linear index over the sparse dims, one per stored entry (int64)."""
        idx = self._idx
        k = idx.shape[0]
        flat = None
        stride = 1
        for d in range(k - 1, -1, -1):
            term = idx[d] * stride if stride != 1 else idx[d]
            flat = term if flat is None else flat + term
            stride *= self._shape[d]
        return flat, stride

    def to_dense(self, dtype=None, *, masked_grad=None):
        from . import zeros
        k = self._idx.shape[0]
        dense_shape = self._shape[k:]
        vals = self._vals if dtype is None else self._vals.to(dtype)
        if k == 0:   # a 0-sparse-dim tensor: the sum of its values
            return vals.sum(0) if self._nnz() else zeros(dense_shape, dtype=vals.dtype)
        flat, rows = self._flat_index()
        out = zeros((rows,) + tuple(dense_shape), dtype=vals.dtype)
        if self._nnz():
            out = out.index_add(0, flat, vals)
        return out.reshape(self._shape)

    def coalesce(self):
        if self._coalesced:
            return self
        import numpy as np
        from . import tensor, zeros
        k = self._idx.shape[0]
        nnz = self._nnz()
        if nnz == 0 or k == 0:
            vals = self._vals.sum(0, keepdim=True) if (k == 0 and nnz) else self._vals
            idx = self._idx[:, :1] if (k == 0 and nnz) else self._idx
            return make(idx, vals, self._shape, True)
        # the sort and the grouping are index bookkeeping (no gradient): done on the host
        idx = self._idx.numpy()
        flat = np.ravel_multi_index(tuple(idx), self._shape[:k])
        uniq, inverse = np.unique(flat, return_inverse=True)
        new_idx = tensor(np.stack(np.unravel_index(uniq, self._shape[:k])).astype(np.int64).reshape(k, -1))
        vals = zeros((len(uniq),) + tuple(self._vals.shape[1:]), dtype=self._vals.dtype)
        vals = vals.index_add(0, tensor(inverse.reshape(-1).astype(np.int64)), self._vals)
        return make(new_idx, vals, self._shape, True)

    def to_sparse(self, *args, **kwargs):
        return self

    def to(self, *args, **kwargs):
        dtype, _dev, _copy = _parse_to(args, kwargs)
        if dtype is None or dtype is self.dtype:
            return self
        return make(self._idx, self._vals.to(dtype), self._shape, self._coalesced)

    def double(self):
        return self.to(D.float64)

    def float(self):
        return self.to(D.float32)

    def half(self):
        return self.to(D.float16)

    def long(self):
        return self.to(D.int64)

    def int(self):
        return self.to(D.int32)

    def cpu(self):
        return self

    def detach(self):
        return make(self._idx, self._vals.detach(), self._shape, self._coalesced)

    def clone(self, *, memory_format=None):
        return make(self._idx.clone(), self._vals.clone(), self._shape, self._coalesced)

    def numpy(self, *, force=False):
        raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() first.")

    def __reduce_ex__(self, protocol):
        raise NotImplementedError(
            "mstorch cannot serialize sparse tensors (torch.save of a sparse_coo tensor); save "
            "t._indices(), t._values() and t.shape instead, or t.to_dense()")

    def __deepcopy__(self, memo):
        return make(self._idx.clone(), self._vals.detach().clone().requires_grad_(self._vals.requires_grad),
                    self._shape, self._coalesced)

    # --- autograd --------------------------------------------------------------------------------

    @property
    def requires_grad(self):
        return self._vals.requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        self.requires_grad_(flag)

    def requires_grad_(self, requires_grad=True):
        self._vals.requires_grad_(requires_grad)
        return self

    @property
    def is_leaf(self):
        return self._vals.is_leaf

    @property
    def grad_fn(self):
        return self._vals.grad_fn

    @property
    def grad(self):
        """The gradient of ``_values()``, presented with this tensor's indices (torch's is sparse too)."""
        g = self._vals.grad
        return None if g is None else make(self._idx, g, self._shape, self._coalesced)

    @grad.setter
    def grad(self, value):
        if value is not None:
            raise RuntimeError("mstorch: only None can be assigned to the grad of a sparse tensor")
        self._vals.grad = None

    # --- math ------------------------------------------------------------------------------------

    def t(self):
        if len(self._shape) > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {len(self._shape)}D")
        if len(self._shape) < 2:
            return self
        return self.transpose(0, 1)

    def transpose(self, dim0, dim1):
        n = len(self._shape)
        d0, d1 = dim0 % n if n else 0, dim1 % n if n else 0
        k = self._idx.shape[0]
        if d0 >= k or d1 >= k:
            raise RuntimeError("mstorch: transpose of a dense dimension of a hybrid sparse tensor is not supported")
        if d0 == d1:
            return self
        from . import stack
        rows = [self._idx[i] for i in range(k)]
        rows[d0], rows[d1] = rows[d1], rows[d0]
        shape = list(self._shape)
        shape[d0], shape[d1] = shape[d1], shape[d0]
        return make(stack(rows), self._vals, shape, False)

    def mul(self, other):
        if isinstance(other, Tensor) and not (other.ndim == 0 and not other.is_sparse):
            raise NotImplementedError("mstorch: sparse * tensor is supported only for 0-dim tensors and scalars")
        return make(self._idx, self._vals * other, self._shape, self._coalesced)

    __mul__ = mul
    __rmul__ = mul

    def __truediv__(self, other):
        if isinstance(other, Tensor) and other.ndim != 0:
            raise NotImplementedError("mstorch: sparse / tensor is supported only for 0-dim tensors and scalars")
        return make(self._idx, self._vals / other, self._shape, self._coalesced)

    div = __truediv__

    def __neg__(self):
        return make(self._idx, -self._vals, self._shape, self._coalesced)

    def __add__(self, other):
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")

    def sum(self, dim=None, keepdim=False, dtype=None):
        if dim is None:
            v = self._vals if dtype is None else self._vals.to(dtype)
            return v.sum()
        return self.to_dense(dtype).sum(dim, keepdim)

    def mm(self, mat2):
        return sparse_mm(self, mat2)

    def matmul(self, other):
        return sparse_mm(self, other)

    __matmul__ = matmul

    def __rmatmul__(self, other):
        # dense @ sparse = (sparse^T @ dense^T)^T
        if other.ndim == 1:
            return sparse_mm(self.t(), other)
        return sparse_mm(self.t(), other.t()).t()

    # --- printing --------------------------------------------------------------------------------

    def __repr__(self, *, tensor_contents=None):
        from . import _printing as PR
        indent = len("tensor(")

        def body(t, prefix):
            text = PR.tensor_str(PR._host_array(t), indent + len(prefix))
            if t.numel() == 0:
                text += f", size={tuple(t.shape)}"
            return prefix + text + ")"

        text = ("tensor(" + body(self._idx, "indices=tensor(") + ",\n" + " " * indent
                + body(self._vals.detach(), "values=tensor("))
        suffixes = [f"size={self._shape}", f"nnz={self._nnz()}"]
        if self.dtype not in (D.get_default_dtype(), D.default_complex(), D.int64, D.bool_):
            suffixes.append(f"dtype={self.dtype}")
        suffixes.append("layout=torch.sparse_coo")
        if self._vals.grad_fn is not None:
            suffixes.append(f"grad_fn=<{self._vals.grad_fn.name()}>")
        elif self.requires_grad:
            suffixes.append("requires_grad=True")
        # torch's sparse repr starts the suffixes on a new line, then wraps them at linewidth
        parts, last = [text], 0
        for i, suffix in enumerate(suffixes):
            if i == 0 or last + len(suffix) + 2 > PR._opts["linewidth"]:
                parts.append(",\n" + " " * indent + suffix)
                last = indent + len(suffix)
            else:
                parts.append(", " + suffix)
                last += len(suffix) + 2
        return "".join(parts) + ")"

    __str__ = __repr__


def sparse_mm(sparse, dense):
    """sparse (n, k) @ dense (k, m) or (k,): gather dense rows by column index, scale, index_add."""
    from . import zeros
    if not isinstance(dense, Tensor):
        raise TypeError(f"mm(): argument 'mat2' (position 2) must be Tensor, not {type(dense).__name__}")
    if isinstance(dense, SparseCooTensor):
        dense = dense.to_dense()
    if sparse.ndim != 2 or sparse.dense_dim() != 0:
        raise RuntimeError("mstorch: sparse mm supports 2-D sparse tensors with sparse_dim 2 only")
    vec = dense.ndim == 1
    if not vec and dense.ndim != 2:
        raise RuntimeError(f"addmm: matrices expected, got {dense.ndim}D tensor")
    n, k = sparse._shape
    if dense.shape[0] != k:
        raise RuntimeError(f"addmm: Argument #3 (dense): Expected dim 0 size {k}, got {dense.shape[0]}")
    if dense.dtype is not sparse.dtype:
        raise RuntimeError(f"expected scalar type {_scalar(sparse.dtype)} but found {_scalar(dense.dtype)}")
    d2 = dense.unsqueeze(1) if vec else dense
    out = zeros((n, d2.shape[1]), dtype=dense.dtype)
    if sparse._nnz():
        rows, cols = sparse._idx[0], sparse._idx[1]
        out = out.index_add(0, rows, d2.index_select(0, cols) * sparse._vals.unsqueeze(1))
    return out.squeeze(1) if vec else out


def _scalar(dtype):
    from ._tensor import scalar_type_name
    return scalar_type_name(dtype)


def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None, is_coalesced=None):
    """torch.sparse_coo_tensor (COO layout; hybrid tensors with dense dims are accepted)."""
    from . import tensor
    if isinstance(indices, SparseCooTensor) or isinstance(values, SparseCooTensor):
        raise TypeError("sparse_coo_tensor(): indices and values must be dense tensors")
    idx = _long(indices)
    vals = values if isinstance(values, Tensor) else tensor(values)
    if dtype is not None and vals.dtype is not dtype:
        vals = vals.to(dtype)
    if idx.ndim != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(idx.shape)}")
    k, nnz = idx.shape
    if vals.ndim == 0:
        raise RuntimeError("values must have at least one dimension (the nnz dimension)")
    if vals.shape[0] != nnz:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: {nnz}, "
                           f"nnz from values: {vals.shape[0]}")
    dense_shape = tuple(vals.shape[1:])
    import numpy as np
    host = idx.numpy() if nnz else np.zeros((k, 0), np.int64)
    if size is None:
        if nnz:
            low = host.min(axis=1)
            for d in range(k):
                if low[d] < 0:
                    raise RuntimeError(f"found negative index {int(low[d])} for dim {d}")
            shape = tuple(int(m) + 1 for m in host.max(axis=1)) + dense_shape
        else:
            shape = (0,) * k + dense_shape
    else:
        shape = tuple(int(s) for s in size)
        if len(shape) != k + len(dense_shape):
            raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = {len(shape)}, "
                               f"sparse_dim = {k}, dense_dim = {len(dense_shape)}")
        if shape[k:] != dense_shape:
            raise RuntimeError(f"values has incorrect size, expected {[nnz, *shape[k:]]}, got {list(vals.shape)}")
        if check_invariants and nnz:
            low, high = host.min(axis=1), host.max(axis=1)
            for d in range(k):
                if low[d] < 0:
                    raise RuntimeError(f"found negative index {int(low[d])} for dim {d}")
                if high[d] >= shape[d]:
                    raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is {shape[d]} "
                                       f"but found index {int(high[d])}")
    coalesced = bool(is_coalesced) if is_coalesced is not None else nnz <= 1
    if requires_grad:
        if not (vals.dtype.is_floating_point or vals.dtype.is_complex):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        vals = vals.detach().requires_grad_(True)   # a new leaf, as torch's requires_grad=True makes
    return make(idx, vals, shape, coalesced)


def dense_to_sparse(t, sparse_dim=None):
    """Tensor.to_sparse(): a coalesced COO tensor of the non-zero entries (or rows, for sparse_dim)."""
    from . import tensor
    import numpy as np
    k = t.ndim if sparse_dim is None else int(sparse_dim)
    if not 0 <= k <= t.ndim:
        raise RuntimeError(f"sparse_dim argument must be in [0, {t.ndim}] range, but {k} is given")
    if k == 0:
        return make(tensor(np.zeros((0, 1), np.int64)), t.unsqueeze(0), t.shape, True)
    mask = t.detach().numpy()
    if k < t.ndim:
        mask = (mask != 0).reshape(mask.shape[:k] + (-1,)).any(axis=-1)
    else:
        mask = mask != 0
    idx = np.stack(np.nonzero(mask)).astype(np.int64).reshape(k, -1)
    flat = np.ravel_multi_index(tuple(idx), t.shape[:k]) if idx.shape[1] else np.zeros(0, np.int64)
    rows = t.reshape((-1,) + tuple(t.shape[k:]))
    vals = rows.index_select(0, tensor(np.asarray(flat, np.int64)))
    return make(tensor(idx), vals, t.shape, True)
