"""torch.nn.functional's class-index losses: cross_entropy and nll_loss.

They read the target on the host once, which validates it as torch does (IndexError for a class out of
range) and gives the ignore mask and per-row weights. Beyond the logits they use O(N + C) memory: the loss
picks x[i, t_i] with a gather, never a one-hot or identity matrix (that was ~9.4 GiB at a 50k vocabulary).
float32/half: a mean or sum without class weights (nor label smoothing, up to 4096 classes) runs
MindSpore's SparseSoftmaxCrossEntropyWithLogits (one kernel, gradient built in) on the rows not ignored;
other calls with up to 4096 classes run the fused dense-label SoftmaxCrossEntropyWithLogits on label rows
built on the host (as large as the logits). Everything else composes log_softmax as x - max - log(sum(exp))
(MindSpore's LogSoftmax kernel is up to 4e-6 off near 0, and NLLLoss ~1 ms on CPU, so neither is used).
"""
import numpy as np
import mindspore as ms
from mindspore import mint
from .._runtime import read_host
from . import _msops as ops
from . import _kernels as kernels
from mindspore.ops import operations as P

from .. import _dtype as D
from .. import _ms_private as _P
from ._helpers import dtype_of, promote, cast, records, wrap_size_dim
from ._registry import register
from .pointwise import _not_impl
from ..autograd._higher_order import record_own_backward
from .scatter_gather import gather_elements
from .activation import softmax_kernel, _log_softmax
from .nn_loss import F, _HALF, _f32, _c, _mode, _no_grad_weight, _sg, _tname, _upcast

_SPARSE_SCE = P.SparseSoftmaxCrossEntropyWithLogits()
_SCE = P.SoftmaxCrossEntropyWithLogits()
# up to this many classes, calls other than a plain mean/sum run the fused dense-label kernel, whose label
# rows are as large as the logits: 3-4 ops where the composed log_softmax (or the sparse kernel plus the
# smoothing terms) takes ~10, ~4x faster while dispatch dominates. Above it, memory stays O(N + C) beyond
# the logits.
_DENSE_LABELS_MAX = 4096
# the row maximum for log_softmax: ArgMaxWithValue was ~5x faster than amax / ReduceMax at 50k classes on CPU
_ROW_MAX = P.ArgMaxWithValue(axis=1, keep_dims=True)


def _check_class_target(input, target, weight, C):
    """torch's nll_loss_nd / nll_loss / nll_loss2d argument checks, in their order and words (the shape
    checks of nll_loss_nd come before the kernel's dtype check)."""
    if input.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
    if input.ndim != 1 and (not target.ndim or input.shape[0] != target.shape[0]):
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                         f"({target.shape[0] if target.ndim else 1}).")
    if target.dtype not in (ms.int64, ms.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_tname(target)}")
    if input.ndim <= 2:
        if target.ndim > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if input.ndim == 1 and target.ndim == 1 and target.shape[0] != 1:
            raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {target.shape[0]}")
    elif input.ndim == 4:
        if target.ndim != 3:
            raise RuntimeError("only batches of spatial targets supported (3D tensors) but got targets of "
                               f"dimension: {target.ndim}")
        if tuple(target.shape[1:]) != tuple(input.shape[2:]):
            raise RuntimeError(f"size mismatch (got input: {list(input.shape)} , target: {list(target.shape)}")
    else:
        if tuple(target.shape[1:]) != tuple(input.shape[2:]):
            want = [input.shape[0]] + list(input.shape[2:])
            raise RuntimeError(f"Expected target size {want}, got {list(target.shape)}")
        if input.size == 0 and target.size:
            # torch views these as 4-d for its 2-d kernel: an empty input as (N, C, 0, 0), the target as
            # (N, 1, -1), whose sizes then disagree
            n = input.shape[0]
            raise RuntimeError(f"size mismatch (got input: {[n, C, 0, 0]} , target: {[n, 1, target.size // n]}")
    if weight is not None and (weight.ndim != 1 or weight.size != C):
        raise RuntimeError(f"weight tensor should be defined either for all {C} classes or no classes but got "
                           f"weight tensor of shape: {list(weight.shape)}")


def _nll_kernel(input):
    # torch's nll_loss_nd views inputs of more than 2 dims as 4-d and runs its 2-d kernel on them
    return "nll_loss_out_frame" if input.ndim <= 2 else "nll_loss2d_forward_out_frame"


