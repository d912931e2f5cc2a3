"""Indexing and index assignment, plus gather/scatter/index_*/masked_*/where/nonzero/take.

``x[idx]`` follows torch in two steps: the basic part (ints, slices, None, Ellipsis) is a view; the
advanced part (integer/bool tensors, lists, Python bools) then indexes that view with only full
slices left, where MindSpore's NumPy rule for where advanced dims go is torch's rule. (Taking ints
first is what torch does and what makes ``x[0, :, [1, 2]]`` differ from NumPy.)
"""
import numpy as np
import mindspore as ms
from mindspore import ops

from .. import _dtype as D
from .. import _ms_private as P
from .._tensor import Tensor, wrap, scalar_type_name
from ._helpers import wrap_dim, dtype_of, promote, scalar_tensor, cast
from ._registry import register
from ._views import BasicIndex, index_view, fresh, solid, empty_from, scatter_positions, grad_source, broadcast_shape
from .reduction import needs_grad, empty_result

F = "indexing"
_COMPLEX = (ms.complex64, ms.complex128)
_make_complex = ops.Complex()
_INT_MS = (ms.int64, ms.int32, ms.int16, ms.int8, ms.uint8, ms.uint16, ms.uint32, ms.uint64)
_ALL = slice(None)


def _kern(fn, t, *args):
    """Kernels without bfloat16 on CPU: exact through float32 (data movement only)."""
    if t.dtype == ms.bfloat16:
        return cast(fn(cast(t, ms.float32), *args), ms.bfloat16)
    return fn(t, *args)


# --- parsing an index ------------------------------------------------------------------------------

def _as_tuple(index):
    if type(index) is tuple:
        return index
    if isinstance(index, list) and len(index) < 32:
        # torch still reads x[[0, slice]] / x[[[0, 1], [1, 2]]] as a tuple of indices
        for x in index:
            if x is None or x is Ellipsis or isinstance(x, (slice, Tensor, list, tuple)):
                return tuple(index)
    return (index,)


def _seq_index(item):
    arr = np.array([int(x) if isinstance(x, Tensor) else x for x in item])
    if arr.size == 0:
        return ms.Tensor(np.zeros(arr.shape, np.int64))
    if arr.dtype == np.bool_:
        return ms.Tensor(arr)
    if arr.dtype.kind not in "iu":
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return ms.Tensor(arr.astype(np.int64))


def _index_int(x):
    if x is None or type(x) is int:
        return x
    if isinstance(x, bool) or not hasattr(x, "__index__"):
        raise TypeError("slice indices must be integers or None or have an __index__ method")
    return x.__index__()


