"""Optimizers against torch: 20 steps on the same weights and gradients; state_dicts key by key."""
import numpy as np
import pytest
import torch

import mstorch
from harness import assert_same, check, Raised

SHAPES = [(4, 3), (3,), (2, 4)]


def _run(T, name, kwargs, steps=20):
    rng = np.random.RandomState(0)
    params = [T.nn.Parameter(T.tensor(rng.standard_normal(s).astype(np.float32))) for s in SHAPES]
    groups = [{"params": params[:2]}, {"params": params[2:], "lr": 0.05}]
    opt = getattr(T.optim, name)(groups, **kwargs)
    targets = [[rng.standard_normal(s).astype(np.float32) for s in SHAPES] for _ in range(steps)]
    for i in range(steps):
        opt.zero_grad()
        # products and sums only: the gradients are exact in both libraries, so differences are the optimizer's
        loss = sum(((p * p).sum() * (0.5 + 0.1 * k) + (p * T.tensor(targets[i][k])).sum())
                   for k, p in enumerate(params))
        loss.backward()
        opt.step()
    sd = opt.state_dict()
    return [p.detach() for p in params], sd["state"], sd["param_groups"]


CASES = [
    ("SGD", dict(lr=0.01)),
    ("SGD", dict(lr=0.01, momentum=0.9)),
    ("SGD", dict(lr=0.01, momentum=0.9, dampening=0.1, weight_decay=0.01)),
    ("SGD", dict(lr=0.01, momentum=0.9, nesterov=True, weight_decay=0.01)),
    ("SGD", dict(lr=0.01, maximize=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, amsgrad=True)),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.99), maximize=True)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, weight_decay=0.1, amsgrad=True)),
]


@pytest.mark.parametrize("name,kwargs", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_optimizer_matches_torch(name, kwargs):
    check(lambda T: _run(T, name, kwargs), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("bad", [dict(lr=-1.0), dict(lr=0.1, momentum=-1), dict(lr=0.1, nesterov=True)])
def test_sgd_bad_arguments(bad):
    def fn(T):
        return T.optim.SGD([T.nn.Parameter(T.ones(2))], **bad)
    ref, got = check(fn, raises=True)
    assert isinstance(ref, Raised) and str(got.exc) == str(ref.exc)


def test_parameter_in_two_groups_raises_like_torch():
    def fn(T):
        p = T.nn.Parameter(T.ones(2))
        return T.optim.Adam([{"params": [p]}, {"params": [p]}])
    ref, got = check(fn, raises=True)
    assert isinstance(ref, Raised) and str(got.exc) == str(ref.exc)


def test_manual_lr_edit_and_state_dict_round_trip():
    def fn(T):
        p = T.nn.Parameter(T.tensor([1.0, -2.0]))
        opt = T.optim.Adam([p], lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            (p * p).sum().backward()
            opt.step()
        opt.param_groups[0]["lr"] = 0.01
        sd = opt.state_dict()
        q = T.nn.Parameter(p.detach().clone())
        opt2 = T.optim.Adam([q], lr=0.5)
        opt2.load_state_dict(sd)
        for _ in range(2):
            opt2.zero_grad()
            (q * q).sum().backward()
            opt2.step()
        return q.detach(), opt2.param_groups[0]["lr"]
    check(fn)


# --- the fast update path (optim/_fast.py): fixed gradients, so differences are the optimizer's alone ---

FIXED_SHAPES = [(4, 3), (3,), (2, 4), ()]


def _fixed_run(T, name, kwargs, dtype=np.float32, steps=20):
    rng = np.random.RandomState(0)
    params = [T.nn.Parameter(T.tensor(rng.standard_normal(s).astype(dtype))) for s in FIXED_SHAPES]
    opt = getattr(T.optim, name)([{"params": params[:2]}, {"params": params[2:], "lr": 0.05}], **kwargs)
    for _ in range(steps):
        for p in params:
            p.grad = T.tensor(rng.standard_normal(tuple(p.shape)).astype(dtype))
        opt.step()
    sd = opt.state_dict()
    return [p.detach() for p in params], sd["state"], sd["param_groups"]


FIXED_CASES = [
    ("SGD", dict(lr=0.01)),
    ("SGD", dict(lr=0.01, momentum=0.9)),
    ("SGD", dict(lr=0.01, momentum=0.9, dampening=0.3, weight_decay=0.01, maximize=True)),
    ("SGD", dict(lr=0.01, momentum=0.9, nesterov=True, weight_decay=0.01, maximize=True)),
    ("SGD", dict(lr=0.01, weight_decay=0.1, foreach=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, betas=(0.3, 0.6), eps=1e-3, weight_decay=0.1)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, amsgrad=True, maximize=True)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, amsgrad=True)),
    ("Adam", dict(lr=0.01, foreach=False, fused=None)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, betas=(0.5, 0.7), weight_decay=0.2, amsgrad=True, maximize=True)),
]
_TIGHT = dict(rtol=1e-6, atol=1e-7)


