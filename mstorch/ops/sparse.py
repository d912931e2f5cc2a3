"""The sparse op table: torch ops called with a sparse COO (or CSR) argument.

Each entry receives mstorch objects (see ``_registry.SPARSE``) and computes with dense mstorch ops on
the sparse tensor's ``_idx``/``_vals``, so autograd reaches the values and the dense operands. Index
bookkeeping (merging, intersecting, grouping entries) is done on the host with NumPy, as torch's CPU
kernels do it serially; the value arithmetic stays on the device. CSR operands go through their COO
form and come back as CSR where torch returns CSR.
"""
import numpy as np

from .. import _dtype as D
from .._sparse_tensor import SparseCooTensor, SparseCsrTensor, make, sparse_mm, unsupported
from .._tensor import Tensor
from ._registry import PUBLIC, register, register_sparse




def _is_sparse(x):
    return isinstance(x, (SparseCooTensor, SparseCsrTensor))


def _coo(x):
    return x.to_sparse() if isinstance(x, SparseCsrTensor) else x


def _like_input(result, x):
    """CSR in, CSR out: torch keeps the compressed layout for elementwise results."""
    return result.to_sparse_csr() if isinstance(x, SparseCsrTensor) else result


def _keys(s):
    """Row-major linear index of each entry over the sparse dims (host int64)."""
    k = s.sparse_dim()
    if s._nnz() == 0:
        return np.zeros(0, np.int64)
    return np.ravel_multi_index(tuple(s._idx.numpy()), s._shape[:k]).astype(np.int64)


def _from_keys(keys, shape, k):
    tensor = PUBLIC["tensor"]
    if len(keys) == 0:
        return tensor(np.zeros((k, 0), np.int64))
    return tensor(np.stack(np.unravel_index(keys, shape[:k])).astype(np.int64).reshape(k, -1))


def _scatter_rows(n, parts, like):
    """A (n, *dense) value tensor: ``zeros.index_add`` of each (positions, values) part, in order."""
    zeros = PUBLIC["zeros"]
    tensor = PUBLIC["tensor"]
    out = zeros((n,) + tuple(like.shape[1:]), dtype=like.dtype)
    for pos, vals in parts:
        if len(pos):
            out = out.index_add(0, tensor(np.asarray(pos, np.int64)), vals)
    return out


def _check_same_size(a, b, name):
    if tuple(a.shape) != tuple(b.shape):
        raise RuntimeError(f"{name}: expected sizes of 'self' and 'other' to match, but {list(a.shape)} != "
                           f"{list(b.shape)}")


# --- add / sub ------------------------------------------------------------------------------------

def _merge(t_keys, s_keys):
    """torch's CPU sparse add: one pass over both entry lists comparing indices, equal indices meeting
    in one output entry. Returns the output keys and each input entry's output position."""
    t_list, s_list = t_keys.tolist(), s_keys.tolist()
    nt, ns = len(t_list), len(s_list)
    out, t_pos, s_pos = [], [], []
    i = j = 0
    while i < nt or j < ns:
        if i >= nt:
            cmp = -1
        elif j >= ns:
            cmp = 1
        else:
            a, b = t_list[i], s_list[j]
            cmp = 1 if a < b else (-1 if a > b else 0)
        r = len(out)
        if cmp >= 0:
            out.append(t_list[i])
            t_pos.append(r)
            i += 1
        if cmp <= 0:
            if cmp < 0:
                out.append(s_list[j])
            s_pos.append(r)
            j += 1
    return np.asarray(out, np.int64), t_pos, s_pos


def _sparse_add(a, b, alpha):
    _check_same_size(a, b, "add")
    if a.sparse_dim() != b.sparse_dim():
        raise RuntimeError(f"add: expected 'self' and 'other' to have same sparse dims, but self has "
                           f"{a.sparse_dim()} sparse dims while other has {b.sparse_dim()}")
    dtype = D.promote_types(a.dtype, b.dtype)
    av = a._vals.to(dtype)
    bv = b._vals.to(dtype)
    if b._nnz() == 0:
        return make(a._idx, av, a._shape, a._coalesced)
    if alpha != 1:
        bv = bv * alpha
    if a._nnz() == 0:
        return make(b._idx, bv, b._shape, b._coalesced)
    k = a.sparse_dim()
    tk, sk = _keys(a), _keys(b)
    if a._coalesced and b._coalesced:   # both sorted without repeats: the merge is the sorted union
        keys = np.union1d(tk, sk)
        t_pos, s_pos = np.searchsorted(keys, tk), np.searchsorted(keys, sk)
    else:
        keys, t_pos, s_pos = _merge(tk, sk)
    vals = _scatter_rows(len(keys), [(t_pos, av), (s_pos, bv)], av)
    return make(_from_keys(keys, a._shape, k), vals, a._shape, a._coalesced and b._coalesced)


