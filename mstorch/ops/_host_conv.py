"""Convolution on the host: im2col over the input's own memory and numpy's BLAS (the ``host`` candidate
of ``conv``, chosen per host by ``tools/choose_kernels.py``).

MindSpore 2.10's CPU Conv2D is one to two orders of magnitude slower than torch's (a 3x3 convolution of
4x32x32x32 to 32 channels: 188 ms, against 0.4 ms for torch and 24 ms for the im2col composition of
MindSpore ops, measured on an AMD EPYC host), and the composition spends its time in MindSpore's slices
and copies. Here the columns are one strided view of the padded input (no copy until numpy lays them out
for the product), the products run on OpenBLAS, and the input gradient is scattered back with one
strided add per kernel offset. The gradients are computed the same way by the nodes below; a backward pass
that records itself (create_graph) gets them in recorded MindSpore ops (the family file's formulas).
Only float32 and float64 (``_host.usable``); everything else keeps the other candidates, except the float16
transposed convolution, which runs here on every CPU host with torch's roundings (``conv_transpose_half``).
"""
import itertools
import math

import mindspore as ms
import numpy as np

from .. import _ms_private as P
from .. import _runtime
from . import _host

# columns of at most this many bytes per batch chunk (an image batch is cut into chunks)
COLUMN_BYTES = 64 << 20


def _geometry(x_shape, w_shape, stride, pad, dilation):
    spatial = x_shape[2:]
    kernel = w_shape[2:]
    out = tuple((s + 2 * p - d * (k - 1) - 1) // st + 1
                for s, k, d, st, p in zip(spatial, kernel, dilation, stride, pad))
    return kernel, out


def _padded(x, pad):
    if not any(pad):
        return x
    return np.pad(x, ((0, 0), (0, 0)) + tuple((p, p) for p in pad))


