"""Adamax, NAdam, RAdam, RMSprop and Adagrad against torch: 20 steps on the same weights and gradients,
state_dicts key by key, param_groups, constructor errors, repr, and a torch state_dict loaded mid-run."""
import numpy as np
import pytest
import torch

import mstorch
from harness import Raised, assert_same, check

SHAPES = [(4, 3), (3,), (2, 4), ()]
TIGHT = dict(rtol=1e-6, atol=1e-7)


def run_fixed(T, name, kwargs, dtype=np.float32, steps=20, seed=0):
    """``steps`` steps with fixed random gradients on two parameter groups (the second with its own lr);
    the parameters, the state_dict and repr(optimizer)."""
    rng = np.random.RandomState(seed)
    params = [T.nn.Parameter(T.tensor(rng.standard_normal(s).astype(dtype))) for s in SHAPES]
    opt = getattr(T.optim, name)([{"params": params[:2]}, {"params": params[2:], "lr": 0.05}], **kwargs)
    for _ in range(steps):
        for p in params:
            p.grad = T.tensor(rng.standard_normal(tuple(p.shape)).astype(dtype))
        opt.step()
    sd = opt.state_dict()
    return [p.detach() for p in params], sd["state"], sd["param_groups"], repr(opt)


def assert_groups_identical(ref, got):
    """param_groups as Python values: equal, and of the same types (a tuple stays a tuple, 0 stays int)."""
    assert ref == got
    for rg, gg in zip(ref, got):
        assert list(rg) == list(gg)
        for k in rg:
            assert type(rg[k]) is type(gg[k]), (k, rg[k], gg[k])


