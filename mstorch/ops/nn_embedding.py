"""torch.nn.functional.embedding, embedding_bag and one_hot.

A lookup is one ``gather`` of weight rows (its gradient is the dense scatter-add torch computes for
``sparse=False``). MindSpore's Gather wraps negative indices, so indices are range-checked on the host
first (torch raises IndexError there). Gradient tweaks are exact in the forward value: padding_idx
positions take their rows through ``stop_gradient``; scale_grad_by_freq scales the gradient with
``sg(y) + (y - sg(y)) * s``, whose value is ``y`` bit for bit.
"""
import numpy as np
import mindspore as ms
from .._runtime import read_host
from . import _kernels as kernels
from . import _msops as ops

from .. import _dtype as D
from .._tensor import wrap
from .. import _ms_private as _P
from ..autograd.function import Function
from .._cast import cast
from ._registry import register

F = "nn.embedding"
_INDEX = (ms.int64, ms.int32)


def _legacy_name(t):
    from .._tensor import _LEGACY_TYPE_NAMES
    return _LEGACY_TYPE_NAMES[D._FROM_MS[t.dtype]]


def _type_name(t):
    """ATen's name of a CPU tensor's type: the legacy tensor type, or CPU<Name>Type where none exists."""
    d = D._FROM_MS[t.dtype]
    if d in (D.float32, D.float64, D.float16, D.uint8, D.int8, D.int16, D.int32, D.int64):
        return _legacy_name(t)
    return f"CPU{D.SCALAR_TYPE_NAMES[d]}Type"


def check_bag_weight(w):
    """torch's embedding_bag weight dtype check (MindSpore tensor ``w``)."""
    if w.dtype not in (ms.float16, ms.bfloat16, ms.float32, ms.float64):
        # (torch's checkScalarTypes names the legacy tensor type, or CPU<Name>Type where none exists)
        d = D._FROM_MS[w.dtype]
        name = f"CPU{D.SCALAR_TYPE_NAMES[d]}Type" if d.is_complex or d is D.bool_ else _legacy_name(w)
        raise RuntimeError("Expected tensor for argument #1 'weight' to have one of the following scalar types: "
                           f"Half, BFloat16, Float, Double; but got {name} instead (while checking arguments for "
                           "embedding_bag)")


def _check_indices(idx, fn):
    if idx.dtype not in _INDEX:
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {_legacy_name(idx)} instead (while checking arguments for {fn})")


def _host(idx):
    return read_host(idx) if idx.size else np.zeros(0, np.int64)


def _renorm_(weight, rows, max_norm, norm_type):
    """torch.embedding_renorm_ on the rows used: rows whose p-norm exceeds max_norm are scaled in place."""
    from ..autograd.grad_mode import no_grad
    rows = np.unique(rows)
    if rows.size == 0:
        return
    w = weight._ms
    sub = ops.gather(w, ms.Tensor(rows.astype(np.int64)), 0)
    vals = read_host(cast(sub, ms.float32)).astype(np.float64) if w.dtype == ms.bfloat16 else \
        read_host(sub).astype(np.float64)
    if norm_type == float("inf"):
        norms = np.abs(vals).max(1)
    elif norm_type == 0:
        norms = (vals != 0).sum(1).astype(np.float64)
    else:
        norms = (np.abs(vals) ** norm_type).sum(1) ** (1.0 / norm_type)
    big = norms > max_norm
    if not big.any():
        return
    scale = np.where(big, max_norm / (norms + 1e-7), 1.0)[:, None]
    new = ops.mul(sub, cast(ms.Tensor(scale.astype(np.float32)), w.dtype))
    updated = ops.tensor_scatter_update(w, ms.Tensor(rows[big].astype(np.int64)[:, None]),
                                        new[ms.Tensor(np.nonzero(big)[0].astype(np.int64))])
    with no_grad():
        weight._write(updated)


def _wrap_padding(padding_idx, n):
    if padding_idx is None:
        return None
    if padding_idx > 0 and padding_idx >= n or padding_idx < 0 and padding_idx < -n:
        raise AssertionError("Padding_idx must be within num_embeddings")
    return padding_idx + n if padding_idx < 0 else padding_idx


class Embedding(Function):
    """``y`` in value, ``s * dy`` in gradient (``s`` broadcasts over the embedding dim). A custom node, not
    ``y' + s (y - y')`` with ``y'`` detached, whose value is NaN where ``y`` is infinite; named after
    torch's node (grad_fn: EmbeddingBackward, torch's EmbeddingBackward0)."""

    @staticmethod
    def forward(ctx, y, s):
        ctx.s = s
        return wrap(y._ms.copy())

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.s, None


