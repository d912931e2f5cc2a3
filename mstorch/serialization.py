"""torch.save / torch.load, file-compatible with PyTorch in both directions, without torch.

``save`` writes torch's zip checkpoint (``data.pkl`` naming torch's globals, one raw little-endian
record per storage, 64-byte aligned) or, with ``_use_new_zipfile_serialization=False``, torch's
legacy stream. ``load`` reads both, by default through the restricted weights_only unpickler
(``_serialization/weights_only.py``); torch's class paths resolve to mstorch's classes.
Internals live in ``mstorch/_serialization/``.
"""
import contextlib
import enum
import importlib
import io
import os
import pickle
import shutil
import struct
import sys
import tarfile
import tempfile
import threading
import warnings

from ._tensor import Tensor
from ._serialization import pickler as _pickler
from ._serialization import rebuild as _rebuild
from ._serialization import weights_only as _weights_only
from ._serialization import zipformat as _zip
from ._serialization.rebuild import (StorageType, default_restore_location, location_tag,  # noqa: F401
                                     register_package)

__all__ = ["save", "load", "StorageType", "add_safe_globals", "safe_globals", "get_safe_globals",
           "clear_safe_globals", "get_unsafe_globals_in_checkpoint", "default_restore_location",
           "SourceChangeWarning", "get_default_mmap_options", "set_default_mmap_options", "LoadEndianness",
           "get_default_load_endianness", "set_default_load_endianness", "get_crc32_options", "set_crc32_options",
           "skip_data"]


@contextlib.contextmanager
def mkdtemp():
    """torch.serialization.mkdtemp: a temporary directory, removed with its contents on leaving."""
    path = tempfile.mkdtemp()
    try:
        yield path
    finally:
        shutil.rmtree(path)


def check_module_version_greater_or_equal(module, req_version_tuple, error_if_malformed=True):
    """Whether ``module.__version__`` is at least ``req_version_tuple``, each field parsed as the tuple's own
    field type; a version that does not parse raises, or with ``error_if_malformed=False`` warns and passes."""
    try:
        fields = module.__version__.split(".")
        version = tuple(type(want)(fields[i]) for i, want in enumerate(req_version_tuple))
        return version >= req_version_tuple
    except Exception as e:
        message = (f"'{module.__name__}' module version string is malformed '{module.__version__}' and cannot be "
                   f"compared with tuple {str(req_version_tuple)}")
        if error_if_malformed:
            raise RuntimeError(message) from e
        warnings.warn(message + ", but continuing assuming that requirement is met", stacklevel=2)
        return True

DEFAULT_PROTOCOL = 2
MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
PROTOCOL_VERSION = 1001
UNSAFE_MESSAGE = _weights_only.UNSAFE_MESSAGE


class _MmapConfig:
    flags = None   # mmap.MAP_PRIVATE once first read (Windows has no MAP_PRIVATE)


def get_default_mmap_options():
    """torch.serialization.get_default_mmap_options: the mapping ``load(mmap=True)`` makes (MAP_PRIVATE at first)."""
    import mmap as _mmap
    if _MmapConfig.flags is None:
        _MmapConfig.flags = getattr(_mmap, "MAP_PRIVATE", None)
    return _MmapConfig.flags


class set_default_mmap_options:
    """torch.serialization.set_default_mmap_options: MAP_PRIVATE (copy-on-write: writes to loaded tensors stay in
    memory) or MAP_SHARED (writes reach the file); takes effect when called, restored on leaving a ``with``."""

    def __init__(self, flags):
        import mmap as _mmap
        if sys.platform == "win32":
            raise RuntimeError("Changing the default mmap options is currently not supported for Windows")
        if flags != _mmap.MAP_PRIVATE and flags != _mmap.MAP_SHARED:
            raise ValueError("Invalid argument in function set_default_mmap_options, expected mmap.MAP_PRIVATE or "
                             f"mmap.MAP_SHARED, but got {flags}")
        self.prev = get_default_mmap_options()
        _MmapConfig.flags = flags

    def __enter__(self):
        pass

    def __exit__(self, exc_type, exc_value, traceback):
        _MmapConfig.flags = self.prev


class SourceChangeWarning(Warning):
    pass


