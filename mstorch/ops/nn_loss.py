"""torch.nn.functional losses: BCE, regression, margin and embedding losses, CTC, and the reduction helpers
every loss shares (cross_entropy / nll_loss: nn_loss_class.py).
"""
import math
import warnings

import numpy as np
import mindspore as ms
from .._runtime import read_host
from . import _msops as ops
from . import _kernels as kernels
from mindspore.ops import operations as P

from .. import _dtype as D
from .. import _ms_private as _P
from .._tensor import scalar_type_name
from .._cast import bf16_bits
from ._helpers import dtype_of, promote, records, scalar_tensor, cast, float_result, _node
from ._views import infer_size
from .arithmetic import abs as _abs_impl
from ._registry import OPS, register
from .pointwise import _not_impl, _log1p
from .arithmetic import _sub_bool_error, neg
from ..autograd._higher_order import recompute_as, own_backward
from .scatter_gather import gather_elements

F = "nn.loss"
_f16, _bf16, _f32, _f64 = ms.float16, ms.bfloat16, ms.float32, ms.float64
_HALF = (_f16, _bf16)
_SMOOTH_L1 = {}
_BCE_LOGITS = {}
_BCE = {}
_SOFTPLUS = ops.Softplus()


# --- reductions and the legacy size_average / reduce arguments --------------------------------------

