"""Autograd compared with torch, part 2: grad modes, in-place rules, hooks, detach/.data and a small
MLP training step (leaf state, backward and autograd.grad are in test_autograd.py)."""
import numpy as np
import pytest
import torch

import mstorch
from harness import check, check_raises, run, Raised, rand

A = rand(3, seed=1)
B = rand(3, seed=2)
M = rand(2, 3, seed=3)


def check_message(fn):
    """Both raise the same exception type with the same message."""
    ref, got = run(fn, torch), run(fn, mstorch)
    assert isinstance(ref, Raised), f"torch did not raise: {ref!r}"
    assert isinstance(got, Raised), f"mstorch did not raise: {got!r}"
    assert type(got.exc).__name__ == type(ref.exc).__name__, (ref, got)
    assert str(got.exc) == str(ref.exc), f"\ntorch:   {ref.exc}\nmstorch: {got.exc}"


def check_message_start(fn, n):
    """Both raise the same type; the first ``n`` characters of the messages agree."""
    ref, got = run(fn, torch), run(fn, mstorch)
    assert isinstance(ref, Raised) and isinstance(got, Raised), (ref, got)
    assert type(got.exc).__name__ == type(ref.exc).__name__, (ref, got)
    assert str(got.exc)[:n] == str(ref.exc)[:n], f"\ntorch:   {ref.exc}\nmstorch: {got.exc}"


def leaf(T, a=A):
    return T.tensor(a, requires_grad=True)


# --- grad modes -------------------------------------------------------------------------------

def test_no_grad_context():
    def fn(T):
        x = leaf(T)
        with T.no_grad():
            y = x * 2
            inside = T.is_grad_enabled()
        return y.requires_grad, y.grad_fn is None, y.is_leaf, inside, T.is_grad_enabled(), (x * 2).requires_grad
    check(fn)


def test_no_grad_decorator_and_generator():
    def fn(T):
        x = leaf(T)

        @T.no_grad()
        def f(a):
            return a * 2, T.is_grad_enabled()

        @T.no_grad()
        def gen(a):
            for i in range(2):
                yield a * i, T.is_grad_enabled()

        r, en = f(x)
        items = list(gen(x))
        return r.requires_grad, en, [(t.requires_grad, e) for t, e in items], T.is_grad_enabled()
    check(fn)


def test_enable_grad_inside_no_grad():
    def fn(T):
        x = leaf(T)
        with T.no_grad():
            with T.enable_grad():
                y = x * 2
            z = x * 2

        @T.enable_grad()
        def f(a):
            return a * 3
        with T.no_grad():
            w = f(x)
        return y.requires_grad, z.requires_grad, w.requires_grad
    check(fn)


def test_set_grad_enabled_forms():
    def fn(T):
        x = leaf(T)
        T.set_grad_enabled(False)
        a = x * 2
        off = T.is_grad_enabled()
        T.set_grad_enabled(True)
        with T.set_grad_enabled(False):
            b = x * 2
        with T.set_grad_enabled(True):
            c = x * 2

        @T.set_grad_enabled(False)
        def f(t):
            return t * 2
        d = f(x)
        return a.requires_grad, off, b.requires_grad, c.requires_grad, d.requires_grad, T.is_grad_enabled()
    check(fn)


def test_inference_mode():
    def fn(T):
        x = leaf(T)
        with T.inference_mode():
            a = x * 2
            en = T.is_grad_enabled()
            inf = T.is_inference_mode_enabled()
        with T.inference_mode(False):
            b = x * 2

        @T.inference_mode()
        def f(t):
            return t * 2

        @T.inference_mode
        def g(t):
            return t * 2
        return (a.requires_grad, en, inf, b.requires_grad, f(x).requires_grad, g(x).requires_grad,
                T.is_inference_mode_enabled())
    check(fn)


def test_inference_mode_false_inside_no_grad():
    def fn(T):
        x = leaf(T)
        with T.no_grad():
            with T.inference_mode(False):
                y = x * 2
                en = T.is_grad_enabled()
        return y.requires_grad, en
    check(fn)


def test_backward_and_grad_under_no_grad():
    def fn(T):
        x = leaf(T)
        y = (x * x).sum()
        with T.no_grad():
            y.backward(retain_graph=True)
            (g,) = T.autograd.grad(y, x)
        return x.grad, g, T.is_grad_enabled()
    check(fn)


def test_grad_mode_restored_after_exception():
    def fn(T):
        try:
            with T.no_grad():
                raise ValueError
        except ValueError:
            pass
        return T.is_grad_enabled()
    check(fn)


def test_no_grad_on_class_warns_and_wraps_constructor():
    def fn(T):
        with pytest.warns(FutureWarning):
            @T.no_grad()
            class C:
                def __init__(self, x):
                    self.y = x * 2
        return C(leaf(T)).y.requires_grad
    check(fn)


def test_no_grad_bare_decorator():
    def fn(T):
        @T.no_grad
        def f(a):
            return a * 2
        return f(leaf(T)).requires_grad
    check(fn)


# --- in-place rules ---------------------------------------------------------------------------

def test_inplace_on_leaf_raises():
    check_message(lambda T: leaf(T).add_(1))


def test_inplace_on_leaf_operator_raises():
    def fn(T):
        x = leaf(T)
        x += 1
    check_message(fn)


