"""Regression tests against torch for silent-wrong classes the differential fuzzer found in the normalizations
(issue 18, ninth batch): float64 values and gradients computed at float32 precision (group_norm's kernel takes
eps as a float32 attribute; a float64 batch norm's running statistics were moved by a float32-rounded momentum),
and the dtype and rounding of the statistics ``native_batch_norm`` / ``batch_norm_update_stats`` /
``native_layer_norm`` / ``native_group_norm`` return for float16/bfloat16 inputs."""
import pytest

from harness import check

# float64 must agree far beyond float32 precision: the bugs moved results by ~1e-8 relative (more where a
# gradient cancels), rounding differences stay near 1e-15
F64 = dict(rtol=1e-10, atol=1e-13)


def _grads(T, r, xs):
    g = r if isinstance(r, T.Tensor) else r[0]
    (g * T.linspace(-1, 2, g.numel()).reshape(g.shape).to(g.dtype)).sum().backward()
    return (g.detach(),) + tuple(x.grad for x in xs)


def test_group_norm_float64_grad_of_expanded_input():
    def f(T):
        x0 = T.tensor([[[-1.454], [0.081], [-1.818], [-1.121]], [[-0.629], [-0.272], [0.405], [-1.01]],
                       [[1.329], [-0.616], [-0.49], [0.692]]], dtype=T.float64, requires_grad=True)
        w = T.tensor([1.1, 0.5, 1.1, 0.4], dtype=T.float64, requires_grad=True)
        b = T.tensor([0.67, 0.51, 1.47, 1.16], dtype=T.float64, requires_grad=True)
        return _grads(T, T.group_norm(x0.expand(3, 4, 5), 2, w, b), (x0, w, b))
    check(f, **F64)


_X = [[[0.3, -1.2, 2.5, 0.7, -0.4], [1.1, 0.2, -0.9, 1.8, -2.2], [-0.6, 0.05, 1.4, -1.7, 0.9],
       [2.1, -0.3, 0.6, -1.1, 0.0]],
      [[-1.5, 0.8, -0.2, 1.3, 2.0], [0.4, -1.9, 0.75, -0.05, 1.2], [1.6, -0.8, -1.3, 0.35, -0.1],
       [-0.7, 1.9, -2.4, 0.45, 1.05]],
      [[0.9, 1.7, -1.1, -0.5, 0.15], [-2.0, 0.6, 1.25, -0.35, 0.55], [0.2, -1.45, 0.85, 2.3, -0.95],
       [1.35, -0.65, 0.1, -1.8, 0.5]]]
_FULL, _COL = (3, 4, 5), (3, 4, 1)


def _norm64(T, kind, expand):
    # expanded inputs broadcast along a dim the normalization does not reduce over alone, so the gradient sums
    # (and cancels) over the copies
    src = T.tensor(_X, dtype=T.float64)
    if expand:
        src = src[:, :, :1] if kind in ("group_norm", "batch_norm", "batch_norm_eval") else src[:1]
    x = src.clone().requires_grad_(True)
    xe = x.expand(*_FULL)
    w4 = T.tensor([1.1, 0.5, -1.3, 0.4], dtype=T.float64, requires_grad=True)
    b4 = T.tensor([0.67, 0.51, 1.47, -1.16], dtype=T.float64, requires_grad=True)
    w5 = T.tensor([1.1, 0.5, -1.3, 0.4, 0.8], dtype=T.float64, requires_grad=True)
    b5 = T.tensor([0.67, 0.51, 1.47, -1.16, 0.2], dtype=T.float64, requires_grad=True)
    F = T.nn.functional
    if kind == "group_norm":
        return _grads(T, F.group_norm(xe, 2, w4, b4), (x, w4, b4))
    if kind == "layer_norm":
        return _grads(T, F.layer_norm(xe, (5,), w5, b5), (x, w5, b5))
    if kind == "rms_norm":
        return _grads(T, F.rms_norm(xe, (4, 5), None, 1e-5) * w5, (x, w5))
    if kind == "instance_norm":
        rm, rv = T.zeros(4, dtype=T.float64), T.ones(4, dtype=T.float64)
        return _grads(T, F.instance_norm(xe, rm, rv, w4, b4, momentum=0.3), (x, w4, b4)) + (rm, rv)
    if kind == "batch_norm":
        rm, rv = T.zeros(4, dtype=T.float64), T.ones(4, dtype=T.float64)
        return _grads(T, F.batch_norm(xe, rm, rv, w4, b4, True, 0.3), (x, w4, b4)) + (rm, rv)
    rm = T.tensor([0.1, -0.2, 0.3, 0.4], dtype=T.float64)
    rv = T.tensor([0.5, 0.6, 1.7, 0.8], dtype=T.float64)
    return _grads(T, F.batch_norm(xe, rm, rv, w4, b4, False), (x, w4, b4))


@pytest.mark.parametrize("expand", [False, True])
@pytest.mark.parametrize("kind", ["group_norm", "layer_norm", "rms_norm", "instance_norm", "batch_norm",
                                  "batch_norm_eval"])
