"""Regression tests against torch for exception classes the differential fuzzer found (issue 18, ninth batch):
ATen ops that raised another exception type than torch, or raised where torch returns (and the reverse)."""
import pytest

from harness import check


@pytest.mark.parametrize("src", [
    "T.affine_grid_generator(T.tensor(-0.7), [1, 1, 2, 2], False)",
    "T.affine_grid_generator(T.ones(2, 3), [2, 1, 2, 4], True)",
    "T.affine_grid_generator(T.ones(2, 2, 3), [3, 1, 2, 4], True)",
    "T.affine_grid_generator(T.ones(2, 2, 3), [2, 1, 2], True)",
    "T.affine_grid_generator(T.ones(1, 2, 3, dtype=T.bfloat16), [1, 1, 3, 1], True)",
    "T.affine_grid_generator(T.ones(1, 2, 3, dtype=T.bool), [1, 1, 1, 2], False)",
    "T.ctc_loss(T.tensor(-4.54), T.tensor(2), (6, 5), (2, 2))",
    "T.nn.functional.ctc_loss(T.zeros((1, 0, 3)), T.zeros((0, 0), dtype=T.int64), T.zeros((0,), dtype=T.int64), "
    "T.zeros((0,), dtype=T.int64), reduction='sum')",
    "T.nn.functional.ctc_loss(T.zeros((6, 5)), T.tensor([1, 2, 3]), T.tensor(0), T.tensor(0), reduction='none')",
    "T.nn.functional.ctc_loss(T.zeros((6, 2, 4)), T.tensor([[[1]]]), T.tensor([6, 6]), T.tensor([1, 1]))",
    "T.nn.functional.ctc_loss(T.zeros((6,)), T.tensor([1]), T.tensor(6), T.tensor(1))",
    "T.nn.functional.ctc_loss(T.zeros((6, 2, 4)), T.tensor([[1, 2, 3]]), T.tensor([6, 6]), T.tensor([1, 1]))",
    "T.embedding_bag(T.zeros((1, 0), dtype=T.int64), T.tensor([4.6]), T.tensor([2.1, 1.0]), False, 2)",
    "T.embedding_bag(T.zeros((2,)), T.tensor([0]), T.tensor([0]), False, 0)",
    "T.embedding_bag(T.zeros((2, 3)), T.tensor([0]), T.tensor(0), False, 0)",
    "T.embedding_bag(T.zeros((0, 2), dtype=T.float16), T.zeros((0,), dtype=T.int64), "
    "T.tensor([0, 0, 0, 0, -9223372036854775808]), False, 2)",
    "T.nn.functional.embedding_bag(T.zeros((4, 0), dtype=T.int64), T.zeros(3, 5))",
    "T.nn.functional.embedding_bag(T.tensor([0, 2, 4, 1, 1]), T.zeros(5, 4), T.tensor([0, -9, 1]))",
    "T.nn.functional.embedding_bag(T.tensor([0, 2, 9, 1, 1]), T.zeros(5, 4), T.tensor([0, -1, 1]), mode='max')",
    "T._reshape_from_tensor(T.tensor(0.11), T.tensor(-1))",
    "T._reshape_from_tensor(T.tensor(1.5), T.tensor([1, 1], dtype=T.int32))",
    "T.histogramdd(T.zeros((0,), dtype=T.int16), 3)",
    "T.histogramdd(T.zeros(()), 3)",
    "T.histogramdd(T.zeros((3, 2), dtype=T.int16), 3)",
    "T.histogramdd(T.zeros((4, 0), dtype=T.int32), [])",
    "T.batch_norm_update_stats(T.tensor(1), None, None, 0.3)",
    "T.batch_norm_update_stats(T.zeros(0, 2, dtype=T.int32), None, None, 0.3)",
    "T.batch_norm_update_stats(T.tensor(1.), None, None, 0.3)",
    "T.batch_norm_update_stats(T.tensor([1., 2]), None, None, 0.3)",
    "T.native_batch_norm(T.tensor([-1.44]).expand(2), None, None, None, None, True, 0.1, 1e-05)",
    "T.native_batch_norm(T.tensor(1.5703125, dtype=T.bfloat16), None, None, None, None, True, 0.1, 1e-05)",
    "T.native_batch_norm(T.zeros(0, 3).int(), None, None, None, None, True, 0.1, 1e-05)",
    "T.native_group_norm(T.zeros((3, 3, 0), dtype=T.int8), None, None, 2, 4, 3, 2, 1e-05)",
    "T.native_group_norm(T.zeros((3, 4, 1), dtype=T.int8), None, None, 3, 4, 1, 3, 1e-05)",
])
def test_raises_as_torch(src):
    check(lambda T: eval(src), raises=True)


@pytest.mark.parametrize("src", [
    "T.affine_grid_generator(T.tensor([[[4, 2, 0], [9, 2, 7]]], dtype=T.uint8), [1, 1, 2, 2], False)",
    "T.affine_grid_generator(T.tensor([[[4, 2, 0], [9, 2, 7]]]), [1, 1, 3, 4], True)",
    "T.affine_grid_generator(T.tensor([[[0.4, 2, 0], [9, 2, 7]]], dtype=T.float16), [1, 1, 3, 4], False)",
    "T.affine_grid_generator(T.tensor([[[0.4, 2, 0], [9, 2, 7]]] * 2), [2, 1, 0, 4], True)",
    "T.affine_grid_generator(T.tensor([[[0.4, 2, 0], [9, 2, 7]]] * 2).to(T.complex64), [2, 1, 2, 3], True)",
    "T.affine_grid_generator(T.tensor([[[0.4, 2, 0, 1], [9, 2, 7, 1], [0, 1, 2, 3]]]), [1, 1, 2, 3, 4], False)",
    "T.histogramdd(T.zeros((4, 0)), 3)",
    "T.histogramdd(T.zeros((4, 0)), 3, density=True)",
    "T.histogram(T.zeros((0,), dtype=T.float16), 4)",
    "T.zeros((2, 0), dtype=T.float16).histogram(2)",
    "T.histogram(T.tensor([0.3, 0.7, 0.1], dtype=T.bfloat16), 3, range=(0., 1.))",
    "T.histogram(T.zeros((2,), dtype=T.bfloat16), T.tensor([0., 1]).bfloat16())",
    "T.histogramdd(T.tensor([[0.3, 0.2], [0.7, 0.9]], dtype=T.float16), 3, range=[0., 1., 0., 1.])",
    "T.histogramdd(T.zeros((0, 1), dtype=T.float16), 3)",
])
def test_returns_as_torch(src):
    check(lambda T: eval(src))