def _check_spatial_target(input, target):
    # torch's 2-d kernel reads a non-empty target as int64 only (its 1-d one takes uint8 too)
    if input.ndim > 2 and target.dtype == ms.uint8 and target.size:
        raise RuntimeError("expected scalar type Long but found Byte")


def _real_float_only(t, kernel):
    if dtype_of(t)._cat < D._FLOAT or t.dtype in (ms.complex64, ms.complex128):
        _not_impl(kernel, t)


def _check_weight_dtype(input, weight):
    """torch's class-index kernels read the weight as the input's scalar type (no promotion), empty batches too."""
    if weight is not None and weight.dtype != input.dtype:
        raise RuntimeError(f"expected scalar type {_tname(input)} but found {_tname(weight)}")


def _rows(input):
    """(N, C, d1, ...) -> (N*d1*..., C) rows, one per target element (C is dim 1, or 0 for 1-d input)."""
    if input.ndim == 1:
        return input.reshape(1, -1)
    if input.ndim == 2:
        return input
    return ops.moveaxis(input, 1, -1).reshape(-1, input.shape[1])


class _Targets:
    """The class-index target on the host: validated, with its ignore mask and per-row weights."""

    def __init__(self, target, C, ignore_index, weight):
        t = read_host(target).reshape(-1)
        if t.dtype != np.int64:
            t = t.astype(np.int64)
        self.index = t
        self.w = None if weight is None else read_host(weight).astype(np.float64)
        if 0 <= t.min() and t.max() < C and not (0 <= ignore_index < C and (t == ignore_index).any()):
            self.any_ignored = False        # the common case: every target valid, none ignored
            self.keep = None
        else:
            ignored = t == ignore_index
            bad = ~ignored & ((t < 0) | (t >= C))
            if bad.any():
                raise IndexError(f"Target {t[np.argmax(bad)]} is out of bounds.")
            self.any_ignored = bool(ignored.any())
            self.keep = ~ignored
            if self.any_ignored:
                self.index = np.where(ignored, 0, t)
        keep = 1.0 if self.keep is None else self.keep
        if self.w is None:
            self.row_w = self.keep.astype(np.float64) if self.any_ignored else None
            self.total = float(t.shape[0] if self.keep is None else self.keep.sum())
        else:
            self.row_w = np.where(keep, self.w[self.index], 0.0)
            self.total = float(self.row_w.sum())

    def label_rows(self, C, smoothing):
        """float32 label rows for the fused dense-label kernel: torch's class-index loss with weights and
        smoothing is -sum_c w_c ((1 - ls) [c == t] + ls / C) log p_c (ignored rows 0). The kernel's gradient
        (softmax - labels) assumes rows summing to 1, so the rows are normalized and the scale returned
        apart (None when every row already sums to 1). Built directly: N x C, never a C x C identity."""
        n = self.index.shape[0]
        L = np.zeros((n, C), np.float64)
        L[np.arange(n), self.index] = 1.0 - smoothing
        if smoothing:
            L += smoothing / C
        if self.w is None and not self.any_ignored:
            return ms.from_numpy(L.astype(np.float32)), None
        if self.w is not None:
            L *= self.w
        if self.any_ignored:
            L[~self.keep] = 0.0
        scale = L.sum(1)
        L /= np.where(scale == 0, 1.0, scale)[:, None]
        return ms.from_numpy(L.astype(np.float32)), ms.from_numpy(scale.astype(np.float32))


def _finish_rows(loss_rows, mode, tg, target_shape, total=None):
    """Reduce per-row losses as torch's nll_loss: 'mean' divides by the weight of the kept rows."""
    if mode == "none":
        return loss_rows.reshape(target_shape)
    if mode == "mean" and tg.w is None and not tg.any_ignored:
        return mint.mean(loss_rows)
    s = ops.sum(loss_rows)
    if mode == "sum":
        return s
    total = tg.total if total is None else total
    if total == 0:
        # torch: NaN (0 / 0) with a zero gradient (its backward skips every ignored row)
        return ops.add(ops.mul(s, _c(0, s)), _c(float("nan"), s))
    return ops.div(s, _c(total, s))


