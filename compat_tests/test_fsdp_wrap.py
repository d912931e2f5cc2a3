"""torch.distributed.fsdp.wrap against torch: the auto-wrap policies (transformer, size-based, lambda, or, module,
custom) decide the same modules on a small model, and ``enable_wrap``/``wrap``/``_recursive_wrap`` wrap the
same submodules with a user wrapper class (FSDP itself refuses to be constructed in mstorch)."""
import functools

import pytest

from harness import check


def _model(T):
    nn = T.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.attn = nn.MultiheadAttention(4, 2)
            self.ff = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 4))

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(10, 4)
            self.blocks = nn.ModuleList([Block(), Block()])
            self.head = nn.Linear(4, 10)
    return Model(), Block


def _wrapper(T):
    class Wrapped(T.nn.Module):
        def __init__(self, module, **kwargs):
            super().__init__()
            self.module = module
            self.kwargs = kwargs
    return Wrapped


def _decisions(T, policy):
    model, _ = _model(T)
    return [(name, type(m).__name__, policy(module=m, recurse=r, nonwrapped_numel=sum(p.numel() for p in m.parameters())))
            for name, m in model.named_modules() for r in (True, False)]


def _structure(module):
    return [(name, type(m).__name__, sorted(getattr(m, "kwargs", {}).items())) for name, m in module.named_modules()]


POLICIES = {
    "transformer": lambda T, W: functools.partial(W.transformer_auto_wrap_policy,
                                                  transformer_layer_cls={_model(T)[1]}),
    "size": lambda T, W: functools.partial(W.size_based_auto_wrap_policy, min_num_params=100),
    "size_default": lambda T, W: W.size_based_auto_wrap_policy,
    "lambda": lambda T, W: functools.partial(W.lambda_auto_wrap_policy,
                                             lambda_fn=lambda m: isinstance(m, T.nn.Linear)),
    "or": lambda T, W: functools.partial(W._or_policy, policies=[
        functools.partial(W.lambda_auto_wrap_policy, lambda_fn=lambda m: isinstance(m, T.nn.Embedding)),
        functools.partial(W.size_based_auto_wrap_policy, min_num_params=60)]),
    "module_policy": lambda T, W: W.ModuleWrapPolicy([T.nn.Linear]),
    "always": lambda T, W: W.always_wrap_policy,
}


def _wrap_module(T):
    import importlib
    return importlib.import_module(T.__name__ + ".distributed.fsdp.wrap")


@pytest.mark.parametrize("name", sorted(POLICIES))
def test_policy_decisions(name):
    def fn(T):
        W = _wrap_module(T)
        policy = POLICIES[name](T, W)
        model, _ = _model(T)
        wrapped, numel = W._recursive_wrap(model, policy, _wrapper(T), ignored_modules=set(), ignored_params=set(),
                                           flag=1)
        return _decisions(T, policy), _structure(wrapped), numel
    check(fn)


def test_policy_objects():
    def fn(T):
        W = _wrap_module(T)
        model, block = _model(T)
        custom = W.CustomPolicy(lambda m: {"tag": 2} if isinstance(m, T.nn.Linear) else isinstance(m, block))
        targets = custom._run_policy(model, {model.head}, {"tag": 1})
        by_name = {m: n for n, m in model.named_modules()}
        mod = W.ModuleWrapPolicy({T.nn.Embedding})._run_policy(model, set(), {"x": 0})
        bad = W.CustomPolicy(lambda m: 3)
        try:
            bad._run_policy(model, set(), {})
            err = None
        except ValueError as exc:
            err = str(exc)
        return (sorted((by_name[m], sorted(k.items())) for m, k in targets.items()),
                [(by_name[m], k) for m, k in mod.items()], err, sorted(W.__all__))
    check(fn)


def test_enable_wrap():
    def fn(T):
        W = _wrap_module(T)
        wrapper = _wrapper(T)
        outside = type(W.wrap(T.nn.Linear(2, 2))).__name__
        with W.enable_wrap(wrapper_cls=wrapper, a=1, b=2):
            inner = W.wrap(T.nn.Linear(2, 2), b=3)
            try:
                with W.enable_wrap(wrapper_cls=wrapper):
                    pass
                nested = None
            except NotImplementedError as exc:
                nested = str(exc)
        after = type(W.wrap(T.nn.Linear(2, 2))).__name__
        return outside, type(inner).__name__, sorted(inner.kwargs.items()), nested, after
    check(fn)
