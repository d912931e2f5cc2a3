"""Sorting and order statistics: sort, argsort, msort, topk, kthvalue, median, nanmedian, mode,
quantile, nanquantile, unique, unique_consecutive, searchsorted, bucketize.

MindSpore's CPU Sort is stable (measured up to 2e5 elements) but misplaces NaNs, which torch orders
as the largest value; ``sort_last`` fixes that with a second stable pass only when a NaN is present.
Indices are int64 as in torch.
"""
import math

import mindspore as ms
import numpy as np
from .._runtime import read_host
from . import _kernels as kernels
from . import _msops as ops

from .. import _dtype as D
from ._argerr import invalid_args
from .._tensor import Tensor
from ._helpers import wrap_dim, MsTensor, result_type, cast
from ._registry import register
from .reduction import (return_type, comparable, _back, has_nan, needs_grad, nan_scalar, _out_shape,
                        _check_nonempty_dims, empty_result, const, as_int64, selection_backward)
from ..autograd._higher_order import own_backward

F = "sorting"
_FROM_MS = D._FROM_MS

sort_rt = return_type("sort", ("values", "indices"))
topk_rt = return_type("topk", ("values", "indices"))
kthvalue_rt = return_type("kthvalue", ("values", "indices"))
median_rt = return_type("median", ("values", "indices"))
nanmedian_rt = return_type("nanmedian", ("values", "indices"))
mode_rt = return_type("mode", ("values", "indices"))
_TIE_NOTE = "among equal values the index may name another occurrence (unspecified in torch)"


def sort_last(x, d, descending=False):
    """Stable sort of a comparable tensor along ``d`` with NaNs as the largest value:
    (values, int64 indices)."""
    if has_nan(x):
        nan = ops.isnan(x)
        # least significant key first: NaN-ness, then the value with NaN read as +inf
        _, p1 = ops.sort(cast(nan, ms.uint8), d, descending)
        p1 = as_int64(p1)
        key = ops.gather_elements(ops.where(nan, const(math.inf, x.dtype), x), d, p1)
        _, p2 = ops.sort(key, d, descending)
        idx = ops.gather_elements(p1, d, as_int64(p2))
        return ops.gather_elements(x, d, idx), idx
    if x.dtype == ms.float64 and kernels.HOST_WORKAROUNDS:   # MindSpore's CPU Sort rounds float64
        return _sort_float64(x, d, descending)
    values, idx = ops.sort(x, d, descending)
    idx = as_int64(idx)
    return own_backward(values, *selection_backward(0, tuple(x.shape), d), idx), idx


def _sort_float64(x, d, descending):
    # MindSpore's CPU Sort rounds float64 to float32 (values and order: 0.1 sorts to 0.1 + 1.5e-9, and
    # values 1e-12 apart tie). A stable argsort on the host (zero-copy on CPU) and a gather of x keep
    # the values exact and differentiable; NaN is the largest value, as in torch.
    key = read_host(x)
    if descending:
        key = np.where(np.isnan(key), -np.inf, -key)
    idx = ms.Tensor(np.ascontiguousarray(np.argsort(key, axis=d, kind="stable")))
    return ops.gather_elements(x, d, idx), idx


def _empty_pair(x, shape):
    return empty_result(x, shape), ops.zeros(shape, ms.int64)


def _refuse_complex(kernel, x):
    """torch's NotImplementedError where its CPU kernel has no complex dtype, at the point torch dispatches
    it (complex128 too, which the generated NO_KERNEL table does not list)."""
    if x.dtype in (ms.complex64, ms.complex128):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{D.scalar_type_name(_FROM_MS[x.dtype])}'")


@register("sort", family=F, out="tuple")
def sort(input, dim=-1, descending=False, *args, stable=False):
    if args:
        raise invalid_args("sort", (input, dim, descending) + args, signatures=(
            "Tensor input, *, bool stable, int dim = -1, bool descending = False, tuple of Tensors out = None",
            "Tensor input, int dim = -1, bool descending = False, *, tuple of Tensors out = None"))
    d = wrap_dim(dim, input.ndim)
    if input.dtype in (ms.complex64, ms.complex128):   # (torch's refusal, after the dim's check)
        raise RuntimeError(" Sort does not support complex dtypes on CPU")
    if input.ndim == 0:
        return sort_rt(input.copy(), ops.zeros((), ms.int64))
    if input.size == 0:
        return sort_rt(*_empty_pair(input, input.shape))
    x, dt = comparable(input)
    values, idx = sort_last(x, d, descending)
    return sort_rt(_back(values, dt), idx)


