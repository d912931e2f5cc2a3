"""Activation and loss behaviour that the op and layer lists cannot express: warnings (legacy loss
arguments, implicit softmax dim, kl_div 'mean'), gradients through in-place F.* forms, RReLU's training
noise from the seeded generator, Softmax2d's input check."""
import warnings

import numpy as np
import pytest

from harness import check, check_grad, rand

X = rand(3, 4) * 3
T_IDX = np.array([0, 3, 1], np.int64)


def _warned(call):
    def fn(T):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = call(T)
        return out, [(w.category.__name__, str(w.message)) for w in caught]
    return fn


@pytest.mark.parametrize("call", [
    lambda T: T.nn.functional.cross_entropy(T.tensor(X), T.tensor(T_IDX), size_average=False),
    lambda T: T.nn.functional.nll_loss(T.tensor(X), T.tensor(T_IDX), reduce=False),
    lambda T: T.nn.functional.mse_loss(T.tensor(X), T.tensor(X[0]), size_average=True, reduce=False),
    lambda T: T.nn.functional.l1_loss(T.tensor(X), T.tensor(X) * 2, reduction="elementwise_mean"),
    lambda T: T.nn.functional.kl_div(T.tensor(X), T.tensor(np.abs(X))),
    lambda T: T.nn.functional.kl_div(T.tensor(X), T.tensor(np.abs(X)), size_average=False),
    lambda T: T.nn.functional.softmax(T.tensor(X)),
    lambda T: T.nn.functional.log_softmax(T.tensor(rand(2, 3, 4))),
    lambda T: T.nn.functional.softmin(T.tensor(rand(4))),
    lambda T: T.nn.Softmax()(T.tensor(X)),
    lambda T: T.nn.CrossEntropyLoss(reduce=False).reduction,
    lambda T: T.nn.MSELoss(size_average=False)(T.tensor(X), T.tensor(X[:1])),
    lambda T: repr(T.nn.Hardtanh(min_value=-2.0, max_value=3.0)),
    lambda T: T.nn.NLLLoss2d().reduction,
    lambda T: T.nn.functional.gumbel_softmax(T.tensor(X), eps=1e-5).shape,
])
def test_warnings_match_torch(call):
    check(_warned(call), atol=1e-5)


@pytest.mark.parametrize("name,args", [
    ("relu", ()), ("relu6", ()), ("leaky_relu", (0.2,)), ("elu", (0.7,)), ("selu", ()), ("celu", (1.5,)),
    ("silu", ()), ("mish", ()), ("hardswish", ()), ("hardsigmoid", ()), ("hardtanh", (-0.5, 2.0)),
    ("threshold", (0.5, -2.0)), ("rrelu", (0.1, 0.3, False)),
])
def test_inplace_forms_keep_the_gradient(name, args):
    """F.<name>(y, inplace=True) on a tensor with history: y changes and the gradient reaches x as in torch."""
    def fn(T, x):
        y = x * 1.5
        out = getattr(T.nn.functional, name)(y, *args, inplace=True)
        return out, y, out is y
    check_grad(fn, [X])


@pytest.mark.parametrize("name,args", [("leaky_relu_", (0.2,)), ("elu_", ()), ("hardtanh_", (-1.0, 0.5)),
                                       ("relu_", ()), ("selu_", ()), ("celu_", (2.0,)), ("threshold_", (0.0, 3.0))])
def test_underscore_forms_keep_the_gradient(name, args):
    def fn(T, x):
        y = x + 0.25
        getattr(T.nn.functional, name)(y, *args)
        return y
    check_grad(fn, [X])


def test_rrelu_layer_training_noise_follows_the_seed():
    def fn(T):
        m = T.nn.RReLU(0.1, 0.4)
        T.manual_seed(11)
        x = T.tensor(rand(4, 5) * 2, requires_grad=True)
        y = m(x)
        (y * T.tensor(rand(4, 5, seed=2))).sum().backward()
        m.eval()
        return y, x.grad, m(x), T.rand(2)
    check(fn)


@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 4, 5, 6), (3,)])
def test_softmax2d_rejects_other_ranks(shape):
    check(lambda T: T.nn.Softmax2d()(T.zeros(*shape)), raises=True)


def test_cross_entropy_training_step_matches():
    """A classifier step: Linear -> CrossEntropyLoss(label_smoothing) -> backward, loaded with torch's weights."""
    def fn(T):
        T.manual_seed(5)
        model = T.nn.Sequential(T.nn.Linear(6, 8), T.nn.GELU(), T.nn.Linear(8, 4))
        loss_fn = T.nn.CrossEntropyLoss(weight=T.tensor([1.0, 2.0, 0.5, 1.0]), label_smoothing=0.05, ignore_index=3)
        x = T.tensor(rand(16, 6))
        y = T.tensor(np.arange(16) % 4)
        loss = loss_fn(model(x), y)
        loss.backward()
        return loss, [p.grad for p in model.parameters()]
    check(fn, rtol=2e-5, atol=1e-6)


def test_cross_entropy_loss_scaled_in_place_then_backward():
    """transformers' Trainer scales the loss in place (``loss *= scale``) before ``backward``: torch's
    cross-entropy node keeps no output, so the in-place write is allowed."""
    def fn(T):
        x = T.tensor(np.random.RandomState(0).randn(4, 5).astype(np.float32), requires_grad=True)
        loss = T.nn.functional.cross_entropy(x, T.tensor([0, 1, 2, 3]))
        loss *= 2.0
        loss.backward()
        return loss.detach(), x.grad
    check(fn)
