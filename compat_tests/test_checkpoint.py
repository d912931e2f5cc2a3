"""torch.utils.checkpoint compared with torch: values and gradients (same dropout masks, torch's RNG stream),
RNG handling, the use_reentrant warnings and errors, non-tensor and keyword arguments, tuple outputs,
checkpoint_sequential."""
import warnings

import pytest

from harness import check
from test_autograd import check_message

# MindSpore's matmul may round differently from torch's in the last bit: values are compared to 1e-5
# (a different dropout mask would differ by O(1)); checkpointed vs plain mstorch is compared bit for bit.
EXACT = dict(rtol=1e-5, atol=1e-6)


def _model(T, seed, p=0.5):
    T.manual_seed(seed)
    return T.nn.Sequential(T.nn.Linear(5, 7), T.nn.Dropout(p), T.nn.Tanh(), T.nn.Linear(7, 7), T.nn.ReLU(),
                           T.nn.Dropout(p), T.nn.Linear(7, 3))


def _grads(model, *tensors):
    return [t.grad for t in tensors] + [p.grad for p in model.parameters()]


def _recorded(fn):
    """fn's result and the warnings it raised, as (category name, message) pairs."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn()
    return out, [(w.category.__name__, str(w.message)) for w in caught]


@pytest.mark.parametrize("reentrant", [True, False])
@pytest.mark.parametrize("seed", [0, 3, 11])
def test_dropout_model_bit_identical(reentrant, seed):
    def fn(T):
        model = _model(T, seed)
        x = T.randn(4, 5, requires_grad=True)
        out = T.utils.checkpoint.checkpoint(model, x, use_reentrant=reentrant)
        (out * T.linspace(-1, 1, 12).reshape(4, 3)).sum().backward()
        after = T.rand(3)   # the recomputation restored the generator: the stream goes on from the forward
        return out, _grads(model, x), after, out.requires_grad
    check(fn, **EXACT)


@pytest.mark.parametrize("reentrant", [True, False])
def test_equals_the_plain_model(reentrant):
    def fn(T):
        model = _model(T, 5)
        x = T.randn(4, 5, requires_grad=True)
        state = T.get_rng_state()
        out = T.utils.checkpoint.checkpoint(model, x, use_reentrant=reentrant)
        out.sum().backward()
        ck = _grads(model, x)
        model.zero_grad()
        x.grad = None
        T.set_rng_state(state)
        plain = model(x)
        plain.sum().backward()
        return out, ck, plain, _grads(model, x)
    ref, got = check(fn, **EXACT)
    out, ck, plain, grads = got
    assert out.equal(plain) and all(a.equal(b) for a, b in zip(ck, grads))


@pytest.mark.parametrize("reentrant", [True, False])
def test_preserve_rng_state_false_draws_a_new_mask(reentrant):
    def fn(T):
        model = _model(T, 1, p=0.3)
        x = T.randn(6, 5, requires_grad=True)
        out = T.utils.checkpoint.checkpoint(model, x, use_reentrant=reentrant, preserve_rng_state=False)
        out.sum().backward()
        return out, _grads(model, x), T.rand(2)
    check(fn, **EXACT)


def test_use_reentrant_missing_warns_and_means_true():
    def fn(T):
        x = T.randn(3, requires_grad=True)
        out, caught = _recorded(lambda: T.utils.checkpoint.checkpoint(lambda a: a.sin() * 2, x))
        name = out.grad_fn.name()
        out.sum().backward()
        return out, x.grad, caught, name
    check(fn, **EXACT)


def test_sequential_use_reentrant_missing_warns():
    def fn(T):
        model = _model(T, 2)
        x = T.randn(2, 5, requires_grad=True)
        out, caught = _recorded(lambda: T.utils.checkpoint.checkpoint_sequential(model, 2, x))
        out.sum().backward()
        return out, _grads(model, x), caught
    check(fn, **EXACT)


@pytest.mark.parametrize("reentrant", [True, False])
def test_inputs_without_requires_grad(reentrant):
    def fn(T):
        model = _model(T, 4)
        x = T.randn(3, 5)
        out, caught = _recorded(lambda: T.utils.checkpoint.checkpoint(model, x, use_reentrant=reentrant))
        if out.requires_grad:   # non-reentrant: the parameters still get their gradients
            out.sum().backward()
        return out, out.requires_grad, caught, [p.grad for p in model.parameters()]
    check(fn, **EXACT)


@pytest.mark.parametrize("reentrant", [True, False])
def test_non_tensor_args_and_tuple_outputs(reentrant):
    def fn(T):
        T.manual_seed(0)
        lin = T.nn.Linear(4, 4)
        x = T.randn(2, 4, requires_grad=True)
        y = T.randn(2, 4, requires_grad=True)

        def f(a, scale, b, tag):
            h = T.nn.functional.dropout(lin(a) * scale, 0.4, training=True)
            return h + b, tag, (h * b).sum(-1)

        out = T.utils.checkpoint.checkpoint(f, x, 1.5, y, "tag", use_reentrant=reentrant)
        (out[0].sum() + out[2].pow(2).sum()).backward()
        return out, x.grad, y.grad, lin.weight.grad, lin.bias.grad
    check(fn, **EXACT)


def test_kwargs_only_without_reentrant():
    def fn(T):
        T.manual_seed(0)
        w = T.randn(4, requires_grad=True)
        x = T.randn(3, 4, requires_grad=True)
        z = T.randn(3, 4, requires_grad=True)

        def f(a, *, b, k=1.0):
            return (a * w + b) * k

        out = T.utils.checkpoint.checkpoint(f, x, b=z, k=3.0, use_reentrant=False)
        gx, gw = T.autograd.grad(out.pow(2).sum(), [x, w], retain_graph=True)
        out.sum().backward(inputs=[z])
        return out, gx, gw, z.grad, x.grad, w.grad
    check(fn, **EXACT)
    check_message(lambda T: T.utils.checkpoint.checkpoint(lambda a, b: a + b, T.ones(2), b=T.ones(2),
                                                           use_reentrant=True))
    check_message(lambda T: T.utils.checkpoint.checkpoint_sequential([T.nn.ReLU()], 1, T.ones(2),
                                                                      use_reentrant=True, foo=1, bar=2))


def test_reentrant_refuses_grad_and_backward_inputs():
    def setup(T):
        x = T.randn(3, requires_grad=True)
        return x, T.utils.checkpoint.checkpoint(lambda a: a.exp(), x, use_reentrant=True)

    def with_grad(T):
        x, out = setup(T)
        return T.autograd.grad(out.sum(), x)

    def with_inputs(T):
        x, out = setup(T)
        out.sum().backward(inputs=[x])

    check_message(with_grad)
    check_message(with_inputs)


def test_argument_errors():
    ck = lambda T, **kw: T.utils.checkpoint.checkpoint(lambda a: a * 2, T.ones(2, requires_grad=True), **kw)  # noqa
    check_message(lambda T: ck(T, use_reentrant=True, debug=True))
    check_message(lambda T: ck(T, use_reentrant=True,
                               context_fn=lambda: (T.no_grad(), T.no_grad())))
    check_message(lambda T: ck(T, use_reentrant=False, determinism_check="strict"))
    check_message(lambda T: ck(T, use_reentrant=False, debug=True,
                               context_fn=T.utils.checkpoint.noop_context_fn.__call__))


@pytest.mark.parametrize("reentrant", [True, False])
def test_under_no_grad(reentrant):
    def fn(T):
        model = _model(T, 6)
        x = T.randn(2, 5, requires_grad=True)
        with T.no_grad():
            out = T.utils.checkpoint.checkpoint(model, x, use_reentrant=reentrant)
        return out, out.requires_grad, T.rand(2)
    check(fn, **EXACT)


@pytest.mark.parametrize("reentrant", [True, False])
@pytest.mark.parametrize("segments", [1, 2, 3])
def test_checkpoint_sequential(reentrant, segments):
    def fn(T):
        model = _model(T, segments)
        x = T.randn(3, 5, requires_grad=True)
        out = T.utils.checkpoint.checkpoint_sequential(model, segments, x, use_reentrant=reentrant)
        out.pow(2).sum().backward()
        listed = T.utils.checkpoint.checkpoint_sequential(list(model.children()), segments, x.detach(),
                                                          use_reentrant=reentrant, preserve_rng_state=False)
        return out, _grads(model, x), listed
    check(fn, **EXACT)


def test_shared_input_and_closure_tensor_without_reentrant():
    def fn(T):
        T.manual_seed(9)
        w = T.randn(3, 3, requires_grad=True)
        x = T.randn(2, 3, requires_grad=True)
        out = T.utils.checkpoint.checkpoint(lambda a, b: (a @ w).tanh() * b, x, x, use_reentrant=False)
        out.sum().backward()
        return out, x.grad, w.grad
    check(fn, rtol=1e-6, atol=1e-7)


def test_torch_alias_finds_the_modules():
    from mstorch._compat.alias import TorchAliasFinder
    finder = TorchAliasFinder()
    for name in ("torch.utils.checkpoint", "torch.distributions", "torch.distributions.normal"):
        spec = finder.find_spec(name)
        assert spec is not None and spec.loader.target == "mstorch" + name[len("torch"):]


@pytest.mark.parametrize("reentrant", [True, False])
def test_identity_integer_outputs_nesting_and_retain_graph(reentrant):
    def fn(T):
        T.manual_seed(0)
        ck = T.utils.checkpoint.checkpoint
        x = T.randn(3, requires_grad=True)
        res = []
        for f in (lambda a: a, lambda a: (a, a * 2), lambda a: (a * 2, (a > 0).long())):
            y = ck(f, x, use_reentrant=reentrant)
            ys = y if isinstance(y, tuple) else (y,)
            sum(o.sum() for o in ys if o.requires_grad).backward()
            res.append(([(o.requires_grad, o.dtype) for o in ys], ys, x.grad))
            x.grad = None
        lin = T.nn.Linear(3, 3)
        y = ck(lambda a: ck(lin, a, use_reentrant=reentrant).sin(), x, use_reentrant=reentrant)
        y.sum().backward()
        res.append((y, x.grad, lin.weight.grad, lin.bias.grad))
        x.grad = None
        y = ck(lambda a: a.exp(), x, use_reentrant=reentrant)
        y.sum().backward(retain_graph=True)
        y.sum().backward()
        res.append(x.grad)
        return res
    check(fn, rtol=1e-5, atol=1e-6)   # MindSpore's CPU exp is a few ulp from torch's
    check_message(lambda T: T.utils.checkpoint.checkpoint(lambda a: a.view(5), T.ones(3, requires_grad=True),
                                                           use_reentrant=reentrant))


def _wrapper_mod(T):
    import importlib
    return importlib.import_module(T.__name__ + ".distributed.algorithms._checkpoint.checkpoint_wrapper")


@pytest.mark.parametrize("impl", ["NO_REENTRANT", "REENTRANT"])
@pytest.mark.parametrize("how", ["apply_check_fn", "apply_policy", "wrap_root", "offload"])
def test_checkpoint_wrapper(impl, how):
    """torch.distributed.algorithms._checkpoint.checkpoint_wrapper (accelerate's activation checkpointing): the
    wrapped model gives torch's values, gradients, module names, state_dict keys (the wrapper's prefix hidden) and
    loads a plain model's state_dict."""
    import functools

    def fn(T):
        cw = _wrapper_mod(T)
        model = _model(T, 5, p=0.0)
        wrapper = functools.partial(cw.checkpoint_wrapper, checkpoint_impl=getattr(cw.CheckpointImpl, impl))
        if how == "apply_check_fn":
            cw.apply_activation_checkpointing(model, checkpoint_wrapper_fn=wrapper,
                                              check_fn=lambda m: isinstance(m, T.nn.Linear))
        elif how == "apply_policy":
            policy = T.distributed.fsdp.wrap.ModuleWrapPolicy({T.nn.Linear})
            cw.apply_activation_checkpointing(model, checkpoint_wrapper_fn=wrapper, auto_wrap_policy=policy)
        elif how == "wrap_root":
            model = wrapper(model)
        else:
            cw.apply_activation_checkpointing(model, checkpoint_wrapper_fn=cw.offload_wrapper,
                                              check_fn=lambda m: isinstance(m, T.nn.Linear))
        x = T.randn(4, 5, requires_grad=True)
        out = model(x)
        out.sum().backward()
        plain = _model(T, 9, p=0.0)
        plain.load_state_dict(model.state_dict())      # the keys are the unwrapped model's
        model.load_state_dict(plain.state_dict())      # and load back into the wrapped one
        return (out, _grads(model, x), [n for n, _ in model.named_modules()], [n for n, _ in model.named_parameters()],
                list(model.state_dict()), repr(model), plain(x))
    check(fn, **EXACT)


def test_checkpoint_wrapper_keywords_and_attributes():
    """REENTRANT with keyword arguments packs them behind the positional ones; attributes and indexing reach the
    wrapped module; a bad policy raises torch's ValueError."""
    def fn(T):
        cw = _wrapper_mod(T)

        class M(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = T.nn.Linear(3, 3)
                self.tag = "m"

            def forward(self, x, scale=1.0, *, shift=None):
                return self.lin(x) * scale + (0 if shift is None else shift)
        T.manual_seed(0)
        w = cw.checkpoint_wrapper(M(), cw.CheckpointImpl.REENTRANT)
        x = T.randn(2, 3, requires_grad=True)
        y = w(x, scale=2.0, shift=T.ones(3))
        y.sum().backward()
        seq = cw.checkpoint_wrapper(T.nn.Sequential(T.nn.Linear(2, 2)))
        return y, x.grad, w.tag, type(seq[0]).__name__, [c.name for c in cw.CheckpointImpl]
    check(fn, **EXACT)
    check(lambda T: _wrapper_mod(T).apply_activation_checkpointing(T.nn.Linear(2, 2), auto_wrap_policy=3),
          raises=True)
