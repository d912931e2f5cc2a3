"""Sparse tensors: torch's ``sparse_coo`` layout, and ``sparse_csr`` for construction and conversion.

A ``SparseCooTensor`` is an ``mstorch.Tensor`` (``isinstance`` holds, as in torch) that holds an int64
``indices`` tensor of shape (sparse_dim, nnz), a ``values`` tensor of shape (nnz, *dense_shape) and the
full size. Everything is computed with ordinary dense mstorch ops on those two tensors, so autograd
flows to ``values`` (a dense gradient on the ``_values()`` leaf; ``.grad`` presents it as a sparse tensor
with the same indices) and to the dense operands. A ``SparseCsrTensor`` holds ``crow_indices``,
``col_indices`` and ``values`` and computes through its COO form.

A sparse tensor has no dense ``_ms``: reading it raises ``SparseOperand``. The generated op wrappers
(``ops/_bind.py``) catch it and look the op up in the sparse table (``ops/_registry.SPARSE``, filled by
``ops/sparse.py``); an op that is not there raises torch's ``NotImplementedError: Could not run
'aten::<op>' with arguments from the 'SparseCPU' backend``.
"""
import sys

from . import _dtype as D
from . import _ms_private as P
from . import _printing as PR
from ._tensor import Tensor, _parse_to
from .overrides import _disabled_torch_function_impl
from ._size import Size
from ._layout import sparse_coo, sparse_csr
from .ops._registry import PUBLIC, SPARSE

_new = object.__new__


class SparseOperand(NotImplementedError):
    """A sparse tensor's dense storage was read: an op without a sparse implementation met it."""


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


def unsupported(op, t):
    return NotImplementedError(
        f"Could not run 'aten::{op}' with arguments from the '{t._backend}' backend. mstorch's sparse tensors "
        "support construction, coalesce, to_dense, indices/values, add/sub, mul/div, mm/addmm/matmul, "
        "index_select, transpose, sum, softmax and zero-preserving unary ops; call .to_dense() first for others.")


def _no_dense(self):
    raise SparseOperand(str(unsupported(_calling_op(), self)))


def sparse_call(name, args, kwargs):
    """Run op ``name`` whose arguments include a sparse tensor: its sparse implementation or torch's error."""
    impl = SPARSE.get(name)
    if impl is None:
        t = next((a for a in list(args) + list(kwargs.values()) if isinstance(a, _Sparse)), None)
        if t is None:   # inside a list argument (cat, stack...)
            t = next(x for a in args if isinstance(a, (list, tuple)) for x in a if isinstance(x, _Sparse))
        raise unsupported(name, t)
    return impl(*args, **kwargs)


def sparse_inplace(self, result, name):
    """``self.<op>_(...)`` when the op's result is sparse: the receiver takes the result's structure."""
    if not isinstance(self, _Sparse) or type(result) is not type(self):
        raise RuntimeError(f"{name}: in-place result layout {result.layout} differs from the receiver's {self.layout}")
    if self.requires_grad and self.is_leaf and P.grad_enabled():
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    if result.dtype is not self.dtype:
        if not D.can_cast(result.dtype, self.dtype):
            from ._tensor import scalar_type_name
            raise RuntimeError(f"result type {scalar_type_name(result.dtype)} can't be cast to the desired output "
                               f"type {scalar_type_name(self.dtype)}")
        result = result.to(self.dtype)
    self.__dict__.update(result.__dict__)
    return self


def _long(x):
    tensor = PUBLIC["tensor"]
    int64 = D.int64
    if isinstance(x, Tensor):
        return x if x.dtype is int64 else x.to(int64)
    return tensor(x, dtype=int64)


def make(indices, values, shape, coalesced):
    s = _new(SparseCooTensor)
    s._idx = indices
    s._vals = values
    s._shape = tuple(int(n) for n in shape)
    s._coalesced = bool(coalesced) or values.shape[0] <= 1   # torch: at most one entry is coalesced
    s._leaf = not values.requires_grad   # built from values that require grad: a node of their graph
    return s


def make_csr(crow, col, values, shape):
    s = _new(SparseCsrTensor)
    s._crow = crow
    s._col = col
    s._vals = values
    s._shape = tuple(int(n) for n in shape)
    s._leaf = not values.requires_grad
    return s


