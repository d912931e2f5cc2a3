"""Indexing and index assignment, plus gather/scatter/index_*/masked_*/where/nonzero/take.

``x[idx]`` follows torch in two steps: the basic part (ints, slices, None, Ellipsis) is a view; the
advanced part (integer/bool tensors, lists, Python bools) then indexes that view with only full
slices left, where MindSpore's NumPy rule for where advanced dims go is torch's rule. (Taking ints
first is what torch does and what makes ``x[0, :, [1, 2]]`` differ from NumPy.)
"""
import math

import numpy as np
import mindspore as ms
from .._runtime import read_host
from . import _kernels as kernels
from . import _msops as ops

from .. import _dtype as D
from .. import _ms_private as P
from .._tensor import Tensor, wrap, scalar_type_name
from ._helpers import wrap_dim, dtype_of, promote, scalar_tensor, cast
from ._registry import register
from ..autograd._higher_order import own_backward
from .creation import _infer_sequence_dtype, _data_to_ms, _check_fill
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

def _is_sequence(x):
    """Python's sequence protocol as torch's indexing tests it (PySequence_Check): lists, tuples, ranges,
    NumPy arrays and any class with ``__getitem__``/``__len__``, but not dicts or NumPy scalars."""
    if isinstance(x, (list, tuple, range, np.ndarray)):
        return True
    if isinstance(x, (dict, np.generic, Tensor)):
        return False
    tp = type(x)
    return hasattr(tp, "__getitem__") and hasattr(tp, "__len__")


def _as_tuple(index):
    """torch's treatSequenceAsTuple: a short non-tuple sequence holding a slice, None, Ellipsis, a
    tensor or another sequence is read as a tuple of indices (``x[[0, slice(None)]]``, ``x[[range(2), y]]``)."""
    if isinstance(index, tuple):
        return tuple(index)
    if isinstance(index, (Tensor, np.ndarray, str, bytes)) or not _is_sequence(index) or len(index) >= 32:
        return (index,)
    for x in index:
        if x is None or x is Ellipsis or isinstance(x, (slice, Tensor)) or _is_sequence(x):
            return tuple(index)
    return (index,)


def _seq_index(item):
    """torch's indexing_tensor_from_data: a sequence index becomes an int64 tensor (floats truncate),
    or a bool/uint8 mask when that is its inferred dtype; NumPy arrays keep their own dtype."""
    if isinstance(item, np.ndarray):
        src = D.from_numpy_dtype(item.dtype)
        target = src if src in (D.bool_, D.uint8) else D.int64
        return ms.Tensor(np.array(item, dtype=target._np, order="C"))
    data = item if isinstance(item, (list, tuple, range)) else list(item)
    inferred, _ = _infer_sequence_dtype(data)
    return _data_to_ms(data, inferred if inferred in (D.bool_, D.uint8) else D.int64)


def _tp_name(x):
    """CPython's tp_name, which torch's messages print: builtins bare, C types with their module."""
    tp = type(x)
    heap = tp.__flags__ & (1 << 9)   # Py_TPFLAGS_HEAPTYPE: classes written in Python print bare
    if heap or tp.__module__ == "builtins":
        return tp.__name__
    return f"{tp.__module__}.{tp.__name__}"


def _tensor_index(t):
    """The parse entry of a tensor index (a mindspore.Tensor): mask, int (0-d integer) or index."""
    if t.dtype in (ms.bool_, ms.uint8):   # a uint8 mask stays uint8 until used: masked_fill refuses it
        return ("mask", t), t.ndim, False
    if t.dtype in _INT_MS:
        if t.ndim == 0:
            return ("int", int(read_host(t))), 1, True
        return ("idx", t), 1, False
    raise IndexError("tensors used as indices must be long, int, byte or bool tensors")


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
            entry, n, copied = _tensor_index(item._ms)
            conv.append(entry)
            consumed += n
            copy = copy or copied
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
        elif isinstance(item, (str, bytes)):
            raise TypeError(f"new(): invalid data type '{type(item).__name__}'")
        elif isinstance(item, np.integer) or isinstance(item, np.bool_):
            conv.append(("int", int(item)))
            consumed += 1
        elif _is_sequence(item):
            entry, n, copied = _tensor_index(_seq_index(item))
            conv.append(entry)
            consumed += n
            copy = copy or copied
        elif hasattr(item, "__index__"):
            conv.append(("int", item.__index__()))
            consumed += 1
        else:
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                             f"are valid indices (got {_tp_name(item)})")
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


