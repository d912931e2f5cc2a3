"""torch.nn.functional resampling: interpolate/upsample, grid_sample, affine_grid, unfold/fold,
pixel_shuffle/unshuffle and channel_shuffle.

MindSpore 2.10 CPU kernels match torch for nearest / nearest-exact / (bi,tri)linear resizing when the
output size sets the scale, for 3-d grid sampling, im2col and col2im. They differ for bicubic (a=-0.5
against torch's -0.75), cannot take torch's ``scale_factor`` coordinate mapping, have no antialiasing,
and the 2-d grid sampler's gradient kernel logs spurious errors. Those cases are composed here as
separable gathers with weights computed in NumPy by torch's formulas (exact, gradients included).
"""
import functools
import math
import warnings

import numpy as np
import mindspore as ms
from .._runtime import read_host
from .._random.exact import bf16_round
from . import _msops as ops

from ._helpers import dtype_of, cast
from ._registry import register
from ..autograd._higher_order import recompute_as
from .products import _mm
from .reduction import needs_grad
from .nn_conv import _name
from .nn_pool import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d, apply_taps

F = "nn.sampling"
_VALID_RANKS = {"nearest": (3, 4, 5), "nearest-exact": (3, 4, 5), "area": (3, 4, 5), "linear": (3,),
                "bilinear": (4,), "trilinear": (5,), "bicubic": (4,), "lanczos": (4,)}
_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"


def _is_integer(x):
    if isinstance(x, bool):
        return False
    if isinstance(x, (int, np.integer)):
        return True
    return isinstance(x, ms.Tensor) and not dtype_of(x).is_floating_point


# --- interpolate -------------------------------------------------------------------------------

@register("interpolate", family=F, namespace="nn.functional")
def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.ndim - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scales = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    f"Input and output must have the same number of spatial dimensions, but got input with spatial "
                    f"dimensions of {list(input.shape[2:])} and output size of {size}. Please provide input tensor "
                    f"in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.")
            if not all(_is_integer(x) for x in size):
                raise TypeError(f"expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, int, int], "
                                f"but got size with types {[type(x) for x in size]}")
            out_size = [int(read_host(x)) if isinstance(x, ms.Tensor) else int(x) for x in size]
        else:
            out_size = [int(size)] * dim
    elif scale_factor is not None:
        out_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    f"Input and scale_factor must have the same number of spatial dimensions, but got input with "
                    f"spatial dimensions of {list(input.shape[2:])} and scale_factor of shape {scale_factor}. Please "
                    f"provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format.")
            scales = [float(s) for s in scale_factor]
        else:
            scales = [float(scale_factor)] * dim
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and out_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        out_size = [math.floor(input.shape[i + 2] * scales[i]) for i in range(dim)]
        scales = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a "
                         "4-D tensor as input")
    if input.ndim not in _VALID_RANKS.get(mode, ()):
        need = {"linear": 3, "bilinear": 4, "trilinear": 5}
        if mode in need and input.ndim in (3, 4, 5):
            raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {need[mode]}D input")
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for "
                                  f"the modes: {_MODES} (got {mode})")
    if mode == "lanczos":
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
    if out_size is None:
        out_size = [math.floor(input.shape[i + 2] * scales[i]) for i in range(dim)]
    if mode == "area":
        return (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[dim - 1](input, out_size)
    _check_resize_sizes(input, out_size)
    return _resize(input, out_size, scales, mode, align_corners, antialias)


def _check_resize_sizes(input, out_size):
    """torch's upsample_{1,2,3}d_common_check and its non-empty check, before any kernel (MindSpore's resize
    kernels read out of bounds or crash on empty spatial dims)."""
    dim = input.ndim - 2
    if any(s <= 0 for s in input.shape[2:]) or any(o <= 0 for o in out_size):
        names = ("D", "H", "W")[3 - dim:]
        ins = ", ".join(f"{n}: {s}" for n, s in zip(names, input.shape[2:]))
        outs = ", ".join(f"{n}: {s}" for n, s in zip(names, out_size))
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({ins})"
                           f"{' and' if dim == 1 else ''} output ({outs})")
    if input.size == 0 and input.shape[1] == 0:
        raise RuntimeError(f"Non-empty {input.ndim}D data tensor expected but got a tensor with sizes "
                           f"{list(input.shape)}")


def _kernel_name(mode, dim, antialias):
    # the kernel whose dtype dispatch refuses a non-float input first in torch's CPU upsampling
    if antialias:
        return "compute_index_ranges_weights"
    if dim == 2 and mode in ("nearest", "nearest-exact", "bilinear"):
        return f"upsample_{'bilinear' if mode == 'bilinear' else 'nearest'}2d_channels_last"
    kind = {"linear": "linear", "bilinear": "linear", "trilinear": "linear", "bicubic": "cubic"}.get(mode, "nearest")
    return f"compute_indices_weights_{kind}"


