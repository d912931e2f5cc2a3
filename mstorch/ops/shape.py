"""Shape ops: view/reshape/permute/squeeze/expand, cat/stack/split/chunk, flip/roll/repeat, triu/diag...

The ops torch documents as views are ``raw`` and return views (``_views.make_view``) so in-place
writes through them reach the base. The others return tensors with storage of their own (``solid``):
an in-place op on them must never write into an input.
"""
import math
import os
import warnings

import numpy as np
import mindspore as ms
from .._runtime import read_host
from . import _msops as ops

from .. import _dtype as D
from .. import _ms_private as P
from .._tensor import Tensor, wrap, scalar_type_name
from ._helpers import wrap_dim, wrap_dims, result_type, cast, _scalar_name
from ._registry import register
from ._views import (make_view, fresh, solid, owns_storage, empty_from, index_view, reshape_pair,
                     scatter_positions, grad_source, bf16_selection,
                     permute_pair, diagonal_pair, dtype_pair, bitcast, infer_shape, shape_args, reshape_view,
                     expand_view, broadcast_shape, repeated_writes, check_no_overlap)

F = "shape"
_COMPLEX = (ms.complex64, ms.complex128)


def _kern(fn, t, *args, complex_parts=False):
    """Run a data-movement kernel; CPU lacks bfloat16 (exact through float32) and, for some, complex."""
    dt = t.dtype
    if dt == ms.bfloat16:
        return cast(fn(cast(t, ms.float32), *args), ms.bfloat16)
    if complex_parts and dt in _COMPLEX:
        return ops.complex_of_parts(fn(ops.real(t), *args), fn(ops.imag(t), *args))
    return fn(t, *args)


def _int_arg(x):
    return int(x) if isinstance(x, Tensor) else x


# --- view / reshape -----------------------------------------------------------------------------

@register("view", family=F, namespace="Tensor", raw=True)
def view(self, *shape, dtype=None):
    if shape and isinstance(shape[0], D.dtype):
        dtype, shape = shape[0], ()
    if dtype is not None:
        return _view_dtype(self, dtype)
    t = self._ms
    shape = infer_shape(shape_args(shape), t.size)
    r = t.reshape(shape)
    if not t.is_contiguous() and owns_storage(r, t) and t.size:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one dimension spans "
            "across two contiguous subspaces). Use .reshape(...) instead.")
    return make_view(self, r, *reshape_pair(shape))


def _view_dtype(self, dtype):
    src = self.dtype
    if dtype is src:
        return reshape_view(self, self._ms.shape)
    shape = list(self._ms.shape)
    if src.itemsize != dtype.itemsize:
        if not shape:
            raise RuntimeError("self.dim() cannot be 0 if self.element_size() != dtype.element_size()")
        _check_view_dtype_layout(self, shape, src, dtype)
    return make_view(self, bitcast(self._ms, dtype), *dtype_pair(src, dtype))


def _check_view_dtype_layout(self, shape, src, dtype):
    """torch's checks of a view as a dtype of another element size, in its order: the last dim (its size
    when elements merge) and its stride, then the storage offset and the other strides (when they merge)."""
    what = f" to view {D.SCALAR_TYPE_NAMES[src]} as {D.SCALAR_TYPE_NAMES[dtype]} (different element sizes), but got "
    ratio = dtype.itemsize // src.itemsize
    if ratio > 1 and shape[-1] % ratio:
        raise RuntimeError(f"self.size(-1) must be divisible by {ratio}{what}{shape[-1]}")
    strides = self.stride()
    if strides[-1] != 1:
        raise RuntimeError(f"self.stride(-1) must be 1{what}{strides[-1]}")
    if ratio > 1:
        if self.storage_offset() % ratio:
            raise RuntimeError(f"self.storage_offset() must be divisible by {ratio}{what}{self.storage_offset()}")
        for i, st in enumerate(strides[:-1]):
            if st % ratio:
                raise RuntimeError(f"self.stride({i}) must be divisible by {ratio}{what}{st}")


@register("reshape", family=F, raw=True)
def reshape(input, *shape):
    t = input._ms
    shape = infer_shape(shape_args(shape, "reshape"), t.size)
    r = t.reshape(shape)
    if t.is_contiguous() or not owns_storage(r, t):
        return make_view(input, r, *reshape_pair(shape))
    return wrap(r)   # torch copies when strides do not allow a view