def _advanced(r, adv, range_errors=None):
    """Index ``r`` (the basic result) with its advanced indices. Torch's rule: the indexed dims are
    replaced by the broadcast index shape, in place when they are adjacent, in front otherwise.
    Indices are read on the host (torch checks their range too) and become one Gather. With a list
    ``range_errors``, an index out of range is collected there (the result then only has the right shape)."""
    adv = [(pos, cast(t, ms.bool_) if t.dtype == ms.uint8 else t) for pos, t in adv]
    if len(adv) == 1 and adv[0][0] == 0 and adv[0][1].dtype == ms.bool_ and adv[0][1].ndim == r.ndim:
        return _kern(ops.masked_select, r, adv[0][1])
    if kernels.CHECK_INDICES or any(t.dtype == ms.bool_ for _, t in adv):
        # (a mask's nonzero positions decide the result's shape: torch's CUDA indexing syncs for them too)
        linear, dims = _linear_index_host(r, adv, range_errors)
    else:
        linear, dims = _linear_index_kernels(r, adv)
    sizes = [r.shape[d] for d in dims]
    shape = tuple(r.shape)
    bshape = tuple(linear.shape)
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
    if range_errors:
        return ops.zeros(out_shape, r.dtype)
    if isinstance(linear, np.ndarray):
        return _kern(ops.gather, src, ms.Tensor(linear.reshape(-1)), axis).reshape(out_shape)
    try:
        return _kern(ops.gather, src, linear.reshape(-1), axis).reshape(out_shape)
    except RuntimeError:
        # an unchecked index out of range, refused by the kernel (MindSpore's CPU Gather checks): the failed
        # kernel switched op recording off for every later op, as _bind.translate_error notes
        P.enable_recording()
        raise


def _broadcast_error(shapes):
    shapes = ", ".join(str(list(s)) for s in shapes)
    return IndexError(f"shape mismatch: indexing tensors could not be broadcast together with shapes {shapes}")


def _linear_index_kernels(r, adv):
    """The device path: integer indices combined into one linear index by kernels, no host read; as
    torch's CUDA indexing, an out-of-range index is not reported (``MSTORCH_CHECK_INDICES=1`` checks)."""
    try:
        bshape = np.broadcast_shapes(*(tuple(t.shape) for _, t in adv))
    except ValueError:
        raise _broadcast_error([t.shape for _, t in adv]) from None
    linear = None
    for pos, t in adv:
        n = r.shape[pos]
        t = t if t.dtype == ms.int64 else cast(t, ms.int64)
        t = ops.broadcast_to(ops.where(ops.less(t, 0), ops.add(t, n), t), bshape)
        linear = t if linear is None else ops.add(ops.mul(linear, n), t)
    return linear, [pos for pos, _ in adv]


def _linear_index_host(r, adv, range_errors=None):
    """Indices read on the host (range-checked, masks expanded to their positions): one linear index."""
    arrays, dims = [], []
    for pos, t in adv:
        a = read_host(t)
        if t.dtype == ms.bool_:
            arrays.extend(np.nonzero(a))
            dims.extend(range(pos, pos + a.ndim))
        else:
            size = r.shape[pos]
            if a.size and (a.min() < -size or a.max() >= size):
                bad = a[(a < -size) | (a >= size)]
                err = IndexError(f"index {bad.flat[0]} is out of bounds for dimension {pos} with size {size}")
                if range_errors is None:
                    raise err
                range_errors.append(err)
                a = np.zeros_like(a)
            arrays.append(a)
            dims.append(pos)
    try:
        arrays = np.broadcast_arrays(*arrays)
    except ValueError:
        raise _broadcast_error([a.shape for a in arrays]) from None
    linear = np.zeros(arrays[0].shape, np.int64)
    for a, d in zip(arrays, dims):
        n = r.shape[d]
        linear = linear * n + np.where(a < 0, a + n, a)
    return linear, dims


