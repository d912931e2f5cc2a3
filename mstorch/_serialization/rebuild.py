"""Storages, device locations and the rebuild functions that checkpoints name.

A torch checkpoint stores each storage once, as raw bytes, and rebuilds every tensor from
``(storage, offset, size, stride)`` through ``torch._utils._rebuild_tensor_v2`` and friends. mstorch
tensors are MindSpore tensors, so a rebuilt tensor gets memory of its own (a copy of the storage
region it covers; with ``mmap=True`` a contiguous tensor stays in the file mapping instead).
On saving, tensors that share one MindSpore storage (views) are grouped into one ``_Storage`` whose
bytes are gathered from them when the file is written.
"""
import math
import threading
from collections import OrderedDict

import numpy as np
import mindspore as ms

from .._runtime import read_host
from .. import _dtype as D
from .. import _layout
from .. import _device
from .._tensor import Tensor, wrap
from ..ops.creation import place_new


class StorageType:
    """Mirrors torch.serialization.StorageType: a storage class named in a checkpoint
    (``torch.FloatStorage``...), of which loading only needs the dtype."""

    __slots__ = ("_name", "_dtype")

    def __init__(self, name, dtype):
        self._name = name
        self._dtype = dtype

    @property
    def dtype(self):
        return self._dtype

    def __str__(self):
        return f"StorageType(dtype={self._dtype})"

    __repr__ = __str__


# typed storages exist for the dtypes of torch 2.0; the later ones (uint16/32/64) have none
_TYPED_NAMES = {d: n for d, n in D.SCALAR_TYPE_NAMES.items() if d not in (D.uint16, D.uint32, D.uint64)}
STORAGE_TYPES = {f"{n}Storage": StorageType(f"{n}Storage", d) for d, n in _TYPED_NAMES.items()}
_STORAGE_OF_DTYPE = {st.dtype: st for st in STORAGE_TYPES.values()}
# torch writes the dtypes it added after 2.0 (uint16/32/64 here) over an UntypedStorage, with
# _rebuild_tensor_v3 carrying the dtype
UNTYPED = StorageType("UntypedStorage", D.uint8)
# quantized storages exist in torch only
_UNSUPPORTED_STORAGES = ("QUInt8Storage", "QInt8Storage", "QInt32Storage", "QUInt4x2Storage", "QUInt2x4Storage")


def storage_type_for(dtype):
    return _STORAGE_OF_DTYPE.get(dtype, UNTYPED)


def storage_type_named(name):
    """The StorageType for a class name read from a checkpoint, or None when it names none."""
    if name in STORAGE_TYPES:
        return STORAGE_TYPES[name]
    if name in ("UntypedStorage", "TypedStorage"):
        return UNTYPED
    if name in _UNSUPPORTED_STORAGES:
        raise RuntimeError(f"mstorch.load: the checkpoint holds quantized tensors (torch.{name}); "
                           "mstorch has no quantized tensors")
    return None


# how storage bytes are read as NumPy arrays (NumPy has no bfloat16: its bits travel as int16)
_NP = {d: (np.int16 if d is D.bfloat16 else d._np) for d in D.ALL}


