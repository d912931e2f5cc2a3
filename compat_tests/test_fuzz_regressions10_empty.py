"""Regression tests against torch (issue 18, tenth batch): backward through ops whose inputs that need
gradients are all empty, or whose result is empty. MindSpore's backward kernels refuse empty tensors
("Input device address is null", MaxPoolGradWithArgmaxV2's "Resize failed", UnsortedSegmentSum's
"loop_size_"); the op table's wrapper runs such a call unrecorded and links its results to the inputs
with zero gradients (ops/_bind.py's _call_recorded)."""
import numpy as np
import pytest

from harness import check_grad


def _grads(T, out, *leaves, twice=False):
    for _ in range(2 if twice else 1):
        o = out() if callable(out) else out
        g = o if isinstance(o, T.Tensor) else o[0]
        (g * T.linspace(-1, 2, g.numel()).reshape(g.shape).to(g.dtype)).sum().backward()
    return o, [x.grad for x in leaves]


@pytest.mark.parametrize("src", [
    "T.trace(x)",
    "T.index_select(x, 0, T.tensor(1))",
    "T.index_select(x.t(), 1, T.tensor([0, 1]))",
    "T.sum(x * 2, 0)",
    "T.nn.functional.normalize(x, dim=0)",
])
@pytest.mark.parametrize("shape", [(4, 0), (5, 0)])
def test_empty_input_gradients(src, shape):
    check_grad(lambda T, x: eval(src), [np.zeros(shape, np.float32)])


@pytest.mark.parametrize("src", [
    "T.nn.functional.max_pool2d_with_indices(x, 3, 2, 1)[0]",
    "T.nn.functional.max_pool1d(x[:, :, 0], 2, 2, 1, 1, True)",
    "T.nn.functional.adaptive_max_pool2d(x, 2)",
])
def test_empty_batch_pooling_gradients(src):
    check_grad(lambda T, x: eval(src), [np.zeros((0, 3, 2, 4), np.float32)])


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float64"])
def test_empty_result_beside_a_nonempty_input(dtype):
    # the result is empty, the input is not: every gradient is zero, accumulated twice
    def f(T):
        x = T.tensor(np.arange(15.).reshape(5, 3), dtype=getattr(T, dtype), requires_grad=True)
        idx = T.zeros(0, dtype=T.int64)
        return _grads(T, lambda: T.index_select(x, 0, idx) * 2, x, twice=True)
    from harness import check
    check(f)


def test_empty_weight_with_a_nonempty_bias():
    # F.linear with an empty inner dimension: the weight is empty, the bias is not and gets its gradient
    def f(T):
        x = T.zeros((3, 0), requires_grad=True)
        w = T.zeros((2, 0), requires_grad=True)
        b = T.tensor([1., 2.], requires_grad=True)
        return _grads(T, T.nn.functional.linear(x, w, b), x, w, b)
    from harness import check
    check(f)


@pytest.mark.parametrize("src", [
    "T.nn.functional.embedding(T.zeros((0, 4), dtype=T.int64), w, scale_grad_by_freq=True)",
    "T.nn.functional.embedding(T.zeros((0, 4), dtype=T.int64), w)",
    "T.nn.functional.embedding_bag(T.zeros((0,), dtype=T.int64), w, T.zeros((0,), dtype=T.int64))",
])
@pytest.mark.parametrize("rows", [0, 2])
def test_embedding_of_no_indices_has_a_zero_gradient(src, rows):
    def f(T):
        w = T.tensor(np.ones((rows, 3), np.float32), requires_grad=True)
        return _grads(T, eval(src), w)
    from harness import check
    check(f)