def getitem(self, index):
    t = self._ms
    key, adv, copy = _parse(index, t.shape)
    if not adv:
        if copy:
            out = wrap(fresh(BasicIndex(t.shape, key).read(t)))
        else:
            out = index_view(self, key)
    else:
        r = t if _is_noop(key) else BasicIndex(t.shape, key).read(t)
        out = wrap(solid(_advanced(r, adv)))
    if self._dev is not None:   # (index tensors may stay on the CPU, as in torch)
        out._dev = self._dev
    return out


# --- index assignment --------------------------------------------------------------------------------

def _legacy_name(t):
    return f"torch.{scalar_type_name(t.dtype)}Tensor"


_INT64_RANGE = (-2 ** 63, 2 ** 63)


def _checked_scalar(value, dtype, unpack_error, unchecked=()):
    """A Python number converted for a tensor of ``dtype`` as torch's scalar conversion does: range
    checked (c10::checked_convert), truncated to integers, any non-zero value True for bool."""
    if isinstance(value, np.generic):
        value = value.item()
    if type(value) is int and not _INT64_RANGE[0] <= value < _INT64_RANGE[1]:
        raise unpack_error(value)
    if dtype not in unchecked:
        _check_fill(value, dtype)
    if dtype is D.bool_:
        return bool(value)
    if isinstance(value, complex) and not dtype.is_complex:
        value = value.real
    if isinstance(value, float) and dtype._cat < D._FLOAT:
        value = int(value) if value == value and abs(value) != float("inf") else 0
    return value


def _setitem_unpack_error(value):
    return ValueError("Overflow when unpacking long long")


def _scalar_value(value, self):
    # torch's index assignment turns the number into a 0-d tensor of the receiver's dtype, checked
    # except for half and bfloat16, which overflow to inf
    v = _checked_scalar(value, self.dtype, _setitem_unpack_error, (D.float16, D.bfloat16))
    return ms.Tensor(v, self._ms.dtype)


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
    elif isinstance(value, (bool, int, float, complex, np.number, np.bool_)):
        v = _scalar_value(value, self)
    else:
        raise TypeError(f"can't assign a {type(value).__name__} to a {_legacy_name(self)}")
    key, adv, _ = _parse(index, t.shape)
    if not adv:
        plan = BasicIndex(t.shape, key)
        v = _fit(v if v.dtype == t.dtype else cast(v, t.dtype), plan.out, False)
        self._write(plan.write(t, v), check_cast=False)
        return
    if len(adv) == 1 and adv[0][1].dtype in (ms.bool_, ms.uint8) and v.size == 1 and _is_noop(key):
        # x[..., mask] = one value: torch's index_put_ dispatches to masked_fill_(mask, value.item())
        pos, mask = adv[0]
        _check_mask(mask, "masked_fill_")
        if isinstance(value, Tensor) and v.dtype != t.dtype:
            _checked_scalar(value.item(), self.dtype, _setitem_unpack_error)
        mask = mask.reshape((1,) * pos + tuple(mask.shape) + (1,) * (t.ndim - pos - mask.ndim))
        self._write(_where(mask, cast(v.reshape(()), t.dtype), t), check_cast=False)
        return
    if isinstance(value, Tensor) and v.dtype != t.dtype:
        _index_put_dtype_error(self, value)
    range_errors = []
    positions = _positions(t, key, adv, range_errors)
    if range_errors:   # (torch's kernel checks the indices' range after the value's shape)
        _fit(v, positions.shape, True)
        raise range_errors[0]
    if positions.size == 0 and P.requires_grad(v) and P.grad_enabled():
        # nothing is written, but torch keeps the value in the graph (its gradient is zeros); an empty
        # slice of it does that (the gradient of a broadcast to an empty shape is wrong in MindSpore)
        _fit(v, positions.shape, True)
        self._write(ops.concat((grad_source(t).reshape(-1), empty_from(v, (0,)))).reshape(t.shape), check_cast=False)
        return
    v = _fit(v if v.dtype == t.dtype else cast(v, t.dtype), positions.shape, True)
    self._write(scatter_positions(grad_source(t), positions, v), check_cast=False)


