"""Regression tests against torch for the functional recurrent ops (``torch.rnn_tanh`` / ``rnn_relu`` /
``gru`` / ``lstm``, both overloads) on inputs the differential fuzzer found (issue 18, ninth batch):
packed batch sizes that are not a valid packing (torch broadcasts them through its step loop), batch
sizes given as a view, and invalid inputs that must fail with torch's exception type."""
import numpy as np
import pytest

from harness import AS_TORCH, check

F_IN, H = 3, 4


def _t(T, shape, seed, dtype="float32", grad=False):
    a = np.random.RandomState(seed).uniform(-0.5, 0.5, shape).astype(dtype)
    return T.tensor(a, requires_grad=grad)


def _params(T, gates, f_in=F_IN, h=H, biases=True, dirs=1, layers=1):
    ps = []
    for i in range(dirs * layers):
        fi = f_in if i < dirs else dirs * h
        ps += [_t(T, (gates * h, fi), 10 + i), _t(T, (gates * h, h), 20 + i)]
        if biases:
            ps += [_t(T, (gates * h,), 30 + i), _t(T, (gates * h,), 40 + i)]
    return ps


def _backward(T, r, *xs):
    g = r if isinstance(r, T.Tensor) else r[0]
    (g * T.linspace(-1, 2, g.numel()).reshape(g.shape).to(g.dtype)).sum().backward()
    return (r,) + tuple(x.grad for x in xs)


# --- packed batch sizes torch accepts as they are -----------------------------------------------------

@pytest.mark.parametrize("op,gates", [("rnn_relu", 1), ("rnn_tanh", 1), ("gru", 3)])
def test_packed_increasing_batch_sizes_broadcast_as_torch(op, gates):
    # batch sizes [1, 2, 2]: the first step's one row broadcasts against the 2-row hidden state, so
    # the output has 6 rows for 5 rows of data
    def f(T):
        x = _t(T, (5, F_IN), 1)
        hx = _t(T, (1, 2, H), 2)
        return getattr(T, op)(x, T.tensor([1, 2, 2]), hx, _params(T, gates), True, 1, 0.0, True, False)
    check(f)


def test_gru_packed_batch_sizes_as_a_view_with_grad():
    def f(T):
        x = _t(T, (5, F_IN), 3, grad=True)
        hx = _t(T, (1, 2, H), 4, grad=True)
        r = T.gru(x, T.tensor([-5, 1, 2, 2])[1:], hx, _params(T, 3, biases=False), False, 1, 0.0, True, False)
        return _backward(T, r, x, hx)
    check(f, rtol=1e-4, atol=1e-5)


def test_lstm_packed_batch_sizes_as_a_view():
    def f(T):
        x = _t(T, (1, F_IN), 5, grad=True)
        hx = [_t(T, (1, 1, H), 6), _t(T, (1, 1, H), 7)]
        r = T.lstm(x, T.tensor([1, 1])[1:], hx, _params(T, 4), True, 1, 0.0, True, False)
        return _backward(T, r, x)
    check(f, rtol=1e-4, atol=1e-5)


def test_valid_packed_bidirectional_still_matches():
    def f(T):
        x = _t(T, (6, F_IN), 8, grad=True)
        hx = _t(T, (2, 3, H), 9)
        r = T.gru(x, T.tensor([3, 2, 1]), hx, _params(T, 3, dirs=2), True, 1, 0.0, True, True)
        return _backward(T, r, x)
    check(f, rtol=1e-4, atol=1e-5)


# --- invalid inputs: torch's exception type ----------------------------------------------------------

def _rnn_case(op, x, hx_shape, gates=1, **kw):
    def f(T):
        xs = x(T)
        return getattr(T, op)(xs, _t(T, hx_shape, 2), _params(T, gates, **kw), True, 1, 0.0, True, False, False)
    return f


