"""torch.nn.functional convolutions: conv1d/2d/3d, conv_transpose1d/2d/3d, conv_tbc.

MindSpore 2.10 CPU kernels, measured: Conv2D/Conv3D (and conv1d) for float16/float32 match torch;
ConvTranspose2D has no CPU kernel, but Conv2DBackpropInput (the same computation) has one;
Conv3DTranspose runs when the depth dilation is 1. bfloat16 runs through float32 (what torch's CPU
kernels effectively do). float64 and integer convolutions have no kernel: they are composed as strided
slices plus one matmul (im2col), exact in their own precision.
"""
import functools
import itertools
import math
import warnings

import mindspore as ms
from . import _msops as ops
from mindspore.ops import operations as P

from . import _kernels as kernels
from ._helpers import dtype_of, cast, graph_inputs
from ._registry import register
from .products import _mm
from ..autograd._higher_order import recompute_as
from . import _host, _host_conv

F = "nn.conv"
_NATIVE = (ms.float16, ms.float32)
_WARNED_SAME = [False]   # torch warns once per process (TORCH_WARN_ONCE)


def _name(t):
    from .._tensor import scalar_type_name
    return scalar_type_name(dtype_of(t))


def _sizes(t):
    return list(t.shape)


def ntuple(value, n, name):
    """torch's expand_param_if_needed: an int or a 1-element sequence is repeated ``n`` times."""
    if isinstance(value, int):
        return (value,) * n
    value = tuple(int(v) for v in value)
    if len(value) == 1:
        return value * n
    if len(value) != n:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} values to match "
                           f"the convolution dimensions, but got {name}={list(value)}")
    return value


def pad_tuple(pairs):
    """[(lo, hi) per spatial dim, first dim first] -> the flat last-dim-first tuple ops.pad takes."""
    out = ()
    for lo, hi in reversed(pairs):
        out += (lo, hi)
    return out


def batchify(input, n, name):
    """Accept torch's unbatched form (one spatial rank less); returns (batched input, was_unbatched)."""
    if input.ndim == n + 2:
        return input, False
    if input.ndim == n + 1:
        return input.expand_dims(0), True
    raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {name}, but got "
                       f"input of size: {_sizes(input)}")


def _check_common(input, weight, bias, stride, padding, dilation, groups, n):
    if input.dtype != weight.dtype:
        raise RuntimeError(f"expected scalar type {_name(input)} but found {_name(weight)}")
    if bias is not None and bias.dtype != input.dtype:
        raise RuntimeError(f"Input type ({_name(input).lower()}) and bias type ({_name(bias).lower()}) "
                           f"should be the same")
    if weight.ndim != n + 2 and weight.ndim >= 3 and n > 1:
        # torch sizes the convolution by the weight, then checks the stride given for the input's rank
        raise RuntimeError(f"expected stride to be a single integer value or a list of {weight.ndim - 2} values to "
                           f"match the convolution dimensions, but got stride={list(stride)}")
    if weight.ndim > n + 2:
        raise RuntimeError(f"Expected {weight.ndim}-dimensional input for {weight.ndim}-dimensional weight "
                           f"{_sizes(weight)}, but got {input.ndim}-dimensional input of size {_sizes(input)} instead")
    if weight.ndim != n + 2:
        raise RuntimeError(f"Expected {n + 2}-dimensional weight for {n + 2}-dimensional input "
                           f"{_sizes(input)}, but got {weight.ndim}-dimensional weight of size "
                           f"{_sizes(weight)} instead")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if not isinstance(padding, str) and any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got {list(dilation)}")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")


_NO_DILATED = (ms.uint8, ms.int8, ms.int16, ms.int32)


def _check_kernel_dtype(input, n, dilation=None):
    """After the argument and shape checks (torch's order): the dtypes there is no kernel for (``dilation``
    of a forward convolution: torch's dilated kernel has integers of 64 bits only). An empty input has no
    kernel to look for: torch answers it with zeros first, bool and integers included."""
    if input.size == 0:
        return
    if dilation is not None and input.dtype in _NO_DILATED and any(d > 1 for d in dilation):
        raise NotImplementedError(f"\"slow_conv_dilated<>\" not implemented for '{_name(input)}'")
    if dtype_of(input).is_complex:   # (torch convolves complex tensors)
        raise NotImplementedError(f"mstorch: conv{n}d / conv_transpose{n}d on complex tensors is not supported "
                                  f"(no complex convolution kernel on this backend)")
    if input.dtype == ms.bool_:
        raise NotImplementedError(f"\"slow_conv{n}d_cpu\" not implemented for 'Bool'")


