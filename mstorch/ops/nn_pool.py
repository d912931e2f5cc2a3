"""torch.nn.functional pooling: max / avg / adaptive / lp pooling in 1-3 d, max_unpool.

MindSpore 2.10 CPU kernels, measured against torch: max_pool2d/3d (dilation, ceil_mode, torch's flat
indices), avg_pool1d/2d/3d (ceil_mode, count_include_pad, divisor_override), adaptive avg/max 2d/3d.
1-d pooling runs through the 2-d kernels on a (N, C, 1, L) view; bfloat16 through float32; int64
average pooling through float64 with C++'s truncating division (torch's integer kernel).
"""
import functools
import itertools
import math

import numpy as np
import mindspore as ms
from .._runtime import read_host, CAPTURE as _CAPTURE
from . import _msops as ops

from mindspore.ops import operations as PO

from . import _kernels as kernels
from .. import _ms_private as _P
from .. import _dtype as D
from ..autograd._higher_order import recompute_as
from ._helpers import dtype_of, cast, wrap_size_dim
from ._registry import register
from .reduction import has_nan, mean as _mean
from .arithmetic import abs as _abs, pow as _pow
from .nn_conv import _name, pad_tuple, stepped_slice

F = "nn.pool"
_INF = float("inf")


def _pool_tuple(value, n, fn, what, allow_none=False):
    if value is None or (allow_none and isinstance(value, (tuple, list)) and len(value) == 0):
        return None
    if isinstance(value, int):
        return (value,) * n
    value = tuple(int(v) for v in value)
    if len(value) == 1:
        return value * n
    if len(value) != n:
        if n == 1:
            raise RuntimeError(f"{fn}() {what} must be an int, list of ints or tuple of ints of size 1 but got "
                               f"size {len(value)}")
        words = {2: "two", 3: "three"}[n]
        lead = "either be omitted, a single int" if what == "stride" else "either be a single int"
        raise RuntimeError(f"{fn}: {what} must {lead}, or a tuple of {words} ints")
    return value


def _pool_args(kernel_size, stride, padding, dilation, n, fn):
    k = _pool_tuple(kernel_size, n, fn, "kernel_size")
    s = _pool_tuple(stride, n, fn, "stride", allow_none=True) or k
    p = _pool_tuple(padding, n, fn, "padding")
    d = _pool_tuple(dilation, n, fn, "dilation")
    if any(v == 0 for v in s):
        raise RuntimeError("stride should not be zero")
    if any(v <= 0 for v in k):
        raise RuntimeError("kernel size should be greater than zero, but got "
                           + " ".join(f"k{a}: {v}" for a, v in zip(_axes(n), k)))
    if any(v <= 0 for v in d):
        raise RuntimeError("dilation should be greater than zero, but got "
                           + " ".join(f"dilation{a}: {v}" for a, v in zip(_axes(n), d)))
    for kk, pp, dd in zip(k, p, d):
        if pp < 0 or pp > ((kk - 1) * dd + 1) / 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={pp}, "
                               f"kernel_size={kk} and dilation={dd}")
    return k, s, p, d


def _axes(n):
    return ("T", "H", "W")[3 - n:] if n > 1 else ("W",)


def _out_size(size, k, p, s, d, ceil):
    out = (size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil else 0)) // s + 1
    if ceil and (out - 1) * s >= size + p:
        out -= 1
    return out


def _output_sizes(x, k, s, p, d, ceil):
    return [_out_size(sz, kk, pp, ss, dd, ceil) for sz, kk, pp, ss, dd in zip(x.shape[2:], k, p, s, d)]


def _check_output(x, k, s, p, d, ceil):
    out = _output_sizes(x, k, s, p, d, ceil)
    if any(o < 1 for o in out):
        lead = (x.shape[1],) + ((1,) if len(k) == 1 else ())     # (1-d pools run as 2-d in torch)
        shape = "x".join(map(str, lead + tuple(x.shape[2:])))
        outs = "x".join(map(str, list(lead) + out))
        raise RuntimeError(f"Given input size: ({shape}). Calculated output size: ({outs}). Output size is too small")
    return out


def _batched(input, n, fn, kind="max", indices=True):
    """(input with batch dim, squeeze?) after torch's rank check and its check that no dimension but the
    batch is empty (made before the dtype check: an empty bool input is a shape error in torch)."""
    if input.ndim in (n + 1, n + 2):
        _check_nonempty(input, n, kind, indices)
    if input.ndim == n + 2:
        return input, False
    if input.ndim == n + 1:
        return input.expand_dims(0), True
    if n == 1:
        if kind == "max":
            raise RuntimeError(f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size "
                               f"for input, but got:{list(input.shape)}")
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument #1 "
                           f"'self' (while checking arguments for {fn})")
    raise RuntimeError(f"non-empty {n + 1}D or {n + 2}D (batch mode) tensor expected for input")


def _check_nonempty(input, n, kind, indices):
    shape = list(input.shape)
    if 0 not in shape[1 if input.ndim == n + 2 else 0:]:
        return
    if n == 3:      # (torch names dimension 0 whichever is empty)
        name = "max_pool3d_with_indices_out_cpu_template" if kind == "max" else "avg_pool3d"
        raise RuntimeError(f"{name}(): Expected input's non-batch dimensions to have positive length, but input "
                           f"has a shape of {shape} and non-batch dimension 0 has length zero!")
    if n == 1 and kind == "max" and not indices:    # max_pool1d's own kernel
        raise RuntimeError(f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size "
                           f"for input, but got:{shape}")
    if n == 1:      # the others pool a 1-d input as 2-d with a height of one
        shape.insert(len(shape) - 1, 1)
    raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but "
                       f"got:{shape}")


