"""Gradient accumulation into ``.grad`` against torch: leaf layouts x gradient layouts x ways gradients arrive.

MindSpore's engine adds a gradient to ``.grad`` in memory order, whatever the strides of either, so a
transposed first gradient (``x @ w.T``) scrambled every later accumulation. Each case here compares
``.grad``'s values and strides with torch (torch lays a leaf's gradient out like the leaf when the leaf
is dense, else row-major, and accumulates in place), after every backward:

- two (and three) backwards through expressions whose gradients come in every layout (row-major,
  transposed, from a stacked or concatenated tensor, expanded, broadcast);
- backward after assigning ``.grad`` by hand, in every layout (the assigned tensor's memory, and the
  base it views, are then updated in place, as torch does);
- tensor hooks (also ones returning strided gradients), ``retain_grad`` on non-leaves,
  ``register_post_accumulate_grad_hook``;
- optimizer steps on accumulated gradients, ``zero_grad(set_to_none=False)`` between backwards;
- ``torch.autograd.grad``, which must leave ``.grad`` alone.
"""
import numpy as np
import pytest

from harness import check_as_torch as check, rand  # matrices mixing accepted and rejected calls: as torch does

W = rand(2, 3)
X = rand(4, 3, seed=1)
K = rand(4, 2, seed=2)          # weights that make every element of a gradient distinct
C = rand(2, 3, seed=3)
V = rand(2, 3, seed=4)
C4 = rand(4, 3, seed=5)
C5 = rand(2, 3, 2, seed=6)
ROW = rand(3, seed=7)


def _t(T, a):
    return T.tensor(a)


LEAVES = {
    "contiguous": lambda T: T.tensor(W, requires_grad=True),
    # a dense leaf that is not row-major: torch gives its gradient the leaf's strides
    "transposed": lambda T: T.tensor(np.ascontiguousarray(W.T)).t().detach().requires_grad_(),
    "parameter": lambda T: T.nn.Parameter(T.tensor(W)),
}

# losses whose gradient for w arrives in different layouts
LOSSES = {
    "mul": lambda T, w: (w * _t(T, C)).sum(),
    "matmul_t": lambda T, w: ((_t(T, X) @ w.T) * _t(T, K)).sum(),
    "t_mul": lambda T, w: (w.t() * _t(T, C.T.copy())).sum(),
    "cat": lambda T, w: (T.cat([_t(T, V), w]) * _t(T, C4)).sum(),
    "stack": lambda T, w: (T.stack([w, w * 2], -1) * _t(T, C5)).sum(),
    "sum": lambda T, w: w.sum(),
    "broadcast": lambda T, w: (w * _t(T, ROW)).sum() + (w * 2).mean(),
    "expand_in": lambda T, w: (w[:, :1].expand(2, 3) * _t(T, C)).sum() + (w * w).sum(),
}


def _grad_state(w):
    """A snapshot of .grad (torch accumulates into the same tensor later)."""
    g = w.grad
    return None if g is None else (g.clone(), g.stride())


@pytest.mark.parametrize("second", list(LOSSES))
@pytest.mark.parametrize("first", list(LOSSES))
@pytest.mark.parametrize("leaf", list(LEAVES))
def test_two_backwards(leaf, first, second):
    def fn(T):
        w = LEAVES[leaf](T)
        LOSSES[first](T, w).backward()
        after_one = _grad_state(w)
        LOSSES[second](T, w).backward()
        after_two = _grad_state(w)
        LOSSES[first](T, w).backward()
        return after_one, after_two, _grad_state(w)
    check(fn)


def test_issue_reproducers():
    """The two reproducers of the issue (17 item 1, 18 reproducer 1), verbatim."""
    def matmul(T):
        w = T.tensor(W, requires_grad=True)
        x = T.tensor(X)
        (x @ w.T).sum().backward()
        (x @ w.T).sum().backward()
        return w.grad
    check(matmul)

    def transposed_view(T):
        x = T.tensor([[-2., 1, 3], [4, 5, 6]], requires_grad=True)
        w = T.tensor([1., 2])
        (x.t() * w).sum().backward()
        (x.t() * w).sum().backward()
        return x.grad, x.grad.stride()
    check(transposed_view)