def _parse(index, shape):
    """-> (basic key, [(dim in the basic result, ms index tensor)], copy) where ``copy`` says the
    result must not be a view (torch copies for a 0-dim tensor index, which otherwise acts as an int)."""
    items = _as_tuple(index)
    ndim = len(shape)
    conv = []
    consumed = 0
    copy = False
    for item in items:
        if isinstance(item, Tensor):
            t = item._ms
            if t.dtype == ms.uint8:
                t = cast(t, ms.bool_)
            if t.dtype == ms.bool_:
                conv.append(("mask", t))
                consumed += t.ndim
            elif t.dtype in _INT_MS:
                if t.ndim == 0:
                    conv.append(("int", int(t.asnumpy())))
                    copy = True
                else:
                    conv.append(("idx", t))
                consumed += 1
            else:
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        elif item is None:
            conv.append(("none", None))
        elif item is Ellipsis:
            conv.append(("ellipsis", None))
        elif isinstance(item, bool):
            conv.append(("mask", ms.Tensor(item)))
        elif isinstance(item, int):
            conv.append(("int", item))
            consumed += 1
        elif isinstance(item, slice):
            step = _index_int(item.step)
            if step is not None and step <= 0:
                if step == 0:
                    raise ValueError("slice step cannot be zero")
                raise ValueError("step must be greater than zero")
            conv.append(("slice", slice(_index_int(item.start), _index_int(item.stop), step)))
            consumed += 1
        elif isinstance(item, (list, tuple, np.ndarray)):
            t = _seq_index(item.tolist() if isinstance(item, np.ndarray) else item)
            conv.append(("mask", t) if t.dtype == ms.bool_ else ("idx", t))
            consumed += t.ndim if t.dtype == ms.bool_ else 1
        elif isinstance(item, (str, bytes)):
            raise TypeError(f"new(): invalid data type '{type(item).__name__}'")
        elif hasattr(item, "__index__"):
            conv.append(("int", item.__index__()))
            consumed += 1
        else:
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                             f"are valid indices (got {type(item).__name__})")
    if consumed > ndim:
        if ndim == 0:
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                             "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    key, adv = [], []
    d_in = d_out = 0
    rest = ndim - consumed   # the first Ellipsis takes these; torch lets later ones take none
    for kind, v in conv:
        if kind == "int":
            size = shape[d_in]
            if not -size <= v < size:
                raise IndexError(f"index {v} is out of bounds for dimension {d_in} with size {size}")
            key.append(v)
            d_in += 1
        elif kind == "slice":
            key.append(v)
            d_in += 1
            d_out += 1
        elif kind == "none":
            key.append(None)
            d_out += 1
        elif kind == "ellipsis":
            key.extend([_ALL] * rest)
            d_in += rest
            d_out += rest
            rest = 0
        elif kind == "idx":
            key.append(_ALL)
            adv.append((d_out, v))
            d_in += 1
            d_out += 1
        else:   # bool mask over v.ndim dims; a 0-d one adds a dim of size 1 (True) or 0 (False)
            k = v.ndim
            if k == 0:
                key.append(None)
                adv.append((d_out, v.reshape(1)))
                d_out += 1
                continue
            for j in range(k):
                if v.shape[j] != shape[d_in + j]:
                    raise IndexError(
                        f"The shape of the mask {list(v.shape)} at index {j} does not match the shape of the "
                        f"indexed tensor {list(shape)} at index {d_in + j}")
            key.extend([_ALL] * k)
            adv.append((d_out, v))
            d_in += k
            d_out += k
    return tuple(key), adv, copy


def _is_noop(key):
    return all(k == _ALL for k in key)


def _advanced(r, adv):
    """Index ``r`` (the basic result) with its advanced indices. Torch's rule: the indexed dims are
    replaced by the broadcast index shape, in place when they are adjacent, in front otherwise.
    Indices are read on the host (torch checks their range too) and become one Gather."""
    if len(adv) == 1 and adv[0][0] == 0 and adv[0][1].dtype == ms.bool_ and adv[0][1].ndim == r.ndim:
        return _kern(ops.masked_select, r, adv[0][1])
    arrays, dims = [], []
    for pos, t in adv:
        a = t.asnumpy()
        if t.dtype == ms.bool_:
            arrays.extend(np.nonzero(a))
            dims.extend(range(pos, pos + a.ndim))
        else:
            size = r.shape[pos]
            if a.size and (a.min() < -size or a.max() >= size):
                bad = a[(a < -size) | (a >= size)]
                raise IndexError(f"index {bad.flat[0]} is out of bounds for dimension {pos} with size {size}")
            arrays.append(a)
            dims.append(pos)
    try:
        arrays = np.broadcast_arrays(*arrays)
    except ValueError:
        shapes = ", ".join(str(list(a.shape)) for a in arrays)
        raise IndexError(f"shape mismatch: indexing tensors could not be broadcast together with shapes "
                         f"[{shapes}]") from None
    sizes = [r.shape[d] for d in dims]
    linear = np.zeros(arrays[0].shape, np.int64)
    for a, n in zip(arrays, sizes):
        linear = linear * n + np.where(a < 0, a + n, a)
    shape = tuple(r.shape)
    bshape = linear.shape
    p0, k = dims[0], len(dims)
    if dims == list(range(p0, p0 + k)):   # adjacent: merged into one dim, the result stays in place
        src = r.reshape(shape[:p0] + (int(np.prod(sizes)),) + shape[p0 + k:]) if k > 1 else r
        axis, out_shape = p0, shape[:p0] + bshape + shape[p0 + k:]
    else:                                 # separated: the indexed dims go first
        rest = [d for d in range(len(shape)) if d not in dims]
        src = ops.transpose(r, tuple(dims + rest)).reshape((int(np.prod(sizes)),) + tuple(shape[d] for d in rest))
        axis, out_shape = 0, bshape + tuple(shape[d] for d in rest)
    if linear.size == 0 or 0 in out_shape:
        return empty_from(r, out_shape)
    return _kern(ops.gather, src, ms.Tensor(linear.reshape(-1)), axis).reshape(out_shape)


