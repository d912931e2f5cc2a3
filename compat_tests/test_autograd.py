"""Autograd compared with torch: leaf state, backward and autograd.grad (grad modes, in-place rules,
hooks, detach/.data and an MLP step are in test_autograd_modes.py)."""
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


# --- leaf state -------------------------------------------------------------------------------

def test_requires_grad_flags():
    def fn(T):
        x = T.tensor(A)
        before = x.requires_grad
        same = x.requires_grad_() is x
        y = x * 2
        z = T.tensor(A) * 2
        return before, same, x.requires_grad, y.requires_grad, z.requires_grad, x.grad
    check(fn)


def test_requires_grad_setter_and_false():
    def fn(T):
        x = T.tensor(A)
        x.requires_grad = True
        x.requires_grad_(False)
        return x.requires_grad, (x * 2).requires_grad
    check(fn)


def test_requires_grad_int_raises():
    check_message(lambda T: T.tensor([1, 2]).requires_grad_())


def test_requires_grad_false_on_non_leaf_raises():
    check_message_start(lambda T: (leaf(T) * 2).requires_grad_(False), 60)


def test_requires_grad_true_on_non_leaf_is_allowed():
    check(lambda T: (leaf(T) * 2).requires_grad_(True).requires_grad)


def test_is_leaf_and_grad_fn():
    def fn(T):
        x = leaf(T)
        c = T.tensor(B)
        y = x * c
        n = c * 2
        return (x.is_leaf, c.is_leaf, y.is_leaf, n.is_leaf, x.grad_fn is None, y.grad_fn is None,
                n.grad_fn is None, (y + 1).grad_fn is None)
    check(fn)


def test_integer_and_bool_results_do_not_require_grad():
    def fn(T):
        x = leaf(T)
        m, i = x > 0, x.argmax()
        return (m.requires_grad, m.grad_fn is None, m.is_leaf, i.requires_grad, repr(m), m.numpy().tolist(),
                T.where(m, x, x * 2).requires_grad)
    check(fn)


def test_grad_fn_name_and_next_functions():
    # MindSpore names its nodes after its own kernels (e.g. SumExtBackward0 vs SumBackward0):
    # only the shape of the API is compared.
    def fn(T):
        y = (leaf(T) * 2).sum()
        name = y.grad_fn.name()
        return name.endswith("Backward0"), isinstance(y.grad_fn.next_functions, tuple)
    check(fn)


def test_grad_fn_of_an_op_with_its_own_backward_after_backward():
    # linalg.pinv's node is one of mstorch's own: its name and the repr survive backward (tools/fuzz.py)
    def fn(T):
        x = T.tensor([[1.5, 0.2], [0.3, 2.0]], requires_grad=True)
        r = T.linalg.pinv(x)
        before = r.grad_fn.name()
        r.sum().backward()
        return before.endswith("Backward0"), r.grad_fn.name() == before, "grad_fn=<" in repr(r)
    check(fn)


def test_grad_is_none_on_non_leaf():
    def fn(T):
        x = leaf(T)
        y = x * 2
        y.sum().backward()
        return y.grad, x.grad
    with pytest.warns(UserWarning):
        fn(mstorch)
    check(fn)


def test_retain_grad():
    def fn(T):
        x = leaf(T)
        y = x * 2
        y.retain_grad()
        x.retain_grad()  # a no-op on leaves
        (y * y).sum().backward()
        return y.grad, x.grad, y.retains_grad, x.retains_grad, (x * 3).retains_grad
    check(fn)


def test_retain_grad_without_requires_grad_raises():
    check_message(lambda T: T.tensor(A).retain_grad())


def test_grad_setter():
    def fn(T):
        x = leaf(T)
        x.grad = T.ones(3)
        (x * 2).sum().backward()
        g = x.grad * 1
        x.grad = None
        return g, x.grad
    check(fn)


def test_grad_setter_bad_shape():
    check(lambda T: setattr(leaf(T), "grad", T.ones(4)), raises=True)


# --- backward ---------------------------------------------------------------------------------

def test_backward_scalar():
    def fn(T):
        x = leaf(T)
        (x * x * 3).sum().backward()
        return x.grad
    check(fn)


def test_backward_with_gradient():
    def fn(T):
        x = leaf(T)
        y = x * T.tensor(B)
        y.backward(T.tensor([1.0, -2.0, 0.5]))
        return x.grad
    check(fn)


def test_backward_accumulates_exactly():
    def fn(T):
        x = leaf(T)
        y = (x * x).sum()
        y.backward(retain_graph=True)
        first = x.grad * 1
        y.backward()
        return first, x.grad
    _, (first, second) = check(fn, rtol=0, atol=0)
    np.testing.assert_array_equal(second.numpy(), 2 * first.numpy())


def test_same_gradient_to_two_leaves_does_not_alias():
    def fn(T):
        x, y = leaf(T), leaf(T, B)
        w = T.tensor([1.0, 2.0, 3.0])
        (x + y).backward(w)
        x.grad.mul_(10)
        first = (x.grad.tolist(), y.grad.tolist(), w.tolist())
        (x - y).sum().backward()
        return first, x.grad, y.grad
    check(fn)


