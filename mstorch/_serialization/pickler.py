"""Pickling side of torch.save, and the unrestricted (weights_only=False) unpickler.

The pickle a checkpoint holds must name torch's globals (``torch._utils._rebuild_tensor_v2``,
``torch.FloatStorage``, ``torch.nn.modules.linear.Linear``...), which cannot be imported here. The C
pickler insists on importing each global it writes, so mstorch pickles with the Python one and writes
those names itself; data.pkl is small (storages go in records of their own), so the speed is moot.
"""
import copyreg
import pickle
import types

from .. import _dtype as D
from .. import _layout
from ..nn.modules.module import Module
from .._device import device as _device_cls
from . import names
from . import rebuild as R


class Saver:
    """The storages a save writes: tensors that share a MindSpore storage (views) share one entry."""

    def __init__(self, legacy=False):
        self.legacy = legacy
        self.storages = []
        self._by_key = {}

    def storage_for(self, t):
        """(storage, offset, size, stride) for the mstorch tensor ``t``."""
        ms_t = t._ms
        dtype = t.dtype
        untyped = ms_t.untyped_storage()
        ptr, nbytes = untyped.data_ptr(), untyped.nbytes()
        # empty storages (and any without an address) are each their own, as in torch
        key = ptr if ptr and nbytes else ("own", id(ms_t))
        entry = self._by_key.get(key)
        if entry is None:
            entry = R._Storage(dtype, nbytes, str(t.device))
            entry._location = R.location_tag(entry)   # (a registered package may tag it otherwise)
            entry._key = str(ptr or id(ms_t)) if self.legacy else str(len(self.storages))
            self._by_key[key] = entry
            self.storages.append(entry)
        elif entry.dtype is not dtype:
            raise RuntimeError("Cannot save multiple tensors or storages that view the same data as different types")
        size = tuple(ms_t.shape)
        stride = R.contiguous_strides(size) if ms_t.is_contiguous() else tuple(int(s) for s in ms_t.stride())
        offset = int(ms_t.storage_offset())
        entry.add_member(ms_t, offset, size, stride)
        return entry, offset, size, stride

    def persistent_id(self, st):
        stype = R.storage_type_for(st.dtype)
        numel = st.nbytes() if stype is R.UNTYPED else st.nbytes() // st.dtype.itemsize
        if st._key is None:  # a storage object the user pickled directly
            st._key = str(id(st)) if self.legacy else str(len(self.storages))
            self.storages.append(st)
        if self.legacy:
            return ("storage", stype, st._key, st._location, numel, None)
        return ("storage", stype, st._key, st._location, numel)



def special_reduce(obj):
    """torch's pickled form of mstorch objects whose own reduce names mstorch internals, or
    NotImplemented."""
    t = type(obj)
    if t is D.dtype or t is R.StorageType:
        return obj._name  # a global: torch.float32, torch.FloatStorage
    if t is _device_cls:
        return (_device_cls, (obj.type,) if obj.index is None else (obj.type, obj.index))
    if t is types.FunctionType:
        method = names.tensor_method_name(obj)
        # torch's form of a tensor method: getattr(torch._C.TensorBase, 'relu'); torch.Tensor serves too
        return NotImplemented if method is None else (getattr, (names.Tensor, method))
    if t is _layout.layout:
        return (R._get_layout, (repr(obj),))
    if isinstance(obj, Module) and t.__reduce_ex__ is Module.__reduce_ex__:
        # torch's form: NEWOBJ of the class, then BUILD with the state (Module.__setstate__)
        return (copyreg.__newobj__, (t,), obj.__getstate__())
    return NotImplemented


class TorchPickler(pickle._Pickler):
    """pickle's Python pickler, writing torch's names for mstorch globals."""

    # pickle's own table sends functions to its save_global, and importing dill (MindSpore does)
    # fills that table with dill's savers: use the stock savers only, and ours for globals
    _P = pickle._Pickler
    dispatch = {type(None): _P.save_none, bool: _P.save_bool, int: _P.save_long, float: _P.save_float,
                bytes: _P.save_bytes, bytearray: _P.save_bytearray, pickle.PickleBuffer: _P.save_picklebuffer,
                str: _P.save_str, tuple: _P.save_tuple, list: _P.save_list, dict: _P.save_dict, set: _P.save_set,
                frozenset: _P.save_frozenset, type: _P.save_type,
                types.FunctionType: lambda self, obj: self.save_global(obj)}

    def __init__(self, file, protocol, saver):
        super().__init__(file, protocol)
        self._saver = saver

    def persistent_id(self, obj):
        if type(obj) is R._Storage:
            return self._saver.persistent_id(obj)
        return None

    def reducer_override(self, obj):
        return special_reduce(obj)

    def save_global(self, obj, name=None):
        path = names.torch_path(obj, name)
        if path is None:
            return super().save_global(obj, name)
        module, qualname = path
        if self.proto >= 4:
            self.save(module)
            self.save(qualname)
            self.write(pickle.STACK_GLOBAL)
        else:
            self.write(pickle.GLOBAL + f"{module}\n{qualname}\n".encode("utf-8"))
        self.memoize(obj)


def make_pickler(pickle_module, file, protocol, saver):
    if pickle_module is pickle:
        return TorchPickler(file, protocol, saver)

    # another pickle module (dill...): its own global names, torch's storage records
    class _Pickler(pickle_module.Pickler):
        def persistent_id(self, obj):
            return saver.persistent_id(obj) if type(obj) is R._Storage else None

        def reducer_override(self, obj):
            t = type(obj)
            if t is R.StorageType:
                return (R.storage_type_named, (obj._name,))
            return NotImplemented if t is D.dtype else special_reduce(obj)

    return _Pickler(file, protocol=protocol)


def full_unpickler(pickle_module):
    """An Unpickler of ``pickle_module`` that resolves torch's globals to mstorch's."""

    class TorchUnpickler(pickle_module.Unpickler):
        def find_class(self, module, name):
            if type(module) is str and type(name) is str:
                obj = names.resolve(module, name)
                if obj is not None:
                    return obj
            return super().find_class(module, name)

    return TorchUnpickler
