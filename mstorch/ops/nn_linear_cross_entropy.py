"""torch.nn.functional.linear_cross_entropy (torch 2.13): cross_entropy(linear(input, linear_weight), target).

``options=None`` composes F.linear and F.cross_entropy, so values and gradients (double backward included)
are theirs. With a LinearCrossEntropyOptions the batch runs in chunks of ``batch_chunk_size`` rows, so the
full (N, C) logits never exist at once, as torch's chunked op: the scalar reductions compute the gradients
during the forward pass and their backward scales them by the incoming gradient (once, unless the options
allow retain_graph); ``reduction="none"`` recomputes them chunk by chunk in its backward. Like torch's, the
chunked path has no double backward. Half inputs accumulate in ``acc_dtype`` (float32 by default).
"""
import math
import warnings

from .. import _dtype as D
from .._runtime import CAPTURE
from ..autograd.function import Function
from ._registry import PUBLIC, register

F = "nn.linear_cross_entropy"
_CHUNKED_REDUCTIONS = ("mean", "sum", "none")


@register("linear_cross_entropy", family=F, namespace="nn.functional", raw=True)
def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None, reduction="mean",
                         ignore_index=None, label_smoothing=0.0, options=None):
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}")
    batch, in_features = tuple(input.shape[:-1]), input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions (in_features), "
                           f"got {in_features} and {linear_weight.shape[-1]}, respectively")
    num_classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(num_classes, *out_features)}, "
                           f"got {tuple(linear_bias.shape)}")
    if out_features and not batch:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} "
                           f"requires batched input, (N, {in_features}), got unbatched input with shape "
                           f"{tuple(input.shape)}")
    logits_shape = (*batch, num_classes, *out_features)
    # (as cross_entropy: a target shaped like the logits holds class probabilities)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    ignore_index = -100 if ignore_index is None else ignore_index
    if options is not None:
        chunkable = (not out_features and reduction in _CHUNKED_REDUCTIONS and label_smoothing == 0.0
                     and target.dtype == D.int64)
        if chunkable:
            return _chunked(input, linear_weight, target, linear_bias, weight, reduction, ignore_index, options)
        warnings.warn("linear_cross_entropy: ``options`` ignored; chunked path needs reduction in "
                      "{'mean','sum','none'}, label_smoothing == 0, target.dtype == int64, out_features == (). "
                      f"Got reduction={reduction!r}, label_smoothing={label_smoothing}, target.dtype={target.dtype}, "
                      f"out_features={out_features}, tracing=False, linear_bias.shape="
                      f"{tuple(linear_bias.shape) if linear_bias is not None else None}.", stacklevel=2)
    if out_features:   # one linear over the flattened classes, then the class dim back in place
        flat = math.prod(out_features, start=num_classes)
        linear_weight = linear_weight.reshape((flat, in_features))
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(flat)
    logits = PUBLIC["nn.functional.linear"](input, linear_weight, linear_bias).reshape(logits_shape)
    return PUBLIC["nn.functional.cross_entropy"](logits, target, weight=weight, reduction=reduction,
                                                 ignore_index=ignore_index, label_smoothing=label_smoothing)


def _chunked(input, linear_weight, target, linear_bias, weight, reduction, ignore_index, options):
    batched = input.dim() == 2
    if not batched:
        input, target = input.unsqueeze(0), target.unsqueeze(0)
    options = options._adjust(num_batches=input.shape[0], in_features=input.shape[1],
                              num_classes=linear_weight.shape[0], dtype=input.dtype, device=input.device)
    _check_acc_dtype(input.dtype, options.acc_dtype)
    if reduction == "none":
        out = _ChunkedNoReduction.apply(input, linear_weight, target, linear_bias, weight, ignore_index,
                                        options.batch_chunk_size, options.acc_dtype)
    else:
        retain = options.allow_retain_graph
        if not retain and CAPTURE[0]:
            warnings.warn("linear_cross_entropy: forcing allow_retain_graph=True under torch.compile (adds one "
                          "gradient-sized allocation/call). Construct options with allow_retain_graph=True to "
                          "silence.", stacklevel=3)
            retain = True
        out = _ChunkedReduced.apply(input, linear_weight, target, linear_bias, weight, reduction, ignore_index,
                                    options.batch_chunk_size, options.acc_dtype, retain)
    return out if batched else out.squeeze(0)


def _check_acc_dtype(dtype, acc_dtype):
    if dtype != acc_dtype and not (dtype in (D.float16, D.bfloat16) and acc_dtype == D.float32):
        raise RuntimeError("linear_cross_entropy supports float32 acc_dtype with float16/bfloat16 inputs, but got "
                           f"{acc_dtype} acc_dtype and {dtype} inputs.")


def _row_coefficients(target, weight, ignore_index, num_classes, acc_dtype, reduction, grad_output=None):
    """(target with ignored rows pointing at class 0, each row's factor on its loss): the class weight, 0 on
    ignored rows, divided by the total weight for "mean" (NaN when that is 0, as cross_entropy), times the
    incoming gradient in the backward of "none"."""
    ignored = target == ignore_index
    if not 0 <= ignore_index < num_classes:
        target = target.masked_fill(ignored, 0)
    if weight is None:
        coef = (~ignored).to(acc_dtype)
    else:
        coef = weight.to(acc_dtype).index_select(0, target).masked_fill(ignored, 0)
    if reduction == "mean":
        total = coef.sum()
        coef = coef / (total if bool(total != 0) else math.nan)
    if grad_output is not None:
        coef = coef * grad_output.to(acc_dtype)
    return target, coef