def _resize(x, out_size, scales, mode, align_corners, antialias):
    dim = x.ndim - 2
    d = dtype_of(x)
    if not d.is_floating_point and not (x.dtype == ms.uint8 and mode in ("nearest", "nearest-exact")) \
            or antialias and x.dtype in (ms.float16, ms.bfloat16):   # (torch's antialiased weights: float32,
        # float64 and uint8 only)
        raise NotImplementedError(f"\"{_kernel_name(mode, dim, antialias)}\" not implemented for '{_name(x)}'"
                                  + ("; mstorch: uint8 linear/cubic resizing (torch's fixed-point kernel) is not "
                                     "supported, convert to float first" if x.dtype == ms.uint8 else ""))
    if x.size == 0:
        # an empty batch: MindSpore's resize gradients refuse it, torch returns an empty result
        return ops._filled(x, tuple(x.shape[:2]) + tuple(out_size), 0)
    in_size = list(x.shape[2:])
    # MindSpore's kernels use in/out as the coordinate scale: exact for torch when the sizes set it
    consistent = scales is None or all(1.0 / s == i / o for s, i, o in zip(scales, in_size, out_size))
    if mode in ("nearest", "nearest-exact") and x.dtype in (ms.float32, ms.float16, ms.float64) and consistent \
            and (mode == "nearest" or dim < 3):
        out = ops.interpolate(x, size=tuple(out_size), mode=mode)
        # MindSpore's resize gradient kernels have no backward: double backward differentiates the composition
        return recompute_as(out, _resize_composed, x, tuple(out_size), None, mode, align_corners, False)
    if mode in ("linear", "bilinear", "trilinear") and not antialias and x.dtype in (ms.float32, ms.float64) \
            and (consistent or align_corners):
        out = ops.interpolate(x, size=tuple(out_size), mode=mode, align_corners=align_corners)
        return recompute_as(out, _resize_composed, x, tuple(out_size), None, mode, align_corners, False)
    return _resize_composed(x, out_size, scales, mode, align_corners, antialias)


def _resize_composed(x, out_size, scales, mode, align_corners, antialias):
    """Separable gathers with torch's weights along each resized dim."""
    dim = x.ndim - 2
    in_size = list(x.shape[2:])
    dt = x.dtype
    if dt in (ms.float16, ms.bfloat16):
        x = cast(x, ms.float32)
    np_dt = np.float64 if x.dtype == ms.float64 else np.float32
    for i in range(dim):
        scale = None if scales is None else scales[i]
        if mode in ("nearest", "nearest-exact"):
            idx = _nearest_index(mode, in_size[i], out_size[i], scale)
            x = ops.gather(x, idx, 2 + i)
        else:
            taps = _taps(mode, in_size[i], out_size[i], scale, bool(align_corners), bool(antialias), np_dt)
            x = apply_taps(x, 2 + i, taps)
    return cast(x, dt) if x.dtype != dt else x


@functools.lru_cache(maxsize=512)
def _nearest_index(mode, n_in, n_out, scale):
    o = np.arange(n_out)
    if mode == "nearest" and n_out == n_in:
        i = o
    elif mode == "nearest" and n_out == 2 * n_in:
        i = o >> 1
    else:
        s = np.float32(1.0 / scale) if scale else np.float32(n_in) / np.float32(n_out)
        src = o.astype(np.float32) * s if mode == "nearest" else (o + 0.5).astype(np.float64) * np.float64(s)
        i = np.minimum(np.floor(src.astype(np.float32)).astype(np.int64), n_in - 1)
    return ms.Tensor(i.astype(np.int32))


def _area_scale(n_in, n_out, align_corners, scale, dt):
    if align_corners:
        return dt((n_in - 1) / (n_out - 1)) if n_out > 1 else dt(0)
    if scale is not None and scale > 0:
        return dt(1.0 / scale)
    return dt(n_in) / dt(n_out)


def _cubic(t, a):
    t = np.abs(t)
    near = ((a + 2) * t - (a + 3)) * t * t + 1
    far = ((a * t - 5 * a) * t + 8 * a) * t - 4 * a
    return np.where(t <= 1, near, np.where(t < 2, far, 0))


def _sinc(x):
    return np.sinc(x)


@functools.lru_cache(maxsize=512)
def _taps(mode, n_in, n_out, scale, align_corners, antialias, dt):
    """Per-tap (index, weight) tensors along one axis, computed with torch's CPU formulas."""
    s = _area_scale(n_in, n_out, align_corners, scale, dt)
    o = np.arange(n_out).astype(dt)
    if antialias:
        idx, w = _aa_weights(mode, n_in, n_out, s, dt)
    elif mode == "bicubic":
        src = s * o if align_corners else s * (o + dt(0.5)) - dt(0.5)
        base, lam = _guard(src, n_in, dt)
        t = lam
        w = [_cubic(t + 1, -0.75), _cubic(t, -0.75), _cubic(1 - t, -0.75), _cubic(2 - t, -0.75)]
        idx = [np.clip(base - 1 + j, 0, n_in - 1) for j in range(4)]
    else:
        src = s * o if align_corners else np.maximum(s * (o + dt(0.5)) - dt(0.5), dt(0))
        base, lam = _guard(src, n_in, dt)
        idx = [base, base + (base < n_in - 1)]
        w = [dt(1) - lam, lam]
    shape = (n_out,)
    return ([ms.Tensor(np.asarray(i).astype(np.int32)) for i in idx],
            [ms.Tensor(np.asarray(wj, dtype=dt).reshape(shape)) for wj in w])


