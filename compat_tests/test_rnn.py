"""RNN / LSTM / GRU beyond the layer list (module_db/rnn.py): forward-time errors and their messages,
inter-layer dropout drawn from torch's stream, gradients of the initial states, packed sequences with
input gradients, and the torch attributes code relies on (flatten_parameters, _flat_weights)."""
import io
import pickle
import warnings

import numpy as np
import pytest
import torch

import mstorch
from op_db.nn_attention import NOT_PORTABLE
from harness import assert_same, check, rand, run, Raised

TOL = dict(rtol=1e-5, atol=1e-5)


def _same_message(fn):
    ref, got = run(fn, torch), run(fn, mstorch)
    assert isinstance(ref, Raised), f"torch accepted it: {ref!r}"
    assert_same(ref, got)
    assert str(got.exc) == str(ref.exc), f"torch {ref.exc!r} vs mstorch {got.exc!r}"


def _t(T, x, grad=False):
    return T.tensor(x, requires_grad=grad)


FORWARD_ERRORS = {
    "lstm-4d": lambda T: T.nn.LSTM(3, 4)(_t(T, rand(2, 2, 2, 3))),
    "gru-4d": lambda T: T.nn.GRU(3, 4)(_t(T, rand(2, 2, 2, 3))),
    "rnn-4d": lambda T: T.nn.RNN(3, 4)(_t(T, rand(2, 2, 2, 3))),
    "input-size": lambda T: T.nn.LSTM(3, 4)(_t(T, rand(5, 2, 5))),
    "dtype": lambda T: T.nn.RNN(3, 4)(_t(T, rand(5, 2, 3, dtype="float64"))),
    "hidden": lambda T: T.nn.GRU(3, 4)(_t(T, rand(5, 2, 3)), _t(T, rand(2, 2, 4))),
    "hidden0": lambda T: T.nn.LSTM(3, 4)(_t(T, rand(5, 2, 3)), (_t(T, rand(1, 3, 4)), _t(T, rand(1, 2, 4)))),
    "hidden1": lambda T: T.nn.LSTM(3, 4)(_t(T, rand(5, 2, 3)), (_t(T, rand(1, 2, 4)), _t(T, rand(1, 2, 5)))),
    "proj-hidden": lambda T: T.nn.LSTM(3, 4, proj_size=2)(_t(T, rand(5, 2, 3)),
                                                          (_t(T, rand(1, 2, 4)), _t(T, rand(1, 2, 4)))),
    "unbatched-hx": lambda T: T.nn.GRU(3, 4)(_t(T, rand(5, 3)), _t(T, rand(1, 2, 4))),
    "batched-hx": lambda T: T.nn.RNN(3, 4)(_t(T, rand(5, 2, 3)), _t(T, rand(2, 4))),
    "lstm-unbatched-hx": lambda T: T.nn.LSTM(3, 4)(_t(T, rand(5, 3)), (_t(T, rand(1, 1, 4)), _t(T, rand(1, 4)))),
    "lstm-batched-hx": lambda T: T.nn.LSTM(3, 4)(_t(T, rand(5, 2, 3)), (_t(T, rand(1, 4)), _t(T, rand(1, 2, 4)))),
    "empty-seq": lambda T: T.nn.LSTM(3, 4)(_t(T, rand(0, 2, 3))),
    "empty-seq-gru": lambda T: T.nn.GRU(3, 4)(_t(T, rand(0, 2, 3))),
    "cell-input": lambda T: T.nn.RNNCell(3, 4)(_t(T, rand(2, 5))),
    "cell-batch": lambda T: T.nn.RNNCell(3, 4)(_t(T, rand(2, 3)), _t(T, rand(3, 4))),
    "cell-hidden": lambda T: T.nn.GRUCell(3, 4)(_t(T, rand(2, 3)), _t(T, rand(2, 5))),
    "cell-unbatched": lambda T: T.nn.GRUCell(3, 4)(_t(T, rand(3)), _t(T, rand(2, 4))),
    "lstmcell-c": lambda T: T.nn.LSTMCell(3, 4)(_t(T, rand(2, 3)), (_t(T, rand(2, 4)), _t(T, rand(2, 5)))),
    "lstmcell-3d": lambda T: T.nn.LSTMCell(3, 4)(_t(T, rand(2, 3)), (_t(T, rand(2, 4)), _t(T, rand(1, 2, 4)))),
    "cell-3d": lambda T: T.nn.RNNCell(3, 4)(_t(T, rand(1, 2, 3))),
    "cell-nonlinearity": lambda T: T.nn.RNNCell(3, 4, nonlinearity="foo")(_t(T, rand(2, 3))),
    "cell-dtype": lambda T: T.nn.RNNCell(3, 4)(_t(T, rand(2, 3, dtype="float64"))),
}