@register("_shape_as_tensor", family=F, namespace="torch")
def _shape_as_tensor(input):
    """torch._shape_as_tensor (torch.onnx.operators.shape_as_tensor): the shape as an int64 tensor."""
    if not isinstance(input, ms.Tensor):
        raise TypeError(f"_shape_as_tensor(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return ms.Tensor(np.array(input.shape, dtype=np.int64))


@register("_reshape_from_tensor", family=F, namespace="torch", raw=True)
def _reshape_from_tensor(input, shape):
    """torch._reshape_from_tensor (torch.onnx.operators.reshape_from_tensor_shape): reshape to a 1-D shape tensor's
    values."""
    if not isinstance(shape, Tensor):
        raise TypeError("_reshape_from_tensor(): argument 'shape' (position 2) must be Tensor, not "
                        f"{type(shape).__name__}")
    if shape.dim() != 1:
        raise RuntimeError("Expected shape_tensor.dim() == 1 to be true, but got false.  (Could this error message "
                           "be improved?  If so, please report an enhancement request to PyTorch.)")
    if shape.dtype != D.int64:
        raise RuntimeError(f"expected scalar type Long but found {D.SCALAR_TYPE_NAMES[shape.dtype]}")
    return reshape(input, tuple(int(v) for v in shape.tolist()))


@register("view_as", family=F, namespace="Tensor", raw=True)
def view_as(self, other):
    return view(self, tuple(other._ms.shape))


@register("reshape_as", family=F, namespace="Tensor", raw=True)
def reshape_as(self, other):
    return reshape(self, tuple(other._ms.shape))


@register("flatten", family=F, raw=True)
def flatten(input, start_dim=0, end_dim=-1):
    shape = input._ms.shape
    n = len(shape)
    s, e = wrap_dim(start_dim, n), wrap_dim(end_dim, n)   # (a 0-d tensor's dims are checked as a 1-d one's)
    if n == 0:
        return reshape_view(input, (1,))
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    return reshape(input, tuple(shape[:s]) + (math.prod(shape[s:e + 1]),) + tuple(shape[e + 1:]))


@register("unflatten", family=F, raw=True)
def unflatten(input, dim, sizes):
    shape = input._ms.shape
    d = wrap_dim(dim, len(shape))
    if not shape:   # then size(dim), inside torch's own error
        raise RuntimeError(f"unflatten got an unexpected error:\nDimension specified as {dim} but tensor has no "
                           "dimensions")
    sizes = list(shape_args((sizes,), "unflatten"))
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    known = math.prod(s for s in sizes if s != -1)
    if sizes.count(-1) > 1:
        raise RuntimeError("unflatten got an unexpected error:\nonly one dimension can be inferred")
    if -1 in sizes:
        if known == 0 or shape[d] % known:
            raise RuntimeError(f"shape '{sizes}' is invalid for input of size {shape[d]}")
        sizes[sizes.index(-1)] = shape[d] // known
    elif known != shape[d]:
        raise RuntimeError(f"unflatten: Provided sizes {sizes} don't multiply up to the size of dim {d} "
                           f"({shape[d]}) in the input tensor")
    return reshape_view(input, tuple(shape[:d]) + tuple(sizes) + tuple(shape[d + 1:]))


@register("unsqueeze", family=F, raw=True)
def unsqueeze(input, dim):
    shape = input._ms.shape
    d = wrap_dim(dim, len(shape) + 1)
    return reshape_view(input, tuple(shape[:d]) + (1,) + tuple(shape[d:]))


@register("squeeze", family=F, raw=True)
def squeeze(input, dim=None):
    shape = input._ms.shape
    if dim is None:
        new = tuple(s for s in shape if s != 1)
    else:
        dims = wrap_dims(dim, len(shape)) if not isinstance(dim, int) else (wrap_dim(dim, len(shape)),)
        new = tuple(s for i, s in enumerate(shape) if not (i in dims and s == 1))
    return reshape_view(input, new)


def _atleast(tensors, n):
    single = len(tensors) == 1 and isinstance(tensors[0], Tensor)
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    out = []
    for t in tensors:
        shape = tuple(t._ms.shape)
        k = len(shape)
        if k >= n:
            out.append(t)
            continue
        if n == 3 and k == 2:
            new = shape + (1,)
        elif n == 3 and k == 1:
            new = (1,) + shape + (1,)
        else:
            new = (1,) * (n - k) + shape
        out.append(reshape_view(t, new))
    return out[0] if single else tuple(out)


@register("atleast_1d", family=F, namespace="torch", raw=True)
def atleast_1d(*tensors):
    return _atleast(tensors, 1)


@register("atleast_2d", family=F, namespace="torch", raw=True)
def atleast_2d(*tensors):
    return _atleast(tensors, 2)


@register("atleast_3d", family=F, namespace="torch", raw=True)
def atleast_3d(*tensors):
    return _atleast(tensors, 3)


# --- permutations ---------------------------------------------------------------------------------

def _permute_view(input, perm):
    return make_view(input, ops.transpose(input._ms, perm), *permute_pair(perm))


@register("permute", family=F, raw=True)
def permute(input, *dims):
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = dims[0]
    n = input._ms.ndim
    if len(dims) != n:
        raise RuntimeError(
            f"permute(sparse_coo): number of dimensions in the tensor input does not match the length of "
            f"the desired ordering of dimensions i.e. input.dim() = {n} is not equal to len(dims) = {len(dims)}")
    perm = tuple(wrap_dim(d, n) for d in dims)
    if len(set(perm)) != n:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return _permute_view(input, perm)


@register("transpose", family=F, raw=True, aliases=("swapaxes", "swapdims"))
def transpose(input, dim0, dim1):
    n = input._ms.ndim
    d0, d1 = wrap_dim(dim0, n), wrap_dim(dim1, n)
    if n == 0:
        return reshape_view(input, ())
    perm = list(range(n))
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return _permute_view(input, tuple(perm))


@register("t", family=F, raw=True)
def t(input):
    n = input._ms.ndim
    if n > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {n}D")
    if n < 2:
        return reshape_view(input, input._ms.shape)
    return _permute_view(input, (1, 0))


@register("movedim", family=F, raw=True, aliases=("moveaxis",))
def movedim(input, source, destination):
    n = input._ms.ndim
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({src} dims) should contain the same "
            f"number of dims as destination ({dst} dims)")
    src_w = [wrap_dim(d, n) for d in src]
    dst_w = [wrap_dim(d, n) for d in dst]
    if len(set(src_w)) != len(src_w):
        raise RuntimeError(f"movedim: repeated dim in `source` ({src})")
    if len(set(dst_w)) != len(dst_w):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({dst})")
    if n == 0:   # (a 0-d tensor moves nothing, once its dims are checked as a 1-d one's)
        return reshape_view(input, ())
    perm = [-1] * n
    for s, d in zip(src_w, dst_w):
        perm[d] = s
    rest = iter(i for i in range(n) if i not in src_w)
    perm = tuple(p if p >= 0 else next(rest) for p in perm)
    return _permute_view(input, perm)


