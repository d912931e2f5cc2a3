"""Counting values: histc, histogram, bincount, isin.

None of these has a gradient in torch, and MindSpore's kernels differ from torch's in the details that
decide which bin a value lands in (MindSpore's ``histc`` rounds its bin position differently, its
``bincount`` takes int32 only). The counts are computed on the host with NumPy, following torch's CPU
kernels step by step in the input's dtype: torch's bin of an element ``x`` in ``histc`` is
``int((x - min) * bins / (max - min))`` computed in that dtype (the last bin includes ``max``), and
``histogram`` finds each element's bin among the linspace edges by a binary search.
"""
import builtins
import math
import os

import mindspore as ms
import numpy as np

from .._runtime import read_host
from .._cast import NP_BF16
from .. import _dtype as D
from .._tensor import Tensor, scalar_type_name, wrap
from ._argerr import invalid_args
from ._helpers import dtype_of, result_type, cast
from ._registry import register
from .ranges import _linspace_values, _round_to
from .random import _CPP_NAMES
from .reduction import return_type

F = "counting"
histogram_rt = return_type("histogram", ("hist", "bin_edges"))
histogramdd_rt = return_type("histogramdd", ("hist", "bin_edges"))


def _host(t):
    """A NumPy copy of a mindspore tensor (bfloat16 read as float32, which holds it exactly)."""
    if t.dtype == ms.bfloat16:
        t = cast(t, ms.float32)
    return read_host(t)


def _npt(dt):
    """The host dtype of ``dt``'s values (bfloat16's own)."""
    return NP_BF16.type if dt is D.bfloat16 else dt._np


def _to_ms(arr, dt):
    if dt is D.bfloat16:
        return ms.Tensor(np.asarray(arr, np.float32), dtype=ms.bfloat16)
    return ms.Tensor(np.ascontiguousarray(arr, dt._np))


def _cfmt(v):
    """A double as C++'s ``operator<<`` prints it (torch's messages)."""
    if math.isnan(v):
        return "-nan" if math.copysign(1.0, v) < 0 else "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return f"{v:g}"


_NAMES = {**_CPP_NAMES, D.complex64: "c10::complex<float>", D.complex128: "c10::complex<double>"}


def _not_implemented(kernel, t):
    return NotImplementedError(f'"{kernel}" not implemented for \'{scalar_type_name(dtype_of(t))}\'')


def _check_bins(bins, dim=0):
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension {dim}")


def _in_range(x, lo, hi):
    # NaN fails both comparisons, so torch's kernels skip it like a value out of range
    return (x >= lo) & (x <= hi)


def _bin_positions(x, e, npt, linear):
    """The bin of each value of ``x`` (all within the edges ``e``) as torch's CPU kernel picks it: a binary
    search among given edges; for linspace edges (``linear``) the bin ``(x - e[0]) * bins / (e[-1] - e[0])``
    computed in the dtype, corrected by a search among the edges next to it. The last bin holds its right
    edge."""
    n = e.size
    if not linear:
        pos = np.searchsorted(e, x, side="right") - 1
    else:
        with np.errstate(all="ignore"):
            est = (x.astype(npt) - npt(e[0])) * npt(n - 1) / (npt(e[-1]) - npt(e[0]))
        est = np.asarray(est, np.float64)
        # an estimate that overflows the dtype (values and range spanning more than its largest finite
        # value) converts to int64's minimum in torch: its search window then wraps around to the two
        # edges e[0], e[1], so the value lands in bin 1 when it is at least e[1], else in bin 0
        wild = ~np.isfinite(est) | (np.abs(est) >= 2.0 ** 63)
        pos = np.where(wild, 0, est).astype(np.int64)
        lo, hi = np.maximum(pos - 1, 0), np.minimum(pos + 2, n)
        lo, hi = np.where(wild, 0, lo), np.where(wild, 2, hi)
        found = np.zeros_like(pos)
        for j in range(3):      # an upper bound among the (at most three) edges of the window
            i = lo + j
            found += (i < hi) & (e[np.minimum(i, n - 1)] <= x)
        pos = lo + found - 1
    pos[pos == n - 1] = n - 2
    return pos