def test_scalar_leaves_added():
    def fn(T):
        a, b = T.tensor(2.0, requires_grad=True), T.tensor(3.0, requires_grad=True)
        (a + b).backward()
        a.grad.add_(1)
        return a.grad, b.grad
    check(fn)


def test_backward_twice_raises():
    def fn(T):
        x = leaf(T)
        y = (x.exp() * x).sum()
        y.backward()
        y.backward()
    check_message(fn)


def test_backward_non_scalar_raises():
    check_message(lambda T: (leaf(T) * 2).backward())


def test_backward_no_grad_tensor_raises():
    check_message(lambda T: T.tensor(A).sum().backward())


def test_backward_gradient_shape_mismatch():
    check_raises(lambda T: (leaf(T) * 2).backward(T.ones(2)))


def test_backward_inputs_restricts():
    def fn(T):
        x, w = leaf(T), leaf(T, B)
        (x * w).sum().backward(inputs=[w])
        return x.grad, w.grad
    check(fn)


def test_backward_inputs_single_tensor():
    def fn(T):
        x, w = leaf(T), leaf(T, B)
        (x * w).sum().backward(inputs=x)
        return x.grad, w.grad
    check(fn)


def test_backward_create_graph():
    def fn(T):
        x = leaf(T)
        (x ** 3).sum().backward(create_graph=True)
        g = x.grad
        req = g.requires_grad
        x.grad = None
        g.sum().backward()
        return req, x.grad
    check(fn)


def test_autograd_backward_function():
    def fn(T):
        x = leaf(T)
        a, b = x * 2, (x * x).sum()
        T.autograd.backward([a, b], [T.ones(3), None])
        return x.grad
    check(fn)


def test_backward_inputs_non_leaf():
    def fn(T):
        x = leaf(T)
        h = x * 2
        (h * h).sum().backward(inputs=[h])
        return h.grad, x.grad
    check(fn)


# --- autograd.grad ----------------------------------------------------------------------------

def test_grad_basic():
    def fn(T):
        x, w = leaf(T), leaf(T, B)
        y = (x * w).sum()
        gx, gw = T.autograd.grad(y, [x, w])
        return gx, gw, x.grad, w.grad
    check(fn)


def test_grad_single_input_returns_tuple():
    def fn(T):
        x = leaf(T)
        r = T.autograd.grad((x * x).sum(), x)
        return type(r) is tuple, r
    check(fn)


def test_grad_outputs():
    def fn(T):
        x = leaf(T)
        y = x.sin() * 2
        return T.autograd.grad(y, x, grad_outputs=T.tensor([1.0, 0.0, -1.0]))
    check(fn)


def test_grad_retain_graph():
    def fn(T):
        x = leaf(T)
        y = (x.exp() * x).sum()
        g1 = T.autograd.grad(y, x, retain_graph=True)
        g2 = T.autograd.grad(y, x)
        return g1, g2
    check(fn)


def test_grad_twice_without_retain_raises():
    def fn(T):
        x = leaf(T)
        y = (x.exp() * x).sum()
        T.autograd.grad(y, x)
        T.autograd.grad(y, x)
    check_raises(fn)


def test_double_backward_cube():
    def fn(T):
        x = leaf(T)
        (g,) = T.autograd.grad((x ** 3).sum(), x, create_graph=True)
        (gg,) = T.autograd.grad(g.sum(), x)
        return g, gg, g.requires_grad
    check(fn)


def _wgan_gp(layer):
    # small weights and inputs keep tanh away from saturation, where MindSpore's tanh is a few ulp
    # less accurate than torch's
    w1, b1, w2 = rand(4, 6, seed=4) * 0.3, rand(6, seed=5) * 0.3, rand(6, 1, seed=6) * 0.5
    real, fake = rand(5, 4, seed=7) * 0.5, rand(5, 4, seed=8) * 0.5
    eps = np.linspace(0.1, 0.9, 5).astype("float32")[:, None]

    def fn(T):
        W1, B1, W2 = leaf(T, w1), leaf(T, b1), leaf(T, w2)
        e = T.tensor(eps)
        xhat = (e * T.tensor(real) + (1 - e) * T.tensor(fake)).requires_grad_()
        critic = layer(T, (layer(T, xhat, W1) + B1).tanh(), W2)
        (g,) = T.autograd.grad(critic, xhat, grad_outputs=T.ones_like(critic), create_graph=True)
        penalty = (((g * g).sum(1) + 1e-12).sqrt() - 1) ** 2
        loss = critic.mean() + 10 * penalty.mean()
        loss.backward()
        return loss, g, W1.grad, B1.grad, W2.grad
    return fn