class _Storage:
    """One storage of a checkpoint (what torch's map_location callables receive).

    Loading: ``_data`` holds its bytes (a flat uint8 array, in a file mapping for ``mmap=True``).
    Saving: ``_members`` lists the (mindspore tensor, offset, size, stride) views of one MindSpore
    storage; the bytes are gathered from them when the file is written."""

    __slots__ = ("dtype", "_nbytes", "_location", "_data", "_mapped", "_members", "_key")

    def __init__(self, dtype, nbytes, location="cpu", data=None, mapped=False):
        self.dtype = dtype
        self._nbytes = nbytes
        self._location = location
        self._data = data
        self._mapped = mapped
        self._members = []
        self._key = None

    # --- the part of torch's UntypedStorage API that map_location callables use ---------------

    def nbytes(self):
        return self._nbytes

    def size(self):
        return self._nbytes

    __len__ = size

    @property
    def device(self):
        return _device.device(self._location)

    def cpu(self):
        return self

    def cuda(self, device=None, non_blocking=False):
        if device is None:
            device = _device.device("cuda")
        elif isinstance(device, int):
            device = _device.device("cuda", device)
        _device.check_available(device)
        return self

    def to(self, *, device=None, non_blocking=False):
        _device.check_available(device)
        return self

    def __repr__(self):
        return f"mstorch storage ({self._nbytes} bytes of {self.dtype}, {self._location})"

    def __reduce__(self):
        # plain pickle (copy.copy, multiprocessing): the bytes travel inline
        return (_storage_from_bytes, (self.array().tobytes(), self.dtype._name))

    # --- bytes -------------------------------------------------------------------------------

    def array(self):
        """The storage bytes as a flat uint8 array."""
        if self._data is None:
            self._data = self._gather()
        return self._data

    def add_member(self, ms_t, offset, size, stride):
        self._members.append((ms_t, offset, size, stride))

    def _gather(self):
        dt = self.dtype
        n = self._nbytes // dt.itemsize
        for ms_t, offset, size, stride in self._members:
            if offset == 0 and math.prod(size) == n and stride == contiguous_strides(size):
                return host_array(ms_t, dt).reshape(-1).view(np.uint8)
        # views that do not cover the storage: place each where it lives (the rest stays zero)
        buf = np.zeros(n, _NP[dt])
        item = buf.itemsize
        for ms_t, offset, size, stride in self._members:
            if math.prod(size):
                dst = np.lib.stride_tricks.as_strided(buf[offset:], size, tuple(s * item for s in stride))
                dst[...] = host_array(ms_t, dt).reshape(size)
        return buf.view(np.uint8)


def _storage_from_bytes(data, dtype_name):
    arr = np.frombuffer(data, np.uint8).copy()
    return _Storage(D._BY_NAME[dtype_name], arr.nbytes, data=arr)


def host_array(ms_t, dtype):
    """A host copy of a mindspore tensor's values, in the storage element type of ``dtype``."""
    if dtype is D.bfloat16:
        if not ms_t.is_contiguous():
            ms_t = ms_t.contiguous()
        return read_host(ms_t.view(ms.int16))
    return read_host(ms_t)


def contiguous_strides(size):
    """torch's strides for a contiguous tensor (size-0 and size-1 dims count as 1)."""
    strides = []
    acc = 1
    for n in reversed(size):
        strides.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(strides))


def compact_storage(t):
    """(storage, offset, size, stride) of a tensor pickled on its own (plain pickle, copy.copy):
    its values only, contiguous."""
    ms_t = t._ms
    dtype = t.dtype
    size = tuple(ms_t.shape)
    data = host_array(ms_t, dtype).reshape(-1).view(np.uint8)
    return _Storage(dtype, data.nbytes, str(t.device), data=data), 0, size, contiguous_strides(size)


# --- locations (map_location) ---------------------------------------------------------------------

_ACCELERATORS = ("cuda", "npu", "xpu", "hpu", "mtia")


def _builtin_tag(storage):
    return str(storage.device)


def validate_device(location, kind):
    """The device ``location`` names, checked as torch's ``_validate_device`` checks an accelerator's: this
    process must have that accelerator, and the index must be below its device count."""
    dev = _device.device(location)
    index = dev.index or 0
    name = kind.upper()
    if _device.current_device().type != kind:
        raise RuntimeError(
            f"Attempting to deserialize object on a {name} device but torch.{kind}.is_available() is "
            "False. If you are running on a CPU-only machine, please use torch.load with "
            "map_location=torch.device('cpu') to map your storages to the CPU.")
    count = _device.accel["count"]
    if index >= count:
        raise RuntimeError(
            f"Attempting to deserialize object on {name} device {index} but "
            f"torch.{kind}.device_count() is {count}. Please use torch.load with map_location to map "
            "your storages to an existing device.")
    return _device.device(kind, index)


def _builtin_restore(storage, location):
    """Check that this process can hold a storage tagged ``location`` (torch raises where the
    device is missing), and return it; MindSpore keeps every tensor on its one device target.
    None for a location of no device mstorch knows (a registered package may know it)."""
    kind = location.partition(":")[0]
    if kind == "meta":
        raise RuntimeError("mstorch.load: map_location='meta' is not supported: MindSpore has no "
                           "tensors without data")
    if kind != "cpu":
        if kind not in _ACCELERATORS:
            return None
        validate_device(location, kind)
    storage._location = location
    return storage


# torch.serialization's registry of (priority, tagger, deserializer), lowest priority first: a tagger gives
# a storage's location string at save time, a deserializer restores a storage at a location at load time
PACKAGE_REGISTRY = [(10, _builtin_tag, _builtin_restore)]