def legacy_reduction(size_average, reduce):
    """torch.nn._reduction.legacy_get_string, with its deprecation warning (functions and loss layers)."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = "mean" if size_average and reduce else "sum" if reduce else "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{ret}' instead.",
                  stacklevel=4)
    return ret


def _mode(reduction, size_average=None, reduce=None):
    if size_average is not None or reduce is not None:
        return legacy_reduction(size_average, reduce)
    if reduction in ("none", "mean", "sum"):
        return reduction
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
                      stacklevel=4)
        return "mean"
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _reduce(loss, mode):
    if mode == "none":
        return loss
    if loss.dtype in _HALF:
        # torch accumulates half types in float32 and rounds once (and MindSpore's CPU sum has no bfloat16)
        return cast(_reduce(cast(loss, _f32), mode), loss.dtype)
    if mode == "mean":
        if loss.dtype in (ms.complex64, ms.complex128):
            # torch divides the complex sum by a complex count: an infinite real part makes the imaginary NaN
            return ops.div(ops.sum(loss), ms.Tensor(np.array(loss.size, dtype_of(loss)._np)))
        return ops.mean(loss)
    if mode == "sum":
        if dtype_of(loss)._cat < D._FLOAT:
            # torch's integer sum wraps; MindSpore's CPU ReduceSum accumulates int64 in double
            return OPS["sum"].impl(loss)
        return ops.sum(loss)
    return loss


def _rounded_steps(dtype):
    """For a half ``dtype``: a function rounding a float32 intermediate to it and back (torch's half kernels
    round after every op, computing each in float32); the identity otherwise."""
    if dtype in _HALF:
        return lambda r: cast(cast(r, dtype), _f32)
    return lambda r: r


def _bf16_value(v):
    """The Python float ``v`` rounded to bfloat16 (torch's bfloat16 kernels hold their scalars so)."""
    bits = np.array([bf16_bits(v)], np.uint16).astype(np.uint32) << 16
    return float(bits.view(np.float32)[0])


def _c(v, like):
    return scalar_tensor(v, dtype_of(like))


def _tname(t):
    return scalar_type_name(dtype_of(t))


def _float_only(t, kernel):
    if dtype_of(t)._cat < D._FLOAT:
        _not_impl(kernel, t)


def _real_float_only(t, kernel):
    """torch's pointwise loss kernels: real floating dtypes only (complex is a missing kernel too)."""
    if dtype_of(t)._cat < D._FLOAT or dtype_of(t).is_complex:
        _not_impl(kernel, t)


def _fits_input(result, input):
    """torch's loss kernels that write into a tensor like ``input``: a result type that does not cast to
    input's dtype (complex into real, float into an integer) is its cast error."""
    rt, it = dtype_of(result), dtype_of(input)
    if not D.can_cast(rt, it):
        raise RuntimeError(f"result type {D.scalar_type_name(rt)} can't be cast to the desired output type "
                           f"{D.scalar_type_name(it)}")


def _upcast(x):
    return cast(x, _f32) if x.dtype in _HALF else x


def _sg(t):
    return ops.stop_gradient(t)


def _needs_grad(t):
    return _P.requires_grad(t) and _P.grad_enabled()


def _xlogy(a, b):
    # torch.xlogy (0 where a == 0); MindSpore's Xlogy gives NaN for xlogy(0, 0)
    return OPS["xlogy"](a, b)


def _exp(t):
    # torch.exp in t's own dtype (half types computed in float32 and rounded)
    return OPS["exp"](t)


def _no_grad_weight(weight, fn, arg="weight"):
    if weight is not None and _P.requires_grad(weight) and records():
        raise RuntimeError(f"The function '{fn}' is not differentiable with respect to argument '{arg}'. "
                           "This input cannot have requires_grad True.")


def _size(t):
    return f"torch.Size({list(t.shape)})"


def _warn_size(input, target):
    if tuple(input.shape) != tuple(target.shape):
        warnings.warn(f"Using a target size ({_size(target)}) that is different to the input size ({_size(input)}). "
                      "This will likely lead to incorrect results due to broadcasting. "
                      "Please ensure they have the same size.", stacklevel=4)


def _broadcast(a, b):
    shape = np.broadcast_shapes(tuple(a.shape), tuple(b.shape)) if a.shape != b.shape else None
    if shape is None:
        return a, b
    # (ops.broadcast_to: a bfloat16 operand needing gradients broadcasts in float32, its backward's
    # ReduceSum having no bfloat16 kernel)
    return ops.broadcast_to(a, shape), ops.broadcast_to(b, shape)


def _pair(input, target):
    # torch broadcasts the two before its kernel promotes them: a 0-d target beside a dimensioned input
    # is dimensioned by then (a float32 0-d target makes a float16 input's loss float32)
    return promote(*_broadcast_checked(input, target))[:2]


def _broadcast_checked(input, target):
    """Both broadcast to their common shape, or torch's error naming the first mismatching dim."""
    try:
        return _broadcast(input, target)
    except ValueError:
        for i, (p, q) in enumerate(zip(reversed(input.shape), reversed(target.shape))):
            if p != q and p != 1 and q != 1:
                dim = max(input.ndim, target.ndim) - 1 - i
                raise RuntimeError(f"The size of tensor a ({p}) must match the size of tensor b ({q}) at "
                                   f"non-singleton dimension {dim}") from None
        raise


# --- binary cross-entropy ---------------------------------------------------------------------------

def _into(shape, other_shape, mismatch=None):
    """torch's in-place product into a loss of ``shape`` (its weights): ``other_shape`` must broadcast to it.
    Shapes that do not broadcast are ``mismatch()``'s error (infer_size's by default)."""
    try:
        full = infer_size(tuple(shape), tuple(other_shape))
    except RuntimeError:
        if mismatch is None:
            raise
        mismatch()
        raise
    if tuple(full) != tuple(shape):
        raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape {list(full)}")


def _bce_weight_mismatch(weight, shape):
    # (binary_cross_entropy's kernel expands the weight to the input's shape)
    for i in range(1, min(len(shape), weight.ndim) + 1):
        if weight.shape[-i] not in (1, shape[-i]):
            raise RuntimeError(f"Attempting to broadcast a dimension of length {weight.shape[-i]} at {-i}! Mismatching "
                               f"argument at index 1 had {_size(weight)}; but expected shape should be broadcastable "
                               f"to {list(shape)}")


def _bce_weight_into(input, weight):
    """torch's ``loss.mul_(weight)`` after its kernel: the weight's shape, then the product's dtype, must fit."""
    _into(input.shape, weight.shape)
    rt = D.promote_types(dtype_of(weight), dtype_of(input))
    if not D.can_cast(rt, dtype_of(input)):
        raise RuntimeError(f"result type {D.scalar_type_name(rt)} can't be cast to the desired output type "
                           f"{D.scalar_type_name(dtype_of(input))}")


@register("binary_cross_entropy", family=F, namespace="nn.functional")
def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    mode = _mode(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({_size(target)}) that is different to the input size "
                         f"({_size(input)}) is deprecated. Please ensure they have the same size.")
    if target.dtype != input.dtype:
        raise RuntimeError(f"Found dtype {_tname(target)} but expected {_tname(input)}")
    _no_grad_weight(weight, "binary_cross_entropy")
    if weight is not None:
        # torch expands the weight to the broadcast shape before its kernel looks at the dtype; the kernel's
        # dtype and range checks come before its in-place product with the weight (into the input's shape)
        try:
            infer_size(tuple(input.shape), tuple(weight.shape))
        except RuntimeError:
            _bce_weight_mismatch(weight, tuple(input.shape))
            raise
    _float_only(input, "binary_cross_entropy")
    if input.dtype in (ms.complex64, ms.complex128):
        _not_impl("binary_cross_entropy", input)
    if not kernels.HOST_WORKAROUNDS:
        if weight is not None:
            _bce_weight_into(input, weight)
        # the device path: no range check on the host (torch's CUDA kernel asserts on the device) and the
        # composition, whose values and gradients are torch's everywhere in [0, 1]
        return _bce_composed(input, target, weight, mode)
    host = read_host(cast(input, _f32) if input.dtype is _bf16 else input)
    lo, hi = (host.min(), host.max()) if host.size else (0.5, 0.5)
    if not (lo >= 0 and hi <= 1) or np.isnan(host).any():
        raise RuntimeError("all elements of input should be between 0 and 1")
    if not _in_unit_range(target):
        raise RuntimeError("all elements of target should be between 0 and 1")
    if weight is not None:
        _bce_weight_into(input, weight)
    if input.dtype is _f32 and input.size > 1 and lo >= 1e-7 and hi < 1 and not _needs_grad(target):
        # MindSpore's kernel takes log(x + 1e-12) and has torch's gradient: exact to 1e-6 away from 0 and 1.
        # It doubles the loss of a single element, and writes nothing for none.
        prim = _BCE.get(mode)
        if prim is None:
            prim = _BCE[mode] = P.BinaryCrossEntropy(mode)
        w = None if weight is None else cast(weight, _f32).broadcast_to(input.shape)
        # MindSpore's BinaryCrossEntropyGrad has no backward: double backward differentiates the composition
        return recompute_as(prim(input, target, w), _bce_composed, input, target, weight, mode)
    return _bce_composed(input, target, weight, mode)


def _in_unit_range(t):
    # torch's CPU kernel checks the target as it checks the input: NaN is outside [0, 1]
    host = read_host(cast(t, _f32) if t.dtype is _bf16 else t)
    return bool(((host >= 0) & (host <= 1)).all())


def _bce_composed(input, target, weight, mode):
    x, t = _upcast(input), _upcast(target)
    one, floor = _c(1, x), _c(-100.0, x)
    log_x = ops.maximum(ops.log(x), floor)
    log_1mx = ops.maximum(ops.log(ops.sub(one, x)), floor)
    value = ops.sub(ops.mul(ops.sub(t, one), log_1mx), ops.mul(t, log_x))
    # torch's gradient: (x - t) / max(x (1 - x), 1e-12), never the 0 * inf of the clamped logs; it is a
    # constant here, so double backward gets it from our own backward of the product that carries it
    gx = _bce_grad(x, t)
    carrier = own_backward(ops.mul(x, _sg(gx)), _bce_input_backward, x, t)
    loss = ops.add(_sg(value), ops.sub(carrier, _sg(ops.mul(x, gx))))
    if _needs_grad(target):
        gt = ops.sub(ops.log(ops.sub(one, x)), ops.log(x))     # torch's target gradient is not clamped
        # at x = 0 or 1 it is infinite: t * gt - t * gt would make the loss NaN, so that part is carried by
        # a node whose value is 0
        fin = ops.isfinite(gt)
        gt_fin = ops.where(fin, gt, ops.zeros_like(gt))
        carrier = own_backward(ops.mul(t, _sg(gt_fin)), _bce_target_backward, x)
        loss = ops.add(loss, ops.sub(carrier, _sg(ops.mul(t, gt_fin))))
        if not bool(fin.all()):
            loss = ops.add(loss, _infinite_slope(t, ops.where(fin, ops.zeros_like(gt), gt)))
    if weight is not None:
        loss = ops.mul(loss, _upcast(weight).broadcast_to(np.broadcast_shapes(tuple(weight.shape), tuple(t.shape))))
    out = _reduce(loss, mode)
    return cast(out, input.dtype) if input.dtype in _HALF else out


def _infinite_slope_node():
    return _node("BinaryCrossEntropyBackward0", lambda t, slope: (ops.zeros_like(t), (slope,)),
                 lambda saved, g: (ops.mul(g, saved[0]), None))


def _infinite_slope(t, slope):
    """0, with the gradient ``slope`` (infinite entries) with respect to ``t``."""
    return _infinite_slope_node()(t, slope)


# torch's backward floor: its EPSILON is the float 1e-12 (9.99999996e-13 in a float64 gradient)
_BCE_EPS = float(np.float32(1e-12))


def _bce_grad(x, t):
    return ops.div(ops.sub(x, t), ops.maximum(ops.mul(x, ops.sub(_c(1, x), x)), _c(_BCE_EPS, x)))


def _bce_input_backward(node, grad_outputs, x, t):
    (g,) = grad_outputs
    if g is None:
        return (None,)
    return (ops.mul(g, _bce_grad(x, t)), None)


def _bce_target_backward(node, grad_outputs, x):
    (g,) = grad_outputs
    if g is None:
        return (None,)
    return (ops.mul(g, ops.sub(ops.log(ops.sub(_c(1, x), x)), ops.log(x))), None)


@register("binary_cross_entropy_with_logits", family=F, namespace="nn.functional")
def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    mode = _mode(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({_size(target)}) must be the same as input size ({_size(input)})")
    _no_grad_weight(weight, "binary_cross_entropy_with_logits")
    _no_grad_weight(pos_weight, "binary_cross_entropy_with_logits", "pos_weight")
    _real_float_only(input, "log_sigmoid_cpu")   # (torch's log_sigmoid(input) comes first)
    # torch's loss is computed in place, in input's shape: pos_weight's term first, then the weight
    if pos_weight is not None:
        infer_size(tuple(pos_weight.shape), tuple(target.shape))
        _into(input.shape, pos_weight.shape)
    if weight is not None:
        _into(input.shape, weight.shape)
    x, t, rt = promote(input, target)
    if not D.can_cast(rt, dtype_of(target)):
        # torch computes (1 - target).mul_(input): the product must fit the target's dtype
        raise RuntimeError(f"result type {scalar_type_name(rt)} can't be cast to the desired output type "
                           f"{_tname(target)}")
    if input.dtype is not target.dtype or (weight is not None and weight.dtype is not target.dtype) \
            or (pos_weight is not None and pos_weight.dtype is not target.dtype):
        return _bce_logits_mixed(input, target, weight, pos_weight, mode)
    fused = x.dtype is _f32 and not _needs_grad(target) and not (weight is not None and _needs_grad(weight)) \
        and not (pos_weight is not None and _needs_grad(pos_weight))
    if fused:
        w = _ones(x) if weight is None else cast(weight, _f32)
        pw = _ones(x) if pos_weight is None else cast(pos_weight, _f32)
        prim = _BCE_LOGITS.get(mode)
        if prim is None:
            prim = _BCE_LOGITS[mode] = P.BCEWithLogitsLoss(mode)
        out = prim(x, t, w, pw)
        if not kernels.HOST_WORKAROUNDS or bool(read_host(ops.isfinite(out).all())):
            return out
        # an infinite target (or input): the kernel's stable formula gives NaN where torch's
        # (1 - t) x - log_sigmoid(x) is infinite; the composition below is torch's (checked on the result)
    xu, tu = _upcast(x), _upcast(t)
    one = _c(1, xu)
    log_sig = ops.neg(_SOFTPLUS(ops.neg(xu)))
    if pos_weight is not None:
        log_sig = ops.mul(log_sig, ops.add(ops.mul(ops.sub(_upcast(pos_weight), one), tu), one))
    loss = ops.sub(ops.mul(ops.sub(one, tu), xu), log_sig)
    if weight is not None:
        loss = ops.mul(loss, _upcast(weight))
    out = _reduce(loss, mode)
    return cast(out, x.dtype) if x.dtype in _HALF else out


def _bce_logits_mixed(input, target, weight, pos_weight, mode):
    """torch's composition step by step when the dtypes differ: log_sigmoid in input's dtype (its product
    with pos_weight's term written back into it), then (1 - target) * input, the difference and the weight's
    product each written into a tensor of target's dtype; its gradients are torch's formulas in their own
    dtypes (sigmoid(input) - target in input's; with a pos_weight, in pos_weight * target's)."""
    key = ("mixed", weight is not None, pos_weight is not None, mode)
    node = _BCE_LOGITS.get(key)
    if node is None:
        node = _BCE_LOGITS[key] = _node("BinaryCrossEntropyWithLogitsBackward0", *_bce_logits_mixed_fns(*key[1:]))
    return node(input, target, *(a for a in (weight, pos_weight) if a is not None))


def _log_sigmoid_exact(x):
    """log_sigmoid in x's dtype, computed in float64 and rounded once (MindSpore's float32 Softplus is off
    by a few ulps; torch's is within one)."""
    if x.dtype is _f64:
        return OPS["logsigmoid"].impl(x)
    return cast(OPS["logsigmoid"].impl(cast(x, _f64)), x.dtype)


def _bce_logits_mixed_fns(has_weight, has_pos_weight, mode):
    mul, sub, add, sigmoid = (OPS[n].impl for n in ("mul", "sub", "add", "sigmoid"))

    def split(x, t, *rest):
        w = rest[0] if has_weight else None
        pw = rest[-1] if has_pos_weight else None
        return x, t, w, pw

    def fwd(*args):
        x, t, w, pw = split(*args)
        log_sig = _log_sigmoid_exact(x)
        if pw is not None:
            log_sig = cast(mul(log_sig, add(mul(sub(pw, 1), t), 1)), x.dtype)
        loss = cast(sub(cast(mul(OPS["rsub"].impl(t, 1), x), t.dtype), log_sig), t.dtype)
        if w is not None:
            loss = cast(mul(loss, w), t.dtype)
        return _reduce(loss, mode), args

    def bwd(saved, g):
        x, t, w, pw = split(*saved)
        if pw is None:
            gx = cast(mul(cast(sub(sigmoid(x), t), x.dtype), g), x.dtype)
            gt = mul(OPS["neg"].impl(x), g)   # (not in place: in the promoted dtype)
        else:
            pt = mul(pw, t)
            gx = cast(sub(cast(mul(cast(sub(add(pt, 1), t), pt.dtype), sigmoid(x)), pt.dtype), pt), pt.dtype)
            gx = cast(mul(gx, g), pt.dtype)
            gt = cast(sub(_log_sigmoid_exact(ops.neg(x)), cast(mul(_log_sigmoid_exact(x), pw), x.dtype)), x.dtype)
            gt = cast(mul(gt, g), x.dtype)
        if w is not None:
            gx, gt = cast(mul(gx, w), gx.dtype), cast(mul(gt, w), gt.dtype)
        if mode == "mean":
            gx, gt = cast(OPS["div"].impl(gx, x.size), gx.dtype), cast(OPS["div"].impl(gt, x.size), gt.dtype)
        return (cast(gx, x.dtype), cast(gt, t.dtype)) + (None,) * (len(saved) - 2)
    return fwd, bwd


_ONES = {}


def _ones(x):
    key = x.shape[-1:] if x.ndim else ()
    t = _ONES.get(key)
    if t is None:
        t = _ONES[key] = ops.ones(key, _f32)
    return t


# --- regression losses ------------------------------------------------------------------------------

def _check_weight_size(weight, input):
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")


def _weighted(err, weight, input, mode):
    """torch's weighted regression losses: composed in Python (no loss kernel), the weight promoting."""
    _check_weight_size(weight, input)
    # (half types: each step in float32, rounded as torch's; the sums accumulate in float32, the weight's
    # in its own dtype before it promotes)
    err = _half_step(ops.mul, *promote(err, weight)[:2])
    if mode == "mean":
        return _half_step(ops.div, *promote(_reduce(err, "sum"), _reduce(weight, "sum"))[:2])
    return _reduce(err, "sum") if mode == "sum" else err


@register("l1_loss", family=F, namespace="nn.functional")
def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    _warn_size(input, target)
    mode = _mode(reduction, size_average, reduce)
    x, t = _pair(input, target)
    if weight is not None:
        _check_weight_size(weight, input)
    if input.dtype is ms.bool_ or target.dtype is ms.bool_:   # (torch's input - target comes first)
        _sub_bool_error(input, target)
    if weight is None and mode == "mean" and dtype_of(x)._cat < D._FLOAT:
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating point or "
                           f"complex dtype. Got: {_tname(x)}")
    d = _half_step(ops.sub, x, t)   # (torch's input - target in a half dtype: rounded before the weight's product)
    if d.dtype in (ms.complex64, ms.complex128):   # |z| is real (MindSpore's Abs keeps the complex dtype),
        err = _abs_impl(d)                           # and torch's hypot does not overflow past 1.8e19
    else:
        err = _half_step(ops.abs, d)
    if weight is not None:
        return _weighted(err, weight, input, mode)
    return _reduce(err, mode)


@register("mse_loss", family=F, namespace="nn.functional")
def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    _warn_size(input, target)
    mode = _mode(reduction, size_average, reduce)
    x, t = _pair(input, target)
    if weight is not None:
        _check_weight_size(weight, input)
        if input.dtype is ms.bool_ or target.dtype is ms.bool_:   # (torch's input - target)
            _sub_bool_error(input, target)
        return _weighted(_half_step(_squared, _half_step(ops.sub, x, t)), weight, input, mode)
    _real_float_only(x, "mse_cpu")
    if x.dtype in _HALF:   # torch's kernel squares in float32 and rounds each term once (its backward's
        err = cast(_squared(ops.sub(_upcast(x), _upcast(t))), x.dtype)   # 2 (x - y) g likewise)
    else:
        err = _squared(ops.sub(x, t))
    return _reduce(err, mode)


def _squared(d):
    # d * d, not Square: its gradient 2 d g overflows before the mean's 1 / N scales g, where torch's
    # (2 / N) d g does not (d near the dtype's largest value); d g + d g is 2 d (g / N) without that overflow
    return ops.mul(d, d)


@register("smooth_l1_loss", family=F, namespace="nn.functional")
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    _warn_size(input, target)
    mode = _mode(reduction, size_average, reduce)
    x, t = _pair(input, target)
    if beta == 0.0:
        return l1_loss(x, t, reduction=mode)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    _float_only(x, "smooth_l1_cpu")
    if x.dtype is _bf16:
        return cast(smooth_l1_loss(cast(x, _f32), cast(t, _f32), reduction=mode, beta=beta), _bf16)
    key = (float(beta), mode)
    prim = _SMOOTH_L1.get(key)
    if prim is None:
        prim = _SMOOTH_L1[key] = P.SmoothL1Loss(float(beta), mode)
    # MindSpore's SmoothL1LossGrad has no backward: double backward differentiates the composition
    return recompute_as(prim(x, t), _smooth_l1_composed, x, t, float(beta), mode)


def _smooth_l1_composed(x, t, beta, mode):
    d = ops.sub(x, t)
    z = ops.abs(d)
    loss = ops.where(ops.less(z, _c(beta, d)), ops.div(ops.mul(ops.square(d), _c(0.5, d)), _c(beta, d)),
                     ops.sub(z, _c(0.5 * beta, d)))
    return _reduce(loss, mode)


@register("huber_loss", family=F, namespace="nn.functional")
def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    _warn_size(input, target)
    mode = _mode(reduction)
    x, t = _pair(input, target)
    if weight is not None:
        _check_weight_size(weight, input)
    _fits_input(x, input)
    _real_float_only(x, "huber_cpu")
    # torch's CPU kernel computes float16 in float32 (rounded once) but rounds every bfloat16 step, delta
    # included, to bfloat16
    step = _rounded_steps(x.dtype) if x.dtype is _bf16 else (lambda r: r)
    if x.dtype is _bf16:
        delta = _bf16_value(delta)
    d = step(ops.sub(_upcast(x), _upcast(t)))
    z = ops.abs(d)
    dc = _c(delta, d)
    # torch's branches: linear beyond delta, quadratic otherwise (nan included); the quadratic branch
    # squares d only where it is taken, so an infinite d gives no 0 * inf = nan gradient
    quad = ops.logical_not(ops.greater(z, dc))
    zq = ops.abs(ops.where(quad, d, ops.zeros_like(d)))
    half_delta = step(_c(0.5 * delta, d))
    loss = ops.where(quad, step(ops.mul(step(ops.mul(zq, _c(0.5, d))), zq)),
                     step(ops.mul(step(ops.sub(z, half_delta)), dc)))
    if loss.dtype != input.dtype:
        # torch's kernel writes into a tensor like the input: computed in the common dtype, stored in input's
        loss = cast(loss, input.dtype)
    if weight is not None:
        loss = _half_step(ops.mul, *promote(loss, weight)[:2])
    return _reduce(loss, mode)


def _own_dtype(fn, t, result):
    """``fn(t)`` in t's dtype. A float32 one promoted into a float64 ``result``: torch's float32 log / exp
    are within an ulp, MindSpore's a few ulps off, which shows at float64 precision; ``fn(t, True)`` then
    computes them in float64 and rounds as torch's float32 kernel does."""
    if t.dtype is _f32 and result.dtype is _f64:
        return fn(t, True)
    return fn(t)


def _xlogy_self(t, f64_log=False):
    """xlogy(t, t). ``f64_log``: t float32, as torch's kernel computes it: t * log(t) with the log rounded
    to float32, then the product (0 at t == 0)."""
    if not f64_log:
        return _xlogy(t, t)
    p = ops.mul(t, cast(ops.log(cast(t, _f64)), _f32))
    return ops.where(ops.equal(t, _c(0, t)), _c(0, t), p)


def _exp_own(t, f64_exp=False):
    return cast(ops.exp(cast(t, _f64)), _f32) if f64_exp else _exp(t)


@register("kl_div", family=F, namespace="nn.functional")
def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    if size_average is not None or reduce is not None:
        mode = legacy_reduction(size_average, reduce)
    else:
        if reduction == "mean":
            warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                          "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                          "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                          stacklevel=3)
        mode = "sum" if reduction == "batchmean" else _mode(reduction)
    if any(dtype_of(a)._cat < D._FLOAT for a in (input, target)):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    x, t, _ = promote(input, target)
    # torch's exp(target) / xlogy(target, target) are of the target's own dtype (a float32 target of a
    # float64 input: computed in float32), promoted only by the product with the input's term
    if log_target:
        loss = ops.mul(*promote(_own_dtype(_exp_own, target, x), ops.sub(t, x))[:2])
    else:
        loss = ops.sub(*promote(_own_dtype(_xlogy_self, target, x), ops.mul(t, x))[:2])
    out = _reduce(loss, mode)
    if reduction == "batchmean" and input.ndim != 0 and size_average is None and reduce is None:
        out = ops.div(out, _c(input.shape[0], out))
    return out