def _chunk_loop(input, linear_weight, target, linear_bias, coef, chunk, acc_dtype, per_row, needs):
    """One pass over the batch, ``chunk`` rows at a time. Returns the loss (per row when ``per_row``, else the
    coefficient-weighted sum) and the gradients ``needs`` asks for (input, linear_weight, linear_bias) of that
    weighted sum, each in the input's dtype."""
    dtype = input.dtype
    cast = dtype != acc_dtype
    w = linear_weight.to(acc_dtype) if cast else linear_weight
    b = None if linear_bias is None else linear_bias.to(acc_dtype)
    need_x, need_w, need_b = needs
    losses, grad_rows = [], []
    total = input.new_zeros((), dtype=acc_dtype)
    grad_w = w.new_zeros(w.shape) if need_w else None
    grad_b = w.new_zeros(w.shape[:1]) if need_b else None
    for start in range(0, input.shape[0], chunk):
        rows = input[start:start + chunk]
        x = rows.to(acc_dtype) if cast else rows
        t = target[start:start + chunk].unsqueeze(1)
        c = coef[start:start + chunk]
        z = x.matmul(w.t())
        if b is not None:
            z = z + b
        z = z - z.amax(1, keepdim=True)   # (softmax is shift-invariant; this keeps exp finite)
        e = z.exp()
        denom = e.sum(1)
        row_loss = denom.log() - z.gather(1, t).squeeze(1)
        if per_row:
            losses.append(row_loss * c)
        else:
            total = total + (row_loss * c).sum()
        if any(needs):
            # d loss / d logits = c (softmax - onehot(target)), row by row
            g = (e / denom.unsqueeze(1)) * c.unsqueeze(1)
            g = g.scatter_add(1, t, -c.unsqueeze(1))
            if need_x:
                grad_rows.append(g.matmul(w).to(dtype))
            if need_w:
                grad_w = grad_w + g.t().matmul(x)
            if need_b:
                grad_b = grad_b + g.sum(0)
    if per_row:
        loss = (PUBLIC["cat"](losses) if losses else input.new_zeros((0,), dtype=acc_dtype)).to(dtype)
    else:
        loss = total.to(dtype)
    grad_x = None
    if need_x:
        grad_x = PUBLIC["cat"](grad_rows) if grad_rows else input.new_zeros(input.shape)
    return (loss, grad_x, None if grad_w is None else grad_w.to(dtype),
            None if grad_b is None else grad_b.to(dtype))


def _consumed():
    return RuntimeError("linear_cross_entropy chunked backward called twice; retain_graph=True / double backward "
                        "are not supported.")


class _ChunkedReduced(Function):
    """The "mean" / "sum" chunked loss: gradients computed in forward, scaled by the incoming one in backward
    (handed over without a copy unless retain_graph is allowed, as torch's op)."""

    @staticmethod
    def forward(ctx, input, linear_weight, target, linear_bias, weight, reduction, ignore_index, chunk, acc_dtype,
                retain):
        needs = tuple(ctx.needs_input_grad[i] for i in (0, 1, 3))
        target, coef = _row_coefficients(target, weight, ignore_index, linear_weight.shape[0], acc_dtype, reduction)
        loss, *grads = _chunk_loop(input, linear_weight, target, linear_bias, coef, chunk, acc_dtype, False, needs)
        if input.shape[0] == 0 and reduction == "mean":
            loss = loss.new_full((), math.nan)   # (the mean of no rows)
        ctx.grads, ctx.retain = grads, retain
        return loss

    @staticmethod
    def backward(ctx, grad_output):
        grads = ctx.grads
        if grads is None:
            raise _consumed()
        if not ctx.retain:
            ctx.grads = None
        gx, gw, gb = (None if g is None else g * grad_output for g in grads)
        return gx, gw, None, gb, None, None, None, None, None, None


class _ChunkedNoReduction(Function):
    """The per-row chunked loss: its backward runs the chunk loop again with the incoming gradient folded into
    each row's factor (nothing kept but the inputs, so retain_graph works)."""

    @staticmethod
    def forward(ctx, input, linear_weight, target, linear_bias, weight, ignore_index, chunk, acc_dtype):
        ctx.save_for_backward(input, linear_weight, target, linear_bias, weight)
        ctx.ignore_index, ctx.chunk, ctx.acc_dtype = ignore_index, chunk, acc_dtype
        target, coef = _row_coefficients(target, weight, ignore_index, linear_weight.shape[0], acc_dtype, "none")
        return _chunk_loop(input, linear_weight, target, linear_bias, coef, chunk, acc_dtype, True,
                           (False, False, False))[0]

    @staticmethod
    def backward(ctx, grad_output):
        input, linear_weight, target, linear_bias, weight = ctx.saved_tensors
        needs = (ctx.needs_input_grad[0], ctx.needs_input_grad[1],
                 linear_bias is not None and ctx.needs_input_grad[3])
        if not any(needs):
            return (None,) * 8
        target, coef = _row_coefficients(target, weight, ctx.ignore_index, linear_weight.shape[0], ctx.acc_dtype,
                                         "none", grad_output)
        _, gx, gw, gb = _chunk_loop(input, linear_weight, target, linear_bias, coef, ctx.chunk, ctx.acc_dtype,
                                    False, needs)
        return gx, gw, None, gb, None, None, None, None