def register_package(priority, tagger, deserializer):
    PACKAGE_REGISTRY.append((priority, tagger, deserializer))
    PACKAGE_REGISTRY.sort(key=lambda entry: entry[0])


def location_tag(storage):
    for _, tagger, _ in PACKAGE_REGISTRY:
        location = tagger(storage)
        if location:
            return location
    raise RuntimeError("don't know how to determine data location of " + _storage_typename(storage))


def default_restore_location(storage, location):
    """torch.serialization.default_restore_location: the first registered deserializer that restores
    ``storage`` at ``location``."""
    for _, _, restore in PACKAGE_REGISTRY:
        result = restore(storage, location)
        if result is not None:
            return result
    raise RuntimeError(f"don't know how to restore data location of {_storage_typename(storage)} "
                       f"(tagged with {location})")


def _storage_typename(storage):
    # what torch.typename names a storage: checkpoints' storages are torch's UntypedStorage
    if isinstance(storage, _Storage):
        return "torch.storage.UntypedStorage"
    cls = type(storage)
    module = cls.__module__.replace("mstorch", "torch", 1)
    return cls.__qualname__ if module == "builtins" else f"{module}.{cls.__qualname__}"


def restore_function(map_location):
    """torch.serialization._get_restore_location: map_location as a (storage, location) function."""
    if map_location is None:
        return default_restore_location
    if isinstance(map_location, dict):
        return lambda s, loc: default_restore_location(s, map_location.get(loc, loc))
    if isinstance(map_location, bytes):
        map_location = map_location.decode("ascii")
    if isinstance(map_location, (str, _device.device)):
        target = str(map_location)
        return lambda s, loc: default_restore_location(s, target)

    def restore(storage, location):
        result = map_location(storage, location)
        return default_restore_location(storage, location) if result is None else result
    return restore


class _LoadState(threading.local):
    restore = staticmethod(default_restore_location)


LOAD_STATE = _LoadState()  # the running load's map_location (per thread), for the device-tensor rebuilds


# --- rebuild functions (the globals a checkpoint names as torch._utils.*) ------------------------

def _from_storage(storage, offset, size, stride, dtype):
    """A tensor of ``size``/``stride`` at element ``offset`` of ``storage``, read as ``dtype``."""
    size = tuple(int(n) for n in size)
    stride = tuple(int(s) for s in stride)
    npdt = _NP[dtype]
    numel = math.prod(size)
    if numel == 0:
        arr = np.empty(size, npdt)
        contiguous = True
    else:
        raw = storage.array()
        item = dtype.itemsize
        avail = raw.nbytes // item
        need = offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
        if offset < 0 or min(stride, default=0) < 0 or need > avail:
            raise RuntimeError(
                f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and itemsize "
                f"{item} requiring a storage size of {need * item} are out of bounds for storage of size "
                f"{raw.nbytes}")
        typed = raw[:avail * item].view(npdt)
        contiguous = stride == contiguous_strides(size)
        if contiguous:
            arr = typed[offset:offset + numel].reshape(size)
        else:
            arr = np.lib.stride_tricks.as_strided(typed[offset:], size, tuple(s * item for s in stride),
                                                  writeable=False)
    if storage._mapped and contiguous and arr.ndim and arr.flags.writeable:
        t = ms.from_numpy(arr)  # stays in the (copy-on-write) file mapping
    else:
        t = ms.Tensor(arr if arr.flags.c_contiguous else np.ascontiguousarray(arr))  # MindSpore copies it
    if dtype is D.bfloat16:
        t = t.view(ms.bfloat16)
    w = wrap(t)
    place = _device.placement(storage._location) if storage._location != "cpu" else None
    return w if place is None else place_new(w, place)   # where the (mapped) location says


def _finish(t, requires_grad, metadata=None):
    if metadata:
        # torch's lazy conj / neg bits: the storage holds the values before them
        if metadata.get("conj"):
            t = wrap(ms.ops.conj(t._ms))
        if metadata.get("neg"):
            t = wrap(ms.ops.neg(t._ms))
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_tensor(storage, storage_offset, size, stride):
    return _from_storage(storage, storage_offset, size, stride, storage.dtype)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None):
    # backward hooks are never serialized (torch passes an empty OrderedDict)
    t = _from_storage(storage, storage_offset, size, stride, storage.dtype)
    return _finish(t, requires_grad, metadata)


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype,
                       metadata=None):
    t = _from_storage(storage, storage_offset, size, stride, dtype)
    return _finish(t, requires_grad, metadata)


