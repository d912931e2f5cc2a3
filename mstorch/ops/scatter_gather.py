"""gather/scatter, the index_* family (select, add, copy, fill) and take/take_along_dim.

torch's addressing (an index per element along one dim, the other coordinates the element's own) on
MindSpore's GatherD/TensorScatterElements/TensorScatterAdd, with torch's checks of dtypes, shapes and
ranges first: MindSpore's kernels wrap or read out of range where torch raises.
"""
import math

import numpy as np
import mindspore as ms
from .._runtime import read_host
from . import _kernels as kernels
from . import _msops as ops

from .. import _dtype as D
from .. import _ms_private as P
from .._tensor import Tensor, scalar_type_name
from ._helpers import wrap_dim, dtype_of, scalar_tensor, cast
from ._registry import register
from ..autograd._higher_order import own_backward
from ._views import fresh, solid, empty_from
from .indexing import F, _COMPLEX, _kern, _where, _bshape

# --- gather / scatter --------------------------------------------------------------------------------

def _check_long(index, name):
    # (torch checks an empty index's dtype nowhere: it has nothing to read)
    if index.dtype not in (ms.int64, ms.int32) and index.size:
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")


def _check_range(index, size, dim, err=None):
    """torch rejects out-of-range (and, here, negative) indices; MindSpore would wrap or read garbage."""
    if index.size == 0 or not kernels.CHECK_INDICES:   # the device path: unchecked, as torch's CUDA kernels
        return
    a = read_host(index)
    lo, hi = a.min(), a.max()
    if lo < 0 or hi >= size:
        bad = lo if lo < 0 else hi
        if err is not None:
            raise err
        raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {size}")


def check_select_range(index, shape, d):
    """torch's CPU index_select range checks: a matrix or more that is empty, or selected along dim 1, goes
    through a path whose check is a RuntimeError naming the first bad index; otherwise an IndexError."""
    size = shape[d] if shape else 1
    if len(shape) > 1 and index.size and size == 0:    # (torch's check before the range check)
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    if len(shape) > 1 and (d == 1 or 0 in shape):
        if index.size == 0 or not kernels.CHECK_INDICES:
            return
        a = read_host(index).reshape(-1)
        bad = np.flatnonzero((a < 0) | (a >= size))
        if bad.size:
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={a[bad[0]]} axis_dim={size}")
        return
    _check_range(index, size, d, IndexError("index out of range in self"))


def _check_gather_shapes(input, index, src, d, name):
    if index.size == 0:   # torch checks no shape of an empty index (nothing is read or written)
        return
    n = max(input.ndim, 1)
    if max(index.ndim, 1) != n:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    ishape, xshape = _shape1(index), _shape1(input)
    for k in range(n):
        if k != d and ishape[k] > xshape[k]:
            raise RuntimeError(f"Size does not match at dimension {k} expected index {list(index.shape)} to be "
                               f"no larger than self {list(input.shape)} apart from dimension {d}")
    if src is not None:
        if max(src.ndim, 1) != n:
            raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
        sshape = _shape1(src)
        if any(ishape[k] > sshape[k] for k in range(n)):
            raise RuntimeError(f"Expected index {list(index.shape)} to be no larger than self {list(input.shape)} "
                               f"apart from dimension {d} and to be no larger size than src {list(src.shape)}")


def _shape1(t):
    return tuple(t.shape) if t.ndim else (1,)


def _crop(t, shape):
    """The leading ``shape`` block of ``t`` (gather/scatter only read that much)."""
    if tuple(t.shape) == tuple(shape):
        return t
    box = tuple(slice(0, s) for s in shape)
    if t.dtype == ms.bfloat16:   # (no bfloat16 StridedSliceGrad on CPU: the slice's backward in float32)
        return cast(cast(t, ms.float32)[box], ms.bfloat16)
    return t[box]


def gather_elements(x, dim, index):
    """MindSpore's GatherD (with our own backward for double backward, _msops), bfloat16 through float32."""
    return _kern(ops.gather_elements, x, dim, index)