def _add_like(input, other, alpha, name):
    if _is_sparse(other) and not _is_sparse(input) and (name == "sub" or isinstance(input, Tensor)):
        # dense +- sparse is dense; torch refuses to broadcast here (``number - sparse`` included, but
        # ``number + sparse`` is torch's ``sparse.add(number)``)
        size = list(input.shape) if isinstance(input, Tensor) else []
        if size != list(other.shape):
            raise RuntimeError(f"add: expected 'self' and 'other' to have same size, but self has size {size} while "
                               f"other has size {list(other.shape)} (FYI: dense-sparse addition does not currently "
                               "support broadcasting)")
        return PUBLIC[name](input, other.to_dense(), alpha=alpha)
    if not _is_sparse(other) or not _is_sparse(input):
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
    if type(input) is not type(other):
        raise NotImplementedError(f"mstorch: {name} of {input.layout} and {other.layout} tensors is not supported")
    sign = -1 if name == "sub" else 1
    return _like_input(_sparse_add(_coo(input), _coo(other), sign * alpha), input)


@register_sparse("add")
def add(input, other, *, alpha=1):
    return _add_like(input, other, alpha, "add")


@register_sparse("sub")
def sub(input, other, *, alpha=1):
    return _add_like(input, other, alpha, "sub")


# --- mul / div ------------------------------------------------------------------------------------

def _is_scalar(x):
    return not isinstance(x, Tensor) or (not _is_sparse(x) and x.ndim == 0)


def _at_indices(s, dense):
    """``dense`` (broadcast to the sparse tensor's shape) read at each stored entry: (nnz, *dense_shape)."""
    from ._views import broadcast_shape
    shape = tuple(broadcast_shape((tuple(dense.shape), s._shape)))
    if shape != s._shape:
        raise NotImplementedError(f"mstorch: sparse * dense broadcasting the sparse tensor of shape {list(s._shape)} "
                                  f"to {list(shape)} is not supported")
    k = s.sparse_dim()
    flat, rows = s.flat_index()
    full = dense.expand(s._shape).reshape((rows,) + s._shape[k:])
    return full.index_select(0, flat) if s._nnz() else full[:0]


def _times_lookup(s, other, s_first):
    """Each entry of ``s`` times ``other``'s coalesced value at the same index; exactly zero where
    ``other`` has none."""
    tensor = PUBLIC["tensor"]
    zeros_like = PUBLIC["zeros_like"]
    where = PUBLIC["where"]
    c = other.coalesce()
    ck, sk = _keys(c), _keys(s)
    if not len(ck):
        return zeros_like(s._vals).to(D.promote_types(s.dtype, c.dtype))
    pos = np.minimum(np.searchsorted(ck, sk), len(ck) - 1)
    found = ck[pos] == sk
    got = c._vals.index_select(0, tensor(pos.astype(np.int64)))
    prod = s._vals * got if s_first else got * s._vals
    mask = tensor(found.reshape((-1,) + (1,) * (prod.ndim - 1)))
    return where(mask, prod, zeros_like(prod))


