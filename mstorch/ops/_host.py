"""Host kernels for the CPU device: numpy's BLAS over the tensors' own memory.

MindSpore 2.10's CPU MatMul/BatchMatMul run 5-8x slower than numpy's OpenBLAS on the shapes of small
models (a 256x128 @ 128x384 product: 7-9 ms against 1 ms for numpy and torch, measured interleaved on
this host), and its copy of a non-contiguous view (a transposed attention head) costs 5-15 ms where numpy
needs well under one. On the CPU device a tensor's memory is host memory and, under the blocking launch
mstorch uses there (``_runtime``), complete when an op returns: numpy can read it in place, strided
views included, and hand its result back without a copy (``mindspore.from_numpy`` shares the array).

Candidates built on this module (``kernels.candidates(...)`` in the family files) are chosen per device
by ``tools/choose_kernels.py``; GPU and Ascend keep MindSpore's kernels. Only float32 and float64 take
the host path (numpy has no bfloat16 and computes float16 products slowly); other dtypes fall back to
the native candidate inside the host candidate.
"""
import ctypes
import time

import mindspore as ms
import numpy as np

from .. import _runtime
from .._tensor import host_view
from .._runtime import read_host

_NP = {ms.float32: np.float32, ms.float64: np.float64}


def usable(*ts):
    """Whether the host path can run on these MindSpore tensors (None entries ignored); never while
    torch.compile records a graph (numpy's work is invisible to MindSpore's trace)."""
    if _runtime.device_target() != "CPU" or not _runtime.launch_is_blocking() or _runtime.CAPTURE[0]:
        return False
    dt = None
    for t in ts:
        if t is None:
            continue
        if t.dtype not in _NP or dt is not None and t.dtype != dt:
            return False
        dt = t.dtype
    return True


def array(t):
    """A numpy array over ``t``'s memory: no copy, strided views read in place (``usable`` first)."""
    if t.is_contiguous():
        return host_view(t)
    n = t.size
    if not n:
        return np.zeros(t.shape, _NP[t.dtype])
    dt = np.dtype(_NP[t.dtype])
    shape, strides = tuple(t.shape), tuple(t.stride())
    if any(s < 0 for s in strides):
        return read_host(t)
    extent = 1 + sum((d - 1) * s for d, s in zip(shape, strides))
    buf = (ctypes.c_char * (extent * dt.itemsize)).from_address(t.data_ptr())
    buf.owner = t   # the array keeps the tensor (and so its storage) alive
    flat = np.frombuffer(buf, dt)
    return np.lib.stride_tricks.as_strided(flat, shape, tuple(s * dt.itemsize for s in strides), writeable=False)


def quiet():
    """numpy's floating-point warnings off: torch's kernels compute inf/nan without a warning."""
    return np.errstate(all="ignore")


def kernel(name):
    """A host kernel's numpy work: ``quiet()``, and while torch.profiler records, one kernel event named
    ``name + " (host)"`` (MindSpore's profiler sees only its own kernels; this work would be missing)."""
    return quiet() if not _runtime.HOST_KERNEL_LOGS else _TimedKernel(name + " (host)")


class _TimedKernel:
    def __init__(self, name):
        self.name, self.errstate = name, quiet()

    def __enter__(self):
        self.errstate.__enter__()
        self.start = time.time_ns()
        return self

    def __exit__(self, *exc):
        end = time.time_ns()
        self.errstate.__exit__(*exc)
        for log in _runtime.HOST_KERNEL_LOGS:
            log.append((self.name, self.start / 1e3, (end - self.start) / 1e3))
        return False


def tensor(a, dtype):
    """A MindSpore tensor over the numpy result ``a``, which must be a fresh array (no copy when it is
    contiguous: the tensor shares its memory)."""
    a = np.asarray(a, dtype=_NP[dtype])   # (np.ascontiguousarray makes a 0-d result 1-d)
    if not a.flags.c_contiguous:
        a = np.ascontiguousarray(a)
    return ms.from_numpy(a)
