"""float16/bfloat16 dropout on CPU (the host product of mstorch/ops/nn_dropout.py) against torch, bit for bit:
outputs, gradients, double backward and in-place results, with NaN/inf/-0/subnormal inputs, through the
native kernels and the NumPy fallback, below and above ATen's parallel grain (where torch's bfloat16 NaN
bits depend on its thread split)."""
import mindspore as ms
import numpy as np
import pytest
import torch

import mstorch
from mstorch import _runtime
from mstorch._random import native
from mstorch._tensor import wrap
from mstorch.ops import nn_dropout as ND

DTYPES = ("float16", "bfloat16")
# float16: NaNs with payloads (one signaling), inf, -0, subnormals, the largest finite value;
# bfloat16: the same, subnormals of float32 included
SPECIAL = {"float16": [0x7E00, 0xFE00, 0x7D01, 0xFD55, 0x7C00, 0xFC00, 0x8000, 0x0001, 0x83FF, 0x7BFF],
           "bfloat16": [0x7FC0, 0xFFC0, 0x7F81, 0xFFC1, 0x7F80, 0xFF80, 0x8000, 0x0001, 0x807F, 0x7F7F]}


@pytest.fixture(autouse=True)
def same_threads():
    """torch's thread count as mstorch's (conftest pins torch to 1): it decides ATen's parallel split."""
    saved = torch.get_num_threads()
    torch.set_num_threads(mstorch.get_num_threads())
    yield
    torch.set_num_threads(saved)


def bits(t):
    if isinstance(t, torch.Tensor):
        return t.detach().contiguous().view(torch.int16).numpy().view(np.uint16)
    return np.ascontiguousarray(t._ms.asnumpy()).view(np.uint16)


def to_ms(t):
    """The mstorch tensor with exactly the bits of torch tensor ``t`` (float16/bfloat16)."""
    m = ms.from_numpy(bits(t).copy())
    return wrap(m.view(ms.bfloat16 if t.dtype == torch.bfloat16 else ms.float16))


def sample(dt, n, seed):
    g = np.random.default_rng(seed)
    u = (g.standard_normal(n) * 30).astype(np.float32)
    t = torch.from_numpy(u).to(getattr(torch, dt))
    u16 = t.view(torch.int16)
    special = torch.tensor(SPECIAL[dt], dtype=torch.int32).to(torch.int16)
    where = torch.from_numpy(g.choice(n, size=min(n, 6 * len(SPECIAL[dt])), replace=False))
    u16[where] = special[torch.arange(where.numel()) % special.numel()]
    return t


def both(fn, seed=0):
    torch.manual_seed(seed)
    a = fn(torch)
    mstorch.manual_seed(seed)
    b = fn(mstorch)
    return a, b


def assert_bits(a, b):
    assert tuple(a.shape) == tuple(b.shape) and str(a.dtype) == str(b.dtype)
    diff = np.nonzero(bits(a).ravel() != bits(b).ravel())[0]
    assert diff.size == 0, (diff[:5], bits(a).ravel()[diff[:5]], bits(b).ravel()[diff[:5]])


@pytest.mark.parametrize("native_on", [True, False])
@pytest.mark.parametrize("n", [1, 37, 1000, 32767, 65537, 100007])
@pytest.mark.parametrize("dt", DTYPES)
def test_forward_bits(dt, n, native_on):
    x = sample(dt, n, n)
    with native.forced(native_on):
        a, b = both(lambda T: T.nn.functional.dropout(x if T is torch else to_ms(x), 0.3), seed=n)
    assert_bits(a, b)
    assert int((bits(a) & 0x7FFF).astype(bool).sum()) > 0


@pytest.mark.parametrize("dt", DTYPES)
def test_thread_split(dt, monkeypatch):
    """bfloat16 NaN bits follow ATen's split over 3 threads (0xffff vectorised, 0x7fc0 in each remainder)."""
    monkeypatch.setitem(_runtime._knobs, "num_threads", 3)
    torch.set_num_threads(3)
    x = torch.full((100007,), float("nan"), dtype=getattr(torch, dt))
    x[::3] = -float("nan")
    for flag in (True, False):
        with native.forced(flag):
            a, b = both(lambda T: T.nn.functional.dropout(x if T is torch else to_ms(x), 0.5), seed=2)
        assert_bits(a, b)


@pytest.mark.parametrize("p", [0.1, 0.5, 0.99999])
@pytest.mark.parametrize("dt", DTYPES)
def test_forward_2d_and_scales(dt, p):
    """2-D input; p close to 1 makes float16's scale inf (0 * inf is NaN where dropped, as in torch)."""
    x = sample(dt, 12 * 345, 7).reshape(12, 345)
    a, b = both(lambda T: T.dropout(x if T is torch else to_ms(x), p, True), seed=3)
    assert_bits(a, b)


@pytest.mark.parametrize("native_on", [True, False])
@pytest.mark.parametrize("n", [33, 40000])
@pytest.mark.parametrize("dt", DTYPES)
def test_gradient_bits(dt, n, native_on):
    x, v = sample(dt, n, 1), sample(dt, n, 2)

    def run(T):
        xx = (x if T is torch else to_ms(x)).detach().requires_grad_()
        y = T.nn.functional.dropout(xx, 0.4)
        (g,) = T.autograd.grad(y, xx, v if T is torch else to_ms(v))
        return torch.stack([y.detach(), g]) if T is torch else mstorch.stack([y.detach(), g])

    with native.forced(native_on):
        a, b = both(run, seed=4)
    assert_bits(a, b)