# --- histc -----------------------------------------------------------------------------------------

def _histc_out(args, out):
    """torch's check of histc's out= (before the kernel's dtype check): the input's own dtype."""
    if args and isinstance(args[0], Tensor) and out.dtype is not args[0].dtype:
        raise RuntimeError(f"torch.histogram: input tensor and hist tensor should have the same dtype, but got "
                           f"input {_CPP_NAMES.get(args[0].dtype, args[0].dtype)} and hist "
                           f"{_CPP_NAMES.get(out.dtype, out.dtype)}")


_CONVERT_NAMES = {D.uint8: "uint8_t", D.int8: "int8_t", D.int16: "int16_t", D.int32: "int", D.int64: "int64_t",
                  D.float16: "c10::Half", D.bfloat16: "c10::BFloat16", D.float32: "float", D.float64: "double",
                  D.complex64: "c10::complex<float>", D.complex128: "c10::complex<double>"}
_NO_LINSPACE = (D.bool_, D.uint16, D.uint32, D.uint64)


def _linspace_limits(lo, hi, dt):
    """torch's linspace checks on the edges of its bins, in its kernel: the dtype has one, and both ends
    convert to the dtype without overflow."""
    if dt in _NO_LINSPACE:
        raise NotImplementedError(f"\"linspace_cpu\" not implemented for '{D.scalar_type_name(dt)}'")
    npt = np.float32 if dt.is_complex and dt.itemsize == 8 else np.float64 if dt.is_complex else \
        np.float32 if dt is D.bfloat16 else dt._np
    info = np.finfo(npt) if dt.is_floating_point or dt.is_complex else np.iinfo(npt)
    top = 3.3895313892515355e38 if dt is D.bfloat16 else float(info.max)
    bottom = -top if dt is D.bfloat16 else float(info.min)
    if not (bottom <= lo <= top and bottom <= hi <= top):
        raise RuntimeError(f"value cannot be converted to type {_CONVERT_NAMES[dt]} without overflow")


@register("histc", family=F, out=True, out_check=_histc_out)
def histc(input, bins=100, min=0, max=0):
    # torch's order: the bin count, the data's range (aminmax) when min == max, the range's checks, the
    # linspace of the edges in the input's dtype, and only then the kernel's dtype (floating only)
    dt = dtype_of(input)
    _check_bins(bins)
    x = _host(input).reshape(-1)
    lo, hi = float(min), float(max)
    if lo == hi and x.size:
        if dt.is_complex or dt in D._BITS_UNSIGNED:
            raise _not_implemented("aminmax_cpu", input)
        # torch's aminmax of the data: NaN wins and prints with its sign bit set
        lo, hi = (-math.nan, -math.nan) if np.isnan(x).any() else (float(x.min()), float(x.max()))
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{_cfmt(lo)}, {_cfmt(hi)}] is not finite")
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    _linspace_limits(lo, hi, dt)
    if not dt.is_floating_point:
        raise _not_implemented("histogram_cpu", input)
    # the kernel's edges are the input dtype's values of min and max, and each step of the bin's position
    # rounds to the dtype (bfloat16's own, not float32's)
    npt = _npt(dt)
    left, right = npt(lo), npt(hi)
    x = x[_in_range(x, left, right)].astype(npt)
    with np.errstate(all="ignore"):
        est = (x - left) * npt(bins) / (right - left)
    if not np.isfinite(est).all():
        # torch converts the overflowed position to int64's minimum and writes outside its histogram
        raise RuntimeError(f"mstorch.histc: the bin position of a value overflows {dt} (the range [{_cfmt(lo)}, "
                           f"{_cfmt(hi)}] is wider than the dtype's largest value); torch's kernel writes outside "
                           "its histogram here")
    pos = est.astype(np.int64)
    if pos.size and pos.max() > bins:
        # rounded to a 16-bit dtype, a value near max can land past the last bin: torch writes there too
        raise RuntimeError(f"mstorch.histc: the bin position {int(pos.max())} of a value overflows the {bins} bins "
                           f"(each step rounded to {dt}); torch's kernel writes outside its histogram here")
    pos[pos == bins] = bins - 1
    counts = np.bincount(pos, minlength=bins)[:bins]
    return _to_ms(counts, dt)