def test_sgd_updates_under_no_grad():
    def fn(T):
        p = leaf(T)
        (p * p * p).sum().backward()
        with T.no_grad():
            p.sub_(0.1 * p.grad)
        s1 = p.tolist()
        p.data.add_(p.grad, alpha=-0.1)
        s2 = p.tolist()
        with T.no_grad():
            p -= 0.1 * p.grad
        return s1, s2, p, p.is_leaf, p.requires_grad, p.grad, p.grad_fn is None
    check(fn)


def test_step_then_next_backward():
    def fn(T):
        p = leaf(T)
        for _ in range(2):
            p.grad = None
            (p * p).sum().backward()
            with T.no_grad():
                p.sub_(0.5 * p.grad)
        return p, p.grad
    check(fn)


def test_inplace_on_non_leaf_gradient():
    def fn(T):
        a = leaf(T)
        x = a * 2
        x.mul_(3)
        x.add_(a)
        x.sum().backward()
        return x, a.grad, x.is_leaf
    check(fn)


def test_inplace_on_saved_output_raises():
    def fn(T):
        a = leaf(T)
        x = a.sigmoid()
        x.mul_(2)
        x.sum().backward()
    check_message_start(fn, 91)


def test_inplace_on_saved_exp_output_raises():
    def fn(T):
        a = leaf(T)
        x = a.exp()
        y = x * 1
        x.add_(1)
        (x + y).sum().backward()
    check_raises(fn)


def test_zero_grad_inplace():
    def fn(T):
        p = leaf(T)
        (p * 2).sum().backward()
        p.grad.mul_(0)
        (p * 3).sum().backward()
        return p.grad
    check(fn)


# --- hooks ------------------------------------------------------------------------------------

def test_hook_modifies_grad():
    def fn(T):
        x = leaf(T)
        y = x * 2
        y.register_hook(lambda g: g * 10)
        x.register_hook(lambda g: g + 1)
        (y * y).sum().backward()
        return x.grad
    check(fn)


def test_retained_grad_sees_hooks_registered_later():
    def fn(T):
        x = leaf(T)
        y = x * 2
        y.retain_grad()
        y.register_hook(lambda g: g * 10)
        (y * y).sum().backward()
        return y.grad, x.grad
    check(fn)


def test_hook_returning_none_observes():
    def fn(T):
        x = leaf(T)
        seen = []
        x.register_hook(lambda g: seen.append(g * 1))
        (x * x).sum().backward()
        return seen, x.grad
    check(fn)


def test_hook_remove():
    def fn(T):
        x = leaf(T)
        h = x.register_hook(lambda g: g * 100)
        h.remove()
        (x * 2).sum().backward()
        return x.grad
    check(fn)


def test_hook_on_tensor_without_grad_raises():
    check_message(lambda T: T.tensor(A).register_hook(lambda g: g))


# --- detach / data ----------------------------------------------------------------------------

def test_detach_shares_memory():
    def fn(T):
        x = leaf(T)
        d = x.detach()
        d.add_(1)
        return x, d.requires_grad, d.is_leaf, d.grad_fn is None
    check(fn)


def test_detach_of_non_leaf():
    def fn(T):
        x = leaf(T)
        y = x * 2
        d = y.detach()
        d.mul_(0)
        return y, d.requires_grad
    check(fn)


def test_detach_inplace():
    def fn(T):
        x = leaf(T)
        y = x * 2
        r = y.detach_()
        return r is y, y.requires_grad, y.is_leaf, y.grad_fn is None
    check(fn)


def test_data_shares_memory():
    def fn(T):
        x = leaf(T)
        x.data.mul_(2)
        return x, x.data.requires_grad, x.requires_grad, x.is_leaf
    check(fn)


def test_data_setter():
    def fn(T):
        x = leaf(T)
        x.data = T.tensor(B)
        (x * x).sum().backward()
        return x, x.requires_grad, x.grad
    check(fn)


def test_numpy_requires_grad_raises():
    check_message(lambda T: leaf(T).numpy())


# --- a training step --------------------------------------------------------------------------

def _mlp_loss(T, x, onehot, W1, b1, W2, b2):
    h = (T.matmul(x, W1) + b1).clamp(min=0)
    z = T.matmul(h, W2) + b2
    logp = z - z.exp().sum(1, keepdim=True).log()
    return -(onehot * logp).sum() / x.shape[0]


def test_mlp_grads_match_and_accumulate():
    rng = np.random.RandomState(0)
    x = rng.standard_normal((8, 20)).astype("float32")
    labels = rng.randint(0, 5, size=8)
    onehot = np.eye(5, dtype="float32")[labels]
    weights = [rng.standard_normal((20, 16)).astype("float32") * 0.2, np.zeros(16, "float32") + 0.01,
               rng.standard_normal((16, 5)).astype("float32") * 0.2, np.zeros(5, "float32")]

    def fn(T):
        params = [T.tensor(w, requires_grad=True) for w in weights]
        loss = _mlp_loss(T, T.tensor(x), T.tensor(onehot), *params)
        loss.backward()
        first = [p.grad * 1 for p in params]
        _mlp_loss(T, T.tensor(x), T.tensor(onehot), *params).backward()
        second = [p.grad for p in params]
        exact = all(bool((s == 2 * f).all()) for f, s in zip(first, second))
        with T.no_grad():
            for p in params:
                p.sub_(0.1 * p.grad)
                p.grad.mul_(0)
        loss2 = _mlp_loss(T, T.tensor(x), T.tensor(onehot), *params)
        loss2.backward()
        return loss, first, exact, loss2, [p.grad for p in params]
    check(fn, rtol=1e-5, atol=1e-5)