def _same_padding(kernel, dilation):
    pairs = []
    for k, d in zip(kernel, dilation):
        total = d * (k - 1)
        pairs.append((total // 2, total - total // 2))
    return pairs


def _conv(input, weight, bias, stride, padding, dilation, groups, n, name, torch_checks=True):
    """``torch_checks``: the checks of torch's convolution entry (conv_tbc has its own)."""
    stride = ntuple(stride, n, "stride")
    dilation = ntuple(dilation, n, "dilation")
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if padding == "same" and any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
    else:
        padding = ntuple(padding, n, "padding")
    input, unbatched = batchify(input, n, name)
    if padding == "same" and weight.ndim == n + 2 and any(
            d * (k - 1) < 0 for k, d in zip(weight.shape[2:], dilation)):
        # an empty kernel, dilated: torch checks the padding 'same' gives first
        raise RuntimeError("negative padding is not supported")
    _check_common(input, weight, bias, stride, padding, dilation, groups, n)
    kernel = tuple(weight.shape[2:])
    if torch_checks and weight.shape[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
                           f"weight of size {_sizes(weight)} instead")
    if weight.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
                           f"but got weight of size [{_sizes(weight)}] instead")
    if input.shape[1] != weight.shape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {_sizes(weight)}, expected input"
                           f"{_sizes(input)} to have {weight.shape[1] * groups} channels, but got "
                           f"{input.shape[1]} channels instead")
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != weight.shape[0]):
        raise RuntimeError(f"Given weight of size {_sizes(weight)}, expected bias to be 1-dimensional with "
                           f"{weight.shape[0]} elements, but got bias of size {_sizes(bias)} instead")
    if torch_checks and n < 3 and 0 in kernel and input.size:   # (torch's 1-d convolution is a 2-d one of height 1)
        h, w = (1, kernel[0]) if n == 1 else kernel
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: {h} kernel_width: {w}")
    if padding == "valid":
        pairs = [(0, 0)] * n
    elif padding == "same":
        pairs = _same_padding(kernel, dilation)
    else:
        pairs = [(p, p) for p in padding]
    padded = [s + lo + hi for s, (lo, hi) in zip(input.shape[2:], pairs)]
    eff = [d * (k - 1) + 1 for k, d in zip(kernel, dilation)]
    if any(p < e for p, e in zip(padded, eff)):
        raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
                           f"Kernel size: ({' x '.join(map(str, eff))}). Kernel size can't be greater than "
                           f"actual input size")
    if torch_checks and input.size == 0 and input.shape[0] and input.shape[1]:
        # torch answers an empty input without a backend, where only the batch or the channels are empty
        shown = list(input.shape[:2]) + ([1] if n == 1 else []) + list(input.shape[2:])
        raise RuntimeError(f"Only zero batch or zero channel inputs are supported, but got input shape: {shown}")
    if torch_checks and input.size == 0 and input.shape[1] and 0 in kernel:
        # (torch's empty path with input channels multiplies by the weight's first element)
        raise IndexError("select(): index 0 out of range for tensor of size [0] at dimension 0")
    _check_kernel_dtype(input, n, dilation)
    if input.size == 0:   # torch's empty path: zeros of the output's size (no output channels when the
        # weight is empty too, as torch's empty path gives)
        out = [(p - e) // st + 1 for p, e, st in zip(padded, eff, stride)]
        c = weight.shape[0] if weight.size or not torch_checks else 0
        y = _empty_output(input, weight, bias, (input.shape[0], c) + tuple(out))
        if not torch_checks and bias is not None and y.size:   # conv_tbc over no time steps: the bias alone
            y = y + bias.reshape((1, c) + (1,) * n)
        return y.squeeze(0) if unbatched else y
    if any(lo != hi for lo, hi in pairs):
        if not _WARNED_SAME[0]:
            _WARNED_SAME[0] = True
            warnings.warn("Using padding='same' with even kernel lengths and odd dilation may require a zero-padded "
                          "copy of the input be created", UserWarning, stacklevel=4)
        input = ops.pad(input, pad_tuple(pairs))
        pairs = [(0, 0)] * n
    out = _conv_run(input, weight, bias, stride, tuple(lo for lo, _ in pairs), dilation, groups, n)
    return out.squeeze(0) if unbatched else out


def _empty_output(input, weight, bias, shape):
    """Zeros of the output's shape for an empty input, on the graph of every operand (zero gradients)."""
    y = ops._empty_product(input, weight, shape)
    return y if bias is None else ops._empty_product(y, bias, shape)


def _conv_run(x, w, b, stride, pad, dilation, groups, n):
    """A validated convolution with symmetric padding ``pad`` on batched input."""
    dt = x.dtype
    if dt == ms.bfloat16:
        x, w = cast(x, ms.float32), cast(w, ms.float32)
        b = None if b is None else cast(b, ms.float32)
    elif dt not in _NATIVE:   # (the host candidate takes float64 too)
        run = _conv_host if kernels.ACTIVE["conv"] is _conv_host else _conv_im2col
        return run(x, w, b, stride, pad, dilation, groups, n)
    out = kernels.ACTIVE["conv"](x, w, b, stride, pad, dilation, groups, n)
    if n == 3 and kernels.ACTIVE["conv"] not in (_conv_im2col, _conv_host):
        # MindSpore's Conv3D gradient kernels have no backward: double backward differentiates im2col
        recompute_as(out, _conv_im2col, x, w, b, stride, pad, dilation, groups, n)
    return cast(out, dt) if dt == ms.bfloat16 else out


def _conv_native(x, w, b, stride, pad, dilation, groups, n):
    """MindSpore's convolution kernels (oneDNN on CPU)."""
    mode = "pad" if any(pad) else "valid"
    if n == 1:
        if b is not None and x.shape[2] + 2 * pad[0] - dilation[0] * (w.shape[2] - 1) - 1 < stride[0]:
            # one output step: MindSpore's BiasAddGrad refuses a 3-d gradient of last dim 1, the 2-d one not
            return ops.conv2d(x.expand_dims(2), w.expand_dims(2), b, (1, stride[0]), mode, (0, pad[0]),
                              (1, dilation[0]), groups).squeeze(2)
        return ops.conv1d(x, w, b, stride[0], mode, pad[0], dilation[0], groups)
    if n == 2:
        return ops.conv2d(x, w, b, stride, mode, pad, dilation, groups)
    return ops.conv3d(x, w, b, stride, mode, pad, dilation, groups)


def _conv_native_alias(x, w, b, stride, pad, dilation, groups, n):
    """MindSpore's kernels with constant inputs (the image of a first layer, frozen weights) aliased
    as graph parameters: their backward is 3-6x faster (graph_inputs)."""
    x, w, b = graph_inputs(x, w, b)
    return _conv_native(x, w, b, stride, pad, dilation, groups, n)


# a column buffer of at most this many bytes: larger images are cut into batch and row tiles
COLUMN_BYTES = 64 << 20


def _conv_im2col(x, w, b, stride, pad, dilation, groups, n):
    """Convolution as strided slices + one matmul per tile (im2col); also the path of the dtypes
    without a convolution kernel (float64, integers), exact in their own precision."""
    if any(pad):
        x = ops.pad(x, pad_tuple([(p, p) for p in pad]))
    y = _im2col_tiled(x, w, stride, dilation, groups)
    if b is not None:
        y = y + b.reshape((1, w.shape[0]) + (1,) * n)
    return y


def _im2col_tiled(x, w, stride, dilation, groups):
    """im2col on padded input, cut so that no column buffer exceeds COLUMN_BYTES: by batch, then (for one
    image too large) by rows of the first spatial dim; the tiles' outputs are concatenated."""
    kernel = w.shape[2:]
    out = [(s - d * (k - 1) - 1) // st + 1 for s, k, d, st in zip(x.shape[2:], kernel, dilation, stride)]
    per_row = x.shape[1] * math.prod(kernel) * math.prod(out[1:]) * x.itemsize
    N = x.shape[0]
    rows = max(1, COLUMN_BYTES // per_row)
    if rows >= out[0]:
        step = max(1, rows // out[0])
        if step >= N:
            return _im2col(x, w, stride, dilation, groups, out)
        return ops.cat([_im2col_tiled(x[i:i + step], w, stride, dilation, groups) for i in range(0, N, step)])
    if N > 1:
        return ops.cat([_im2col_tiled(x[i:i + 1], w, stride, dilation, groups) for i in range(N)])
    span = dilation[0] * (kernel[0] - 1)
    tiles = []
    for r0 in range(0, out[0], rows):
        r1 = min(out[0], r0 + rows)
        part = x[:, :, r0 * stride[0]:(r1 - 1) * stride[0] + span + 1]
        tiles.append(_im2col(part, w, stride, dilation, groups, [r1 - r0] + out[1:]))
    return ops.cat(tiles, 2)


def stepped_slice(x, begin, end, strides):
    """``ops.strided_slice`` with a backward that works: MindSpore's CPU StridedSliceGrad fails ("input
    memory out of bounds") on a stepped dim before a whole last dim of step 1 (a (2, 4, 3) input stepped
    (1, 2, 1) to its end), so the last dim gets one more (zero) element first: the slice then ends before it."""
    if any(st > 1 for st in strides[:-1]) and strides[-1] == 1 and begin[-1] == 0 and end[-1] >= x.shape[-1]:
        x = ops.pad(x, (0, 1))
        end = tuple(end[:-1]) + (x.shape[-1] - 1,)
    return ops.strided_slice(x, begin, end, strides)


def _im2col(x, w, stride, dilation, groups, out):
    C = x.shape[1]
    K = math.prod(w.shape[2:])
    O = w.shape[0]
    col = _columns(x, w.shape[2:], stride, dilation, groups, out)
    y = _mm(w.reshape(groups, O // groups, (C // groups) * K), col)
    return y.reshape((x.shape[0], O) + tuple(out))


def _columns(x, kernel, stride, dilation, groups, out):
    """(N, G, C/G * K, L): the im2col matrix of the padded input ``x``, in recorded ops."""
    N, C = x.shape[:2]
    cols = []
    for offs in itertools.product(*[range(k) for k in kernel]):
        begin = (0, 0) + tuple(o * d for o, d in zip(offs, dilation))
        end = (N, C) + tuple(b0 + (o - 1) * st + 1 for b0, o, st in zip(begin[2:], out, stride))
        cols.append(stepped_slice(x, begin, end, (1, 1) + tuple(stride)))
    col = ops.stack(cols, 2)                                   # (N, C, K, *out)
    return col.reshape(N, groups, (C // groups) * len(cols), math.prod(out))


def _conv_host(x, w, b, stride, pad, dilation, groups, n):
    """im2col over the host memory and numpy's BLAS (``_host_conv``), float32/float64; the node's gradients in
    recorded ops when a pass records itself (create_graph). Other dtypes: im2col."""
    if not _host.usable(x, w, b):
        return _conv_im2col(x, w, b, stride, pad, dilation, groups, n)
    return _host_conv.conv(x, w, b, stride, pad, dilation, groups, _conv_grads_recorded)


def _conv_grads_recorded(x, w, g, stride, pad, dilation, groups, need_x, need_w, need_b):
    """(grad x, grad w, grad b) of a convolution in recorded ops: the transposed convolution of the output
    gradient, the output gradient times the im2col columns, its sum."""
    n = w.ndim - 2
    gb = ops.sum(g, (0,) + tuple(range(2, 2 + n))) if need_b else None
    gw = _weight_grad_recorded(x, g, tuple(w.shape), stride, pad, dilation, groups) if need_w else None
    gx = None
    if need_x:
        spatial, out, kernel = x.shape[2:], g.shape[2:], w.shape[2:]
        output_padding = tuple(s + 2 * p - d * (k - 1) - 1 - (o - 1) * st
                               for s, p, d, k, o, st in zip(spatial, pad, dilation, kernel, out, stride))
        gx = _transpose_run(g, w, None, stride, pad, output_padding, groups, dilation, tuple(spatial), n)
    return gx, gw, gb


def _weight_grad_recorded(x, g, w_shape, stride, pad, dilation, groups):
    """A convolution's weight gradient in recorded ops: sum over images of g (N, G, O/G, L) times the
    columns of x (N, G, C/G K, L)."""
    N = x.shape[0]
    if any(pad):
        x = ops.pad(x, pad_tuple([(p, p) for p in pad]))
    col = _columns(x, w_shape[2:], stride, dilation, groups, g.shape[2:])
    gm = g.reshape(N, groups, w_shape[0] // groups, -1)
    return ops.sum(_mm(gm, col.swapaxes(-1, -2)), 0).reshape(w_shape)


kernels.candidates("conv", native=_conv_native, native_alias=_conv_native_alias, im2col=_conv_im2col,
                   host=_conv_host)


@register("conv1d", family=F, namespace=("torch", "nn.functional"))
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


@register("conv2d", family=F, namespace=("torch", "nn.functional"))
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


@register("conv3d", family=F, namespace=("torch", "nn.functional"))
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


# --- transposed --------------------------------------------------------------------------------

_AXES = ("depth", "height", "width")


def _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, n, name):
    stride = ntuple(stride, n, "stride")
    padding = ntuple(padding, n, "padding")
    output_padding = ntuple(output_padding, n, "output_padding")
    dilation = ntuple(dilation, n, "dilation")
    input, unbatched = batchify(input, n, name)
    _check_common(input, weight, bias, stride, padding, dilation, groups, n)
    if any(o < 0 for o in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(o >= s and o >= d for o, s, d in zip(output_padding, stride, dilation)):
        # torch runs 1-d through its 2-d kernel, so its message names height and width there
        axes = _AXES[3 - max(n, 2):]
        vals = ((0,) if n == 1 else ()) + output_padding, ((1,) if n == 1 else ()) + stride, \
            ((1,) if n == 1 else ()) + dilation
        parts = [f"{what}_{a}: {v}" for what, seq in zip(("output_padding", "stride", "dilation"), vals)
                 for a, v in zip(axes, seq)]
        raise RuntimeError("output padding must be smaller than either stride or dilation, but got "
                           + " ".join(parts))
    if weight.shape[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
                           f"weight of size {_sizes(weight)} instead")
    if weight.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
                           f"but got weight of size [{_sizes(weight)}] instead")
    if input.shape[1] != weight.shape[0]:
        raise RuntimeError(f"Given transposed=1, weight of size {_sizes(weight)}, expected input"
                           f"{_sizes(input)} to have {weight.shape[0]} channels, but got {input.shape[1]} "
                           f"channels instead")
    cout = weight.shape[1] * groups
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != cout):
        raise RuntimeError(f"Given transposed=1, weight of size {_sizes(weight)}, expected bias to be "
                           f"1-dimensional with {cout} elements, but got bias of size {_sizes(bias)} instead")
    if input.shape[0] and input.shape[1] and 0 in input.shape[2:]:   # (torch's empty path: its first check)
        shown = list(input.shape[:2]) + ([1] if n == 1 else []) + list(input.shape[2:])
        raise RuntimeError(f"Only zero batch or zero channel inputs are supported, but got input shape: {shown}")
    if weight.size == 0 and input.size:   # (torch's transposed kernels' shape check)
        if n == 3:
            raise RuntimeError("non-empty 5D (n_output_plane x n_input_plane x kernel_depth x kernel_height x "
                               f"kernel_width) tensor expected for weight, but got: {_sizes(weight)}")
        w = _sizes(weight)
        raise RuntimeError(f"non-empty 2D or 4D weight tensor expected, but got: {w[:2] + [1] + w[2:] if n == 1 else w}")
    _check_kernel_dtype(input, n)
    kernel = tuple(weight.shape[2:])
    out = [(s - 1) * st - 2 * p + d * (k - 1) + op + 1
           for s, st, p, d, k, op in zip(input.shape[2:], stride, padding, dilation, kernel, output_padding)]
    lead = [1] if n == 1 else []   # torch runs 1-d convolutions as 2-d ones of height 1
    if input.size == 0:   # torch answers an empty input without a backend: an output size of 0 is no error
        if weight.size == 0:   # (its empty path reads the weight's first element)
            raise IndexError("select(): index 0 out of range for tensor of size [0] at dimension 0")
        shape = [input.shape[0], cout] + lead + out
        bad = next((i for i, o in enumerate(shape) if o < 0), None)
        if bad is not None:
            raise RuntimeError(f"invalid shape dimension {shape[bad]} at index {bad} of shape {shape}")
        y = _empty_output(input, weight, bias, (input.shape[0], cout) + tuple(out))
        return y.squeeze(0) if unbatched else y
    if any(o <= 0 for o in out):
        raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, lead + list(input.shape[2:])))}). "
                           f"Calculated output size per channel: ({' x '.join(map(str, lead + out))}). "
                           f"Output size is too small")
    y = _transpose_run(input, weight, bias, stride, padding, output_padding, groups, dilation, out, n)
    return y.squeeze(0) if unbatched else y


@functools.lru_cache(maxsize=256)
def _backprop_input(out_channel, kernel, pad, stride, dilation, groups):
    return P.Conv2DBackpropInput(out_channel, kernel, pad_mode="pad", pad=pad, stride=stride,
                                 dilation=dilation, group=groups)


@functools.lru_cache(maxsize=256)
def _transpose3d(cin, cout, kernel, pad, stride, dilation, groups, output_padding):
    return P.Conv3DTranspose(cin, cout, kernel, pad_mode="pad", pad=pad, stride=stride, dilation=dilation,
                             group=groups, output_padding=output_padding)


def _transpose_run(x, w, b, stride, padding, output_padding, groups, dilation, out, n):
    """The transposed convolution plus the bias (added in float32 for bfloat16: rounded once, and
    MindSpore's ReduceSum, the bias's gradient, has no bfloat16 kernel)."""
    dt = x.dtype
    if dt == ms.bfloat16:
        x, w = cast(x, ms.float32), cast(w, ms.float32)
        b = None if b is None else cast(b, ms.float32)
    if _host_conv.usable_half(x, w):   # torch's float16 roundings (whatever candidate the host chose)
        y = _host_conv.conv_transpose(x, w, stride, padding, dilation, groups, out, _transpose_grads_recorded)
    elif dt in _NATIVE or dt == ms.bfloat16 or kernels.ACTIVE["conv_transpose"] is _transpose_host and dt == ms.float64:
        y = kernels.ACTIVE["conv_transpose"](x, w, stride, padding, output_padding, groups, dilation, out, n)
    else:
        y = _transpose_composed(x, w, stride, padding, output_padding, groups, dilation, out, n)
    if b is not None:
        y = y + b.reshape((1, y.shape[1]) + (1,) * n)
    return cast(y, dt) if dt == ms.bfloat16 else y


def _transpose_native(x, w, stride, padding, output_padding, groups, dilation, out, n):
    """MindSpore's kernels: Conv2DBackpropInput (the same computation; ConvTranspose2D has no CPU kernel),
    Conv3DTranspose when the depth dilation is 1."""
    cout = w.shape[1] * groups
    if n == 1:
        prim = _backprop_input(w.shape[0], (1, w.shape[2]), (0, 0, padding[0], padding[0]), (1, stride[0]),
                               (1, dilation[0]), groups)
        return prim(x.expand_dims(2), w.expand_dims(2), (x.shape[0], cout, 1, out[0])).squeeze(2)
    if n == 2:
        prim = _backprop_input(w.shape[0], tuple(w.shape[2:]),
                               (padding[0], padding[0], padding[1], padding[1]), stride, dilation, groups)
        return prim(x, w, (x.shape[0], cout) + tuple(out))
    if dilation[0] == 1:
        pad = (padding[0], padding[0], padding[1], padding[1], padding[2], padding[2])
        return _transpose3d(w.shape[0], cout, tuple(w.shape[2:]), pad, stride, dilation, groups,
                            output_padding)(x, w)
    return _transpose_composed(x, w, stride, padding, output_padding, groups, dilation, out, n)


def _transpose_native_alias(x, w, stride, padding, output_padding, groups, dilation, out, n):
    """The native kernels with constant inputs (a generator's noise, frozen weights) aliased as graph
    parameters (graph_inputs)."""
    x, w = graph_inputs(x, w)
    return _transpose_native(x, w, stride, padding, output_padding, groups, dilation, out, n)


def _transpose_composed(x, w, stride, padding, output_padding, groups, dilation, out, n):
    """Transposed convolution as zero-insertion + padding + a convolution with the flipped kernel."""
    for i, s in enumerate(stride):
        if s > 1:
            x = _insert_zeros(x, 2 + i, s)
    kernel = w.shape[2:]
    pairs = [(d * (k - 1) - p, d * (k - 1) - p + op)
             for k, d, p, op in zip(kernel, dilation, padding, output_padding)]
    x = ops.pad(x, pad_tuple(pairs))
    cin, cout_g = w.shape[0], w.shape[1]
    wt = w.reshape((groups, cin // groups, cout_g) + tuple(kernel)).swapaxes(1, 2)
    wt = wt.reshape((groups * cout_g, cin // groups) + tuple(kernel))
    wt = ops.flip(wt, tuple(range(2, 2 + n)))
    return _conv_run(x, wt, None, (1,) * n, (0,) * n, dilation, groups, n)


def _insert_zeros(x, axis, s):
    size = x.shape[axis]
    x = x.expand_dims(axis + 1)
    pad = [(0, 0)] * (x.ndim - axis - 1)
    pad[0] = (0, s - 1)
    x = ops.pad(x, pad_tuple(pad))
    shape = x.shape[:axis] + (size * s,) + x.shape[axis + 2:]
    x = x.reshape(shape)
    begin = (0,) * x.ndim
    end = shape[:axis] + ((size - 1) * s + 1,) + shape[axis + 1:]
    return ops.strided_slice(x, begin, end, (1,) * x.ndim)


def _transpose_host(x, w, stride, padding, output_padding, groups, dilation, out, n):
    """The input gradient of a convolution on the host (``_host_conv``), float32/float64; the node's
    gradients in recorded ops when a pass records itself. Other dtypes: the native kernels."""
    if not _host.usable(x, w):
        return _transpose_native(x, w, stride, padding, output_padding, groups, dilation, out, n)
    return _host_conv.conv_transpose(x, w, stride, padding, dilation, groups, out, _transpose_grads_recorded)


def _transpose_grads_recorded(x, w, g, stride, pad, dilation, groups, need_x, need_w):
    """(grad x, grad w) of a transposed convolution in recorded ops: the convolution of the output gradient,
    and the weight gradient of that convolution with the roles of input and output gradient swapped."""
    n = w.ndim - 2
    gx = _conv_run(g, w, None, stride, pad, dilation, groups, n) if need_x else None
    gw = _weight_grad_recorded(g, x, tuple(w.shape), stride, pad, dilation, groups) if need_w else None
    return gx, gw


kernels.candidates("conv_transpose", native=_transpose_native, native_alias=_transpose_native_alias,
                   composed=_transpose_composed, host=_transpose_host)


@register("conv_transpose1d", family=F, namespace=("torch", "nn.functional"))
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 1,
                           "conv_transpose1d")


@register("conv_transpose2d", family=F, namespace=("torch", "nn.functional"))
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 2,
                           "conv_transpose2d")


@register("conv_transpose3d", family=F, namespace=("torch", "nn.functional"))
def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 3,
                           "conv_transpose3d")


@register("conv_tbc", family=F, namespace=("torch", "nn.functional"))
def conv_tbc(input, weight, bias, pad=0):
    """(time, batch, channel) convolution: weight (kernel, in, out)."""
    if input.ndim != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.ndim != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, out_channels.")
    if bias.ndim != 1:
        raise RuntimeError("Bias must be 1-D")
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if weight.shape[2] != bias.shape[0]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    steps = input.shape[0] + 2 * pad - weight.shape[0] + 1
    if steps < 0:   # (torch creates its result first)
        raise RuntimeError(f"Trying to create tensor with negative dimension {steps}: "
                           f"[{steps}, {input.shape[1]}, {weight.shape[2]}]")
    if weight.shape[2] == 0 or steps == 0 or input.shape[1] == 0:   # an empty result: torch's (MindSpore's
        # kernel refuses it)
        return _empty_output(input, weight, bias, (steps, input.shape[1], weight.shape[2]))
    if input.dtype == ms.bool_:   # (torch's matrix products, one per kernel tap meeting the input: no bool
        # kernel; over no input channels, a failing cast; no input steps: the bias alone)
        if not input.shape[0] or not weight.shape[0]:
            return ops.broadcast_to(bias, (steps, input.shape[1], weight.shape[2]))
        if input.shape[2]:
            raise NotImplementedError("\"addmm_impl_cpu_\" not implemented for 'Bool'")
        raise RuntimeError("result type Long can't be cast to the desired output type Bool")
    x = input.transpose(1, 2, 0)
    out = _conv(x, weight.transpose(2, 1, 0), bias, 1, pad, 1, 1, 1, "conv1d", torch_checks=False)
    return out.transpose(2, 0, 1)