def _guard(src, n_in, dt):
    base = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    lam = np.clip(src - base, 0, 1).astype(dt)
    return base, lam


def _aa_weights(mode, n_in, n_out, scale, dt):
    """torch's antialiased (PIL-style) separable weights: a filter stretched by the downscale factor."""
    interp = {"bilinear": 2, "bicubic": 4, "lanczos": 6}[mode]
    if mode == "bilinear":
        filt = (lambda x: np.maximum(0, 1 - np.abs(x)))
    elif mode == "bicubic":
        filt = (lambda x: _cubic(x, -0.5))
    else:
        filt = (lambda x: np.where(np.abs(x) < 3, _sinc(x) * _sinc(x / 3), 0))
    support = dt(interp * 0.5) * scale if scale >= 1 else dt(interp * 0.5)
    width = int(math.ceil(support)) * 2 + 1
    invscale = dt(1) / scale if scale >= 1 else dt(1)
    idx = np.zeros((width, n_out), np.int64)
    w = np.zeros((width, n_out), dt)
    for i in range(n_out):
        center = scale * (dt(i) + dt(0.5))
        xmin = max(int(center - support + dt(0.5)), 0)
        xsize = min(int(center + support + dt(0.5)), n_in) - xmin
        xsize = min(max(xsize, 0), width)
        j = np.arange(xsize)
        ww = filt((j + xmin - center + dt(0.5)) * invscale).astype(dt)
        total = ww.sum(dtype=dt)
        if total != 0:
            ww = ww / total
        idx[:xsize, i] = xmin + j
        w[:xsize, i] = ww
    return list(idx), list(w)


def _upsample_deprecated(name):
    warnings.warn(f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=3)


@register("upsample", family=F, namespace="nn.functional")
def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    _upsample_deprecated("upsample")
    return interpolate(input, size, scale_factor, mode, align_corners)


@register("upsample_nearest", family=F, namespace="nn.functional")
def upsample_nearest(input, size=None, scale_factor=None):
    _upsample_deprecated("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


@register("upsample_bilinear", family=F, namespace="nn.functional")
def upsample_bilinear(input, size=None, scale_factor=None):
    _upsample_deprecated("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# --- grid_sample / affine_grid -------------------------------------------------------------------

_GRID_MODES = ("bilinear", "nearest", "bicubic")
_GRID_PADDING = ("zeros", "border", "reflection")


@register("grid_sample", family=F, namespace="nn.functional")
def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    if mode not in _GRID_MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode not in _GRID_PADDING:
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                      "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                      "grid_sample for details.", stacklevel=3)
        align_corners = False
    n = input.ndim - 2
    if grid.shape[-1] != n:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {n} in last dimension, but got grid with "
                           f"sizes {list(grid.shape)}")
    if n not in (2, 3) or grid.ndim != input.ndim:
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, but "
                           f"got input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with "
                           f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    for i, size in enumerate(input.shape[2:], 2):
        if size == 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
                               f"sizes {list(input.shape)} with dimension {i} being empty")
    if mode == "bicubic" and n != 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if input.dtype != grid.dtype:
        raise RuntimeError(f"expected scalar type {_name(input)} but found {_name(grid)}")
    out_shape = tuple(input.shape[:2]) + tuple(grid.shape[1:-1])
    if n == 3 and not dtype_of(input).is_floating_point:   # (torch's 3-d kernel dispatches on the dtype first)
        raise NotImplementedError(f"\"grid_sampler3d_cpu\" not implemented for '{_name(input)}'")
    if 0 in out_shape:   # (torch's 2-d kernel is not reached)
        return ops.zeros(out_shape, input.dtype)
    if not dtype_of(input).is_floating_point:
        raise NotImplementedError(f"\"grid_sampler_{n}d_cpu_kernel_impl\" not implemented for '{_name(input)}'")
    dt = input.dtype
    if dt in (ms.float16, ms.bfloat16):
        if n != 2 or needs_grad(input) or needs_grad(grid):
            raise NotImplementedError(
                f"torch.nn.functional.grid_sample: {_name(input)} input is supported for 4-D input without "
                "gradients only (torch's CPU kernel rounds every step to the half type, which mstorch reproduces "
                "for that case; compute in float32 instead)")
        return _grid_sample_half(input, grid, mode, padding_mode, bool(align_corners))
    return _grid_sample(input, grid, mode, padding_mode, bool(align_corners))


