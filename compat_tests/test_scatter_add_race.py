"""Scatter-adds with many repeated indices, compared with torch.

MindSpore's TensorScatterElements CPU kernel (reduction "add") splits the updates among threads that add
with a plain ``+=``: repeated indices lose additions at random (measured on MindSpore 2.10: 27 of 200 runs
of 100000 updates into 2 places came out short). mstorch routes every scatter-add through TensorScatterAdd
on flat positions (``ops/_msops.tensor_scatter_elements``). The cases repeat so a race would show; the last
test checks the routing itself, which is deterministic.
"""
import sys

import numpy as np
import pytest

from harness import check, check_grad

N = 20000
REPEATS = 5
IDX1 = (np.arange(N) % 2).astype(np.int64)                          # every update into one of two places
IDX2 = np.stack([IDX1[: N // 8], 1 - IDX1[: N // 8]])[:, :, None].repeat(3, 2)   # (2, N/8, 3) into dim 1


def _repeat(fn):
    return lambda T: [fn(T) for _ in range(REPEATS)]


CASES = {
    "scatter_add 1-d": lambda T: T.zeros(3).scatter_add(0, T.tensor(IDX1), T.ones(N)),
    "scatter_add dim 1": lambda T: T.zeros(2, 4, 3).scatter_add(1, T.tensor(IDX2), T.ones(2, N // 8, 3)),
    "scatter_add float64": lambda T: T.zeros(2, dtype=T.float64).scatter_add(
        0, T.tensor(IDX1), T.full((N,), 0.5, dtype=T.float64)),
    "scatter_add int64": lambda T: T.zeros(2, dtype=T.int64).scatter_add(0, T.tensor(IDX1), T.ones(N, dtype=T.int64)),
    "scatter_add bool": lambda T: T.tensor([False, False, True]).scatter_add(
        0, T.tensor(IDX1), T.tensor([True, False] * (N // 2))),
    "scatter_add bfloat16": lambda T: T.zeros(2, dtype=T.bfloat16).scatter_add(
        0, T.tensor(IDX1[:64]), T.ones(64, dtype=T.bfloat16)),
    "scatter_add complex": lambda T: T.zeros(2, dtype=T.complex64).scatter_add(
        0, T.tensor(IDX1), T.full((N,), 1 + 2j, dtype=T.complex64)),
    "scatter reduce add, expanded index": lambda T: T.zeros(2, 4).scatter(
        0, T.tensor(IDX1[:4])[None].expand(N // 4, 4), 2.0, reduce="add"),
    "scatter_add_ in place": lambda T: T.ones(2).scatter_add_(0, T.tensor(IDX1), T.ones(N)),
    "scatter_add 0-d": lambda T: T.tensor(1.0).scatter_add(0, T.tensor(0), T.tensor(2.0)),
}


@pytest.mark.parametrize("name", CASES)
def test_scatter_add_repeated_indices(name):
    check(_repeat(CASES[name]))


def test_gather_backward_repeated_indices():
    # gather's gradient is a scatter-add of the incoming gradient into zeros
    check_grad(lambda T, x: [x.gather(0, T.tensor(IDX1)).mul(1.5).sum() for _ in range(REPEATS)][0],
               [np.zeros(2, np.float32)])


def test_take_along_dim_double_backward():
    def fn(T):
        x = T.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        idx = T.tensor([[0, 0, 1], [1, 1, 1]])
        y = (T.take_along_dim(x, idx, 1) ** 2).sum()
        g, = T.autograd.grad(y, x, create_graph=True)
        gg, = T.autograd.grad((g * g).sum(), x)
        return g, gg
    check(fn)


def test_scatter_add_reaches_mindspore_as_a_race_free_kernel(monkeypatch):
    """No mstorch op hands an add to MindSpore's racy TensorScatterElements kernel."""
    import mstorch
    from mindspore import ops

    real = ops.tensor_scatter_elements

    def guarded(input_x, indices, updates, axis=0, reduction="none"):
        assert reduction != "add", "a scatter-add reached TensorScatterElements (its CPU kernel races)"
        return real(input_x, indices, updates, axis, reduction)

    monkeypatch.setattr(ops, "tensor_scatter_elements", guarded)
    for name, module in list(sys.modules.items()):     # modules holding MindSpore's function under its name
        if name.startswith("mstorch") and getattr(module, "tensor_scatter_elements", None) is real:
            monkeypatch.setattr(module, "tensor_scatter_elements", guarded)
    x = mstorch.zeros(3, 4, requires_grad=True)
    idx = mstorch.tensor([[0, 2, 1, 0], [0, 2, 1, 0]])
    y = x.scatter_add(0, idx, mstorch.ones(2, 4)) + x.scatter(0, idx, 2.0, reduce="add")
    (y.sum() + x.gather(0, idx).sum() + x.max(0).values.sum()).backward()
    assert x.grad is not None