@register("gather", family=F)
def gather(input, dim, index, *, sparse_grad=False):
    d = wrap_dim(dim, input.ndim)
    _check_long(index, "gather")
    _check_gather_shapes(input, index, None, d, "gather")
    _check_range(index, _shape1(input)[d], d)
    if index.size == 0:
        return empty_from(input, index.shape)
    if input.ndim == 0:
        return gather_elements(input.reshape(1), 0, index.reshape(1)).reshape(index.shape)
    shape = list(index.shape)
    shape[d] = input.shape[d]
    return gather_elements(_crop(input, shape), d, index)


def _scatter_prep(input, dim, index, src, name):
    d = wrap_dim(dim, input.ndim)
    _check_long(index, name)
    _check_gather_shapes(input, index, src if isinstance(src, ms.Tensor) else None, d, name)
    _check_range(index, _shape1(input)[d], d)
    if isinstance(src, ms.Tensor):
        if index.size:   # (an empty index reads nothing: torch checks no shape of it)
            src = _crop(src, index.shape)
        if src.dtype != input.dtype:
            src = cast(src, input.dtype)
    else:
        src = ops.broadcast_to(ms.Tensor(src, input.dtype), index.shape)
    return d, src


def _scatter_elements(input, index, src, d, reduction="none"):
    def run(a, b):
        return ops.tensor_scatter_elements(a, index, b, d, reduction)
    if input.dtype == ms.bfloat16:
        return cast(run(cast(input, ms.float32), cast(src, ms.float32)), ms.bfloat16)
    if input.dtype in _COMPLEX:
        return ops.complex_of_parts(run(ops.real(input), ops.real(src)), run(ops.imag(input), ops.imag(src)))
    return run(input, src)


@register("scatter", family=F, inplace="scatter_")
def scatter(input, dim, index, src=None, value=None, *, reduce=None):
    if src is None:
        src = value
    d, src = _scatter_prep(input, dim, index, src, "scatter")
    if index.size == 0:
        return fresh(input)
    shape = input.shape
    if input.ndim == 0:   # (MindSpore's kernels take no 0-d operands; the result is 0-d again)
        input, index, src = input.reshape(1), index.reshape(1), src.reshape(1)
    if reduce is None:
        return _scatter_elements(input, index, src, d).reshape(shape)
    if reduce == "add":
        return _scatter_elements(input, index, src, d, "add").reshape(shape)
    if reduce == "multiply":
        pos = ops.flat_positions(input.shape, d, index)
        prod = ops.unsorted_segment_prod(src.reshape(-1), pos, input.size).reshape(input.shape)
        return ops.mul(input, prod).reshape(shape)
    raise RuntimeError("reduce argument must be either add or multiply.")


@register("scatter_add", family=F, inplace="scatter_add_")
def scatter_add(input, dim, index, src):
    d, src = _scatter_prep(input, dim, index, src, "scatter_add")
    if index.size == 0:
        return fresh(input)
    if input.ndim == 0:   # (MindSpore's kernel takes no 0-d operands)
        return _scatter_elements(input.reshape(1), index.reshape(1), src.reshape(1), d, "add").reshape(())
    return _scatter_elements(input, index, src, d, "add")


_SEGMENT = {"sum": ops.unsorted_segment_sum, "prod": ops.unsorted_segment_prod,
            "amax": ops.unsorted_segment_max, "amin": ops.unsorted_segment_min}


