"""torch's top-level ATen forms beside the nn.functional ones (issue 16) where a draw or a state is compared;
their values, gradients and errors are op_db samples (op_db/nn_aten.py)."""
import pytest

from harness import check, rand


@pytest.mark.parametrize("p,train", [(0.3, True), (0.5, None), (0.9, True)])
def test_native_dropout_draws_torch_stream(p, train):
    """The mask is torch's dropout draw under the same seed; the output is input * mask / (1 - p)."""
    def fn(T):
        T.manual_seed(7)
        x = T.tensor(rand(4, 5, 3), requires_grad=True)
        out, mask = T.native_dropout(x, p, train)
        out.backward(T.tensor(rand(4, 5, 3, seed=1)))
        return out, mask, x.grad, T.rand(2)   # (the generator is left where torch leaves it)
    check(fn)


@pytest.mark.parametrize("name,gates", [("rnn_tanh", 1), ("gru", 3), ("lstm", 4)])
def test_functional_rnn_inter_layer_dropout(name, gates):
    """torch.<rnn>(..., dropout, train=True): dropout between layers draws torch's stream."""
    def fn(T):
        T.manual_seed(3)
        params = [T.tensor(rand(*s, seed=i, low=-0.5, high=0.5), requires_grad=True) for i, s in enumerate(
            [(gates * 4, 3), (gates * 4, 4), (gates * 4,), (gates * 4,)] * 1 +
            [(gates * 4, 4), (gates * 4, 4), (gates * 4,), (gates * 4,)])]
        x = T.tensor(rand(5, 2, 3, seed=9), requires_grad=True)
        h = T.tensor(rand(2, 2, 4, seed=8))
        hx = [h, T.tensor(rand(2, 2, 4, seed=7))] if name == "lstm" else h
        outs = getattr(T, name)(x, hx, params, True, 2, 0.5, True, False, False)
        sum(o.sum() for o in outs).backward()
        return outs, x.grad, [p.grad for p in params]
    check(fn, rtol=1e-4, atol=1e-5)
