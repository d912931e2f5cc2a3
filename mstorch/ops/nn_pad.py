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
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\n"
                                  "Supported combinations for non-constant padding:\n"
                                  "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
                                  "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
                                  "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    dims = [(input.ndim - 1 - i, pad[2 * i], pad[2 * i + 1]) for i in range(k)]
    if mode == "circular":
        _check_circular(input, dims)
    else:
        _check_reflect_replicate(input, dims, mode)
    dt = input.dtype
    shape = list(input.shape)
    for dim, lo, hi in dims:
        shape[dim] += lo + hi
    if input.size == 0 or 0 in shape:   # (MindSpore's pad kernel refuses an empty output; nothing to gather)
        return ops.zeros(tuple(shape), dt)
    if mode == "circular":
        _check_circular_copies(input, dims)
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


def _check_circular(input, dims):
    """torch's checks of a circular pad, outer dims first."""
    for dim, lo, hi in reversed(dims):
        size = input.shape[dim]
        if lo > size or hi > size:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if size + lo + hi < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")


def _check_reflect_replicate(input, dims, mode):
    """torch's checks of a reflection / replication pad, in its order: emptiness, the reflected pads' sizes,
    the output's size (too small when every padded dim comes out below 1; one below 0 fails creating
    it), then the kernel's dtype (an empty bool input, or a bad padding of one, is a shape error first)."""
    k = len(dims)
    if 0 in input.shape[input.ndim - k - 1:]:   # (only a batch dim may be empty)
        raise RuntimeError(f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 batch size "
                           f"and other non-zero dimensions for input, but got: {list(input.shape)}")
    for i, (dim, lo, hi) in enumerate(dims):
        if mode == "reflect" and (lo >= input.shape[dim] or hi >= input.shape[dim]):
            raise RuntimeError(f"Argument #{4 + 2 * i}: Padding size should be less than the corresponding input "
                               f"dimension, but got: padding ({lo}, {hi}) at dimension {dim} of input "
                               f"{list(input.shape)}")
    sizes = [input.shape[d] for d, _, _ in reversed(dims)]                # (D,) H, W
    outs = [input.shape[d] + lo + hi for d, lo, hi in reversed(dims)]
    if all(o < 1 for o in outs):
        names = "DHW"[3 - k:]
        if k == 1:
            given = f"W: {sizes[0]}"
        else:
            given = " ".join(f"{a}: {v}" for a, v in zip(names[:-2], sizes)) + (" " if k == 3 else "") + \
                f"H: {sizes[-2]}, W: {sizes[-1]}" + (" " if k == 2 and mode == "replicate" else "")
        calc = " ".join(f"{a}: {v}" for a, v in zip(names, outs))
        raise RuntimeError(f"input ({given}) is too small. Calculated output {calc}")
    if any(o < 0 for o in outs):
        shape = list(input.shape[:input.ndim - k]) + outs
        bad = next(o for o in shape if o < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: {shape}")
    if input.dtype == ms.bool_:
        kind = "reflection" if mode == "reflect" else "replication"
        raise NotImplementedError(f"\"{kind}_pad{k}d\" not implemented for 'Bool'")


def _check_circular_copies(input, dims):
    """torch pads circularly by copying the cropped input's ends into the result: a pad wider than what a
    negative pad on the other side leaves of the dim makes it copy between overlapping parts of the result,
    which its overlap check refuses (where it cannot tell, it reads memory being written: refused here too)."""
    for dim, lo, hi in dims:
        kept = input.shape[dim] + min(lo, 0) + min(hi, 0)
        if lo > kept or hi > kept:
            raise RuntimeError("unsupported operation: some elements of the input tensor and the written-to tensor "
                               "refer to a single memory location. Please clone() the tensor before performing the "
                               "operation.")


def _gathered(x, mode, dims):
    """Non-constant padding as one gather per padded dim."""
    for dim, lo, hi in dims:
        if lo or hi:
            x = ops.gather(x, _indices(mode, x.shape[dim], lo, hi), dim)
    return x


def _constant(input, pad, value):
    # torch first narrows the input by the negative pads, outer dims first, left pad before right
    cropped_away = False
    for i in reversed(range(len(pad) // 2)):
        size = input.shape[input.ndim - 1 - i]
        for p in pad[2 * i:2 * i + 2]:
            size += min(p, 0)
            if size < 0:
                raise RuntimeError("narrow(): length must be non-negative.")
        cropped_away = cropped_away or size == 0
    dt = input.dtype
    d = dtype_of(input)
    if dt == ms.bool_:
        value = bool(value)
    elif not (d.is_floating_point or d.is_complex):
        value = int(value)
    shape = list(input.shape)
    for i in range(len(pad) // 2):
        shape[input.ndim - 1 - i] += pad[2 * i] + pad[2 * i + 1]
    if input.size == 0 or 0 in shape or cropped_away:   # (MindSpore's pad kernel refuses an empty input or
        # output, also the input a negative pad narrows to nothing: all padding then)
        z = ops._filled(input, tuple(shape), value)
        if input.size and ops._P.grad_enabled():   # a non-empty input cropped away: a zero gradient
            z = ops._on_link(z, ops._link_scalar((input,), ops._link_dtype(z.dtype), True))
        return z
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