def getitem(self, index):
    t = self._ms
    key, adv, copy = _parse(index, t.shape)
    if not adv:
        if copy:
            return wrap(fresh(BasicIndex(t.shape, key).read(t)))
        return index_view(self, key)
    r = t if _is_noop(key) else BasicIndex(t.shape, key).read(t)
    return wrap(solid(_advanced(r, adv)))


# --- index assignment --------------------------------------------------------------------------------

def _legacy_name(t):
    return f"torch.{scalar_type_name(t.dtype)}Tensor"


def _scalar_value(value, self):
    dt = self.dtype
    if isinstance(value, complex) and not dt.is_complex:
        raise RuntimeError(f"value cannot be converted to type {dt} without overflow")
    if isinstance(value, float) and dt._cat < D._FLOAT:
        value = int(value) if value == value and abs(value) != float("inf") else 0
    return ms.Tensor(value, self._ms.dtype)


def _fit(v, shape, advanced):
    """torch's broadcast of an assigned value to the indexed shape (leading 1s may be dropped)."""
    vs = tuple(v.shape)
    while len(vs) > len(shape) and vs[0] == 1:
        vs = vs[1:]
    ok = len(vs) <= len(shape) and all(a == b or a == 1 for a, b in zip(reversed(vs), reversed(shape)))
    if not ok:
        if advanced:
            raise RuntimeError(f"shape mismatch: value tensor of shape {list(v.shape)} cannot be broadcast to "
                               f"indexing result of shape {list(shape)}")
        raise RuntimeError(f"The expanded size of the tensor ({shape[-1] if shape else 0}) must match the "
                           f"existing size ({vs[-1] if vs else 0}) at non-singleton dimension "
                           f"{max(len(shape) - 1, 0)}.  Target sizes: {list(shape)}.  Tensor sizes: {list(vs)}")
    if vs != tuple(v.shape):
        v = v.reshape(vs)
    return v if vs == tuple(shape) else ops.broadcast_to(v, tuple(shape))


def setitem(self, index, value):
    self._check_inplace()
    t = self._ms
    if isinstance(value, Tensor):
        v = value._ms
    elif isinstance(value, (bool, int, float, complex)):
        v = _scalar_value(value, self)
    else:
        raise TypeError(f"can't assign a {type(value).__name__} to a {_legacy_name(self)}")
    key, adv, _ = _parse(index, t.shape)
    if not adv:
        plan = BasicIndex(t.shape, key)
        v = _fit(v if v.dtype == t.dtype else cast(v, t.dtype), plan.out, False)
        self._write(plan.write(t, v), check_cast=False)
        return
    if len(adv) == 1 and adv[0][0] == 0 and adv[0][1].dtype == ms.bool_ and v.size == 1 and _is_noop(key):
        # x[mask] = scalar: torch's masked_fill path (any value dtype casts)
        mask = adv[0][1]
        mask = mask.reshape(tuple(mask.shape) + (1,) * (t.ndim - mask.ndim))
        self._write(_where(mask, cast(v.reshape(()), t.dtype), t), check_cast=False)
        return
    if isinstance(value, Tensor) and v.dtype != t.dtype:
        raise RuntimeError(
            f"Index put requires the source and destination dtypes match, got {scalar_type_name(self.dtype)} "
            f"for the destination and {scalar_type_name(value.dtype)} for the source.")
    # the positions torch's rule selects, read off an arange of the same shape
    positions = ops.arange(t.size, dtype=ms.int64).reshape(t.shape)
    if not _is_noop(key):
        positions = BasicIndex(t.shape, key).read(positions)
    positions = _advanced(positions, adv)
    v = _fit(v if v.dtype == t.dtype else cast(v, t.dtype), positions.shape, True)
    self._write(scatter_positions(grad_source(t), positions, v), check_cast=False)


# --- masked_fill / where ---------------------------------------------------------------------------