# --- histogram ------------------------------------------------------------------------------------

def _histogram_range(x, range, dt, dim=0):
    if range is not None:
        lo, hi = float(range[0]), float(range[1])
    elif x.size:
        lo, hi = (-math.nan, -math.nan) if np.isnan(x).any() else (float(x.min()), float(x.max()))
    else:
        lo, hi = 0.0, 1.0
    if lo > hi:
        raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {_cfmt(lo)} max "
                           f"{_cfmt(hi)} for dimension {dim}")
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histogramdd: dimension {dim}'s range [{_cfmt(lo)}, {_cfmt(hi)}] is not finite")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return lo, hi


@register("histogram", family=F)
def histogram(input, bins, *, range=None, weight=None, density=False):
    dt = dtype_of(input)
    # torch's kernel has floating dtypes only; its argument checks come first, except for the input's
    # min and max (with int bins, no range and a non-empty input), whose dispatch refuses before them
    no_kernel = dt not in (D.float32, D.float64, D.float16, D.bfloat16)
    x = _host(input).reshape(-1)   # (bfloat16 read as float32: MindSpore's bfloat16 host copies fail to index)
    if isinstance(bins, ms.Tensor):
        if bins.ndim != 1:
            raise RuntimeError("torch.histogramdd: bins tensor should have one dimension, but got "
                               f"{bins.ndim} dimensions in the bins tensor for dimension 0")
        if bins.dtype != input.dtype:
            raise RuntimeError(
                "torch.histogramdd: input tensor and bins tensors should have the same dtype, but got input "
                f"with dtype {_NAMES[dt]} and bins for dimension 0 with dtype {_NAMES[dtype_of(bins)]}")
        edges = read_host(bins)
        _check_bins(edges.size - 1)
    else:
        if not isinstance(bins, int) or isinstance(bins, bool):
            raise invalid_args("histogram", (input, bins), signatures=(
                "Tensor input, Tensor bins, *, Tensor weight = None, bool density = False",
                "Tensor input, int bins = 100, *, tuple of floats range = None, Tensor weight = None, "
                "bool density = False"))
        _check_bins(bins)
        if dt not in (D.float32, D.float64) and range is None and x.size:   # (aminmax's dispatch)
            raise _not_implemented("histogramdd", input)
        lo, hi = _histogram_range(x.real if dt.is_complex else x, range, dt)
        edges = None if no_kernel else _round_to(_linspace_values(lo, hi, bins + 1, dt), dt).astype(_npt(dt))
    w = None
    if weight is not None:
        if weight.dtype != input.dtype:
            raise RuntimeError(
                "torch.histogramdd: if weight tensor is provided, input tensor and weight tensor should have "
                f"the same dtype, but got input({_NAMES[dt]}), and weight({_NAMES[dtype_of(weight)]})")
        if tuple(weight.shape) != tuple(input.shape):
            raise RuntimeError(
                "torch.histogramdd: if weight tensor is provided it should have the same shape as the input "
                f"tensor excluding its innermost dimension, but got input with shape {list(input.shape) + [1]} "
                f"and weight with shape {list(weight.shape)}")
        w = read_host(weight).reshape(-1)
    if no_kernel:
        raise _not_implemented("histogram_cpu", input)
    nbins = edges.size - 1
    hist = np.zeros(nbins, _npt(dt))
    if nbins > 0:
        keep = _in_range(x, edges[0], edges[-1])
        pos = _bin_positions(x[keep], edges, _npt(dt), not isinstance(bins, ms.Tensor))
        # accumulated one element at a time in the input's dtype, as torch's kernel does
        np.add.at(hist, pos, w[keep] if w is not None else _npt(dt)(1))
    if density:
        widths = np.diff(edges)
        hist = (hist / (hist.sum() * widths)).astype(_npt(dt))
    return histogram_rt(_to_ms(hist, dt), _to_ms(edges, dt))