class LoadEndianness(enum.Enum):
    NATIVE = 1
    LITTLE = 2
    BIG = 3


class _Config:
    """torch.utils.serialization.config's two settings that mstorch honours."""
    load_endianness = None   # (None: little, as torch's default)
    compute_crc32 = True


def get_default_load_endianness():
    """torch.serialization.get_default_load_endianness: the byte order ``load`` assumes for a checkpoint
    without a byteorder record (None: little endian)."""
    return _Config.load_endianness


def set_default_load_endianness(endianness):
    if not isinstance(endianness, LoadEndianness) and endianness is not None:
        raise TypeError("Invalid argument type in function set_default_load_endianness")
    _Config.load_endianness = endianness


def get_crc32_options():
    """torch.serialization.get_crc32_options: whether ``save`` writes each record's CRC-32 (else 0)."""
    return _Config.compute_crc32


def set_crc32_options(compute_crc32):
    _Config.compute_crc32 = compute_crc32


class _Local(threading.local):
    saver = None  # the running save's storage table, for Tensor.__reduce_ex__
    skip_data = False   # inside skip_data(): save writes no storage bytes, load reads none


class skip_data:
    """torch.serialization.skip_data: inside it ``save`` writes each storage's record with its place left as
    zeros (and a CRC of 0), and ``load`` builds storages of zeros without reading theirs.
    ``materialize_fake_tensors`` is accepted for torch's signature; mstorch has no fake tensors."""

    def __init__(self, materialize_fake_tensors=False):
        self.materialize_fake_tensors = materialize_fake_tensors

    def __enter__(self):
        self._old_skip_data = _tls.skip_data
        _tls.skip_data = True

    def __exit__(self, type, value, tb):
        _tls.skip_data = self._old_skip_data


_tls = _Local()

_package_registry = _rebuild.PACKAGE_REGISTRY   # (torch's module global: (priority, tagger, deserializer) entries)
add_safe_globals = _weights_only.add_safe_globals
get_safe_globals = _weights_only.get_safe_globals
clear_safe_globals = _weights_only.clear_safe_globals


class safe_globals(_weights_only._safe_globals):
    """Mirrors torch.serialization.safe_globals: allowlist globals for weights_only loads in a block."""


# --- pickling tensors (Tensor.__reduce_ex__, Parameter.__reduce_ex__) ---------------------------------

def _python_state(t):
    # _view: mstorch's view bookkeeping; _dev: the device, which the storage's location carries
    return {k: v for k, v in t.__dict__.items() if k not in ("_view", "_dev")}


def reduce_tensor(t):
    """torch's pickled form of a tensor: ``_rebuild_tensor_v2(storage, offset, size, stride, ...)``.

    Inside ``save`` the storage is the shared entry of its MindSpore storage (views of one base are
    saved once); under plain pickle or copy it is the tensor's own values."""
    from .nn.parameter import Buffer
    saver = _tls.saver
    if saver is not None:
        storage, offset, size, stride = saver.storage_for(t)
    else:
        storage, offset, size, stride = _rebuild.compact_storage(t)
    args = (storage, offset, size, stride, t.requires_grad, _rebuild.empty_hooks())
    if _rebuild.storage_type_for(t.dtype) is _rebuild.UNTYPED:
        func, args = _rebuild._rebuild_tensor_v3, args + (t.dtype,)
    else:
        func = _rebuild._rebuild_tensor_v2
    cls = type(t)
    state = _python_state(t)
    if cls is Buffer:
        # torch's nn.Buffer(...) is a plain Tensor marked with attributes
        cls = Tensor
        state["_is_buffer"] = True
    if cls is Tensor and not state:
        return (func, args)
    return (_rebuild._rebuild_from_type_v2, (func, cls, args, state))


def reduce_parameter(p):
    """torch.nn.Parameter's pickled form: ``_rebuild_parameter(data, requires_grad, hooks)``."""
    state = _python_state(p)
    data = p.detach()
    if not state:
        return (_rebuild._rebuild_parameter, (data, p.requires_grad, _rebuild.empty_hooks()))
    return (_rebuild._rebuild_parameter_with_state, (data, p.requires_grad, _rebuild.empty_hooks(), state))


# --- files ------------------------------------------------------------------------------------------