@pytest.fixture(params=["host", "device"])
def update_path(request):
    """Run under both update paths: NumPy over the tensors' memory (CPU) and MindSpore ops (elsewhere)."""
    from mstorch.optim import _fast
    before = _fast.config.host
    _fast.config.host = request.param == "host"
    yield request.param
    _fast.config.host = before


@pytest.mark.parametrize("name,kwargs", FIXED_CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(FIXED_CASES)])
def test_fixed_gradients_match_torch(name, kwargs):
    check(lambda T: _fixed_run(T, name, kwargs), **_TIGHT)


@pytest.mark.parametrize("name,kwargs", [FIXED_CASES[3], FIXED_CASES[8], FIXED_CASES[11]], ids=["SGD", "Adam", "AdamW"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
def test_both_update_paths_and_float64(update_path, name, kwargs, dtype):
    tol = _TIGHT if dtype == np.float32 else dict(rtol=1e-12, atol=1e-14)
    check(lambda T: _fixed_run(T, name, kwargs, dtype=dtype, steps=10), **tol)


@pytest.mark.parametrize("name,kwargs", [("SGD", dict(lr=0.1, momentum=0.9, weight_decay=0.1)),
                                         ("Adam", dict(lr=0.1, weight_decay=0.1))], ids=["SGD", "Adam"])
def test_float16_parameters(name, kwargs):
    # torch rounds to half after every op, as MindSpore's kernels do: agreement to half precision
    check(lambda T: _fixed_run(T, name, kwargs, dtype=np.float16, steps=5), rtol=2e-3, atol=2e-3)


def test_lr_and_weight_decay_as_tensors():
    def fn(T):
        p = T.nn.Parameter(T.tensor([1.0, -2.0, 0.5]))
        q = T.nn.Parameter(T.tensor([0.3, 0.2]))
        a = T.optim.Adam([p], lr=T.tensor(0.05), betas=(T.tensor(0.8), T.tensor(0.9)))
        s = T.optim.SGD([q], lr=T.tensor(0.1), momentum=0.5, weight_decay=T.tensor(0.01))
        for i in range(4):
            p.grad = T.tensor([0.1 * i, -0.2, 0.3])
            q.grad = T.tensor([0.5, -0.1 * i])
            a.step()
            s.step()
        return p.detach(), q.detach(), a.state_dict()["state"], a.param_groups[0]["betas"]
    check(fn, **_TIGHT)


def test_parameter_without_grad_is_skipped():
    """No state and no change for a parameter whose grad is None; per-parameter step counts differ."""
    def fn(T):
        rng = np.random.RandomState(3)
        ps = [T.nn.Parameter(T.tensor(rng.standard_normal(3).astype(np.float32))) for _ in range(3)]
        adam = T.optim.Adam(ps, lr=0.1)
        sgd_ps = [T.nn.Parameter(T.tensor(rng.standard_normal(2).astype(np.float32))) for _ in range(2)]
        sgd = T.optim.SGD(sgd_ps, lr=0.1, momentum=0.9)
        for i in range(6):
            adam.zero_grad()
            sgd.zero_grad()
            ps[0].grad = T.tensor(rng.standard_normal(3).astype(np.float32))
            if i % 2:
                ps[1].grad = T.tensor(rng.standard_normal(3).astype(np.float32))
            if i >= 3:
                sgd_ps[1].grad = T.tensor(rng.standard_normal(2).astype(np.float32))
            adam.step()
            sgd.step()
        return [p.detach() for p in ps + sgd_ps], adam.state_dict(), sgd.state_dict()
    check(fn, **_TIGHT)


def test_parameter_shared_by_two_modules():
    """Tied weights: one Parameter in two layers is one optimizer entry; both layers see each update."""
    def fn(T):
        T.manual_seed(0)
        a, b = T.nn.Linear(3, 3), T.nn.Linear(3, 3)
        b.weight = a.weight
        model = T.nn.Sequential(a, T.nn.Tanh(), b)
        with T.no_grad():
            for i, p in enumerate(model.parameters()):
                p.copy_(T.tensor(np.random.RandomState(i).uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32)))
        opt = T.optim.Adam(model.parameters(), lr=0.05, amsgrad=True)
        x = T.tensor(np.random.RandomState(9).standard_normal((5, 3)).astype(np.float32))
        outs = []
        for _ in range(5):
            opt.zero_grad()
            out = model(x)
            (out * out).mean().backward()
            opt.step()
            outs.append(out.detach())
        return outs, model(x).detach(), a.weight is b.weight, len(opt.state), opt.state_dict()["state"]
    check(fn, rtol=1e-5, atol=1e-6)


def test_leaf_view_parameter_writes_its_base(update_path):
    def fn(T):
        base = T.zeros(4, 3)
        v = base[1:3]
        v.requires_grad_()
        opt = T.optim.SGD([v], lr=0.1, momentum=0.9, nesterov=True)
        rng = np.random.RandomState(0)
        for _ in range(3):
            v.grad = T.tensor(rng.standard_normal((2, 3)).astype(np.float32))
            opt.step()
        return base, v.detach(), opt.state_dict()["state"]
    check(fn, **_TIGHT)


def test_non_contiguous_grad_and_replaced_data(update_path):
    """A transposed .grad; then p.data replaced mid-run (the cached host arrays must follow)."""
    def fn(T):
        rng = np.random.RandomState(1)
        p = T.nn.Parameter(T.tensor(rng.standard_normal((3, 4)).astype(np.float32)))
        opt = T.optim.Adam([p], lr=0.1)
        out = []
        for i in range(6):
            p.grad = T.tensor(rng.standard_normal((4, 3)).astype(np.float32)).t()
            opt.step()
            if i == 2:
                p.data = T.tensor(rng.standard_normal((3, 4)).astype(np.float32))
            out.append(p.detach().clone())
        return out, opt.state_dict()["state"]
    check(fn, **_TIGHT)


def test_state_step_tensor_is_kept_and_float32():
    def fn(T):
        p = T.nn.Parameter(T.ones(2))
        opt = T.optim.AdamW([p])
        p.grad = T.ones(2)
        opt.step()
        first = opt.state[p]["step"]
        opt.step()
        st = opt.state[p]
        return (st["step"] is first, st["step"], st["step"].dtype, tuple(st["step"].shape), list(st),
                [v.requires_grad for v in st.values()])
    check(fn)


def test_step_counts_as_in_place_write_for_autograd():
    """A backward through a graph that saved a parameter before step() raises, as in torch."""
    def fn(T, name):
        p = T.nn.Parameter(T.tensor([1.0, 2.0]))
        opt = getattr(T.optim, name)([p], lr=0.1)
        (p * p).sum().backward()
        loss = (p * p).sum()   # saves p for backward
        opt.step()
        loss.backward()
    for name in ("SGD", "Adam"):
        ref, got = check(lambda T: fn(T, name), raises=True)
        assert isinstance(ref, Raised) and "modified by an inplace operation" in str(got.exc)


def test_zero_grad():
    def fn(T):
        p = T.nn.Parameter(T.ones(3))
        q = T.nn.Parameter(T.ones(2))
        opt = T.optim.SGD([p, q], lr=0.1)
        (p.sum() * 2 + q.sum()).backward()
        kept = p.grad
        opt.zero_grad(set_to_none=False)
        zeroed = (p.grad, q.grad, kept, p.grad.requires_grad)
        opt.zero_grad()
        return zeroed, p.grad, q.grad
    check(fn)


def test_step_hooks():
    def fn(T):
        p = T.nn.Parameter(T.ones(2))
        opt = T.optim.SGD([p], lr=0.5)
        events = []
        pre = opt.register_step_pre_hook(lambda o, args, kwargs: events.append(("pre", o is opt, args, kwargs,
                                                                                 p.detach().clone())))
        opt.register_step_post_hook(lambda o, args, kwargs: events.append(("post", p.detach().clone())))
        p.grad = T.ones(2)
        opt.step()
        pre.remove()
        opt.step()
        return events, p.detach()
    check(fn)


def test_flag_errors_like_torch():
    def fn(T, name, kwargs, step):
        p = T.nn.Parameter(T.ones(2))
        opt = getattr(T.optim, name)([p], **kwargs)
        if step:
            p.grad = T.ones(2)
            opt.step()
        return p.detach()
    for name, kwargs, step in [("Adam", dict(differentiable=True), True),
                               ("SGD", dict(lr=0.1, differentiable=True), True),
                               ("Adam", dict(capturable=True), True), ("AdamW", dict(fused=True, foreach=True), False),
                               ("SGD", dict(lr=0.1, fused=True, differentiable=True), False)]:
        ref, got = check(lambda T: fn(T, name, kwargs, step), raises=True)
        assert isinstance(ref, Raised) and str(got.exc) == str(ref.exc)
    check(lambda T: fn(T, "Adam", dict(fused=True, amsgrad=True), True), **_TIGHT)   # fused: same math on CPU
    check(lambda T: fn(T, "SGD", dict(lr=0.1, fused=True, momentum=0.5), True), **_TIGHT)


def test_complex_parameters_in_adam_raise():
    p = mstorch.nn.Parameter(mstorch.ones(2, dtype=mstorch.complex64))
    p.grad = mstorch.ones(2, dtype=mstorch.complex64)
    with pytest.raises(NotImplementedError, match="complex"):
        mstorch.optim.Adam([p]).step()


def test_load_torch_state_dict_mid_run():
    """torch runs 4 steps; its state_dict, converted tensor by tensor, goes into mstorch; both go on."""
    rng = np.random.RandomState(5)
    grads = [[rng.standard_normal(s).astype(np.float32) for s in FIXED_SHAPES] for _ in range(8)]
    init = [rng.standard_normal(s).astype(np.float32) for s in FIXED_SHAPES]
    for name, kwargs in [("Adam", dict(lr=0.05, amsgrad=True)), ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True))]:
        tp = [torch.nn.Parameter(torch.tensor(w)) for w in init]
        topt = getattr(torch.optim, name)(tp, **kwargs)

        def run(params, opt, steps, T):
            for gs in steps:
                for p, g in zip(params, gs):
                    p.grad = T.tensor(g)
                opt.step()
        run(tp, topt, grads[:4], torch)
        sd = topt.state_dict()
        conv = {"state": {i: {k: mstorch.tensor(v.numpy()) for k, v in s.items()} for i, s in sd["state"].items()},
                "param_groups": sd["param_groups"]}
        mp = [mstorch.nn.Parameter(mstorch.tensor(p.detach().numpy())) for p in tp]
        mopt = getattr(mstorch.optim, name)(mp, lr=0.5)
        mopt.load_state_dict(conv)
        run(tp, topt, grads[4:], torch)
        run(mp, mopt, grads[4:], mstorch)
        assert_same([p.detach() for p in tp], [p.detach() for p in mp], **_TIGHT)
        assert_same(topt.state_dict(), mopt.state_dict(), **_TIGHT)


def test_state_memory_the_host_cannot_reach(monkeypatch):
    """Where NumPy cannot share a state's memory (GPU/Ascend tensors), that parameter's update falls back
    to MindSpore ops, and a state created from a host array is copied in at the end of the step."""
    import mindspore as ms
    from mstorch.optim import _fast
    real = _fast.host_array
    monkeypatch.setattr(_fast.config, "host", True)
    monkeypatch.setattr(_fast, "host_array",
                        lambda t: None if t.ndim == 2 and not isinstance(t, ms.Parameter) else real(t))
    for name, kwargs in [("SGD", dict(lr=0.01, momentum=0.9, weight_decay=0.1)), ("Adam", dict(lr=0.01, amsgrad=True))]:
        check(lambda T: _fixed_run(T, name, kwargs, steps=4), **_TIGHT)