def _empty_loss(input, target_shape, mode):
    """Loss of an empty batch, still connected to ``input`` (torch's backward gives it a zero gradient)."""
    base = ops.mul(ops.sum(input), _c(0, input))
    if mode == "none":
        return ops.add(ops.zeros(tuple(target_shape), input.dtype), base)
    return ops.add(base, _c(float("nan"), input)) if mode == "mean" else base


def _no_class_loss(input, target, C, ignore_index, weight, mode):
    """Zero classes but a target: torch's kernel accepts it when every target is ignore_index (each row's
    loss 0, their 'mean' 0 / 0); any other target is out of bounds."""
    tg = _Targets(target, C, ignore_index, weight)
    rows = ops.add(ops.zeros((target.size,), input.dtype), ops.mul(ops.sum(input), _c(0, input)))
    return _finish_rows(rows, mode, tg, target.shape)


def _log_softmax_rows(x):
    s = ops.sub(x, _sg(_ROW_MAX(x)[1]))
    return ops.sub(s, ops.log(ops.sum(ops.exp(s), 1, True)))


def _log_softmax_class_rows(input):
    """log_softmax over the class dim as float32 rows. A half input's is torch's log_softmax of the half
    tensor itself (its last-dim kernel keeps each row's sum of exponentials and its log in the half type),
    rounded to it: float32 rounded once is up to an ulp off."""
    if input.dtype in _HALF:
        return cast(_rows(_log_softmax(input, 1 if input.ndim > 1 else 0)), _f32)
    return _log_softmax_rows(_rows(input))


def _picked(x, tg):
    """x[i, t_i] times the row's class weight (0 for an ignored row): a gather, O(N)."""
    idx = ms.from_numpy(np.ascontiguousarray(tg.index.reshape(-1, 1)))
    p = gather_elements(x, 1, idx).reshape(-1)
    if tg.row_w is not None:
        p = ops.mul(p, ms.from_numpy(tg.row_w.astype(dtype_of(x)._np)))
    if tg.any_ignored:   # (torch skips an ignored row: 0, even where it reads an infinite log-probability)
        p = ops.where(ms.from_numpy(tg.keep), p, _c(0, p))
    return p


def _class_rows(logp, tg, smoothing, weight, C):
    """torch's class-index cross-entropy per row: -(1 - ls) w_t logp_t - ls / C sum_c w_c logp_c, 0 where
    ignored (reduced afterwards by _finish_rows: torch divides both terms by the same weight total)."""
    rows = ops.neg(_picked(logp, tg))
    if not smoothing:
        return rows
    smooth = ops.sum(logp if weight is None else ops.mul(logp, cast(weight, logp.dtype)), 1)
    if tg.any_ignored:   # (torch's masked_fill: an infinite sum of an ignored row is 0 too)
        smooth = ops.where(ms.from_numpy(tg.keep), smooth, _c(0, smooth))
    return ops.sub(ops.mul(rows, _c(1.0 - smoothing, rows)), ops.mul(smooth, _c(smoothing / C, smooth)))


def _smoothed_half(logp, tg, smoothing, weight, C, mode, target_shape, dt):
    """torch's label-smoothed class-index loss of a half input (float16 / bfloat16), op by op as its
    composite runs it, each result rounded to ``dt`` (a sum of log-probabilities can overflow it):
    (1 - ls) nll_loss(logp) + ls / C reduce(-(logp [* w]).sum(1), ignored rows 0) (``logp``: float32 rows of
    the half log-probabilities)."""
    def h(t):
        return cast(cast(t, dt), _f32)
    nll = h(_finish_rows(ops.neg(_picked(logp, tg)), mode, tg, target_shape))
    w = None if weight is None else cast(weight, _f32)
    smooth = h(ops.neg(ops.sum(logp if w is None else h(ops.mul(logp, w)), 1)))
    if tg.any_ignored:
        smooth = ops.where(ms.from_numpy(tg.keep), smooth, _c(0, smooth))
    if mode == "none":
        ret = smooth.reshape(target_shape)
    else:
        ret = h(ops.sum(smooth))
        if mode == "mean":
            # torch divides by the number of rows kept, or by the sum of their class weights (both in dt)
            if w is None:
                total = ms.Tensor(float(tg.index.shape[0] if tg.keep is None else tg.keep.sum()), _f32)
            else:
                total = ops.sum(ms.from_numpy(tg.row_w.astype(np.float32)))
            ret = h(ops.div(ret, h(total)))
    return ops.add(h(ops.mul(nll, _c(1.0 - smoothing, nll))), h(ops.mul(ret, _c(smoothing / C, ret))))


