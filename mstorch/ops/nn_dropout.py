"""torch.nn.functional dropout family: dropout, dropout1d/2d/3d, alpha_dropout, feature_alpha_dropout.

torch's CPU dropout (ATen ``_dropout_impl``) draws ``noise = empty_like(x).bernoulli_(1 - p)`` (one value
per channel, shape (N, C, 1, ...), for the feature forms), scales it (``noise / (1 - p)``, or alpha
dropout's affine pair) and returns ``x * noise`` (``+ b``). The noise comes from ``mstorch.random``, which
reproduces torch's generator, and is scaled on the host in torch's order and dtype, so with the same seed
the output is bit-identical to torch's; the product is one recorded ``mul``, whose gradient is
``grad * noise`` as in torch.

Contiguous float16/bfloat16 inputs on CPU skip MindSpore's half-precision ``mul`` (slower than all of
torch's dropout; the host pass costs less at every size): one host pass (``_fastrng.c``'s ``ms_scale_f16``/``ms_scale_bf16``, or the NumPy code
of ``_scale_numpy``) widens x to float32, multiplies by the noise and rounds once, as torch's half ``mul``
does, NaN bits included (see ``_aten_split``). The gradient, ``grad * noise``, is the same pass again.
"""
import math
import warnings

import numpy as np
import mindspore as ms
from .._runtime import read_host
from . import _msops as ops

from .. import _dtype as D
from .. import random as R
from .. import _runtime
from .._random import native
from .._random.exact import _CAPABILITY
from ..autograd.function import Function
from ..autograd.grad_mode import is_grad_enabled
from .._tensor import wrap, scalar_type_name
from .._cast import cast, bf16_bits
from ._registry import register
from .random import device_bernoulli_mask, in_memory_order

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
    if dt in (D.float32, D.float64):
        return arr
    return R.to_host(arr, dt).astype(_f32).reshape(np.shape(arr))   # (to_host makes a 0-d array 1-d)


def _device(arr, dt):
    arr = np.ascontiguousarray(arr).reshape(np.shape(arr))   # (ascontiguousarray makes a 0-d array 1-d)
    if dt is D.bfloat16:
        return cast(ms.Tensor(arr.astype(_f32)), ms.bfloat16)
    return ms.Tensor(arr.astype(dt._np, copy=False))


def _noise_shape(shape, feature):
    if not feature:
        return shape
    if len(shape) < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return shape[:2] + (1,) * (len(shape) - 2)


# --- float16/bfloat16 product on the host -------------------------------------------------------------

# No size threshold: the host pass costs less than MindSpore's mul at every size (per call on a 2-core
# host: 1 element 0.06 ms against 0.12 ms, 1024 elements 0.13 against 0.5, 2**20 ~0.6 against ~10).
_GRAIN = 32768              # ATen's internal::GRAIN_SIZE


def _bf16_value(v):
    """float32 value of v rounded to bfloat16."""
    return (np.uint32(bf16_bits(v)) << np.uint32(16)).view(_f32)


def _host_ok(input, feature):
    return not feature and _runtime.host_workarounds() and input._ms.is_contiguous()