def test_gradient_penalty_wgan_gp_elementwise_critic():
    # the same critic with one leaf per hidden unit, so that every backward formula on the path is
    # one MindSpore records completely (no matmul, no view of the gradient)
    w1, b1, w2 = rand(4, 3, seed=4) * 0.3, rand(3, seed=5) * 0.3, rand(3, seed=6) * 0.5
    real, fake = rand(5, 4, seed=7) * 0.5, rand(5, 4, seed=8) * 0.5
    eps = np.linspace(0.1, 0.9, 5).astype("float32")[:, None]

    def fn(T):
        W1 = [leaf(T, w1[:, j].copy()) for j in range(3)]
        B1 = [leaf(T, b1[j:j + 1].copy()) for j in range(3)]
        W2 = [leaf(T, w2[j:j + 1].copy()) for j in range(3)]
        e = T.tensor(eps)
        xhat = (e * T.tensor(real) + (1 - e) * T.tensor(fake)).requires_grad_()
        critic = 0
        for w, b, v in zip(W1, B1, W2):
            critic = critic + ((xhat * w).sum(1, keepdim=True) + b).tanh() * v
        (g,) = T.autograd.grad(critic, xhat, grad_outputs=T.ones_like(critic), create_graph=True)
        penalty = (((g * g).sum(1) + 1e-12).sqrt() - 1) ** 2
        loss = critic.mean() + 10 * penalty.mean()
        loss.backward()
        return loss, g, [w.grad for w in W1], [b.grad for b in B1], [v.grad for v in W2]
    check(fn, rtol=1e-4, atol=1e-5)


def test_gradient_penalty_through_matmul_matches_torch():
    # 2-D products use MindSpore's classic MatMul primitive, whose backward records completely
    check(_wgan_gp(lambda T, a, w: T.matmul(a, w)), rtol=1e-4, atol=1e-5)


def test_gradient_penalty_through_batched_matmul_matches_torch():
    # MindSpore 2.10 drops edges of views its recorded backward formulas consume; mstorch hands every
    # gradient on as a new tensor while create_graph is on (autograd/_higher_order.py)
    check(_wgan_gp(lambda T, a, w: T.matmul(a.unsqueeze(0), w.unsqueeze(0)).squeeze(0)), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("op", ["sum_dim", "reshape", "transpose", "mean_dim"])
def test_create_graph_through_views_of_the_gradient(op):
    def fn(T):
        x = leaf(T, M)
        z = {"sum_dim": lambda t: t.sum(1), "reshape": lambda t: t.reshape(6),
             "transpose": lambda t: t.t(), "mean_dim": lambda t: t.mean(1)}[op](x * 3)
        (g,) = T.autograd.grad((z * z).sum(), x, create_graph=True)
        return g, T.autograd.grad((g * g).sum(), x)
    check(fn, rtol=1e-5, atol=1e-5)


def test_create_graph_with_reductions_at_the_root():
    def fn(T):
        x = leaf(T, M)
        (g,) = T.autograd.grad((x.exp() * x).mean(), x, create_graph=True)
        (gg,) = T.autograd.grad((g * g).sum(), x)
        return g, gg
    check(fn)


def test_grad_unused_raises():
    def fn(T):
        x, u = leaf(T), leaf(T, B)
        T.autograd.grad((x * 2).sum(), [x, u])
    check_message(fn)


def test_grad_allow_unused():
    def fn(T):
        x, u = leaf(T), leaf(T, B)
        return T.autograd.grad((x * 2).sum(), [x, u], allow_unused=True)
    check(fn)


def test_grad_materialize_grads():
    def fn(T):
        x, u = leaf(T), leaf(T, B)
        return T.autograd.grad((x * 2).sum(), [x, u], materialize_grads=True)
    check(fn)


def test_grad_materialize_with_allow_unused_false_raises():
    def fn(T):
        x, u = leaf(T), leaf(T, B)
        T.autograd.grad((x * 2).sum(), [x, u], allow_unused=False, materialize_grads=True)
    check_raises(fn)


def test_grad_input_not_requiring_grad_raises():
    def fn(T):
        x = leaf(T)
        T.autograd.grad((x * 2).sum(), [x, T.tensor(B)])
    check_message(fn)


def test_grad_intermediate_input():
    def fn(T):
        x = leaf(T)
        h = x * 3
        return T.autograd.grad((h * h).sum(), h)
    check(fn)


def test_grad_inputs_where_one_depends_on_another():
    def fn(T):
        x = leaf(T)
        k = x * 3
        u = k.sin()
        return T.autograd.grad((u * 2).sum(), [x, k, u])
    check(fn)


def test_grad_inputs_dict():
    def fn(T):
        x, w = leaf(T), leaf(T, B)
        return T.autograd.grad((x * w).sum(), {"x": x, "w": w})
    check(fn)


def test_grad_fills_retained_grad():
    def fn(T):
        x = leaf(T)
        y = x * 2
        y.retain_grad()
        T.autograd.grad((y * y).sum(), x)
        return y.grad
    check(fn)


def test_grad_does_not_touch_leaf_grads():
    def fn(T):
        x = leaf(T)
        T.autograd.grad((x * x).sum(), x)
        return x.grad
    check(fn)