def _check_mask(mask, name, c_names=True):
    if mask.dtype != ms.bool_:
        # masked_fill_ names the C++ type (unsigned char), masked_scatter_ torch's scalar type (Byte)
        raise RuntimeError(f"{name} only supports boolean masks, but got mask with dtype "
                           f"{_c_name(mask) if c_names else scalar_type_name(dtype_of(mask))}")


def _c_name(t):
    return {ms.uint8: "unsigned char", ms.int8: "signed char", ms.int16: "short", ms.int32: "int",
            ms.int64: "long int", ms.float32: "float", ms.float64: "double"}.get(t.dtype, str(dtype_of(t)))


def _where(cond, a, b):
    if a.dtype == ms.bfloat16:
        return cast(ops.where(cond, cast(a, ms.float32), cast(b, ms.float32)), ms.bfloat16)
    return ops.where(cond, a, b)


@register("masked_fill", family=F, inplace="masked_fill_")
def masked_fill(input, mask, value):
    _check_mask(mask, "masked_fill_")
    _bshape(mask.shape, input.shape)   # torch expands the mask against the input
    if isinstance(value, ms.Tensor):
        if value.ndim != 0:
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.ndim} dimension(s).")
        v = value if value.dtype == input.dtype else cast(value, input.dtype)
    else:
        if isinstance(value, float) and dtype_of(input)._cat < D._FLOAT:
            value = int(value)
        v = ms.Tensor(value, input.dtype)
    return _where(mask, v, input)


@register("where", family=F, out=True, method=False)
def where(condition, input=None, other=None):
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    if condition.dtype != ms.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{scalar_type_name(dtype_of(condition))}")
    a, b, rt = promote(input, other)
    _bshape(condition.shape, a.shape, b.shape)
    return _where(condition, a, b)


@register("Tensor.where", family=F, function=False, method="where")
def where_method(self, condition, other):
    # self.where(condition, other) is torch.where(condition, self, other): the receiver is not the
    # function's first argument, so the method is an entry of its own
    return where(condition, self, other)


# --- gather / scatter --------------------------------------------------------------------------------

def _check_long(index, name):
    if index.dtype not in (ms.int64, ms.int32):
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")


def _check_range(index, size, dim, err=None):
    """torch rejects out-of-range (and, here, negative) indices; MindSpore would wrap or read garbage."""
    if index.size == 0:
        return
    a = index.asnumpy()
    lo, hi = a.min(), a.max()
    if lo < 0 or hi >= size:
        bad = lo if lo < 0 else hi
        if err is not None:
            raise err
        raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {size}")


def _check_gather_shapes(input, index, src, d, name):
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
    return t[tuple(slice(0, s) for s in shape)]


@register("gather", family=F)
def gather(input, dim, index, *, sparse_grad=False):
    d = wrap_dim(dim, input.ndim)
    _check_long(index, "gather")
    _check_gather_shapes(input, index, None, d, "gather")
    _check_range(index, _shape1(input)[d], d)
    if input.ndim == 0:
        return _kern(ops.gather_elements, input.reshape(1), 0, index.reshape(1)).reshape(index.shape)
    if index.size == 0:
        return empty_from(input, index.shape)
    shape = list(index.shape)
    shape[d] = input.shape[d]
    return _kern(ops.gather_elements, _crop(input, shape), d, index)


def _linear_positions(input, d, index):
    """Flat positions in ``input`` that scatter along ``d`` writes for each element of ``index``."""
    strides = [1] * input.ndim
    for k in range(input.ndim - 2, -1, -1):
        strides[k] = strides[k + 1] * input.shape[k + 1]
    pos = index * strides[d]
    for k in range(input.ndim):
        if k != d and index.shape[k] > 1:
            shape = [1] * input.ndim
            shape[k] = index.shape[k]
            pos = pos + (ops.arange(index.shape[k], dtype=ms.int64) * strides[k]).reshape(shape)
    return pos.reshape(-1)


def _scatter_prep(input, dim, index, src, name):
    d = wrap_dim(dim, input.ndim)
    _check_long(index, name)
    _check_gather_shapes(input, index, src if isinstance(src, ms.Tensor) else None, d, name)
    _check_range(index, _shape1(input)[d], d)
    if isinstance(src, ms.Tensor):
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
        return _make_complex(run(ops.real(input), ops.real(src)), run(ops.imag(input), ops.imag(src)))
    return run(input, src)


