"""torch.from_dlpack, torch.utils.dlpack.to_dlpack/from_dlpack and Tensor.__dlpack__/__dlpack_device__: NumPy
arrays and tensors of the other library in and out, memory shared as torch shares it (transformers' ONNX runner
hands tensors over this way)."""
import gc

import numpy as np
import pytest
import torch

import mstorch
from harness import check, check_raises

DTYPES = ["float32", "float64", "int64", "int32", "uint8", "complex64", "bool"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_numpy_round_trip(dtype):
    """NumPy -> tensor shares (a write through the tensor shows in the array); tensor -> NumPy shares too
    (NumPy marks what it imports read-only, so the tensor's writes show in the array)."""
    def fn(T):
        a = np.arange(6).reshape(2, 3).astype(dtype)
        t = T.from_dlpack(a)
        t[0, 0] = 1
        b = T.arange(4).to(getattr(T, dtype))
        n = np.from_dlpack(b)
        b[1] = 0
        return t, a.tolist(), n.tolist(), n.flags.writeable, n.dtype.str, b.__dlpack_device__()
    check(fn)


def test_strides_views_and_utils():
    def fn(T):
        x = T.arange(12.0).reshape(3, 4)
        cap = T.utils.dlpack.to_dlpack(x.t())
        y = T.utils.dlpack.from_dlpack(cap)
        y[0, 1] = -1.0
        s = T.from_dlpack(x[:, 1])
        s[2] = -2.0
        return x, y.stride(), y.shape, s.stride(), int(T.utils.dlpack.DLDeviceType.kDLCPU), \
            T.from_dlpack(x, copy=True).data_ptr() == x.data_ptr()
    check(fn)


def _first_line(exc):
    return str(exc).split("\n")[0]


def test_errors():
    ref, got = check_raises(lambda T: T.ones(2, requires_grad=True).__dlpack__())
    assert _first_line(ref.exc) == _first_line(got.exc)

    def twice(T):
        cap = T.utils.dlpack.to_dlpack(T.ones(2))
        T.from_dlpack(cap)
        return T.from_dlpack(cap)
    ref, got = check_raises(twice)
    assert _first_line(ref.exc) == _first_line(got.exc)


@pytest.mark.parametrize("dtype", ["float32", "int64", "bfloat16", "bool", "float16", "complex64"])
def test_with_real_torch(dtype):
    """mstorch <-> torch: each imports the other's tensor over the same memory (bool and complex copy into mstorch: MindSpore's
    DLPack has neither), with shape, strides and dtype kept; the memory outlives the producer."""
    x = mstorch.arange(6).reshape(2, 3).to(getattr(mstorch, dtype))
    t = torch.from_dlpack(x.t())
    assert t.dtype == getattr(torch, dtype) and t.shape == (3, 2) and t.stride() == (1, 3)
    assert t.float().tolist() == x.t().float().tolist()
    t[1, 0] = 0
    assert x.real.float()[0, 1].item() == 0 if dtype == "complex64" else x.float()[0, 1].item() == 0
    del x
    gc.collect()
    assert t.float()[1, 0].item() == 0 and t.float()[2, 1].item() == (5 if dtype != "bool" else 1)

    src = torch.arange(6).reshape(2, 3).to(getattr(torch, dtype))
    m = mstorch.from_dlpack(src.t())
    assert m.dtype == getattr(mstorch, dtype) and tuple(m.shape) == (3, 2)
    assert m.float().tolist() == src.t().float().tolist()
    if dtype not in ("bool", "complex64"):
        assert m.stride() == (1, 3)
        src[0, 1] = 0
        assert m.float()[1, 0].item() == 0
