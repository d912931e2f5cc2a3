"""torch.batch_norm / torch.instance_norm / torch.embedding: ATen's argument order, against torch."""
import numpy as np
import pytest

from harness import check, check_grad, rand

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


def test_rnn_cell_functions():
    def case(T):
        x = T.tensor(rand(3, 4), requires_grad=True)
        h = T.tensor(rand(3, 5, seed=1), requires_grad=True)
        c = T.tensor(rand(3, 5, seed=2))
        ws = {n: T.tensor(rand(k * 5, m, seed=i), requires_grad=True)
              for i, (n, k, m) in enumerate([("l_ih", 4, 4), ("l_hh", 4, 5), ("g_ih", 3, 4), ("g_hh", 3, 5),
                                             ("r_ih", 1, 4), ("r_hh", 1, 5)])}
        b = T.tensor(rand(20, seed=7), requires_grad=True)
        hy, cy = T.lstm_cell(x, (h, c), ws["l_ih"], ws["l_hh"], b, b)
        out = [hy, cy, T.lstm_cell(x, (h, c), ws["l_ih"], ws["l_hh"])[0],
               T.gru_cell(x, h, ws["g_ih"], ws["g_hh"]),
               T.rnn_tanh_cell(x, h, ws["r_ih"], ws["r_hh"]), T.rnn_relu_cell(x, h, ws["r_ih"], ws["r_hh"])]
        sum(o.sum() for o in out).backward()
        return out, x.grad, h.grad, b.grad, [w.grad for w in ws.values()]
    check(case, rtol=1e-5, atol=1e-5)


def test_rnn_cell_function_errors():
    check(lambda T: T.gru_cell(T.ones(3, 4), T.ones(3, 5), T.ones(15, 3), T.ones(15, 5)), raises=True)
    check(lambda T: T.rnn_tanh_cell(T.ones(3, 4), T.ones(2, 5), T.ones(5, 4), T.ones(5, 5)), raises=True)