@register("scatter", family=F, inplace="scatter_")
def scatter(input, dim, index, src=None, value=None, *, reduce=None):
    if src is None:
        src = value
    d, src = _scatter_prep(input, dim, index, src, "scatter")
    if index.size == 0:
        return fresh(input)
    if input.ndim == 0:
        input, index, src = input.reshape(1), index.reshape(1), src.reshape(1)
    if reduce is None:
        return _scatter_elements(input, index, src, d).reshape(input.shape)
    if reduce == "add":
        return _scatter_elements(input, index, src, d, "add")
    if reduce == "multiply":
        pos = _linear_positions(input, d, index)
        prod = ops.unsorted_segment_prod(src.reshape(-1), pos, input.size).reshape(input.shape)
        return ops.mul(input, prod)
    raise RuntimeError("reduce argument must be either add or multiply.")


@register("scatter_add", family=F, inplace="scatter_add_")
def scatter_add(input, dim, index, src):
    d, src = _scatter_prep(input, dim, index, src, "scatter_add")
    if index.size == 0:
        return fresh(input)
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
    pos = _linear_positions(input, d, index)
    n = input.size
    flat_x, flat_s = x.reshape(-1), s.reshape(-1)
    count = ops.unsorted_segment_sum(ops.ones(pos.shape, ms.int64), pos, n)
    hit = count > 0
    seg = _SEGMENT["sum" if reduce == "mean" else reduce](flat_s, pos, n)
    if reduce == "sum":
        out = ops.add(flat_x if include_self else ops.where(hit, ops.zeros_like(flat_x), flat_x), seg)
    elif reduce == "prod":
        out = ops.mul(flat_x if include_self else ops.where(hit, ops.ones_like(flat_x), flat_x), seg)
    elif reduce == "mean":
        total = ops.add(flat_x, seg) if include_self else seg
        cnt = cast(count + 1 if include_self else ops.maximum(count, ops.ones_like(count)), x.dtype)
        mean = ops.floor_div(total, cnt) if dtype_of(x)._cat < D._FLOAT else ops.div(total, cnt)
        out = ops.where(hit, mean, flat_x)
    else:
        pick = ops.maximum if reduce == "amax" else ops.minimum
        out = ops.where(hit, pick(flat_x, seg) if include_self else seg, flat_x)
        if P.grad_enabled() and (P.requires_grad(input) or P.requires_grad(src)):
            out = _tied(out, flat_x, flat_s, pos, hit, include_self)
    out = out.reshape(shape)
    return cast(out, input.dtype) if wide else out


def _tied(result, x, s, pos, hit, include_self):
    """The same values, rebuilt so that autograd spreads the gradient evenly over the elements equal
    to each max/min, counting ``x``'s element even when it is excluded (torch's formula)."""
    m = ops.stop_gradient(result)
    self_is = cast(ops.equal(x, m), x.dtype)
    src_is = cast(ops.equal(s, ops.gather(m, pos, 0)), x.dtype)
    n = ops.add(self_is, ops.unsorted_segment_sum(src_is, pos, x.size))
    xs = x if include_self else ops.stop_gradient(x)
    total = ops.add(ops.mul(xs, self_is), ops.unsorted_segment_sum(ops.mul(s, src_is), pos, x.size))
    return ops.where(hit, ops.div(total, ops.maximum(n, ops.ones_like(n))), x)


# --- index_* ------------------------------------------------------------------------------------------

def _check_vector(index, name):
    if index.ndim > 1:
        raise IndexError(f"{name}(): Index is supposed to be a vector")
    if index.dtype not in (ms.int64, ms.int32):
        if name == "index_select":
            raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index but got: {scalar_type_name(dtype_of(index))}")


@register("index_select", family=F, out=True)
def index_select(input, dim, index):
    d = wrap_dim(dim, input.ndim)
    _check_vector(index, "index_select")
    size = input.shape[d] if input.ndim else 1
    _check_range(index, size, d, IndexError("index out of range in self"))
    if input.ndim == 0:
        return fresh(input) if index.size else empty_from(input, (0,))
    if index.size == 0:
        shape = list(input.shape)
        shape[d] = 0
        return empty_from(input, shape)
    return _kern(ops.gather, input, index.reshape(-1), d)