def _check_dtype(x, fn, ints=True):
    d = dtype_of(x)
    if x.dtype == ms.bool_ or d.is_complex or (not ints and not d.is_floating_point):
        raise NotImplementedError(f"\"{fn}\" not implemented for '{_name(x)}'")


# --- max pooling -------------------------------------------------------------------------------

def _one(v):
    return v[0] if isinstance(v, (tuple, list)) and len(v) == 1 else v


def _check_max_pool1d(x, kernel_size, stride, padding, dilation, ceil_mode):
    """torch's checks of max_pool1d without indices (its own kernel, its own messages)."""
    k, p, d = _one(kernel_size), _one(padding), _one(dilation)
    s = k if stride is None or stride == () or stride == [] else _one(stride)
    if not all(isinstance(v, int) for v in (k, s, p, d)):
        return
    if k <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k}")
    if s <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {s}")
    if p < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
    if p > k // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but got padding={p} and "
                           f"kernel_size={k}")
    if d <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d}")
    out = _out_size(x.shape[-1], k, p, s, d, ceil_mode)
    if out <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")


def _nan_propagating(pool, x, return_indices, n, positions=None):
    """``pool(x, return_indices)`` with torch's NaN rule: a window holding NaN has the maximum NaN, and its
    index is the window's last NaN (torch's CPU kernels take ``val > maxval || isnan(val)`` in row-major
    order). MindSpore's CPU max-pool kernels skip NaNs. With a NaN present (looked up on the host), NaN is
    pooled as +inf, and the windows that held one are found (with the last NaN's index) by a pool of the
    NaN positions numbered 1, 2, ... in row-major order (0 elsewhere). The values are then read from ``x``
    at those indices, so that the gradient goes where torch's does."""
    if not has_nan(x):
        return pool(x, return_indices)
    nan = ops.isnan(x)
    if _CAPTURE[0]:
        # while torch.compile records a graph (eval forwards, no gradient): the NaN windows set to NaN, the
        # indices of the inf-pool (MindSpore's graph build crashes on the index reads below)
        r = pool(ops.where(nan, ms.Tensor(math.inf, x.dtype), x), return_indices)
        hit = pool(cast(nan, x.dtype), False)
        hit = hit[0] if isinstance(hit, tuple) else hit
        out = ops.where(ops.greater(hit, 0), ms.Tensor(math.nan, x.dtype), r[0] if return_indices else r)
        return (out, r[1]) if return_indices else out
    idx = pool(ops.where(nan, ms.Tensor(math.inf, x.dtype), x), True)[1]
    plane = x.shape[x.ndim - n:]
    pdt = ms.float32 if math.prod(plane) < 2 ** 24 else ms.float64     # (the positions exactly)
    pos = ops.arange(1, math.prod(plane) + 1, dtype=pdt).reshape(plane)
    hit, last = (positions or pool)(ops.where(nan, pos, ops.zeros((), pdt)), True)
    idx = ops.where(ops.greater(hit, 0), cast(last, ms.int64), cast(idx, ms.int64))
    out = _read_at(x, idx, n)
    return (out, idx) if return_indices else out


def _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, n):
    fn = f"max_pool{n}d"
    if n == 1 and not return_indices and input.ndim in (2, 3):
        _check_nonempty(input, 1, "max", False)
        _check_max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)
    k, s, p, d = _pool_args(kernel_size, stride, padding, dilation, n, fn)
    x, unbatched = _batched(input, n, fn, indices=return_indices)
    _check_output(x, k, s, p, d, ceil_mode)     # (torch's shape checks come before its kernel's dtypes)
    _check_dtype(x, fn)
    if n == 1 and not return_indices and not dtype_of(x).is_floating_point:
        raise NotImplementedError(f"\"max_pool1d_impl\" not implemented for '{_name(x)}'")
    dt = x.dtype
    if dt == ms.bfloat16:
        x = cast(x, ms.float32)
    if not dtype_of(x).is_floating_point:
        r = _max_pool_int(x, k, s, p, d, ceil_mode, n)
        r = r if return_indices else r[0]
    else:
        r = kernels.ACTIVE["max_pool"](x, k, s, p, d, ceil_mode, return_indices, n)
    if return_indices:
        out, idx = r
        if idx.dtype != ms.int64:
            idx = cast(idx, ms.int64)
    else:
        out, idx = r, None
    if dt == ms.bfloat16:
        out = cast(out, dt)
    if unbatched:
        out = out.squeeze(0)
        idx = None if idx is None else idx.squeeze(0)
    if idx is not None:
        recompute_as(out, _read_at, input, idx, n)
    elif _P.requires_grad(input):   # the kernel in use may give no indices: found again if ever needed
        recompute_as(out, _read_pooled, input, k, s, p, d, ceil_mode, n)
    return (out, idx) if return_indices else out