def _grid_sample_half(x, grid, mode, padding_mode, align_corners):
    """torch's CPU grid sampler for 4-D float16/bfloat16 input: its scalar kernel computes every step in
    the half type (each operation rounded), so a coordinate, a corner weight or a partial sum can land
    elsewhere than a float32 computation rounded once (nearest mode then picks another pixel). The same
    steps, in torch's order, on the host (values held as float32, rounded after each operation)."""
    dt = x.dtype
    if dt == ms.float16:
        def rnd(v):
            return np.asarray(v, np.float32).astype(np.float16).astype(np.float32)
    else:
        def rnd(v):
            v = np.asarray(v, np.float32)
            return bf16_round(v.reshape(-1)).reshape(v.shape)
    a = read_host(cast(x, ms.float32)).transpose(0, 2, 3, 1)       # (N, H, W, C)
    g = read_host(cast(grid, ms.float32))
    if not (np.abs(g) <= 64).all():
        # far outside the image (or inf/NaN), torch's vectorized half kernel clips, reflects and converts
        # positions by rules not reproduced here; within 32 image sizes its results are matched exactly
        raise NotImplementedError(
            f"torch.nn.functional.grid_sample: {_name(x)} grids with values beyond +-64 or inf/NaN are not "
            "supported (torch's half-precision kernel is reproduced step by step only within that range; "
            "compute in float32 instead)")
    N, IH, IW = a.shape[:3]
    f32 = np.float32

    def const(v):                       # an integer (or exact constant) converted to the half type
        return rnd(f32(v))

    def to_int(v, fn):
        v = fn(v)
        # (a size beyond the half type's integers can still make a position inf: torch's kernel then
        # reads pixel 0 by a rule not reproduced here)
        if not np.isfinite(v).all():
            raise NotImplementedError(
                f"torch.nn.functional.grid_sample: {_name(x)} sampling positions that overflow the half type "
                "are not supported (compute in float32 instead)")
        return v.astype(np.int64)

    def unnormalize(c, size):
        if align_corners:
            return rnd(rnd(rnd(c + f32(1)) / f32(2)) * const(size - 1))
        return rnd(rnd(rnd(rnd(c + f32(1)) * const(size)) - f32(1)) / f32(2))

    def clip(v, size):                  # std::min(size - 1, std::max(v, 0)): NaN becomes size - 1
        inner = np.where(v < 0, f32(0), v)
        limit = const(size - 1)
        return np.where(inner < limit, inner, limit)

    def reflect(v, twice_low, twice_high):
        if twice_low == twice_high:
            return np.zeros_like(v)
        low = rnd(const(twice_low) / f32(2))
        span = rnd(const(twice_high - twice_low) / f32(2))
        v = rnd(np.abs(rnd(v - low)))
        extra = rnd(np.fmod(v, span))
        flips = np.floor(rnd(v / span))
        ok = np.isfinite(flips) & (np.abs(flips) < 2.0 ** 31)
        even = np.where(ok, np.fmod(np.where(ok, flips, 0), 2) == 0, True)   # (int overflow: INT_MIN, even)
        return np.where(even, rnd(extra + low), rnd(rnd(span - extra) + low))

    def pad(v, size):
        if padding_mode == "border":
            return clip(v, size)
        if padding_mode == "reflection":
            v = reflect(v, 0, 2 * (size - 1)) if align_corners else reflect(v, -1, 2 * size - 1)
            return clip(v, size)
        return v

    nidx = np.arange(N).reshape(N, 1, 1)

    def fetch(xi, yi):                  # (N, OH, OW) integer coordinates -> (N, OH, OW, C), 0 outside
        valid = (xi >= 0) & (xi < IW) & (yi >= 0) & (yi < IH)
        vals = a[nidx, np.where(valid, yi, 0), np.where(valid, xi, 0)]
        return valid[..., None], vals

    with np.errstate(all="ignore"):
        gx, gy = g[..., 0], g[..., 1]
        if mode == "bicubic":
            ix, iy = unnormalize(gx, IW), unnormalize(gy, IH)
            bx, by = np.floor(ix), np.floor(iy)
            tx, ty = rnd(ix - bx)[..., None], rnd(iy - by)[..., None]
            rows = []
            for j in range(4):
                yj = rnd(rnd(by - f32(1)) + f32(j))       # torch: iy_nw - 1 + j
                taps = []
                for i in range(4):
                    xi = rnd(bx + f32(i - 1))          # torch: ix_nw - 1, ix_nw + 0, + 1, + 2
                    valid, vals = fetch(to_int(pad(xi, IW), np.trunc), to_int(pad(yj, IH), np.trunc))
                    taps.append(np.where(valid, vals, f32(0)))
                rows.append(_cubic_half(taps, tx, rnd))
            out = _cubic_half(rows, ty, rnd)
        else:
            ix, iy = pad(unnormalize(gx, IW), IW), pad(unnormalize(gy, IH), IH)
            if mode == "nearest":
                valid, vals = fetch(to_int(ix, np.rint), to_int(iy, np.rint))
                out = np.where(valid, vals, f32(0))
            else:
                x0, y0 = to_int(ix, np.floor), to_int(iy, np.floor)
                x1, y1 = x0 + 1, y0 + 1
                fx0, fy0, fx1, fy1 = (rnd(v.astype(f32)) for v in (x0, y0, x1, y1))
                weights = (rnd(rnd(fx1 - ix) * rnd(fy1 - iy)), rnd(rnd(ix - fx0) * rnd(fy1 - iy)),
                           rnd(rnd(fx1 - ix) * rnd(iy - fy0)), rnd(rnd(ix - fx0) * rnd(iy - fy0)))
                out = np.zeros(ix.shape + (a.shape[3],), f32)
                for (xi, yi), w in zip(((x0, y0), (x1, y0), (x0, y1), (x1, y1)), weights):
                    valid, vals = fetch(xi, yi)
                    out = np.where(valid, rnd(out + rnd(vals * w[..., None])), out)
    return cast(ms.Tensor(np.ascontiguousarray(out.transpose(0, 3, 1, 2))), dt)