@register("poisson_nll_loss", family=F, namespace="nn.functional")
def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    mode = _mode(reduction, size_average, reduce)
    x, t, _ = promote(input, target)
    if dtype_of(x)._cat < D._FLOAT:
        return _reduce(_poisson_nll_integral(x, t, log_input, full, eps), mode)
    if log_input:
        loss = ops.sub(ops.exp(x), ops.mul(t, x))
    else:
        loss = ops.sub(x, ops.mul(t, ops.log(ops.add(x, _c(eps, x)))))
    if full:
        # torch's terms as written, t * log(t) too (not xlogy: its gradient's g * t overflows a float16 where
        # torch's does; the masked t <= 1 are NaN before the mask, as torch's)
        stirling = ops.add(ops.sub(ops.mul(t, ops.log(t)), t), ops.mul(ops.log(ops.mul(t, _c(2 * math.pi, t))), _c(0.5, t)))
        loss = ops.add(loss, ops.where(ops.less_equal(t, _c(1, t)), _c(0, t), stirling))
    return _reduce(loss, mode)


def _poisson_nll_integral(x, t, log_input, full, eps):
    """torch's formula on integer tensors, step by step with torch's type promotion: exp/log give the
    default float dtype, the products of integers stay integers (and wrap as torch's do)."""
    exp, log, mul, sub, add = (OPS[n].impl for n in ("exp", "log", "mul", "sub", "add"))
    loss = sub(exp(x), mul(t, x)) if log_input else sub(x, mul(t, log(add(x, eps))))
    if full:
        stirling = add(sub(mul(t, log(t)), t), mul(log(mul(t, 2 * math.pi)), 0.5))
        loss = add(loss, OPS["masked_fill"].impl(stirling, OPS["le"].impl(t, 1), 0))
    return loss