def _max_pool_native(x, k, s, p, d, ceil_mode, return_indices, n):
    """MindSpore's MaxPoolWithArgmaxV2 / MaxPool3DWithArgmax (their CPU backward is slow: a 2x2 pool of
    32x32x32x32 took 2.5 s against torch's 60 ms, measured), with torch's NaN rule."""
    def kernel(x, return_indices):
        if n == 1:
            r = ops.max_pool2d(x.expand_dims(2), (1, k[0]), (1, s[0]), (0, p[0]), (1, d[0]), return_indices, ceil_mode)
            return tuple(t.squeeze(2) for t in r) if return_indices else r.squeeze(2)
        if n == 2:
            return ops.max_pool2d(x, k, s, p, d, return_indices, ceil_mode)
        return ops.max_pool3d(x, k, s, p, d, ceil_mode, return_indices)

    def pool(x, return_indices):
        # MaxPoolWithArgmaxV2 starts a window at the dtype's lowest value and updates on a greater one: a
        # window whose maximum is -inf or the lowest finite value gets that lowest value and a stale index
        # (another channel's). torch starts at -inf and updates on a greater value: the window's first
        # lowest finite value, else its first element. Those windows (looked up on the host) take their
        # indices from a pool of codes (0: -inf, 1: the lowest finite value, 2: anything greater; the
        # padding is below them all, the first maximum wins) and their values from x.
        lowest = None if n == 3 or _CAPTURE[0] or x.size == 0 else _lowest_held(x)
        if lowest is None:
            return kernel(x, return_indices)
        out, idx = kernel(x, True)
        lowest = ms.Tensor(lowest, x.dtype)
        codes = 2 - cast(ops.less_equal(x, lowest), x.dtype) - cast(ops.equal(x, ms.Tensor(-math.inf, x.dtype)),
                                                                    x.dtype)
        low, low_idx = kernel(codes, True)
        idx = ops.where(ops.less(low, 2), cast(low_idx, idx.dtype), idx)
        out = _read_at(x, cast(idx, ms.int64), n)
        return (out, idx) if return_indices else out
    if n != 3 and not _CAPTURE[0] and x.size and kernels.HOST_WORKAROUNDS and \
            np.min(read_host(x)) > _lowest_value(x):
        # one host look answers both questions in the common case (False for NaN): no NaN, no window at the
        # lowest value, the kernel alone
        return kernel(x, return_indices)
    # (the pool of NaN positions, all >= 0, needs no such care)
    return _nan_propagating(pool, x, return_indices, n, positions=kernel)


def _lowest_value(x):
    return float(np.finfo(D._FROM_MS[x.dtype]._np).min)


def _lowest_held(x):
    """The lowest finite value of floating ``x``'s dtype where ``x`` holds it or -inf, else None (a host look;
    the device path's answer, without one: it may)."""
    lowest = _lowest_value(x)
    if not kernels.HOST_WORKAROUNDS:
        return lowest
    return lowest if (read_host(x) <= lowest).any() else None


@functools.lru_cache(maxsize=64)
def _classic_max_pool(kernel, stride):
    return PO.MaxPool(kernel, stride, "VALID")


def _max_pool_classic(x, k, s, p, d, ceil_mode, return_indices, n):
    """The classic MaxPool kernel (oneDNN forward and backward on CPU, the first maximum of a window
    gets the gradient, as in torch) on input padded with -inf: for 1-d/2-d pooling without dilation
    or indices of all-finite input (a window of -inf would send its gradient to the padding; NaN needs
    torch's rule). Anything else goes to the native kernels."""
    if (return_indices or n == 3 or x.size == 0 or any(v != 1 for v in d) or x.dtype not in (ms.float16, ms.float32)
            or not kernels.HOST_WORKAROUNDS or _CAPTURE[0] or not np.isfinite(read_host(x)).all()):
        return _max_pool_native(x, k, s, p, d, ceil_mode, return_indices, n)
    if n == 1:
        return _max_pool_classic(x.expand_dims(2), (1,) + k, (1,) + s, (0,) + p, (1, 1), ceil_mode, False,
                                 2).squeeze(2)
    sizes = x.shape[2:]
    out = [_out_size(sz, kk, pp, ss, 1, ceil_mode) for sz, kk, pp, ss in zip(sizes, k, p, s)]
    need = [(o - 1) * ss + kk for o, ss, kk in zip(out, s, k)]    # the padded extent VALID pooling reads
    pairs = [(pp, max(0, nd - sz - pp)) for pp, nd, sz in zip(p, need, sizes)]
    if any(lo or hi for lo, hi in pairs):
        x = ops.pad(x, pad_tuple(pairs), value=-_INF)
    if any(sz + lo + hi > nd for sz, (lo, hi), nd in zip(sizes, pairs, need)):
        x = x[:, :, :need[0], :need[1]]
    return _classic_max_pool(tuple(k), tuple(s))(x)


kernels.candidates("max_pool", native=_max_pool_native, classic=_max_pool_classic)