def _grad_scale(y, s):
    if not _P.requires_grad(y):
        return y
    return Embedding.apply(wrap(y), wrap(s))._ms


@register("embedding", family=F, namespace="nn.functional", raw=True)
def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    if sparse:
        raise NotImplementedError("torch.nn.functional.embedding(sparse=True) is not supported by mstorch: it "
                                  "cannot return sparse gradient tensors; use sparse=False")
    w, idx = weight._ms, input._ms
    if not w.ndim and (padding_idx or _P.requires_grad(w) and _P.grad_enabled()):
        # (torch's Python check reads weight.size(0) for a nonzero padding_idx first, and its autograd
        # wrapper reads it for a weight that takes a gradient)
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    n = w.shape[0] if w.ndim else 0
    padding_idx = _wrap_padding(padding_idx, n)
    if w.ndim != 2:   # (torch's kernel checks the weight before the indices)
        raise RuntimeError("'weight' must be 2-D")
    _check_indices(idx, "embedding")
    # the indices on the host: to check their range (torch's CPU kernel does, its CUDA kernel does not:
    # not on the device path unless MSTORCH_CHECK_INDICES=1), and for max_norm / scale_grad_by_freq
    host = _host(idx) if kernels.CHECK_INDICES or max_norm is not None or scale_grad_by_freq else None
    if host is not None and host.size and (host.min() < 0 or host.max() >= n):
        bad = host.reshape(-1)[np.flatnonzero((host.reshape(-1) < 0) | (host.reshape(-1) >= n))[0]]
        if n == 0:   # (torch's index_select of an empty weight: another path, other checks)
            raise RuntimeError("index_select(): self indexing axis dim should be positive")
        if w.size == 0:
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} axis_dim={n}")
        raise IndexError("index out of range in self")
    if max_norm is not None:
        _renorm_(weight, host.reshape(-1), max_norm, norm_type)
        w = weight._ms
    if idx.size == 0:
        # MindSpore's Gather backward fails on an empty index: zeros with a zero gradient to the weight
        return wrap(ops.zeros_on(tuple(idx.shape) + (w.shape[1],), w.dtype, (w,)))
    out = ops.gather(w, idx, 0)
    if scale_grad_by_freq:
        counts = np.bincount(host.reshape(-1), minlength=n)
        s = 1.0 / counts[host]
        if padding_idx is not None:
            s = np.where(host == padding_idx, 0.0, s)
        wide = np.float64 if out.dtype == ms.float64 else np.float32
        out = _grad_scale(out, cast(ms.Tensor(s[..., None].astype(wide)), out.dtype))
    elif padding_idx is not None and host is None:   # the device path: the padding rows masked by kernels
        mask = ops.equal(idx, padding_idx).expand_dims(-1)
        out = ops.select(mask.broadcast_to(out.shape), ops.stop_gradient(out), out)
    elif padding_idx is not None and (host == padding_idx).any():
        mask = ms.Tensor((host == padding_idx)[..., None])
        out = ops.select(mask.broadcast_to(out.shape), ops.stop_gradient(out), out)
    return wrap(out)


_MODES = {"sum": 0, "mean": 1, "max": 2}