@register("scatter_reduce", family=F, inplace="scatter_reduce_")
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)
    if reduce not in ("sum", "prod", "mean", "amax", "amin"):
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    d, src = _scatter_prep(input, dim, index, src, "scatter_reduce")
    if index.size == 0:
        return fresh(input)
    shape = input.shape
    if input.ndim == 0:
        input, index, src = input.reshape(1), index.reshape(1), src.reshape(1)
    wide = input.dtype in (ms.bfloat16, ms.bool_)
    x = cast(input, ms.float32) if wide else input
    s = cast(src, x.dtype)
    pos = ops.flat_positions(input.shape, d, index)
    n = input.size
    flat_x, flat_s = x.reshape(-1), s.reshape(-1)
    count = ops.unsorted_segment_sum(ops.ones(pos.shape, ms.int64), pos, n)
    hit = count > 0
    seg = _SEGMENT["sum" if reduce == "mean" else reduce](flat_s, pos, n)
    if reduce in ("amax", "amin") and dtype_of(x)._cat >= D._FLOAT:
        seg = _infinite_segments(seg, flat_s, pos, n, -math.inf if reduce == "amax" else math.inf)
    if reduce == "sum":
        out = ops.add(flat_x if include_self else ops.where(hit, ops.zeros_like(flat_x), flat_x), seg)
    elif reduce == "prod":
        out = ops.mul(flat_x if include_self else ops.where(hit, ops.ones_like(flat_x), flat_x), seg)
    elif reduce == "mean":
        total = ops.add(flat_x, seg) if include_self else seg
        cnt = cast(count + 1 if include_self else ops.maximum(count, ops.ones_like(count)), x.dtype)
        if dtype_of(x)._cat < D._FLOAT:   # (exact: MindSpore's FloorDiv goes through double)
            with np.errstate(all="ignore"):
                mean = ms.Tensor(np.floor_divide(read_host(total), read_host(cnt)))
        else:
            mean = ops.div(total, cnt)
        out = ops.where(hit, mean, flat_x)
    else:
        pick = ops.maximum if reduce == "amax" else ops.minimum
        out = ops.where(hit, pick(flat_x, seg) if include_self else seg, flat_x)
        if dtype_of(x)._cat >= D._FLOAT:
            # torch's max/min keep a NaN of src; MindSpore's segment max/min skip it
            src_nan = ops.unsorted_segment_max(cast(ops.isnan(flat_s), ms.float32), pos, n)
            out = ops.where(ops.greater(src_nan, 0), ops.full_like(out, math.nan), out)
        if P.grad_enabled() and (P.requires_grad(input) or P.requires_grad(src)):
            out = _tied(out, flat_x, flat_s, pos, hit, include_self)
    out = out.reshape(shape)
    return cast(out, input.dtype) if wide else out


def _infinite_segments(seg, s, pos, n, inf):
    """MindSpore's segment max (min) starts from the dtype's lowest (largest) finite value and keeps it
    for a segment of -inf (+inf) only: such segments are ``inf``."""
    is_inf = ops.equal(s, scalar_tensor(inf, dtype_of(s)))
    others = ops.unsorted_segment_sum(cast(ops.logical_not(is_inf), ms.float32), pos, n)
    some = ops.unsorted_segment_sum(cast(is_inf, ms.float32), pos, n)
    only = ops.logical_and(ops.equal(others, 0), ops.greater(some, 0))
    return ops.where(only, ops.full_like(seg, inf), seg)


def _tied(result, x, s, pos, hit, include_self):
    """The same values, rebuilt so that autograd spreads the gradient evenly over the elements equal
    to each max/min, counting ``x``'s element even when it is excluded (torch's formula). Where no
    element equals the result (a NaN result, also an untouched NaN of ``x``) torch divides by that count
    of 0: the gradient of ``x``'s element and of every src element reduced there is NaN."""
    m = ops.stop_gradient(result)
    self_eq = ops.equal(x, m)
    src_eq = ops.equal(s, ops.gather(m, pos, 0))
    n = ops.add(cast(self_eq, x.dtype), ops.unsorted_segment_sum(cast(src_eq, x.dtype), pos, x.size))
    xs = x if include_self else ops.stop_gradient(x)
    zero = ops.zeros_like(x)
    # (selected, not multiplied by the masks: an infinite element beside the result would give inf * 0)
    total = ops.add(ops.where(self_eq, xs, zero),
                    ops.unsorted_segment_sum(ops.where(src_eq, s, ops.zeros_like(s)), pos, x.size))
    tied = ops.where(hit, ops.div(total, ops.maximum(n, ops.ones_like(n))), x)
    # the NaN results: the result plus (0 * element / 0 less its value), whose gradient is NaN to the
    # elements that meet there (divided by 1 elsewhere: the unselected branch still gets 0 / divisor)
    none = ops.equal(n, zero)
    from_s = ops.unsorted_segment_sum(ops.mul(s, ops.zeros_like(s)), pos, x.size)
    from_x = ops.mul(ops.where(hit, xs, x), zero)   # (an untouched NaN of x: its gradient is NaN too)
    lost = ops.div(ops.add(from_x, from_s), ops.where(none, zero, ops.ones_like(x)))
    return ops.where(none, ops.add(m, ops.sub(lost, ops.stop_gradient(lost))), tied)


# --- index_* ------------------------------------------------------------------------------------------

