"""torch.nn.functional distances (pairwise_distance, cosine_similarity) and the triplet losses built on them."""
import numpy as np
import mindspore as ms
from . import _msops as ops

from .. import _dtype as D
from .._tensor import scalar_type_name
from ._helpers import promote, result_type, wrap_dim, cast, dtype_of
from ._registry import PUBLIC, register
from .nn_loss import F, _HALF, _bf16_value, _broadcast_checked, _c, _in_float, _mode, _reduce, _rounded_steps, _sg
from .reduction import vector_norm
from .arithmetic import abs as _abs, _sub_bool_error


@register("pairwise_distance", family="nn.distance", namespace=("torch", "nn.functional"))
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    a, b, rt = promote(x1, x2)
    if rt is D.bool_:
        _sub_bool_error(a, b)
    nd = max(a.ndim, b.ndim)
    half = a.dtype if a.dtype in _HALF else None
    if half is not None:
        # torch rounds the difference, and the difference plus eps, to the half type (each step computed in
        # float32): an unrounded difference can give a norm one ulp off, and the triplet losses' min a tie
        step = _rounded_steps(half)
        d = step(ops.sub(cast(a, ms.float32), cast(b, ms.float32)))
        d = step(ops.add(d, _c(float(eps), d)))
    else:
        # torch adds eps as a double: integer differences become the default float dtype
        d, e, _ = promote(ops.sub(a, b), float(eps))
        d = ops.add(d, e)
    if d.dtype in (ms.complex64, ms.complex128):
        d = _abs(d)   # a complex difference's norms are its magnitudes' norms, and real as torch's
    if d.ndim and abs(p) == float("inf") and d.shape[max(nd - 1, 0)] == 0:   # (max/min have no identity)
        raise RuntimeError(f"linalg.vector_norm cannot compute the {'inf' if p > 0 else '-inf'} norm on the "
                           f"dimension {max(nd - 1, 0)}because this dimension is empty and the operation does not "
                           f"have an identity")
    if d.ndim == 0:
        r = ops.abs(d) if p != 0 else cast(ops.ne(d, _c(0, d)), d.dtype)
    else:
        r = _in_float(lambda v: vector_norm(v, p, (max(nd - 1, 0),), keepdim), d)
    return r if half is None else cast(r, half)


def _clamped_norm(n, eps):
    # torch clamps the norm in place under no_grad: the value is max(n, eps), the gradient n's. Only
    # the norms below eps move, so an infinite norm stays infinite (x / inf is 0, not NaN)
    small = ops.less(n, _c(eps, n))
    return ops.where(small, ops.add(n, _sg(ops.sub(_c(eps, n), n))), n)


@register("cosine_similarity", family="nn.distance", namespace=("torch", "nn.functional"))
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    rt = result_type(x1, x2)
    if rt._cat < D._FLOAT:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is {scalar_type_name(rt)}")
    # torch converts only integer operands to the common dtype and normalises each operand in its own
    # dtype before the product (which promotes): a float32 operand beside a float64 one is divided by its
    # float32 norm
    a, b = (cast(x, rt._ms) if dtype_of(x)._cat < D._FLOAT else x for x in (x1, x2))
    a, b = _broadcast_checked(a, b)
    axis = wrap_dim(dim, a.ndim)
    if a.ndim == 0:   # (0-d operands: the norms over their one element; the sum over it is 0-d again)
        a, b = a.reshape(1), b.reshape(1)

    def unit(u):
        # the norm rounded to u's dtype, then the quotient (half types: each step in float32, rounded once)
        # torch clamps the norms in place under no_grad: the gradient ignores the clamp
        nu = _in_float(lambda w: _clamped_norm(vector_norm(w, 2, (axis,), True), eps), u)
        return _in_float(ops.div, u, nu)
    u, v, _ = promote(unit(a), unit(b))
    return _in_float(lambda w: ops.sum(w, axis), _in_float(ops.mul, u, v))


@register("triplet_margin_loss", family=F, namespace="nn.functional")
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    mode = _mode(reduction, size_average, reduce)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {anchor.ndim}D, positive {positive.ndim}D, and negative "
                           f"{negative.ndim}D inputs")
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    d_swap = pairwise_distance(positive, negative, p, eps) if swap else None
    half = d_pos.dtype if d_pos.dtype in _HALF and d_neg.dtype == d_pos.dtype else None
    if half is None:
        d_neg = d_neg if d_swap is None else ops.minimum(d_neg, d_swap)
        return _reduce(ops.clamp(ops.sub(ops.add(d_pos, _c(margin, d_pos)), d_neg), 0.0), mode)
    # torch rounds the margin, margin + d_pos and the difference to the half type (each computed in float32:
    # MindSpore's CPU Sub and Minimum have no bfloat16 kernel; the distances are half values already)
    step = _rounded_steps(half)
    m = _bf16_value(margin) if half == ms.bfloat16 else float(np.float16(margin))
    d_pos, d_neg = cast(d_pos, ms.float32), cast(d_neg, ms.float32)
    if d_swap is not None:
        d_neg = ops.minimum(d_neg, cast(d_swap, ms.float32))
    loss = step(ops.sub(step(ops.add(d_pos, _c(m, d_pos))), d_neg))
    return _reduce(cast(ops.clamp(loss, 0.0), half), mode)


@register("triplet_margin_with_distance_loss", family=F, namespace="nn.functional", raw=True)
def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False,
                                      reduction="mean"):
    # raw: distance_function is any callable on mstorch Tensors (a Module, a lambda)
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {anchor.ndim}D, positive {positive.ndim}D, and negative "
                           f"{negative.ndim}D inputs")
    dist = distance_function if distance_function is not None else PUBLIC["pairwise_distance"]
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    if swap:
        d_neg = PUBLIC["minimum"](d_neg, dist(positive, negative))
    loss = PUBLIC["clamp_min"](margin + d_pos - d_neg, 0)
    if reduction == "sum":
        return PUBLIC["sum"](loss)
    if reduction == "mean":
        return PUBLIC["mean"](loss)
    return loss