def _cubic_half(v, t, rnd):
    """torch's cubic_interp1d in the half type: the four coefficients of A = -0.75 at ``t``, then
    v0 c0 + v1 c1 + v2 c2 + v3 c3 left to right, each step rounded."""
    f32 = np.float32

    def conv1(x):   # ((A + 2) x - (A + 3)) x x + 1
        return rnd(rnd(rnd(rnd(rnd(f32(1.25) * x) - f32(2.25)) * x) * x) + f32(1))

    def conv2(x):   # ((A x - 5 A) x + 8 A) x - 4 A
        return rnd(rnd(rnd(rnd(rnd(rnd(f32(-0.75) * x) + f32(3.75)) * x) - f32(6)) * x) + f32(3))
    t2 = rnd(f32(1) - t)
    coeffs = (conv2(rnd(t + f32(1))), conv1(t), conv1(t2), conv2(rnd(t2 + f32(1))))
    out = rnd(v[0] * coeffs[0])
    for vi, ci in zip(v[1:], coeffs[1:]):
        out = rnd(out + rnd(vi * ci))
    return out


def _unnormalize(coord, size, align_corners, n):
    if n == 2:   # torch's vectorized 2-d kernel: (coord + 1) times half the span, without overflowing first
        return (coord + 1) * ((size - 1) / 2) if align_corners else (coord + 1) * (size / 2) - 0.5
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _reflect(x, twice_low, twice_high):
    if twice_low == twice_high:     # 0, with a zero gradient (kept on the graph: the grid's is zeros)
        return ops.where(ops.ones_like(x, dtype=ms.bool_), ops.zeros_like(x), x)
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    x = ops.abs(x - low)
    extra = ops.fmod(x, span)
    flips = ops.floor(x / span)
    even = ops.fmod(flips, 2) == 0
    return ops.where(even, extra + low, span - extra + low)


def _clip(coord, size, nan_to=0):
    """clamp(coord, 0, size - 1) whose gradient is torch's: 0 where the coordinate is clipped or on a
    border (torch counts the borders out of bounds; the clamp's gradient passes there). NaN clips to
    ``nan_to``: 0 in torch's 2-d kernel (its vectorized clamp_min(0, x) operand order), size - 1 in its
    3-d one (std::min(size - 1, std::max(x, 0)))."""
    inside = ops.logical_and(coord > 0, coord < size - 1)
    clipped = ops.clamp(ops.where(ops.isnan(coord), ops.full_like(coord, nan_to), coord), 0, size - 1)
    # torch multiplies the gradient by 0 there (an inf or NaN one stays NaN): a term 0 in value whose
    # gradient is 0 * the incoming one
    finite = ops.where(ops.isfinite(coord), coord, ops.zeros_like(coord))
    zero = (finite - ops.stop_gradient(finite)) * 0
    return ops.where(inside, coord, ops.stop_gradient(clipped) + zero)


def _source(coord, size, padding_mode, align_corners, n=2):
    return _source_nan(coord, size, padding_mode, align_corners, n)[0]


def _source_nan(coord, size, padding_mode, align_corners, n=2):
    """(the source coordinate, where it was NaN before clipping: None if it cannot be)."""
    nan_to = 0 if n == 2 else size - 1
    if padding_mode == "border":
        return _clip(coord, size, nan_to), ops.isnan(coord)
    if padding_mode == "reflection":
        coord = _reflect(coord, 0, 2 * (size - 1)) if align_corners else _reflect(coord, -1, 2 * size - 1)
        return _clip(coord, size, nan_to), ops.isnan(coord)
    return coord, None


