"""Creation ops: tensor, as_tensor, from_numpy, zeros/ones/full/empty(_like), eye, the legacy typed
constructors (torch.FloatTensor...) and Tensor's new_* members (arange/range/linspace/logspace: ranges.py).

Values are built on the host with NumPy and copied into a MindSpore tensor (for small tensors several
times faster than a MindSpore kernel launch).
"""
import math

import numpy as np
import mindspore as ms
from mindspore.ops import auto_generate as _gen
from . import _msops as ops

from .. import _dtype as D
from .. import _ms_private as P
from .. import _runtime
from .._cast import cast, NP_BF16, bf16_bits
from .. import _device
from .._size import Size
from .._tensor import Tensor, wrap
from .._warnings import warn_once
from ._argerr import invalid_args
from ._helpers import size_args
from ._registry import register

F = "creation"
_PY_SCALARS = (bool, int, float, complex)
_from_numpy_ms = ms.from_numpy
_as_strided = _gen.as_strided


def _finish(t, requires_grad, device=None):
    place = _device.default_placement() if device is None else _device.placement(device)
    w = wrap(t)
    if place is not None:
        place_new(w, place)
    elif _on_meta(device):
        w._meta = True
    if requires_grad:
        if not D._FROM_MS[t.dtype].is_floating_point and not D._FROM_MS[t.dtype].is_complex:
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        w.requires_grad_(True)
    return w


def place_new(w, place):
    """Put a factory's fresh result ``w`` on device ``place`` (its data moved there on a real device)."""
    if not _device.accel["simulated"]:
        w._ms = w._ms.move_to(_runtime.device_target())
    w._dev = place
    return w


def _on_meta(device):
    """Whether a factory called with ``device`` makes a meta tensor (also under ``with torch.device("meta")``)."""
    if device is None:
        device = _device._default[0]
        return device is not None and device.type == "meta"
    return _device.device(device).type == "meta"


def _check_dtype(dtype, name):
    if dtype is not None and not isinstance(dtype, D.dtype):
        raise TypeError(f"{name}(): argument 'dtype' must be torch.dtype, not {type(dtype).__name__}")


def _host_to_ms(arr, target):
    """A MindSpore tensor of dtype ``target`` holding the values of host array ``arr``."""
    if target is D.bfloat16:
        return ms.Tensor(np.asarray(arr, dtype=np.float32), dtype=ms.bfloat16)
    if arr.dtype != target._np:
        arr = arr.astype(target._np)
    # a copy MindSpore owns: tensors over NumPy memory share it with some kernels' outputs (identity)
    return ms.Tensor(arr)


# --- torch's scalar conversion checks (c10::checked_convert) --------------------------------------

_CPP_NAMES = {D.uint8: "uint8_t", D.int8: "int8_t", D.int16: "int16_t", D.int32: "int", D.int64: "int64_t",
              D.float16: "c10::Half", D.bfloat16: "c10::BFloat16", D.float32: "float", D.float64: "double"}
_FLOAT_MAX = {D.float16: 65504.0, D.bfloat16: 3.3895313892515355e+38, D.float32: 3.4028234663852886e+38}


def _overflows(value, dtype):
    if dtype is D.bool_ or dtype._cat == D._COMPLEX:
        return False
    if isinstance(value, complex):
        if value.imag != 0:
            return True
        value = value.real
    if dtype._cat == D._INT:
        info = np.iinfo(dtype._np)
        if isinstance(value, float):
            return not (info.min <= value <= info.max)   # NaN fails too
        if info.min == 0:
            return value > info.max or -value > info.max   # torch lets -1 wrap to 255 for uint8
        return not (info.min <= value <= info.max)
    m = _FLOAT_MAX.get(dtype)
    return m is not None and math.isfinite(value) and abs(value) > m


def _check_fill(value, dtype):
    if _overflows(value, dtype):
        raise RuntimeError(f"value cannot be converted to type {_CPP_NAMES.get(dtype, dtype._name)} without overflow")