@pytest.mark.parametrize("name", list(FORWARD_ERRORS))
def test_forward_errors(name):
    _same_message(FORWARD_ERRORS[name])


def test_dropout_warning_text():
    def warned(T):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            T.nn.GRU(3, 4, dropout=0.5)
        return [str(x.message) for x in w if issubclass(x.category, UserWarning)]
    assert warned(torch) == warned(mstorch)


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
@pytest.mark.skipif(bool(NOT_PORTABLE), reason=NOT_PORTABLE)
def test_inter_layer_dropout_matches_torch_stream(cls):
    """Training-mode dropout between layers draws the same masks as torch with the same seed."""
    def fn(T):
        T.manual_seed(3)
        m = getattr(T.nn, cls)(3, 4, num_layers=3, dropout=0.4, bidirectional=True, batch_first=True)
        x = _t(T, rand(2, 5, 3), grad=True)
        out, h = m(x)
        h = h[0] if isinstance(h, tuple) else h
        (out.sum() + h.sum()).backward()
        eval_out = m.eval()(x)[0]
        return out, h, x.grad, eval_out
    check(fn, **TOL)


@pytest.mark.skipif(bool(NOT_PORTABLE), reason=NOT_PORTABLE)
def test_packed_dropout_and_input_grad():
    def fn(T):
        T.manual_seed(1)
        m = T.nn.LSTM(3, 4, num_layers=2, dropout=0.5, bidirectional=True)
        x = _t(T, rand(4, 3, 3), grad=True)
        packed = T.nn.utils.rnn.pack_padded_sequence(x, [2, 4, 3], enforce_sorted=False)
        h0 = _t(T, rand(4, 3, 4, seed=1), grad=True)
        c0 = _t(T, rand(4, 3, 4, seed=2), grad=True)
        out, (h, c) = m(packed, (h0, c0))
        padded, lengths = T.nn.utils.rnn.pad_packed_sequence(out)
        (padded.sum() * 2 + h.sum() + (c * c).sum()).backward()
        return padded, lengths, h, c, x.grad, h0.grad, c0.grad
    check(fn, **TOL)


@pytest.mark.parametrize("cls,kw", [("LSTM", {}), ("LSTM", {"proj_size": 2}), ("GRU", {}),
                                    ("RNN", {"nonlinearity": "relu"})])
def test_initial_state_gradients(cls, kw):
    def fn(T):
        T.manual_seed(0)
        m = getattr(T.nn, cls)(3, 4, num_layers=2, bidirectional=True, **kw)
        x = _t(T, rand(5, 2, 3), grad=True)
        hs = kw.get("proj_size") or 4
        h0 = _t(T, rand(4, 2, hs, seed=1), grad=True)
        state = (h0, _t(T, rand(4, 2, 4, seed=2), grad=True)) if cls == "LSTM" else h0
        out, hn = m(x, state)
        flat = list(hn) if isinstance(hn, tuple) else [hn]
        loss = (out * out).sum() + sum((t * (i + 2)).sum() for i, t in enumerate(flat))
        loss.backward()
        leaves = [x] + (list(state) if isinstance(state, tuple) else [state])
        return out, flat, [t.grad for t in leaves]
    check(fn, **TOL)


def test_cells_over_time_match_layers():
    """An LSTMCell stepped by hand gives what torch's does (gradients through the loop)."""
    def fn(T):
        T.manual_seed(2)
        cell = T.nn.LSTMCell(3, 4)
        x = _t(T, rand(6, 2, 3), grad=True)
        h = c = None
        outs = []
        for t in range(6):
            h, c = cell(x[t]) if h is None else cell(x[t], (h, c))
            outs.append(h)
        y = T.stack(outs)
        (y.sum() + c.sum()).backward()
        return y, x.grad, [p.grad for p in cell.parameters()]
    check(fn, **TOL)