def _any_negative(t):
    """Whether a float tensor has an entry below 0, a negative subnormal included: read on the host by its
    bits (MindSpore's threaded Less flushes subnormals to zero on larger tensors, as would a float compare
    where the denormals-are-zero flag is set)."""
    if dtype_of(t)._cat < D._FLOAT or t.dtype in (ms.complex64, ms.complex128):
        return bool(read_host(ops.any(ops.less(t, _c(0, t)))))
    h = np.ascontiguousarray(read_host(t))
    bits = h.view(f"u{h.itemsize}")
    sign = 1 << (8 * h.itemsize - 1)
    magnitude = bits & np.array(sign - 1, bits.dtype)
    return bool(((bits >= sign) & (magnitude != 0) & ~np.isnan(h)).any())


@register("gaussian_nll_loss", family=F, namespace="nn.functional")
def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        # (torch's var * ones_like(input): an integer input's promotes to the default float dtype)
        dt = input.dtype if dtype_of(input)._cat >= D._FLOAT else D.get_default_dtype()._ms
        var = ops.full(tuple(input.shape), var, dtype=dt)
    elif _any_negative(var):
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.expand_dims(-1)
        elif not (input.ndim == var.ndim and sum(b for a, b in zip(input.shape, var.shape) if a != b) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    if dtype_of(var)._cat < D._FLOAT:   # torch's in-place clamp of var by the float eps
        name = D.scalar_type_name(dtype_of(var))
        raise RuntimeError(f"result type Float can't be cast to the desired output type {D.CPP_TYPE_NAMES[name]}")
    if input.dtype == ms.bool_ or target.dtype == ms.bool_:   # (torch's input - target)
        _sub_bool_error(input, target)
    # torch clamps a clone of var under no_grad: the value is clamped, the gradient passes unchanged (only
    # where it is below eps: an infinite var stays infinite, no inf - inf)
    var = ops.where(ops.less(var, _c(eps, var)), ops.add(var, _sg(ops.sub(_c(eps, var), var))), var)
    loss = ops.mul(ops.add(ops.log(var), ops.div(ops.square(ops.sub(input, target)), var)), _c(0.5, var))
    if full:
        loss = ops.add(loss, _c(0.5 * math.log(2 * math.pi), loss))
    return _reduce(loss, reduction)


# --- margin and embedding losses --------------------------------------------------------------------

@register("margin_ranking_loss", family=F, namespace="nn.functional")
def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    mode = _mode(reduction, size_average, reduce)
    if input1.ndim != input2.ndim or input1.ndim != target.ndim:
        raise RuntimeError("margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {_size(input1)}, input2: {_size(input2)}, target: {_size(target)} ")
    # torch computes (-target * (input1 - input2) + margin).clamp_min_(0): its broadcasting and messages
    infer_size(tuple(target.shape), infer_size(tuple(input1.shape), tuple(input2.shape)))
    if input1.dtype == ms.bool_ or input2.dtype == ms.bool_:
        _sub_bool_error(input1, input2)
    if target.dtype == ms.bool_:
        neg(target)   # (torch's refusal of -target)
    a, b, _ = promote(input1, input2)
    d, t, _ = promote(ops.sub(a, b), target)
    # the margin takes part in type promotion (a float margin makes an integer loss float, not truncated)
    p, m, _ = promote(ops.mul(ops.neg(t), d), margin)
    loss = ops.clamp(ops.add(p, m), 0.0)
    return _reduce(loss, mode)


@register("hinge_embedding_loss", family=F, namespace="nn.functional")
def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    mode = _mode(reduction, size_average, reduce)
    if input.dtype == ms.bool_:   # (torch's margin - input: the margin filled into a bool tensor like input)
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                           "`logical_xor()` operator instead.")
    if dtype_of(input)._cat == D._INT:
        # torch fills the margin into a tensor like the input (truncating it) and keeps the integer dtype
        info = np.iinfo(dtype_of(input)._np)
        if not info.min <= margin <= info.max:
            raise RuntimeError(f"value cannot be converted to type {np.dtype(dtype_of(input)._np).name}_t without "
                               "overflow")
        if mode == "mean":
            raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating "
                               f"point or complex dtype. Got: {_tname(input)}")
        x, t, zero = input, target, _c(0, input)
        margin_clamp = ops.maximum(ops.sub(_c(int(margin), x), x), zero)
    else:
        # the target is only compared: the loss keeps the input's dtype, as torch's (half types computed
        # in float32, rounded after each op)
        x, t, step = _upcast(input), target, _rounded_steps(input.dtype)
        zero = _c(0, x)
        margin_clamp = ops.clamp(step(ops.sub(_c(margin, x), x)), 0.0)
    loss = ops.add(ops.where(ops.ne(t, _c(1, t)), margin_clamp, zero), ops.where(ops.ne(t, _c(-1, t)), x, zero))
    if loss.dtype != input.dtype:
        loss = cast(loss, input.dtype)
    return _reduce(loss, mode)