@register("argsort", family=F)
def argsort(input, dim=-1, descending=False, *, stable=False):
    return sort(input, dim, descending).indices


@register("msort", family=F, out="exact")
def msort(input):
    return sort(input, 0).values


@register("topk", family=F, out="tuple", note="sorted=False returns the k values sorted; " + _TIE_NOTE)
def topk(input, k, dim=-1, largest=True, sorted=True):
    d = wrap_dim(dim, input.ndim)
    n = input.shape[d] if input.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    if input.dtype == ms.bool_ or input.dtype in (ms.complex64, ms.complex128):   # (after dim and k, as torch)
        raise RuntimeError("topk does not support bool dtypes on CPU" if input.dtype == ms.bool_ else
                           " topk does not support complex dtypes on CPU")
    if input.ndim == 0:   # (torch returns the value itself, whether k is 0 or 1)
        return topk_rt(input.copy(), ops.zeros((), ms.int64))
    if k == 0 or input.size == 0:
        shape = list(input.shape)
        shape[d] = k
        return topk_rt(*_empty_pair(input, tuple(shape)))
    x, dt = comparable(input)
    if largest and not has_nan(x):
        values, idx = ops.topk(x, k, d, True, True)
        return topk_rt(_back(values, dt), as_int64(idx))
    # smallest-k and NaN-aware largest-k through the full sort (MindSpore's TopK negates, skips NaN)
    values, idx = sort_last(x, d, largest)
    return topk_rt(_back(ops.narrow(values, d, 0, k), dt), ops.narrow(idx, d, 0, k))


def _select(values, idx, d, pos, keepdim, rt, dt):
    v, i = ops.narrow(values, d, pos, 1), ops.narrow(idx, d, pos, 1)
    if not keepdim:
        v, i = v.squeeze(d), i.squeeze(d)
    return rt(_back(v, dt), i)


@register("kthvalue", family=F, out="tuple", note=_TIE_NOTE)
def kthvalue(input, k, dim=-1, keepdim=False):
    d = wrap_dim(dim, input.ndim)
    n = input.shape[d] if input.ndim else 1
    if n == 0:   # (torch's reduction-dim check comes first)
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if input.ndim == 0:
        return kthvalue_rt(input.copy(), ops.zeros((), ms.int64))
    _refuse_complex("kthvalue_cpu", input)
    if input.size == 0:   # (MindSpore's slicing backward fails on an empty selection)
        shape = list(input.shape)
        shape[d] = 1
        if not keepdim:
            del shape[d]
        return kthvalue_rt(*_empty_pair(input, tuple(shape)))
    x, dt = comparable(input)
    values, idx = sort_last(x, d, False)
    return _select(values, idx, d, k - 1, keepdim, kthvalue_rt, dt)


# --- medians ------------------------------------------------------------------------------------

def _even_share(x, value, nan_value):
    """``value`` whose gradient is shared evenly by the elements equal to it, as torch's full
    median/nanmedian backward (evenly_distribute_backward)."""
    mask = ops.isnan(x) if nan_value else ops.equal(x, ops.stop_gradient(value))
    picked = ops.sum(ops.where(mask, x, const(0, x.dtype)))
    count = ops.sum(cast(mask, x.dtype))
    return ops.stop_gradient(value) + (picked - ops.stop_gradient(picked)) / count


_NAN_AS_INT = {ms.int64: -2 ** 63, ms.int32: -2 ** 31, ms.bool_: True}


def _make_nan_complex(input):
    part = ms.float64 if input.dtype == ms.complex128 else ms.float32
    return ops.complex_of_parts(ops.full((), math.nan, dtype=part), ops.zeros((), part))