@register("histogramdd", family=F, namespace="torch")
def histogramdd(input, bins, *, range=None, weight=None, density=False):
    """The histogram of the points in ``input``'s innermost dim (one coordinate per dim), each dim binned as
    ``histogram`` bins (linspace edges in the input's dtype, or the given edges; the last bin holds its right
    edge), weighted sums accumulated in the input's dtype."""
    dt = dtype_of(input)
    int_bins = isinstance(bins, int) and not isinstance(bins, bool)
    if int_bins and input.ndim == 0:   # (torch's Python wrapper reads input.size(-1) first)
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if input.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    n = input.shape[-1]
    points = _host(input).reshape(-1, n) if n else np.zeros((math.prod(input.shape[:-1]), 0), np.float64)
    kernel = dt in (D.float32, D.float64, D.float16, D.bfloat16)
    # torch's order: the bin edges (each dim's range, then a linspace per dim), then its input checks (the
    # edges, then the weight), then the bin counts, and only then its kernel's dtype dispatch
    tensor_bins = not int_bins and isinstance(bins, (list, tuple)) and bool(bins) and isinstance(bins[0], ms.Tensor)
    if not int_bins and isinstance(bins, (list, tuple)):
        for i, b in enumerate(bins):
            if tensor_bins and not isinstance(b, ms.Tensor):
                raise TypeError(f"expected Tensor as element {i} in argument 1, but got {type(b).__name__}")
            if not tensor_bins and (not isinstance(b, int) or isinstance(b, bool)):
                raise TypeError("histogramdd(): argument 'bins' failed to unpack the object at pos 2 with error "
                                f"\"type must be tuple of ints,but got {type(b).__name__}\"")
    edges = []
    if tensor_bins:
        if len(bins) != n:
            raise RuntimeError(f"torch.histogramdd: expected {n} sequences of bin edges for a {n}-dimensional "
                               f"histogram but got {len(bins)}")
        for d, b in enumerate(bins):
            if b.dtype != input.dtype:
                raise RuntimeError(f"torch.histogramdd: input tensor and bins tensors should have the same dtype, "
                                   f"but got input with dtype {_NAMES[dt]} and bins for dimension {d} with dtype "
                                   f"{_NAMES[dtype_of(b)]}")
            if b.ndim != 1:
                raise RuntimeError(f"torch.histogramdd: bins tensor should have one dimension, but got {b.ndim} "
                                   f"dimensions in the bins tensor for dimension {d}")
            if b.shape[0] == 0:
                raise RuntimeError("torch.histogramdd: bins tensor should have at least 1 element, but got 0 "
                                   f"elements in the bins tensor for dimension {d}")
            edges.append(read_host(b).astype(_npt(dt)) if kernel else np.zeros(b.shape[0]))
    else:
        if int_bins:
            bins = [bins] * n
        if range is not None:
            if len(range) != 2 * n:
                raise RuntimeError(f"torch.histogramdd: for a {n}-dimensional histogram range should have {2 * n} "
                                   f"elements, but got {len(range)}")
        elif points.size and dt not in (D.float32, D.float64):   # (the data's range: aminmax's dispatch)
            raise _not_implemented("histogramdd", input)
        limits = [_histogram_range(points[:, d], None if range is None else range[2 * d:2 * d + 2], dt, d)
                  for d in builtins.range(n)]
        if len(bins) != n:
            raise RuntimeError("histogramdd: The size of bins must be equal to the innermost dimension of the input.")
        for b, (lo, hi) in zip(bins, limits):   # torch's linspace of each dim's edges, in the input's dtype
            if b + 1 < 0:
                raise RuntimeError("number of steps must be non-negative")
            if dt in _NO_LINSPACE:
                raise NotImplementedError(f"\"linspace_cpu\" not implemented for '{D.scalar_type_name(dt)}'")
            if b + 1 > 0:   # (only the ends it writes convert to the dtype)
                _linspace_limits(lo, hi if b + 1 > 1 else lo, dt)
            # (fewer than two edges fail the bin count's check below: their values do not matter)
            edges.append(_round_to(_linspace_values(lo, hi, b + 1, dt), dt).astype(_npt(dt)) if kernel and b > 0
                         else np.zeros(b + 1))
        for d, e in enumerate(edges):
            if e.size == 0:
                raise RuntimeError("torch.histogramdd: bins tensor should have at least 1 element, but got 0 "
                                   f"elements in the bins tensor for dimension {d}")
    w = None
    if weight is not None:
        if weight.dtype != input.dtype:
            raise RuntimeError(
                "torch.histogramdd: if weight tensor is provided, input tensor and weight tensor should have the "
                f"same dtype, but got input({_NAMES[dt]}), and weight({_NAMES[dtype_of(weight)]})")
        if tuple(weight.shape) != tuple(input.shape[:-1]):
            raise RuntimeError(
                "torch.histogramdd: if weight tensor is provided it should have the same shape as the input tensor "
                f"excluding its innermost dimension, but got input with shape {list(input.shape)} and weight with "
                f"shape {list(weight.shape)}")
        w = read_host(weight).reshape(-1)
    for d, e in enumerate(edges):
        _check_bins(e.size - 1, d)
    if not kernel:
        raise _not_implemented("histogram_cpu", input)
    sizes = tuple(e.size - 1 for e in edges)
    hist = np.zeros(sizes, _npt(dt))
    if sizes and all(sizes):
        keep = np.ones(points.shape[0], bool)
        pos = []
        for d, e in enumerate(edges):
            keep &= _in_range(points[:, d], e[0], e[-1])
        for d, e in enumerate(edges):
            pos.append(_bin_positions(points[keep, d], e, _npt(dt), not isinstance(bins[d], ms.Tensor)))
        np.add.at(hist, tuple(pos), w[keep] if w is not None else _npt(dt)(1))
    if density:
        # torch divides by the total, then by each dim's bin lengths in turn, in the dtype (an empty
        # histogram's density is NaN)
        npt = _npt(dt)
        with np.errstate(invalid="ignore", divide="ignore"):
            hist = (hist / npt(hist.astype(np.float64).sum())).astype(npt)
            for d, e in enumerate(edges):
                shape = [1] * len(edges)
                shape[d] = e.size - 1
                hist = (hist / np.diff(e).astype(npt).reshape(shape)).astype(npt)
    hist_t = _to_ms(hist, dt) if hist.ndim else _to_ms(hist, dt).reshape(())   # (no dims: a 0-d histogram)
    return histogramdd_rt(hist_t, tuple(_to_ms(e, dt) for e in edges))