@register("soft_margin_loss", family=F, namespace="nn.functional")
def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    mode = _mode(reduction, size_average, reduce)
    _no_grad_weight(target, "soft_margin_loss", "target")
    x, t, _ = promote(input, target)
    rt = dtype_of(x)
    # torch writes the loss into a tensor like input: the (floating) result must cast to it and input must
    # be the broadcast shape
    _fits_input(x if rt._cat >= D._FLOAT else ops.zeros((), D.get_default_dtype()._ms), input)
    shape = tuple(np.broadcast_shapes(tuple(input.shape), tuple(target.shape)))
    if shape != tuple(input.shape):
        raise RuntimeError(f"output with shape {list(input.shape)} doesn't match the broadcast shape {list(shape)}")
    _float_only(x, "soft_margin_loss")
    # torch's formula log1p(exp(-y x)) as written (it overflows to inf where softplus would not), each
    # step rounded to a half dtype as torch's composite kernels round it
    z = _half_step(ops.mul, ops.neg(x), t)
    loss = _half_step(_log1p, _half_step(ops.exp, z))
    if _needs_grad(x) and _wraps_negated(target):
        loss = _soft_margin_int_apply(loss, x, target)
    out = _reduce(loss, mode)
    return out if out.dtype == input.dtype else cast(out, input.dtype)