def _ignored_nan_softmax(x, tg):
    """Whether an ignored row of ``x`` (on the graph) has a NaN softmax (a NaN, +inf, or only -inf): torch's
    log_softmax backward then sends NaN (its softmax times a zero gradient) to that row, which the fused
    sparse kernel, run on the rows kept, cannot give (a host look at the ignored rows)."""
    if not tg.any_ignored or not _P.requires_grad(x):
        return False
    h = read_host(x)[~tg.keep]
    if np.isfinite(h).all():   # (the common case: one pass)
        return False
    return bool((np.isnan(h).any(1) | np.isposinf(h).any(1) | np.isneginf(h).all(1)).any())


def _sparse_softmax_ce(x, tg, mode, smoothing, C):
    """Mean (or sum) of the unweighted class-index loss over the rows not ignored, by MindSpore's fused
    SparseSoftmaxCrossEntropyWithLogits (float32; ignored rows get no gradient, as in torch).

    Label smoothing per row is (1 - ls)(lse - x_t) + ls / C (C lse - sum_c x_c) = (lse - x_t) + ls x_t -
    ls / C sum_c x_c: the fused kernel's value plus two O(N) terms, instead of a composed log_softmax
    (~5x slower at 50k classes)."""
    idx = tg.index
    if tg.any_ignored:
        kept = np.flatnonzero(tg.keep)
        x, idx = ops.gather(x, ms.from_numpy(kept), 0), idx[kept]
    idx = ms.from_numpy(np.ascontiguousarray(idx))
    out = _SPARSE_SCE(x, idx)
    if _P.requires_grad(out):
        record_own_backward(out, _sparse_sce_backward, x, idx)
        if not smoothing and mode != "sum":
            # the kernel's node keeps its output: hand out a product instead, so that an in-place op on the
            # loss (transformers' Trainer: ``loss *= scale``) does not trip the saved-tensor version check,
            # which torch's nll_loss node, keeping no output, never does
            out = ops.mul(out, _c(1.0, out))
    if smoothing:
        picked = ops.mean(ops.gather_elements(x, 1, idx.reshape(-1, 1)))
        total = ops.mean(ops.sum(x, 1))
        out = ops.sub(ops.add(out, ops.mul(picked, _c(smoothing, out))), ops.mul(total, _c(smoothing / C, out)))
    return ops.mul(out, _c(float(idx.shape[0]), out)) if mode == "sum" else out


@register("cross_entropy", family=F, namespace="nn.functional")
def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    mode = _mode(reduction, size_average, reduce)
    C = input.shape[1] if input.ndim > 1 else input.shape[0] if input.ndim else 0
    if tuple(input.shape) == tuple(target.shape):   # (torch: the class-probability path, 0-d included)
        return _cross_entropy_prob(input, target, weight, mode, ignore_index, label_smoothing, C)
    if label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing:g}")
    if input.ndim == 0:   # (torch's log_softmax over the class dim 1 of a 0-d input)
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    # torch takes log_softmax (its dtype check: real floats only) before nll_loss checks the target; an
    # empty log_softmax returns before its kernel, and the dtype is then nll_loss's to refuse
    if input.size:
        _real_float_only(input, "log_softmax_lastdim_kernel_impl" if input.ndim <= 2 else "log_softmax_kernel_impl")
    _check_class_target(input, target, weight, C)
    _real_float_only(input, _nll_kernel(input))
    _check_spatial_target(input, target)
    _no_grad_weight(weight, "nll_loss_forward" if input.ndim <= 2 else "nll_loss2d_forward")
    _check_weight_dtype(input, weight)
    if target.size == 0:
        return _empty_loss(input, target.shape, mode)
    if input.size == 0:
        return _no_class_loss(input, target, C, ignore_index, weight, mode)
    ls = max(float(label_smoothing), 0.0)
    if not kernels.HOST_WORKAROUNDS:
        out = _class_loss_kernels(_log_softmax_class_rows(input), target, C, ignore_index, weight, ls, mode)
        return cast(out, input.dtype) if input.dtype in _HALF else out
    tg = _Targets(target, C, ignore_index, weight)
    if input.dtype in _HALF:
        logp = _log_softmax_class_rows(input)
        if ls:
            return cast(_smoothed_half(logp, tg, ls, weight, C, mode, target.shape, input.dtype), input.dtype)
        return cast(_finish_rows(_class_rows(logp, tg, 0.0, weight, C), mode, tg, target.shape), input.dtype)
    x = _rows(input)
    small = C <= _DENSE_LABELS_MAX
    out = None
    if x.dtype is _f32 and weight is None and mode != "none" and tg.total and not (ls and small) \
            and not _ignored_nan_softmax(x, tg):
        out = _sparse_softmax_ce(x, tg, mode, ls, C)
    elif x.dtype is _f32 and small:
        labels, scale = tg.label_rows(C, ls)
        rows, backprop = _SCE(x, labels)
        if _P.requires_grad(rows):
            record_own_backward(rows, _sce_backward, _P.detach(backprop), labels)
        out = _finish_rows(rows if scale is None else ops.mul(rows, scale), mode, tg, target.shape)
    if out is not None and not bool(read_host(ops.isfinite(out).all())):
        # an infinite logit: torch's log_softmax subtracts the row maximum (inf - inf = NaN), where the fused
        # kernels give inf; the composition is torch's there (checked on the result, a few values)
        out = None
    if out is None:
        out = _finish_rows(_class_rows(_log_softmax_rows(x), tg, ls, weight, C), mode, tg, target.shape)
    return cast(out, input.dtype) if input.dtype in _HALF else out