def _check_vector(index, name):
    if index.ndim > 1:
        raise IndexError(f"{name}(): Index is supposed to be a vector")
    if index.dtype not in (ms.int64, ms.int32):
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index but got: {scalar_type_name(dtype_of(index))}")


def _index_select_checks(input_ndim, index_ndim, index_numel, index_int, dim):
    """torch's checks of index_select in its order (before out='s dtype and the range of the indices)."""
    d = wrap_dim(dim, input_ndim)
    if index_ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if input_ndim == 0 and index_numel != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {index_numel} value(s)")
    if not index_int:
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    return d


def _index_select_out(args, out):
    if len(args) >= 3 and isinstance(args[0], Tensor) and isinstance(args[2], Tensor) and isinstance(args[1], int):
        x, index = args[0], args[2]
        _index_select_checks(x.ndim, index.ndim, index.numel(), index.dtype in (D.int64, D.int32), args[1])
        if out.dtype is not x.dtype:
            raise RuntimeError("index_select(): self and result must have the same scalar type")


@register("index_select", family=F, out="exact", out_check=_index_select_out)
def index_select(input, dim, index):
    d = _index_select_checks(input.ndim, index.ndim, index.size, index.dtype in (ms.int64, ms.int32), dim)
    check_select_range(index, tuple(input.shape), d)
    if input.ndim == 0:
        return fresh(input) if index.size else empty_from(input, (0,))
    if index.size == 0:
        shape = list(input.shape)
        shape[d] = 0
        return empty_from(input, shape)
    return _kern(ops.gather, input, index.reshape(-1), d)


def _along_front(input, source, d, index, name, kernel, err=RuntimeError, check=None):
    """Apply a row-wise scatter ``kernel`` after moving ``d`` to the front (index_add/index_copy);
    ``check()`` runs after the shape checks (torch's kernel checks the indices' range there). A 0-d input
    runs as one element and comes back 0-d."""
    out = _along_front_rows(input, source, d, index, name, kernel, err, check)
    return out.reshape(()) if input.ndim == 0 else out


def _along_front_rows(input, source, d, index, name, kernel, err, check):
    in_ndim, in_size = input.ndim, input.size
    if input.ndim == 0:
        input, source = input.reshape(1), source.reshape(1)
    n = index.size
    if source.ndim and source.shape[d] != n or not source.ndim and n != 1:
        size = source.shape[d] if source.ndim else 1
        if name == "index_add_":
            raise err(f"index_add_(): Number of indices ({n}) should be equal to source.size(dim): ({size}), "
                      f"for dim: {d}")
        raise err(f"{name}(): Number of indices ({n}) should be equal to source.size(dim) ({size})")
    if source.ndim != input.ndim or any(a != b for k, (a, b) in enumerate(zip(input.shape, source.shape)) if k != d):
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {list(input.shape)} source.shape = {list(source.shape)}")
    if check is not None and not (in_ndim > 1 and in_size == 0):   # (torch's kernel returns early there)
        check()
    if in_size == 0 and n:   # nothing to write into: the (empty) input and source stay on the graph
        return ops._linked(fresh(input), input, source)
    if n == 0:
        if P.requires_grad(source):   # keep the (empty) source in the graph, as torch does
            return ops.concat((input, source), d)
        return fresh(input)
    x, s = ops.movedim(input, d, 0), ops.movedim(source, d, 0)
    idx = cast(index.reshape(-1, 1), ms.int64)
    if input.dtype == ms.bfloat16:
        out = cast(kernel(cast(x, ms.float32), idx, cast(s, ms.float32)), ms.bfloat16)
    elif input.dtype in _COMPLEX:
        out = ops.complex_of_parts(kernel(ops.real(x), idx, ops.real(s)), kernel(ops.imag(x), idx, ops.imag(s)))
    elif input.dtype == ms.bool_:
        out = cast(kernel(cast(x, ms.int8), idx, cast(s, ms.int8)), ms.bool_)
    else:
        out = kernel(x, idx, s)
        if kernel is ops.tensor_scatter_add:
            own_backward(out, ops.tensor_scatter_add_backward, idx)
    return solid(ops.movedim(out, 0, d)) if d else out