def _num(x):
    return x.item() if isinstance(x, Tensor) else x


# --- torch.tensor ---------------------------------------------------------------------------------

def _leaf_dtype(x):
    """torch's inferred dtype of one non-sequence item, or None for a Python scalar."""
    if isinstance(x, Tensor):
        return x.dtype
    if isinstance(x, (np.ndarray, np.generic)):
        return D.from_numpy_dtype(x.dtype)
    if isinstance(x, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(x).__name__}'")
    raise RuntimeError(f"Could not infer dtype of {type(x).__name__}")


def _scan(seq, state):
    """Walk a nested sequence: state = [max Python-scalar category, promoted dtype of other leaves]."""
    if len(seq) == 0:
        state[1] = D.get_default_dtype() if state[1] is None else D.promote_types(state[1], D.get_default_dtype())
        return False
    plain = True
    for x in seq:
        tp = type(x)
        if tp is float:
            if state[0] < D._FLOAT:
                state[0] = D._FLOAT
        elif tp is int:
            if state[0] < D._INT:
                state[0] = D._INT
        elif tp is bool:
            if state[0] < D._BOOL:
                state[0] = D._BOOL
        elif tp is complex:
            state[0] = D._COMPLEX
        elif tp is list or tp is tuple or isinstance(x, (list, tuple, range)):
            plain = _scan(x, state) and plain
        elif isinstance(x, _PY_SCALARS) and not isinstance(x, np.generic):
            state[0] = max(state[0], D._scalar_cat(x))
        elif isinstance(x, str):
            raise ValueError(f"too many dimensions '{type(x).__name__}'")   # torch reads it as a sequence
        else:
            d = _leaf_dtype(x)
            state[1] = d if state[1] is None else D.promote_types(state[1], d)
            plain = False
    return plain


def _infer_sequence_dtype(data):
    state = [-1, None]
    plain = _scan(data, state)
    py = None if state[0] < 0 else D.dtype_of_category(state[0])
    if state[1] is None:
        return py or D.get_default_dtype(), plain
    return (state[1] if py is None else D.promote_types(state[1], py)), plain


def _host_leaves(seq, integral):
    """Python values for a sequence holding tensors and NumPy scalars (torch reads each as a scalar)."""
    out = []
    for x in seq:
        if isinstance(x, Tensor):
            if x.numel() != 1:
                if integral:
                    raise TypeError("only integer tensors of a single element can be converted to an index")
                raise ValueError("only one element tensors can be converted to Python scalars")
            x = x.item()
        elif isinstance(x, np.generic):
            x = x.item()
        elif isinstance(x, (list, tuple, range)):
            x = _host_leaves(x, integral)
        out.append(x)
    return out


def _sequence_error(data):
    """torch's error for a ragged or malformed nested sequence."""
    def sizes(obj):
        shape = []
        while isinstance(obj, (list, tuple, range, np.ndarray)):
            shape.append(len(obj))
            if len(obj) == 0:
                break
            obj = obj[0]
        return shape

    shape = sizes(data)

    def walk(obj, dim):
        if dim == len(shape):
            if isinstance(obj, (list, tuple, range)):
                raise TypeError(f"'{type(obj).__name__}' object cannot be interpreted as an integer")
            return
        if not isinstance(obj, (list, tuple, range, np.ndarray)):
            raise TypeError("not a sequence")
        if len(obj) != shape[dim]:
            raise ValueError(f"expected sequence of length {shape[dim]} at dim {dim} (got {len(obj)})")
        for x in obj:
            walk(x, dim + 1)

    walk(data, 0)


def _sequence_to_np(data, dtype):
    inferred, plain = _infer_sequence_dtype(data)
    target = dtype or inferred
    values = data if plain else _host_leaves(data, target._cat <= D._INT)
    try:
        arr = np.array(values)
    except ValueError:
        _sequence_error(data)
        raise
    if arr.dtype == object:
        if any(isinstance(v, int) and not -2 ** 63 <= v < 2 ** 63 for v in _flat_ints(values)):
            raise ValueError("Overflow when unpacking long long")
        _sequence_error(data)
        raise ValueError("could not convert the nested sequence to a tensor")
    if arr.dtype.kind in "US":
        raise TypeError("new(): invalid data type 'str'")
    if arr.dtype == np.uint64 and target._np != np.uint64:
        raise ValueError("Overflow when unpacking long long")
    return _cast_checked(arr, target), target