def _positions(t, key, adv, range_errors=None):
    """The flat positions of the elements ``t[key][adv]`` selects (torch's rule), read off an arange."""
    positions = ops.arange(t.size, dtype=ms.int64).reshape(t.shape)
    if not _is_noop(key):
        positions = BasicIndex(t.shape, key).read(positions)
    return _advanced(positions, adv, range_errors) if adv else positions


def _index_put_dtype_error(dst, src):
    raise RuntimeError(
        f"Index put requires the source and destination dtypes match, got {scalar_type_name(dst.dtype)} "
        f"for the destination and {scalar_type_name(src.dtype)} for the source.")


@register("index_put", family=F, inplace="index_put_", raw=True)
def index_put(input, indices, values, accumulate=False):
    """torch.index_put: ``input[indices] = values`` (summing values at repeated positions with
    ``accumulate=True``) on a copy; ``index_put_`` writes it back."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"index_put_(): argument 'indices' (position 1) must be tuple of Tensors, not "
                        f"{type(indices).__name__}")
    for i, x in enumerate(indices):
        if not isinstance(x, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(x).__name__}")
    if not isinstance(values, Tensor):
        raise TypeError(f"index_put_(): argument 'values' (position 2) must be Tensor, not {type(values).__name__}")
    t, v = input._ms, values._ms
    if len(indices) > t.ndim:
        raise IndexError(f"too many indices for tensor of dimension {t.ndim} (got {len(indices)})")
    if not indices:
        raise RuntimeError("sym_strides() called on an undefined Tensor")
    key, adv, _ = _parse(tuple(indices), t.shape)
    masked_fill = (len(adv) == 1 and adv[0][0] == 0 and adv[0][1].dtype == ms.bool_ and v.size == 1
                   and _is_noop(key) and not accumulate)
    if v.dtype != t.dtype and not masked_fill:
        _index_put_dtype_error(input, values)
    range_errors = []
    positions = _positions(t, key, adv, range_errors)
    v = _fit(cast(v, t.dtype), positions.shape, True)
    if range_errors:   # (torch's kernel checks the indices' range after the value's shape)
        raise range_errors[0]
    if not accumulate:
        r = scatter_positions(grad_source(t), positions, v)
    else:
        flat = t.reshape(-1)
        if positions.size:
            idx, vals = positions.reshape(-1, 1), v.reshape(-1)
            flat = _kern(lambda f: ops.tensor_scatter_add(f, idx, cast(vals, f.dtype)), flat)
        r = solid(flat.reshape(t.shape))
    # empty values that need gradients: torch's backward reaches them (an empty gradient, not None)
    return wrap(ops._linked(r, values._ms) if not values._ms.size else r)


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
        if value.dtype != input.dtype:   # torch reads the value as a number, then converts it checked
            _checked_scalar(read_host(value).item(), dtype_of(input), _fill_unpack_error)
        v = value if value.dtype == input.dtype else cast(value, input.dtype)
    else:
        v = ms.Tensor(_checked_scalar(value, dtype_of(input), _fill_unpack_error), input.dtype)
    return _where(mask, v, input)


def _fill_unpack_error(value):
    if value < 0:
        return OverflowError("can't convert negative int to unsigned")
    return RuntimeError("value cannot be converted to type int64_t without overflow")


@register("where", family=F, out="exact", out_requires="tensors", namespace="torch")
def where(condition, input=None, other=None):
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    if condition.dtype != ms.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{scalar_type_name(dtype_of(condition))}")
    a, b, rt = promote(input, other)
    _bshape(condition.shape, a.shape, b.shape)
    return _where(condition, a, b)


@register("Tensor.where", family=F, namespace="Tensor")
def where_method(self, condition, other):
    # self.where(condition, other) is torch.where(condition, self, other): the receiver is not the
    # function's first argument, so the method is an entry of its own
    return where(condition, self, other)


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
    return t[tuple(slice(0, s) for s in shape)]


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
        pos = ops.flat_positions(input.shape, d, index)
        prod = ops.unsorted_segment_prod(src.reshape(-1), pos, input.size).reshape(input.shape)
        return ops.mul(input, prod)
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


@register("index_select", family=F, out="exact")
def index_select(input, dim, index):
    d = wrap_dim(dim, input.ndim)
    _check_vector(index, "index_select")
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
    ``check()`` runs after the shape checks (torch's kernel checks the indices' range there)."""
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
        out = _make_complex(kernel(ops.real(x), idx, ops.real(s)), kernel(ops.imag(x), idx, ops.imag(s)))
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
    # (torch's kernel for a vector self checks each index in its loop: its IndexError; otherwise its message)
    err = IndexError("index out of range in self") if input.ndim <= 1 else None
    return _along_front(input, source, d, index, "index_add_", ops.tensor_scatter_add,
                        check=lambda: _check_range(index, size, d, err))