class _Sparse(Tensor):
    """What the sparse layouts share: size, dtype, autograd through ``_vals``, conversions, printing."""

    _ms = property(_no_dense)
    _backend = "SparseCPU"
    # sparse operands take the sparse table's path (SparseOperand), not __torch_function__
    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, *args, **kwargs):
        raise TypeError("use mstorch.sparse_coo_tensor / sparse_csr_tensor to build a sparse tensor")

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

    def _nnz(self):
        return self._vals.shape[0]

    def _values(self):
        return self._vals

    def is_contiguous(self, memory_format=None):
        raise RuntimeError(f"is_contiguous is not supported for sparse tensors (layout {self._layout_name})")

    # --- conversions -----------------------------------------------------------------------------

    def to(self, *args, **kwargs):
        dtype, _dev, _copy = _parse_to(args, kwargs)
        if dtype is None or dtype is self.dtype:
            return self
        return self._with_values(self._vals.to(dtype))

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
        return self._with_values(self._vals.detach())

    def clone(self, *, memory_format=None):
        return self._with_values(self._vals.clone(), copy=True)

    def numpy(self, *, force=False):
        raise TypeError(f"can't convert {self._layout_name} layout tensor to numpy. Use Tensor.to_dense() first.")

    def __reduce_ex__(self, protocol):
        raise NotImplementedError(
            "mstorch cannot serialize sparse tensors (torch.save of a sparse tensor); save its index and "
            "value tensors and its shape instead, or t.to_dense()")

    def __copy__(self):   # a new object over the same index and value tensors
        s = _new(type(self))
        s.__dict__.update(self.__dict__)
        return s

    def __deepcopy__(self, memo):
        vals = self._vals.detach().clone().requires_grad_(self._vals.requires_grad)
        return self._with_values(vals, copy=True)

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
        """torch: a sparse tensor made with requires_grad=True is a leaf; one made from values that
        require grad is a node of their graph."""
        return self._leaf

    @property
    def grad_fn(self):
        return self._vals.grad_fn

    @property
    def grad(self):
        """The gradient of ``_values()``, presented with this tensor's indices (torch's is sparse too)."""
        g = self._vals.grad
        return None if g is None else self._with_values(g)

    @grad.setter
    def grad(self, value):
        if value is not None:
            raise RuntimeError("mstorch: only None can be assigned to the grad of a sparse tensor")
        self._vals.grad = None

    # --- printing --------------------------------------------------------------------------------

    def __repr__(self, *, tensor_contents=None):
        indent = len("tensor(")

        def body(t, prefix):
            text = PR.tensor_str(PR._host_array(t), indent + len(prefix))
            if t.numel() == 0:
                text += f", size={tuple(t.shape)}"
            return prefix + text + ")"

        parts = [body(t, f"{name}=tensor(") for name, t in self._printed()]
        text = "tensor(" + (",\n" + " " * indent).join(parts)
        suffixes = [f"size={self._shape}", f"nnz={self._nnz()}"]
        if self.dtype not in (D.get_default_dtype(), D.default_complex(), D.int64, D.bool_):
            suffixes.append(f"dtype={self.dtype}")
        suffixes.append(f"layout={self.layout}")
        if self._vals.grad_fn is not None:
            suffixes.append(f"grad_fn=<{self._vals.grad_fn.name()}>")
        elif self.requires_grad:
            suffixes.append("requires_grad=True")
        # torch starts a COO tensor's suffixes on a new line, then wraps them at linewidth
        force = self.is_sparse
        out, last = [text], len(text) - text.rfind("\n") + 1
        for suffix in suffixes:
            if force or last + len(suffix) + 2 > PR._opts["linewidth"]:
                out.append(",\n" + " " * indent + suffix)
                last = indent + len(suffix)
                force = False
            else:
                out.append(", " + suffix)
                last += len(suffix) + 2
        return "".join(out) + ")"

    __str__ = __repr__


