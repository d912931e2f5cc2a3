"""Indexing and index assignment, plus masked_*/where/nonzero (gather/scatter/index_*/take: scatter_gather.py).

``x[idx]`` follows torch in two steps: the basic part (ints, slices, None, Ellipsis) is a view; the
advanced part (integer/bool tensors, lists, Python bools) then indexes that view with only full
slices left, where MindSpore's NumPy rule for where advanced dims go is torch's rule. (Taking ints
first is what torch does and what makes ``x[0, :, [1, 2]]`` differ from NumPy.)
"""

import warnings

import numpy as np
import mindspore as ms
from .._runtime import read_host
from . import _kernels as kernels
from . import _msops as ops

from .. import _dtype as D
from .. import _ms_private as P
from .._tensor import Tensor, wrap, scalar_type_name
from ._helpers import dtype_of, promote, cast
from ._registry import register
from ..autograd._higher_order import own_backward
from .creation import _infer_sequence_dtype, _data_to_ms, _check_fill
from ._views import (BasicIndex, index_view, fresh, solid, empty_from, scatter_positions, grad_source, broadcast_shape,
                     repeated_writes)
from .reduction import needs_grad, empty_result

F = "indexing"
_COMPLEX = (ms.complex64, ms.complex128)
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


def _check_empty_dims(r, dims, bshape):
    """torch's check, before any index's range (and before index_put's value shape): an indexed dim of size 0
    has no valid index, so a non-empty index into it fails."""
    if 0 not in bshape and any(r.shape[d] == 0 for d in dims):
        raise IndexError("index is out of bounds for dimension with size 0")


def _linear_index_kernels(r, adv):
    """The device path: integer indices combined into one linear index by kernels, no host read; as
    torch's CUDA indexing, an out-of-range index is not reported (``MSTORCH_CHECK_INDICES=1`` checks)."""
    try:
        bshape = np.broadcast_shapes(*(tuple(t.shape) for _, t in adv))
    except ValueError:
        raise _broadcast_error([t.shape for _, t in adv]) from None
    _check_empty_dims(r, [pos for pos, _ in adv], bshape)
    linear = None
    for pos, t in adv:
        n = r.shape[pos]
        t = t if t.dtype == ms.int64 else cast(t, ms.int64)
        t = ops.broadcast_to(ops.where(ops.less(t, 0), ops.add(t, n), t), bshape)
        linear = t if linear is None else ops.add(ops.mul(linear, n), t)
    return linear, [pos for pos, _ in adv]


def _linear_index_host(r, adv, range_errors=None):
    """Indices read on the host (range-checked, masks expanded to their positions): one linear index."""
    arrays, dims, errors = [], [], []
    for pos, t in adv:
        a = read_host(t)
        if t.dtype == ms.bool_:
            arrays.extend(np.nonzero(a))
            dims.extend(range(pos, pos + a.ndim))
        else:
            size = r.shape[pos]
            if a.size and (a.min() < -size or a.max() >= size):
                bad = a[(a < -size) | (a >= size)]
                errors.append(IndexError(f"index {bad.flat[0]} is out of bounds for dimension {pos} with size {size}"))
                a = np.zeros_like(a)
            arrays.append(a)
            dims.append(pos)
    try:
        arrays = np.broadcast_arrays(*arrays)
    except ValueError:
        raise _broadcast_error([a.shape for a in arrays]) from None
    _check_empty_dims(r, dims, arrays[0].shape)
    if errors:   # (torch's kernel checks the range last)
        if range_errors is None:
            raise errors[0]
        range_errors.extend(errors)
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