# --- expand -----------------------------------------------------------------------------------------

@register("expand", family=F, namespace="Tensor", raw=True)
def expand(self, *sizes):
    return expand_view(self, shape_args(sizes, "expand"))


@register("expand_as", family=F, namespace="Tensor", raw=True)
def expand_as(self, other):
    return expand_view(self, tuple(other._ms.shape))


@register("broadcast_to", family=F, raw=True)
def broadcast_to(input, size):
    return expand_view(input, shape_args((size,), "broadcast_to"))   # torch's messages name expand


@register("broadcast_tensors", family=F, namespace="torch", raw=True)
def broadcast_tensors(*tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    shape = broadcast_shape([t._ms.shape for t in tensors])
    return tuple(expand_view(t, shape) for t in tensors)


@register("meshgrid", family=F, namespace="torch", raw=True)
def meshgrid(*tensors, indexing=None):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
                      "argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        if t._ms.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}")
        if t.dtype is not tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    sizes = [t._ms.size for t in tensors]
    swap = indexing == "xy" and len(tensors) >= 2
    if swap:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    shape = tuple(sizes)
    out = []
    for i, t in enumerate(tensors):
        pos = (1 - i if i < 2 else i) if swap else i
        pre = tuple(s if k == pos else 1 for k, s in enumerate(shape))
        flat = reshape_view(t, pre)
        out.append(expand_view(flat, shape))
    return tuple(out)


@register("cartesian_prod", family=F, namespace="torch", raw=True)
def cartesian_prod(*tensors):
    for t in tensors:
        if t._ms.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t._ms.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return wrap(ops.stack([g._ms.reshape(-1) for g in grids], 1))


# --- narrow / select / split family (views) ---------------------------------------------------

def _slice_view(input, d, start, stop, multi=None):
    return index_view(input, (slice(None),) * d + (slice(start, stop),), multi)


@register("narrow", family=F, raw=True)
def narrow(input, dim, start, length):
    shape = input._ms.shape
    if not shape:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(_int_arg(dim), len(shape))
    start, length = _int_arg(start), _int_arg(length)
    size = shape[d]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return _slice_view(input, d, start, start + length)