@pytest.mark.parametrize("op,gates", [("rnn_tanh", 1), ("rnn_relu", 1), ("gru", 3)])
@pytest.mark.parametrize("x,hx_shape", [
    (lambda T: _t(T, (2,), 1), (1, 1, H)),             # a 1-d input
    (lambda T: _t(T, (2, F_IN), 1), (1, 2, H)),        # a 2-d input
    (lambda T: T.zeros((5, 0, 3)).permute(2, 1, 0), (3, 0, 3)),   # more hidden states than layers
    (lambda T: T.zeros((3, 0, 5)), (1, 0, H)),         # wrong feature size, empty batch
    (lambda T: _t(T, (2, 1, F_IN), 1, "float16"), (1, 1, H)),   # float16 input, float32 weights
    (lambda T: _t(T, (2, 1, F_IN), 1).to(T.bfloat16), (1, 1, H)),
])
def test_invalid_unpacked_inputs_as_torch(op, gates, x, hx_shape):
    check(_rnn_case(op, x, hx_shape, gates), raises=AS_TORCH)   # a 2-d input: torch broadcasts


@pytest.mark.parametrize("op,gates", [("rnn_relu", 1), ("gru", 3)])
def test_zero_dim_packed_inputs_raise_index_error(op, gates):
    def f(T):
        return getattr(T, op)(T.tensor(-1.26), T.tensor(2), T.tensor(0.2), _params(T, gates), True, 1, 0.0,
                              True, False)
    check(f, raises=True)


@pytest.mark.parametrize("bs", [[1, 1, 1], [0, 2, 1]])
def test_packed_hidden_count_checked_before_batch_sizes(bs):
    def f(T):
        return T.gru(_t(T, (3, F_IN), 1), T.tensor(bs, dtype=T.int16), T.zeros((5, 1, 0)), _params(T, 3),
                     True, 1, 0.0, True, False)
    check(f, raises=True)


def test_packed_batch_sizes_must_be_int64():
    def f(T):
        return T.rnn_tanh(_t(T, (3, F_IN), 1), T.tensor([2, 1], dtype=T.int32), _t(T, (1, 2, H), 2),
                          _params(T, 1), True, 1, 0.0, True, False)
    check(f, raises=True)


def _lstm(T, x, h_shape=(1, 1, H), c_shape=(1, 1, H), nparams=4, bidir=False, layers=1, bf=False):
    ps = _params(T, 4)[:nparams]
    return T.lstm(x, [_t(T, h_shape, 2), _t(T, c_shape, 3)], ps, nparams == 4, layers, 0.0, True, bidir, bf)


@pytest.mark.parametrize("case", [
    lambda T: _lstm(T, _t(T, (4,), 1).to(T.bfloat16), (1, 2, 2), (1, 2, 4)),
    lambda T: _lstm(T, _t(T, (2, F_IN), 1), (1, 2, H), (1, 2, H)),          # oneDNN: input.size(2)
    lambda T: _lstm(T, _t(T, (2, F_IN), 1), (1, 2, H), (1, 2, H), bf=True),
    lambda T: _lstm(T, _t(T, (2, 1, F_IN), 1), nparams=3),                   # 3 weights in groups of 2
    lambda T: _lstm(T, _t(T, (2, 1, F_IN), 1), bidir=True),                  # no reverse weights
    lambda T: _lstm(T, _t(T, (2, 1, F_IN), 1), layers=2),
    lambda T: _lstm(T, _t(T, (2, 1, F_IN), 1), (1, 1), (1, 1)),              # 2-d hidden states
    lambda T: _lstm(T, T.zeros((1, 0, 1), dtype=T.float16)),
    lambda T: _lstm(T, _t(T, (2, 1, F_IN), 1, "float64")),
    lambda T: _lstm(T, _t(T, (0, 1, F_IN), 1)),
])
def test_invalid_lstm_inputs_raise_as_torch(case):
    check(case, raises=True)


def test_bfloat16_lstm_1d_input_raises_index_error():
    check(lambda T: _lstm(T, _t(T, (3,), 1).to(T.bfloat16)), raises=True)
