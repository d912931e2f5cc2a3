"""nn.AdaptiveLogSoftmaxWithLoss against torch: seeded construction gives torch's weights, forward (batched and
0-d target) gives the same output and loss and gradients, log_prob / predict over shortlist and tail classes,
and torch's errors."""
import numpy as np
import pytest

from harness import check
from test_autograd import check_message

X = np.random.RandomState(0).standard_normal((6, 8)).astype(np.float32)
TARGET = np.array([0, 3, 5, 9, 11, 2])   # shortlist (< 4), first cluster [4, 8), second [8, 12)


def _layer(T, **kw):
    T.manual_seed(0)
    return T.nn.AdaptiveLogSoftmaxWithLoss(8, 12, [4, 8], **kw)


@pytest.mark.parametrize("head_bias", [False, True])
def test_forward_backward(head_bias):
    def fn(T):
        m = _layer(T, head_bias=head_bias)
        x = T.tensor(X, requires_grad=True)
        out = m(x, T.tensor(TARGET))
        out.loss.backward()
        return (out.output, out.loss, x.grad, [p.grad for p in m.parameters()], [tuple(p.shape) for p in m.parameters()],
                type(out).__name__, out._fields, repr(m))
    check(fn, rtol=1e-5, atol=1e-6)


def test_log_prob_predict_unbatched():
    def fn(T):
        m = _layer(T, div_value=2.0)
        x = T.tensor(X)
        single = m(x[1], T.tensor(TARGET[1]))
        with T.no_grad():
            m.head.weight[:, 4:] += 3.0    # rows that predict a tail cluster as well as the shortlist
        return m.log_prob(x), m.log_prob(x).exp().sum(1), m.predict(x), single.output, single.loss
    check(fn, rtol=1e-5, atol=1e-6)


ERRORS = {
    "empty_cutoffs": lambda T: T.nn.AdaptiveLogSoftmaxWithLoss(8, 12, []),
    "bad_cutoffs": lambda T: T.nn.AdaptiveLogSoftmaxWithLoss(8, 12, [8, 4]),
    "cutoff_too_large": lambda T: T.nn.AdaptiveLogSoftmaxWithLoss(8, 12, [4, 12]),
    "target_range": lambda T: _layer(T)(T.tensor(X), T.tensor([0, 1, 2, 3, 4, 12])),
    "batch_mismatch": lambda T: _layer(T)(T.tensor(X), T.tensor([0, 1])),
    "target_2d": lambda T: _layer(T)(T.tensor(X), T.zeros(6, 1, dtype=T.int64)),
    "input_3d": lambda T: _layer(T)(T.tensor(X).unsqueeze(0), T.tensor([0])),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case):
    check_message(ERRORS[case])