@register("select", family=F, raw=True)
def select(input, dim, index):
    shape = input._ms.shape
    if not shape:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, len(shape))
    index = _int_arg(index)
    if not -shape[d] <= index < shape[d]:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(shape)} at "
                         f"dimension {d}")
    return index_view(input, (slice(None),) * d + (index,))


def _pieces(input, d, bounds, fn=None):
    """Views for split/chunk (``fn`` names torch's multi-output function) and tensor_split."""
    return tuple(_slice_view(input, d, a, b, None if fn is None else (i, fn)) for i, (a, b) in enumerate(bounds))


@register("split", family=F, raw=True)
def split(tensor, split_size_or_sections, dim=0):
    shape = tensor._ms.shape
    if not shape:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = wrap_dim(dim, len(shape))
    size = shape[d]
    s = split_size_or_sections
    if isinstance(s, (list, tuple)):
        s = [_int_arg(x) for x in s]
        if sum(s) != size or any(x < 0 for x in s):
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's "
                               f"size at dimension {d}), but got split_sizes={s}")
        bounds, pos = [], 0
        for x in s:
            bounds.append((pos, pos + x))
            pos += x
        return _pieces(tensor, d, bounds, "SplitWithSizes")
    s = _int_arg(s)
    if s < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={s}")
    if s == 0:
        if size:
            raise RuntimeError(
                f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
        return _pieces(tensor, d, [(0, 0)], "Split")
    return _pieces(tensor, d, [(a, min(a + s, size)) for a in range(0, max(size, 1), s)], "Split")


@register("unsafe_split", family=F, raw=True)
def unsafe_split(tensor, split_size, dim=0):
    # torch.split is a Python function that also takes a list of sizes; unsafe_split is the aten op
    if isinstance(split_size, (list, tuple)):
        raise TypeError(f"unsafe_split(): argument 'split_size' (position 2) must be int, not "
                        f"{type(split_size).__name__}")
    return split(tensor, split_size, dim)


@register("chunk", family=F, raw=True, aliases=("unsafe_chunk",))
def chunk(input, chunks, dim=0):
    shape = input._ms.shape
    if not shape:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = wrap_dim(dim, len(shape))
    size = shape[d]
    if size == 0:
        return _pieces(input, d, [(0, 0)] * chunks, "Split")
    step = -(-size // chunks)
    return _pieces(input, d, [(a, min(a + step, size)) for a in range(0, size, step)], "Split")


@register("unbind", family=F, raw=True)
def unbind(input, dim=0):
    shape = input._ms.shape
    if not shape:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = wrap_dim(dim, len(shape))
    lead = (slice(None),) * d
    return tuple(index_view(input, lead + (i,), (i, "Unbind")) for i in range(shape[d]))


@register("tensor_split", family=F, raw=True)
def tensor_split(input, indices_or_sections=None, dim=0, *, sections=None, indices=None):
    shape = input._ms.shape
    if not shape:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 "
                           "dims")
    arg = indices_or_sections
    if arg is None:
        arg = sections if sections is not None else list(indices)
    if isinstance(arg, Tensor):
        if arg._ms.ndim > 1:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {arg._ms.ndim} dims")
        if arg.dtype is not D.int64:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype of long, but "
                               f"got {scalar_type_name(arg.dtype)}")
        arg = arg.tolist()
    d = wrap_dim(dim, len(shape))
    size = shape[d]
    if isinstance(arg, int):
        if arg <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {arg}")
        q, r = divmod(size, arg)
        bounds, pos = [], 0
        for i in range(arg):
            n = q + (1 if i < r else 0)
            bounds.append((pos, pos + n))
            pos += n
        return _pieces(input, d, bounds)
    bounds, prev = [], 0
    for idx in list(arg) + [size]:
        idx = _int_arg(idx)
        a = min(max(prev + size if prev < 0 else prev, 0), size)
        b = min(max(idx + size if idx < 0 else idx, a), size)
        bounds.append((a, b))
        prev = idx
    return _pieces(input, d, bounds)


def _split_dim(input, arg, d, name, need):
    n = input._ms.ndim
    if n < need:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {need} dimension, but got a tensor "
                           f"with {n} dimensions!")
    if isinstance(arg, int):
        size = input._ms.shape[d]
        if arg == 0 or size % arg:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {d}, but the size of the "
                               f"dimension {size} is not divisible by the split_size {arg}!")
    return tensor_split(input, arg, d)


@register("hsplit", family=F, raw=True)
def hsplit(input, indices_or_sections):
    return _split_dim(input, indices_or_sections, 1 if input._ms.ndim > 1 else 0, "hsplit", 1)