def _sparse_mul(a, b):
    if a._shape[:a.sparse_dim()] != b._shape[:b.sparse_dim()] or a.ndim != b.ndim:
        raise RuntimeError("sparse_binary_op_intersection_cpu(): expects sparse inputs with equal dimensionality, "
                           "number of sparse dimensions, and shape of sparse dimensions")
    if a._coalesced and b._coalesced:   # the entries stored in both, in index order
        tensor = PUBLIC["tensor"]
        ak, bk = _keys(a), _keys(b)
        keys, ia, ib = np.intersect1d(ak, bk, assume_unique=True, return_indices=True)
        vals = a._vals.index_select(0, tensor(ia.astype(np.int64))) * \
            b._vals.index_select(0, tensor(ib.astype(np.int64)))
        return make(_from_keys(keys, a._shape, a.sparse_dim()), vals, a._shape, True)
    if not a._nnz() or not b._nnz():
        zeros = PUBLIC["zeros"]
        vals = zeros((0,) + tuple(a._vals.shape[1:]), dtype=D.promote_types(a.dtype, b.dtype))
        return make(a._idx[:, :0], vals, a._shape, True)
    # torch looks up the operand that is "probably coalesced" (coalesced, else the one with more entries,
    # else the first) and keeps the other's entries, each times the looked-up value at its index
    looked_up = a if a._coalesced or (not b._coalesced and a._nnz() >= b._nnz()) else b
    src, other = (b, a) if looked_up is a else (a, b)
    return make(src._idx, _times_lookup(src, other, src is a), src._shape, False)


@register_sparse("mul")
def mul(input, other):
    if _is_sparse(input) and _is_sparse(other):
        if type(input) is not type(other):
            raise NotImplementedError(f"mstorch: mul of {input.layout} and {other.layout} tensors is not supported")
        return _like_input(_sparse_mul(_coo(input), _coo(other)), input)
    s, d = (input, other) if _is_sparse(input) else (other, input)
    if _is_scalar(d):
        vals = s._vals * d if s is input else d * s._vals
        return s._with_values(vals)
    c = _coo(s)
    at = _at_indices(c, d)
    vals = c._vals * at if s is input else at * c._vals
    return _like_input(make(c._idx, vals, c._shape, c._coalesced), s)


@register_sparse("div")
def div(input, other, *, rounding_mode=None):
    if not _is_sparse(input) or not _is_scalar(other):
        shape = list(other.shape) if isinstance(other, Tensor) else []
        raise RuntimeError(f"Sparse division requires a scalar or zero-dim dense tensor divisor (got shape {shape} "
                           "for divisor)")
    if rounding_mode is not None and isinstance(input, SparseCooTensor):
        input = input.coalesce()   # rounding is not linear: torch sums repeated entries first
    return input._with_values(PUBLIC["div"](input._vals, other, rounding_mode=rounding_mode))


# --- unary ops that map zero to zero -------------------------------------------------------------

@register_sparse("neg")
def neg(input):   # linear: duplicates need no coalescing
    return input._with_values(-input._vals)


_ZERO_PRESERVING = ("abs", "sqrt", "relu", "sin", "sinh", "tan", "tanh", "asin", "asinh", "atan", "atanh", "sign",
                    "sgn", "floor", "ceil", "round", "trunc", "frac", "expm1", "log1p", "square", "erf", "erfinv",
                    "deg2rad", "rad2deg")


def _zero_preserving(name):
    def op(input, *args, **kwargs):
        # torch coalesces first: f(a + b) is not f(a) + f(b)
        s = input.coalesce() if isinstance(input, SparseCooTensor) else input
        return s._with_values(PUBLIC[name](s._vals, *args, **kwargs))
    op.__name__ = name
    return op


for _name in _ZERO_PRESERVING:
    register_sparse(_name)(_zero_preserving(_name))


@register_sparse("pow")
def pow(input, exponent):  # noqa: A001  (torch's name)
    if not _is_sparse(input) or isinstance(exponent, Tensor):
        raise unsupported("pow", input if _is_sparse(input) else exponent)
    if exponent == 0:
        raise RuntimeError("pow: cannot raise to zeroth power on sparse tensor; it would make the result tensor dense")
    s = input.coalesce() if isinstance(input, SparseCooTensor) else input
    return s._with_values(s._vals ** exponent)


# --- products ------------------------------------------------------------------------------------

