"""The host convolutions (mstorch/ops/_host_conv.py: im2col over host memory and numpy's BLAS, the
``host`` candidates of conv and conv_transpose) against torch: values and gradients over the geometry
(stride, padding, dilation, groups, output_padding, 1-3 spatial dims, float32/float64), double backward
(the nodes' gradients in recorded ops), in-place writes on their outputs, batch chunks of the column
buffer, and calls without a gradient."""
import numpy as np
import pytest

from harness import check
from mstorch.ops import _host_conv, _kernels

_RNG = np.random.default_rng(7)

CONV = [  # (input shape, weight shape, keyword arguments)
    ((2, 4, 9, 8), (6, 4, 3, 3), dict(padding=1)),
    ((2, 4, 9, 8), (6, 2, 3, 2), dict(stride=(2, 3), padding=(1, 0), dilation=(2, 1), groups=2)),
    ((2, 4, 9, 8), (4, 1, 3, 3), dict(padding=1, groups=4)),           # depthwise
    ((3, 4, 11), (5, 4, 5), dict(stride=2, padding=2)),
    ((2, 2, 5, 6, 7), (3, 2, 3, 3, 3), dict(stride=(1, 2, 1), padding=(1, 1, 0), dilation=(1, 1, 2))),
    ((2, 3, 7, 7), (5, 3, 1, 1), dict(stride=2)),
    ((1, 3, 6, 5), (2, 3, 3, 3), dict(padding="same", dilation=2)),
]
TRANSPOSE = [
    ((2, 4, 5, 6), (4, 3, 3, 3), dict(stride=2, padding=1, output_padding=1)),
    ((2, 4, 5, 6), (4, 2, 2, 3), dict(stride=(2, 1), padding=(0, 1), groups=2, dilation=(1, 2))),
    ((3, 4, 7), (4, 5, 3), dict(stride=3, padding=2, output_padding=2)),
    ((1, 2, 3, 4, 3), (2, 3, 2, 2, 2), dict(stride=2)),
]


def _fn(T, transpose, n):
    F = T.nn.functional
    return ([None, F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d] if transpose else
            [None, F.conv1d, F.conv2d, F.conv3d])[n]


def _arrays(xs, ws, transpose, kw):
    out_channels = ws[1] * kw.get("groups", 1) if transpose else ws[0]
    return (_RNG.standard_normal(xs), _RNG.standard_normal(ws), _RNG.standard_normal(out_channels))


@pytest.fixture(autouse=True)
def host_kernels():
    with _kernels.forced("conv", "host"), _kernels.forced("conv_transpose", "host"):
        yield


CASES = [pytest.param(False, *c, id=f"conv{i}") for i, c in enumerate(CONV)] + \
    [pytest.param(True, *c, id=f"transpose{i}") for i, c in enumerate(TRANSPOSE)]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("transpose,xs,ws,kw", CASES)
def test_values_and_gradients(transpose, xs, ws, kw, dtype):
    arrays = _arrays(xs, ws, transpose, kw)

    def fn(T):
        x, w, b = (T.tensor(a, dtype=getattr(T, dtype), requires_grad=True) for a in arrays)
        y = _fn(T, transpose, len(xs) - 2)(x, w, b, **kw)
        weight = T.linspace(-1, 2, y.numel(), dtype=y.dtype).reshape(y.shape)
        (y * weight).sum().backward()
        return y, x.grad, w.grad, b.grad
    tol = dict(rtol=1e-10, atol=1e-10) if dtype == "float64" else dict(rtol=1e-4, atol=1e-4)
    check(fn, **tol)


@pytest.mark.parametrize("transpose,xs,ws,kw", CASES)
def test_double_backward(transpose, xs, ws, kw):
    arrays = _arrays(xs, ws, transpose, kw)

    def fn(T):
        x, w, b = (T.tensor(a, requires_grad=True) for a in arrays)
        conv = _fn(T, transpose, len(xs) - 2)
        g = T.autograd.grad((conv(x, w, b, **kw) ** 2).sum(), (x, w, b), create_graph=True)
        h = T.autograd.grad(sum((t.tanh() ** 2).sum() for t in g), (x, w, b))
        return g, h
    check(fn, rtol=1e-9, atol=1e-9)


def test_grad_fn_is_named_as_torch():
    def fn(T):
        x = T.tensor(_RNG.standard_normal((1, 2, 4, 4)), requires_grad=True)
        w = T.tensor(_RNG.standard_normal((3, 2, 3, 3)))
        return (T.nn.functional.conv2d(x, w).grad_fn.name(),
                T.nn.functional.conv_transpose2d(x, w.transpose(0, 1)).grad_fn.name())
    check(fn)


def test_in_place_writes_on_the_output():
    arrays = _arrays((2, 3, 6, 6), (4, 3, 3, 3), False, {})

    def fn(T):
        x, w, b = (T.tensor(a, dtype=T.float32, requires_grad=True) for a in arrays)
        y = T.nn.functional.conv2d(x, w, b, padding=1)
        y.add_(1)
        y[:, 0].mul_(2)
        y[:, 1] += 1
        (y ** 2).sum().backward()
        return y, x.grad, w.grad, b.grad
    check(fn, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("transpose", [False, True])
def test_batch_chunks(monkeypatch, transpose):
    # a column buffer smaller than one image's columns: one image per chunk
    monkeypatch.setattr(_host_conv, "COLUMN_BYTES", 64)
    xs, ws, kw = (TRANSPOSE[0] if transpose else CONV[1])
    arrays = _arrays((3,) + xs[1:], ws, transpose, kw)

    def fn(T):
        x, w, b = (T.tensor(a, requires_grad=True) for a in arrays)
        y = _fn(T, transpose, 2)(x, w, b, **kw)
        y.sum().backward()
        return y, x.grad, w.grad, b.grad
    check(fn, rtol=1e-10, atol=1e-10)


def test_without_gradients():
    arrays = _arrays((2, 4, 9, 8), (6, 2, 3, 2), False, {})

    def fn(T):
        x, w, b = (T.tensor(a) for a in arrays)
        with T.no_grad():
            return T.nn.functional.conv2d(x, w, b, groups=2), T.nn.functional.conv2d(x, w, None, groups=2)
    check(fn, rtol=1e-10, atol=1e-10)
