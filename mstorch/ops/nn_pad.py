"""torch.nn.functional.pad: constant / reflect / replicate / circular, torch's last-dim-first pad list.

MindSpore 2.10's PadV3 CPU kernel matches torch for constant padding of any rank and for reflect /
replicate / circular with non-negative pads (reflect only up to 4-D input). The rest (negative pads,
5-D reflect) is one gather per padded dim with indices computed here; bfloat16 moves through float32
(exact: data movement only).
"""
import functools

import numpy as np
import mindspore as ms
from .._runtime import read_host
from . import _msops as ops

from ._helpers import dtype_of, cast
from ._registry import register
from ..autograd._higher_order import recompute_as

F = "nn.pad"
_MODES = ("constant", "reflect", "replicate", "circular")


def _check_pad_list(pad):
    if not isinstance(pad, (tuple, list)):
        raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, not {type(pad).__name__}")
    out = []
    for i, p in enumerate(pad):
        if isinstance(p, ms.Tensor) and p.ndim == 0 and not dtype_of(p).is_floating_point:
            p = int(read_host(p))
        if isinstance(p, bool) or not isinstance(p, int):
            if hasattr(p, "__index__") and not isinstance(p, (bool, float)):
                p = p.__index__()
            else:
                raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, but found element "
                                f"of type {type(p).__name__} at pos {i}")
        out.append(p)
    return out


@register("pad", family=F, namespace="nn.functional")
def pad(input, pad, mode="constant", value=None):
    pad = _check_pad_list(pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension "
                           f"but got padding length {len(pad)} and input of dimension {input.ndim}")
    if mode not in _MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if mode == "constant":
        return _constant(input, pad, 0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    k = len(pad) // 2
    if k not in (1, 2, 3) or input.ndim not in (k + 1, k + 2):
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.")
    dims = [(input.ndim - 1 - i, pad[2 * i], pad[2 * i + 1]) for i in range(k)]
    kind = "reflection" if mode == "reflect" else "replication"
    if input.dtype == ms.bool_ and mode != "circular":
        raise NotImplementedError(f"\"{kind}_pad{k}d\" not implemented for 'Bool'")
    if mode != "circular" and 0 in input.shape[input.ndim - k - 1:]:   # (only a batch dim may be empty)
        raise RuntimeError(f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 batch size "
                           f"and other non-zero dimensions for input, but got: {list(input.shape)}")
    for dim, lo, hi in dims:
        size = input.shape[dim]
        if mode == "reflect" and (lo >= size or hi >= size):
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input "
                               f"dimension, but got: padding ({lo}, {hi}) at dimension {dim} of input "
                               f"{list(input.shape)}")
        if mode == "circular" and (lo > size or hi > size):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if size + lo + hi < 0 or mode != "circular" and size + lo + hi <= 0:
            raise RuntimeError(f"input (W: {size}) is too small. Calculated output W: {size + lo + hi}")
    dt = input.dtype
    if input.size == 0:   # (MindSpore's pad kernel refuses an empty output; nothing to gather)
        shape = list(input.shape)
        for dim, lo, hi in dims:
            shape[dim] += lo + hi
        return ops.zeros(tuple(shape), dt)
    x = cast(input, ms.float32) if dt == ms.bfloat16 else cast(input, ms.uint8) if dt == ms.bool_ else input
    if mode == "circular" and any(lo < 0 or hi < 0 for _, lo, hi in dims):
        # torch crops first, then wraps around the cropped tensor
        x, pad = ops.crop_negative(x, pad)
        dims = [(d, max(lo, 0), max(hi, 0)) for d, lo, hi in dims]
    if all(lo >= 0 and hi >= 0 for _, lo, hi in dims) and (mode != "reflect" or k <= 2):
        # MindSpore's reflect kernel stops at 4-D, counting the batch dim it adds for 3 padded dims; its
        # gradient kernel has no backward, so double backward differentiates the gathers instead
        out = recompute_as(ops.pad(x, tuple(pad), mode), _gathered, x, mode, tuple(dims))
    else:
        out = _gathered(x, mode, dims)
    return cast(out, dt) if out.dtype != dt else out


def _gathered(x, mode, dims):
    """Non-constant padding as one gather per padded dim."""
    for dim, lo, hi in dims:
        if lo or hi:
            x = ops.gather(x, _indices(mode, x.shape[dim], lo, hi), dim)
    return x


def _constant(input, pad, value):
    # torch first narrows the input by the negative pads, outer dims first, left pad before right
    for i in reversed(range(len(pad) // 2)):
        size = input.shape[input.ndim - 1 - i]
        for p in pad[2 * i:2 * i + 2]:
            size += min(p, 0)
            if size < 0:
                raise RuntimeError("narrow(): length must be non-negative.")
    dt = input.dtype
    d = dtype_of(input)
    if dt == ms.bool_:
        value = bool(value)
    elif not (d.is_floating_point or d.is_complex):
        value = int(value)
    if dt == ms.bfloat16:
        return cast(ops.pad(cast(input, ms.float32), tuple(pad), "constant", value), dt)
    return ops.pad(input, tuple(pad), "constant", value)


@functools.lru_cache(maxsize=512)
def _indices(mode, size, lo, hi):
    i = np.arange(-lo, size + hi)
    if mode == "reflect":
        period = 2 * (size - 1)
        i = np.abs(i) % period if period else np.zeros_like(i)
        i = np.where(i >= size, period - i, i)
    elif mode == "replicate":
        i = np.clip(i, 0, size - 1)
    else:
        i = i % size
    return ms.Tensor(i.astype(np.int32))