def _max_pool_int(x, k, s, p, d, ceil_mode, n):
    """(values, flat indices) of an integer max pool, pooled as int64. MindSpore's CPU integer kernels
    start a window's maximum at minus the dtype's maximum and only take greater values: a window whose
    maximum is the dtype's minimum or one above reads one too high with an arbitrary index (uint8: 0
    as 1), and the 3-d kernel starts at 0 (a window of negatives gives 0). The 2-d kernel's indices
    are right elsewhere, so the values are read at them, and 3-d pools each depth slice in 2-d, then
    those maxima along depth (the first maximum in (d, h, w) order either way, torch's rule).
    A window of padding only (a dilated one can miss the input) has torch's value, the dtype's
    lowest; its index points past the input as torch's does."""
    dt = x.dtype
    if x.size == 0:     # an empty batch or channels: empty results of the output's shape
        shape = tuple(x.shape[:2]) + tuple(_output_sizes(x, k, s, p, d, ceil_mode))
        return ops.zeros(shape, dt), ops.zeros(shape, ms.int64)
    x64 = cast(x, ms.int64) if dt != ms.int64 else x
    if n == 1:
        idx, empty = _max_pool2d_int_indices(x64.expand_dims(2), (1,) + k, (1,) + s, (0,) + p, (1,) + d,
                                             ceil_mode)
        idx, empty = idx.squeeze(2), empty.squeeze(2)
    elif n == 2:
        idx, empty = _max_pool2d_int_indices(x64, k, s, p, d, ceil_mode)
    else:
        idx, empty = _max_pool3d_int_indices(x64, k, s, p, d, ceil_mode)
    out = _read_at(x, _inside(idx, x, n), n)
    lowest = ms.Tensor(int(np.iinfo(ms.dtype_to_nptype(dt)).min), dt)
    return ops.where(empty, lowest, out), idx


def _inside(idx, x, n):
    """``idx`` clipped to the flat spatial extent of ``x`` (for reading: the clipped ones are replaced)."""
    return ops.clamp(idx, 0, max(math.prod(x.shape[x.ndim - n:]) - 1, 0))


_I64_MIN = -2 ** 63


def _max_pool2d_int_indices(x, k, s, p, d, ceil_mode):
    """(torch's flat indices, windows of padding only) of a 2-d int64 max pool: the kernel's indices,
    except in windows whose maximum is int64's minimum or one above, whose indices come from a float
    pool of codes (0: the minimum, 1: one above, 2: anything greater; the padding is below them all)."""
    idx = cast(ops.max_pool2d(x, k, s, p, d, True, ceil_mode)[1], ms.int64)
    codes = 2 - cast(x <= _I64_MIN + 1, ms.float32) - cast(x <= _I64_MIN, ms.float32)
    low, low_idx = ops.max_pool2d(codes, k, s, p, d, True, ceil_mode)
    return ops.where(low < 2, cast(low_idx, ms.int64), idx), low < 0


def _max_pool3d_int_indices(x, k, s, p, d, ceil_mode):
    """``_max_pool2d_int_indices`` in 3-d, from two 2-d pools: over (h, w) of every depth slice, then (of
    the values read at those indices) over depth with a (kd, 1) window."""
    N, C, D, H, W = x.shape
    flat = x.reshape(N, C * D, H, W)
    i1, empty1 = _max_pool2d_int_indices(flat, k[1:], s[1:], p[1:], d[1:], ceil_mode)
    Ho, Wo = i1.shape[2:]
    v1 = _read_at(flat, _inside(i1, flat, 2), 2).reshape(N * C, 1, D, Ho * Wo)
    i2, empty2 = _max_pool2d_int_indices(v1, (k[0], 1), (s[0], 1), (p[0], 0), (d[0], 1), ceil_mode)
    depth = ops.floor_divide(i2.reshape(N * C, -1, Ho * Wo), Ho * Wo)    # (the column is i2's own)
    hw = ops.gather_elements(i1.reshape(N * C, D, Ho * Wo), 1, ops.clamp(depth, 0, D - 1))
    idx = (depth * (H * W) + hw).reshape(N, C, -1, Ho, Wo)
    empty = ops.logical_or(empty2.reshape(idx.shape), empty1.reshape(N, C, D, Ho, Wo)[:, :, :1])
    return idx, empty


def _read_at(x, idx, n):
    """The pooled values read from ``x`` at their flat spatial indices: torch's max-pool gradient, in
    recorded ops (MindSpore's max-pool gradient kernels have no backward)."""
    lead = tuple(x.shape[:x.ndim - n])
    dt = x.dtype
    flat = (cast(x, ms.float32) if dt == ms.bfloat16 else x).reshape(lead + (-1,))
    out = ops.gather_elements(flat, len(lead), idx.reshape(lead + (-1,))).reshape(idx.shape)
    return cast(out, dt) if out.dtype != dt else out


def _read_pooled(input, k, s, p, d, ceil_mode, n):
    """``_read_at`` with the window maxima found again (MindSpore's native kernel, which returns them): the
    double-backward composition of a pool whose forward ran on a kernel without indices."""
    x, unbatched = (input.expand_dims(0), True) if input.ndim == n + 1 else (input, False)
    xs = _P.detach(cast(x, ms.float32) if x.dtype == ms.bfloat16 else x)
    idx = cast(_max_pool_native(xs, k, s, p, d, ceil_mode, True, n)[1], ms.int64)
    return _read_at(input, idx.squeeze(0) if unbatched else idx, n)


@register("max_pool1d", family=F, namespace=("torch", "nn.functional"))
def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 1)


@register("max_pool2d", family=F, namespace=("torch", "nn.functional"))
def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 2)


@register("max_pool3d", family=F, namespace=("torch", "nn.functional"))
def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 3)


@register("max_pool1d_with_indices", family=F, namespace=("torch", "nn.functional"))
def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, True, 1)