# --- .grad assigned by hand --------------------------------------------------------------------------------

def _assigned(T, layout):
    """(base, tensor assigned to .grad) holding the values V in ``layout``."""
    if layout == "contiguous":
        g = T.tensor(V)
        return g, g
    if layout == "transposed":
        base = T.tensor(np.ascontiguousarray(V.T))
        return base, base.t()
    if layout == "stepped":
        pad = np.zeros((4, 7), np.float32)
        pad[::2, 1::2] = V
        base = T.tensor(pad)
        return base, base[::2, 1::2]
    if layout == "offset":
        flat = np.zeros(9, np.float32)
        flat[2:8] = V.ravel()
        base = T.tensor(flat)
        return base, base[2:8].view(2, 3)
    if layout == "detached_transposed":
        base = T.tensor(np.ascontiguousarray(V.T))
        return base, base.t().detach()
    if layout == "expanded":
        base = T.tensor(V[0])
        return base, base.expand(2, 3)
    raise AssertionError(layout)


ASSIGNED = ["contiguous", "transposed", "stepped", "offset", "detached_transposed", "expanded"]
# torch accumulates into an assigned .grad in place; mstorch (MindSpore's engine) into a new tensor
# where the assigned one is row-major (docs/known-differences.md), so the base is compared only for the
# layouts mstorch adds to itself.
_IN_PLACE = {"transposed", "stepped", "detached_transposed", "expanded"}


@pytest.mark.parametrize("loss", ["mul", "matmul_t", "t_mul", "cat", "sum"])
@pytest.mark.parametrize("layout", ASSIGNED)
@pytest.mark.parametrize("leaf", ["contiguous", "transposed"])
def test_backward_after_assigning_grad(leaf, layout, loss):
    def fn(T):
        w = LEAVES[leaf](T)
        base, g = _assigned(T, layout)
        w.grad = g
        LOSSES[loss](T, w).backward()
        once = _grad_state(w)
        LOSSES[loss](T, w).backward()
        return once, _grad_state(w), (base if layout in _IN_PLACE else None)
    check(fn)


@pytest.mark.parametrize("layout", ASSIGNED)
def test_inplace_ops_on_assigned_grad(layout):
    """What optimizers and clipping do to .grad: in-place ops, then another backward."""
    def fn(T):
        w = T.tensor(W, requires_grad=True)
        base, g = _assigned(T, layout)
        w.grad = g
        w.grad.mul_(0.5)
        w.grad.add_(1.0)
        scaled = _grad_state(w)
        w.grad.zero_()
        (w * _t(T, C)).sum().backward()
        return scaled, _grad_state(w), (base if layout != "contiguous" else None)
    check(fn)


# --- hooks -------------------------------------------------------------------------------------------------

HOOKS = {
    "scale": lambda g: g * 2,
    "strided": lambda g: g.t().contiguous().t() * 3,
    "expanded": lambda g: g.sum(0, keepdim=True).expand(2, 3),
    "none": lambda g: None,
}


@pytest.mark.parametrize("loss", ["mul", "matmul_t", "t_mul", "stack"])
@pytest.mark.parametrize("hook", list(HOOKS))
@pytest.mark.parametrize("leaf", list(LEAVES))
def test_tensor_hook(leaf, hook, loss):
    def fn(T):
        w = LEAVES[leaf](T)
        seen = []
        w.register_hook(lambda g: seen.append(g.clone()))
        w.register_hook(HOOKS[hook])
        LOSSES[loss](T, w).backward()
        once = _grad_state(w)
        LOSSES[loss](T, w).backward()
        return once, _grad_state(w), seen
    check(fn)


@pytest.mark.parametrize("loss", ["mul", "matmul_t", "t_mul", "cat"])
def test_retain_grad_accumulates(loss):
    def fn(T):
        w = T.tensor(W, requires_grad=True)
        h = w * 1.5
        h.retain_grad()
        LOSSES[loss](T, h).backward(retain_graph=True)
        once = _grad_state(h)
        LOSSES[loss](T, h).backward()
        return once, _grad_state(h), _grad_state(w)
    check(fn)