@register("index_copy", family=F, inplace="index_copy_")
def index_copy(input, dim, index, source):
    d = wrap_dim(dim, input.ndim)
    if index.dtype != ms.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got "
                           f"{scalar_type_name(dtype_of(index))}")
    if index.ndim > 1:
        raise IndexError("index_copy_(): Index should have dimension 1 or 0 (got 2)")
    size = input.shape[d] if input.ndim else 1
    if index.size and kernels.CHECK_INDICES:
        a = read_host(index)
        if a.min() < 0 or a.max() >= size:
            bad = a.min() if a.min() < 0 else a.max()
            raise IndexError(f"index_copy_(): index {bad} is out of bounds for dimension {d} with size {size}")
    if source.dtype != input.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{scalar_type_name(dtype_of(input))} and (source) {scalar_type_name(dtype_of(source))}")
    if input.ndim and source.ndim:
        # torch compares the slices before it counts the indices
        if source.ndim != input.ndim:
            raise IndexError(f"index_copy_(): When source and destination are not scalars, their dimensionality "
                             f"must match. Source dimensionality ({source.ndim}), destination dimensionality "
                             f"({input.ndim})")
        own, src = list(input.shape), list(source.shape)
        del own[d], src[d]
        if own != src:
            raise RuntimeError(f"index_copy_(): Source/destination tensor must have same slice shapes. Destination "
                               f"slice shape: {' '.join(map(str, own))} at dimension {d} and source slice shape: "
                               f"{' '.join(map(str, src))} at dimension 0.")
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


# --- masked_select / masked_scatter / nonzero / take -------------------------------------------------

def _bshape(*shapes):
    return broadcast_shape(shapes)


@register("masked_select", family=F, out="exact")
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
    return own_backward(_kern(ops.masked_select, x, m), _masked_select_backward, tuple(x.shape), m)


def _masked_select_backward(node, grad_outputs, shape, m):
    # for double backward (MindSpore's MaskedSelect backward is not recorded completely): the gradient
    # added into zeros at the selected positions
    g = grad_outputs[0]
    if g is None:
        return (None,)
    pos = ms.Tensor(np.flatnonzero(read_host(m)))
    flat = ops.tensor_scatter_elements(ops.zeros((int(np.prod(shape)),), g.dtype), pos, g, 0, "add")
    return (flat.reshape(shape), None)


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


@register("nonzero", family=F, out="exact")
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


@register("take", family=F, out="exact")
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


@register("take_along_dim", family=F, out="exact")
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
    size = input.shape[d]
    if size and i.size:   # torch wraps the indices along ``dim`` (Python's modulo), unchecked
        i = ms.Tensor(read_host(i) % size) if kernels.HOST_WORKAROUNDS else \
            ops.floor_mod(i, ms.Tensor(size, ms.int64))
    return gather(x, d, i)


# --- Tensor members owned here (installed on Tensor by mstorch/_install.py) ---------------------------------


def _iter(self):
    if self._ms.ndim == 0:
        raise TypeError("iteration over a 0-d tensor")
    # rows are views, as torch's unbind(0) gives: writing to one writes to this tensor
    return iter([getitem(self, i) for i in range(self._ms.shape[0])])


TENSOR_MEMBERS = {"__getitem__": getitem, "__setitem__": setitem, "__iter__": _iter}