def _grid_sample(x, grid, mode, padding_mode, align_corners):
    """Composed sampler: gathers from the flattened input at each corner, weighted by torch's formulas."""
    N, C = x.shape[:2]
    sizes = list(reversed(x.shape[2:]))                  # grid order: (W, H[, D])
    out_spatial = tuple(grid.shape[1:-1])
    P = math.prod(out_spatial)
    n = len(sizes)
    flat = x.reshape(N, C, -1)
    strides = [math.prod(sizes[:k]) for k in range(len(sizes))]   # x fastest
    # split rather than unstack: MindSpore's recorded Unstack backward fails (double backward)
    per_dim = [c.squeeze(2) for c in ops.split(grid.reshape(N, P, -1), 1, 2)]
    coords = [_unnormalize(c, s, align_corners, n) for c, s in zip(per_dim, sizes)]

    lost = None     # (points whose gradient torch drops; see below)

    def fetch(points):
        """Values at integer float coordinates ``points`` (one per dim); zero where out of bounds."""
        valid = None
        lin = None
        for p, s, st in zip(points, sizes, strides):
            ok = ops.logical_and(p >= 0, p <= s - 1)
            valid = ok if valid is None else ops.logical_and(valid, ok)
            # (read position 0 where out of bounds: NaN and inf have no integer)
            term = cast(ops.where(ok, p, ops.zeros_like(p)), ms.int32) * st
            lin = term if lin is None else lin + term
        idx = ops.broadcast_to(lin.expand_dims(1), (N, C, P))
        valid = valid.expand_dims(1)
        # (0 where out of bounds, whatever position 0 holds: torch reads nothing there)
        vals = ops.where(valid, ops.gather_elements(flat, 2, idx), ops.zeros((), x.dtype))
        if lost is not None:
            vals = ops.where(lost, ops.stop_gradient(vals), vals)
        return vals, valid

    if mode == "bicubic":
        base = [ops.floor(c) for c in coords]
        t = [c - b for c, b in zip(coords, base)]
        wx = _cubic_coeffs(t[0])
        wy = _cubic_coeffs(t[1])
        out = None
        for j in range(4):
            yj = _source(base[1] - 1 + j, sizes[1], padding_mode, align_corners)
            for i in range(4):
                xi = _source(base[0] - 1 + i, sizes[0], padding_mode, align_corners)
                vals, valid = fetch([ops.trunc(xi), ops.trunc(yj)])
                term = vals * (wx[i] * wy[j]).expand_dims(1)
                out = term if out is None else out + term
    else:
        coords, nans = zip(*[_source_nan(c, s, padding_mode, align_corners, n) for c, s in zip(coords, sizes)])
        if n == 3 and nans[0] is not None:
            # torch's 3-d backward recomputes the coordinates without clipping NaN: a point whose coordinate
            # clipped from NaN passes no gradient to the grid or the input (its forward read the far border)
            lost = functools.reduce(ops.logical_or, nans)
            coords = [ops.where(lost, ops.stop_gradient(c), c) for c in coords]
            lost = lost.expand_dims(1)
        if mode == "nearest":
            vals, valid = fetch([ops.round(c) for c in coords])
            # torch's grid gradient is zeros here (not None): keep the grid in the graph
            c = coords[0]
            out = vals + ops.where(ops.isfinite(c), c * 0, 0).expand_dims(1)
        else:
            lo = [ops.floor(c) for c in coords]
            frac = [c - f for c, f in zip(coords, lo)]
            out = None
            for corner in range(2 ** len(coords)):
                bits = [(corner >> k) & 1 for k in range(len(coords))]
                vals, valid = fetch([l + b for l, b in zip(lo, bits)])
                w = None
                for b, f in zip(bits, frac):
                    wk = (f if b else 1 - f).expand_dims(1)
                    if n == 3:  # torch's 3-d kernel skips such a corner, gradients too; the 2-d one adds 0 * weight
                        wk = ops.where(valid, wk, ops.zeros((), wk.dtype))
                    w = wk if w is None else w * wk
                term = vals * w
                out = term if out is None else out + term
    return out.reshape((N, C) + out_spatial)


def _cubic_coeffs(t, a=-0.75):
    def near(v):
        return ((a + 2) * v - (a + 3)) * v * v + 1

    def far(v):
        return ((a * v - 5 * a) * v + 8 * a) * v - 4 * a
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


