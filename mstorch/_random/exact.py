"""Exact-arithmetic helpers for mstorch's random kernels: which of torch's CPU kernel builds this machine
runs (FMA contraction, vectorised or scalar Box-Muller), single-rounding multiply-add, the C library's
transcendental functions over arrays, and torch's casts of computed values to each dtype.
"""
import math
import os
import platform

import numpy as np
import mindspore as ms

from .._runtime import read_host
from .. import _dtype as D
from .. import _runtime
from . import native as N

f32, f64 = np.float32, np.float64


# --- which of torch's CPU kernels this machine runs -----------------------------------------------
# torch picks a kernel build per CPU (ATEN_CPU_CAPABILITY overrides): x86 builds for AVX2/AVX512 are
# compiled with FMA, so ``a * b + c`` in a kernel rounds once, and normal_ uses the AVX2 Box-Muller with
# avx_mathfun's log/sin/cos; the DEFAULT x86 build rounds twice and uses the scalar Box-Muller; other
# CPUs (aarch64) fuse like the AVX builds and take the scalar Box-Muller.

def _x86_has_avx2():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    flags = line.split()
                    return "avx2" in flags and "fma" in flags
    except OSError:
        pass
    return True     # no /proc (macOS): x86 Macs since 2013 have AVX2


def _detect_capability():
    env = os.environ.get("ATEN_CPU_CAPABILITY", "").strip().lower()
    if platform.machine().lower() not in ("x86_64", "amd64", "i386", "i686"):
        return "other"
    if env == "default" or not _x86_has_avx2():
        return "default"
    return "avx2"


_CAPABILITY = {"name": None, "fused": True, "avx2_normal": True}


def _set_cpu_capability(name):
    """'avx2' (also AVX512 builds), 'default' (x86 without AVX2) or 'other' (e.g. aarch64)."""
    if name not in ("avx2", "default", "other"):
        raise ValueError(f"unknown CPU capability {name!r}")
    _CAPABILITY.update(name=name, fused=name != "default", avx2_normal=name == "avx2")


_set_cpu_capability(_detect_capability())


# --- exact arithmetic helpers -------------------------------------------------------------------

def _mad64(a, b, c):
    if _CAPABILITY["fused"]:
        return _fma64(a, b, c)
    return np.asarray(a, f64) * b + c


def _fma32(a, b, c):
    # float32 product is exact in float64; one rounding of the sum except in vanishingly rare cases
    return (np.asarray(a, f64) * f64(b) + c).astype(f32)


def _fma64(a, b, c):
    """a*b + c rounded once in float64: Dekker's exact product, then an error-free sum (exact but for
    double-rounding ties, which need ~2**-50 luck)."""
    a = np.asarray(a, f64)
    if b == 1.0 and c == 0.0:
        return a + 0.0
    p = a * b
    sa = a * 134217729.0
    ah = sa - (sa - a)
    al = a - ah
    bh = b * 134217729.0
    bh = bh - (bh - b)
    bl = b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    bb = s - p
    t = (p - (s - bb)) + (c - bb)
    return s + (t + e)


def _safe(fn):
    def g(v):
        try:
            return fn(v)
        except (ValueError, OverflowError):
            return float("-inf") if fn is math.log else float("inf")
    return g


_MATH = {"log": _safe(math.log), "log1p": math.log1p, "exp": _safe(math.exp), "tan": math.tan,
         "cos": math.cos, "sin": math.sin}
# NumPy's float64 cos/sin call the C library; log1p has no exact vectorised form (NumPy's differs by 1 ulp)
_NUMPY_FUNCS = ("cos", "sin", "log1p")


def _libm(name, x):
    """The C library's double ``name`` (what torch's scalar kernels call) over a float64 array.

    Small arrays go through Python's math module (the same libm); large ones through MindSpore's CPU
    kernels, which call it too. NumPy's SIMD log/exp/tan differ from libm in the last bit; log1p
    has no exact vectorised form, so large log1p arrays may differ from torch by 1 ulp (float64).
    """
    if x.size <= 2048:
        f = _MATH[name]
        return np.array([f(v) for v in x.ravel().tolist()], f64).reshape(x.shape)
    if name in _NUMPY_FUNCS or _runtime.device_target() != "CPU":
        return getattr(np, name)(x)
    return read_host(getattr(ms.ops, name)(ms.Tensor(x)))


def bf16_round(x):
    """float32 -> the nearest bfloat16 value (round half to even), kept as float32."""
    x = np.asarray(x, f32)
    if N.on():
        x = np.ascontiguousarray(x)
        out = np.empty(x.shape, f32)
        N.LIB.ms_to_bf16(x.ctypes.data, out.ctypes.data, x.size)
        return out
    b = x.view(np.uint32)
    r = b >> 16
    r &= 1
    r += np.uint32(0x7FFF)
    r += b
    r &= np.uint32(0xFFFF0000)
    out = r.view(f32)
    if np.isnan(x).any():
        out = np.where(np.isnan(x), f32(np.nan), out)
    return out


def f32_to_f16(x):
    """float32 -> float16 as C++'s conversion rounds (to nearest even); NumPy's cast, ~3x faster.

    NumPy converts one element at a time. For finite values in float16's normal range the rounding is
    integer arithmetic on the float32 bits (the carry out of the mantissa bumps the exponent, and past
    65504 reaches inf); zeros, subnormals, huge values and NaN go through NumPy's cast.
    """
    x = np.ascontiguousarray(x, f32)
    if N.on():
        out = np.empty(x.shape, np.float16)
        N.LIB.ms_to_f16(x.ctypes.data, out.ctypes.data, x.size)
        return out
    if x.size < 4096:
        with np.errstate(over="ignore"):
            return x.astype(np.float16)
    b = x.view(np.uint32)
    a = b & np.uint32(0x7FFFFFFF)
    h = a >> 13
    h &= np.uint32(1)
    h += np.uint32((0xFFF - 0x38000000) & 0xFFFFFFFF)    # modulo 2**32: exact where it is kept
    h += a
    h >>= 13
    sign = b >> 16
    sign &= np.uint32(0x8000)
    h |= sign
    out = h.astype(np.uint16).view(np.float16)
    a -= np.uint32(0x38800000)                  # normal float16 range: 2**-14 <= |x| < 2**16
    odd = np.flatnonzero(a >= np.uint32(0x47800000 - 0x38800000))
    if odd.size:
        with np.errstate(over="ignore"):
            out[odd] = x[odd].astype(np.float16)
    return out


def to_host(x, dt):
    """Cast computed values to ``dt`` as C++'s static_cast does (half/bfloat16 via float)."""
    if dt is D.bfloat16:
        return bf16_round(x)
    if dt is D.bool_:
        return x != 0
    if dt is D.float16:
        return f32_to_f16(x)
    if x.dtype.kind == "f" and not dt.is_floating_point:
        with np.errstate(invalid="ignore"):
            return x.astype(dt._np)
    return x.astype(dt._np, copy=False)
