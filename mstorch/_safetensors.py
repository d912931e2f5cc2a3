"""The safetensors file format, read and written without the safetensors package.

Mirrors ``safetensors.torch`` (0.8) and ``safetensors.safe_open``: files are laid out as the Rust
library writes them, so both read each other's files bit for bit. Layout: 8 bytes little-endian
header length N, N bytes of compact JSON (``__metadata__`` first, then each tensor's dtype, shape
and data_offsets) padded with spaces to a multiple of 8, then the tensors' raw little-endian bytes,
sorted by descending dtype alignment, then by name. The public name is ``mstorch.safetensors``;
under ``python -m mstorch run`` it is also ``safetensors.torch``.
"""
import json
import mmap
import os
import struct
import sys
from collections import defaultdict

import numpy as np
import mindspore as ms

from . import _dtype as D
from ._tensor import Tensor, wrap
from ._serialization.rebuild import host_array

__all__ = ["save", "save_file", "load", "load_file", "save_model", "load_model", "safe_open", "SafetensorError",
           "storage_ptr", "storage_size"]

MAX_HEADER_SIZE = 100_000_000


class SafetensorError(Exception):
    """Mirrors safetensors.SafetensorError."""


# format code -> mstorch dtype; the order is the Rust library's Dtype enum (ascending alignment),
# which fixes where each tensor's bytes go in a written file
_CODES = ["BOOL", "F4", "F6_E2M3", "F6_E3M2", "U8", "I8", "F8_E5M2", "F8_E4M3", "F8_E8M0", "F8_E4M3FNUZ",
          "F8_E5M2FNUZ", "I16", "U16", "F16", "BF16", "I32", "U32", "F32", "C64", "F64", "I64", "U64"]
_RANK = {code: i for i, code in enumerate(_CODES)}
_TYPES = {"F64": D.float64, "F32": D.float32, "F16": D.float16, "BF16": D.bfloat16, "I64": D.int64,
          "I32": D.int32, "I16": D.int16, "I8": D.int8, "U8": D.uint8, "BOOL": D.bool_, "U16": D.uint16,
          "U32": D.uint32, "U64": D.uint64, "C64": D.complex64}
_CODE_OF = {d: code for code, d in _TYPES.items()}
_SIZE = {d: d.itemsize for d in _TYPES.values()}
# the bytes of packed float4/float6 types: elements per byte is not 1
_ITEM_BITS = {"F4": 4, "F6_E2M3": 6, "F6_E3M2": 6}
_TORCH_ONLY = {"F8_E5M2": "float8_e5m2", "F8_E4M3": "float8_e4m3fn", "F8_E8M0": "float8_e8m0fnu",
               "F8_E4M3FNUZ": "float8_e4m3fnuz", "F8_E5M2FNUZ": "float8_e5m2fnuz", "F4": "float4_e2m1fn_x2",
               "F6_E2M3": "float6_e2m3", "F6_E3M2": "float6_e3m2"}
_NP = {d: (np.int16 if d is D.bfloat16 else d._np) for d in _TYPES.values()}  # NumPy has no bfloat16


def _getdtype(dtype_str):
    dtype = _TYPES.get(dtype_str)
    if dtype is None:
        name = _TORCH_ONLY.get(dtype_str, dtype_str)
        raise TypeError(f"mstorch.safetensors: the file holds a {dtype_str} tensor (torch.{name}), a dtype "
                        "mstorch does not have")
    return dtype


def _nbytes(code, shape):
    n = 1
    for s in shape:
        n *= s
    bits = _ITEM_BITS.get(code)
    if bits is not None:
        return (n * bits + 7) // 8
    return n * (1 if code in _TORCH_ONLY else _TYPES[code].itemsize)


# --- shared storages (safetensors.torch's rules, on MindSpore storages) -------------------------------

def storage_ptr(tensor):
    try:
        return int(tensor._ms.untyped_storage().data_ptr())
    except Exception:  # noqa: BLE001 - torch's helper answers 0 for storages without an address
        return 0


def storage_size(tensor):
    try:
        return int(tensor._ms.untyped_storage().nbytes())
    except Exception:  # noqa: BLE001
        return tensor.nelement() * _SIZE[tensor.dtype]