class SparseCooTensor(_Sparse):
    """torch.Tensor with ``layout=torch.sparse_coo``; its math lives in the sparse op table (ops/sparse.py)."""

    is_sparse = True
    is_sparse_csr = False
    layout = sparse_coo
    _layout_name = "Sparse"

    def _with_values(self, values, copy=False):
        s = make(self._idx.clone() if copy else self._idx, values, self._shape, self._coalesced)
        s._leaf = values.is_leaf   # detach, grad, deepcopy: leaves; computed values: graph nodes
        return s

    def _printed(self):
        return (("indices", self._idx), ("values", self._vals.detach()))

    def sparse_dim(self):
        return self._idx.shape[0]

    def dense_dim(self):
        return len(self._shape) - self._idx.shape[0]

    @property
    def nnz(self):   # not a torch attribute; kept for scripts written against older docs
        return self._nnz()

    def is_coalesced(self):
        return self._coalesced

    def _indices(self):
        return self._idx

    def indices(self):
        if not self._coalesced:
            raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call .coalesce() first")
        return self._idx

    def values(self):
        if not self._coalesced:
            raise RuntimeError("Cannot get values on an uncoalesced tensor, please call .coalesce() first")
        return self._vals

    def flat_index(self):
        """Row-major linear index over the sparse dims, one per stored entry (int64), and their count."""
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
        zeros = PUBLIC["zeros"]
        k = self._idx.shape[0]
        dense_shape = self._shape[k:]
        vals = self._vals if dtype is None else self._vals.to(dtype)
        if k == 0:   # a 0-sparse-dim tensor: the sum of its values
            return vals.sum(0) if self._nnz() else zeros(dense_shape, dtype=vals.dtype)
        flat, rows = self.flat_index()
        out = zeros((rows,) + tuple(dense_shape), dtype=vals.dtype)
        if self._nnz():
            out = out.index_add(0, flat, vals)
        return out.reshape(self._shape)

    def coalesce(self):
        if self._coalesced:
            return self
        import numpy as np
        tensor = PUBLIC["tensor"]
        zeros = PUBLIC["zeros"]
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

    def to_sparse(self, *args, layout=None, **kwargs):
        if layout is not None and layout is not self.layout:
            return self.to_sparse_csr() if repr(layout) == "torch.sparse_csr" else _no_layout(layout)
        return self

    def to_sparse_coo(self):
        return self

    def to_sparse_csr(self, dense_dim=None):
        """COO -> CSR (2-D, no dense dims): the coalesced entries, row pointers counted on the host."""
        import numpy as np
        tensor = PUBLIC["tensor"]
        if self.sparse_dim() != 2:
            raise RuntimeError("coo_to_sparse_csr: conversion from Sparse to SparseCsr for input tensors with "
                               f"sparse_dim()!={2} is not supported")
        c = self.coalesce()
        rows = c._idx[0].numpy() if c._nnz() else np.zeros(0, np.int64)
        crow = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=self._shape[0]))]).astype(np.int64)
        return make_csr(tensor(crow), c._idx[1], c._vals, self._shape)


class SparseCsrTensor(_Sparse):
    """torch.Tensor with ``layout=torch.sparse_csr`` (2-D): construction, conversion, and the table's
    ops through the equivalent COO tensor."""

    is_sparse = False
    is_sparse_csr = True
    layout = sparse_csr
    _layout_name = "SparseCsr"
    _backend = "SparseCsrCPU"

    def _with_values(self, values, copy=False):
        if copy:
            s = make_csr(self._crow.clone(), self._col.clone(), values, self._shape)
        else:
            s = make_csr(self._crow, self._col, values, self._shape)
        s._leaf = values.is_leaf
        return s

    def _printed(self):
        return (("crow_indices", self._crow), ("col_indices", self._col), ("values", self._vals.detach()))

    def crow_indices(self):
        return self._crow

    def col_indices(self):
        return self._col

    def values(self):
        return self._vals

    def sparse_dim(self):
        return 2

    def dense_dim(self):
        return len(self._shape) - 2

    def to_sparse(self, *args, layout=None, **kwargs):
        """The COO form: rows expanded from the row pointers; torch marks it coalesced."""
        if layout is not None and layout is not SparseCooTensor.layout:
            return self if layout is self.layout else _no_layout(layout)
        import numpy as np
        tensor = PUBLIC["tensor"]
        stack = PUBLIC["stack"]
        crow = self._crow.numpy().astype(np.int64)
        rows = tensor(np.repeat(np.arange(len(crow) - 1, dtype=np.int64), np.diff(crow)))
        return make(stack([rows, self._col.long()]), self._vals, self._shape, True)

    to_sparse_coo = to_sparse

    def to_sparse_csr(self, dense_dim=None):
        return self

    def to_dense(self, dtype=None, *, masked_grad=None):
        return self.to_sparse().to_dense(dtype)

    def coalesce(self):
        raise RuntimeError("coalesce expected sparse coordinate tensor layout but got SparseCsr")