@register("index_add", family=F, inplace="index_add_", out="exact")
def index_add(input, dim, index, source, *, alpha=1):
    d = wrap_dim(dim, input.ndim)
    _check_vector(index, "index_add_")
    if source.dtype != input.dtype:
        source = cast(source, input.dtype)
    if alpha != 1:
        source = ops.mul(source, scalar_tensor(alpha, dtype_of(source)))
    size = input.shape[d] if input.ndim else 1
    # torch's CPU kernel runs a scatter_add (whose range check is a RuntimeError naming the index) along the
    # first or last dim of a matrix or more, with alpha 1 and an int64 index; otherwise its own loop, whose
    # check is an IndexError
    scatters = input.ndim > 1 and d in (0, input.ndim - 1) and alpha == 1 and index.dtype == ms.int64
    err = None if scatters else IndexError("index out of range in self")
    return _along_front(input, source, d, index, "index_add_", ops.tensor_scatter_add,
                        check=lambda: _check_range(index, size, d, err))


@register("index_copy", family=F, inplace="index_copy_")
def index_copy(input, dim, index, source):
    # torch's order: the index's rank, the source's rank, the dtypes, the slice shapes, the index count
    # (its meta function), then each index's range (its kernel, which an empty self never runs)
    d = wrap_dim(dim, input.ndim)
    n = index.size
    if index.ndim > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.ndim})")
    if source.ndim == 0 and n != 1:
        raise IndexError(f"index_copy_(): When source is scalar, index should have one element (got {n})")
    if source.ndim != input.ndim and source.ndim and input.ndim:
        raise IndexError(f"index_copy_(): When source and destination are not scalars, their dimensionality "
                         f"must match. Source dimensionality ({source.ndim}), destination dimensionality "
                         f"({input.ndim})")
    if index.dtype != ms.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got "
                           f"{scalar_type_name(dtype_of(index))}")
    if source.dtype != input.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{scalar_type_name(dtype_of(input))} and (source) {scalar_type_name(dtype_of(source))}")
    own, src = list(input.shape), list(source.shape)
    if own:
        del own[d]
    if src:
        del src[d]
    if own != src:
        raise RuntimeError(f"index_copy_(): Source/destination tensor must have same slice shapes. Destination "
                           f"slice shape: {' '.join(map(str, own))} at dimension {d} and source slice shape: "
                           f"{' '.join(map(str, src))} at dimension 0.")
    if source.ndim and n != source.shape[d]:
        raise IndexError(f"index_copy_(): Number of indices ({n}) should be equal to source.size(dim) "
                         f"({source.shape[d]})")
    size = input.shape[d] if input.ndim else 1
    if input.size == 0:
        if n:   # (torch's kernel views the empty self as n rows first)
            _index_fill_empty(input, d, n)
    elif n and kernels.CHECK_INDICES:
        a = read_host(index).reshape(-1)
        bad = a[(a < 0) | (a >= size)]
        if bad.size:
            raise IndexError(f"index_copy_(): index {bad[0]} is out of bounds for dimension {d} with size {size}")
    if input.ndim and not source.ndim:   # (a 0-d source is the one row of its one index)
        source = source.reshape(1)
    return _along_front(input, source, d, index, "index_copy_", ops.tensor_scatter_update, IndexError)


def _index_fill_empty(input, d, n):
    """torch's kernel views an empty self as ``n`` rows along ``d`` (stride 0) without checking the indices:
    a view that needs memory the empty storage lacks fails (none is needed if another size is 0)."""
    sizes = list(input.shape)
    sizes[d] = n
    if not math.prod(sizes):
        return
    strides, step = [0] * len(sizes), 1
    for k in range(len(sizes) - 1, -1, -1):
        strides[k], step = step, step * max(input.shape[k], 1)
    strides[d] = 0
    item = dtype_of(input).itemsize
    need = (sum((s - 1) * st for s, st in zip(sizes, strides)) + 1) * item
    raise RuntimeError(f"setStorage: sizes {sizes}, strides {strides}, storage offset 0, and itemsize {item} "
                       f"requiring a storage size of {need} are out of bounds for storage of size 0")