# --- bincount -------------------------------------------------------------------------------------

def _check_allocation(nbytes):
    """torch's CPU allocator error for a result larger than the memory this host has free: torch's
    zeroed allocation is lazy and may succeed, mstorch's host result is written (and copied) in full, and
    the process would be killed instead."""
    try:
        free = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError):
        return
    if 2 * nbytes > free:   # (the host result and the tensor made from it)
        raise RuntimeError(f"DefaultCPUAllocator: not enough memory: you tried to allocate {nbytes} bytes.")


@register("bincount", family=F)
def bincount(input, weights=None, minlength=0):
    dt = dtype_of(input)
    if dt.is_floating_point or dt.is_complex or dt is D.bool_:
        raise _not_implemented("bincount_cpu", input)
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    x = read_host(input)
    if x.ndim == 1 and not x.size:   # torch answers before looking at the weights
        return _to_ms(np.zeros(minlength, np.int64), D.int64)
    if x.ndim != 1 or x.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights.ndim != 1 or weights.shape[0] != x.shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    top = int(x.max())
    if top == 2 ** 63 - 1:
        raise RuntimeError(f"maximum value of input overflowed, it should be < {top} but got {top}")
    n = max(top + 1, minlength)
    # float32 weights count in float32, every other weight type in float64
    out_dt = D.int64 if weights is None else D.float32 if weights.dtype == ms.float32 else D.float64
    _check_allocation(n * np.dtype(out_dt._np).itemsize)
    if weights is None:
        return _to_ms(np.bincount(x.astype(np.int64), minlength=n), D.int64)
    out = np.zeros(n, out_dt._np)
    np.add.at(out, x.astype(np.int64), _host(weights).astype(out_dt._np))
    return _to_ms(out, out_dt)