@register("max_pool2d_with_indices", family=F, namespace="nn.functional")
def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, True, 2)


@register("max_pool3d_with_indices", family=F, namespace="nn.functional")
def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, True, 3)


# --- average pooling ---------------------------------------------------------------------------

def _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, n):
    fn = f"avg_pool{n}d"
    if n == 1:
        for what, v in (("kernel_size", kernel_size), ("stride", stride), ("padding", padding)):
            if isinstance(v, (tuple, list)) and len(v) not in ((0, 1) if what == "stride" else (1,)):
                raise RuntimeError(f"avg_pool1d() argument '{what}' should contain one int (got {len(v)})")
    k, s, p, _ = _pool_args(kernel_size, stride, padding, 1, n, fn)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    if n == 2 and input.ndim < 3:
        wrap_size_dim(-3, input.ndim)   # torch reads input.size(-3) before its rank check: its IndexError
    x, unbatched = _avg_shape_checks(input, k, s, p, ceil_mode, n, fn)
    dt = x.dtype
    # torch's kernels: 1-d pools as 2-d; the 3-d one has no half-precision kernel
    kernel = "avg_pool3d_out_frame" if n == 3 else "avg_pool2d"
    if dt != ms.int64:
        _check_dtype(x, kernel, ints=False)
    if n == 3 and dt in (ms.float16, ms.bfloat16):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_name(x)}'")
    if x.size == 0:     # an empty batch: torch's empty result (MindSpore's kernels refuse empty shapes)
        out = ops._filled(x, tuple(x.shape[:2]) + tuple(_output_sizes(x, k, s, p, (1,) * n, ceil_mode)), 0)
        return out.squeeze(0) if unbatched else out
    div = divisor_override or 0
    if dt == ms.int64:      # (no gradient to record)
        out = _avg_pool_int64(x, k, s, p, ceil_mode, count_include_pad, div)
        return out.squeeze(0) if unbatched else out
    if dt == ms.bfloat16:
        x = cast(x, ms.float32)
    if dt == ms.float64:
        out = _avg_pool_composed(x, k, s, p, ceil_mode, count_include_pad, div)
    else:
        if n == 1:
            out = ops.avg_pool2d(x.expand_dims(2), (1, k[0]), (1, s[0]), (0, 0, p[0], p[0]), ceil_mode,
                                 count_include_pad, div).squeeze(2)
        elif n == 2:
            out = ops.avg_pool2d(x, k, s, (p[0], p[0], p[1], p[1]), ceil_mode, count_include_pad, div)
        else:
            out = ops.avg_pool3d(x, k, s, (p[0], p[0], p[1], p[1], p[2], p[2]), ceil_mode, count_include_pad,
                                 div)
        # MindSpore's average-pool gradient kernel has no backward: double backward differentiates this
        recompute_as(out, _avg_pool_composed, x, k, s, p, ceil_mode, count_include_pad, div)
    if out.dtype != dt:
        out = cast(out, dt)
    return out.squeeze(0) if unbatched else out


def _avg_shape_checks(input, k, s, p, ceil_mode, n, fn):
    """torch's shape checks of an average pool, made before its kernel's dtype check: (input with a batch
    dim, squeeze?)."""
    x, unbatched = _batched(input, n, fn, kind="avg")
    if n == 3 and any(sz < kk for sz, kk in zip(x.shape[2:], k)):     # (the 3-d pool's own check)
        sizes = " ".join(f"{a}: {v}" for a, v in zip("THW", x.shape[2:]))
        kernel = " ".join(f"k{a}: {v}" for a, v in zip("THW", k))
        raise RuntimeError(f"input image ({sizes}) smaller than kernel size ({kernel})")
    _check_output(x, k, s, p, (1,) * n, ceil_mode)
    return x, unbatched


def _avg_pool_composed(x, k, s, p, ceil_mode, count_include_pad, div):
    """Window sums of strided slices over a zero-padded input, divided by torch's per-window divisor
    (MindSpore's average-pool gradient kernel has no float64)."""
    total, out = _window_sums(x, k, s, p, ceil_mode)
    divisor = _avg_divisor(tuple(x.shape[2:]), k, s, p, tuple(out), count_include_pad, div)
    return total / (divisor if total.dtype == ms.float64 else cast(divisor, total.dtype))


def _avg_pool_int64(x, k, s, p, ceil_mode, count_include_pad, div):
    """torch's int64 average pool: int64 window sums (wrapping on overflow, as its kernel's) divided by the
    divisor with C++'s truncation (going through float64 lost digits past 2**53)."""
    from .arithmetic import div as divide
    total, out = _window_sums(x, k, s, p, ceil_mode)
    divisor = _avg_divisor(tuple(x.shape[2:]), k, s, p, tuple(out), count_include_pad, div)
    return divide(total, cast(divisor, ms.int64), rounding_mode="trunc")