def _wraps_negated(t):
    """Whether torch's -t (in t's dtype) differs from the true negation: a nonzero uint8 value, a signed
    integer's minimum, or bool (which refuses it)."""
    if t.dtype in (ms.bool_, ms.uint8):
        return t.dtype == ms.bool_ or bool(read_host(ops.any(ops.not_equal(t, _c(0, t)))))
    if dtype_of(t)._cat >= D._FLOAT:
        return False
    return bool(read_host(ops.any(ops.equal(t, _c(int(np.iinfo(dtype_of(t)._np).min), t)))))


def _soft_margin_int_backward(saved, g):
    """torch's soft_margin_loss_backward of an integer target whose negation wraps: z = exp(-target * input),
    -target negated in the target's own dtype (uint8: -1 is 255; bool refuses), then target * z * -1 / (1 + z).
    A recording pass (create_graph) gets it from a node of torch's SoftMarginLossBackwardBackward0, whose
    input gradient is torch's formula (the wrapped target's square, not the derivative of the above)."""
    x, t = saved
    if t.dtype == ms.bool_:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")
    return _soft_margin_int_recorded(g, x, t), None


def _soft_margin_int_recorded(g, x, t):
    # (in a recording pass through our node, so that it differentiates as torch's backward does, to any order)
    if _P.grad_enabled() and (_needs_grad(g) or _needs_grad(x)):
        return _soft_margin_int_bwd_node()(g, x, t)
    return _soft_margin_int_grad(g, x, t)


def _soft_margin_z(x, t):
    return _half_step(ops.exp, _half_step(ops.mul, cast(ops.neg(t), x.dtype), x))


def _soft_margin_int_grad(g, x, t):
    z = _soft_margin_z(x, t)
    gx = _half_step(ops.mul, _half_step(ops.mul, cast(t, x.dtype), z), _c(-1.0, x))
    gx = _half_step(ops.div, gx, _half_step(ops.add, z, _c(1.0, z)))
    return _half_step(ops.mul, gx, g)


def _soft_margin_int_double(gg, g, x, t):
    """torch's soft_margin_loss_double_backward: target * target (in the target's dtype, wrapping) * z /
    (z + 1)^2 times grad * grad_output, in recorded ops."""
    z = _soft_margin_z(x, t)
    zp1 = _half_step(ops.add, z, _c(1.0, z))
    gi = _half_step(ops.div, _half_step(ops.mul, cast(ops.mul(t, t), x.dtype), z), _half_step(ops.mul, zp1, zp1))
    return _half_step(ops.mul, gi, _half_step(ops.mul, gg, g))


_SOFT_MARGIN_BWD = []


def _soft_margin_int_bwd_node():
    if not _SOFT_MARGIN_BWD:
        _SOFT_MARGIN_BWD.append(_node(
            "SoftMarginLossBackwardBackward0", lambda g, x, t: (_soft_margin_int_grad(g, x, t), (g, x, t)),
            lambda saved, gg: (_soft_margin_int_recorded(gg, *saved[1:]), _soft_margin_int_double(gg, *saved), None)))
    return _SOFT_MARGIN_BWD[0]


def _soft_margin_int_loss(loss, x, t):
    return ops.add(loss, ops.zeros_like(loss)), (x, t)


_soft_margin_int_node = None


def _soft_margin_int_apply(loss, x, t):
    global _soft_margin_int_node
    if _soft_margin_int_node is None:
        _soft_margin_int_node = _node("SoftMarginLossBackward0", lambda l, x, t: _soft_margin_int_loss(_sg(l), x, t),
                                      lambda saved, g: (None,) + _soft_margin_int_backward(saved, g))
    return _soft_margin_int_node(loss, x, t)


def _half_step(fn, *args):
    """One pointwise step: computed in float32 and rounded back for a half dtype."""
    if args[0].dtype in _HALF:
        return cast(fn(*(cast(a, _f32) for a in args)), args[0].dtype)
    return fn(*args)


def _in_float(fn, x, *rest):
    if x.dtype in _HALF:
        return cast(fn(cast(x, _f32), *(cast(r, _f32) for r in rest)), x.dtype)
    return fn(x, *rest)


