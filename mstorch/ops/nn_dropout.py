"""torch.nn.functional dropout family: dropout, dropout1d/2d/3d, alpha_dropout, feature_alpha_dropout.

torch's CPU dropout (ATen ``_dropout_impl``) draws ``noise = empty_like(x).bernoulli_(1 - p)`` (one value
per channel, shape (N, C, 1, ...), for the feature forms), scales it (``noise / (1 - p)``, or alpha
dropout's affine pair) and returns ``x * noise`` (``+ b``). The noise comes from ``mstorch.random``, which
reproduces torch's generator, and is scaled on the host in torch's order and dtype, so with the same seed
the output is bit-identical to torch's; the product is one recorded ``mul``, whose gradient is
``grad * noise`` as in torch.
"""
import math
import warnings

import numpy as np
import mindspore as ms
from mindspore import ops

from .. import _dtype as D
from .. import random as R
from .._tensor import wrap, scalar_type_name
from .._cast import cast, bf16_bits
from ._registry import register

F = "nn.dropout"
_ALPHA = 1.7580993408473766   # -SELU's negative saturation: scale * alpha
_f32 = np.float32


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _host_dtype(dt):
    # half and bfloat16 compute in float (torch's opmath) and round once per op
    return np.float64 if dt is D.float64 else _f32


def _round(arr, dt):
    return arr if dt in (D.float32, D.float64) else R.to_host(arr, dt).astype(_f32)


def _device(arr, dt):
    arr = np.ascontiguousarray(arr)
    if dt is D.bfloat16:
        return cast(ms.Tensor(arr.astype(_f32)), ms.bfloat16)
    return ms.Tensor(arr.astype(dt._np, copy=False))


def _noise_shape(shape, feature):
    if not feature:
        return shape
    if len(shape) < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return shape[:2] + (1,) * (len(shape) - 2)


def _apply(input, p, train, inplace, feature=False, alpha=False, batched=True):
    """ATen's _dropout_impl on an mstorch Tensor; ``batched=False`` handles torch's unsqueeze(0)."""
    _check_p(p)
    x = input._ms
    if p == 0 or not train or x.size == 0:
        return input
    dt = input.dtype
    shape = tuple(x.shape) if batched else (1,) + tuple(x.shape)
    if p == 1:
        out = ops.mul(x, ops.zeros((), x.dtype))
        return input._write(out) if inplace else wrap(out)
    nshape = _noise_shape(shape, feature)
    if not dt.is_floating_point:
        R.bernoulli_scalar(R.default_generator, int(np.prod(nshape)), 1 - p)   # torch draws before failing
        raise RuntimeError(f"result type Float can't be cast to the desired output type {scalar_type_name(dt)}")
    hd = _host_dtype(dt)
    keep = R.bernoulli_scalar(R.default_generator, int(np.prod(nshape)), 1 - p).reshape(nshape)
    noise = _round(keep.astype(hd), dt)
    if not batched:
        nshape = nshape[1:]
        noise = noise.reshape(nshape)
    if alpha:
        a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
        b = _round((noise - hd(1)) * hd(_ALPHA * a), dt)
        b = _round(b + hd(_ALPHA * a * p), dt)
        noise = _round(noise * hd(a), dt)
        out = ops.add(ops.mul(x, _device(noise, dt)), _device(b, dt))
    elif dt in (D.float16, D.bfloat16) and keep.ndim:
        # two values only, 0 and round(1 / (1 - p)): built in the dtype's own bits in one pass
        scale = hd(1) / hd(1 - p)
        if dt is D.float16:
            noise_t = ms.from_numpy(np.where(keep.reshape(nshape), np.float16(scale), np.float16(0)))
            out = ops.mul(x, noise_t)
        else:   # MindSpore's bfloat16 mul is ~4x slower than a float32 mul between two casts, and
            # rounds the same (torch's bfloat16 mul computes in float32 and rounds once)
            s16 = (np.uint32(bf16_bits(scale)) << np.uint32(16)).view(_f32)
            noise_t = ms.from_numpy(np.where(keep.reshape(nshape), s16, _f32(0)))
            out = cast(ops.mul(cast(x, ms.float32), noise_t), ms.bfloat16)
    else:
        noise = _round(noise / hd(1 - p), dt)
        out = ops.mul(x, _device(noise, dt))
    return input._write(out) if inplace else wrap(out)


@register("dropout", family=F, method=False, functional=True, raw=True)
def dropout(input, p=0.5, training=True, inplace=False, *, train=None):
    # torch.dropout(input, p, train) shares this entry with F.dropout(input, p, training, inplace)
    return _apply(input, p, training if train is None else train, inplace)


@register("alpha_dropout", family=F, method=False, functional=True, raw=True)
def alpha_dropout(input, p=0.5, training=False, inplace=False, *, train=None):
    return _apply(input, p, training if train is None else train, inplace, alpha=True)


@register("feature_alpha_dropout", family=F, method=False, functional=True, raw=True)
def feature_alpha_dropout(input, p=0.5, training=False, inplace=False, *, train=None):
    return _apply(input, p, training if train is None else train, inplace, feature=True, alpha=True)


@register("feature_dropout", family=F, method=False, raw=True)
def feature_dropout(input, p, train):
    return _apply(input, p, train, False, feature=True)


@register("dropout1d", family=F, function=False, method=False, functional=True, raw=True)
def dropout1d(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    n = input.dim()
    if n not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {n}D input. Note that dropout1d exists to "
            "provide channel-wise dropout on inputs with 1 spatial dimension, a channel dimension, and an "
            "optional batch dimension (i.e. 2D or 3D inputs).")
    return _apply(input, p, training, inplace, feature=True, batched=n == 3)


@register("dropout2d", family=F, function=False, method=False, functional=True, raw=True)
def dropout2d(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    n = input.dim()
    if n not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {n}-D input to dropout2d, which is deprecated and will result in an error "
            "in a future release. To retain the behavior and silence this warning, please use dropout instead. "
            "Note that dropout2d exists to provide channel-wise dropout on inputs with 2 spatial dimensions, a "
            "channel dimension, and an optional batch dimension (i.e. 3D or 4D inputs).", stacklevel=3)
    if n == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior is "
            "desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior will "
            "change in a future release to interpret the input as one without a batch dimension, i.e. shape "
            "(C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using dropout1d "
            "instead.", stacklevel=3)
    return _apply(input, p, training, inplace, feature=True)


@register("dropout3d", family=F, function=False, method=False, functional=True, raw=True)
def dropout3d(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    n = input.dim()
    if n not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {n}-D input to dropout3d, which is deprecated and will result in an error "
            "in a future release. To retain the behavior and silence this warning, please use dropout instead. "
            "Note that dropout3d exists to provide channel-wise dropout on inputs with 3 spatial dimensions, a "
            "channel dimension, and an optional batch dimension (i.e. 4D or 5D inputs).", stacklevel=3)
    return _apply(input, p, training, inplace, feature=True, batched=n == 5)