def _along_front(input, source, d, index, name, kernel, err=RuntimeError):
    """Apply a row-wise scatter ``kernel`` after moving ``d`` to the front (index_add/index_copy)."""
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
    if n == 0:
        if P.requires_grad(source):   # keep the (empty) source in the graph, as torch does
            return ops.concat((input, source), d)
        return fresh(input)
    x, s = ops.movedim(input, d, 0), ops.movedim(source, d, 0)
    idx = cast(index.reshape(-1, 1), ms.int64)
    if input.dtype == ms.bfloat16:
        out = cast(kernel(cast(x, ms.float32), idx, cast(s, ms.float32)), ms.bfloat16)
    elif input.dtype in _COMPLEX:
        out = _make_complex(kernel(ops.real(x), idx, ops.real(s)), kernel(ops.imag(x), idx, ops.imag(s)))
    elif input.dtype == ms.bool_:
        out = cast(kernel(cast(x, ms.int8), idx, cast(s, ms.int8)), ms.bool_)
    else:
        out = kernel(x, idx, s)
    return solid(ops.movedim(out, 0, d)) if d else out


@register("index_add", family=F, inplace="index_add_", out=True)
def index_add(input, dim, index, source, *, alpha=1):
    d = wrap_dim(dim, input.ndim)
    _check_vector(index, "index_add_")
    _check_range(index, input.shape[d] if input.ndim else 1, d)
    if source.dtype != input.dtype:
        source = cast(source, input.dtype)
    if alpha != 1:
        source = ops.mul(source, scalar_tensor(alpha, dtype_of(source)))
    return _along_front(input, source, d, index, "index_add_", ops.tensor_scatter_add)


@register("index_copy", family=F, inplace="index_copy_")
def index_copy(input, dim, index, source):
    d = wrap_dim(dim, input.ndim)
    if index.dtype != ms.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got "
                           f"{scalar_type_name(dtype_of(index))}")
    if index.ndim > 1:
        raise IndexError("index_copy_(): Index should have dimension 1 or 0 (got 2)")
    size = input.shape[d] if input.ndim else 1
    if index.size:
        a = index.asnumpy()
        if a.min() < 0 or a.max() >= size:
            bad = a.min() if a.min() < 0 else a.max()
            raise IndexError(f"index_copy_(): index {bad} is out of bounds for dimension {d} with size {size}")
    if source.dtype != input.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{scalar_type_name(dtype_of(input))} and (source) {scalar_type_name(dtype_of(source))}")
    return _along_front(input, source, d, index, "index_copy_", ops.tensor_scatter_update, IndexError)


@register("index_fill", family=F, inplace="index_fill_")
def index_fill(input, dim, index, value):
    d = wrap_dim(dim, input.ndim)
    if index.dtype != ms.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if index.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    size = input.shape[d] if input.ndim else 1
    if index.size:
        a = index.asnumpy()
        if a.min() < -size or a.max() >= size:
            bad = a.min() if a.min() < -size else a.max()
            raise IndexError(f"index {bad} is out of bounds for dimension {d} with size {size}")
    if isinstance(value, ms.Tensor):
        if value.ndim:
            raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.ndim} dimension(s).")
        v = cast(value, input.dtype)
    else:
        v = ms.Tensor(int(value) if isinstance(value, float) and dtype_of(input)._cat < D._FLOAT else value,
                      input.dtype)
    if index.size == 0:
        return fresh(input)
    idx = index.reshape(-1)
    idx = ops.where(idx < 0, idx + size, idx)
    hit = ops.equal(ops.arange(size, dtype=ms.int64).reshape(-1, 1), idx.reshape(1, -1)).any(1)
    shape = [1] * input.ndim
    if input.ndim:
        shape[d] = size
    return _where(hit.reshape(tuple(shape)), v, input)


# --- masked_select / masked_scatter / nonzero / take -------------------------------------------------

def _bshape(*shapes):
    return broadcast_shape(shapes)