def _sparse_sparse_mm(a, b):
    """sparse (n, k) @ sparse (k, m): every pair of entries meeting on k, summed per output index."""
    tensor = PUBLIC["tensor"]
    if a.ndim != 2 or b.ndim != 2 or a.dense_dim() or b.dense_dim():
        raise RuntimeError("mstorch: sparse @ sparse supports 2-D sparse tensors with sparse_dim 2 only")
    if a._shape[1] != b._shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a._shape[0]}x{a._shape[1]} and "
                           f"{b._shape[0]}x{b._shape[1]})")
    if a.dtype is not b.dtype:
        raise RuntimeError(f"expected scalar type {_sname(a.dtype)} but found {_sname(b.dtype)}")
    shape = (a._shape[0], b._shape[1])
    ai, bi = (a._idx.numpy(), b._idx.numpy()) if a._nnz() and b._nnz() else (np.zeros((2, 0), np.int64),) * 2
    order = np.argsort(bi[0], kind="stable")
    starts = np.searchsorted(bi[0][order], ai[1], "left")
    counts = np.searchsorted(bi[0][order], ai[1], "right") - starts
    left = np.repeat(np.arange(ai.shape[1]), counts)
    offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    right = order[np.repeat(starts, counts) + offsets]
    keys = ai[0][left] * shape[1] + bi[1][right]
    uniq, inverse = np.unique(keys, return_inverse=True)
    if len(left):
        prod = a._vals.index_select(0, tensor(left.astype(np.int64))) * b._vals.index_select(
            0, tensor(right.astype(np.int64)))
    else:
        prod = a._vals[:0]
    vals = _scatter_rows(len(uniq), [(inverse.reshape(-1), prod)], prod)
    return make(_from_keys(uniq, shape, 2), vals, shape, True)


def _sname(dtype):
    from .._tensor import scalar_type_name
    return scalar_type_name(dtype)


def _matmul(a, b):
    if _is_sparse(a) and _is_sparse(b):
        r = _sparse_sparse_mm(_coo(a), _coo(b))
        return _like_input(r, a)
    if _is_sparse(a):
        return sparse_mm(_coo(a), b)
    # dense @ sparse = (sparse^T @ dense^T)^T
    if a.ndim == 1:
        return sparse_mm(_coo(b).t(), a)
    return sparse_mm(_coo(b).t(), a.t()).t()


@register_sparse("mm", "matmul")
def mm(input, mat2):
    return _matmul(input, mat2)


@register_sparse("mv")
def mv(input, vec):
    return _matmul(input, vec)


@register_sparse("addmm")
def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    if _is_sparse(input):
        raise RuntimeError(f"addmm_sparse_dense: expected strided result tensor, got tensor with layout "
                           f"{input._layout_name}")
    if _is_sparse(mat1) and mat1._nnz() == 0:   # torch's kernel returns beta * input (NaN * 0 included)
        return input * beta
    prod = _matmul(mat1, mat2)
    if _is_sparse(prod):
        prod = prod.to_dense()
    if alpha != 1:
        prod = prod * alpha
    if beta == 0:   # torch ignores ``input`` (NaN included), as dense addmm does
        return prod.expand(input.shape).clone() if tuple(prod.shape) != tuple(input.shape) else prod
    return (input * beta if beta != 1 else input) + prod


# --- structure -----------------------------------------------------------------------------------

@register_sparse("index_select")
def index_select(input, dim, index):
    """Entries whose index along ``dim`` is selected, grouped by position in ``index`` (then in stored
    order), as torch's CPU kernel lists them; the result is not coalesced."""
    tensor = PUBLIC["tensor"]
    s = _coo(input)
    n = s.ndim
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    dim %= n
    k = s.sparse_dim()
    sel = index.numpy().reshape(-1).astype(np.int64)
    size = s._shape[dim]
    bad = sel[(sel < -size) | (sel >= size)]
    if bad.size:
        raise IndexError(f"index_select(): index contains {bad[0]} that is out of range for tensor of size "
                         f"{list(s._shape)} at dimension {dim}")
    sel = np.where(sel < 0, sel + size, sel)
    shape = list(s._shape)
    shape[dim] = len(sel)
    if dim >= k:   # a dense dim: select inside the values
        return make(s._idx, s._vals.index_select(dim - k + 1, index), shape, s._coalesced)
    coord = s._idx[dim].numpy() if s._nnz() else np.zeros(0, np.int64)
    order = np.argsort(coord, kind="stable")
    starts = np.searchsorted(coord[order], sel, "left")
    counts = np.searchsorted(coord[order], sel, "right") - starts
    offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    picked = order[np.repeat(starts, counts) + offsets].astype(np.int64)
    idx = s._idx.numpy()[:, picked] if s._nnz() else np.zeros((k, 0), np.int64)
    idx[dim] = np.repeat(np.arange(len(sel)), counts)
    vals = s._vals.index_select(0, tensor(picked)) if len(picked) else s._vals[:0]
    return make(tensor(idx.astype(np.int64)), vals, shape, False)