def _aten_split(n):
    """(chunk, block): ATen's mul splits n elements over at most get_num_threads() chunks of at least
    _GRAIN (parallel_for), and vectorises each chunk over whole blocks of two 16-wide vectors on AVX2/AVX512
    builds, leaving the rest to a scalar loop. Only bfloat16 NaN bits depend on it (0xffff vectorised,
    0x7fc0 scalar); on the DEFAULT build, and untested non-x86 builds, all of it counts as scalar."""
    threads = _runtime.get_num_threads()
    chunk = n
    if n >= _GRAIN and threads > 1:
        tasks = min(threads, -(-n // _GRAIN))
        chunk = -(-n // tasks)
    return chunk, (32 if _CAPABILITY["name"] == "avx2" else 0)


def _scale_numpy(x16, keep, s, bf16, chunk, block):
    """The NumPy form of ms_scale_f16 / ms_scale_bf16: round(float32(x) * (keep ? s : 0))."""
    with np.errstate(invalid="ignore", over="ignore"):
        return _scale_numpy_(x16, keep, s, bf16, chunk, block)


def _scale_numpy_(x16, keep, s, bf16, chunk, block):
    noise = np.where(keep.view(np.bool_), _f32(s), _f32(0))
    if not bf16:
        return (x16.view(np.float16).astype(_f32) * noise).astype(np.float16).view(np.uint16)
    b = ((x16.astype(np.uint32) << np.uint32(16)).view(_f32) * noise).view(np.uint32)
    out = ((b + np.uint32(0x7fff) + ((b >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)).astype(np.uint16)
    nan = (b & np.uint32(0x7fffffff)) > np.uint32(0x7f800000)
    if nan.any():
        vec = np.zeros(x16.size, np.bool_)
        for c in range(0, x16.size, chunk):
            length = min(chunk, x16.size - c)
            vec[c:c + (length - length % block if block else 0)] = True
        out[nan] = np.where(vec[nan], np.uint16(0xffff), np.uint16(0x7fc0))
    return out


def _half_product(t, keep, s):
    """round(t * noise) for a contiguous float16/bfloat16 mindspore Tensor, as a new mindspore Tensor."""
    bf16 = t.dtype == ms.bfloat16
    x16 = np.ascontiguousarray(read_host(t)).reshape(-1).view(np.uint16)
    n = x16.size
    chunk, block = _aten_split(n)
    if native.on():
        out = np.empty(n, np.uint16)
        if bf16:
            native.LIB.ms_scale_bf16(x16.ctypes.data, keep.ctypes.data, s, out.ctypes.data, n, chunk, block)
        else:
            native.LIB.ms_scale_f16(x16.ctypes.data, keep.ctypes.data, s, out.ctypes.data, n)
    else:
        out = _scale_numpy(x16, keep, s, bf16, chunk, block)
    out = out.reshape(t.shape)
    return ms.from_numpy(out).view(ms.bfloat16) if bf16 else ms.from_numpy(out.view(np.float16))


class Mul(Function):
    """x * noise with the gradient grad * noise, both on the host; twice differentiable like torch's mul,
    and named after it (grad_fn: MulBackward, torch's MulBackward0)."""

    @staticmethod
    def forward(ctx, x, keep, s):
        ctx.keep, ctx.s = keep, s
        return wrap(_half_product(x._ms, keep, s))

    @staticmethod
    def backward(ctx, grad):
        if grad.requires_grad and is_grad_enabled():
            return Mul.apply(grad, ctx.keep, ctx.s), None, None
        return wrap(_half_product(grad._ms, ctx.keep, ctx.s)), None, None


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
    if input._dev is not None and dt.is_floating_point and not alpha:
        # on a device the mask comes from its generator (torch draws CUDA dropout from the CUDA generator)
        noise = ops.div(cast(device_bernoulli_mask(input._dev, nshape if batched else nshape[1:], 1 - p), x.dtype),
                        1 - p)
        out = ops.mul(x, noise)
        return input._write(out) if inplace else wrap(out)
    if dt.is_complex:   # torch draws its noise like the input: no complex bernoulli kernel (nothing drawn)
        raise NotImplementedError(f"\"bernoulli_scalar_cpu_\" not implemented for '{scalar_type_name(dt)}'")
    if not dt.is_floating_point:
        R.bernoulli_scalar(R.default_generator, int(np.prod(nshape)), 1 - p)   # torch draws before failing
        raise RuntimeError(f"result type Float can't be cast to the desired output type {scalar_type_name(dt)}")
    hd = _host_dtype(dt)
    keep = R.bernoulli_scalar(R.default_generator, int(np.prod(nshape)), 1 - p)
    # torch's noise is empty_like(input), filled in its memory order
    keep = keep.reshape(nshape) if feature else in_memory_order(input, keep)
    if not alpha and dt in (D.float16, D.bfloat16) and _host_ok(input, feature):
        with np.errstate(over="ignore"):     # float16's scale overflows to inf for p near 1, as in torch
            s = _f32(np.float16(hd(1) / hd(1 - p))) if dt is D.float16 else _bf16_value(hd(1) / hd(1 - p))
        keep = keep.reshape(-1).view(np.uint8)
        if input.requires_grad and is_grad_enabled():
            out = Mul.apply(input, keep, s)._ms
        else:
            out = _half_product(x, keep, s)
        return input._write(out) if inplace else wrap(out)
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
            s16 = _bf16_value(scale)
            noise_t = ms.from_numpy(np.where(keep.reshape(nshape), s16, _f32(0)))
            out = cast(ops.mul(cast(x, ms.float32), noise_t), ms.bfloat16)
    else:
        noise = _round(noise / hd(1 - p), dt)
        out = ops.mul(x, _device(noise, dt))
    return input._write(out) if inplace else wrap(out)


@register("dropout", family=F, namespace=("torch", "nn.functional"), raw=True)
def dropout(input, p=0.5, training=True, inplace=False, *, train=None):
    # torch.dropout(input, p, train) shares this entry with F.dropout(input, p, training, inplace)
    return _apply(input, p, training if train is None else train, inplace)


@register("alpha_dropout", family=F, namespace=("torch", "nn.functional"), raw=True)
def alpha_dropout(input, p=0.5, training=False, inplace=False, *, train=None):
    return _apply(input, p, training if train is None else train, inplace, alpha=True)


@register("feature_alpha_dropout", family=F, namespace=("torch", "nn.functional"), raw=True)
def feature_alpha_dropout(input, p=0.5, training=False, inplace=False, *, train=None):
    return _apply(input, p, training if train is None else train, inplace, feature=True, alpha=True)


@register("feature_dropout", family=F, namespace="torch", raw=True)
def feature_dropout(input, p, train):
    return _apply(input, p, train, False, feature=True)


@register("dropout1d", family=F, namespace="nn.functional", raw=True)
def dropout1d(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    n = input.dim()
    if n not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {n}D input. Note that dropout1d exists to "
            "provide channel-wise dropout on inputs with 1 spatial dimension, a channel dimension, and an "
            "optional batch dimension (i.e. 2D or 3D inputs).")
    return _apply(input, p, training, inplace, feature=True, batched=n == 3)


@register("dropout2d", family=F, namespace="nn.functional", raw=True)
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


@register("dropout3d", family=F, namespace="nn.functional", raw=True)
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


# torch's in-place top-level forms (what F.dropout(..., inplace=True) and friends call): the same draws
@register("dropout_", family=F, namespace="torch", raw=True)
def dropout_(input, p, train):
    return _apply(input, p, train, True)


@register("alpha_dropout_", family=F, namespace="torch", raw=True)
def alpha_dropout_(input, p, train):
    return _apply(input, p, train, True, alpha=True)


@register("feature_dropout_", family=F, namespace="torch", raw=True)
def feature_dropout_(input, p, train):
    return _apply(input, p, train, True, feature=True)


@register("feature_alpha_dropout_", family=F, namespace="torch", raw=True)
def feature_alpha_dropout_(input, p, train):
    return _apply(input, p, train, True, feature=True, alpha=True)