@register("multilabel_soft_margin_loss", family=F, namespace="nn.functional")
def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    _real_float_only(input, "log_sigmoid_cpu")   # (torch's logsigmoid(input) comes first)
    if target.dtype is ms.bool_:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying "
                           "to invert a mask, use the `~` or `logical_not()` operator instead.")
    x, t, _ = promote(input, target)
    # torch rounds every step to a half type (a float32 weight then promotes the rounded loss)
    step = _rounded_steps(x.dtype)

    def run(v, w):
        ls_pos = step(ops.neg(_SOFTPLUS(ops.neg(v))))
        ls_neg = step(ops.neg(_SOFTPLUS(v)))
        return ops.neg(ops.add(step(ops.mul(w, ls_pos)), step(ops.mul(step(ops.sub(_c(1, w), w)), ls_neg))))
    loss = _in_float(run, x, t)
    if weight is not None:
        loss = ops.mul(loss, weight)
    if not x.ndim:   # (torch reads input.size(input.dim() - 1))
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    C = x.shape[-1]
    loss = ops.div(ops.sum(loss, x.ndim - 1), _c(C, loss))
    if reduction == "none":
        return loss
    if reduction == "mean":
        return ops.mean(loss)
    if reduction == "sum":
        return ops.sum(loss)
    raise ValueError(reduction + " is not valid")


@register("cosine_embedding_loss", family=F, namespace="nn.functional")
def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    mode = _mode(reduction, size_average, reduce)
    if target.ndim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    want = 2 if target.ndim == 1 else 1
    if input1.ndim != want or input2.ndim != want:
        raise RuntimeError(f"{target.ndim}D target tensor expects {want}D input tensors, but found inputs with sizes "
                           f"{list(input1.shape)} and {list(input2.shape)}.")
    a, b, _ = promote(input1, input2)
    axis = target.ndim
    # integer inputs sum exactly, then the float eps promotes them to the default dtype (torch's arithmetic):
    # an all-zero row is cos 0, not 0 / 0
    # (torch's sum: MindSpore's CPU ReduceSum accumulates int64 in double, where torch's wraps)
    total = OPS["sum"].impl if dtype_of(a)._cat < D._FLOAT else ops.sum
    prod = float_result(total(ops.mul(a, b), axis))
    eps = _c(1e-12, prod)
    mag1 = ops.add(float_result(total(ops.mul(a, a), axis)), eps)
    mag2 = ops.add(float_result(total(ops.mul(b, b), axis)), eps)
    cos = ops.div(prod, ops.sqrt(ops.mul(mag1, mag2)))
    zero = _c(0, cos)
    pos = ops.sub(_c(1, cos), cos)
    neg = ops.clamp(ops.sub(cos, _c(margin, cos)), 0.0)
    if target.dtype == ms.bool_:   # True is 1 and never -1 (-1 as a bool would be True too)
        target = cast(target, ms.int64)
    loss = ops.add(ops.where(ops.equal(target, _c(1, target)), pos, zero),
                   ops.where(ops.equal(target, _c(-1, target)), neg, zero))
    return _reduce(loss, mode)


@register("multi_margin_loss", family=F, namespace="nn.functional")
def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    mode = _mode(reduction, size_average, reduce)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    if input.ndim > 2 or (input.ndim == 2 and input.shape[1] == 0) or (input.ndim < 2 and input.size == 0):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    x = input.reshape(1, -1) if input.ndim < 2 else input
    N, C = x.shape
    if not (target.ndim <= 1 and target.size == N):
        raise RuntimeError("multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{N}], but got {list(target.shape)}. Input "
                           f"has shape {list(input.shape)}.")
    if weight is not None and weight.size != C:
        raise RuntimeError(f"inconsistent weight size, expected {C} but got {list(weight.shape)}")
    _no_grad_weight(weight, "multi_margin_loss")
    if N == 0:   # (torch's kernel is not reached: no dtype is checked)
        return _reduce(ops.zeros((0,), input.dtype), mode)
    # torch's kernel: the input's dtype dispatch, then the target's and the weight's dtypes, then the range
    if input.dtype in _HALF:
        _not_impl("multi_margin_loss_cpu_kernel", input)
    _real_float_only(x, "multi_margin_loss_cpu_kernel")
    if target.dtype != ms.int64:
        raise RuntimeError(f"expected scalar type Long but found {_tname(target)}")
    if weight is not None and weight.dtype != input.dtype:
        raise RuntimeError(f"expected scalar type {_tname(input)} but found {_tname(weight)}")
    tn = read_host(target).reshape(-1).astype(np.int64)
    if ((tn < 0) | (tn >= C)).any():
        raise RuntimeError("target out of range")
    xu = _upcast(x)
    xy = gather_elements(xu, 1, ms.Tensor(tn.reshape(-1, 1)))
    z = ops.add(ops.sub(_c(margin, xu), xy), xu)
    h = ops.where(ops.greater(z, _c(0, z)), z, _c(0, z))     # torch counts z > 0 only (gradient 0 at 0)
    if p == 2:
        h = ops.square(h)
    others = np.ones((N, C), dtype_of(xu)._np)
    others[np.arange(N), tn] = 0
    h = ops.mul(h, ms.Tensor(others))
    if weight is not None:
        h = ops.mul(h, ops.gather(cast(_upcast(weight), xu.dtype), ms.Tensor(tn), 0).reshape(-1, 1))
    loss = ops.div(ops.sum(h, 1), _c(C, h))
    if input.ndim < 2 and target.ndim == 0:   # (torch: one loss per frame whenever the target has a dim)
        loss = loss.reshape(())
    out = _reduce(loss, mode)
    return cast(out, input.dtype) if input.dtype in _HALF else out


@register("multilabel_margin_loss", family=F, namespace="nn.functional")
def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    mode = _mode(reduction, size_average, reduce)
    if input.ndim > 2 or (input.ndim == 2 and input.shape[1] == 0) or (input.ndim < 2 and input.size == 0):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    if tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}")
    if target.dtype != ms.int64:
        raise RuntimeError(f"expected scalar type Long but found {_tname(target)}")
    x = input.reshape(1, -1) if input.ndim < 2 else input
    N, C = x.shape
    tn = read_host(target).reshape(N, C).astype(np.int64)
    counts = np.zeros((N, C), np.float64)
    is_target = np.zeros((N, C), bool)
    for n in range(N):
        for j in tn[n]:
            if j < 0:
                break
            if j >= C:
                raise RuntimeError("argument #2 'target' is out of range")
            counts[n, j] += 1
            is_target[n, j] = True
    if input.dtype in _HALF:   # (torch's CPU kernel has no half types)
        _not_impl("multilabel_margin_loss_forward_out_frame", input)
    _float_only(x, "multilabel_margin_loss_forward_out_frame")
    if x.dtype in _HALF and x.size:   # torch's CPU kernel has no half types (not reached when empty)
        _not_impl("multilabel_margin_loss_forward_out_frame", x)
    xu = _upcast(x)
    pairs = ms.Tensor((counts[:, :, None] * ~is_target[:, None, :]).astype(dtype_of(xu)._np))
    # z[n, j, i] = 1 - (x[n, j] - x[n, i]) for target j and non-target i, counted when z > 0
    z = ops.add(ops.sub(_c(1, xu), xu.expand_dims(2)), xu.expand_dims(1))
    h = ops.where(ops.greater(z, _c(0, z)), z, _c(0, z))
    # only the counted pairs: an infinite z elsewhere would give 0 * inf = nan
    h = ops.where(ops.greater(pairs, _c(0, pairs)), ops.mul(h, pairs), _c(0, z))
    loss = ops.div(ops.sum(h, (1, 2)), _c(C, xu))
    if input.ndim < 2:
        loss = loss.reshape(())
    out = _reduce(loss, mode)
    return cast(out, input.dtype) if input.dtype in _HALF else out