@register("vsplit", family=F, raw=True)
def vsplit(input, indices_or_sections):
    return _split_dim(input, indices_or_sections, 0, "vsplit", 2)


@register("dsplit", family=F, raw=True)
def dsplit(input, indices_or_sections):
    return _split_dim(input, indices_or_sections, 2, "dsplit", 3)


# --- diagonals and triangles ------------------------------------------------------------------

@register("diagonal", family=F, raw=True)
def diagonal(input, offset=0, dim1=0, dim2=1):
    n = input._ms.ndim
    d1, d2 = wrap_dim(dim1, n), wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    writeback, derive = diagonal_pair(offset, d1, d2)
    return make_view(input, derive(input._ms), writeback, derive)


def _diag_len(shape, offset, d1, d2):
    return max(0, min(shape[d1] - max(-offset, 0), shape[d2] - max(offset, 0)))


def _embed(v, offset, d1, d2):
    """diag_embed: ``v``'s last dim becomes the ``offset`` diagonal of dims (d1, d2) of the result."""
    k = v.shape[-1]
    m = k + abs(offset)
    out = ops.zeros(tuple(v.shape[:-1]) + (m, m), v.dtype)
    if k:
        rows = ms.Tensor([i + max(-offset, 0) for i in range(k)], ms.int64)
        cols = ms.Tensor([i + max(offset, 0) for i in range(k)], ms.int64)
        out[..., rows, cols] = v
    if (d1, d2) != (out.ndim - 2, out.ndim - 1):
        out = solid(ops.movedim(out, (-2, -1), (d1, d2)))
    return out


@register("diag_embed", family=F)
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    n = input.ndim + 1
    d1, d2 = wrap_dim(dim1, n), wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return _embed(input, offset, d1, d2)


@register("diag", family=F)
def diag(input, diagonal=0):
    if input.ndim == 1:
        return _embed(input, diagonal, 0, 1)
    if input.ndim == 2:
        n = _diag_len(input.shape, diagonal, 0, 1)
        return solid(ops.diagonal(input, diagonal, 0, 1)) if n else empty_from(input, (0,))
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")


def _triangle(name, kernel, upper):
    def impl(input, diagonal=0):
        if input.ndim < 2:
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
        if input.dtype in _COMPLEX:   # no complex Triu/Tril kernel on CPU
            r, c = input.shape[-2:]
            offset = ops.arange(c).reshape(1, c) - ops.arange(r).reshape(r, 1)
            keep = offset >= diagonal if upper else offset <= diagonal
            return ops.where(keep, input, ops.zeros((), input.dtype))
        return _kern(kernel, input, diagonal)
    impl.__name__ = name
    return impl


triu = register("triu", family=F, inplace="triu_", out="exact")(_triangle("triu", ops.triu, True))
tril = register("tril", family=F, inplace="tril_", out="exact")(_triangle("tril", ops.tril, False))
_TRIANGLE_ = {}


def _triangle_inplace(name, upper):
    def impl(self, *args, **kwargs):
        # the generic in-place form, except on a receiver whose elements repeat (an expanded view): torch
        # zeroes in place element by element, so a memory location becomes 0 when any of its copies lies
        # outside the triangle (the copies inside rewrite what they read)
        if name not in _TRIANGLE_:   # (built on first use: _bind builds the op table from this file)
            from ._bind import _make_inplace
            from ._registry import PUBLIC
            _TRIANGLE_[name] = _make_inplace(PUBLIC[name], name + "_")
            _TRIANGLE_["masked_fill"] = _make_inplace(PUBLIC["masked_fill"], name + "_")
        shape = tuple(self.shape)
        repeated = [d for d, (n, st) in enumerate(zip(shape, self.stride())) if st == 0 and n > 1]
        diagonal = args[0] if len(args) == 1 and not kwargs else kwargs.get("diagonal", 0) if not args else None
        if len(shape) < 2 or not repeated or type(diagonal) is not int or set(kwargs) - {"diagonal"}:
            return _TRIANGLE_[name](self, *args, **kwargs)   # (its argument checks and messages)
        if not _triangle_batches_in_place(shape, self.stride()):
            # torch computes into a fresh tensor and copies it back, which refuses repeated locations
            check_no_overlap(self)
        offset = np.arange(shape[-1])[None, :] - np.arange(shape[-2])[:, None]
        zero = np.broadcast_to(offset < diagonal if upper else offset > diagonal, shape)
        for d in repeated:
            zero = zero.any(axis=d, keepdims=True)
        with repeated_writes():
            return _TRIANGLE_["masked_fill"](self, wrap(ms.Tensor(np.broadcast_to(zero, shape).copy())), 0)
    impl.__name__, impl.__qualname__ = name + "_", f"Tensor.{name}_"
    # (registered after the op: this entry's method replaces the in-place form the op's inplace= generates,
    # which stays declared for the op table's in-place tests and coverage)
    return register(name + "_", family=F, namespace="Tensor", raw=True)(impl)