@register("embedding_bag", family=F, namespace="nn.functional", raw=True)
def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    if weight.dtype is D.int64 and input.is_floating_point():
        import warnings
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, "
                      "input, ...)` is deprecated, and should now be `embedding_bag(input, weight, ...)`.",
                      stacklevel=3)
        weight, input = input, weight
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it "
                         f"must have the same shape as the input ({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    idx = input._ms
    psw = None if per_sample_weights is None else per_sample_weights._ms
    if idx.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             "fixed length sequences. However, found offsets of type "
                             "<class 'torch.Tensor'>")
        bags, length = idx.shape
        d = D._FROM_MS[idx.dtype]
        if d.is_complex or d is D.bool_:   # (torch's offsets: arange(0, numel, size(1)) in input's dtype)
            raise NotImplementedError(f"\"arange_cpu\" not implemented for '{D.SCALAR_TYPE_NAMES[d]}'")
        if length == 0:   # (torch's arange(0, numel, size(1)) for the offsets)
            raise RuntimeError("step must be nonzero")
        include_last_offset = False
        off = np.arange(0, bags * length, length, dtype=np.int64) if length else np.zeros(bags, np.int64)
        fixed = length
        idx = idx.reshape(-1)
        psw = None if psw is None else psw.reshape(-1)
    elif idx.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        off = _host(offsets._ms).astype(np.int64)
        fixed = None
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {idx.ndim}")
    if mode not in _MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max":
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    if sparse:
        raise NotImplementedError("torch.nn.functional.embedding_bag(sparse=True) is not supported by mstorch: "
                                  "it cannot return sparse gradient tensors; use sparse=False")
    w = weight._ms
    n = w.shape[0]
    host = _host(idx).reshape(-1)
    _check_indices(idx, "embedding_bag")
    check_bag_weight(w)
    if max_norm is not None:
        _renorm_(weight, host, max_norm, norm_type)
        w = weight._ms
    if psw is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for "
            f"mode='sum' (got mode='{mode}'). Please open a feature request on GitHub.")
    if padding_idx is not None:
        if not -n <= padding_idx < n:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, -{n} through {n - 1}, but "
                               f"got {padding_idx}")
        padding_idx = padding_idx + n if padding_idx < 0 else padding_idx
    total = host.size
    if off.size and off[0] != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                           f"position 0. However, got {int(off[0])}\n[ {_legacy_name(offsets._ms)}{{}} ]")
    if off.size and off[-1] > total:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {total} but got offsets[-1] of "
                           f"{int(off[-1])}")
    if psw is not None and psw.dtype != w.dtype:
        raise RuntimeError("Expected tensor for argument #1 'weight' to have the same type as tensor for argument "
                           f"#1 'per_sample_weights'; but type {_type_name(w)} does not equal {_type_name(psw)} "
                           "(while checking arguments for embedding_bag)")
    if include_last_offset and not off.size:
        raise RuntimeError("include_last_offset: number of offset should be at least 1")
    nbags = off.size - 1 if include_last_offset else off.size
    # torch's CPU kernel sums a bag over [offsets[i], offsets[i + 1]) only on its fast path (float32/half
    # sums without padding_idx, which refuses unsorted offsets); elsewhere, and for max, every position
    # goes to the bag its offset2bag map names: the number of bag offsets at or before it, minus one
    # (unsorted offsets included; with include_last_offset the last offset does not end the last bag).
    # The fast path also wants unit strides: the weight's rows, and the per-sample weights (a 2-D input's
    # come flattened, contiguous)
    ranges = mode != "max" and padding_idx is None and w.dtype in (ms.float32, ms.float16, ms.bfloat16) and \
        weight.stride(1) == 1 and (per_sample_weights is None or fixed is not None or per_sample_weights.stride(0) == 1)
    if not (ranges and mode == "sum") and ((off < 0).any() or (off > total).any()):
        # (torch's make_offset2bag index_add_s a one at each offset, into total + 1 places; its sum fast
        # path never builds it; for a mean it comes before the fast path's checks)
        raise IndexError("index out of range in self")
    if ranges and include_last_offset and off.size > 1 and off[-1] < off[-2]:
        raise RuntimeError("Your input appears to be incorrect: the last offset value should be the size of the "
                           "indices tensor, but it seems not to be the case.")
    flat = host.reshape(-1)
    read = np.ones(total, bool)
    if ranges and not np.any(np.diff(off) < 0):
        # (the fast path reads, and reports on, only the positions of its bags: none without bags, none
        # past the last offset with include_last_offset)
        read = np.arange(total) < (off[nbags] if include_last_offset else (total if nbags > 0 else 0))
    bad = np.nonzero(((flat < 0) | (flat >= n)) & read)[0]
    if bad.size:
        i = int(bad[0])
        if not ranges:   # (the generic kernel checks each index as it adds it; the fast path reports after)
            raise RuntimeError("embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be "
                               f"{int(flat[i])}")
        raise RuntimeError(f"Index {i} of input takes value {int(flat[i])} which is not in the valid range [0, {n})")
    if ranges and np.any(np.diff(off) < 0):
        raise RuntimeError("Expected i < index_size to be true, but got false.  (Could this error message be "
                           "improved?  If so, please report an enhancement request to PyTorch.)")
    dim = w.shape[1]
    if nbags <= 0:   # (no bags: an empty result, on the weight's graph as torch's)
        return wrap(ops.zeros_on((0, dim), w.dtype, (w,) if psw is None else (w, psw)))
    keep = np.ones(total, bool) if padding_idx is None else host != padding_idx
    if fixed is not None and keep.all() and fixed > 0 and mode != "max":
        rows = ops.gather(w, idx, 0)
        if scale_grad_by_freq:
            rows = _freq_scale(rows, host, host, n)
        if psw is not None:
            rows = ops.mul(rows, cast(psw, rows.dtype)[:, None])
        rows = rows.reshape(nbags, fixed, dim)
        if mode == "sum":
            return wrap(ops.sum(rows, 1))
        return wrap(ops.mean(rows, 1))
    offset2bag = np.searchsorted(np.sort(off[:nbags]), np.arange(total), side="right") - 1
    if ranges:
        ends = np.append(off[1:], total) if not include_last_offset else off[1:]
        bag = np.searchsorted(ends, np.arange(total), side="right")
    else:
        bag = offset2bag
    # the mean divides by the bag's offset span (the last bag's reaching the end of input), less the
    # padding positions offset2bag puts in it; a span of 0 or less leaves the sum
    span = np.append(off[1:nbags], total) - off[:nbags]
    if padding_idx is not None:
        span = span - np.bincount(offset2bag[host == padding_idx], minlength=nbags)[:nbags]
    trailing = None
    if ranges and include_last_offset and mode == "mean" and (bag >= nbags).any():
        # torch's float mean path never adds the values past the last offset (they count in the divisor,
        # span), but its backward hands them grad / bag_size: zero values that still pass the gradient
        trailing = bag >= nbags
        bag = np.minimum(bag, nbags - 1)
    keep &= (bag < nbags) & (flat >= 0) & (flat < n)     # (an index out of range here is one never read)
    pos = np.nonzero(keep)[0]
    counts = np.bincount(bag[pos], minlength=nbags)
    if pos.size == 0:   # (torch's result still has a gradient: zero, but for max's quirk below)
        out = _linked_zeros((nbags, dim), w, psw)
        return wrap(_max_grad_quirks(out, w, span, counts) if mode == "max" else out)
    sel = idx if pos.size == total else ops.gather(idx, ms.Tensor(pos.astype(np.int64)), 0)
    rows = ops.gather(w, sel, 0)
    if scale_grad_by_freq:
        rows = _freq_scale(rows, host[pos], host, n)
    if psw is not None:
        p = psw if pos.size == total else ops.gather(psw, ms.Tensor(pos.astype(np.int64)), 0)
        rows = ops.mul(rows, cast(p, rows.dtype)[:, None])
    if trailing is not None:   # (zero values that still pass the gradient)
        rows = ops.select(ms.Tensor(trailing[pos][:, None].copy()).broadcast_to(rows.shape),
                          ops.sub(rows, ops.stop_gradient(rows)), rows)
    seg = ms.Tensor(bag[pos].astype(np.int32))
    if mode == "max":
        return wrap(_max_grad_quirks(_bag_max(rows, seg, bag[pos], counts, nbags), w, span, counts))
    out = ops.unsorted_segment_sum(rows, seg, nbags)
    if mode == "mean":
        out = ops.div(out, cast(ms.Tensor(np.where(span > 0, span, 1).astype(np.float32)[:, None]), out.dtype))
        if (span < 0).any():
            # (unsorted offsets) torch's backward divides the gradient by any nonzero bag_size, a negative
            # one too, where the forward divided by max(bag_size, 1)
            ratio = np.where(span > 0, span, 1) / np.where(span != 0, span, 1)
            out = _grad_scale(out, cast(ms.Tensor(ratio.astype(np.float32)[:, None]), out.dtype))
    return wrap(out)