# --- isin -----------------------------------------------------------------------------------------

def _isin_signatures():
    return ("Tensor elements, Tensor test_elements, *, bool assume_unique = False, bool invert = False",
            "Scalar element, Tensor test_elements, *, bool assume_unique = False, bool invert = False",
            "Tensor elements, Scalar test_element, *, bool assume_unique = False, bool invert = False")


def _flattens_as_view(shape, strides):
    """Whether ``view(-1)`` of this layout exists (size-1 dims aside, each stride spans the dims inside it)."""
    dims = [(n, st) for n, st in zip(shape, strides) if n != 1]
    return 0 in shape or all(st == n_in * st_in for (_, st), (n_in, st_in) in zip(dims, dims[1:]))


def _dense_layout(shape, strides):
    """torch's non-overlapping-and-dense test: some order of the dims is a contiguous layout."""
    expected = 1
    for st, n in sorted((st, n) for n, st in zip(shape, strides) if n != 1):
        if st != expected:
            return False
        expected *= n
    return True


def _check_isin_view(elements, test_elements, common):
    """torch's small-test_elements kernel (test_elements.numel() below 10 * elements.numel() ** 0.145) flattens
    test_elements with view(-1) after converting it to the common dtype, which keeps a dense layout's strides:
    a layout that does not flatten as a view (transposed, expanded) fails there."""
    if not isinstance(test_elements, Tensor):
        return
    n = elements.numel() if isinstance(elements, Tensor) else 1
    if not n or test_elements.numel() >= 10.0 * n ** 0.145:
        return
    shape, strides = tuple(test_elements.shape), test_elements.stride()
    if test_elements.dtype is not common and not _dense_layout(shape, strides):
        return   # (converted into a fresh contiguous tensor)
    if not _flattens_as_view(shape, strides):
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one dimension "
                           "spans across two contiguous subspaces). Use .reshape(...) instead.")


@register("isin", family=F, namespace="torch", out="exact", raw=True)
def isin(elements, test_elements, *, assume_unique=False, invert=False):
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise invalid_args("isin", (elements, test_elements), signatures=_isin_signatures())
    found = _isin(elements._ms if isinstance(elements, Tensor) else elements,
                  test_elements._ms if isinstance(test_elements, Tensor) else test_elements, invert,
                  lambda common: _check_isin_view(elements, test_elements, common))
    return wrap(found)


def _isin(elements, test_elements, invert, check_view):
    for v in (elements, test_elements):   # (a bool tensor is refused whatever the other operand)
        if isinstance(v, ms.Tensor) and v.dtype == ms.bool_:
            raise RuntimeError("Unsupported input type encountered for isin(): Bool")
    rt = result_type(elements, test_elements)
    if rt is D.bool_ or rt.is_complex:
        raise RuntimeError(f"Unsupported input type encountered for isin(): {scalar_type_name(rt)}")
    check_view(rt)
    npt = np.float32 if rt is D.bfloat16 else rt._np

    def host(v):
        if isinstance(v, ms.Tensor):
            return _host(v if v.dtype == rt._ms else cast(v, rt._ms)).astype(npt, copy=False)
        return np.array(v).astype(npt)   # a Python scalar wraps around as torch's cast does
    e, t = host(elements), host(test_elements)
    # equality as torch compares: NaN is in nothing; assume_unique changes speed only
    found = np.isin(e.reshape(-1), t.reshape(-1), invert=invert).reshape(e.shape)
    return ms.Tensor(found)
