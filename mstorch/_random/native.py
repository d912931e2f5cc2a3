"""The native kernels (``_fastrng.c``, an optional extension built at install time) through ctypes.

When the library is built, the hot loops of the random kernels run in C; they compute exactly what the
NumPy code computes (same operations, same roundings), so both paths give the same bits and the NumPy code
stays the fallback: when the library is missing, when ``MSTORCH_RNG_NATIVE=0``, or inside ``forced(False)``
(the tests compare the two paths). Draws advance NumPy's own MT19937 state: directly, when a check at load
time shows that the C recurrence reproduces NumPy's stream and state, else through NumPy's function
pointers (``bit_generator.ctypes``).
"""
import contextlib
import ctypes
import importlib.machinery
import os

import numpy as np

_P, _I64, _I32, _U32, _U64, _F64 = (ctypes.c_void_p, ctypes.c_int64, ctypes.c_int, ctypes.c_uint32,
                                    ctypes.c_uint64, ctypes.c_double)
_SIGNATURES = {
    "ms_bits32": (_P, _P, _P, _I64, _U32),
    "ms_bits64": (_P, _P, _P, _I64, _U64),
    "ms_to_f16": (_P, _P, _I64),
    "ms_to_bf16": (_P, _P, _I64),
    "ms_uniform_f32": (_P, _P, _I64, _I32, ctypes.c_int32, _F64, _F64, _I32, _P, _I32, _F64, _F64),
    "ms_uniform_f64": (_P, _P, _I64, _I32, _I64, _F64, _F64, _P, _I32, _F64, _F64),
    "ms_randint": (_P, _P, _P, _I64, _U64, _I64, _I32, _I32),
    "ms_randperm": (_P, _P, _P, _I64),
    "ms_normal_f32": (_P, _P, _P, _I64, _I64, _I32, _F64, _F64, _I32),
    "ms_normal_f64": (_P, _P, _P, _I64, _F64, _F64),
    "ms_searchsorted": (_P, _I64, _I64, _P, _I64, _P),
    "ms_bm_check": (),
    "ms_scale_f16": (_P, _P, ctypes.c_float, _P, _I64),
    "ms_scale_bf16": (_P, _P, ctypes.c_float, _P, _I64, _I64, _I64),
}
KIND = {np.dtype(np.float32): 0, np.dtype(np.float16): 1}     # output kinds of the float32 kernels
BF16 = 2


def _library_path():
    here = os.path.dirname(os.path.abspath(__file__))
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = os.path.join(here, "_fastrng" + suffix)
        if os.path.isfile(path):
            return path
    return None


def _load():
    if os.environ.get("MSTORCH_RNG_NATIVE", "1").strip() in ("0", "false", "no", "off"):
        return None
    path = _library_path()
    if path is None:
        return None
    try:
        lib = ctypes.CDLL(path)
        for name, args in _SIGNATURES.items():
            fn = getattr(lib, name)
            fn.argtypes, fn.restype = args, None
        lib.ms_bm_check.restype = _I64
    except (OSError, AttributeError):
        return None
    return lib


def _direct_ok(lib):
    """Whether advancing NumPy's MT19937 state struct in C gives NumPy's stream and state."""
    ref, got = np.random.MT19937(20240607), np.random.MT19937(20240607)
    ref.random_raw(5)
    got.random_raw(5)
    want32 = ref.random_raw(1500).astype(np.uint32)
    want64 = np.random.RandomState(ref).randint(0, 1 << 64, size=700, dtype=np.uint64)
    have32, have64 = np.empty(1500, np.uint32), np.empty(700, np.uint64)
    lib.ms_bits32(got.ctypes.state_address, None, have32.ctypes.data, 1500, 0xFFFFFFFF)
    lib.ms_bits64(got.ctypes.state_address, None, have64.ctypes.data, 700, (1 << 64) - 1)
    a, b = ref.state["state"], got.state["state"]
    return (np.array_equal(want32, have32) and np.array_equal(want64, have64)
            and np.array_equal(a["key"], b["key"]) and a["pos"] == b["pos"])


LIB = _load()
DIRECT = LIB is not None and _direct_ok(LIB)
_ON = [LIB is not None]


def on():
    return _ON[0]


@contextlib.contextmanager
def forced(flag):
    """Use the native kernels (True, when built) or the NumPy code (False) inside the block."""
    saved = _ON[0]
    _ON[0] = bool(flag) and LIB is not None
    try:
        yield
    finally:
        _ON[0] = saved


def source(bg):
    """The pointers the kernels draw through: NumPy's state struct (or None) and its bitgen_t."""
    iface = bg.ctypes
    return (iface.state_address if DIRECT else None), iface.bit_generator.value


def call(gen, name, n, *args):
    """LIB.name(state, bitgen, *args) under the generator's lock; marks it drawn when n > 0."""
    if n > 0:
        gen._fresh_next = None
    with gen._bg.lock:
        getattr(LIB, name)(gen._mtp, gen._bgp, *args)


def ptr(a):
    return a.ctypes.data