@register("affine_grid", family=F, namespace="nn.functional")
def affine_grid(theta, size, align_corners=None):
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                      "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                      "grid_sample for details.", stacklevel=3)
        align_corners = False
    if not dtype_of(theta).is_floating_point:
        raise ValueError(f"Expected theta to have floating point type, but got {dtype_of(theta)}")
    size = tuple(int(s) for s in size)
    shape_repr = f"torch.Size({list(theta.shape)})"
    if len(size) == 4:
        if theta.ndim != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got {shape_repr}.")
        spatial = size[-2:]
    elif len(size) == 5:
        if theta.ndim != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. Got {shape_repr}.")
        spatial = size[-3:]
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    if align_corners and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
                      "of affine_grid for details.", stacklevel=3)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    dt = theta.dtype
    if dt in (ms.float16, ms.bfloat16) and min(spatial) <= 1:
        # (torch's base grid of a dim of one is a 0-d tensor made by at::tensor: no half kernel; the batch
        # is checked after, by the product with theta)
        raise NotImplementedError(f"\"tensor_cpu\" not implemented for '{_name(theta)}'")
    if theta.shape[0] != size[0]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{size[0]}, "
                           f"{theta.shape[-1]}] but got: [{theta.shape[0]}, {theta.shape[-1]}].")
    work = cast(theta, ms.float32) if dt in (ms.float16, ms.bfloat16) else theta
    base = _base_grid(spatial, bool(align_corners), np.float64 if dt == ms.float64 else np.float32)
    grid = _mm(base, work.swapaxes(1, 2))          # (N, prod(spatial), n)
    grid = grid.reshape((size[0],) + spatial + (len(spatial),))
    return cast(grid, dt) if grid.dtype != dt else grid


@functools.lru_cache(maxsize=64)
def _base_grid(spatial, align_corners, dt):
    axes = []
    for s in spatial:
        v = np.linspace(-1, 1, s) if s > 1 else np.zeros(1)
        if not align_corners:
            v = v * (s - 1) / s
        axes.append(v.astype(dt))
    mesh = np.meshgrid(*axes, indexing="ij")               # D, H, W order
    cols = [m.reshape(-1) for m in reversed(mesh)] + [np.ones(math.prod(spatial), dt)]
    return ms.Tensor(np.stack(cols, 1).astype(dt)[None])


# --- unfold (im2col) / fold (col2im) -------------------------------------------------------------

def _pair(v):
    return (int(v), int(v)) if isinstance(v, (int, np.integer)) else tuple(int(x) for x in v)


def _check_fold_args(kernel, dilation, padding, stride):
    if min(kernel) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: {kernel[0]} "
                           f"kernel_width: {kernel[1]}")
    if min(dilation) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilation_height: {dilation[0]} "
                           f"dilation_width: {dilation[1]}")
    if min(padding) < 0:
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {padding[0]} pad_width: {padding[1]}")
    if min(stride) <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got stride_height: {stride[0]} "
                           f"stride_width: {stride[1]}")


def _blocks(spatial, kernel, dilation, padding, stride):
    return [(s + 2 * p - d * (k - 1) - 1) // st + 1
            for s, k, d, p, st in zip(spatial, kernel, dilation, padding, stride)]


@register("nn.functional.unfold", family=F, namespace="nn.functional")
def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """torch.nn.functional.unfold (im2col; Tensor.unfold is a different op)."""
    kernel, dilation, padding, stride = _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride)
    # (torch's im2col shape check reads size(1) != 0 && size(2) != 0: the first dim missing, or the second
    # one after a nonzero size(1), is its IndexError; a 2-d input of size(1) 0 is its RuntimeError)
    if input.ndim == 0:
        raise IndexError("Dimension specified as 1 but tensor has no dimensions")
    if input.ndim == 1 or input.ndim == 2 and input.shape[1] != 0:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(input.ndim, 1)}, "
                         f"{max(input.ndim, 1) - 1}], but got {2 if input.ndim == 2 else 1})")
    if input.ndim not in (3, 4) or any(s == 0 for s in input.shape[1:]):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    _check_fold_args(kernel, dilation, padding, stride)
    spatial = input.shape[-2:]
    blocks = _blocks(spatial, kernel, dilation, padding, stride)
    if min(blocks) < 1:   # (torch's shape check, before its kernel's dtype dispatch)
        raise RuntimeError(f"Given input with spatial size {tuple(spatial)}, kernel_size={kernel}, dilation={dilation}, "
                           f"padding={padding}, calculated shape of the array of sliding blocks as {tuple(blocks)}, "
                           f"but its components must be at least one.")
    if not _fold_dtype(input):
        raise NotImplementedError(f"\"im2col_out_cpu\" not implemented for '{_name(input)}'")
    x = input if input.ndim == 4 else input.expand_dims(0)
    if x.shape[0] == 0:   # (MindSpore's Im2Col refuses an empty batch)
        out = ops.zeros((0, x.shape[1] * kernel[0] * kernel[1], blocks[0] * blocks[1]), x.dtype)
    else:
        out = _in_kernel_dtype(lambda v: ops.unfold(v, kernel, dilation, padding, stride), x)
        out = out.reshape(out.shape[0], out.shape[1], -1)
    return out if input.ndim == 4 else out.squeeze(0)