def _flat_ints(seq):
    for x in seq:
        if isinstance(x, (list, tuple)):
            yield from _flat_ints(x)
        else:
            yield x


def _cast_checked(arr, target):
    """Cast host values to ``target`` as torch converts Python numbers: range-checked for integers."""
    kind = arr.dtype.kind
    if kind == "c" and target._cat != D._COMPLEX:
        raise TypeError("must be real number, not complex")
    if target._cat == D._INT and kind in "iuf" and arr.size:
        lo, hi = arr.min(), arr.max()
        if _overflows(float(lo) if kind == "f" else int(lo), target) or \
                _overflows(float(hi) if kind == "f" else int(hi), target) or (kind == "f" and np.isnan(arr).any()):
            raise RuntimeError(f"value cannot be converted to type {target._name} without overflow")
    if target is D.bfloat16:
        return arr.astype(np.float32)
    with np.errstate(over="ignore"):   # torch.tensor([1e300]) is inf, silently
        return arr.astype(target._np, copy=False)


def _data_to_ms(data, dtype):
    if isinstance(data, np.ndarray):
        src = D.from_numpy_dtype(data.dtype)
        target = dtype or src
        return _host_to_ms(np.array(data, dtype=np.float32 if target is D.bfloat16 else target._np,
                                     order="C"), target)
    if isinstance(data, np.generic):
        target = dtype or D.from_numpy_dtype(data.dtype)
        return _host_to_ms(np.array(data).astype(np.float32 if target is D.bfloat16 else target._np), target)
    if isinstance(data, _PY_SCALARS):
        target = dtype or D.scalar_dtype(data)
        return _host_to_ms(_cast_checked(np.array(data), target), target)
    if isinstance(data, (list, tuple, range)):
        arr, target = _sequence_to_np(data, dtype)
        return _host_to_ms(arr, target)
    _leaf_dtype(data)  # raises torch's error for str, None, dict...
    raise RuntimeError(f"Could not infer dtype of {type(data).__name__}")


@register("tensor", family=F, namespace="torch", raw=True)
def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    _check_dtype(dtype, "tensor")
    if isinstance(data, Tensor):
        t = P.detach(data._ms).copy()
        if dtype is not None and t.dtype != dtype._ms:
            t = cast(t, dtype._ms)
        return _finish(t, requires_grad, device)
    return _finish(_data_to_ms(data, dtype), requires_grad, device)


@register("as_tensor", family=F, namespace="torch", raw=True)
def as_tensor(data, dtype=None, device=None):
    _check_dtype(dtype, "as_tensor")
    if isinstance(data, Tensor):
        if device is not None:
            return data.to(device=device, dtype=dtype)
        if dtype is None or dtype is data.dtype:
            return data
        return data.to(dtype)
    if isinstance(data, np.ndarray) and (dtype is None or dtype._np == data.dtype):
        t = from_numpy(data)
        place = _device.default_placement() if device is None else _device.placement(device)
        return t if place is None else t.to(place)
    return _finish(_data_to_ms(data, dtype), False, device)