def _triangle_batches_in_place(shape, strides):
    """Whether torch's in-place triu_/tril_ writes a non-contiguous receiver directly: up to 3 dims, or its
    batch dims laid out as whole matrices one after another (a first dim of stride 0 or size 1 aside)."""
    if len(shape) <= 3:
        return True
    expected = shape[-1] * shape[-2]
    for i in range(len(shape) - 3, -1, -1):
        if i == 0 and (strides[0] == 0 or shape[0] == 1):
            continue
        if strides[i] != expected:
            return False
        expected *= shape[i]
    return True


triu_ = _triangle_inplace("triu", True)
tril_ = _triangle_inplace("tril", False)


# --- copies: clone, flips, rolls, repeats ---------------------------------------------------------

@register("clone", family=F)
def clone(input, *, memory_format=None):
    return fresh(input)


def _flip(t, dims):
    if not dims or t.size == 0 or t.ndim == 0:   # (nothing to reverse; MindSpore's ReverseV2 refuses 0-d)
        return fresh(t)
    return _kern(ops.flip, t, dims)


@register("flip", family=F)
def flip(input, *dims):
    if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
        dims = dims[0]
    return _flip(input, wrap_dims(tuple(dims), input.ndim))


@register("fliplr", family=F)
def fliplr(input):
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return _flip(input, (1,))


@register("flipud", family=F)
def flipud(input):
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return _flip(input, (0,))


@register("roll", family=F)
def roll(input, shifts, dims=None):
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return roll(input.reshape(-1), shifts, (0,)).reshape(input.shape)
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    out = input
    for s, d in zip(shifts, dims):
        d = wrap_dim(d, input.ndim)
        n = input.shape[d]
        s = s % n if n else 0
        if s:
            out = ops.concat((ops.narrow(out, d, n - s, s), ops.narrow(out, d, 0, n - s)), d)
    return fresh(out) if out is input else out


@register("rot90", family=F)
def rot90(input, k=1, dims=(0, 1)):
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    n = input.ndim
    if n < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {n}")
    d0, d1 = wrap_dim(dims[0], n), wrap_dim(dims[1], n)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    k %= 4
    if k == 0:
        return fresh(input)
    if k == 2:
        return _flip(input, (d0, d1))
    perm = list(range(n))
    perm[d0], perm[d1] = d1, d0
    return solid(ops.transpose(_flip(input, (d1,) if k == 1 else (d0,)), tuple(perm)))


@register("repeat", family=F, namespace="Tensor")
def repeat(input, *sizes):
    sizes = tuple(shape_args(sizes, "repeat"))
    if len(sizes) < input.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions "
                           "of tensor")
    t = input.reshape((1,) * (len(sizes) - input.ndim) + tuple(input.shape))
    target = [r * n for r, n in zip(sizes, t.shape)]
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"Trying to create tensor with negative dimension {next(s for s in target if s < 0)}: "
                           f"{target}")
    if not sizes:
        return fresh(t)
    return _kern(ops.tile, t, sizes)


@register("tile", family=F)
def tile(input, dims):
    dims = tuple(shape_args((dims,), "tile"))
    return repeat(input, (1,) * (input.ndim - len(dims)) + dims)


def _check_host_allocation(nbytes, peak=None):
    """torch's CPU allocator error for a result of ``nbytes`` whose building needs ``peak`` bytes (the host
    array and its MindSpore copy) beyond half of this host's free memory: the process would otherwise be
    killed by the system (torch itself needs only ``nbytes``, so the margin is ours)."""
    try:
        free = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError):
        return
    if 2 * (nbytes if peak is None else peak) > free:
        raise RuntimeError(f"[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate "
                           f"memory: you tried to allocate {nbytes} bytes. Error code 12 (Cannot allocate memory)")