def _fold_dtype(t):
    """torch's im2col/col2im CPU kernels: floating, complex and bool (not integers)."""
    d = dtype_of(t)
    return d.is_floating_point or d.is_complex or t.dtype == ms.bool_


def _in_kernel_dtype(fn, x):
    """``fn`` (a float kernel) on ``x``: complex by its real and imaginary parts, bool and bfloat16 through
    float32 (bool summed where blocks overlap: any True is True)."""
    dt = x.dtype
    if dt in (ms.complex64, ms.complex128):
        return ops.complex_of_parts(fn(ops.real(x)), fn(ops.imag(x)))
    if dt in (ms.bfloat16, ms.bool_):
        r = fn(cast(x, ms.float32))
        return ops.not_equal(r, 0) if dt == ms.bool_ else cast(r, dt)
    return fn(x)


@register("fold", family=F, namespace="nn.functional")
def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    output_size, kernel = _pair(output_size), _pair(kernel_size)
    dilation, padding, stride = _pair(dilation), _pair(padding), _pair(stride)
    if input.ndim not in (2, 3) or any(s == 0 for s in input.shape[input.ndim - 2:]):
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    _check_fold_args(kernel, dilation, padding, stride)
    if min(output_size) <= 0:
        raise RuntimeError(f"Expected output spatial size to be positive, but got: output_size={output_size}")
    k = kernel[0] * kernel[1]
    channels = input.shape[-2]
    if channels % k:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                           f"got input.size(1)={channels} and kernel_size={kernel}.")
    blocks = _blocks(output_size, kernel, dilation, padding, stride)
    if blocks[0] * blocks[1] != input.shape[-1]:
        raise RuntimeError(f"Given output_size={output_size}, kernel_size={kernel}, dilation={dilation}, "
                           f"padding={padding}, stride={stride}, expected size of input's dimension 2 to match the "
                           f"calculated number of sliding blocks {blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, "
                           f"but got input.size(2)={input.shape[-1]}.")
    if not _fold_dtype(input):
        raise NotImplementedError(f"\"col2im_out_cpu\" not implemented for '{_name(input)}'")
    x = input if input.ndim == 3 else input.expand_dims(0)
    if x.shape[0] == 0:   # (MindSpore's kernel gets the channels of an empty batch wrong)
        return x.reshape((0, channels // k) + tuple(output_size))
    size = ms.Tensor(output_size, ms.int32)
    out = _in_kernel_dtype(lambda v: ops.fold(v, size, kernel, dilation, padding, stride), x)
    return out if input.ndim == 3 else out.squeeze(0)


# --- pixel / channel shuffles (pure data movement: reshape + transpose) ---------------------------

@register("pixel_shuffle", family=F, namespace=("torch", "nn.functional"))
def pixel_shuffle(input, upscale_factor):
    r = int(upscale_factor)
    if input.ndim < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    c, h, w = input.shape[-3:]
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    lead = tuple(input.shape[:-3])
    b = len(lead)
    x = input.reshape(lead + (c // (r * r), r, r, h, w))
    x = x.transpose(tuple(range(b)) + (b, b + 3, b + 1, b + 4, b + 2))
    return x.reshape(lead + (c // (r * r), h * r, w * r))


@register("pixel_unshuffle", family=F, namespace=("torch", "nn.functional"))
def pixel_unshuffle(input, downscale_factor):
    r = int(downscale_factor)
    if input.ndim < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    c, h, w = input.shape[-3:]
    if h % r:
        raise RuntimeError(f"pixel_unshuffle expects height to be divisible by downscale_factor, but "
                           f"input.size(-2)={h} is not divisible by {r}")
    if w % r:
        raise RuntimeError(f"pixel_unshuffle expects width to be divisible by downscale_factor, but "
                           f"input.size(-1)={w} is not divisible by {r}")
    if input.size == 0:   # torch returns a copy of an empty input, whatever its shape
        return input.copy()
    lead = tuple(input.shape[:-3])
    b = len(lead)
    x = input.reshape(lead + (c, h // r, r, w // r, r))
    x = x.transpose(tuple(range(b)) + (b, b + 2, b + 4, b + 1, b + 3))
    return x.reshape(lead + (c * r * r, h // r, w // r))


def _channel_shuffle(input, groups):
    g = int(groups)
    if input.ndim <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes {list(input.shape)}")
    if g <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{g}")
    c = input.shape[1]
    if c % g:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {g} groups.")
    n, rest = input.shape[0], tuple(input.shape[2:])
    x = input.reshape((n, g, c // g) + rest).swapaxes(1, 2)
    return x.reshape((n, c) + rest)


@register("channel_shuffle", family=F, namespace=("torch", "nn.functional"))
def channel_shuffle(input, groups):
    return _channel_shuffle(input, groups)


@register("native_channel_shuffle", family=F, namespace=("torch", "nn.functional"))
def native_channel_shuffle(input, groups):
    return _channel_shuffle(input, groups)