@register("masked_select", family=F, out=True)
def masked_select(input, mask):
    if mask.dtype != ms.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = _bshape(mask.shape, input.shape)
    x = ops.broadcast_to(input, shape) if tuple(input.shape) != shape else input
    m = ops.broadcast_to(mask, shape) if tuple(mask.shape) != shape else mask
    if x.size == 0:
        return ops.zeros((0,), input.dtype)
    if x.dtype in _COMPLEX:
        return _make_complex(ops.masked_select(ops.real(x), m), ops.masked_select(ops.imag(x), m))
    return _kern(ops.masked_select, x, m)


def _untouched(x, source, shape):
    """``x`` where nothing is scattered, still on source's graph (torch's source gradient is zeros)."""
    if not needs_grad(source):
        return fresh(x)
    return ops.sub(x, empty_result(source, shape))   # x - 0 keeps x's signed zeros


@register("masked_scatter", family=F, inplace="masked_scatter_")
def masked_scatter(input, mask, source):
    _check_mask(mask, "masked_scatter_", c_names=False)
    shape = _bshape(mask.shape, input.shape)
    x = ops.broadcast_to(input, shape) if tuple(input.shape) != shape else input
    m = ops.broadcast_to(mask, shape).reshape(-1)
    if source.dtype != input.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got"
                           f"{scalar_type_name(dtype_of(input))} and {scalar_type_name(dtype_of(source))}")
    if m.size == 0:
        return _untouched(x, source, shape)
    order = ops.cumsum(cast(m, ms.int64), 0)
    if int(order[-1]) > source.size:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    if source.size == 0:
        return _untouched(x, source, shape)
    picked = _kern(ops.gather, source.reshape(-1), ops.maximum(order - 1, ops.zeros_like(order)), 0)
    return _where(m.reshape(shape), picked.reshape(shape), x)


@register("nonzero", family=F, out=True)
def nonzero(input, *, as_tuple=False):
    if input.dtype == ms.bfloat16:
        input = cast(input, ms.float32)
    if input.dtype in _COMPLEX:   # its cast to bool reads the real part only
        t = ops.ne(input, ms.Tensor(0, input.dtype))
    else:
        t = input if input.dtype == ms.bool_ else cast(input, ms.bool_)
    if t.ndim == 0:
        n = 1 if bool(t) else 0
        if as_tuple:
            return (ops.zeros((n,), ms.int64),)
        return ops.zeros((n, 0), ms.int64)
    if t.size == 0:
        idx = ops.zeros((0, t.ndim), ms.int64)
    else:
        idx = ops.nonzero(t)
        if idx.dtype != ms.int64:
            idx = cast(idx, ms.int64)
    if as_tuple:
        return tuple(solid(idx[:, k]) for k in range(t.ndim))
    return idx


@register("argwhere", family=F)
def argwhere(input):
    return nonzero(input)


@register("take", family=F, out=True)
def take(input, index):
    if index.dtype != ms.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {scalar_type_name(dtype_of(index))}")
    n = input.size
    if index.size:
        a = index.asnumpy()
        bad = a[(a < -n) | (a >= n)]
        if bad.size:
            raise IndexError(f"out of range: tried to access index {bad.flat[0]} on a tensor of {n} elements.")
    if index.size == 0:
        return empty_from(input, index.shape)
    idx = index.reshape(-1)
    idx = ops.where(idx < 0, idx + n, idx)   # Gather's gradient drops negative indices
    return _kern(ops.gather, input.reshape(-1), idx, 0).reshape(index.shape)


@register("take_along_dim", family=F, out=True)
def take_along_dim(input, indices, dim=None):
    if dim is not None and input.ndim != indices.ndim:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {input.ndim} dimensions for input, and {indices.ndim} dimensions for indices")
    if indices.dtype != ms.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{scalar_type_name(dtype_of(indices))}")
    if dim is None:
        return gather(input.reshape(-1), 0, indices.reshape(-1))
    d = wrap_dim(dim, input.ndim)
    xs, js = list(input.shape), list(indices.shape)
    xs[d] = js[d] = 1
    b = list(_bshape(xs, js))
    xb, ib = list(b), list(b)
    xb[d], ib[d] = input.shape[d], indices.shape[d]
    x = ops.broadcast_to(input, tuple(xb)) if tuple(xb) != tuple(input.shape) else input
    i = ops.broadcast_to(indices, tuple(ib)) if tuple(ib) != tuple(indices.shape) else indices
    return gather(x, d, i)