def _end_ptr(tensor):
    if not tensor.nelement():
        return tensor.data_ptr()
    # one past the element furthest into memory (torch's view(-1)[-1], for any strides)
    last = sum((n - 1) * s for n, s in zip(tensor.shape, tensor.stride()))
    return tensor.data_ptr() + (last + 1) * tensor.element_size()


def _filter_shared_not_shared(tensors, state_dict):
    filtered = []
    for shared in tensors:
        if len(shared) < 2:
            filtered.append(shared)
            continue
        areas = sorted((state_dict[name].data_ptr(), _end_ptr(state_dict[name]), name) for name in shared)
        _, last_stop, last_name = areas[0]
        filtered.append({last_name})
        for start, stop, name in areas[1:]:
            if start >= last_stop:
                filtered.append({name})
            else:
                filtered[-1].add(name)
            last_stop = stop
    return filtered


def _find_shared_tensors(state_dict):
    tensors = defaultdict(set)
    for k, v in state_dict.items():
        ptr, size = storage_ptr(v), storage_size(v)
        if ptr != 0 and size != 0:
            tensors[(str(v.device), ptr, size)].add(k)
    return _filter_shared_not_shared(list(sorted(tensors.values())), state_dict)


def _is_complete(tensor):
    return (tensor.data_ptr() == storage_ptr(tensor)
            and tensor.nelement() * _SIZE[tensor.dtype] == storage_size(tensor))


def _remove_duplicate_names(state_dict, *, preferred_names=None, discard_names=None):
    """Mirrors safetensors.torch._remove_duplicate_names: for each group of tensors sharing memory,
    the name kept and the names to drop."""
    preferred_names = set(preferred_names or [])
    discard_names = set(discard_names or [])
    to_remove = defaultdict(list)
    for shared in _find_shared_tensors(state_dict):
        complete = {name for name in shared if _is_complete(state_dict[name])}
        if not complete:
            raise RuntimeError(
                "Error while trying to find names to remove to save state dict, but found no suitable name to keep"
                f" for saving amongst: {shared}. None is covering the entire storage.Refusing to save/load the model"
                " since you could be storing much more memory than needed. Please refer to"
                " https://huggingface.co/docs/safetensors/torch_shared_tensors for more information. Or open an"
                " issue.")
        keep = sorted(complete)[0]
        preferred = complete.difference(discard_names)
        if preferred:
            keep = sorted(preferred)[0]
        if preferred_names:
            preferred = preferred_names.intersection(complete)
            if preferred:
                keep = sorted(preferred)[0]
        for name in sorted(shared):
            if name != keep:
                to_remove[keep].append(name)
    return to_remove


# --- writing --------------------------------------------------------------------------------------

def _check_for_save(tensors):
    if not isinstance(tensors, dict):
        raise ValueError(f"Expected a dict of [str, torch.Tensor] but received {type(tensors)}")
    for k, v in tensors.items():
        if not isinstance(v, Tensor):
            raise ValueError(f"Key `{k}` is invalid, expected torch.Tensor but received {type(v)}")
    failing = [names for names in _find_shared_tensors(tensors) if len(names) > 1]
    if failing:
        raise RuntimeError(
            f"""
            Some tensors share memory, this will lead to duplicate memory on disk and potential differences when loading them again: {failing}.
            A potential way to correctly save your model is to use `save_model`.
            More information at https://huggingface.co/docs/safetensors/torch_shared_tensors
            """)  # noqa: E501 - safetensors' message, line breaks included
    for k, v in tensors.items():
        if not v.is_contiguous():
            raise ValueError(
                f"You are trying to save a non contiguous tensor: `{k}` which is not allowed. It either means you"
                " are trying to save tensors which are reference of each other in which case it's recommended to save"
                " only the full tensors, and reslice at load time, or simply call `.contiguous()` on your tensor to"
                " pack it before saving.")
        if v.dtype not in _CODE_OF:
            raise KeyError(f"torch.{v.dtype._name}: the safetensors format has no {v.dtype._name} dtype")
    for k in tensors:
        if not isinstance(k, str):
            raise TypeError(f"argument 'tensor_dict': '{type(k).__name__}' object is not an instance of 'str'")