def _sce_backward(node, grad_outputs, backprop, labels):
    # for double backward (MindSpore's formula hands back its saved softmax - labels as a constant): torch's
    # gradient g (softmax(x) - labels), with softmax(x) recomputed from log softmax(x) = log(backprop +
    # labels) attached to x's graph (softmax is shift-invariant, so its Jacobian there is the one at x)
    g = grad_outputs[0]
    if g is None:
        return (None,)
    child, nr = node.next_functions[0]
    z = ops.log(ops.add(backprop, labels))
    if child is not None:
        z = _P.reattach(z, child, nr)
    return (ops.mul(ops.expand_dims(g, 1), ops.sub(softmax_kernel(z, 1), labels)),)


def _sparse_sce_backward(node, grad_outputs, x, idx):
    # for double backward (MindSpore's fused kernel hands back a saved gradient as a constant): torch's
    # gradient of the mean over rows, g (softmax(x) - onehot(t)) / N, in recorded ops on x's graph
    g = grad_outputs[0]
    if g is None:
        return (None, None)
    n, C = x.shape
    onehot = np.zeros((n, C), np.float32)
    onehot[np.arange(n), read_host(idx)] = 1.0
    grad = ops.sub(softmax_kernel(x, 1), ms.from_numpy(onehot))
    return (ops.mul(grad, ops.div(g, float(n))), None)


def _cross_entropy_prob(input, target, weight, mode, ignore_index, smoothing, C):
    if dtype_of(target)._cat < D._FLOAT or target.dtype in (ms.complex64, ms.complex128):
        raise RuntimeError(f"Expected floating point type for target with class probabilities, got {_tname(target)}")
    if ignore_index >= 0:
        raise RuntimeError("ignore_index is not supported for floating point target")
    if input.ndim == 0:
        wrap_size_dim(1, 0)   # torch reads the class dim's size: its IndexError
    if weight is not None and (weight.ndim != 1 or weight.size != C):
        raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all {C} classes or no "
                           f"classes but got weight tensor of shape: {list(weight.shape)}")
    if smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {smoothing:g}")
    # (torch's log_softmax of the input itself: its dtype, not the one promoted with the target)
    # (an empty one, of any dtype, returns before the kernel, whose dtype check refuses complex too)
    if input.size:
        _real_float_only(input, "log_softmax_lastdim_kernel_impl" if input.ndim <= 2 else "log_softmax_kernel_impl")
    x, t, _ = promote(input, target)
    if smoothing > 0:
        # (C = 0: an empty input; torch's C++ ls / C is inf there)
        t = ops.add(ops.mul(t, _c(1 - smoothing, t)), _c(smoothing / C if C else float("inf"), t))
    if weight is not None:   # (torch multiplies by the weight in their promoted dtype: bfloat16 by float32 is float32)
        t, w, _ = promote(t, weight)
        t = ops.mul(t, w.reshape((C,) + (1,) * (t.ndim - 2)) if t.ndim > 1 else w)
    out_dt = promote(x, t)[2]._ms
    lead = (x.shape[0],) + tuple(x.shape[2:]) if x.ndim > 1 else ()
    if input.size == 0:
        if input.dtype in (ms.complex64, ms.complex128) and _P.requires_grad(input) and records():
            raise RuntimeError("_log_softmax does not support automatic differentiation for outputs with complex dtype.")
        out = _empty_loss(x if x.dtype == out_dt else cast(x, out_dt), lead, mode)
        # (torch's -(logp * t).sum(class_dim), its mean filled with NaN before the negation: -0 and -NaN)
        return ops.neg(out)
    # composed, not the fused kernel: its gradient assumes rows of t that sum to 1 and ignores t
    tr = _upcast(_rows(t))
    # (torch's log_softmax of the input itself, a half one rounded to its type before the product)
    logp = _log_softmax_class_rows(input) if input.dtype in _HALF else _log_softmax_rows(_rows(x))
    logp = logp if logp.dtype == tr.dtype else cast(logp, tr.dtype)
    rows = ops.neg(ops.sum(ops.mul(logp, tr), 1))
    if mode == "none":
        out = rows.reshape(lead)
    else:
        out = ops.mean(rows) if mode == "mean" else ops.sum(rows)
    return out if out.dtype == out_dt else cast(out, out_dt)