@register("asarray", family=F, namespace="torch", raw=True)
def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    _check_dtype(dtype, "asarray")
    from ..storage import storage_bytes
    raw = storage_bytes(obj)
    if raw is not None:   # a storage: its bytes read as ``dtype`` (uint8 by default), sharing memory as in torch
        d = D.uint8 if dtype is None else dtype
        if raw.size % d.itemsize:
            raise ValueError(f"the storage size {raw.size} is not a multiple of the element size {d.itemsize}")
        t = from_numpy(raw.view(d._np)) if d._np is not None else from_numpy(raw).view(d)
        if copy:
            t = t.clone()
        return t.requires_grad_(True) if requires_grad else t
    if copy:
        return tensor(obj, dtype=dtype, device=device, requires_grad=requires_grad)
    if copy is False:
        if isinstance(obj, Tensor) and dtype not in (None, obj.dtype):
            raise ValueError(f"can't alias tensor with dtype '{_name(obj.dtype)}' into dtype '{_name(dtype)}'.")
        if isinstance(obj, np.ndarray) and dtype is not None and dtype._np != obj.dtype:
            raise ValueError(f"can't alias tensor with dtype '{_name(D.from_numpy_dtype(obj.dtype))}' into "
                             f"dtype '{_name(dtype)}'.")
        if not isinstance(obj, (Tensor, np.ndarray)):
            raise ValueError("can't alias arbitrary sequence into a tensor.")
    t = as_tensor(obj, dtype=dtype, device=device)
    return t.requires_grad_(True) if requires_grad else t


def _name(d):
    from .._tensor import scalar_type_name
    return scalar_type_name(d)


@register("from_numpy", family=F, namespace="torch", raw=True,
          note="read-only arrays are copied; other layouts share memory on CPU")
def from_numpy(ndarray):
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    try:
        D.from_numpy_dtype(ndarray.dtype)
    except TypeError as exc:   # torch names the NumPy scalar type (numpy.str_), not the dtype (<U1)
        raise TypeError(str(exc).replace(f"type {ndarray.dtype}.", f"type numpy.{ndarray.dtype.type.__name__}.", 1)) \
            from None
    if any(s < 0 for s in ndarray.strides):
        raise ValueError(
            "At least one stride in the given numpy array is negative, and tensors with negative strides are "
            "not currently supported. (You can probably work around this by making a copy of your array  "
            "with array.copy().) ")
    if ndarray.flags.c_contiguous and ndarray.flags.writeable:
        return wrap(_from_numpy_ms(ndarray))
    shared = _strided_from_numpy(ndarray) if ndarray.flags.writeable else None
    return wrap(ms.Tensor(np.array(ndarray, order="C")) if shared is None else shared)


@register("frombuffer", family=F, namespace="torch", raw=True,
          note="a read-only buffer (bytes) and bfloat16 are copied, not shared")