def _check_metadata(metadata):
    if metadata is None:
        return
    if not isinstance(metadata, dict):
        raise TypeError(f"argument 'metadata': '{type(metadata).__name__}' object is not an instance of 'dict'")
    for k, v in metadata.items():
        for x in (k, v):
            if not isinstance(x, str):
                raise TypeError(f"argument 'metadata': '{type(x).__name__}' object is not an instance of 'str'")


def _prepare(tensors, metadata):
    """(header bytes, [(tensor, nbytes)]) in the Rust library's order and layout."""
    _check_for_save(tensors)
    _check_metadata(metadata)
    items = sorted(tensors.items(), key=lambda kv: (-_RANK[_CODE_OF[kv[1].dtype]], kv[0]))
    header = {} if metadata is None else {"__metadata__": metadata}
    offset = 0
    for name, t in items:
        n = t.nelement() * _SIZE[t.dtype]
        header[name] = {"dtype": _CODE_OF[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + n]}
        offset += n
    # serde_json's compact form: no spaces, non-ASCII written as UTF-8
    data = json.dumps(header, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    data += b" " * (-len(data) % 8)
    return data, [t for _, t in items]


def _tensor_bytes(t):
    if not t.nelement():
        return b""
    arr = host_array(t._ms, t.dtype)
    if sys.byteorder == "big":
        arr = arr.byteswap()
    return memoryview(np.ascontiguousarray(arr)).cast("B")


def save(tensors, metadata=None):
    """Mirrors safetensors.torch.save: the file's bytes."""
    header, ordered = _prepare(tensors, metadata)
    parts = [struct.pack("<Q", len(header)), header]
    parts.extend(_tensor_bytes(t) for t in ordered)
    return b"".join(parts)


def save_file(tensors, filename, metadata=None):
    """Mirrors safetensors.torch.save_file."""
    header, ordered = _prepare(tensors, metadata)
    with open(filename, "wb") as f:
        f.write(struct.pack("<Q", len(header)))
        f.write(header)
        for t in ordered:
            f.write(_tensor_bytes(t))


# --- reading --------------------------------------------------------------------------------------

def _error(message):
    return SafetensorError(f"Error while deserializing: {message}")


def _parse(buf):
    """(metadata or None, [(name, code, shape, start, end)] in offset order, data start) of a file's bytes,
    checked as the Rust library checks them."""
    size = len(buf)
    if size < 8:
        raise _error("header too small")
    (n,) = struct.unpack("<Q", buf[:8])
    if n > MAX_HEADER_SIZE:
        raise _error("header too large")
    if n + 8 > size:
        raise _error("invalid header length")
    try:
        text = bytes(buf[8:8 + n]).decode("utf-8")
    except UnicodeDecodeError as e:
        raise _error(f"invalid UTF-8 in header: {e}") from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as e:
        raise _error(f"invalid JSON in header: {e}") from None
    if not isinstance(raw, dict):
        raise _error(f"invalid JSON in header: invalid type: {type(raw).__name__}, expected a map")
    metadata = raw.pop("__metadata__", None)
    if metadata is not None and not (isinstance(metadata, dict)
                                     and all(isinstance(v, str) for v in metadata.values())):
        raise _error("invalid JSON in header: __metadata__ must map strings to strings")
    entries = []
    for name, info in raw.items():
        if not isinstance(info, dict):
            raise _error(f"invalid JSON in header: tensor {name!r} is not a map")
        for field in ("dtype", "shape", "data_offsets"):
            if field not in info:
                raise _error(f"invalid JSON in header: missing field `{field}`")
        code, shape, offsets = info["dtype"], info["shape"], info["data_offsets"]
        if code not in _RANK:
            raise _error(f"invalid JSON in header: unknown variant `{code}`, expected one of "
                         + ", ".join(f"`{c}`" for c in _CODES))
        if not (isinstance(shape, list) and all(type(s) is int and s >= 0 for s in shape)
                and isinstance(offsets, list) and len(offsets) == 2
                and all(type(o) is int and o >= 0 for o in offsets)):
            raise _error(f"invalid JSON in header: invalid shape or data_offsets for tensor `{name}`")
        entries.append((name, code, tuple(shape), offsets[0], offsets[1]))
    entries.sort(key=lambda e: (e[3], e[4]))
    end = 0
    for name, code, shape, start, stop in entries:
        if start != end or stop < start:
            raise _error(f"invalid offset for tensor `{name}`")
        if stop - start != _nbytes(code, shape):
            raise _error("invalid shape, data type, or offset for tensor")
        end = stop
    if end + 8 + n != size:
        raise _error("incomplete metadata, file not fully covered")
    return metadata, entries, 8 + n


def _array(buf, base, code, shape, start):
    """A NumPy array over (not a copy of) one tensor's bytes."""
    dtype = _getdtype(code)
    npdt = np.dtype(_NP[dtype])
    count = 1
    for s in shape:
        count *= s
    if count == 0:
        return np.empty(shape, npdt)
    arr = np.frombuffer(buf, npdt, count=count, offset=base + start).reshape(shape)
    if sys.byteorder == "big":
        arr = arr.byteswap()
    return arr


def _to_tensor(arr, dtype):
    if not arr.flags.aligned or not arr.flags.c_contiguous:
        arr = np.ascontiguousarray(arr).copy()
    t = ms.Tensor(arr)  # a copy: the file mapping may close
    if dtype is D.bfloat16:
        t = t.view(ms.bfloat16)
    return wrap(t)


_PT = ("pt", "torch", "pytorch")
_NUMPY = ("np", "numpy")
_OTHERS = ("tf", "tensorflow", "flax", "jax", "mlx", "paddle", "paddlepaddle")


class _Reader:
    """A file's bytes (mapped when possible) and its parsed header."""

    def __init__(self, filename):
        try:
            f = open(filename, "rb")  # noqa: SIM115 - closed in close()
        except FileNotFoundError:
            raise FileNotFoundError(f"No such file or directory: {os.fspath(filename)}") from None
        with f:
            try:
                self.buf = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            except ValueError:  # an empty file cannot be mapped
                self.buf = f.read()
        self.metadata, self.entries, self.base = _parse(self.buf)
        self.index = {e[0]: e for e in self.entries}

    def array(self, name):
        entry = self.index.get(name)
        if entry is None:
            raise SafetensorError(f"File does not contain tensor {name}")
        _, code, shape, start, _ = entry
        return _array(self.buf, self.base, code, shape, start), code

    def close(self):
        if isinstance(self.buf, mmap.mmap):
            try:
                self.buf.close()
            except BufferError:  # arrays still view it: the mapping goes with them
                pass


class safe_open:
    """Mirrors safetensors.safe_open for framework="pt" (mstorch tensors) and "numpy"."""

    def __init__(self, filename, framework, device="cpu", *, backend="mmap"):
        fw = str(framework)
        if fw not in _PT + _NUMPY:
            if fw in _OTHERS:
                raise SafetensorError(f"framework {fw} is not supported by mstorch.safetensors (use 'pt' or 'numpy')")
            raise SafetensorError(f"framework {fw} is invalid")
        if backend not in ("mmap", "pread"):
            raise SafetensorError(f"backend {backend} is invalid")
        self._numpy = fw in _NUMPY
        self._device = device
        self._reader = _Reader(filename)

    def _open_reader(self):
        if self._reader is None:
            raise SafetensorError("File is closed")
        return self._reader

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if self._reader is not None:
            self._reader.close()
        self._reader = None

    def keys(self):
        return sorted(self._open_reader().index)

    def offset_keys(self):
        return [e[0] for e in self._open_reader().entries]

    def metadata(self):
        meta = self._open_reader().metadata
        return None if meta is None else dict(meta)

    def _convert(self, arr, code):
        if self._numpy:
            if code == "BF16":
                raise TypeError("data type 'bfloat16' not understood")
            return arr.copy()
        t = _to_tensor(arr, _TYPES[code])
        return _to_device(t, self._device)

    def get_tensor(self, name):
        arr, code = self._open_reader().array(name)
        return self._convert(arr, code)

    def get_tensors(self):
        return {name: self.get_tensor(name) for name in self.offset_keys()}

    def get_slice(self, name):
        reader = self._open_reader()
        if name not in reader.index:
            raise SafetensorError(f"File does not contain tensor {name}")
        return _SafeSlice(self, name)


class _SafeSlice:
    """Mirrors safetensors' PySafeSlice: shape and dtype without reading, and slicing."""

    def __init__(self, handle, name):
        self._handle = handle
        self._name = name
        entry = handle._open_reader().index[name]
        self._code, self._shape = entry[1], entry[2]

    def get_shape(self):
        return list(self._shape)

    def get_dtype(self):
        return self._code

    def __getitem__(self, index):
        arr, code = self._handle._open_reader().array(self._name)
        for part in index if isinstance(index, tuple) else (index,):
            if isinstance(part, slice) and part.step is not None and part.step <= 0:
                raise ValueError("step must be greater than zero")
        try:
            picked = _orthogonal_index(arr, index if isinstance(index, tuple) else (index,))
        except IndexError as e:
            raise IndexError(str(e).replace(" for axis ", " for dimension ")) from None
        return self._handle._convert(np.asarray(picked), code)


def _orthogonal_index(arr, parts):
    """Index one dim at a time, as safetensors' slices do: a list picks along its own dim only
    (NumPy would move the dims of separated advanced indices to the front)."""
    fixed = sum(p is not None and p is not Ellipsis for p in parts)
    if any(p is Ellipsis for p in parts):
        i = next(i for i, p in enumerate(parts) if p is Ellipsis)
        parts = parts[:i] + (slice(None),) * (arr.ndim - fixed) + parts[i + 1:]
    axis = 0
    for p in parts:
        if p is None:
            arr = np.expand_dims(arr, axis)
            axis += 1
            continue
        if isinstance(p, (list, tuple)):
            p = np.asarray(p, dtype=np.int64)
        arr = arr[(slice(None),) * axis + (p,)]
        if not isinstance(p, (int, np.integer)):
            axis += 1
    return arr


def _to_device(t, device):
    if device in ("cpu", None):
        return t
    if isinstance(device, int):
        from ._device import current_device
        device = f"{current_device().type}:{device}" if current_device().type != "cpu" else f"cuda:{device}"
    return t.to(device)


def load_file(filename, device="cpu", *, backend="mmap"):
    """Mirrors safetensors.torch.load_file: the tensors in file order."""
    with safe_open(filename, framework="pt", device=device, backend=backend) as f:
        return f.get_tensors()


def load(data):
    """Mirrors safetensors.torch.load: tensors from a file's bytes."""
    buf = bytes(data)
    _, entries, base = _parse(buf)
    return {name: _to_tensor(_array(buf, base, code, shape, start), _TYPES[code])
            for name, code, shape, start, _ in entries}


# --- models -----------------------------------------------------------------------------------------

def save_model(model, filename, metadata=None, force_contiguous=True):
    """Mirrors safetensors.torch.save_model: tied weights are saved once (the dropped names are
    recorded in the metadata)."""
    state_dict = model.state_dict()
    for kept, removed in _remove_duplicate_names(state_dict).items():
        for name in removed:
            if metadata is None:
                metadata = {}
            if name not in metadata:
                metadata[name] = kept
            del state_dict[name]
    if force_contiguous:
        state_dict = {k: v.contiguous() for k, v in state_dict.items()}
    try:
        save_file(state_dict, filename, metadata=metadata)
    except ValueError as e:
        raise ValueError(str(e) + " Or use save_model(..., force_contiguous=True), read the docs for potential "
                         "caveats.") from None


def load_model(model, filename, strict=True, device="cpu", *, backend="mmap"):
    """Mirrors safetensors.torch.load_model: returns (missing, unexpected)."""
    state_dict = load_file(filename, device=device, backend=backend)
    to_removes = _remove_duplicate_names(model.state_dict(), preferred_names=state_dict.keys())
    missing, unexpected = model.load_state_dict(state_dict, strict=False)
    missing = set(missing)
    for group in to_removes.values():
        for name in group:
            if name not in missing:
                unexpected.append(name)
            else:
                missing.remove(name)
    if strict and (missing or unexpected):
        error = f"Error(s) in loading state_dict for {model.__class__.__name__}:"
        if missing:
            error += "\n    Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in sorted(missing))
        if unexpected:
            error += "\n    Unexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in sorted(unexpected))
        raise RuntimeError(error)
    return missing, unexpected
