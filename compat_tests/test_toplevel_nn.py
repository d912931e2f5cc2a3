"""torch.batch_norm / torch.instance_norm / torch.embedding: ATen's argument order, against torch."""
import numpy as np
import pytest

from harness import check, check_grad

X = np.random.RandomState(0).standard_normal((4, 3, 5)).astype(np.float32)
W = np.random.RandomState(1).standard_normal(3).astype(np.float32)
B = np.random.RandomState(2).standard_normal(3).astype(np.float32)
E = np.random.RandomState(3).standard_normal((6, 2)).astype(np.float32)


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm(training):
    def fn(T, x, w, b):
        rm, rv = T.zeros(3), T.ones(3)
        out = T.batch_norm(x, w, b, rm, rv, training, 0.1, 1e-5, False)
        return out, rm, rv
    check_grad(fn, [X, W, B])


def test_instance_norm():
    check_grad(lambda T, x, w, b: T.instance_norm(x, w, b, None, None, True, 0.1, 1e-5, False), [X, W, B])


@pytest.mark.parametrize("padding_idx", [-1, 0, 4])
def test_embedding(padding_idx):
    check_grad(lambda T, w: T.embedding(w, T.tensor([[0, 4], [4, 5]]), padding_idx), [E])


def test_missing_argument_message():
    def fn(T):
        try:
            T.batch_norm(T.ones(2, 3), None, None, None, None, True, 0.1, 1e-5)
        except TypeError as exc:
            return str(exc)
    check(fn)