def _window_sums(x, k, s, p, ceil_mode):
    """(the sums of every pooling window, zero padding included, the output's spatial sizes)."""
    sizes = x.shape[2:]
    out = [_out_size(sz, kk, pp, ss, 1, ceil_mode) for sz, kk, pp, ss in zip(sizes, k, p, s)]
    right = [max(pp, (o - 1) * ss + kk - sz - pp) for o, ss, kk, sz, pp in zip(out, s, k, sizes, p)]
    x = ops.pad(x, pad_tuple([(pp, r) for pp, r in zip(p, right)]))
    total = None
    for offs in itertools.product(*[range(kk) for kk in k]):
        begin = (0, 0) + offs
        end = tuple(x.shape[:2]) + tuple(o0 + (o - 1) * ss + 1 for o0, o, ss in zip(offs, out, s))
        part = stepped_slice(x, begin, end, (1, 1) + tuple(s))
        total = part if total is None else total + part
    return total, out


@functools.lru_cache(maxsize=256)
def _avg_divisor(sizes, k, s, p, out, count_include_pad, div):
    if div:
        return ms.Tensor(float(div), ms.float64)
    per_dim = []
    for sz, kk, ss, pp, o in zip(sizes, k, s, p, out):
        start = np.arange(o) * ss - pp
        end = np.minimum(start + kk, sz + pp)
        full = end - start
        valid = np.minimum(end, sz) - np.maximum(start, 0)
        per_dim.append(full if count_include_pad else valid)
    grid = functools.reduce(np.multiply.outer, per_dim).astype(np.float64)
    return ms.Tensor(grid.reshape((1, 1) + grid.shape))


@register("avg_pool1d", family=F, namespace=("torch", "nn.functional"))
def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, None, 1)


@register("avg_pool2d", family=F, namespace="nn.functional")
def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 2)


@register("avg_pool3d", family=F, namespace="nn.functional")
def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 3)


# --- adaptive pooling --------------------------------------------------------------------------

def _adaptive_size(input, output_size, n, fn):
    if n == 1:
        if isinstance(output_size, (tuple, list)):
            if len(output_size) != 1:
                raise RuntimeError(f"{fn}() argument 'output_size' should contain one int (got {len(output_size)})")
            output_size = output_size[0]
        return (int(output_size),)
    if isinstance(output_size, int):
        size = (output_size,) * n
    else:
        output_size = tuple(output_size)
        # (torch.nn.functional fills a sequence's None entries from the input's sizes: it needs more of them)
        if len(output_size) >= input.ndim and (n > 1 or len(output_size) != n):
            raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
        if len(output_size) != n:
            raise RuntimeError(f"{fn}: internal error: output_size.size() must be {n}")
        size = tuple(input.shape[input.ndim - n + i] if v is None else int(v) for i, v in enumerate(output_size))
    if any(v < 0 for v in size):
        raise RuntimeError(f"{fn}: elements of output_size must be greater than or equal to 0 but received "
                           f"{{{', '.join(map(str, size))}}}")
    return size


def _adaptive_input(input, n, fn, kind, check_dtype=True):
    if input.ndim == n + 2:
        x, unbatched = input, False
    elif input.ndim == n + 1:
        x, unbatched = input.expand_dims(0), True
    elif n == 1:
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument #1 "
                           f"'self' (while checking arguments for {fn})")
    else:
        sep = ": " if kind == "max" else " "
        raise RuntimeError(f"{fn}(): Expected {n + 1}D or {n + 2}D tensor, but got{sep}{list(input.shape)}")
    # torch's emptiness check: average pooling in 1-d and 2-d (the 1-d one runs the 2-d kernel on a
    # dimension of size 1) looks at the pooled dims only, the others at every dim but the first
    if kind == "avg" and n < 3:
        name, shape = "adaptive_avg_pool2d", tuple(input.shape[:-1]) + ((1,) if n == 1 else ()) + input.shape[-1:]
        dims = (len(shape) - 2, len(shape) - 1)
    else:
        name, shape, dims = fn, tuple(input.shape), range(1, input.ndim)
    for i in dims:
        if shape[i] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, but input "
                               f"has sizes {list(shape)} with dimension {i} being empty")
    if check_dtype:
        # (the 1-d average pool is torch's 2-d one)
        _check_dtype(x, fn if kind == "max" else "adaptive_avg_pool2d" if n < 3 else "adaptive_avg_pool3d_cpu",
                     ints=False)
    return x, unbatched


def _adaptive_empty(x, size, unbatched):
    """An empty batch or output size: torch's empty result (MindSpore's adaptive pools refuse empty dims)."""
    out = ops._filled(x, tuple(x.shape[:-len(size)]) + tuple(size), 0)
    return out.squeeze(0) if unbatched else out


def _adaptive_avg(input, output_size, n):
    fn = f"adaptive_avg_pool{n}d"
    size = _adaptive_size(input, output_size, n, fn)
    if all(s == 1 for s in size) and (n > 1 or input.ndim in (2, 3)):
        # torch computes an output of ones as a mean over the pooled dims (of any rank in 2-d and 3-d),
        # without its emptiness check (complex tensors included: its pooling kernels have none)
        d = dtype_of(input)
        if not (d.is_floating_point or d.is_complex):
            raise RuntimeError(f"mean(): could not infer output dtype. Input dtype must be either a floating point "
                               f"or complex dtype. Got: {_name(input)}")
        if input.ndim < n:
            nd = max(input.ndim, 1)
            raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got "
                             f"{-nd - 1})")
        dims = tuple(range(input.ndim - n, input.ndim))
        if d.is_complex or input.size == 0 or input.ndim not in (n + 1, n + 2):
            # (torch.mean's complex division and its NaN over no elements, (nan, nan) for complex)
            return _mean.impl(input, dims, keepdim=True)
    # (torch's 1-d and 2-d kernels return an empty result before their dtype check)
    x, unbatched = _adaptive_input(input, n, fn, "avg", check_dtype=n == 3 or input.size > 0)
    if x.size == 0 or 0 in size:
        return _adaptive_empty(x, size, unbatched)
    dt = x.dtype
    if dt == ms.bfloat16:
        x = cast(x, ms.float32)
    if n == 1:
        out = ops.adaptive_avg_pool2d(x.expand_dims(2), (1, size[0])).squeeze(2)
    elif n == 2:
        out = ops.adaptive_avg_pool2d(x, size)
    else:
        out = ops.adaptive_avg_pool3d(x, size)
    recompute_as(out, _adaptive_avg_composed, x, size)
    if out.dtype != dt:
        out = cast(out, dt)
    return out.squeeze(0) if unbatched else out


