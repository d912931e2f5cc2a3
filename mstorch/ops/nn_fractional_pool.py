"""torch.nn.functional.fractional_max_pool2d / 3d (and ``_with_indices``): max pooling over pseudo-random windows.

The windows come from ``_random_samples`` (one uniform draw per sample, plane and spatial dim), drawn as torch
draws them (``torch.rand(N, C, 2 or 3, dtype=input.dtype)`` on torch's stream) when not given. Each spatial
dim's window starts are torch's sequence ``int((i + u) * alpha) - int(u * alpha)`` with
``alpha = (in - pool) / (out - 1)``, computed in the input's float type, the last one at ``in - pool``. The
windows' positions are found on the host (a few integers per plane); the max and its gradient are a gather of
the input at the winning position, so the gradient goes to that element as torch's does (the first maximum of
the window in row-major order)."""
import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from ._registry import PUBLIC, register

F = "nn.pool"
_FLOAT_NP = {D.float16: np.float16, D.float32: np.float32, D.float64: np.float64, D.bfloat16: np.float32}


def _tuple(v, n):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


def _starts(u, size, out, pool, np_type):
    """torch's window starts along one dim for the uniform draws ``u`` (any shape): shape u.shape + (out,)."""
    u = u.astype(np_type)
    if out == 1:
        seq = np.zeros(u.shape + (0,), np.int64)
    else:
        alpha = np_type(size - pool) / np_type(out - 1)
        i = np.arange(out - 1).astype(np_type)
        seq = ((i + u[..., None]) * alpha).astype(np.int64) - (u * alpha).astype(np.int64)[..., None]
    last = np.full(u.shape + (1,), size - pool, np.int64)
    return np.concatenate([seq, last], -1)


def _pool(name, nd, input, kernel_size, output_size, samples):
    spatial = tuple(input.shape[-nd:])
    batched = input.dim() == nd + 2
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: {list(input.shape)}")
    kernel, out = _tuple(kernel_size, nd), tuple(int(o) for o in _tuple(output_size, nd))
    for i in range(1, input.dim()):
        if input.shape[i] == 0:
            raise RuntimeError(f"{name}{'_out' if nd == 3 else ''}(): Expected input to have non-zero size for "
                               f"non-batch dimensions, but got{list(input.shape)} with dimension {i} being empty.")
    words = ("time", "height", "width")[3 - nd:]
    for w, k, o, s in zip(words, kernel, out, spatial):
        # (torch's 3-D kernel also refuses a last window that ends at the input's edge, and names itself _out)
        if o + k - 1 > s or (nd == 3 and o + k - 1 == s):
            raise RuntimeError(f"{name}{'_out' if nd == 3 else ''}(): pool {w} {k} too large relative to input {w} {s}")
    if samples.dtype != input.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if samples.dim() != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.dim()}")
    x = input if batched else input.unsqueeze(0)
    n, c = x.shape[0], x.shape[1]
    if samples.shape[0] < n:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.shape[1] != c:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != nd:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {nd}; got {samples.shape[2]}.")
    if n == 0:      # an empty batch: torch's empty results
        empty = PUBLIC["empty"]((0, c) + out, dtype=input.dtype)
        return empty + x.sum() * 0 if x.requires_grad else empty, PUBLIC["empty"]((0, c) + out, dtype=D.int64)
    u = samples.detach()[:n, :c].float().numpy() if samples.dtype == D.bfloat16 else samples.detach()[:n, :c].numpy()
    np_type = _FLOAT_NP.get(input.dtype, np.float32)
    # which draw places which dim, as torch's kernels read them: 2-D u[..., 0] the width windows and u[..., 1]
    # the height ones; 3-D u[..., 0] time, u[..., 1] height, u[..., 2] width
    order = (1, 0) if nd == 2 else (0, 1, 2)
    starts = [_starts(u[..., order[d]], spatial[d], out[d], kernel[d], np_type) for d in range(nd)]
    # flat position in the plane of every (output cell, window offset): shape (n, c, *out, prod(kernel))
    strides = [int(np.prod(spatial[d + 1:])) for d in range(nd)]
    pos = np.zeros((n, c) + out + (1,), np.int64)
    for d in range(nd):
        shape = [n, c] + [1] * nd + [1]
        shape[2 + d] = out[d]
        first = starts[d].reshape(shape)
        offsets = np.arange(kernel[d], dtype=np.int64)
        pos = (pos[..., :, None] + (first[..., :, None] + offsets) * strides[d]).reshape(pos.shape[:-1] + (-1,))
    flat = x.reshape(n, c, -1)
    cand = PUBLIC["tensor"](pos.reshape(n, c, -1))
    k = pos.shape[-1]
    vals = flat.detach().gather(2, cand).reshape((n, c) + out + (k,))
    best = _first_max(vals)
    indices = PUBLIC["tensor"](pos).gather(-1, best).squeeze(-1)
    output = flat.gather(2, indices.reshape(n, c, -1)).reshape((n, c) + out)
    if not batched:
        output, indices = output.squeeze(0), indices.squeeze(0)
    return output, indices


def _first_max(vals):
    """Index of the window's maximum, as torch's kernel keeps it: the first maximum, or the last NaN."""
    nan = vals.isnan()
    k = vals.shape[-1]
    rank = PUBLIC["arange"](k)
    last_nan = PUBLIC["where"](nan, rank, PUBLIC["full_like"](rank, -1)).amax(-1, keepdim=True)
    first = vals.argmax(-1, keepdim=True)
    return PUBLIC["where"](last_nan >= 0, last_nan, first)


def _output_size(name, input, nd, output_size, output_ratio):
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if nd == 2 and len(output_ratio) > 2:   # (torch's own len(): a float ratio raises TypeError here too)
            raise ValueError(f"{name} requires output_ratio to either be a single Int or tuple of Ints.")
        ratio = _tuple(output_ratio, nd)
        output_size = [int(input.size(-nd + d) * ratio[d]) for d in range(nd)]
    return output_size


def _samples(input, nd, samples):
    if samples is None:
        n = 1 if input.dim() == nd + 1 else input.size(0)
        samples = PUBLIC["rand"](n, input.size(-nd - 1), nd, dtype=input.dtype)
    elif not isinstance(samples, Tensor):
        raise TypeError(f"_random_samples must be a Tensor, not {type(samples).__name__}")
    return samples


@register("fractional_max_pool2d_with_indices", family=F, namespace="nn.functional", raw=True)
def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                                       _random_samples=None):
    output_size = _output_size("fractional_max_pool2d", input, 2, output_size, output_ratio)
    return _pool("fractional_max_pool2d", 2, input, kernel_size, output_size, _samples(input, 2, _random_samples))


@register("fractional_max_pool2d", family=F, namespace="nn.functional", raw=True)
def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    out = fractional_max_pool2d_with_indices(input, kernel_size, output_size, output_ratio, return_indices,
                                             _random_samples)
    return out if return_indices else out[0]


@register("fractional_max_pool3d_with_indices", family=F, namespace="nn.functional", raw=True)
def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                                       _random_samples=None):
    output_size = _output_size("fractional_max_pool3d", input, 3, output_size, output_ratio)
    return _pool("fractional_max_pool3d", 3, input, kernel_size, output_size, _samples(input, 3, _random_samples))


@register("fractional_max_pool3d", family=F, namespace="nn.functional", raw=True)
def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    out = fractional_max_pool3d_with_indices(input, kernel_size, output_size, output_ratio, return_indices,
                                             _random_samples)
    return out if return_indices else out[0]