def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor over a Python buffer's memory (writable buffers share it both ways, as torch's)."""
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    length = view.nbytes
    item = dtype.itemsize
    if length == 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if offset < 0 or offset > length - 1:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than buffer length ({length} "
                         "bytes) minus 1")
    if count < 0:
        if (length - offset) % item:
            raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be a "
                             f"multiple of element size ({item})")
        count = (length - offset) // item
    elif offset + count * item > length:
        raise ValueError(f"requested buffer length ({count} * {item} bytes) after offset ({offset} bytes) must not "
                         f"be greater than actual buffer length ({length} bytes)")
    raw = view.cast("B") if view.format != "B" or view.ndim != 1 else view
    if dtype is D.bfloat16:   # (a copy: MindSpore takes no bfloat16 host memory as its own)
        t = wrap(ms.Tensor(np.frombuffer(raw, NP_BF16, count, offset).copy()))
    else:
        t = from_numpy(np.frombuffer(raw, dtype._np, count, offset))
    return t.requires_grad_(True) if requires_grad else t


def _strided_from_numpy(arr):
    """A tensor over a strided array's own memory, as torch's (on the host only): a flat tensor over the
    span the array covers, viewed with the array's strides by MindSpore's AsStrided, a real view. None
    where that cannot be built (strides that are no multiple of the item size, no elements)."""
    item = arr.itemsize
    if not arr.size or any(s % item for s in arr.strides) or _runtime.device_target() != "CPU":
        return None
    span = sum((n - 1) * s for n, s in zip(arr.shape, arr.strides)) // item + 1
    flat = np.lib.stride_tricks.as_strided(arr, shape=(span,), strides=(item,))
    return _as_strided(_from_numpy_ms(flat), arr.shape, tuple(s // item for s in arr.strides), 0)


# --- filled tensors -------------------------------------------------------------------------------

_HOST_FILL_MAX = 1 << 16


def _filled(shape, fill, dt):
    # small tensors: a host array is ~10x cheaper than a kernel launch; large ones: the fill kernel
    # beats MindSpore's host-to-tensor copy
    if math.prod(shape) <= _HOST_FILL_MAX:
        if dt is D.bfloat16:
            return ms.Tensor(np.full(shape, fill, np.float32), dtype=ms.bfloat16)
        return ms.Tensor(np.full(shape, fill, dt._np))
    if dt is D.bfloat16:   # the bfloat16 bit pattern, repeated on the host (MindSpore has no bfloat16 fill)
        return ms.from_numpy(np.full(shape, bf16_bits(fill), np.uint16)).view(ms.bfloat16)
    if _runtime.device_target() == "CPU":   # a host array adopted without a copy: ~5x cheaper than Fill
        return ms.from_numpy(np.full(shape, fill, dt._np))
    return ops.fill(dt._ms, shape, fill)



def _sized(size, name):
    if not size:
        raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
    if len(size) > 1 and any(isinstance(s, (tuple, list)) for s in size):
        raise TypeError(f"{name}() takes 1 positional argument but {len(size)} were given")
    for s in (size[0] if len(size) == 1 and isinstance(size[0], (tuple, list)) else size):
        if isinstance(s, float):
            raise TypeError(f"{name}(): argument 'size' failed to unpack the object at pos 2 with error "
                            f"\"type must be tuple of ints,but got float\"")
    return size_args(size)


def _factory(shape, fill, dtype, requires_grad, device, name):
    _check_dtype(dtype, name)
    dt = dtype or D.get_default_dtype()
    return _finish(_filled(shape, fill, dt), requires_grad, device)


@register("zeros", family=F, namespace="torch", raw=True, out=True)
def zeros(*size_args, size=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    size = _size_kw(size_args, size, "zeros")
    shape = size[0] if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    if any(isinstance(s, int) and s < 0 for s in shape):
        raise RuntimeError("zeros: Dimension size must be non-negative.")
    return _factory(_sized(size, "zeros"), 0, dtype, requires_grad, device, "zeros")


@register("ones", family=F, namespace="torch", raw=True, out=True)
def ones(*size_args, size=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    size = _size_kw(size_args, size, "ones")
    return _factory(_sized(size, "ones"), 1, dtype, requires_grad, device, "ones")


@register("empty", family=F, namespace="torch", raw=True, out=True,
          note="memory is zero-filled (torch leaves it uninitialised)")
def empty(*size_args, size=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False,
          memory_format=None):
    size = _size_kw(size_args, size, "empty")
    return _factory(_sized(size, "empty"), 0, dtype, requires_grad, device, "empty")


@register("empty_strided", family=F, namespace="torch", raw=True,
          note="memory is zero-filled (torch leaves it uninitialised)")
def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """A tensor of ``size`` laid out with ``stride``: a view (MindSpore's AsStrided) over a zero-filled storage
    just large enough, so ``stride()`` and ``is_contiguous()`` answer as torch's do."""
    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError(f"dimensionality of sizes ({len(size)}) must match dimensionality of strides "
                           f"({len(stride)})")
    for n in size:
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {list(size)}")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and strides={list(stride)}")
    _check_dtype(dtype, "empty_strided")
    dt = dtype or D.get_default_dtype()
    span = 0 if 0 in size else 1 + sum((n - 1) * s for n, s in zip(size, stride))
    if span == math.prod(size) and stride == _contiguous_strides(size):
        return _finish(_filled(size, 0, dt), requires_grad, device)
    flat = _filled((max(span, 1),), 0, dt)
    return _finish(_as_strided(flat, size, stride, 0), requires_grad, device)


def _contiguous_strides(size):
    strides, acc = [], 1
    for n in reversed(size):
        strides.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(strides))