@register("repeat_interleave", family=F)
def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    if repeats is None:   # torch.repeat_interleave(repeats): indices repeated by their counts
        r = read_host(input)
        if r.dtype not in (np.int32, np.int64):   # torch's CPU kernel takes int and long counts only (checked first)
            raise NotImplementedError(f"\"repeat_interleave_cpu\" not implemented for '{_scalar_name(input)}'")
        if r.ndim != 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        if (r < 0).any():
            raise RuntimeError("repeats can not be negative")
        total = sum(int(c) for c in r.tolist())
        if total >= 2 ** 63:   # (torch's int64 sum of the counts wraps around)
            raise RuntimeError(f"IntArrayRef contains an int that cannot be represented as a SymInt: "
                               f"{(total + 2 ** 63) % 2 ** 64 - 2 ** 63}")
        # (built in the counts' dtype: an int64 index array first would double the peak)
        _check_host_allocation(total * r.dtype.itemsize, peak=2 * total * r.dtype.itemsize)
        return ms.Tensor(np.repeat(np.arange(r.shape[0], dtype=r.dtype), r))
    if dim is None:
        input = input.reshape(-1)
        dim = 0
    elif input.ndim == 0:   # (torch reads size(dim), or unsqueezes at dim + 1, of the 0-d input)
        if isinstance(repeats, ms.Tensor):
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        raise IndexError(f"Dimension out of range (expected to be in range of [-1, 0], but got {wrap_dim(dim, 0) + 1})")
    d = wrap_dim(dim, input.ndim)
    n = input.shape[d] if input.ndim else 1
    if isinstance(repeats, ms.Tensor):
        # torch's order: the repeats' rank and size, then its kernel's dtype (int and long) and signs
        r = read_host(repeats).reshape(-1)
        if repeats.ndim > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        if r.shape[0] == 1:
            r = np.full(n, r[0])
        elif r.shape[0] != n:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                               f"{r.shape[0]} and input.size({d}) = {n}")
        if r.dtype not in (np.int32, np.int64):
            raise NotImplementedError(f"\"repeat_interleave_cpu\" not implemented for '{_scalar_name(repeats)}'")
        if (r < 0).any():
            raise RuntimeError("repeats can not be negative")
    else:
        if repeats < 0:
            raise RuntimeError("Repeats must be non-negative")
        r = np.full(n, repeats)
    total = sum(int(c) for c in r.tolist())
    row = math.prod(input.shape) // n if n else 0   # elements of one slice along dim
    _check_host_allocation(total * row * input.itemsize, peak=8 * total + total * row * input.itemsize)
    idx = np.repeat(np.arange(n), r)
    if output_size is not None and output_size != idx.shape[0]:
        raise RuntimeError("allocated size does not match required size")
    if input.ndim == 0:
        input = input.reshape(1)
    if idx.shape[0] == 0:
        shape = list(input.shape)
        shape[d] = 0
        return empty_from(input, shape)
    return _kern(ops.gather, input, ms.Tensor(idx, ms.int64), d)


# --- joining ----------------------------------------------------------------------------------------

def _seq(tensors, name):
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        f"{type(tensors).__name__}")
    if not tensors:
        if name == "cat":
            raise ValueError("torch.cat(): expected a non-empty list of Tensors")
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    for i, t in enumerate(tensors):
        if not isinstance(t, ms.Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    first = tensors[0].dtype
    if all(t.dtype == first for t in tensors):
        return list(tensors)
    rt = result_type(*tensors)
    return [cast(t, rt._ms) for t in tensors]


def _cat(tensors, dim=0, name="cat"):
    tensors = _seq(tensors, name)
    # torch still skips legacy 1-D empty tensors whatever the other shapes
    kept = [t for t in tensors if not (t.ndim == 1 and t.shape[0] == 0)]
    if not kept:
        return ops.concat(tensors, 0) if len(tensors) > 1 else fresh(tensors[0])
    n = kept[0].ndim
    for i, t in enumerate(tensors):
        if t.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    d = wrap_dim(dim, n)
    ref = kept[0].shape
    for i, t in enumerate(tensors):
        if t.ndim == 1 and t.shape[0] == 0:
            continue
        if t.ndim != n:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {n} and {t.ndim}")
        for k in range(n):
            if k != d and t.shape[k] != ref[k]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size {ref[k]} but got "
                    f"size {t.shape[k]} for tensor number {i} in the list.")
    if len(kept) != len(tensors) and any(P.requires_grad(t) for t in tensors if t.ndim == 1 and not t.size):
        # torch gives the skipped empty inputs a (zero-size) gradient too
        shape = list(ref)
        shape[d] = 0
        kept += [empty_from(t, shape) for t in tensors if t.ndim == 1 and not t.size]
    if len(kept) == 1:
        return fresh(kept[0])
    return ops.concat(kept, d)


