"""dtype conversion of mindspore.Tensors, fast on CPU.

MindSpore 2.10's Cast kernel costs ~0.5 ms per call on CPU whatever the size (measured: i32->f32 of
1 element 470 us CPU, of 64k elements 760 us; an add is ~15 us). Tensors that do not need a gradient
convert on the host instead (NumPy astype plus one copy: ~12 us for small tensors); gradient-carrying
and large tensors keep the differentiable kernel. bfloat16 converts on the host too, through the NumPy
bfloat16 type MindSpore registers (its rounding from float32 is torch's: to nearest even, NaN kept).
"""
import numpy as np
import mindspore as ms

from ._runtime import read_host, CAPTURE
from . import _ms_private as P

_HOST_LIMIT = 1 << 18
NP_BF16 = read_host(ms.Tensor(0.0, ms.bfloat16)).dtype   # MindSpore's NumPy bfloat16 dtype
_NP = {ms.float32: np.float32, ms.float64: np.float64, ms.float16: np.float16, ms.int8: np.int8,
       ms.int16: np.int16, ms.int32: np.int32, ms.int64: np.int64, ms.uint8: np.uint8, ms.bool_: np.bool_,
       ms.complex64: np.complex64, ms.complex128: np.complex128, ms.uint16: np.uint16, ms.uint32: np.uint32,
       ms.uint64: np.uint64, ms.bfloat16: NP_BF16}
_DEVICE = [None]


def bf16_bits(value):
    """The bits of the number ``value`` rounded to bfloat16 (to nearest, ties to even; NaN stays NaN):
    ``ms.from_numpy(np.full(shape, bits, np.uint16)).view(ms.bfloat16)`` builds a bfloat16 tensor
    without MindSpore's slow float32 -> bfloat16 cast."""
    f = np.array([value], np.float32)
    if np.isnan(f[0]):
        return np.uint16(0x7FC0)
    u = int(f.view(np.uint32)[0])
    return np.uint16(((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF)


def cast(t, ms_dtype):
    """``t`` converted to ``ms_dtype``; differentiable when ``t`` requires grad."""
    src = t.dtype
    if src == ms_dtype:
        return t
    to_truth = ms_dtype == ms.bool_ and src in (ms.complex64, ms.complex128)   # either part nonzero
    if t.size > _HOST_LIMIT or P.requires_grad(t) or not _on_cpu() or CAPTURE[0]:   # (a graph: the kernel)
        if to_truth:   # (Cast reads the real part only)
            return ms.ops.logical_or(ms.ops.real(t) != 0, ms.ops.imag(t) != 0)
        return t.astype(ms_dtype)
    arr = read_host(t)
    dst = _NP[ms_dtype]
    if arr.dtype == NP_BF16:   # exact, and NumPy's bfloat16 converts to few types directly
        arr = arr.astype(np.float32)
    elif to_truth:
        arr = arr != 0
    elif arr.dtype.kind == "c" and np.dtype(dst).kind != "c":
        arr = arr.real
    with np.errstate(all="ignore"):   # out-of-range values convert as C casts do, silently as in torch
        return ms.Tensor(arr.astype(dst))


def _on_cpu():
    if _DEVICE[0] is None:
        from ._runtime import host_workarounds
        _DEVICE[0] = host_workarounds()   # CPU; a device (or the device path) casts with its Cast kernel
    return _DEVICE[0]