def _linked_zeros(shape, w, psw):
    """Zeros that are a function of ``w`` (and ``psw``) with a zero gradient, as torch's bags of padding only."""
    if not w.shape[0] or 0 in shape:
        return ops.zeros_on(shape, w.dtype, (w,) if psw is None else (w, psw))
    zeros = ops.zeros(shape, w.dtype)
    src = ops.broadcast_to(w[:1], shape)
    if psw is not None and psw.size:
        src = ops.add(src, ops.broadcast_to(cast(psw[:1], src.dtype).reshape(1, 1), shape))
    return ops.select(ms.Tensor(np.zeros(shape, bool)), src, zeros)


def _max_grad_quirks(out, w, bag_size, counts):
    """torch's max backward (CPU) hands each bag whose bag_size is nonzero its gradient at max_indices: with
    unsorted offsets, an empty bag can have a nonzero bag_size (its offset span), and its max_indices are 0,
    so its gradient goes to weight row 0 (the value stays 0); a non-empty bag of bag_size 0 passes none."""
    ghost, dead = (counts == 0) & (bag_size != 0), (counts > 0) & (bag_size == 0)
    if dead.any():
        mask = ms.Tensor(np.broadcast_to(dead[:, None], out.shape).copy())
        out = ops.select(mask, ops.stop_gradient(out), out)
    if ghost.any() and w.shape[0]:
        row0 = ops.broadcast_to(w[:1], out.shape)
        row0 = ops.select(ops.isfinite(row0), row0, ops.zeros_like(row0))   # (zero in value below)
        mask = ms.Tensor(np.broadcast_to(ghost[:, None], out.shape).copy())
        out = ops.select(mask, ops.sub(row0, ops.stop_gradient(row0)), out)
    return out