def _size_kw(args, size, name):
    """The size of a factory call: positional ints/one sequence (``zeros(2, 3)``), or the keyword
    (``zeros(size=(2, 3))``), as torch's signatures accept."""
    if size is None:
        return args
    if args:
        raise TypeError(f"{name}() received an invalid combination of arguments - got both positional sizes and "
                        "size=")
    return (size,)


def _full_size(size, name):
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"{name}(): argument 'size' (position 1) must be tuple of ints, not {type(size).__name__}")
    return size_args((size,))


@register("full", family=F, namespace="torch", raw=True, out="dtype")   # (full.out is out.fill_(value))
def full(size, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    shape = _full_size(size, "full")
    fill_value = _num(fill_value)
    _check_dtype(dtype, "full")
    dt = dtype or D.scalar_dtype(fill_value)
    _check_fill(fill_value, dt)
    return _factory(shape, fill_value, dt, requires_grad, device, "full")


def _like(input, dtype, name):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    _check_dtype(dtype, name)
    return tuple(input._ms.shape), dtype or input.dtype


def _like_device(input):
    """A ``*_like`` factory without ``device=`` makes its tensor where ``input`` is (meta stays meta)."""
    return "meta" if input._meta else input.device


@register("zeros_like", family=F, namespace="torch", raw=True)
def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    shape, dt = _like(input, dtype, "zeros_like")
    return _factory(shape, 0, dt, requires_grad, device if device is not None else _like_device(input), "zeros_like")


@register("ones_like", family=F, namespace="torch", raw=True)
def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    shape, dt = _like(input, dtype, "ones_like")
    return _factory(shape, 1, dt, requires_grad, device if device is not None else _like_device(input), "ones_like")


@register("empty_like", family=F, namespace="torch", raw=True,
          note="memory is zero-filled (torch leaves it uninitialised)")
def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    shape, dt = _like(input, dtype, "empty_like")
    return _factory(shape, 0, dt, requires_grad, device if device is not None else _like_device(input), "empty_like")


@register("full_like", family=F, namespace="torch", raw=True)
def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    shape, dt = _like(input, dtype, "full_like")
    fill_value = _num(fill_value)
    _check_fill(fill_value, dt)
    return _factory(shape, fill_value, dt, requires_grad, device if device is not None else _like_device(input),
                    "full_like")


@register("scalar_tensor", family=F, namespace="torch", raw=True)
def scalar_tensor(s, *, dtype=None, layout=None, device=None, requires_grad=False):
    s = _num(s)
    _check_dtype(dtype, "scalar_tensor")
    dt = dtype or D.get_default_dtype()
    _check_fill(s, dt)
    return _factory((), s, dt, requires_grad, device, "scalar_tensor")


@register("eye", family=F, namespace="torch", raw=True, out=True)
def eye(n, m=None, *, dtype=None, layout=None, device=None, requires_grad=False):
    for pos, (arg, v) in enumerate((("n", n), ("m", m)), 1):
        if v is not None and (not isinstance(v, int) or isinstance(v, bool)):
            if m is None:
                raise TypeError(f"eye(): argument '{arg}' (position {pos}) must be int, not {type(v).__name__}")
            raise invalid_args("eye", (n, m), signatures=(
                "int n, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device "
                "device = None, bool pin_memory = False, bool requires_grad = False",
                "int n, int m, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
                "torch.device device = None, bool pin_memory = False, bool requires_grad = False"))
        if v is not None and v < 0:
            raise RuntimeError(f"{arg} must be greater or equal to 0, got {v}")
    _check_dtype(dtype, "eye")
    dt = dtype or D.get_default_dtype()
    return _finish(_host_to_ms(np.eye(n, n if m is None else m, dtype=np.float32 if dt is D.bfloat16 else dt._np),
                                dt), requires_grad, device)


# --- legacy constructors: torch.Tensor(...), torch.FloatTensor(...) -------------------------------

def _arg_type(v):
    return "torch.dtype" if isinstance(v, D.dtype) else type(v).__name__


def legacy_construct(args, kwargs, dtype, typed=False):
    """torch.Tensor(*sizes) / torch.Tensor(data) / torch.Tensor(other); ``typed`` for FloatTensor & co."""
    if any(k != "device" for k in kwargs):
        raise TypeError(
            f"new() received an invalid combination of arguments - got "
            f"({', '.join([type(a).__name__ for a in args] + [f'{k}={_arg_type(v)}' for k, v in kwargs.items()])})")
    if kwargs.get("device") is not None and _device.placement(kwargs["device"]) is not None:
        raise NotImplementedError("mstorch: the legacy constructor torch.Tensor(..., device=) places on the CPU "
                                  "only; use torch.tensor(data, device=...) or torch.zeros(..., device=...)")
    if not args:
        return _filled((0,), 0, dtype)
    if len(args) == 1 and isinstance(args[0], Tensor):
        other = args[0]
        if typed and other.dtype is not dtype:
            raise TypeError(f"expected {_LEGACY_NAMES[dtype]} (got {_LEGACY_NAMES[other.dtype]})")
        return other._ms
    if all(isinstance(a, int) and not isinstance(a, bool) for a in args) or (
            len(args) == 1 and isinstance(args[0], Size)):
        return _filled(size_args(args), 0, dtype)
    if len(args) == 1:
        data = args[0]
        if isinstance(data, (str, bytes)):
            raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
        if not isinstance(data, (list, tuple, range, np.ndarray)):
            raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
        return _data_to_ms(data, dtype)
    raise TypeError(
        f"new() received an invalid combination of arguments - got ({', '.join(type(a).__name__ for a in args)})")


class _LegacyTensorType(type):
    """The metaclass of torch.FloatTensor & co: calling one builds a Tensor of its dtype, and
    ``isinstance(t, torch.FloatTensor)`` tests the tensor's dtype, as in torch."""

    def __call__(cls, *args, **kwargs):
        return wrap(legacy_construct(args, kwargs, cls.dtype, typed=True))

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype

    def __repr__(cls):
        return f"<class 'torch.{cls.__name__}'>"

    def __getattr__(cls, name):
        return getattr(Tensor, name)


def _legacy_class(name, dt):
    return _LegacyTensorType(name, (), {"dtype": dt, "_legacy_dtype": dt, "is_cuda": False, "is_sparse": False,
                                        "__module__": "mstorch", "__qualname__": name})


_LEGACY_NAMES = {D.float32: "torch.FloatTensor", D.float64: "torch.DoubleTensor", D.float16: "torch.HalfTensor",
                 D.bfloat16: "torch.BFloat16Tensor", D.int64: "torch.LongTensor", D.int32: "torch.IntTensor",
                 D.int16: "torch.ShortTensor", D.int8: "torch.CharTensor", D.uint8: "torch.ByteTensor",
                 D.bool_: "torch.BoolTensor", D.complex64: "torch.ComplexFloatTensor",
                 D.complex128: "torch.ComplexDoubleTensor"}

FloatTensor = _legacy_class("FloatTensor", D.float32)
DoubleTensor = _legacy_class("DoubleTensor", D.float64)
HalfTensor = _legacy_class("HalfTensor", D.float16)
BFloat16Tensor = _legacy_class("BFloat16Tensor", D.bfloat16)
LongTensor = _legacy_class("LongTensor", D.int64)
IntTensor = _legacy_class("IntTensor", D.int32)
ShortTensor = _legacy_class("ShortTensor", D.int16)
CharTensor = _legacy_class("CharTensor", D.int8)
ByteTensor = _legacy_class("ByteTensor", D.uint8)
BoolTensor = _legacy_class("BoolTensor", D.bool_)
def set_default_tensor_type(t):
    """Mirrors torch.set_default_tensor_type (deprecated by torch): a floating legacy type (class or name,
    ``"torch.DoubleTensor"``) sets the default dtype; a ``torch.cuda`` one also the default device."""
    warn_once("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use torch.set_default_dtype() "
              "and torch.set_default_device() as alternatives.")
    if isinstance(t, str):
        parts = t.split(".")
        if parts[0] != "torch":
            raise ModuleNotFoundError(f"No module named '{parts[0]}'")
        cuda, name = parts[1:2] == ["cuda"], parts[-1]
    elif isinstance(t, type) and t.__module__ in ("torch.cuda", "mstorch") and t.__name__ in _LEGACY_BY_NAME:
        cuda, name = t.__module__ == "torch.cuda", t.__name__
    else:
        raise TypeError("invalid type object: only floating-point types are supported as the default type")
    if name not in _LEGACY_BY_NAME:
        raise AttributeError(f"module '{t.rpartition('.')[0]}' has no attribute '{name}'")
    dtype = _LEGACY_BY_NAME[name].dtype
    if cuda and _device.accel["kind"] != "cuda":
        raise TypeError(f"type torch.cuda.{name} not available. Torch not compiled with CUDA enabled.")
    if dtype._cat != D._FLOAT:
        raise TypeError("only floating-point types are supported as the default type")
    D.set_default_dtype(dtype)
    if cuda:
        _device.set_default_device("cuda")


LEGACY_CLASSES = (FloatTensor, DoubleTensor, HalfTensor, BFloat16Tensor, LongTensor, IntTensor, ShortTensor,
                  CharTensor, ByteTensor, BoolTensor)
_LEGACY_BY_NAME = {c.__name__: c for c in LEGACY_CLASSES}


# --- Tensor members owned here (installed on Tensor by mstorch/_install.py) ---------------------------------


def _tensor_new(cls, *args, **kwargs):
    # torch.Tensor(data) / torch.Tensor(*sizes): the legacy constructor
    w = object.__new__(cls)
    w._ms = legacy_construct(args, kwargs, D.get_default_dtype())
    return w


def _tensor_new_method(self, *args, **kwargs):
    """Tensor.new: the legacy constructor with this tensor's dtype (sizes, data, or another tensor of the
    same dtype, whose memory it shares)."""
    return wrap(legacy_construct(args, kwargs, self.dtype, typed=True))


def _array_wrap(self, array, context=None, return_scalar=False):
    # np.sin(tensor) -> Tensor; torch has no NumPy bool interop here and returns uint8
    if array.dtype == bool:
        array = array.astype("uint8")
    return from_numpy(np.ascontiguousarray(array) if array.ndim else array.reshape(()))


def _new_tensor(self, data, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    return tensor(data, dtype=dtype or self.dtype, device=self.device if device is None else device,
                  requires_grad=requires_grad)


def _new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
    return zeros(*size, dtype=dtype or self.dtype, device=self.device if device is None else device,
                  requires_grad=requires_grad)


def _new_ones(self, *size, dtype=None, device=None, requires_grad=False):
    return ones(*size, dtype=dtype or self.dtype, device=self.device if device is None else device,
                  requires_grad=requires_grad)


def _new_empty(self, *size, dtype=None, device=None, requires_grad=False):
    return empty(*size, dtype=dtype or self.dtype, device=self.device if device is None else device,
                  requires_grad=requires_grad)


def _new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False, layout=None,
                       pin_memory=False):
    return empty_strided(size, stride, dtype=dtype or self.dtype, device=self.device if device is None else device,
                         requires_grad=requires_grad)


def _new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False, layout=None,
              pin_memory=False):
    return full(size, fill_value, dtype=dtype or self.dtype, device=self.device if device is None else device,
                  requires_grad=requires_grad)


TENSOR_MEMBERS = {"__new__": staticmethod(_tensor_new), "__array_wrap__": _array_wrap,
                  "new_tensor": _new_tensor, "new_zeros": _new_zeros, "new_ones": _new_ones,
                  "new_empty": _new_empty, "new_full": _new_full, "new": _tensor_new_method,
                  "new_empty_strided": _new_empty_strided}
