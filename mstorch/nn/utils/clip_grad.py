"""torch.nn.utils clip_grad_norm_, clip_grad_value_, get_total_norm, clip_grads_with_norm_.

clip_grad_norm_ runs on every training step, so it is a handful of kernels whatever the number of
parameters: the gradients of one dtype are flattened into one vector and reduced once (a p-norm of
per-tensor p-norms equals the p-norm of all elements, for every p but 0), the clip coefficient is
computed on the host with torch's float32 arithmetic (``max_norm * (1 / (total + 1e-6))``, clamped at 1),
and gradients are rescaled only when the coefficient is below 1 (multiplying by 1.0 changes nothing).
``foreach`` is accepted and ignored: MindSpore has no multi-tensor kernels, and the result is the same.
Rescaled gradients are new tensors set as ``.grad`` (torch rescales in place): references kept to an
older ``.grad`` are not updated, as with MindSpore's accumulation (docs/known-differences.md).
"""
import math
import types
import warnings

import numpy as np
import mindspore as ms
from ...ops import _msops as ops

from ... import _dtype as D
from ... import _ms_private as P
from ..._tensor import Tensor, wrap
from ...autograd.grad_mode import no_grad
from ...ops.comparison import clamp as _clamp
from ...ops.reduction import vector_norm as _vector_norm

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_"]

_LOW = (ms.float16, ms.bfloat16)


def _norm(x, p):
    if x.dtype in _LOW:
        return _vector_norm(x.astype(ms.float32), p, (), False).astype(x.dtype)
    return _vector_norm(x, p, (), False)


def _group_norms(raws, p):
    """Norms whose p-norm is the p-norm over a list of same-dtype tensors."""
    if p == 0:   # torch: vector_norm(stack(per-tensor counts), 0) counts the tensors holding a non-zero
        return [_norm(g, p) for g in raws]
    if len(raws) == 1:
        return [_norm(raws[0], p)]
    return [_norm(ops.concat([g.reshape(-1) for g in raws]), p)]


def _as_list(tensors):
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    with no_grad():
        tensors = _as_list(tensors)
        norm_type = float(norm_type)
        if not tensors:
            return wrap(ms.Tensor(np.float32(0.0)))
        groups = {}
        for t in tensors:
            groups.setdefault(t._ms.dtype, []).append(t._ms)
        norms = [n for raws in groups.values() for n in _group_norms(raws, norm_type)]
        if len(norms) == 1 and norm_type != 0:
            total = norms[0]
        else:
            dt = norms[0].dtype
            for n in norms[1:]:
                dt = D.promote_types(D._FROM_MS[dt], D._FROM_MS[n.dtype])._ms
            total = _norm(ops.stack([n.astype(dt) for n in norms]), norm_type)
        total = wrap(total)
        if error_if_nonfinite and not math.isfinite(total.item()):
            raise RuntimeError(
                f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it cannot be "
                "clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
                "`error_if_nonfinite=False`")
        return total


def _coefficient(max_norm, total_norm):
    """torch's clamp(max_norm / (total_norm + 1e-6), max=1.0), in the total norm's dtype, on the host."""
    dt = total_norm.dtype
    host = np.float64 if dt is D.float64 else np.float32
    t = host(total_norm.item())
    x = t + host(1e-6)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        coef = (host(1.0) / x) * host(max_norm)      # python float / tensor is reciprocal() * float in torch
    return min(coef, host(1.0)) if not np.isnan(coef) else coef


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    params = _as_list(parameters)
    pairs = [(p, P.grad(p._ms)) for p in params]
    pairs = [(p, g) for p, g in pairs if g is not None]
    max_norm = float(max_norm)
    if not pairs:
        return
    coef = _coefficient(max_norm, total_norm)
    if coef == 1.0:
        return
    cache = {}
    for p, g in pairs:
        c = cache.get(g.dtype)
        if c is None:
            c = cache[g.dtype] = ms.Tensor(np.asarray(coef, np.float32 if g.dtype in _LOW else coef.dtype)).astype(g.dtype)
        P.set_grad(p._ms, ops.mul(g, c))


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=2)
    grads = [wrap(g) for g in (P.grad(p._ms) for p in parameters) if g is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    params = _as_list(parameters)
    clip_value = float(clip_value)
    for p in params:
        g = P.grad(p._ms)
        if g is not None:
            P.set_grad(p._ms, _clamp(g, -clip_value, clip_value))   # NaN passes through, as torch