def _median_full(input, ignore_nan):
    if input.size == 0:   # NaN, converted to the dtype as x86 does (int32/int64 read it as their minimum)
        # (before torch's dtype dispatch: bool gives True, complex NaN + 0j)
        if input.dtype in (ms.complex64, ms.complex128):
            return _make_nan_complex(input)
        return empty_result(input, (), math.nan if _FROM_MS[input.dtype]._cat >= D._FLOAT else
                            _NAN_AS_INT.get(input.dtype, 0))
    _median_no_kernel(input, "median_cpu")
    x, dt = comparable(input.reshape(-1))
    n, nan_value = x.shape[0], False
    if not kernels.HOST_WORKAROUNDS:
        value = _median_full_kernels(x, n, ignore_nan)
    elif has_nan(x):
        valid = n - int(read_host(cast(ops.isnan(x), ms.int32).sum()))
        if not ignore_nan or valid == 0:
            value, nan_value = nan_scalar(x.dtype), True
        else:
            value = sort_last(x, 0)[0][(valid - 1) // 2]
    else:
        value = sort_last(x, 0)[0][(n - 1) // 2]
    if needs_grad(x) and kernels.HOST_WORKAROUNDS:
        value = _even_share(x, value, nan_value)
    return _back(value, dt)


def _median_full_kernels(x, n, ignore_nan):
    """The device path of the full median: the NaN count stays on the device (no host read); the value is
    read from the sorted values (NaN last) at a position computed by kernels, with torch's gradient shared
    evenly by the elements equal to it (by the NaNs when it is NaN)."""
    nan = ops.isnan(x)
    count = ops.sum(cast(nan, ms.int64))
    ordered = sort_last(x, 0)[0]
    if ignore_nan:
        pos = ops.floor_divide(ops.maximum(ops.sub(const(n - 1, ms.int64), count), const(0, ms.int64)), 2)
        is_nan = ops.equal(count, const(n, ms.int64))
    else:
        pos = const((n - 1) // 2, ms.int64)
        is_nan = ops.greater(count, const(0, ms.int64))
    value = ops.where(is_nan, const(math.nan, x.dtype), ops.gather(ordered, pos.reshape(1), 0).reshape(()))
    if not needs_grad(x):
        return value
    mask = ops.where(is_nan, nan, ops.equal(x, ops.stop_gradient(value)))
    picked = ops.sum(ops.where(mask, x, const(0, x.dtype)))
    share = ops.sum(cast(mask, x.dtype))
    return ops.stop_gradient(value) + (picked - ops.stop_gradient(picked)) / share


def _median_no_kernel(input, kernel):
    if input.dtype == ms.bool_ or input.dtype in (ms.complex64, ms.complex128):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{D.scalar_type_name(_FROM_MS[input.dtype])}'")


def _median_dim(input, dim, keepdim, ignore_nan, rt, name):
    d = wrap_dim(dim, input.ndim)
    if input.ndim == 0:
        _median_no_kernel(input, "median_out")
        return rt(input.copy(), ops.zeros((), ms.int64))
    _check_nonempty_dims("median", input, (d,))   # torch's nanmedian reports itself as median()
    _median_no_kernel(input, "median_out")   # (torch's dim= kernel, also for an empty result)
    if input.size == 0:
        return rt(*_empty_pair(input, _out_shape(input.shape, (d,), keepdim)))
    x, dt = comparable(input)
    n = x.shape[d]
    if not has_nan(x):
        _, order = sort_last(x, d)
        idx = as_int64(ops.narrow(order, d, (n - 1) // 2, 1))
    elif ignore_nan:
        _, order = sort_last(x, d)
        valid = ops.sum(cast(ops.logical_not(ops.isnan(x)), ms.int64), d, True)
        pos = ops.maximum(valid - 1, const(0, ms.int64)) // 2
        idx = ops.gather_elements(order, d, pos)
    else:      # a row holding NaN has median NaN, at its first NaN
        nan = ops.isnan(x)
        _, order = sort_last(x, d)
        idx = as_int64(ops.narrow(order, d, (n - 1) // 2, 1))
        idx = ops.where(ops.any(nan, d, True), as_int64(ops.argmax(nan, d, True)), idx)
    values = ops.gather_elements(x, d, idx)
    if not keepdim:
        values, idx = values.squeeze(d), idx.squeeze(d)
    return rt(_back(values, dt), idx)


@register("median", family=F, out="tuple", out_requires="dim", note=_TIE_NOTE)
def median(input, dim=None, keepdim=False):
    if dim is None:
        return _median_full(input, False)
    return _median_dim(input, dim, keepdim, False, median_rt, "median")


@register("nanmedian", family=F, out="tuple", out_requires="dim", note=_TIE_NOTE)
def nanmedian(input, dim=None, keepdim=False):
    if dim is None:
        return _median_full(input, True)
    return _median_dim(input, dim, keepdim, True, nanmedian_rt, "nanmedian")


@register("mode", family=F, out="tuple")
def mode(input, dim=-1, keepdim=False):
    d = wrap_dim(dim, input.ndim)
    if input.ndim == 0:
        return mode_rt(input.copy(), ops.zeros((), ms.int64))
    _check_nonempty_dims("mode", input, (d,))
    if input.size == 0:   # (before torch's dtype dispatch: an empty complex input too)
        return mode_rt(*_empty_pair(input, _out_shape(input.shape, (d,), keepdim)))
    _refuse_complex("mode_cpu", input)
    x, dt = comparable(input)
    s, order = sort_last(x, d)
    n = x.shape[d]
    # length of the run of equal sorted values ending at each position; the first position holding
    # the longest run ends the run of the smallest most frequent value, at its last occurrence
    if n == 1:
        idx = order
    else:
        starts = ops.not_equal(ops.narrow(s, d, 1, n - 1), ops.narrow(s, d, 0, n - 1))
        first_shape = list(s.shape)
        first_shape[d] = 1
        starts = ops.cat((ops.ones(tuple(first_shape), ms.bool_), starts), d)
        shape = [1] * x.ndim
        shape[d] = n
        pos = ops.arange(n, dtype=ms.int64).reshape(shape)
        run_start = ops.cummax(ops.where(starts, pos, const(0, ms.int64)), d)[0]
        best = as_int64(ops.argmax(pos - run_start, d, True))
        idx = ops.gather_elements(order, d, best)
    values = ops.gather_elements(x, d, idx)
    if not keepdim:
        values, idx = values.squeeze(d), idx.squeeze(d)
    return mode_rt(_back(values, dt), idx)


# --- quantiles ----------------------------------------------------------------------------------

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(name, input, q, dim, keepdim, interpolation, ignore_nan):
    name = "quantile"   # torch's nanquantile reports itself as quantile()
    if input.dtype not in (ms.float32, ms.float64):
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if input.size == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, midpoint or "
                           f"nearest, but got {interpolation}")
    if isinstance(q, MsTensor):
        if q.ndim > 1:
            raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
        if q.dtype != input.dtype:
            raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
        qn = read_host(q)
        if not ((qn >= 0) & (qn <= 1)).all():
            raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
        scalar_q, qt = q.ndim == 0, q.reshape(-1)
    else:
        if not 0 <= q <= 1:
            raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {q}")
        scalar_q, qt = True, ms.Tensor([q], input.dtype)
    if dim is None:
        x, d = input.reshape(-1), 0
        out_shape = (1,) * input.ndim if keepdim else ()
    else:
        d = wrap_dim(dim, input.ndim)
        x = input.reshape(1) if input.ndim == 0 else input
        out_shape = _out_shape(x.shape, (d,), keepdim) if input.ndim else ()
    x = ops.moveaxis(x, d, -1)
    s, _ = sort_last(x, -1)
    n = s.shape[-1]
    nan = ops.isnan(s)
    if ignore_nan:
        last = ops.sum(cast(ops.logical_not(nan), s.dtype), -1, True) - 1
    else:
        last = ops.full(s.shape[:-1] + (1,), n - 1, dtype=s.dtype)
    ranks = qt * last                                            # (..., Q)
    if ignore_nan:       # an all-NaN row reads its first (NaN) element
        ranks = ops.where(last < 0, const(0, s.dtype), ranks)
    else:                # a row holding NaN reads its last (NaN) element
        ranks = ops.where(ops.any(nan, -1, True), last, ranks)
    if interpolation == "lower":
        ranks = ops.floor(ranks)
    elif interpolation == "higher":
        ranks = ops.ceil(ranks)
    elif interpolation == "nearest":
        ranks = ops.round(ranks)                                 # half to even, as torch
    floor = ops.floor(ranks)
    below = as_int64(floor)
    lo = ops.gather_elements(s, s.ndim - 1, below)
    if interpolation in ("linear", "midpoint"):
        above = as_int64(ops.ceil(ranks))
        hi = ops.gather_elements(s, s.ndim - 1, above)
        w = ranks - floor
        if interpolation == "midpoint":
            w = ops.where(above > below, const(0.5, s.dtype), w)
        # torch.lerp's two-sided form, for the same rounding
        lo = ops.where(w < 0.5, lo + w * (hi - lo), hi - (hi - lo) * (1 - w))
    r = ops.moveaxis(lo, -1, 0)                                  # (Q, ...)
    r = r.reshape((r.shape[0],) + tuple(out_shape))
    return r[0] if scalar_q else r


@register("quantile", family=F, out="exact")
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


@register("nanquantile", family=F, out="exact")
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)


# --- unique, searchsorted -----------------------------------------------------------------------

def _unique_result(values, inverse, counts, return_inverse, return_counts):
    if return_inverse and return_counts:
        return values, inverse, counts
    if return_inverse:
        return values, inverse
    if return_counts:
        return values, counts
    return values


def _invert_order(order, inv_sorted):
    """inverse[order[i]] = inv_sorted[i]."""
    return ops.tensor_scatter_elements(ops.zeros(order.shape, ms.int64), order, inv_sorted, 0)


def _unique_consecutive(x, dim):
    """MindSpore's UniqueConsecutive (values, inverse, counts), without the empty group it puts first when
    the first element (or slice) holds a NaN (torch: each NaN a group of its own, none empty)."""
    values, inverse, counts = ops.unique_consecutive(x, True, True, dim)
    if int(read_host(counts[0])) == 0:
        values = ops.narrow(values, 0 if dim is None else dim, 1, values.shape[0 if dim is None else dim] - 1)
        counts = counts[1:]
        inverse = inverse - 1
    return values, inverse, counts


@register("unique", family=F, note="NaN elements get inverse indices in input order (torch: arbitrary)")
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    # torch's CPU kernel sorts whether or not ``sorted`` is set; its dtype dispatch comes before any check
    _refuse_complex("unique" if dim is None else "unique_dim", input)
    if dim is not None:
        return _unique_dim(input, _unique_axis(input, dim), return_inverse, return_counts)
    x, dt = comparable(input.reshape(-1))
    if x.size == 0:
        empty = ops.zeros((0,), ms.int64)
        return _unique_result(input.reshape(-1), ops.zeros(input.shape, ms.int64), empty,
                              return_inverse, return_counts)
    s, order = sort_last(x, 0)
    values, inv_sorted, counts = _unique_consecutive(s, None)
    inverse = _invert_order(order, as_int64(inv_sorted)).reshape(input.shape) if return_inverse else None
    return _unique_result(_back(values, dt), inverse, as_int64(counts), return_inverse, return_counts)


def _unique_axis(input, dim):
    """The dim of unique/unique_consecutive along a dim, with torch's checks (a 0-d input has none; an empty
    input must be empty along that dim only)."""
    if input.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = wrap_dim(dim, input.ndim)
    if input.size == 0:
        if input.shape[d] != 0:
            raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique cannot be "
                               "applied")
        if list(input.shape).count(0) > 1:
            raise RuntimeError("Number of zero sized dimensions is more than one, so unique cannot be applied ")
    return d


def _unique_dim(input, d, return_inverse, return_counts):
    if input.size == 0:
        empty = ops.zeros((0,), ms.int64)
        return _unique_result(input.copy(), empty, empty, return_inverse, return_counts)
    x, dt = comparable(ops.moveaxis(input, d, 0))
    n = x.shape[0]
    rows = x.reshape(n, -1)
    # lexicographic order of the slices: stable sorts from the last column to the first
    order = ops.arange(n, dtype=ms.int64)
    for c in range(rows.shape[1] - 1, -1, -1):
        key = ops.gather(rows[:, c], order, 0)
        _, o = sort_last(key, 0)
        order = ops.gather(order, o, 0)
    s = ops.gather(x, order, 0)
    values, inv_sorted, counts = _unique_consecutive(s, 0)
    inverse = _invert_order(order, as_int64(inv_sorted)) if return_inverse else None
    values = ops.moveaxis(_back(values, dt), 0, d)
    return _unique_result(values, inverse, as_int64(counts), return_inverse, return_counts)


@register("unique_consecutive", family=F)
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    _refuse_complex("unique" if dim is None else "unique_dim", input)
    if dim is not None:
        dim = _unique_axis(input, dim)
    x, dt = comparable(input)
    if x.size == 0:
        empty = ops.zeros((0,), ms.int64)
        return _unique_result(input.reshape(-1) if dim is None else input.copy(),
                              ops.zeros(input.shape if dim is None else (input.shape[dim],), ms.int64),
                              empty, return_inverse, return_counts)
    values, inverse, counts = _unique_consecutive(x.reshape(1) if x.ndim == 0 else x, dim)
    if x.ndim == 0:
        inverse = inverse.reshape(())
    return _unique_result(_back(values, dt), as_int64(inverse), as_int64(counts),
                          return_inverse, return_counts)


_SEARCH_WIDER = {ms.uint8: ms.int16, ms.uint16: ms.int32, ms.uint32: ms.int64, ms.float16: ms.float32}


_SEARCH_OUT = {}   # id of the call's first tensor -> out='s dtype, from the out= check before the call


def _search_out_check(args, out):
    # torch checks out='s dtype inside its other argument checks, after the shapes; the op reads it there
    if args and isinstance(args[0], Tensor):
        _SEARCH_OUT.clear()
        _SEARCH_OUT[id(args[0]._ms)] = out.dtype


def _search(boundaries, values, out_int32, right, sorter, first):
    out_dt = _SEARCH_OUT.pop(id(first), None)
    _SEARCH_OUT.clear()
    if not isinstance(values, MsTensor):
        values = ms.Tensor(values, result_type(values)._ms)
    if boundaries.ndim > 1 and (values.ndim != boundaries.ndim or values.shape[:-1] != boundaries.shape[:-1]):
        raise RuntimeError(
            f"torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
            f"boundaries tensor and input value tensor must match, but we got boundaries tensor "
            f"{list(boundaries.shape)} and input value tensor {list(values.shape)}")
    if out_dt is not None and out_dt is not (D.int32 if out_int32 else D.int64):
        raise RuntimeError(f"torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or "
                           f"Long(int64) depending on whether out_int32 flag is True, but we got output tensor's "
                           f"dtype {D.scalar_type_name(out_dt)} and out_int32 flag is {bool(out_int32)}")
    rt = result_type(boundaries, values)
    if values.size == 0:   # torch returns before its kernel looks at the dtype
        shape = (1,) if values.ndim == 0 else tuple(values.shape)
        return ops.zeros(shape, ms.int32 if out_int32 else ms.int64)
    if rt is D.bool_ or rt._cat == D._COMPLEX:
        raise NotImplementedError(f"\"searchsorted_out_cpu\" not implemented for '{D.scalar_type_name(rt)}'")
    b = boundaries if boundaries.dtype == rt._ms else cast(boundaries, rt._ms)
    v = values if values.dtype == rt._ms else cast(values, rt._ms)
    b, dt = comparable(b)
    v, _ = comparable(v)
    # MindSpore's CPU SearchSorted has no unsigned or float16 kernel (it fails with bad_function_call):
    # a wider type holds the same values in the same order
    wide = _SEARCH_WIDER.get(b.dtype)
    if wide is not None:
        b, v = cast(b, wide), cast(v, wide)
    scalar = v.ndim == 0
    if scalar:
        v = v.reshape(1)
    if sorter is not None:
        b = ops.gather_elements(b, -1, as_int64(sorter))
    # int64 then cast: an out_int32 call after an int64 one fails in MindSpore 2.10's cached kernel
    r = ops.searchsorted(b, v, right=right)
    if out_int32:
        r = cast(r, ms.int32)
    return r.reshape(()) if scalar else r


@register("searchsorted", family=F, namespace="torch", out="exact", out_check=_search_out_check)
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if side == "left" and right:
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of "
                               "left while right was True")
        right = side == "right"
    if sorted_sequence.ndim == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive dimension, but got "
                           "0 dimension")
    if sorter is not None:
        if sorter.dtype != ms.int64:
            raise RuntimeError(f"torch.searchsorted(): sorter must be a tensor of long dtype but got dtype "
                               f"{D.scalar_type_name(_FROM_MS[sorter.dtype])}")
        if tuple(sorter.shape) != tuple(sorted_sequence.shape):
            raise RuntimeError(f"torch.searchsorted(): boundary and sorter must have the same size, but got boundary "
                               f"tensor {list(sorted_sequence.shape)}and got sorter tensor {list(sorter.shape)}")
    return _search(sorted_sequence, input, out_int32, right, sorter, sorted_sequence)


@register("bucketize", family=F, namespace="torch", out="exact", out_requires="tensor_self",
          out_check=_search_out_check)   # (no out= for a number)
def bucketize(input, boundaries, *, out_int32=False, right=False):
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return _search(boundaries, input, out_int32, right, None, input)