def test_float64_norm_values_grads_and_running_stats(kind, expand):
    check(lambda T: _norm64(T, kind, expand), **F64)


def test_native_group_norm_float64_statistics_grad():
    def f(T):
        x = T.tensor(_X, dtype=T.float64, requires_grad=True)
        out, mean, rstd = T.native_group_norm(x, None, None, 3, 4, 5, 2, 1e-5)
        (out * T.linspace(-1, 2, 60, dtype=T.float64).reshape(3, 4, 5)).sum().backward(retain_graph=True)
        g1 = x.grad.clone()
        x.grad = None
        (mean.sum() + (rstd * T.tensor([0.5, -1.0], dtype=T.float64)).sum()).backward()
        return out.detach(), mean.detach(), rstd.detach(), g1, x.grad
    check(f, **F64)


# --- statistics of float16/bfloat16 inputs ------------------------------------------------------------------

_H = [[[-1.599609375, 0.7001953125, 2.25], [0.89990234375, -0.5, 1.125], [-0.199951171875, -0.199951171875, 3.5]],
      [[1.1181640625, 2.349609375, -0.75], [2.615234375, -1.5, -0.60009765625], [0.5, 0.0625, -2.875]]]


def _params(T, kind, dtype, n=3):
    if kind is None:
        return None, None, None, None
    pd = getattr(T, dtype if kind == "same" else "float32")
    return (T.tensor([1.5, -0.5, 2.0][:n], dtype=pd), T.tensor([0.25, 0.0, -1.0][:n], dtype=pd),
            T.tensor([0.1, -0.2, 0.3][:n], dtype=pd), T.tensor([1.0, 0.5, 2.0][:n], dtype=pd))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("params", [None, "same", "float32"])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("running", [True, False])
def test_native_batch_norm_statistics_dtype(dtype, params, training, running):
    if not training and not running:
        pytest.skip("torch's CPU kernel crashes on evaluation without running statistics")

    def f(T):
        x = T.tensor(_H, dtype=getattr(T, dtype))
        w, b, rm, rv = _params(T, params, dtype)
        if running and rm is None:
            rm, rv = T.zeros(3), T.ones(3)      # float32 running statistics alone make it mixed
        if not running:
            rm = rv = None
        out, mean, invstd = T.native_batch_norm(x, w, b, rm, rv, training, 0.3, 1e-3)
        # (the output itself: F.batch_norm's, one half ulp apart where torch rounds its statistics first)
        return out.dtype, out.shape, mean, invstd
    check(f)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("running", [None, "same", "float32"])
@pytest.mark.parametrize("momentum", [0.1, 0.3])
def test_batch_norm_update_stats_half(dtype, running, momentum):
    def f(T):
        x = T.tensor(_H, dtype=getattr(T, dtype))
        _, _, rm, rv = _params(T, running, dtype)
        mean, var = T.batch_norm_update_stats(x, rm, rv, momentum)
        return mean, var, rm, rv
    check(f)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_batch_norm_update_stats_half_rounding(dtype):
    # bfloat16 statistics are rounded step by step (sum of squares, count, momentum) as torch's kernel does
    def f(T):
        g = T.Generator().manual_seed(0)
        x = (T.randn(23, 3, 13, generator=g) * 3 + 1).to(getattr(T, dtype))
        rm = T.tensor([0.1, -0.7, 1.3]).to(x.dtype)
        rv = T.tensor([1.1, 0.6, 2.2]).to(x.dtype)
        mean, var = T.batch_norm_update_stats(x, rm, rv, 0.77)
        _, sm, si = T.native_batch_norm(x, None, None, None, None, True, 0.77, 1e-3)
        return mean, var, rm, rv, sm, si
    check(f, rtol=0, atol=0)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("params", [None, "same", "float32"])
def test_native_layer_and_group_norm_statistics_dtype(dtype, params):
    def f(T):
        x = T.tensor(_H, dtype=getattr(T, dtype))
        w, b, _, _ = _params(T, params, dtype)
        ln = T.native_layer_norm(x, [3], w, b, 1e-3)
        gn = T.native_group_norm(x, w, b, 2, 3, 3, 3, 1e-3)
        return ln[0].dtype, ln[1], ln[2], gn[0].dtype, gn[1], gn[2]
    check(f, rtol=1e-2 if params != "float32" else 1e-5)


@pytest.mark.parametrize("fn", ["native_batch_norm", "batch_norm_update_stats", "native_batch_norm_eval"])
def test_batch_norm_statistics_of_empty_input(fn):
    def f(T):
        x = T.zeros(0, 3, 2, dtype=T.float16)
        if fn == "batch_norm_update_stats":
            return T.batch_norm_update_stats(x, T.zeros(3), T.ones(3), 0.1)
        out, mean, invstd = T.native_batch_norm(x, None, None, T.zeros(3), T.ones(3), fn == "native_batch_norm",
                                                0.1, 1e-5)
        return out, mean.dtype, mean.shape, invstd.dtype
    check(f, raises=fn != "native_batch_norm_eval")