@register("cat", family=F, namespace="torch", out=True, aliases=("concat", "concatenate"))
def cat(tensors, dim=0):
    return _cat(tensors, dim)


@register("stack", family=F, namespace="torch", out=True)
def stack(tensors, dim=0):
    tensors = _seq(tensors, "stack")
    ref = tensors[0].shape
    for i, t in enumerate(tensors):
        if t.shape != ref:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(ref)} at entry 0 "
                               f"and {list(t.shape)} at entry {i}")
    d = wrap_dim(dim, len(ref) + 1)
    # no bfloat16 Stack kernel on CPU, and Stack rejects a mindspore.Parameter next to a plain tensor
    # ("Ref[Tensor]" vs "Tensor"); Concat of unsqueezed inputs takes both (exact, differentiable)
    if tensors[0].dtype == ms.bfloat16 or any(isinstance(t, ms.Parameter) for t in tensors):
        shape = tuple(ref[:d]) + (1,) + tuple(ref[d:])
        parts = [t.reshape(shape) for t in tensors]
        return ops.concat(parts, d) if len(parts) > 1 else fresh(parts[0])
    return ops.stack(tensors, d)


def _ms_atleast(t, n):
    k = t.ndim
    if k >= n:
        return t
    if n == 3 and k == 2:
        return t.reshape(tuple(t.shape) + (1,))
    if n == 3 and k == 1:
        return t.reshape((1,) + tuple(t.shape) + (1,))
    return t.reshape((1,) * (n - k) + tuple(t.shape))


@register("hstack", family=F, namespace="torch", out=True)
def hstack(tensors):
    tensors = [_ms_atleast(t, 1) for t in _seq(tensors, "hstack")]
    return _cat(tensors, 0 if tensors[0].ndim == 1 else 1)


@register("vstack", family=F, namespace="torch", out=True, aliases=("row_stack",))
def vstack(tensors):
    return _cat([_ms_atleast(t, 2) for t in _seq(tensors, "vstack")], 0)


@register("dstack", family=F, namespace="torch", out=True)
def dstack(tensors):
    return _cat([_ms_atleast(t, 3) for t in _seq(tensors, "dstack")], 2)


@register("column_stack", family=F, namespace="torch", out=True)
def column_stack(tensors):
    tensors = [t.reshape(t.size, 1) if t.ndim <= 1 else t for t in _seq(tensors, "column_stack")]
    return _cat(tensors, 1)


# --- unfold (sliding windows) ----------------------------------------------------------------------

def _windows_pair(dim, size, step, ndim):
    """Tensor.unfold: windows of ``size`` every ``step`` along ``dim`` (a gather over window positions);
    written back element by element through the same positions, as diagonal's view is."""
    def read(base_ms):
        length = base_ms.shape[dim] if base_ms.ndim else 1
        x = base_ms.reshape(1) if not base_ms.ndim else base_ms
        count = (length - size) // step + 1
        if not base_ms.size or not count * size:   # (nothing to gather: MindSpore's Gather backward refuses it)
            shape = list(x.shape)
            shape[dim] = count
            # (a 0-d input has the one window (size,), as torch's: not count windows of size 0)
            return ops.zeros_on(tuple(shape) + (size,) if base_ms.ndim else (size,), x.dtype, (x,))
        idx = (ms.Tensor(np.arange(count, dtype=np.int64)[:, None] * step + np.arange(size, dtype=np.int64)[None, :])
               .reshape(-1))
        moved = ops.movedim(x, dim, -1) if dim != x.ndim - 1 else x
        out = ops.gather(moved, idx, moved.ndim - 1) if count * size else empty_from(moved, tuple(moved.shape[:-1]) + (0,))
        out = out.reshape(tuple(moved.shape[:-1]) + (count, size))
        out = ops.movedim(out, -2, dim) if dim != x.ndim - 1 else out
        return out.reshape(size) if not base_ms.ndim else out

    def derive(base_ms):
        return bf16_selection(read, base_ms)

    def writeback(base_ms, new):
        positions = read(ops.arange(base_ms.size, dtype=ms.int64).reshape(base_ms.shape))
        return scatter_positions(grad_source(base_ms), positions, new)
    return writeback, derive


@register("unfold", family=F, namespace="Tensor", raw=True)
def unfold(self, dimension, size, step):
    n = self._ms.ndim
    dim = wrap_dim(dimension, max(n, 1))
    length = self.shape[dim] if n else 1
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {dim} is {length} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    writeback, derive = _windows_pair(dim, size, step, n)
    return make_view(self, derive(self._ms), writeback, derive)