def _fit(v, shape, advanced, strip=True):
    """torch's broadcast of an assigned value to the indexed shape (leading 1s may be dropped by index
    assignment, ``strip``; not by index_put, which expands the value as it is)."""
    vs = tuple(v.shape)
    while strip and len(vs) > len(shape) and vs[0] == 1:
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
    # torch's order: the indices (broadcast, an indexed empty dim), the value's shape, its dtype, and last
    # (in the kernel) each index's range
    range_errors = []
    positions = _positions(t, key, adv, range_errors)
    _fit(v, positions.shape, True, strip=False)
    if v.dtype != t.dtype and not masked_fill:
        _index_put_dtype_error(input, values)
    v = _fit(cast(v, t.dtype), positions.shape, True, strip=False)
    if range_errors and positions.size:   # (an empty result never reaches the kernel's range check)
        raise range_errors[0]
    if not accumulate:
        r = scatter_positions(grad_source(t), positions, v)
    else:
        flat = t.reshape(-1)
        if positions.size:
            flat = _scatter_add_flat(flat, positions.reshape(-1, 1), v.reshape(-1))
        r = solid(flat.reshape(t.shape))
    # empty values that need gradients: torch's backward reaches them (an empty gradient, not None)
    return wrap(ops._linked(r, values._ms) if not values._ms.size else r)


def _scatter_add_flat(flat, idx, vals):
    """index_put's accumulation (MindSpore's TensorScatterAdd has no bool or complex kernel: a bool sum is
    their logical or, a complex one adds the parts)."""
    def add(f, w):
        return _kern(lambda a: ops.tensor_scatter_add(a, idx, cast(w, a.dtype)), f)
    if flat.dtype == ms.bool_:
        return cast(add(cast(flat, ms.int32), cast(vals, ms.int32)), ms.bool_)
    if flat.dtype in _COMPLEX:
        return ops.complex_of_parts(add(ops.real(flat), ops.real(vals)), add(ops.imag(flat), ops.imag(vals)))
    return add(flat, vals)


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


@register("masked_fill", family=F)
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


_MASKED_FILL_ = []


@register("masked_fill_", family=F, namespace="Tensor", raw=True)
def masked_fill_(self, mask, value):
    """Tensor.masked_fill_: the generic in-place form, except on a receiver whose elements repeat (an expanded
    view), which torch writes element by element: a memory location takes the value when any of its copies
    is masked, so every copy is given that one result before the write."""
    if not _MASKED_FILL_:
        from ._bind import _make_inplace   # (built on first use: _bind builds the op table from this file)
        from ._registry import PUBLIC
        _MASKED_FILL_.append(_make_inplace(PUBLIC["masked_fill"], "masked_fill_"))
    generic = _MASKED_FILL_[0]
    if not isinstance(mask, Tensor) or mask.dtype is not D.bool_:
        return generic(self, mask, value)
    shape = tuple(self.shape)
    # (the in-place form broadcasts the receiver with the mask: torch's message names the receiver first)
    repeated = [d for d, (n, st) in enumerate(zip(shape, self.stride())) if st == 0 and n > 1]
    if _bshape(shape, tuple(mask.shape)) != shape or not repeated:
        return generic(self, mask, value)
    warnings.warn("Use of masked_fill_ on expanded tensors is deprecated. Please clone() the tensor before performing "
                  "this operation. This also applies to advanced indexing e.g. tensor[mask] = scalar", UserWarning)
    m = ops.broadcast_to(mask._ms, shape)
    for d in repeated:
        m = ops.any(m, d, True)
    with repeated_writes():
        return generic(self, wrap(ops.broadcast_to(m, shape)), value)


def _fill_unpack_error(value):
    if value < 0:
        return OverflowError("can't convert negative int to unsigned")
    return RuntimeError("value cannot be converted to type int64_t without overflow")


@register("where", family=F, out="exact", out_requires="tensors", namespace="torch")
def where(condition, input=None, other=None):
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    if condition.dtype == ms.uint8:   # (still accepted by torch, read as condition != 0)
        warnings.warn("where received a uint8 condition tensor. This behavior is deprecated and will be removed "
                      "in a future version of PyTorch. Use a boolean condition instead.", UserWarning)
        condition = cast(condition, ms.bool_)
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
        return ops.complex_of_parts(ops.masked_select(ops.real(x), m), ops.masked_select(ops.imag(x), m))
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


# --- Tensor members owned here (installed on Tensor by mstorch/_install.py) ---------------------------------


def _iter(self):
    if self._ms.ndim == 0:
        raise TypeError("iteration over a 0-d tensor")
    # rows are views, as torch's unbind(0) gives: writing to one writes to this tensor
    return iter([getitem(self, i) for i in range(self._ms.shape[0])])


TENSOR_MEMBERS = {"__getitem__": getitem, "__setitem__": setitem, "__iter__": _iter}