@register("nll_loss", family=F, namespace="nn.functional")
def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    mode = _mode(reduction, size_average, reduce)
    C = input.shape[1] if input.ndim > 1 else input.shape[0] if input.ndim else 0
    _check_class_target(input, target, weight, C)
    _real_float_only(input, _nll_kernel(input))
    _check_spatial_target(input, target)
    _no_grad_weight(weight, "nll_loss_forward" if input.ndim <= 2 else "nll_loss2d_forward")
    _check_weight_dtype(input, weight)
    if target.size == 0:
        return _empty_loss(input, target.shape, mode)
    if input.size == 0:
        return _no_class_loss(input, target, C, ignore_index, weight, mode)
    if kernels.HOST_WORKAROUNDS:
        tg = _Targets(target, C, ignore_index, weight)
        out = _finish_rows(ops.neg(_picked(_rows(_upcast(input)), tg)), mode, tg, target.shape)
    else:
        out = _class_loss_kernels(_rows(_upcast(input)), target, C, ignore_index, weight, 0.0, mode)
    return cast(out, input.dtype) if input.dtype in _HALF else out


def _class_loss_kernels(logp, target, C, ignore_index, weight, smoothing, mode):
    """The device path of nll_loss / class-index cross_entropy: kernels only, no look at the targets on
    the host. ``logp``: (rows, C) log-probabilities. As torch's CUDA kernels, a target out of range is not
    reported (its row reads class 0) unless ``MSTORCH_CHECK_INDICES=1``; the loss is torch's: rows
    weighted by w[t] (0 where ignored), 'mean' divides by the weights' sum (NaN when it is 0)."""
    t = target.reshape(-1)
    t = t if t.dtype == ms.int64 else cast(t, ms.int64)
    if kernels.CHECK_INDICES:
        _Targets(target, C, ignore_index, None)   # raises torch's IndexError for a target out of range
    keep = ops.not_equal(t, _c(ignore_index, t))
    idx = ops.where(keep, t, _c(0, t))
    row_w = cast(keep, logp.dtype)
    if weight is not None:
        row_w = ops.mul(row_w, ops.gather(cast(weight, logp.dtype), idx, 0))
    rows = ops.neg(ops.mul(gather_elements(logp, 1, idx.reshape(-1, 1)).reshape(-1), row_w))
    if smoothing:
        smooth = ops.sum(logp if weight is None else ops.mul(logp, cast(weight, logp.dtype)), 1)
        smooth = ops.mul(smooth, cast(keep, logp.dtype))
        rows = ops.sub(ops.mul(rows, _c(1.0 - smoothing, rows)), ops.mul(smooth, _c(smoothing / C, smooth)))
    if mode == "none":
        return rows.reshape(target.shape)
    s = ops.sum(rows)
    if mode == "sum":
        return s
    total = ops.sum(row_w)
    none = ops.equal(total, _c(0, total))
    # every row ignored: NaN (0 / 0) with a zero gradient, as torch's
    return ops.where(none, _c(float("nan"), s), ops.div(s, ops.where(none, _c(1, total), total)))