def _columns(xp, kernel, out, stride, dilation, groups):
    """(G, C/G * K, N * L): the im2col matrix of the padded input ``xp`` (N, C, *S), images side by side
    so that each group's product is one GEMM (a copy laid out for BLAS)."""
    n_, c = xp.shape[:2]
    st = xp.strides
    nd = len(kernel)
    view = np.lib.stride_tricks.as_strided(
        xp, (c,) + tuple(kernel) + (n_,) + tuple(out),
        (st[1],) + tuple(st[2 + i] * dilation[i] for i in range(nd)) + (st[0],)
        + tuple(st[2 + i] * stride[i] for i in range(nd)),
        writeable=False)
    return np.ascontiguousarray(view).reshape(groups, (c // groups) * math.prod(kernel), n_ * math.prod(out))


def _chunks(n, per_image):
    step = max(1, COLUMN_BYTES // max(1, per_image))
    return [(i, min(n, i + step)) for i in range(0, n, step)]


def forward(x, w, b, stride, pad, dilation, groups):
    """y = conv(x, w) + b on numpy arrays (N, C, *S), (O, C/G, *K), (O,) or None."""
    kernel, out = _geometry(x.shape, w.shape, stride, pad, dilation)
    n_, c = x.shape[:2]
    o = w.shape[0]
    wm = w.reshape(groups, o // groups, -1)
    y = np.empty((n_, o) + out, x.dtype)
    per_image = c * math.prod(kernel) * math.prod(out) * x.itemsize
    for i0, i1 in _chunks(n_, per_image):
        cols = _columns(_padded(x[i0:i1], pad), kernel, out, stride, dilation, groups)
        # (G, O/G, n L) -> (n, O, *out)
        y[i0:i1] = np.matmul(wm, cols).reshape((o, i1 - i0) + out).swapaxes(0, 1)
    if b is not None:
        y += b.reshape((1, o) + (1,) * len(out))
    return y


def backward(x, w, g, stride, pad, dilation, groups, need_x, need_w, need_b):
    """(grad x, grad w, grad b) of ``forward`` for the output gradient ``g`` (None where not needed)."""
    nd = len(w.shape) - 2
    gb = g.sum(axis=(0,) + tuple(range(2, 2 + nd))) if need_b else None
    gw = weight_grad(x, g, w.shape, stride, pad, dilation, groups) if need_w else None
    gx = input_grad(x.shape, w, g, stride, pad, dilation, groups) if need_x else None
    return gx, gw, gb


def _grad_rows(g, i0, i1, groups):
    """(n, O, *out) -> (G, O/G, n L): the output gradient of a batch chunk laid out as the columns are."""
    o = g.shape[1]
    return np.ascontiguousarray(g[i0:i1].swapaxes(0, 1)).reshape(groups, o // groups, -1)


def weight_grad(x, g, w_shape, stride, pad, dilation, groups):
    """The weight's gradient: sum over images of the output gradient times the columns."""
    kernel, out = _geometry(x.shape, w_shape, stride, pad, dilation)
    n_, c = x.shape[:2]
    gw = np.zeros((groups, w_shape[0] // groups, (c // groups) * math.prod(kernel)), g.dtype)
    for i0, i1 in _chunks(n_, c * math.prod(kernel) * math.prod(out) * x.itemsize):
        cols = _columns(_padded(x[i0:i1], pad), kernel, out, stride, dilation, groups)
        gw += np.matmul(_grad_rows(g, i0, i1, groups), cols.swapaxes(-1, -2))
    return gw.reshape(w_shape)


def input_grad(x_shape, w, g, stride, pad, dilation, groups):
    """The input's gradient (also a transposed convolution's output): the weight's transpose times the
    output gradient, scattered back (col2im) with one strided add per kernel offset."""
    kernel, out = _geometry(x_shape, w.shape, stride, pad, dilation)
    n_, c = x_shape[:2]
    o = w.shape[0]
    wt = w.reshape(groups, o // groups, -1).swapaxes(-1, -2)
    gx = np.empty(x_shape, g.dtype)
    everything = (slice(None), slice(None))
    half = g.dtype == np.float16   # (the products in float32, rounded once, as torch's half gemm)
    for i0, i1 in _chunks(n_, c * math.prod(kernel) * math.prod(out) * g.itemsize):
        m = i1 - i0
        rows = _grad_rows(g, i0, i1, groups)
        gcols = np.matmul(wt.astype(np.float32), rows.astype(np.float32)).astype(np.float16) if half else \
            np.matmul(wt, rows)
        gcols = gcols.reshape((c,) + tuple(kernel) + (m,) + out)
        gxp = np.zeros((m, c) + tuple(s + 2 * p for s, p in zip(x_shape[2:], pad)), g.dtype)
        for offs in itertools.product(*(range(k) for k in kernel)):
            where = tuple(slice(k * d, k * d + st * (q - 1) + 1, st)
                          for k, d, st, q in zip(offs, dilation, stride, out))
            gxp[everything + where] += gcols[(slice(None),) + offs].swapaxes(0, 1)
        gx[i0:i1] = gxp[everything + tuple(slice(p, p + s) for p, s in zip(pad, x_shape[2:]))]
    return gx


class HostConv(P.FunctionBase):
    """grad_fn of a host convolution, named as torch's node."""

    @staticmethod
    def forward(node, b, w, x, geometry, recorded):
        node.save_for_backward(x, w)
        node.geometry, node.recorded = geometry, recorded
        stride, pad, dilation, groups = geometry
        with _host.kernel("Conv"):
            y = forward(_host.array(x), _host.array(w), None if b is None else _host.array(b),
                        stride, pad, dilation, groups)
        return _host.tensor(y, x.dtype)

    @staticmethod
    def backward(node, g):
        x, w = node.saved_tensors
        stride, pad, dilation, groups = node.geometry
        need_b, need_w, need_x = node.needs_input_grad[:3]
        dt = g.dtype
        if P.grad_enabled():   # a pass that records itself (create_graph): the formulas in recorded ops
            gx, gw, gb = node.recorded(x, w, g, stride, pad, dilation, groups, need_x, need_w, need_b)
            return gb, gw, gx, None, None
        with _host.kernel("ConvBackward"):
            gx, gw, gb = backward(_host.array(x), _host.array(w), _host.array(g), stride, pad, dilation, groups,
                                  need_x, need_w, need_b)
        t = _host.tensor
        return (t(gb, dt) if need_b else None, t(gw, dt) if need_w else None, t(gx, dt) if need_x else None,
                None, None)


HostConv.__name__ = "ConvolutionBackward0"


def conv(x, w, b, stride, pad, dilation, groups, recorded):
    """The host convolution of MindSpore tensors (``_host.usable`` checked by the caller); a node of ours
    when a gradient is recorded, whose backward calls ``recorded(x, w, g, stride, pad, dilation, groups,
    need_x, need_w, need_b)`` (the gradients in recorded MindSpore ops) when a pass records itself."""
    geometry = (tuple(stride), tuple(pad), tuple(dilation), groups)
    if P.grad_enabled() and (P.requires_grad(x) or P.requires_grad(w) or b is not None and P.requires_grad(b)):
        # inputs in the order torch's engine accumulates their gradients (bias, weight, then the input's graph)
        out = HostConv.apply(b, w, x, geometry, recorded)
        P.set_function_of_output(out, HostConv)
        return out
    with _host.kernel("Conv"):
        y = forward(_host.array(x), _host.array(w), None if b is None else _host.array(b), *geometry)
    return _host.tensor(y, x.dtype)


class HostConvTranspose(P.FunctionBase):
    """grad_fn of a host transposed convolution: the input gradient of the convolution whose weight it
    shares (a convolution of (N, C_out, *out) to x's shape), named as torch's node."""

    @staticmethod
    def forward(node, w, x, geometry, out, recorded):
        node.save_for_backward(x, w)
        node.geometry, node.recorded = geometry, recorded
        with _host.kernel("ConvTranspose"):
            y = input_grad(_transposed_shape(x, w, geometry, out), _array(w), _array(x), *geometry)
        return _tensor(y, x.dtype)

    @staticmethod
    def backward(node, g):
        x, w = node.saved_tensors
        need_w, need_x = node.needs_input_grad[:2]
        if P.grad_enabled():   # a pass that records itself (create_graph): the formulas in recorded ops
            gx, gw = node.recorded(x, w, g, *node.geometry, need_x, need_w)
            return gw, gx, None, None, None
        gh, dt = _array(g), g.dtype
        with _host.kernel("ConvTransposeBackward"):
            if dt == ms.float16:   # torch's half kernels: each product in float32, rounded once
                gx = forward(gh.astype(np.float32), _array(w).astype(np.float32), None, *node.geometry) \
                    if need_x else None
                gw = _weight_grad_half(gh, _array(x), tuple(w.shape), *node.geometry) if need_w else None
            else:
                gx = forward(gh, _array(w), None, *node.geometry) if need_x else None
                gw = weight_grad(gh, _array(x), tuple(w.shape), *node.geometry) if need_w else None
        return (None if gw is None else _tensor(gw, dt), None if gx is None else _tensor(gx, dt), None, None, None)


HostConvTranspose.__name__ = "ConvolutionBackward0"


def _transposed_shape(x, w, geometry, out):
    groups = geometry[3]
    return (x.shape[0], w.shape[1] * groups) + tuple(out)


def conv_transpose(x, w, stride, pad, dilation, groups, out, recorded):
    """The host transposed convolution (no bias) of MindSpore tensors to the spatial size ``out``; its node's
    backward calls ``recorded(x, w, g, stride, pad, dilation, groups, need_x, need_w)`` when a pass records
    itself."""
    geometry = (tuple(stride), tuple(pad), tuple(dilation), groups)
    if P.grad_enabled() and (P.requires_grad(x) or P.requires_grad(w)):
        y = HostConvTranspose.apply(w, x, geometry, tuple(out), recorded)
        P.set_function_of_output(y, HostConvTranspose)
        return y
    with _host.kernel("ConvTranspose"):
        y = input_grad(_transposed_shape(x, w, geometry, out), _array(w), _array(x), *geometry)
    return _tensor(y, x.dtype)


# --- float16 transposed convolution -------------------------------------------------------------------
# torch's CPU float16 transposed convolution (slow_conv_transpose2d/3d; oneDNN only on CPUs with native
# float16) computes the columns with a half gemm (float32 sums, rounded once), then adds them into the
# output in float16 one kernel offset after another (col2im), each add rounded: a sum of large terms that
# cancels keeps those roundings (0.0337 where an exact sum rounded once gives 0.0366). MindSpore's kernel
# rounds once. The weight's gradient accumulates the images' products in float16 (gemm with beta = 1).

def usable_half(x, w):
    """Whether the float16 transposed convolution can run here (CPU, blocking launch, no graph capture)."""
    return (x.dtype == w.dtype == ms.float16 and _runtime.device_target() == "CPU"
            and _runtime.launch_is_blocking() and not _runtime.CAPTURE[0])


def _array(t):
    return _runtime.read_host(t) if t.dtype == ms.float16 else _host.array(t)


def _tensor(a, dtype):
    return ms.from_numpy(np.ascontiguousarray(a, np.float16)) if dtype == ms.float16 else _host.tensor(a, dtype)


def _weight_grad_half(x, g, w_shape, stride, pad, dilation, groups):
    """``weight_grad`` of float16 arrays as torch's half kernels: each image's product in float32, added to
    the float16 gradient (rounded) in image order."""
    gw = np.zeros(w_shape, np.float16)
    for i in range(x.shape[0]):
        part = weight_grad(x[i:i + 1].astype(np.float32), g[i:i + 1].astype(np.float32), w_shape, stride, pad,
                           dilation, groups)
        gw = (gw.astype(np.float32) + part).astype(np.float16)
    return gw