def _adaptive_avg_composed(x, size):
    """adaptive average pooling as weighted gathers along each pooled dim (recorded ops: the gradient
    kernels of MindSpore's adaptive pools have no backward)."""
    n = len(size)
    for i, o in enumerate(size):
        axis = x.ndim - n + i
        x = apply_taps(x, axis, _adaptive_taps(x.shape[axis], o, np.float64 if x.dtype == ms.float64 else np.float32))
    return x


@functools.lru_cache(maxsize=256)
def _adaptive_taps(n_in, n_out, dt):
    """torch's adaptive windows [floor(o n_in / n_out), ceil((o + 1) n_in / n_out)) as (index, weight) taps:
    tap j reads start + j with weight 1 / length (0 past the window's end)."""
    o = np.arange(n_out)
    start = (o * n_in) // n_out
    end = -((-(o + 1) * n_in) // n_out)
    length = end - start
    idx, w = [], []
    for j in range(int(length.max()) if n_out else 0):
        inside = j < length
        idx.append(ms.Tensor(np.where(inside, start + j, 0).astype(np.int32)))
        w.append(ms.Tensor(np.where(inside, 1.0 / length, 0.0).astype(dt)))
    return idx, w


def apply_taps(x, axis, taps):
    """sum_j x[..., idx_j, ...] * w_j along ``axis``: a separable linear resampling in recorded ops."""
    idx, w = taps
    shape = (-1,) + (1,) * (x.ndim - axis - 1)
    out = None
    for j in range(len(idx)):
        term = ops.gather(x, idx[j], axis) * w[j].reshape(shape)
        out = term if out is None else out + term
    return out


@register("adaptive_avg_pool1d", family=F, namespace=("torch", "nn.functional"))
def adaptive_avg_pool1d(input, output_size):
    return _adaptive_avg(input, output_size, 1)


@register("adaptive_avg_pool2d", family=F, namespace="nn.functional")
def adaptive_avg_pool2d(input, output_size):
    return _adaptive_avg(input, output_size, 2)


@register("adaptive_avg_pool3d", family=F, namespace="nn.functional")
def adaptive_avg_pool3d(input, output_size):
    return _adaptive_avg(input, output_size, 3)


def _adaptive_max(input, output_size, return_indices, n):
    fn = f"adaptive_max_pool{n}d"
    size = _adaptive_size(input, output_size, n, fn)
    x, unbatched = _adaptive_input(input, n, fn, "max")
    if x.size == 0 or 0 in size:
        out = _adaptive_empty(x, size, unbatched)
        return (out, ops.zeros(out.shape, ms.int64)) if return_indices else out
    dt = x.dtype
    if dt == ms.bfloat16:
        x = cast(x, ms.float32)

    def pool(x, _):
        if n == 1:
            out, idx = ops.adaptive_max_pool2d(x.expand_dims(2), (1, size[0]), True)
            return out.squeeze(2), idx.squeeze(2)
        if n == 2:
            return ops.adaptive_max_pool2d(x, size, True)
        return ops.adaptive_max_pool3d(x, size, True)
    out, idx = _nan_propagating(pool, x, True, n)
    if out.dtype != dt:
        out = cast(out, dt)
    if idx.dtype != ms.int64:
        idx = cast(idx, ms.int64)
    if unbatched:
        out, idx = out.squeeze(0), idx.squeeze(0)
    recompute_as(out, _read_at, input, idx, n)
    return (out, idx) if return_indices else out


@register("adaptive_max_pool1d", family=F, namespace="nn.functional")
def adaptive_max_pool1d(input, output_size, return_indices=False):
    return _adaptive_max(input, output_size, return_indices, 1)


# torch.adaptive_max_pool1d (top level) returns (values, indices), like F.*_with_indices
@register("adaptive_max_pool1d_with_indices", family=F, namespace=("torch", "nn.functional"),
          aliases=("adaptive_max_pool1d",))
def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    return _adaptive_max(input, output_size, True, 1)


@register("adaptive_max_pool2d", family=F, namespace="nn.functional")
def adaptive_max_pool2d(input, output_size, return_indices=False):
    return _adaptive_max(input, output_size, return_indices, 2)


@register("adaptive_max_pool2d_with_indices", family=F, namespace="nn.functional")
def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    return _adaptive_max(input, output_size, True, 2)


@register("adaptive_max_pool3d", family=F, namespace="nn.functional")
def adaptive_max_pool3d(input, output_size, return_indices=False):
    return _adaptive_max(input, output_size, return_indices, 3)


@register("adaptive_max_pool3d_with_indices", family=F, namespace="nn.functional")
def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    return _adaptive_max(input, output_size, True, 3)


# --- power-average pooling (torch's own composition, so gradients agree) ------------------------

_LP_NO_KERNEL = (ms.uint8, ms.int8, ms.int16, ms.int32, ms.complex64, ms.complex128)


def _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, n):
    k = _pool_tuple(kernel_size, n, f"lp_pool{n}d", "kernel_size")
    # (torch's abs: a complex input's magnitudes, a bool one refused)
    if norm_type == _INF:
        return _max_pool(_abs(input), kernel_size, stride, 0, 1, ceil_mode, False, n)
    if norm_type == -_INF:
        return ops.neg(_max_pool(ops.neg(_abs(input)), kernel_size, stride, 0, 1, ceil_mode, False, n))
    if isinstance(norm_type, float) and dtype_of(input)._cat < D._FLOAT:
        # torch's input.pow(norm_type): a float exponent makes an integer input floating before the pool
        input = cast(input, D.get_default_dtype()._ms)
    refused = _LP_NO_KERNEL + ((ms.float16, ms.bfloat16) if n == 3 else ())
    if input.dtype in refused:   # (torch's average pool of the powers has no kernel for these; its shape
        # checks come first, the 2-d one's read of input.size(-3) first of all)
        if n == 2 and input.ndim < 3:
            wrap_size_dim(-3, input.ndim)
        _avg_shape_checks(input, *_pool_args(kernel_size, stride, 0, 1, n, f"avg_pool{n}d")[:3], ceil_mode, n,
                          f"avg_pool{n}d")
        raise NotImplementedError(f"\"{'avg_pool2d' if n < 3 else 'avg_pool3d_out_frame'}\" not implemented for "
                                  f"'{_name(input)}'")
    # (torch's pow: an int64 power wraps around, as MindSpore's Pow does not)
    out = _avg_pool(_pow(input, norm_type), kernel_size, stride, 0, ceil_mode, True, None, n)
    # MindSpore's CPU ReLU maps NaN to 0 where torch's keeps it (a negative input to a fractional power)
    out = ops.where(ops.isnan(out), out, ops.mul(ops.sign(out), ops.relu(ops.abs(out))))
    return _pow(ops.mul(out, math.prod(k)), 1.0 / norm_type)