def _bag_max(rows, seg, bag_of_row, counts, nbags):
    """torch's max bags: per column, a running maximum that takes a row only when it is greater, so the first
    of equal maxima is picked (and gets the whole gradient), a leading NaN stays and a later NaN is skipped.
    The picked row is found on the device; the result gathers it, so the backward is a scatter to that row."""
    n_rows, dim = rows.shape
    nan = ops.ne(rows, rows)
    finite = ops.select(nan, ops.fill(rows.dtype, rows.shape, -float("inf")), rows)
    best = ops.unsorted_segment_max(finite, seg, nbags)
    hit = ops.logical_and(ops.equal(finite, ops.gather(best, seg, 0)), ops.logical_not(nan))
    order = ops.broadcast_to(ms.Tensor(np.arange(n_rows, dtype=np.int32)[:, None]), (n_rows, dim))
    first = ops.unsorted_segment_min(ops.select(hit, order, ops.fill(ms.int32, (n_rows, dim), n_rows)), seg, nbags)
    # a bag starting with NaN keeps it (torch's comparison with a NaN maximum is never true)
    starts = np.searchsorted(bag_of_row, np.arange(nbags)).clip(0, max(n_rows - 1, 0))
    lead_nan = ops.gather(nan, ms.Tensor(starts.astype(np.int32)), 0)
    first = ops.select(lead_nan, ops.broadcast_to(ms.Tensor(starts.astype(np.int32)[:, None]), (nbags, dim)), first)
    empty = ms.Tensor(np.broadcast_to((counts == 0)[:, None], (nbags, dim)).copy())
    first = ops.select(empty, ops.zeros_like(first), first)
    out = ops.gather_elements(rows, 0, ops.cast(first, ms.int64))
    if (counts == 0).any():
        out = ops.select(empty, ops.zeros_like(out), out)
    return out


def _freq_scale(rows, used, host, n):
    """scale_grad_by_freq for the ``rows`` of indices ``used`` (of all the indices, ``host``) as torch's CPU
    backward (_embedding_bag_dense_backward_cpu_sum_mean) scales it: it walks the distinct indices in sorted
    order and divides the gradient of the k-th by ``counts[sorted_indices[k]]``, the count of the k-th of
    *all* the sorted indices, not of the k-th distinct one (it indexes them with the group number). So once
    an index repeats, later indices take the count of a smaller one: for [2, 4, 4, 5], 5 is divided by
    count(4) = 2. Counts take every index, padding and positions outside any bag included."""
    counts = np.bincount(host, minlength=n)
    distinct = np.unique(host)
    per_index = np.zeros(n)
    per_index[distinct] = 1.0 / counts[np.sort(host)[:distinct.size]]
    wide = np.float64 if rows.dtype == ms.float64 else np.float32
    return _grad_scale(rows, cast(ms.Tensor(per_index[used][:, None].astype(wide)), rows.dtype))


@register("one_hot", family=F, namespace="nn.functional")
def one_hot(tensor, num_classes=-1):
    if tensor.dtype != ms.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    host = _host(tensor)
    if num_classes == -1:
        if host.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(host.max()) + 1
    if host.size:
        if host.min() < 0:
            raise RuntimeError("Class values must be non-negative.")
        if host.max() >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
        if num_classes > 2 ** 63 - 1:   # torch's max + 1 wraps to a negative int64 size
            raise RuntimeError("zeros: Dimension size must be non-negative.")
    elif num_classes < 0:
        raise RuntimeError("Class values must be smaller than num_classes.")
    classes = ms.Tensor(np.arange(num_classes, dtype=np.int64))
    return cast(ops.equal(tensor.reshape(tuple(tensor.shape) + (1,)), classes), ms.int64)