CASES = [
    ("Adamax", dict()),
    ("Adamax", dict(lr=0.01, betas=(0.8, 0.95), eps=1e-3, weight_decay=0.1)),
    ("Adamax", dict(lr=0.01, weight_decay=0.05, maximize=True)),
    ("Adamax", dict(lr=0.01, foreach=True)),
    ("NAdam", dict()),
    ("NAdam", dict(lr=0.01, weight_decay=0.1)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("NAdam", dict(lr=0.01, betas=(0.7, 0.9), momentum_decay=0.05, eps=1e-4, maximize=True)),
    ("NAdam", dict(lr=0.01, foreach=True)),
    ("RAdam", dict()),
    ("RAdam", dict(lr=0.01, weight_decay=0.1)),
    ("RAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("RAdam", dict(lr=0.01, betas=(0.5, 0.9), eps=1e-3)),   # rectified from step 5 on
    ("RAdam", dict(lr=0.01, foreach=True)),
    ("RMSprop", dict()),
    ("RMSprop", dict(lr=0.01, alpha=0.9, eps=1e-4, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.01, centered=True)),
    ("RMSprop", dict(lr=0.01, momentum=0.9)),
    ("RMSprop", dict(lr=0.01, momentum=0.5, centered=True, weight_decay=0.1, maximize=True)),
    ("RMSprop", dict(lr=0.01, momentum=0.5, foreach=True)),
    ("Adagrad", dict()),
    ("Adagrad", dict(lr=0.1, lr_decay=0.05, eps=1e-4)),
    ("Adagrad", dict(lr=0.1, initial_accumulator_value=0.5, weight_decay=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, maximize=True)),
    ("Adagrad", dict(lr=0.1, fused=True)),
    ("Adagrad", dict(lr=0.1, foreach=True)),
]


@pytest.mark.parametrize("name,kwargs", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_twenty_steps_match_torch(name, kwargs):
    ref, got = check(lambda T: run_fixed(T, name, kwargs), **TIGHT)
    assert_groups_identical(ref[2], got[2])


@pytest.fixture(params=["host", "device"])
def update_path(request):
    """Both update paths: NumPy over the tensors' memory (CPU) and MindSpore ops (other devices, half types)."""
    from mstorch.optim import _fast
    before = _fast.config.host
    _fast.config.host = request.param == "host"
    yield request.param
    _fast.config.host = before


FULL = [CASES[2], CASES[7], CASES[11], CASES[18], CASES[23]]


@pytest.mark.parametrize("name,kwargs", FULL, ids=[n for n, _ in FULL])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
def test_both_update_paths_and_float64(update_path, name, kwargs, dtype):
    # the MindSpore-op path rounds torch's fused multiply-adds twice: ulp-level differences add up near 0
    tol = dict(rtol=1e-6, atol=1e-7 if update_path == "host" else 1e-6)
    if dtype == np.float64:
        tol = dict(rtol=1e-12, atol=1e-14)
    check(lambda T: run_fixed(T, name, kwargs, dtype=dtype, steps=8), **tol)


@pytest.mark.parametrize("name,kwargs", FULL, ids=[n for n, _ in FULL])
def test_float16_parameters(name, kwargs):
    # torch rounds to half after each op; agreement to half precision
    check(lambda T: run_fixed(T, name, kwargs, dtype=np.float16, steps=4), rtol=3e-3, atol=3e-3)


def test_load_torch_state_dict_mid_run():
    """torch runs 4 steps; its state_dict, converted tensor by tensor, goes into a fresh mstorch optimizer
    built with other hyper-parameters; both run 4 more steps."""
    rng = np.random.RandomState(5)
    grads = [[rng.standard_normal(s).astype(np.float32) for s in SHAPES] for _ in range(8)]
    init = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]

    def run(params, opt, steps, T):
        for gs in steps:
            for p, g in zip(params, gs):
                p.grad = T.tensor(g)
            opt.step()

    for name, kwargs in [CASES[1], CASES[6], CASES[11], CASES[18], CASES[22]]:
        tp = [torch.nn.Parameter(torch.tensor(w)) for w in init]
        topt = getattr(torch.optim, name)(tp, **kwargs)
        run(tp, topt, grads[:4], torch)
        sd = topt.state_dict()
        conv = {"state": {i: {k: mstorch.tensor(v.numpy()) for k, v in s.items()} for i, s in sd["state"].items()},
                "param_groups": sd["param_groups"]}
        mp = [mstorch.nn.Parameter(mstorch.tensor(p.detach().numpy())) for p in tp]
        mopt = getattr(mstorch.optim, name)(mp, lr=0.5)
        mopt.load_state_dict(conv)
        run(tp, topt, grads[4:], torch)
        run(mp, mopt, grads[4:], mstorch)
        assert_same([p.detach() for p in tp], [p.detach() for p in mp], path=name, **TIGHT)
        tsd, msd = topt.state_dict(), mopt.state_dict()
        assert_same(tsd, msd, path=name, **TIGHT)
        assert_groups_identical(tsd["param_groups"], msd["param_groups"])


def _snapshot(sd):
    """A state_dict with its tensors copied (torch's state_dict and load_state_dict share state tensors)."""
    return {"state": {i: {k: v.clone() for k, v in st.items()} for i, st in sd["state"].items()},
            "param_groups": sd["param_groups"]}


def test_round_trip_own_state_dict_and_add_param_group():
    """state_dict -> load_state_dict in the same library; a group added later gets its state lazily
    (Adagrad: from the constructor's initial_accumulator_value, not the group's)."""
    def fn(T):
        rng = np.random.RandomState(2)
        a = T.nn.Parameter(T.tensor(rng.standard_normal(3).astype(np.float32)))
        b = T.nn.Parameter(T.tensor(rng.standard_normal(2).astype(np.float32)))
        out = []
        for name, kw in [("Adagrad", dict(initial_accumulator_value=0.3)), ("NAdam", dict(lr=0.1)),
                         ("RMSprop", dict(momentum=0.3, centered=True))]:
            opt = getattr(T.optim, name)([a], **kw)
            before = _snapshot(opt.state_dict())
            opt.add_param_group({"params": [b], "initial_accumulator_value": 2.0, "lr": 0.2})
            for _ in range(3):
                a.grad = T.tensor(rng.standard_normal(3).astype(np.float32))
                b.grad = T.tensor(rng.standard_normal(2).astype(np.float32))
                opt.step()
            sd = _snapshot(opt.state_dict())
            opt2 = getattr(T.optim, name)([{"params": [a]}, {"params": [b]}], **kw)
            opt2.load_state_dict(_snapshot(sd))
            a.grad = T.ones(3)
            b.grad = T.ones(2)
            opt2.step()
            out.append((before, sd, opt2.state_dict(), a.detach().clone(), b.detach().clone()))
        return out
    check(fn, **TIGHT)


BAD_ARGS = [
    ("Adamax", dict(lr=-0.1)), ("Adamax", dict(eps=-1.0)), ("Adamax", dict(betas=(1.0, 0.9))),
    ("Adamax", dict(betas=(0.9, -0.1))), ("Adamax", dict(weight_decay=-1e-3)),
    ("NAdam", dict(lr=-1.0)), ("NAdam", dict(betas=(0.9, 1.0))), ("NAdam", dict(momentum_decay=-0.1)),
    ("NAdam", dict(weight_decay=-0.5)), ("NAdam", dict(eps=-1e-9)),
    ("RAdam", dict(lr=-0.01)), ("RAdam", dict(betas=(-0.5, 0.9))), ("RAdam", dict(weight_decay=-1)),
    ("RAdam", dict(eps=-2.0)),
    ("RMSprop", dict(lr=-0.01)), ("RMSprop", dict(eps=-0.1)), ("RMSprop", dict(momentum=-0.9)),
    ("RMSprop", dict(weight_decay=-0.1)), ("RMSprop", dict(alpha=-0.99)),
    ("Adagrad", dict(lr=-0.1)), ("Adagrad", dict(lr_decay=-0.1)), ("Adagrad", dict(weight_decay=-0.1)),
    ("Adagrad", dict(initial_accumulator_value=-1.0)), ("Adagrad", dict(eps=-1e-10)),
    ("Adagrad", dict(fused=True, differentiable=True)), ("Adagrad", dict(fused=True, foreach=True)),
]


@pytest.mark.parametrize("name,kwargs", BAD_ARGS, ids=[f"{n}-{'-'.join(k)}" for n, k in BAD_ARGS])
def test_constructor_errors_match_torch(name, kwargs):
    ref, got = check(lambda T: getattr(T.optim, name)([T.nn.Parameter(T.ones(2))], **kwargs), raises=True)
    assert isinstance(ref, Raised) and type(got.exc) is type(ref.exc) and str(got.exc) == str(ref.exc)


def test_tensor_lr_errors_and_values():
    def bad(T, name):
        return getattr(T.optim, name)([T.nn.Parameter(T.ones(2))], lr=T.tensor([0.1, 0.2]))
    for name in ("Adamax", "NAdam", "RAdam", "RMSprop", "Adagrad"):
        ref, got = check(lambda T: bad(T, name), raises=True)
        assert isinstance(ref, Raised) and str(got.exc) == str(ref.exc)

    def fn(T):
        out = []
        for name in ("Adamax", "NAdam", "RAdam", "RMSprop", "Adagrad"):
            p = T.nn.Parameter(T.tensor([1.0, -2.0, 0.5]))
            opt = getattr(T.optim, name)([p], lr=T.tensor(0.05), weight_decay=0.01)
            for i in range(3):
                p.grad = T.tensor([0.1 * i, -0.2, 0.3])
                opt.step()
            out.append((p.detach(), opt.state_dict()["state"]))
        return out
    check(fn, **TIGHT)


def test_repr_and_defaults_match_torch():
    def fn(T):
        p, q = T.nn.Parameter(T.ones(2)), T.nn.Parameter(T.ones(3))
        out = []
        for name in ("Adamax", "NAdam", "RAdam", "RMSprop", "Adagrad"):
            opt = getattr(T.optim, name)([{"params": [p]}, {"params": [q], "lr": 0.5, "eps": 1e-3}])
            out.append((repr(opt), opt.defaults, opt.state_dict()))
        return out
    ref, got = check(fn)
    for r, g in zip(ref, got):
        assert r[0] == g[0]
        assert_groups_identical([r[1]], [g[1]])


def test_step_count_and_scalar_states_are_float32_tensors():
    def fn(T):
        out = []
        for name in ("Adamax", "NAdam", "RAdam", "RMSprop", "Adagrad"):
            p = T.nn.Parameter(T.ones(2))
            opt = getattr(T.optim, name)([p])
            p.grad = T.ones(2)
            opt.step()
            first = {k: v for k, v in opt.state[p].items() if v.dim() == 0}
            opt.step()
            st = opt.state[p]
            out.append([(k, st[k] is v, st[k], st[k].dtype) for k, v in first.items()])
        return out
    check(fn, **TIGHT)


def test_parameters_without_grad_are_skipped():
    def fn(T):
        rng = np.random.RandomState(3)
        out = []
        for name in ("Adamax", "NAdam", "RAdam", "RMSprop", "Adagrad"):
            ps = [T.nn.Parameter(T.tensor(rng.standard_normal(3).astype(np.float32))) for _ in range(3)]
            opt = getattr(T.optim, name)(ps, lr=0.1)
            for i in range(4):
                opt.zero_grad()
                ps[0].grad = T.tensor(rng.standard_normal(3).astype(np.float32))
                if i % 2:
                    ps[2].grad = T.tensor(rng.standard_normal(3).astype(np.float32))
                opt.step()
            out.append(([p.detach() for p in ps], opt.state_dict()))
        return out
    check(fn, **TIGHT)


FLAG_ERRORS = [
    ("Adamax", dict(capturable=True)), ("Adamax", dict(capturable=True, foreach=True)),
    ("NAdam", dict(capturable=True)), ("NAdam", dict(capturable=True, foreach=True)),
    ("RAdam", dict(capturable=True)), ("RAdam", dict(capturable=True, foreach=True)),
    ("RMSprop", dict(capturable=True)), ("RMSprop", dict(capturable=True, foreach=True)),
    ("Adamax", dict(differentiable=True)), ("NAdam", dict(differentiable=True)),
    ("RAdam", dict(differentiable=True)), ("RMSprop", dict(differentiable=True)),
    ("Adagrad", dict(differentiable=True)),
    ("Adamax", dict(differentiable=True, foreach=True)), ("RMSprop", dict(differentiable=True, foreach=True)),
    ("Adagrad", dict(differentiable=True, foreach=True)),
]


@pytest.mark.parametrize("name,kwargs", FLAG_ERRORS, ids=[f"{n}-{'-'.join(k)}" for n, k in FLAG_ERRORS])
def test_flag_errors_at_step_match_torch(name, kwargs):
    def fn(T):
        p = T.nn.Parameter(T.ones(2))
        opt = getattr(T.optim, name)([p], **kwargs)
        p.grad = T.ones(2)
        opt.step()
    ref, got = check(fn, raises=True)
    assert isinstance(ref, Raised) and type(got.exc) is type(ref.exc) and str(got.exc) == str(ref.exc)


def test_foreach_refuses_differentiable_without_grads_like_torch():
    def fn(T, name):
        opt = getattr(T.optim, name)([T.nn.Parameter(T.ones(2))], differentiable=True, foreach=True)
        opt.step()
        return "ran"
    # torch's foreach Adamax and Adagrad refuse autograd; the others step
    for name, refused in (("Adamax", True), ("NAdam", False), ("RAdam", False), ("RMSprop", False), ("Adagrad", True)):
        ref, got = check(lambda T: fn(T, name), raises=refused)
        if refused:
            assert str(got.exc) == str(ref.exc)


def test_differentiable_without_leaf_grad_is_refused():
    p = mstorch.nn.Parameter(mstorch.ones(2), requires_grad=False)
    p.grad = mstorch.ones(2)
    with pytest.raises(NotImplementedError, match=r"torch.optim.RAdam\(differentiable=True\)"):
        mstorch.optim.RAdam([p], differentiable=True).step()


@pytest.mark.parametrize("name", ["Adamax", "NAdam", "RAdam", "RMSprop", "Adagrad"])
def test_complex_parameters_raise(name):
    p = mstorch.nn.Parameter(mstorch.ones(2, dtype=mstorch.complex64))
    p.grad = mstorch.ones(2, dtype=mstorch.complex64)
    with pytest.raises(NotImplementedError, match=f"torch.optim.{name} on complex"):
        getattr(mstorch.optim, name)([p]).step()


def test_step_with_closure_and_hooks():
    def fn(T):
        p = T.nn.Parameter(T.tensor([0.5, -1.5]))
        opt = T.optim.NAdam([p], lr=0.1)
        seen = []
        opt.register_step_post_hook(lambda o, a, k: seen.append(p.detach().clone()))

        def closure():
            opt.zero_grad()
            loss = (p * p).sum()
            loss.backward()
            return loss
        losses = [opt.step(closure) for _ in range(3)]
        return losses, seen
    check(fn, **TIGHT)


def test_setstate_upgrades_number_steps_and_fills_defaults():
    """torch's __setstate__: states saved with Python numbers as ``step`` / ``mu_product`` get 0-d
    tensors; param_groups missing newer keys get their defaults. Then the update goes on."""
    def fn(T):
        out = []
        for name, drop in [("Adamax", "capturable"), ("NAdam", "decoupled_weight_decay"), ("RAdam", "foreach"),
                           ("RMSprop", "centered"), ("Adagrad", "fused")]:
            p = T.nn.Parameter(T.tensor([0.5, -1.0, 2.0]))
            opt = getattr(T.optim, name)([p], lr=0.1)
            p.grad = T.tensor([0.3, -0.2, 0.1])
            opt.step()
            state = opt.__getstate__()
            st = state["state"][p]
            st["step"] = 1
            if "mu_product" in st:
                st["mu_product"] = float(st["mu_product"])
            del state["param_groups"][0][drop]
            opt.__setstate__(state)
            opt.step()
            out.append((p.detach(), opt.state_dict()))
        return out
    ref, got = check(fn, **TIGHT)
    for r, g in zip(ref, got):
        assert_groups_identical(r[1]["param_groups"], g[1]["param_groups"])


def test_deepcopy_of_optimizer_runs_independently():
    import copy

    def fn(T):
        p = T.nn.Parameter(T.tensor([0.5, -1.0]))
        opt = T.optim.RMSprop([p], lr=0.1, momentum=0.5, centered=True)
        p.grad = T.tensor([0.3, -0.2])
        opt.step()
        twin = copy.deepcopy(opt)
        opt.step()
        q = twin.param_groups[0]["params"][0]
        q.grad = T.tensor([0.3, -0.2])
        twin.step()
        return p.detach(), q.detach(), opt.state_dict(), twin.state_dict()
    check(fn, **TIGHT)


def test_scalar_state_dtype_follows_default_dtype():
    """torch's _get_scalar_dtype(): ``step`` / ``mu_product`` are float64 under a float64 default dtype
    (Adagrad(fused=True) keeps float32)."""
    def fn(T):
        before = T.get_default_dtype()
        T.set_default_dtype(T.float64)
        try:
            out = []
            for name, kw in [("NAdam", {}), ("RMSprop", {}), ("Adagrad", {}), ("Adagrad", dict(fused=True))]:
                p = T.nn.Parameter(T.tensor([0.5, -1.0]))
                opt = getattr(T.optim, name)([p], **kw)
                p.grad = T.tensor([0.3, -0.2])
                opt.step()
                out.append((p.detach(), opt.state_dict()["state"]))
            return out
        finally:
            T.set_default_dtype(before)
    check(fn, rtol=1e-12, atol=1e-14)