# --- CTC: MindSpore's CTCLossV2 CPU kernel matches torch's values and gradients ---------------------

def _lengths(v, name, n):
    a = np.asarray(read_host(v) if isinstance(v, ms.Tensor) else v, np.int64).reshape(-1)
    if a.size != n:
        raise RuntimeError(f"{name} must be of size batch_size")
    return a


def _ctc_strided_targets(tn, stride, tl):
    """The labels torch's CPU ctc_loss reads from a strided 1-D ``targets``: label s of sequence i at
    ``offset_i + s * stride`` elements from the first, where offset_i (the sum of the earlier target
    lengths) is not scaled by the stride. Where that is not an element of the view (outside the tensor, or
    between its elements), torch reads other memory: refused."""
    out = np.zeros(int(tl.sum()), np.int64)
    start = 0
    for n in tl:
        rel = start + np.arange(n) * stride
        j = rel // stride if stride else rel
        if ((rel % stride != 0) if stride else (rel != 0)).any() or (j >= tn.size).any():
            raise RuntimeError("ctc_loss: torch's CPU kernel reads a 1-D targets tensor of stride "
                               f"{stride} at unscaled offsets, outside its elements here; pass "
                               "targets.contiguous()")
        out[start:start + n] = tn[j]
        start += n
    return out


@register("ctc_loss", family=F, namespace="nn.functional")
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    mode = _mode(reduction)
    for name, v in (("input_lengths", input_lengths), ("target_lengths", target_lengths)):
        if isinstance(v, ms.Tensor) and dtype_of(v)._cat != D._INT:
            raise RuntimeError(f"{name} must be integral")   # (torch's check before the kernel's dtype)
    # torch's order: the unbatched unsqueeze, the kernel's dtype dispatch, then ctc_loss_allocate_outputs' checks
    batched = log_probs.ndim == 3
    if log_probs.ndim == 0:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    lp = log_probs if batched else log_probs.expand_dims(1)
    if lp.dtype not in (_f32, _f64):
        _not_impl("ctc_loss_cpu", lp)
    if lp.size == 0:
        raise RuntimeError("log_probs tensor must not be empty")
    where = " (while checking arguments for ctc_loss_allocate_outputs)"
    if lp.ndim != 3:
        raise RuntimeError(f"Expected 3-dimensional tensor, but got {lp.ndim}-dimensional tensor for argument #1 "
                           f"'log_probs'{where}")
    if not 1 <= targets.ndim <= 2:
        raise RuntimeError(f"Expected 1 to 2 dimensions, but got {targets.ndim}-dimensional tensor for argument #2 "
                           f"'targets'{where}")
    T, N, C = lp.shape
    if not 0 <= blank < C:
        raise RuntimeError("blank must be in label range")
    il = _lengths(input_lengths, "input_lengths", N)
    tl = _lengths(target_lengths, "target_lengths", N)
    for v in tl:
        if v < 0:
            raise RuntimeError(f"Expected target_lengths to have value at least 0, but got value {v}{where}")
    want = int(tl.sum()) if targets.ndim == 1 else N
    if targets.shape[0] != want:
        raise RuntimeError(f"Expected tensor to have size {want} at dimension 0, but got size {targets.shape[0]} "
                           f"for argument #2 'targets'{where}")
    if targets.ndim == 2 and targets.shape[1] < tl.max(initial=0):
        raise RuntimeError(f"Expected tensor to have size at least {tl.max()} at dimension 1, but got size "
                           f"{targets.shape[1]} for argument #2 'targets'{where}")
    for v in il:
        if v < 0:
            raise RuntimeError(f"Expected input_lengths to have value at least 0, but got value {v}{where}")
        if v > T:
            raise RuntimeError(f"Expected input_lengths to have value at most {T}, but got value {v}{where}")
    tn = read_host(targets).astype(np.int64)
    if tn.ndim == 1 and tn.size > 1 and targets.stride()[0] != 1:
        tn = _ctc_strided_targets(tn, targets.stride()[0], tl)
    S = max(int(tl.max()) if tl.size else 0, 1)
    if tn.ndim == 2:
        padded = tn
    else:       # one flat sequence of all targets, split by target_lengths
        padded = np.zeros((N, S), np.int64)
        ends = np.cumsum(tl)
        for i in range(N):
            padded[i, :tl[i]] = tn[ends[i] - tl[i]:ends[i]]
    used = np.arange(padded.shape[1])[None, :] < tl[:, None]
    bad = used & ((padded < 0) | (padded >= C))
    if bad.any():
        # torch's CPU kernel does not check: it reads (and in backward writes) memory outside log_probs and
        # its gradient, returning garbage or corrupting the heap; MindSpore's reads outside too
        raise RuntimeError(f"ctc_loss: target label {padded[bad][0]} is out of range for {C} classes (torch's "
                           "CPU kernel reads and writes outside its tensors there)")
    # the kernel refuses input_length < target_length (torch: an infinite loss); those rows run with an
    # empty target and are replaced below
    short = il < tl
    loss = ops.ctc_loss(lp, ms.Tensor(np.ascontiguousarray(padded)), ms.Tensor(il), ms.Tensor(np.where(short, 0, tl)),
                        blank, "none", bool(zero_infinity))[0]
    if short.any():
        loss = ops.where(ms.Tensor(short), _c(0.0 if zero_infinity else float("inf"), loss), loss)
    if zero_infinity:
        # MindSpore zeroes the gradient of infinite losses but still returns inf
        loss = ops.where(ops.isinf(loss), _c(0.0, loss), loss)
    if mode == "mean":
        loss = ops.mean(ops.div(loss, ms.Tensor(np.maximum(tl, 1).astype(dtype_of(loss)._np))))
    elif mode == "sum":
        loss = ops.sum(loss)
    return loss if batched or mode != "none" else loss.reshape(())