def _is_path(f):
    return isinstance(f, (str, os.PathLike))


class _Opened:
    def __init__(self, f, mode):
        self.owned = _is_path(f)
        self.file = open(f, mode) if self.owned else f  # noqa: SIM115

    def __enter__(self):
        return self.file

    def __exit__(self, *exc):
        if self.owned:
            self.file.close()


def _check_seekable(f):
    try:
        f.seek(f.tell())
    except (io.UnsupportedOperation, AttributeError) as e:
        if any(p in str(e) for p in ("seek", "tell")):
            raise type(e)(str(e) + ". You can only torch.load from a file that is seekable. Please pre-load the "
                          "data into a buffer like io.BytesIO and try to load from it instead.") from None
        raise


# --- save ---------------------------------------------------------------------------------------------

def save(obj, f, pickle_module=pickle, pickle_protocol=DEFAULT_PROTOCOL, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """save(obj, f, pickle_module=pickle, pickle_protocol=2, _use_new_zipfile_serialization=True)

    Mirrors torch.save: torch.load reads the file (weights_only=True included)."""
    if not _is_path(f) and not hasattr(f, "write"):
        raise AttributeError("expected 'f' to be string, path, or a file-like object with a 'write' attribute")
    if _is_path(f):
        f = os.fspath(f)
    if _use_new_zipfile_serialization:
        if _is_path(f):
            with open(f, "wb") as out:
                _save_zip(obj, _zip.ZipWriter(out, _zip.archive_name_for(f), _Config.compute_crc32), pickle_module,
                          pickle_protocol, _disable_byteorder_record)
        else:
            out = _zip.buffer_writer(f)
            _save_zip(obj, _zip.ZipWriter(out, compute_crc32=_Config.compute_crc32), pickle_module, pickle_protocol,
                      _disable_byteorder_record)
            out.flush()
        return
    if _tls.skip_data:
        raise RuntimeError("Cannot use skip_data=True with _use_new_zipfile_serialization=False")
    with _Opened(f, "wb") as out:
        _save_legacy(obj, out, pickle_module, pickle_protocol)
        if hasattr(out, "flush"):
            out.flush()


def _pickle(obj, pickle_module, protocol, saver, out):
    previous = _tls.saver
    _tls.saver = saver
    try:
        _pickler.make_pickler(pickle_module, out, protocol, saver).dump(obj)
    finally:
        _tls.saver = previous


def _save_zip(obj, writer, pickle_module, protocol, disable_byteorder):
    saver = _pickler.Saver()
    buf = io.BytesIO()
    _pickle(obj, pickle_module, protocol, saver, buf)
    writer.write_record("data.pkl", buf.getvalue())
    # .format_version 1: storages are numbered in the order written; alignment is recorded
    writer.write_record(".format_version", b"1")
    writer.write_record(".storage_alignment", str(_zip.ALIGNMENT).encode())
    if not disable_byteorder:
        writer.write_record("byteorder", sys.byteorder.encode())
    for st in saver.storages:
        if _tls.skip_data:
            writer.write_record_metadata(f"data/{st._key}", st.nbytes())
            continue
        writer.write_record(f"data/{st._key}", st.array())
        if st._members:  # bytes gathered for this save: not kept past their record
            st._data, st._members = None, []
    writer.finish()


def _save_legacy(obj, out, pickle_module, protocol):
    saver = _pickler.Saver(legacy=True)
    sys_info = {"protocol_version": PROTOCOL_VERSION, "little_endian": sys.byteorder == "little",
                "type_sizes": {"short": 2, "int": 4, "long": 4}}
    for header in (MAGIC_NUMBER, PROTOCOL_VERSION, sys_info):
        pickle_module.dump(header, out, protocol=protocol)
    _pickle(obj, pickle_module, protocol, saver, out)
    keys = sorted(st._key for st in saver.storages)
    pickle_module.dump(keys, out, protocol=protocol)
    by_key = {st._key: st for st in saver.storages}
    for key in keys:
        st = by_key[key]
        size = 1 if _rebuild.storage_type_for(st.dtype) is _rebuild.UNTYPED else st.dtype.itemsize
        out.write(struct.pack("<q", st.nbytes() // size))
        out.write(st.array().data)


# --- load ---------------------------------------------------------------------------------------------

_TRUE = ("1", "y", "yes", "true")


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    """load(f, map_location=None, pickle_module=pickle, *, weights_only=True, mmap=None, **pickle_load_args)

    Mirrors torch.load: reads checkpoints written by torch or mstorch (zip and legacy formats)."""
    not_set = weights_only is None
    if not_set:
        weights_only = pickle_module is None
    force = os.getenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0").lower() in _TRUE
    force_no = os.getenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0").lower() in _TRUE
    if force and force_no:
        raise RuntimeError("Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or `TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` "
                           "should be set, but both were set.")
    if force:
        weights_only = True
    elif force_no and not_set:
        warnings.warn("Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected, since the`weights_only` "
                      "argument was not explicitly passed to `torch.load`, forcing weights_only=False.",
                      UserWarning, stacklevel=2)
        weights_only = False
    if weights_only:
        if pickle_module is not None:
            raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    elif pickle_module is None:
        pickle_module = pickle
    if pickle_load_args and weights_only:
        warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
    pickle_load_args.setdefault("encoding", "utf-8")

    with _Opened(f, "rb") as opened:
        if not _is_path(f):
            _check_seekable(opened)
        if _zip.is_zipfile(opened):
            return _load_zip_file(f, opened, map_location, pickle_module, weights_only, mmap, pickle_load_args)
        if mmap:
            name = f"{f}, " if isinstance(f, str) else ""
            raise RuntimeError(
                f"mmap can only be used with files saved with `torch.save({name}_use_new_zipfile_serialization=True), "
                "please torch.save your checkpoint with this option in order to use mmap.")
        return _guarded(weights_only, _load_legacy, opened, map_location, pickle_module, weights_only,
                        pickle_load_args)


def _guarded(weights_only, fn, *args):
    if not weights_only:
        return fn(*args)
    try:
        return fn(*args)
    except pickle.UnpicklingError as e:
        raise pickle.UnpicklingError(_weights_only.failure_message(str(e))) from None


def _unpickler_class(pickle_module, weights_only):
    return _weights_only.Unpickler if weights_only else _pickler.full_unpickler(pickle_module)


def _load_zip_file(f, opened, map_location, pickle_module, weights_only, mmap, load_args):
    reader = _zip.ZipReader(opened)
    try:
        if reader.has_record("constants.pkl"):
            raise RuntimeError("mstorch.load: this file is a TorchScript archive (torch.jit.save); mstorch cannot "
                               "load TorchScript programs")
        mapped = None
        if mmap:
            if not _is_path(f):
                raise ValueError("f must be a file path in order to use the mmap argument")
            import mmap as _mmap
            shared = get_default_mmap_options() == getattr(_mmap, "MAP_SHARED", None)
            with open(f, "r+b" if shared else "rb") as raw:
                # MAP_PRIVATE (torch's default) is copy-on-write: writes to the tensors never reach the file;
                # MAP_SHARED writes them through
                mapped = _mmap.mmap(raw.fileno(), 0, access=_mmap.ACCESS_WRITE if shared else _mmap.ACCESS_COPY)
        return _guarded(weights_only, _load_zip, reader, map_location, _unpickler_class(pickle_module, weights_only),
                        mapped, load_args)
    finally:
        reader.close()


def _byteorder(reader):
    if not reader.has_record("byteorder"):
        # torch's fallback: the default load endianness, little when unset
        default = get_default_load_endianness()
        return {None: "little", LoadEndianness.LITTLE: "little", LoadEndianness.BIG: "big",
                LoadEndianness.NATIVE: sys.byteorder}[default]
    order = reader.get_record("byteorder")
    if order not in (b"little", b"big"):
        raise ValueError("Unknown endianness type: " + order.decode())
    return order.decode()


def _load_zip(reader, map_location, unpickler_cls, mapped, load_args):
    restore = _rebuild.restore_function(map_location)
    swap = _byteorder(reader) != sys.byteorder
    loaded = {}

    def persistent_load(saved_id):
        if not isinstance(saved_id, tuple):
            raise AssertionError(f"saved_id must be a tuple, got {type(saved_id).__name__}")
        typename = _decode(saved_id[0])
        if typename != "storage":
            raise AssertionError(f"Unknown typename for persistent_load, expected 'storage' but got '{typename}'")
        storage_type, key, location, numel = saved_id[1:]
        if key in loaded:
            return loaded[key]
        dtype = storage_type.dtype
        nbytes = numel * dtype.itemsize
        if _tls.skip_data:   # (torch leaves these bytes uninitialised)
            import numpy as np
            data, mapped_here = np.zeros(nbytes, np.uint8), False
        else:
            data, mapped_here = reader.record_array(f"data/{key}", nbytes, mapped), mapped is not None
        if swap:
            data = _byteswapped(data, dtype)
        st = _rebuild._Storage(dtype, nbytes, data=data, mapped=mapped_here and not swap)
        st = restore(st, _decode(location))
        loaded[key] = st
        return st

    return _unpickle(io.BytesIO(reader.get_record("data.pkl")), unpickler_cls, persistent_load, restore, load_args)


def _unpickle(file, unpickler_cls, persistent_load, restore, load_args):
    unpickler = unpickler_cls(file, **load_args)
    unpickler.persistent_load = persistent_load
    state = _rebuild.LOAD_STATE
    previous, state.restore = state.restore, restore
    try:
        return unpickler.load()
    finally:
        state.restore = previous


def _decode(s):
    return s.decode("ascii") if isinstance(s, bytes) else s


def _byteswapped(data, dtype):
    item = dtype.itemsize // (2 if dtype.is_complex else 1)
    if item == 1:
        return data
    return data.view(f"u{item}").byteswap().view("u1")


# --- the legacy (pre-1.6) stream format -----------------------------------------------------------------

def _load_legacy(f, map_location, pickle_module, weights_only, load_args):
    if _has_fileno(f) and f.tell() == 0:
        try:
            tarfile.open(fileobj=f, mode="r:", format=tarfile.PAX_FORMAT).close()
        except tarfile.TarError:
            f.seek(0)
        else:
            if weights_only:
                raise RuntimeError("Cannot use ``weights_only=True`` with files saved in the legacy .tar format. "
                                   + UNSAFE_MESSAGE)
            raise RuntimeError("mstorch.load: checkpoints in torch's pre-1.0 tar format are not supported; "
                               "re-save them with a newer torch")
    load_one = _weights_only.load if weights_only else pickle_module.load
    if load_one(f, **load_args) != MAGIC_NUMBER:
        raise RuntimeError("Invalid magic number; corrupt file?")
    version = load_one(f, **load_args)
    if version != PROTOCOL_VERSION:
        raise RuntimeError(f"Invalid protocol version: {version}")
    sys_info = load_one(f, **load_args)
    start = f.tell()
    # the storage bytes follow the pickle, and their sizes depend on the dtypes it names:
    # read those first without running anything, then the bytes, then unpickle for real
    types = _scan_legacy_storages(f)
    keys = load_one(f, **load_args)
    swap = isinstance(sys_info, dict) and not sys_info.get("little_endian", True)
    raw = {}
    for key in keys:
        if key not in types:
            raise AssertionError(f"storage key {key!r} not found in deserialized_objects")
        dtype = types[key].dtype
        (numel,) = struct.unpack("<q", f.read(8))
        data = _read_array(f, numel * dtype.itemsize)
        raw[key] = _byteswapped(data, dtype) if swap else data
    f.seek(start)
    restore = _rebuild.restore_function(map_location)
    made = {}

    def persistent_load(saved_id):
        if not isinstance(saved_id, tuple):
            raise AssertionError(f"saved_id must be a tuple, got {type(saved_id).__name__}")
        typename = _decode(saved_id[0])
        if typename == "module":
            return saved_id[1]  # an nn.Module class; torch only compares its source, mstorch's differs anyway
        if typename != "storage":
            raise RuntimeError(f"Unknown saved id type: {saved_id[0]}")
        storage_type, root_key, location, numel, view = saved_id[1:]
        dtype = storage_type.dtype
        if root_key not in made:
            data = raw[root_key]
            st = _rebuild._Storage(dtype, data.nbytes, data=data)
            made[root_key] = restore(st, _decode(location))
        root = made[root_key]
        if view is None:
            return root
        view_key, offset, view_size = view
        if view_key not in made:
            b = offset * dtype.itemsize
            data = root.array()[b:b + view_size * dtype.itemsize]
            made[view_key] = _rebuild._Storage(dtype, data.nbytes, root._location, data=data)
        return made[view_key]

    return _unpickle(f, _unpickler_class(pickle_module, weights_only), persistent_load, restore, load_args)


def _has_fileno(f):
    try:
        return f.fileno() >= 0
    except (io.UnsupportedOperation, AttributeError, OSError):
        return False


def _read_array(f, nbytes):
    import numpy as np
    arr = np.empty(nbytes, np.uint8)
    _zip._read_into(f, arr)
    return arr


class _Anything:
    """Stands for every object while a legacy pickle is scanned: calling, building or filling it does
    nothing, so the scan runs no code from the file."""

    def __new__(cls, *args, **kwargs):
        return object.__new__(_Anything)

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        return _Anything()

    def __setstate__(self, state):
        pass

    def __setitem__(self, key, value):
        pass

    def append(self, item):
        pass

    def extend(self, items):
        pass

    def add(self, item):
        pass


class _Scanner(pickle._Unpickler):
    """Reads a legacy pickle only to learn each storage key's dtype; imports and calls nothing."""

    def __init__(self, file):
        super().__init__(file, encoding="latin1")
        self.types = {}

    def find_class(self, module, name):
        obj = _Anything()
        obj.name = name
        return obj

    def persistent_load(self, saved_id):
        if isinstance(saved_id, tuple) and _decode(saved_id[0]) == "storage":
            stype = saved_id[1]
            name = getattr(stype, "name", "")
            st = _rebuild.storage_type_named(name) if "Storage" in name else None
            if st is None:
                raise RuntimeError(f"mstorch.load: unknown storage type {name!r} in a legacy checkpoint")
            self.types[_decode(saved_id[2])] = st
        return _Anything()


def _scan_legacy_storages(f):
    scanner = _Scanner(f)
    scanner.load()
    return scanner.types


# --- storage types and device locations ---------------------------------------------------------------

def normalize_storage_type(storage_type):
    """torch.serialization.normalize_storage_type: the class of that name in the torch namespace."""
    # the package root, looked up at call time: it imports this module
    return getattr(importlib.import_module(__package__), storage_type.__name__)


def storage_to_tensor_type(storage):
    """torch.serialization.storage_to_tensor_type: the legacy tensor type named after a storage's class
    (FloatStorage -> FloatTensor) in that class's module; UntypedStorage has none (AttributeError)."""
    cls = type(storage)
    return getattr(importlib.import_module(cls.__module__), cls.__name__.replace("Storage", "Tensor"))


def validate_cuda_device(location):
    """torch.serialization.validate_cuda_device: the CUDA device index ``location`` names, checked against the
    devices this process has."""
    return _rebuild.validate_device(location, "cuda").index


# --- inspection -----------------------------------------------------------------------------------------

def get_unsafe_globals_in_checkpoint(f):
    """Mirrors torch.serialization.get_unsafe_globals_in_checkpoint."""
    with _Opened(f, "rb") as opened:
        if not _zip.is_zipfile(opened):
            raise ValueError("Expected input to be a checkpoint returned by torch.save")
        reader = _zip.ZipReader(opened)
        try:
            if reader.has_record("constants.pkl"):
                raise ValueError("Expected input to be a checkpoint returned by torch.save but got a torchscript "
                                 "checkpoint")
            return _weights_only.unsafe_globals(reader.get_record("data.pkl"))
        finally:
            reader.close()


# --- Tensor members owned here (installed on Tensor by mstorch/_install.py) ---------------------------------


def _module_load(self, other, assign=False):
    """Tensor.module_load: what ``Module.load_state_dict`` puts in place of this parameter or buffer (torch's
    default: ``other`` itself with ``assign=True``, else this tensor with ``other`` copied in), detached."""
    return other.detach() if assign else self.copy_(other).detach()


TENSOR_MEMBERS = {"__reduce_ex__": lambda self, protocol: reduce_tensor(self), "module_load": _module_load}
PARAMETER_MEMBERS = {"__reduce_ex__": lambda self, protocol: reduce_parameter(self)}