@register("index_fill", family=F, inplace="index_fill_")
def index_fill(input, dim, index, value):
    d = wrap_dim(dim, input.ndim)
    if index.dtype != ms.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if index.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    size = input.shape[d] if input.ndim else 1
    if isinstance(value, ms.Tensor):
        if value.ndim:
            raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.ndim} dimension(s).")
        v = cast(value, input.dtype)
    else:
        v = ms.Tensor(int(value) if isinstance(value, float) and dtype_of(input)._cat < D._FLOAT else value,
                      input.dtype)
    if input.size == 0 and index.size:
        _index_fill_empty(input, d, index.size)
    if index.size and input.size and kernels.CHECK_INDICES:
        a = read_host(index)
        if a.min() < -size or a.max() >= size:
            bad = a.min() if a.min() < -size else a.max()
            raise IndexError(f"index {bad} is out of bounds for dimension {d} with size {size}")
    if index.size == 0 or input.size == 0:
        return fresh(input)
    idx = index.reshape(-1)
    idx = ops.where(idx < 0, idx + size, idx)
    hit = ops.equal(ops.arange(size, dtype=ms.int64).reshape(-1, 1), idx.reshape(1, -1)).any(1)
    shape = [1] * input.ndim
    if input.ndim:
        shape[d] = size
    return _where(hit.reshape(tuple(shape)), v, input)


# --- take ----------------------------------------------------------------------------------------------

def _take_out(args, out):
    # torch checks out='s dtype after the index's and before the index range
    if len(args) >= 2 and isinstance(args[0], Tensor) and isinstance(args[1], Tensor) \
            and args[1].dtype is D.int64 and out.dtype is not args[0].dtype:
        raise RuntimeError(f"take(): self and out expected to have the same dtype, but got self.dtype = "
                           f"{scalar_type_name(args[0].dtype)} and out.dtype = {scalar_type_name(out.dtype)}")


@register("take", family=F, out="exact", out_check=_take_out)
def take(input, index):
    if index.dtype != ms.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {scalar_type_name(dtype_of(index))}")
    n = input.size
    if index.size and kernels.CHECK_INDICES:
        a = read_host(index)
        bad = a[(a < -n) | (a >= n)]
        if bad.size:
            raise IndexError(f"out of range: tried to access index {bad.flat[0]} on a tensor of {n} elements.")
    if index.size == 0:
        return empty_from(input, index.shape)
    idx = index.reshape(-1)
    idx = ops.where(idx < 0, idx + n, idx)   # Gather's gradient drops negative indices
    return _kern(ops.gather, input.reshape(-1), idx, 0).reshape(index.shape)


def _check_flat_view(t):
    """torch's error for ``t.view(-1)`` where ``t``'s elements are not equally spaced in memory."""
    if t.size == 0:
        return
    dims = [(n, st) for n, st in zip(t.shape, t.stride()) if n != 1]
    if any(s0 != s1 * n1 for (_, s0), (n1, s1) in zip(dims, dims[1:])):
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one dimension "
                           "spans across two contiguous subspaces). Use .reshape(...) instead.")


@register("take_along_dim", family=F, out="exact")
def take_along_dim(input, indices, dim=None):
    if dim is not None and input.ndim != indices.ndim:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {input.ndim} dimensions for input, and {indices.ndim} dimensions for indices")
    if dim is None:   # torch views both as 1-d (a view, not a reshape: a layout no one stride walks raises)
        _check_flat_view(input)      # and gathers, which takes int32 indices too
        _check_flat_view(indices)
        return gather(input.reshape(-1), 0, indices.reshape(-1))
    if indices.dtype != ms.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{scalar_type_name(dtype_of(indices))}")
    d = wrap_dim(dim, input.ndim)
    xs, js = list(input.shape), list(indices.shape)
    xs[d] = js[d] = 1
    b = list(_bshape(xs, js))
    xb, ib = list(b), list(b)
    xb[d], ib[d] = input.shape[d], indices.shape[d]
    x = ops.broadcast_to(input, tuple(xb)) if tuple(xb) != tuple(input.shape) else input
    i = ops.broadcast_to(indices, tuple(ib)) if tuple(ib) != tuple(indices.shape) else indices
    size = input.shape[d]
    if size and i.size:   # torch wraps the indices along ``dim`` (Python's modulo), unchecked
        i = ms.Tensor(read_host(i) % size) if kernels.HOST_WORKAROUNDS else \
            ops.floor_mod(i, ms.Tensor(size, ms.int64))
    return gather(x, d, i)
