"""In-place ops whose backward reads their result (relu_, sigmoid_, exp_, elu_...): torch saves the receiver
itself, so a later in-place change of it fails backward with torch's version error; without one, the
gradient is torch's (issue 17's in-place sweep; mstorch's nodes keep a result of their own, which used to
give a gradient from stale values where torch raises)."""
import pytest

from harness import check

METHODS = ["relu_", "sigmoid_", "tanh_", "exp_", "exp2_", "expm1_", "sqrt_", "rsqrt_", "reciprocal_"]
F_FORMS = {
    "F.relu_": lambda F, y: F.relu_(y),
    "F.relu(inplace)": lambda F, y: F.relu(y, inplace=True),
    "F.elu_": lambda F, y: F.elu_(y),
    "F.elu(inplace)": lambda F, y: F.elu(y, inplace=True),
    "F.leaky_relu_": lambda F, y: F.leaky_relu_(y),
    "F.leaky_relu(inplace)": lambda F, y: F.leaky_relu(y, 0.1, inplace=True),
    "F.celu_": lambda F, y: F.celu_(y),
    "F.selu_": lambda F, y: F.selu_(y),
    # torch saves the input, not the result, for these: no error
    "F.hardtanh_": lambda F, y: F.hardtanh_(y),
    "F.threshold_": lambda F, y: F.threshold_(y, 0.5, 0.0),
    "F.relu6(inplace)": lambda F, y: F.relu6(y, inplace=True),
    "F.hardsigmoid(inplace)": lambda F, y: F.hardsigmoid(y, inplace=True),
    "F.hardswish(inplace)": lambda F, y: F.hardswish(y, inplace=True),
    "F.silu(inplace)": lambda F, y: F.silu(y, inplace=True),
}


def _apply(T, form, y):
    if form in F_FORMS:
        return F_FORMS[form](T.nn.functional, y)
    return getattr(y, form)()


FORMS = METHODS + list(F_FORMS) + ["torch.relu_", "torch.sigmoid_", "torch.exp_"]


def _run(T, form, y):
    if form.startswith("torch."):
        return getattr(T, form[len("torch."):])(y)
    return _apply(T, form, y)


@pytest.mark.parametrize("form", FORMS)
def test_changed_after_the_op(form):
    def fn(T):
        x = T.tensor([-1.0, 0.5, 1.0, 2.0], requires_grad=True)
        y = x * 2
        _run(T, form, y)
        y.sub_(0.25)
        (y * T.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
        return x.grad
    ref, got = check(fn, raises=True) if _torch_raises(form) else check(fn)
    if _torch_raises(form):
        assert str(got.exc) == str(ref.exc)


def _torch_raises(form):
    import torch
    x = torch.tensor([-1.0, 0.5, 1.0, 2.0], requires_grad=True)
    y = x * 2
    _run(torch, form, y)
    y.sub_(0.25)
    try:
        y.sum().backward()
    except RuntimeError:
        return True
    return False


@pytest.mark.parametrize("form", FORMS)
def test_unchanged_after_the_op(form):
    # read, not written: the gradient is torch's
    def fn(T):
        x = T.tensor([-1.0, 0.5, 1.0, 2.0], requires_grad=True)
        y = x * 2
        _run(T, form, y)
        z = y * 3
        z.sum().backward()
        return y, x.grad
    check(fn, rtol=1e-5, atol=1e-6)


def test_a_later_op_of_its_own_keeps_working():
    # the check follows the receiver: a new tensor computed from it may change freely
    def fn(T):
        x = T.tensor([[-1.0, 0.5], [1.0, 2.0]], requires_grad=True)
        y = (x * 2).relu_()
        z = y * 1
        z.add_(1)
        z.sum().backward()
        return x.grad
    check(fn)
