"""torch.utils.hooks: one RemovableHandle class for module, tensor, optimizer and third-party hook tables
(accelerate builds its own on it), with one id counter, removal from extra tables, pickling and the
serialization warning helpers."""
import pickle
import warnings
from collections import OrderedDict

from harness import check_as_torch as check  # value and error cases side by side: as torch does


def test_one_handle_class_everywhere():
    def fn(T):
        lin = T.nn.Linear(2, 2)
        x = T.zeros(2, requires_grad=True)
        opt = T.optim.SGD(lin.parameters(), lr=0.1)
        handles = [lin.register_forward_hook(lambda *a: None), lin.register_forward_pre_hook(lambda *a: None),
                   lin.register_full_backward_hook(lambda *a: None), lin.register_state_dict_pre_hook(lambda *a: None),
                   x.register_hook(lambda g: g), x.register_post_accumulate_grad_hook(lambda t: None),
                   opt.register_step_pre_hook(lambda *a: None), T.nn.modules.module.register_module_forward_hook(
                       lambda *a: None)]
        ids = [h.id for h in handles]
        for h in handles:
            h.remove()
        return ([type(h) is T.utils.hooks.RemovableHandle for h in handles], [i - ids[0] for i in ids],
                T.utils.hooks.__all__[:3], T.nn.modules.module.RemovableHandle is T.utils.hooks.RemovableHandle)
    check(fn)


def test_handle_on_own_table_with_extra_dicts():
    def fn(T):
        hooks, extra, more = OrderedDict(), OrderedDict(), OrderedDict()
        h1 = T.utils.hooks.RemovableHandle(hooks, extra_dict=extra)
        h2 = T.utils.hooks.RemovableHandle(hooks, extra_dict=[extra, more])
        for h in (h1, h2):
            hooks[h.id] = extra[h.id] = more[h.id] = "hook"
        rel = lambda table: [k - h1.id for k in table]   # noqa: E731  (ids count every handle of the process)
        h1.remove()
        state = (rel(hooks), rel(extra), rel(more))
        with h2:
            pass
        h2.remove()   # a second remove does nothing
        return state + ((h2.id - h1.id, rel(hooks), rel(extra), rel(more)),)
    check(fn)


def test_tensor_hook_table_and_removal_stops_the_hook():
    def fn(T):
        x = T.ones(3, requires_grad=True)
        before = x._backward_hooks
        h = x.register_hook(lambda g: g * 2)
        keys = [k - h.id for k in x._backward_hooks]
        (x * 3).sum().backward()
        first = x.grad.clone()
        h.remove()
        x.grad = None
        (x * 3).sum().backward()
        return before, keys, first, x.grad, dict(x._backward_hooks)
    check(fn)


def test_handle_pickles():
    def fn(T):
        hooks = OrderedDict()
        h = T.utils.hooks.RemovableHandle(hooks)
        hooks[h.id] = 1
        table, h2 = pickle.loads(pickle.dumps((hooks, h)))
        h2.remove()
        dead = pickle.loads(pickle.dumps(T.utils.hooks.RemovableHandle(OrderedDict())))
        dead.remove()
        after = T.utils.hooks.RemovableHandle(OrderedDict())
        # ids count every handle the process made: compare them relative to the first
        return (h2.id == h.id, {k - h.id: v for k, v in table.items()}, [k - h.id for k in hooks], after.id > h.id,
                dead.hooks_dict_ref() is None)
    check(fn)


def test_warn_if_has_hooks():
    def fn(T):
        x = T.ones(2, requires_grad=True)
        x.register_hook(T.utils.hooks.unserializable_hook(lambda g: g))
        with warnings.catch_warnings(record=True) as quiet:
            warnings.simplefilter("always")
            T.utils.hooks.warn_if_has_hooks(x)
        x.register_hook(lambda g: g)
        with warnings.catch_warnings(record=True) as loud:
            warnings.simplefilter("always")
            T.utils.hooks.warn_if_has_hooks(x)
        return len(quiet), [str(w.message).split(" on tensor")[1] for w in loud]
    check(fn)
