"""torch.utils.swap_tensors (peft's hotswap of adapter weights): two tensors exchange data, dtype, shape,
requires_grad, grad, class and Python attributes in place; torch's refusals (weakrefs, different slots)."""
import weakref

from harness import check


def _state(t):
    return [type(t).__name__, t.detach().clone(), t.dtype, t.shape, t.requires_grad, t.is_leaf,
            None if t.grad is None else t.grad.clone(), getattr(t, "tag", None)]


def test_swap_parameter_and_tensor():
    def fn(T):
        a = T.nn.Parameter(T.ones(2))
        (a * 3).sum().backward()
        b = T.arange(3)
        b.tag = "b"
        ida, idb = id(a), id(b)
        T.utils.swap_tensors(a, b)
        out = _state(a) + _state(b) + [id(a) == ida, id(b) == idb]
        (b * 2).sum().backward()                    # the parameter, now b, keeps accumulating
        return out + [b.grad]
    check(fn)


def test_swap_inside_a_module():
    def fn(T):
        T.manual_seed(0)
        lin = T.nn.Linear(3, 2)
        new = T.nn.Parameter(T.full((2, 3), 0.5))
        T.utils.swap_tensors(lin.weight, new)
        return lin(T.ones(1, 3)), lin.weight, new, type(lin.weight).__name__
    check(fn)


def test_swap_refusals():
    def weakly(T):
        a, b = T.ones(2), T.zeros(2)
        keep = weakref.ref(a)
        return T.utils.swap_tensors(a, b), keep
    check(weakly, raises=True)

    def weakly_second(T):
        a, b = T.ones(2), T.zeros(2)
        keep = weakref.ref(b)
        return T.utils.swap_tensors(a, b), keep
    check(weakly_second, raises=True)

    def slots(T):
        class Slotted(T.Tensor):
            __slots__ = ("extra",)
        a = T.ones(2).as_subclass(Slotted)
        return T.utils.swap_tensors(a, T.zeros(2))
    check(slots, raises=True)