@register_sparse("transpose")
def transpose(input, dim0, dim1):
    if isinstance(input, SparseCsrTensor):
        raise NotImplementedError("mstorch: transposing a sparse CSR tensor (a CSC tensor in torch) is not supported")
    s = input
    n = s.ndim
    d0, d1 = dim0 % n if n else 0, dim1 % n if n else 0
    k = s.sparse_dim()
    if d0 >= k or d1 >= k:
        raise NotImplementedError("mstorch: transpose of a dense dimension of a hybrid sparse tensor is not supported")
    if d0 == d1:
        return s
    stack = PUBLIC["stack"]
    rows = [s._idx[i] for i in range(k)]
    rows[d0], rows[d1] = rows[d1], rows[d0]
    shape = list(s._shape)
    shape[d0], shape[d1] = shape[d1], shape[d0]
    return make(stack(rows), s._vals, shape, False)


@register_sparse("t")
def t(input):
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    return input if input.ndim < 2 else transpose(input, 0, 1)


# --- reductions ----------------------------------------------------------------------------------

def sparse_sum(input, dim=None, keepdim=False, dtype=None):
    """torch.sparse.sum / Tensor.sum on a sparse tensor: all dims give a dense 0-d tensor; reducing some
    dims gives a coalesced sparse tensor over the remaining sparse dims (dense once none remain)."""
    s = _coo(input)
    vals = s._vals if dtype is None else s._vals.to(dtype)
    if dim is None:
        return vals.sum()
    n = s.ndim
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    for d in dims:
        if not -n <= d < n:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
    dims = sorted({d % n for d in dims})
    k = s.sparse_dim()
    dense_red = [d - k + 1 for d in dims if d >= k]
    if dense_red:
        vals = vals.sum(dense_red)
    keep = [d for d in range(k) if d not in dims]
    shape = [s._shape[d] for d in range(n) if d not in dims]
    if not keep:
        out = vals.sum(0) if s._nnz() else vals.new_zeros(shape)
        for d in dims if keepdim else ():
            out = out.unsqueeze(d)
        return out
    r = make(s._idx[keep], vals, shape, False).coalesce()
    if keepdim:
        zeros = PUBLIC["zeros"]
        stack = PUBLIC["stack"]
        int64 = D.int64
        rows = [r._idx[keep.index(d)] if d in keep else zeros(r._nnz(), dtype=int64) for d in range(k)]
        full = [1 if d in dims else s._shape[d] for d in range(n)]
        return make(stack(rows) if rows else r._idx, r._vals, full, False)
    return r


@register_sparse("sum")
def sum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A001  (torch's name)
    return sparse_sum(input, dim, keepdim, dtype)


@register("native_norm", family="sparse", namespace="torch", raw=True)
def native_norm(input, p=2, dim=None, keepdim=False, dtype=None):
    """torch's sparse-only norm: the ``p``-norm of a COO tensor's coalesced values, a full reduction only. Dense
    tensors have no kernel in torch's CPU build, so they refuse as there."""
    if not isinstance(input, SparseCooTensor):
        raise NotImplementedError(f"Could not run 'aten::native_norm{'' if dim is None else '.ScalarOpt_dim_dtype'}' "
                                  "with arguments from the 'CPU' backend. 'aten::native_norm' has kernels for the "
                                  "sparse layout only.")
    if dim is not None and sorted(d % max(input.dim(), 1) for d in dim) != list(range(input.dim())):
        raise RuntimeError("norm_sparse currently only supports full reductions, so 'dim' must either be empty or "
                           "contain all dimensions of the input")
    if keepdim:
        raise RuntimeError("norm_sparse currently does not support keepdim=True")
    if dtype is not None:
        raise RuntimeError("norm_sparse currently does not support 'dtype' argument")
    return PUBLIC["linalg.vector_norm"](input.coalesce()._vals, 2 if p is None else p)