def test_flatten_parameters_and_flat_weights():
    def fn(T):
        T.manual_seed(0)
        m = T.nn.LSTM(3, 4, num_layers=2, bidirectional=True, proj_size=2)
        assert m.flatten_parameters() is None
        names = list(m._flat_weights_names)
        shapes = [tuple(w.shape) for w in m._flat_weights]
        groups = [[tuple(w.shape) for w in ws] for ws in m.all_weights]
        return names, shapes, groups, m._all_weights
    check(fn)


def test_reassigned_parameter_is_used():
    def fn(T):
        T.manual_seed(0)
        m = T.nn.GRU(3, 4)
        m.weight_hh_l0 = T.nn.Parameter(T.ones(12, 4) * 0.1)
        return m(_t(T, rand(5, 2, 3)))[0]
    check(fn, **TOL)


def test_other_dtypes():
    def fn(T):
        T.manual_seed(0)
        m = T.nn.GRU(3, 4).double()
        y64 = m(T.tensor(rand(5, 2, 3), dtype=T.float64))[0]
        T.manual_seed(0)
        b = T.nn.RNN(3, 4).to(T.bfloat16)
        ybf = b(T.tensor(rand(5, 2, 3)).to(T.bfloat16))[0]
        T.manual_seed(0)
        lstm = T.nn.LSTM(3, 4).half()
        x16 = T.tensor(rand(5, 2, 3)).half().requires_grad_()
        y16 = lstm(x16)[0]
        y16.sum().backward()
        return y64, ybf, y16, x16.grad
    check(fn, rtol=1e-2, atol=1e-2)


def test_pickle_round_trip():
    m = mstorch.nn.LSTM(3, 4, proj_size=2)
    m2 = pickle.loads(pickle.dumps(m))
    x = mstorch.tensor(rand(5, 2, 3))
    np.testing.assert_array_equal(m(x)[0].detach().numpy(), m2(x)[0].detach().numpy())
    assert repr(m2) == repr(m)


@pytest.mark.parametrize("cls", ["LSTM", "GRU", "RNNCell"])
def test_whole_model_checkpoints_cross_load(cls):
    """torch.save(model) in one library, torch.load in the other (torch's RNNBase pickles carry
    _flat_weights / _all_weights)."""
    x = rand(5, 2, 3)[0] if cls == "RNNCell" else rand(5, 2, 3)
    for src, dst in ((mstorch, torch), (torch, mstorch)):
        src.manual_seed(0)
        m = getattr(src.nn, cls)(3, 4, bias=False) if cls == "RNNCell" else getattr(src.nn, cls)(3, 4, 2)
        buf = io.BytesIO()
        src.save(m, buf)
        back = dst.load(io.BytesIO(buf.getvalue()), weights_only=False)
        assert type(back).__name__ == cls and repr(back) == repr(m)
        a, b = m(src.tensor(x)), back(dst.tensor(x))
        a, b = (a[0], b[0]) if isinstance(a, tuple) else (a, b)
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("cls", ["RNN", "GRU", "LSTM", "RNNCell", "GRUCell", "LSTMCell"])
def test_saturated_activations(cls):
    """Pre-activations across 2 < |x| < 9, where MindSpore's float32 tanh kernel is 1e-4 off."""
    def fn(T):
        T.manual_seed(4)
        m = getattr(T.nn, cls)(3, 5)
        with T.no_grad():
            for p in m.parameters():
                p.mul_(6.0)
        x = T.tensor(rand(4, 2, 3) * 2, requires_grad=True)
        if cls.endswith("Cell"):
            out = m(x[0])
            out = out[0] if isinstance(out, tuple) else out
        else:
            out = m(x)[0]
        (out * T.tensor(rand(*out.shape, seed=9))).sum().backward()
        return out, x.grad, [p.grad for p in m.parameters()]
    check(fn, **TOL)