def _no_layout(layout):
    raise NotImplementedError(f"mstorch: conversion to layout {layout} is not supported (COO and CSR only)")


def sparse_mm(sparse, dense):
    """sparse (n, k) @ dense (k, m) or (k,): gather dense rows by column index, scale, index_add."""
    zeros = PUBLIC["zeros"]
    if not isinstance(dense, Tensor):
        raise TypeError(f"mm(): argument 'mat2' (position 2) must be Tensor, not {type(dense).__name__}")
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
    tensor = PUBLIC["tensor"]
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
    s = make(idx, vals, shape, coalesced)
    s._leaf = s._leaf or requires_grad
    return s


def dense_to_sparse(t, sparse_dim=None):
    """Tensor.to_sparse(): a coalesced COO tensor of the non-zero entries (or rows, for sparse_dim)."""
    tensor = PUBLIC["tensor"]
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


def sparse_csr_tensor(crow_indices, col_indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None):
    """torch.sparse_csr_tensor (2-D; the index dtype, int32 or int64, is kept as given)."""
    tensor = PUBLIC["tensor"]
    int32 = D.int32
    int64 = D.int64
    crow = crow_indices if isinstance(crow_indices, Tensor) else tensor(crow_indices, dtype=int64)
    col = col_indices if isinstance(col_indices, Tensor) else tensor(col_indices, dtype=int64)
    vals = values if isinstance(values, Tensor) else tensor(values)
    if dtype is not None and vals.dtype is not dtype:
        vals = vals.to(dtype)
    for t in (crow, col):
        if t.dtype not in (int32, int64):
            raise RuntimeError(f"compressed_indices and plain_indices dtype must be Int or Long, but got "
                               f"{_scalar(t.dtype)}")
    if crow.ndim != 1 or col.ndim != 1 or vals.ndim != 1:
        raise NotImplementedError("mstorch: sparse_csr_tensor supports 1-D crow_indices, col_indices and values "
                                  "(no batch or dense dimensions)")
    if col.shape[0] != vals.shape[0]:
        raise RuntimeError(f"plain_indices.size(-1) == values.size(-dense_dim - 1) is not satisfied: "
                           f"{col.shape[0]} != {vals.shape[0]}")
    if size is None:
        ncols = int(col.max().item()) + 1 if col.shape[0] else 0
        size = (crow.shape[0] - 1, ncols)
    shape = tuple(int(s) for s in size)
    if len(shape) != 2:
        raise NotImplementedError("mstorch: sparse_csr_tensor supports 2-D tensors only")
    if crow.shape[0] != shape[0] + 1:
        raise RuntimeError(f"compressed_indices.size(-1) == size[0] + 1 is not satisfied: "
                           f"{crow.shape[0]} != {shape[0] + 1}")
    if requires_grad:
        if not (vals.dtype.is_floating_point or vals.dtype.is_complex):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        vals = vals.detach().requires_grad_(True)
    s = make_csr(crow, col, vals, shape)
    s._leaf = s._leaf or requires_grad
    return s


# --- Tensor members owned here (installed on Tensor by mstorch/_install.py) ---------------------------------

def _to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    """A coalesced COO (or, with ``layout=torch.sparse_csr``, CSR) tensor of the non-zero entries."""
    if (layout is not None and repr(layout) not in ("torch.sparse_coo", "torch.sparse_csr")) \
            or blocksize is not None:
        raise NotImplementedError(f"mstorch: to_sparse(layout={layout}) is not supported (COO and CSR only)")
    if dense_dim is not None:
        sparse_dim = self._ms.ndim - dense_dim
    coo = dense_to_sparse(self, sparse_dim)
    return coo.to_sparse_csr() if repr(layout) == "torch.sparse_csr" else coo


TENSOR_MEMBERS = {"to_sparse": _to_sparse}
