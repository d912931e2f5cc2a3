"""torch.autograd's anomaly mode and the pre-0.4 Variable, compared with torch."""
import warnings

import pytest
import torch

import mstorch
from harness import check, run, Raised

nan = float("nan")


def _same_raise(fn, message=True):
    ref, got = run(fn, torch), run(fn, mstorch)
    assert isinstance(ref, Raised) and isinstance(got, Raised), (ref, got)
    assert type(got.exc) is type(ref.exc), (ref, got)
    if message:
        assert str(got.exc) == str(ref.exc), (ref, got)


@pytest.fixture(autouse=True)
def _anomaly_off():
    yield
    torch.autograd.set_detect_anomaly(False)
    mstorch.autograd.set_detect_anomaly(False)


def test_switches():
    def fn(T):
        seen = [T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()]
        T.autograd.set_detect_anomaly(True, check_nan=False)
        seen += [T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()]
        with T.autograd.set_detect_anomaly(False):
            seen.append(T.is_anomaly_enabled())
        seen.append(T.is_anomaly_enabled())   # (back on: the context restores the mode before it)
        T.set_anomaly_enabled(False)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with T.autograd.detect_anomaly(check_nan=True):
                seen += [T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()]
        seen += [T.is_anomaly_enabled(), [(x.category.__name__, str(x.message)) for x in w]]
        return seen
    check(fn)


class _Nan:
    @staticmethod
    def build(T):
        class NanBack(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * nan
        return NanBack


def test_custom_function_nan_named():
    def fn(T):
        x = T.ones(3, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with T.autograd.detect_anomaly():
                _Nan.build(T).apply(x).sum().backward()
    _same_raise(fn)


def test_nan_reaching_a_leaf_raises():
    def backward(T):
        x = T.ones(3, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with T.autograd.detect_anomaly():
                (x * nan).sum().backward()

    def grad(T):
        x = T.ones(3, requires_grad=True)
        y = x * 3   # (an input that is not a leaf)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with T.autograd.detect_anomaly():
                T.autograd.grad((y * nan).sum(), y)
    # (torch names MulBackward0; MindSpore's engine does not expose its node: the type is the same)
    _same_raise(backward, message=False)
    _same_raise(grad, message=False)


def test_without_check_nan_or_outside_anomaly_mode_nan_flows():
    def fn(T):
        x = T.ones(3, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with T.autograd.detect_anomaly(check_nan=False):
                (x * nan).sum().backward()
        y = T.ones(2, requires_grad=True)
        _Nan.build(T).apply(y).sum().backward()
        return x.grad, y.grad
    check(fn)


def test_finite_gradients_unchanged_under_anomaly_mode():
    def fn(T):
        x = T.tensor([1., 2., 3.], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with T.autograd.detect_anomaly():
                (x.sin() * x).sum().backward()
                g, = T.autograd.grad((x ** 2).sum(), x)
        return x.grad, g
    check(fn)


def test_variable():
    def fn(T):
        V = T.autograd.Variable
        t = T.tensor([1., 2.])
        v = V(t, requires_grad=True)
        w = V(t)
        y = T.ones(2, requires_grad=True) * 2
        d = V(y)
        t.add_(1)   # (Variable shares the data)
        return [v, v.requires_grad, v.is_leaf, w.requires_grad, w is t, d.requires_grad, d.grad_fn is None,
                isinstance(t, V), isinstance(1, V), issubclass(T.Tensor, V), V().shape, type(v) is T.Tensor]
    check(fn)


def test_variable_refusals_and_volatile():
    def data(T):
        return T.autograd.Variable([1., 2.])
    _same_raise(data)
    _same_raise(lambda T: T.autograd.variable(T.ones(2)))

    def volatile(T):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            v = T.autograd.Variable(T.ones(2), volatile=True)
        return v, [(x.category.__name__, str(x.message)) for x in w]
    check(volatile)