@pytest.mark.parametrize("loss", ["mul", "matmul_t", "t_mul"])
@pytest.mark.parametrize("leaf", list(LEAVES))
def test_post_accumulate_grad_hook(leaf, loss):
    def fn(T):
        w = LEAVES[leaf](T)
        seen = []

        def hook(p):
            seen.append((p is w, p.grad.clone(), p.grad.stride()))
            p.grad.mul_(0.5)          # what an optimizer-in-backward hook does to the gradient it sees

        handle = w.register_post_accumulate_grad_hook(hook)
        LOSSES[loss](T, w).backward()
        LOSSES[loss](T, w).backward()
        T.autograd.grad(LOSSES[loss](T, w), w)     # no accumulation: no call
        handle.remove()
        LOSSES[loss](T, w).backward()
        return seen, _grad_state(w)
    check(fn)


def test_post_accumulate_grad_hook_errors():
    check(lambda T: T.tensor(W).register_post_accumulate_grad_hook(lambda p: None))
    check(lambda T: (T.tensor(W, requires_grad=True) * 2).register_post_accumulate_grad_hook(lambda p: None))

    for hook in (lambda p: 1, lambda p: p.detach() + 1, lambda p: p):
        def returns_value(T):
            w = T.tensor(W, requires_grad=True)
            w.register_post_accumulate_grad_hook(hook)
            (w * 2).sum().backward()
            return w.grad
        check(returns_value)


# --- optimizers --------------------------------------------------------------------------------------------

OPTIMIZERS = {
    "sgd_momentum": lambda T, ps: T.optim.SGD(ps, lr=0.1, momentum=0.9),
    "adam": lambda T, ps: T.optim.Adam(ps, lr=0.01),
}


@pytest.mark.parametrize("losses", [("mul", "matmul_t"), ("matmul_t", "matmul_t"), ("t_mul", "stack")], ids=str)
@pytest.mark.parametrize("opt", list(OPTIMIZERS))
@pytest.mark.parametrize("leaf", list(LEAVES))
def test_optimizer_steps_on_accumulated_grads(leaf, opt, losses):
    def fn(T):
        w = LEAVES[leaf](T)
        o = OPTIMIZERS[opt](T, [w])
        seen = []
        for _ in range(2):
            for name in losses:                       # two micro-batches per step
                LOSSES[name](T, w).backward()
            seen.append(_grad_state(w))
            o.step()
            o.zero_grad(set_to_none=False)            # in place into .grad, whatever its layout
            seen.append((w.detach().clone(), _grad_state(w)))
        return seen
    check(fn, rtol=1e-5, atol=1e-6)


# --- autograd.grad -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("loss", list(LOSSES))
@pytest.mark.parametrize("leaf", list(LEAVES))
def test_autograd_grad_leaves_grad_alone(leaf, loss):
    def fn(T):
        w = LEAVES[leaf](T)
        (g,) = T.autograd.grad(LOSSES[loss](T, w), w)
        untouched = w.grad
        LOSSES["matmul_t"](T, w).backward()
        before = _grad_state(w)
        (g2,) = T.autograd.grad(LOSSES[loss](T, w), w)
        # the layout of autograd.grad's result is the backward formula's own: values only
        return g.contiguous(), untouched, before, g2.contiguous(), _grad_state(w)
    check(fn)


@pytest.mark.parametrize("assigned", [None, "contiguous", "transposed"])
def test_create_graph_accumulation(assigned):
    """Backwards with create_graph accumulate out of place, with a graph, as torch does (elementwise
    losses: MindSpore records their backward formulas completely, docs/known-differences.md)."""
    def fn(T):
        w = T.tensor(W, requires_grad=True)
        if assigned is not None:
            w.grad = _assigned(T, assigned)[1]
        (w * w * _t(T, C)).sum().backward(create_graph=True)
        (w * w * w).sum().backward(create_graph=True)
        g = w.grad
        (second,) = T.autograd.grad(g.sum(), w)
        return g, g.requires_grad, second
    check(fn)