@register("lp_pool1d", family=F, namespace="nn.functional")
def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1)


@register("lp_pool2d", family=F, namespace="nn.functional")
def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2)


@register("lp_pool3d", family=F, namespace="nn.functional")
def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3)


# --- max_unpool: scatter the pooled values to their flat indices ---------------------------------

def _max_unpool(input, indices, kernel_size, stride, padding, output_size, n):
    t = (lambda v: (v,) * n if isinstance(v, int) else tuple(v))
    k = t(kernel_size)
    s = k if stride is None else t(stride)
    p = t(padding)
    # (torch reads input.size()[-n + d]: a tuple's IndexError for too few dims)
    default = [(tuple(input.shape)[-n + d] - 1) * s[d] + k[d] - 2 * p[d] for d in range(n)]
    if output_size is None:
        size = default
    else:
        output_size = [int(v) for v in output_size]
        if len(output_size) == n + 2:
            output_size = output_size[2:]
        if len(output_size) != n:
            raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a "
                             f"length of '{len(output_size)}'")
        for d in range(n):
            lo, hi = default[d] - s[d], default[d] + s[d]
            if not lo < output_size[d] < hi:
                raise ValueError(f'invalid output_size "{tuple(output_size)}" (dim {d} must be between {lo} and {hi})')
        size = output_size
    for d, v in enumerate(size):
        if v < 0:
            raise ValueError(f"max_unpooling: output_size must contain non-negative spatial dimensions, but got "
                             f"output_size[{d}]={v}")
    if indices.dtype != ms.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {_name(indices)}")
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({list(input.shape)}) "
                           f"but got indices tensor with shape: {list(indices.shape)}")
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"Input to max_unpooling{n}d should be a {n + 1}d or {n + 2}d Tensor, but got a tensor "
                           f"with {input.ndim} dimensions.")
    if not dtype_of(input).is_floating_point:   # torch's CPU kernels: floating dtypes only
        raise NotImplementedError(f"\"max_unpool{3 if n == 3 else 2}d\" not implemented for '{_name(input)}'")
    total = math.prod(size)
    if indices.size and kernels.CHECK_INDICES:
        lo, hi = int(read_host(indices.min())), int(read_host(indices.max()))
        if lo < 0 or hi >= total:
            bad = hi if hi >= total else lo
            raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size "
                               f"{'x'.join(map(str, size))})")
    lead = tuple(input.shape[:input.ndim - n])
    flat_x = input.reshape(lead + (-1,))
    flat_i = indices.reshape(lead + (-1,))
    zeros = ops.zeros(lead + (total,), input.dtype)
    out = ops.tensor_scatter_elements(zeros, flat_i, flat_x, axis=len(lead))
    return out.reshape(lead + tuple(size))


@register("max_unpool1d", family=F, namespace="nn.functional")
def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 1)


@register("max_unpool2d", family=F, namespace="nn.functional")
def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 2)


@register("max_unpool3d", family=F, namespace="nn.functional")
def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 3)