@pytest.mark.parametrize("dt", DTYPES)
def test_double_backward(dt):
    x, v = sample(dt, 300, 3), sample(dt, 300, 4)
    w = torch.linspace(-2, 2, 300).to(getattr(torch, dt))

    def run(T):
        xx = (x if T is torch else to_ms(x)).detach().requires_grad_()
        vv = (v if T is torch else to_ms(v)).detach().requires_grad_()
        y = T.nn.functional.dropout(xx, 0.25)
        (g,) = T.autograd.grad(y, xx, vv, create_graph=True)
        assert g.requires_grad
        (gg,) = T.autograd.grad(g, vv, w if T is torch else to_ms(w))
        return gg

    a, b = both(run, seed=5)
    assert_bits(a, b)


@pytest.mark.parametrize("native_on", [True, False])
@pytest.mark.parametrize("dt", DTYPES)
def test_inplace(dt, native_on):
    x = sample(dt, 5000, 8)

    def run(T):
        xx = (x if T is torch else to_ms(x)).clone()
        view = xx[7:]                      # a contiguous view: writes reach the base
        out = T.nn.functional.dropout(view, 0.2, inplace=True)
        assert out is view
        return xx

    with native.forced(native_on):
        a, b = both(run, seed=6)
    assert_bits(a, b)


@pytest.mark.parametrize("dt", DTYPES)
def test_inplace_with_grad(dt):
    x = torch.linspace(-60000, 60000, 2000).to(getattr(torch, dt))   # MindSpore computes x * 2 here:
    x[::97], x[1::89], x[2::83] = float("nan"), float("inf"), -0.0     # no NaN payloads

    def run(T):
        xx = (x if T is torch else to_ms(x)).detach().requires_grad_()
        h = xx * 2
        T.nn.functional.dropout(h, 0.3, inplace=True)
        (g,) = T.autograd.grad(h, xx, T.ones_like(h))
        return torch.stack([h.detach(), g]) if T is torch else mstorch.stack([h.detach(), g])

    a, b = both(run, seed=7)
    assert_bits(a, b)


@pytest.mark.parametrize("dt", DTYPES)
def test_leaf_inplace_error(dt):
    x = torch.linspace(-5, 5, 600).to(getattr(torch, dt)).reshape(20, 30)
    with pytest.raises(RuntimeError) as te:
        torch.nn.functional.dropout(x.clone().requires_grad_(), 0.5, inplace=True)
    with pytest.raises(type(te.value)) as me:
        mstorch.nn.functional.dropout(to_ms(x).requires_grad_(), 0.5, inplace=True)
    assert str(me.value) == str(te.value)


VIEWS = {"t": lambda z: z.t(), "step": lambda z: z[:, ::2], "permute": lambda z: z.view(4, 5, 30).permute(2, 0, 1),
         "size1": lambda z: z.view(20, 30, 1).transpose(0, 2), "rows": lambda z: z[3:9]}


@pytest.mark.parametrize("view", sorted(VIEWS))
@pytest.mark.parametrize("dt", DTYPES + ("float32",))
def test_views(dt, view):
    """torch draws the noise of a dense permuted input in memory order (empty_like keeps the strides);
    non-contiguous inputs take MindSpore's mul (finite values and canonical NaN only)."""
    x = torch.linspace(-5, 5, 600).to(getattr(torch, dt)).reshape(20, 30)
    x[4, ::7], x[5, ::3] = float("nan"), -float("inf")
    ms_x = to_ms(x) if dt != "float32" else mstorch.from_numpy(x.numpy().copy())
    a, b = both(lambda T: T.nn.functional.dropout(VIEWS[view](x if T is torch else ms_x), 0.5), seed=8)
    np.testing.assert_array_equal(a.float().numpy(), b.float().numpy())
    assert (a.float().numpy() == 0).sum() > 0


@pytest.mark.skipif(native.LIB is None, reason="native kernels not built")
@pytest.mark.parametrize("dt", DTYPES)
def test_native_matches_numpy(dt):
    """Every 16-bit pattern, random keep, for several scales and splits: C and NumPy give the same bits."""
    x16 = np.arange(1 << 16, dtype=np.uint16)
    keep = np.random.default_rng(0).integers(0, 2, x16.size).astype(np.uint8)
    bf16 = dt == "bfloat16"
    scales = [1.0, 1.25, 2.0, 3.0e4, np.inf] if not bf16 else [1.0, 1.109375, 3.0e38, np.inf]
    for s in scales:
        s = np.float32(s)
        for chunk, block in ((x16.size, 32), (21845, 32), (x16.size, 0)):
            want = ND._scale_numpy(x16, keep, s, bf16, chunk, block)
            got = np.empty_like(x16)
            if bf16:
                native.LIB.ms_scale_bf16(x16.ctypes.data, keep.ctypes.data, s, got.ctypes.data, x16.size,
                                         chunk, block)
            else:
                native.LIB.ms_scale_f16(x16.ctypes.data, keep.ctypes.data, s, got.ctypes.data, x16.size)
            diff = np.nonzero(want != got)[0]
            assert diff.size == 0, (float(s), chunk, block, diff[:5], want[diff[:5]], got[diff[:5]])


@pytest.mark.parametrize("native_on", [True, False])
@pytest.mark.parametrize("dt", DTYPES)
def test_all_bit_patterns(dt, native_on):
    x = torch.arange(1 << 16, dtype=torch.int32).to(torch.int16).view(getattr(torch, dt))
    with native.forced(native_on):
        a, b = both(lambda T: T.nn.functional.dropout(x if T is torch else to_ms(x), 0.1), seed=9)
    assert_bits(a, b)