def _rebuild_parameter(data, requires_grad, backward_hooks):
    from ..nn.parameter import Parameter
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    return set_obj_state(_rebuild_parameter(data, requires_grad, backward_hooks), state)


def _rebuild_from_type_v2(func, new_type, args, state):
    """A tensor subclass (or a tensor with Python attributes): rebuild, retype, restore attributes."""
    ret = func(*args)
    if type(ret) is not new_type:
        ret = _as_subclass(ret, new_type)
    setstate = getattr(type(ret), "__setstate__", None)
    if setstate is not None:
        ret.__setstate__(state)
    else:
        ret = set_obj_state(ret, state)
    return ret


def _as_subclass(t, cls):
    from ..nn.parameter import Parameter
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError(f"mstorch.load: cannot rebuild a tensor as {cls!r}, which is no Tensor subclass")
    if issubclass(cls, Parameter):
        return cls(t, t.requires_grad)
    new = object.__new__(cls)
    new._ms = t._ms
    return new


def set_obj_state(obj, state):
    """torch._utils._set_obj_state: a __dict__ state, or (dict state, slots state)."""
    if isinstance(state, tuple):
        if len(state) != 2:
            raise RuntimeError(f"Invalid serialized state: {state}")
        dict_state, slots_state = state
    else:
        dict_state, slots_state = state, None
    for part in (dict_state, slots_state):
        if part:
            for k, v in part.items():
                setattr(obj, k, v)
    return obj


def _get_layout(name):
    """torch.serialization._get_layout: a layout object from its repr ('torch.strided')."""
    layout = getattr(_layout, name.rpartition(".")[2], None)
    if not isinstance(layout, _layout.layout):
        raise RuntimeError(f"mstorch.load: layout {name} is not supported")
    return layout


def _restored_device(device):
    """The device a tensor saved on ``device`` loads to (after map_location)."""
    st = LOAD_STATE.restore(_Storage(D.uint8, 0), str(device))
    return (st if isinstance(st, _Storage) else _Storage(D.uint8, 0))._location


def _rebuild_device_tensor_from_numpy(data, dtype, device, requires_grad):
    from ..ops.creation import from_numpy
    return _finish(from_numpy(data).to(_restored_device(device), dtype), requires_grad)


def _rebuild_device_tensor_from_cpu_tensor(data, dtype, device, requires_grad):
    return _finish(data.to(_restored_device(device), dtype), requires_grad)


def _unsupported(what):
    def rebuild(*args, **kwargs):
        raise RuntimeError(f"mstorch.load: the checkpoint holds {what}, which mstorch does not support")
    return rebuild


_rebuild_qtensor = _unsupported("quantized tensors")
_rebuild_sparse_tensor = _unsupported("sparse tensors")
_rebuild_nested_tensor = _unsupported("nested tensors")
_rebuild_wrapper_subclass = _unsupported("a wrapper tensor subclass")
_rebuild_meta_tensor_no_storage = _unsupported("meta tensors (tensors without data)")
for _fn, _name in ((_rebuild_qtensor, "_rebuild_qtensor"), (_rebuild_sparse_tensor, "_rebuild_sparse_tensor"),
                   (_rebuild_nested_tensor, "_rebuild_nested_tensor"),
                   (_rebuild_wrapper_subclass, "_rebuild_wrapper_subclass"),
                   (_rebuild_meta_tensor_no_storage, "_rebuild_meta_tensor_no_storage")):
    _fn.__name__ = _fn.__qualname__ = _name

# name in torch._utils -> function, for both pickling directions
UTILS_FUNCTIONS = {f.__name__: f for f in (
    _rebuild_tensor, _rebuild_tensor_v2, _rebuild_tensor_v3, _rebuild_parameter, _rebuild_parameter_with_state,
    _rebuild_qtensor, _rebuild_sparse_tensor, _rebuild_nested_tensor, _rebuild_wrapper_subclass,
    _rebuild_meta_tensor_no_storage, _rebuild_device_tensor_from_numpy, _rebuild_device_tensor_from_cpu_tensor)}


def empty_hooks():
    return OrderedDict()
