"""Adadelta, ASGD, Rprop, LBFGS and SparseAdam against torch: fixed gradients for 20 steps, state_dicts
key by key, constructor errors and reprs, flags torch refuses on CPU, a torch state_dict loaded mid-run."""
import numpy as np
import pytest
import torch

import mstorch
from harness import Raised, assert_same, check

SHAPES = [(4, 3), (3,), (2, 4), ()]
_TIGHT = dict(rtol=1e-6, atol=1e-7)


def _fixed_run(T, name, kwargs, dtype=np.float32, steps=20):
    """Same weights, and the same random gradients assigned to .grad at every step."""
    rng = np.random.RandomState(0)
    params = [T.nn.Parameter(T.tensor(rng.standard_normal(s).astype(dtype))) for s in SHAPES]
    opt = getattr(T.optim, name)([{"params": params[:2]}, {"params": params[2:], "lr": 0.05}], **kwargs)
    for _ in range(steps):
        for p in params:
            p.grad = T.tensor(rng.standard_normal(tuple(p.shape)).astype(dtype))
        opt.step()
    sd = opt.state_dict()
    return [p.detach() for p in params], sd["state"], sd["param_groups"]


CASES = [
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-3, weight_decay=0.1)),
    ("Adadelta", dict(maximize=True, weight_decay=0.05)),
    ("Adadelta", dict(foreach=True, weight_decay=0.1, maximize=True)),
    ("ASGD", dict()),
    ("ASGD", dict(t0=5, lambd=0.01, alpha=0.6)),
    ("ASGD", dict(t0=3, weight_decay=0.1, maximize=True)),
    ("ASGD", dict(t0=5, lambd=0.01, alpha=0.6, weight_decay=0.1, foreach=True)),
    ("ASGD", dict(t0=2, lambd=0.05, alpha=2, maximize=True, foreach=True)),
    ("ASGD", dict(t0=2, lambd=0.05, alpha=0.5, foreach=True)),
    ("Rprop", dict()),
    ("Rprop", dict(lr=0.1, etas=(0.3, 1.5), step_sizes=(1e-3, 0.05))),
    ("Rprop", dict(maximize=True)),
    ("Rprop", dict(foreach=True, step_sizes=(0.01, 1))),
]


@pytest.mark.parametrize("name,kwargs", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_fixed_gradients_match_torch(name, kwargs):
    check(lambda T: _fixed_run(T, name, kwargs), **_TIGHT)


@pytest.fixture(params=["host", "device"])
def update_path(request):
    """NumPy over the tensors' memory (CPU) and MindSpore ops (elsewhere; forced here)."""
    from mstorch.optim import _fast
    before = _fast.config.host
    _fast.config.host = request.param == "host"
    yield request.param
    _fast.config.host = before


_PATH_CASES = [CASES[3], CASES[7], CASES[11]]


@pytest.mark.parametrize("name,kwargs", _PATH_CASES, ids=[c[0] for c in _PATH_CASES])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
def test_both_update_paths_and_float64(update_path, name, kwargs, dtype):
    tol = _TIGHT if dtype == np.float32 else dict(rtol=1e-12, atol=1e-14)
    check(lambda T: _fixed_run(T, name, kwargs, dtype=dtype, steps=8), **tol)


@pytest.mark.parametrize("name,kwargs", [("Adadelta", dict(weight_decay=0.1)), ("ASGD", dict(t0=2)),
                                         ("Rprop", dict(lr=0.1))], ids=["Adadelta", "ASGD", "Rprop"])
def test_float16_parameters(name, kwargs):
    check(lambda T: _fixed_run(T, name, kwargs, dtype=np.float16, steps=5), rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("name,kwargs", [("Adadelta", dict(lr=0.5)), ("ASGD", dict(lr=0.05, t0=4)),
                                         ("Rprop", dict(lr=0.05))], ids=["Adadelta", "ASGD", "Rprop"])
def test_gradients_from_a_loss(name, kwargs):
    """Gradients from the same loss (products and sums only, exact in both libraries)."""
    def fn(T):
        rng = np.random.RandomState(0)
        params = [T.nn.Parameter(T.tensor(rng.standard_normal(s).astype(np.float32))) for s in SHAPES[:3]]
        opt = getattr(T.optim, name)(params, **kwargs)
        targets = [[rng.standard_normal(s).astype(np.float32) for s in SHAPES[:3]] for _ in range(20)]
        for i in range(20):
            opt.zero_grad()
            loss = sum(((p * p).sum() * (0.5 + 0.1 * k) + (p * T.tensor(targets[i][k])).sum())
                       for k, p in enumerate(params))
            loss.backward()
            opt.step()
        return [p.detach() for p in params], opt.state_dict()
    check(fn, **_TIGHT)


def test_tensor_lr_and_weight_decay():
    def fn(T):
        p = T.nn.Parameter(T.tensor([1.0, -2.0, 0.5]))
        q = T.nn.Parameter(T.tensor([0.3, 0.2]))
        r = T.nn.Parameter(T.tensor([0.7, -0.1]))
        a = T.optim.Adadelta([p], lr=T.tensor(0.5), weight_decay=T.tensor(0.1))
        b = T.optim.ASGD([q], lr=T.tensor(0.1), t0=1)
        c = T.optim.Rprop([r], lr=T.tensor(0.02))
        for i in range(4):
            p.grad = T.tensor([0.1 * i, -0.2, 0.3])
            q.grad = T.tensor([0.5, -0.1 * i])
            r.grad = T.tensor([0.5 - 0.3 * i, 0.2])
            for o in (a, b, c):
                o.step()
        return p.detach(), q.detach(), r.detach(), b.state_dict()["state"], c.state_dict()["state"]
    check(fn, **_TIGHT)


def test_rprop_zero_and_nan_gradients():
    """torch's sign is 0 for NaN: a NaN product leaves the step size alone and the parameter unmoved."""
    def fn(T):
        p = T.nn.Parameter(T.tensor([1.0, 2.0, 3.0, 4.0]))
        opt = T.optim.Rprop([p], lr=0.1)
        nan = float("nan")
        for g in ([1.0, 0.0, -1.0, 2.0], [1.0, 1.0, 1.0, nan], [-1.0, 0.0, 1.0, 1.0], [nan, 2.0, 1.0, -1.0]):
            p.grad = T.tensor(g)
            opt.step()
        return p.detach(), opt.state_dict()["state"]
    check(fn, **_TIGHT)


def test_parameters_without_grad_are_skipped():
    def fn(T):
        rng = np.random.RandomState(3)
        out = []
        for name in ("Adadelta", "ASGD", "Rprop"):
            ps = [T.nn.Parameter(T.tensor(rng.standard_normal(3).astype(np.float32))) for _ in range(3)]
            opt = getattr(T.optim, name)(ps, lr=0.1)
            for i in range(5):
                opt.zero_grad()
                ps[0].grad = T.tensor(rng.standard_normal(3).astype(np.float32))
                if i % 2:
                    ps[2].grad = T.tensor(rng.standard_normal(3).astype(np.float32))
                opt.step()
            out.append(([p.detach() for p in ps], opt.state_dict()))
        return out
    check(fn, **_TIGHT)


def _raises_like_torch(fn):
    ref, got = check(fn, raises=True)
    assert isinstance(ref, Raised), ref
    assert type(got.exc) is type(ref.exc) and str(got.exc) == str(ref.exc), (ref, got)


BAD_ARGUMENTS = [
    ("Adadelta", dict(lr=-1.0)), ("Adadelta", dict(rho=1.5)), ("Adadelta", dict(rho=-0.1)),
    ("Adadelta", dict(eps=-1e-3)), ("Adadelta", dict(weight_decay=-0.1)),
    ("ASGD", dict(lr=-0.5)), ("ASGD", dict(weight_decay=-1)),
    ("Rprop", dict(lr=-1.0)), ("Rprop", dict(etas=(1.5, 2.0))), ("Rprop", dict(etas=(0.5, 0.9))),
    ("Rprop", dict(etas=(0.0, 1.2))),
    ("LBFGS", dict(lr=-1.0)),
    ("SparseAdam", dict(lr=0.0)), ("SparseAdam", dict(eps=0.0)), ("SparseAdam", dict(betas=(1.0, 0.9))),
    ("SparseAdam", dict(betas=(0.9, -0.1))),
]


@pytest.mark.parametrize("name,bad", BAD_ARGUMENTS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(BAD_ARGUMENTS)])
def test_bad_arguments(name, bad):
    _raises_like_torch(lambda T: getattr(T.optim, name)([T.nn.Parameter(T.ones(2))], **bad))


@pytest.mark.parametrize("name", ["Adadelta", "ASGD", "Rprop", "LBFGS", "SparseAdam"])
def test_tensor_lr_must_have_one_element_and_params_not_empty(name):
    _raises_like_torch(lambda T: getattr(T.optim, name)([T.nn.Parameter(T.ones(2))], lr=T.tensor([0.1, 0.2])))
    _raises_like_torch(lambda T: getattr(T.optim, name)([]))


def test_lbfgs_and_sparse_adam_constructor_checks():
    _raises_like_torch(lambda T: T.optim.LBFGS([{"params": [T.nn.Parameter(T.ones(2))]},
                                                {"params": [T.nn.Parameter(T.ones(1))]}]))
    _raises_like_torch(lambda T: T.optim.SparseAdam([T.nn.Parameter(T.ones(2)),
                                                     T.nn.Parameter(T.ones(2, dtype=T.complex64))]))


REPR_CASES = [
    ("Adadelta", dict()), ("Adadelta", dict(lr=0.5, rho=0.7, foreach=True, maximize=True, capturable=True)),
    ("ASGD", dict()), ("ASGD", dict(lr=0.1, lambd=0.2, alpha=0.5, t0=10, weight_decay=0.01, differentiable=True)),
    ("Rprop", dict()), ("Rprop", dict(lr=0.1, etas=(0.4, 1.1), step_sizes=(1e-4, 10))),
    ("LBFGS", dict()), ("LBFGS", dict(lr=0.5, max_iter=7, history_size=4, line_search_fn="strong_wolfe")),
    ("SparseAdam", dict()), ("SparseAdam", dict(lr=0.01, betas=(0.5, 0.6), maximize=True)),
]


@pytest.mark.parametrize("name,kwargs", REPR_CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(REPR_CASES)])
def test_repr_and_param_groups(name, kwargs):
    def fn(T):
        opt = getattr(T.optim, name)([T.nn.Parameter(T.ones(2)), T.nn.Parameter(T.ones(3))], **kwargs)
        return repr(opt), opt.state_dict(), opt.defaults
    ref, got = check(fn)
    assert ref[0] == got[0]


@pytest.mark.parametrize("name,kwargs", [
    ("Adadelta", dict(capturable=True)), ("Adadelta", dict(capturable=True, foreach=True)),
    ("ASGD", dict(capturable=True)), ("ASGD", dict(capturable=True, foreach=True)),
    ("Rprop", dict(capturable=True)), ("Rprop", dict(capturable=True, foreach=True)),
    ("Adadelta", dict(differentiable=True)), ("Adadelta", dict(differentiable=True, foreach=True)),
    ("ASGD", dict(differentiable=True, foreach=True)), ("Rprop", dict(differentiable=True)),
    ("Rprop", dict(differentiable=True, foreach=True)),
])
def test_flags_torch_refuses_on_cpu(name, kwargs):
    """capturable (no CPU support in torch), differentiable (an in-place write on a leaf), foreach with
    differentiable: torch's exception and message, and the state torch leaves behind."""
    def fn(T):
        p = T.nn.Parameter(T.ones(2))
        q = T.nn.Parameter(T.ones(3))
        opt = getattr(T.optim, name)([p, q], **kwargs)
        p.grad = T.ones(2)
        q.grad = T.ones(3)
        try:
            opt.step()
        except Exception as exc:  # noqa: BLE001
            return type(exc).__name__, str(exc), p.detach(), {k: v for k, v in opt.state_dict()["state"].items()
                                                              if "differentiable" not in kwargs}
        return "no error"
    check(fn)


def test_foreach_differentiable_without_grads():
    """torch's multi-tensor Adadelta refuses differentiable before looking for gradients; ASGD does not."""
    def fn(T, name):
        opt = getattr(T.optim, name)([T.nn.Parameter(T.ones(2))], differentiable=True, foreach=True)
        opt.step()
        return "stepped"
    _raises_like_torch(lambda T: fn(T, "Adadelta"))
    check(lambda T: fn(T, "ASGD"))


def test_complex_parameters_raise():
    for name in ("Adadelta", "ASGD", "Rprop"):
        p = mstorch.nn.Parameter(mstorch.ones(2, dtype=mstorch.complex64))
        p.grad = mstorch.ones(2, dtype=mstorch.complex64)
        with pytest.raises(NotImplementedError, match=f"torch.optim.{name} on complex"):
            getattr(mstorch.optim, name)([p]).step()


def _to_mstorch(value):
    if isinstance(value, torch.Tensor):
        return mstorch.tensor(value.detach().numpy())
    if isinstance(value, dict):
        return {k: _to_mstorch(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_to_mstorch(v) for v in value)
    return value


@pytest.mark.parametrize("name,kwargs", [("Adadelta", dict(lr=0.5, weight_decay=0.1)),
                                         ("ASGD", dict(lr=0.05, t0=2, lambd=0.01)),
                                         ("ASGD", dict(lr=0.05, t0=2, foreach=True)),
                                         ("Rprop", dict(lr=0.05, etas=(0.4, 1.3)))],
                         ids=["Adadelta", "ASGD", "ASGD-foreach", "Rprop"])
def test_load_torch_state_dict_mid_run(name, kwargs):
    """torch runs 4 steps; its state_dict, converted tensor by tensor, goes into mstorch; both go on."""
    rng = np.random.RandomState(5)
    grads = [[rng.standard_normal(s).astype(np.float32) for s in SHAPES] for _ in range(8)]
    init = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]
    tp = [torch.nn.Parameter(torch.tensor(w)) for w in init]
    topt = getattr(torch.optim, name)(tp, **kwargs)

    def run(params, opt, steps, T):
        for gs in steps:
            for p, g in zip(params, gs):
                p.grad = T.tensor(g)
            opt.step()
    run(tp, topt, grads[:4], torch)
    mp = [mstorch.nn.Parameter(mstorch.tensor(p.detach().numpy())) for p in tp]
    mopt = getattr(mstorch.optim, name)(mp, lr=0.9)
    mopt.load_state_dict(_to_mstorch(topt.state_dict()))
    run(tp, topt, grads[4:], torch)
    run(mp, mopt, grads[4:], mstorch)
    assert_same([p.detach() for p in tp], [p.detach() for p in mp], **_TIGHT)
    assert_same(topt.state_dict(), mopt.state_dict(), **_TIGHT)


def test_old_state_dicts_with_python_number_steps():
    """torch's __setstate__ turns Python-number step (and ASGD's eta, mu) into float32 0-d tensors."""
    def fn(T):
        out = []
        for name, extra in (("Adadelta", {}), ("Rprop", {}), ("ASGD", {"eta": 0.01, "mu": 1.0})):
            p = T.nn.Parameter(T.tensor([1.0, -1.0]))
            opt = getattr(T.optim, name)([p], lr=0.01)
            p.grad = T.tensor([0.5, 0.25])
            opt.step()
            sd = opt.state_dict()
            st = dict(sd["state"][0], step=3.0, **extra)
            opt.load_state_dict({"state": {0: st}, "param_groups": sd["param_groups"]})
            opt.step()
            out.append((p.detach(), opt.state_dict()["state"]))
        return out
    check(fn, **_TIGHT)


def test_step_closure_and_hooks():
    def fn(T):
        p = T.nn.Parameter(T.tensor([1.0, 2.0]))
        opt = T.optim.Rprop([p], lr=0.1)
        events = []
        opt.register_step_pre_hook(lambda o, args, kwargs: events.append(("pre", len(args))))
        opt.register_step_post_hook(lambda o, args, kwargs: events.append(("post", p.detach().clone())))

        def closure():
            opt.zero_grad()
            loss = (p * p).sum()
            loss.backward()
            return loss
        losses = [opt.step(closure) for _ in range(3)]
        return losses, events, p.detach()
    check(fn, **_TIGHT)


# --- SparseAdam: mstorch has no sparse gradients, and torch refuses dense ones -----------------------

def test_sparse_adam_refuses_dense_gradients_like_torch():
    def fn(T):
        p = T.nn.Parameter(T.ones(3))
        q = T.nn.Parameter(T.ones(2))
        opt = T.optim.SparseAdam([p, q], lr=0.1)
        loss = opt.step(lambda: T.tensor(1.5))   # no gradients: nothing to do
        q.grad = T.ones(2)
        try:
            opt.step()
        except RuntimeError as exc:
            return loss, str(exc), opt.state_dict(), p.detach(), q.detach()
    ref, got = check(fn)
    assert "does not support dense gradients" in ref[1]


# --- LBFGS --------------------------------------------------------------------------------------------

_RNG = np.random.RandomState(0)
_A = _RNG.standard_normal((16, 12)) * 0.3 + np.eye(16, 12) * np.linspace(0.3, 3, 12)
_B = _RNG.standard_normal(16)
LBFGS_SHAPES = [(3, 2), (4,), (2,)]


def _quartic(x):
    """A smooth, well-conditioned least-squares problem with a quartic term: value and gradient."""
    z = _A @ x - _B
    return 0.5 * np.sum(z * z) + 0.25 * np.sum(x ** 4), _A.T @ z + x ** 3


def _rosenbrock(x):
    r, s = 1 - x[:-1], x[1:] - x[:-1] ** 2
    g = np.zeros_like(x)
    g[:-1] += -2 * r - 400 * x[:-1] * s
    g[1:] += 200 * s
    return np.sum(r * r) + 100 * np.sum(s * s), g


def _lbfgs_run(T, kwargs, steps, problem, dtype=np.float32, none_grad=False):
    """LBFGS with a closure whose loss and gradient are computed in float64 NumPy from the parameters:
    both libraries get the same values for the same parameters, so differences are the optimizer's."""
    rng = np.random.RandomState(1)
    params = [T.nn.Parameter(T.tensor(rng.uniform(-1, 1, s).astype(dtype))) for s in LBFGS_SHAPES]
    extra = T.nn.Parameter(T.ones(2, dtype=getattr(T, np.dtype(dtype).name)))
    opt = T.optim.LBFGS(params + ([extra] if none_grad else []), **kwargs)
    calls = []

    def closure():
        x = np.concatenate([p.detach().numpy().ravel() for p in params]).astype(np.float64)
        f, g = problem(x)
        offset = 0
        for p in params:
            n = p.numel()
            p.grad = T.tensor(g[offset:offset + n].reshape(tuple(p.shape)).astype(dtype))
            offset += n
        calls.append(f)
        return T.tensor(np.asarray(f, dtype))
    losses = [opt.step(closure) for _ in range(steps)]
    return [p.detach() for p in params], losses, len(calls), opt.state_dict()


LBFGS_CASES = [
    dict(max_iter=4),
    dict(max_iter=4, line_search_fn="strong_wolfe"),
    dict(max_iter=4, history_size=3),
    dict(max_iter=4, history_size=3, lr=0.5, line_search_fn="strong_wolfe"),
    dict(max_iter=6, max_eval=5, line_search_fn="strong_wolfe"),
    dict(tolerance_change=1e-2),
]


@pytest.mark.parametrize("kwargs", LBFGS_CASES, ids=[f"lbfgs-{i}" for i in range(len(LBFGS_CASES))])
@pytest.mark.parametrize("problem", [_quartic, _rosenbrock], ids=["quartic", "rosenbrock"])
def test_lbfgs_float64_follows_torch(kwargs, problem):
    """Many iterations in float64: every branch (curvature test, line search, stopping rules) as torch's;
    losses returned by step, the closure's call count and the whole state (counters, t, d, history)."""
    check(lambda T: _lbfgs_run(T, kwargs, 4, problem, dtype=np.float64), rtol=1e-9, atol=1e-12)


def _check_float32_lbfgs(fn):
    """Parameters, returned losses and counts to 1e-6. The state is compared more loosely: torch's
    float32 dot products (MKL) and sqrt round differently from any other library's, and the history
    terms (``al``, gradient differences) are differences of nearby values that magnify those ulps;
    the float64 tests hold the state to 1e-9."""
    ref, got = check(lambda T: fn(T)[:-1], rtol=1e-6, atol=1e-6)
    assert not isinstance(ref, Raised), ref
    check(lambda T: fn(T)[-1], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("kwargs", LBFGS_CASES[:4], ids=[f"lbfgs-{i}" for i in range(4)])
def test_lbfgs_float32_follows_torch(kwargs, update_path):
    """float32: torch's 0-d tensor scalars (t, ro, H_diag, gtd...) keep float32 arithmetic."""
    _check_float32_lbfgs(lambda T: _lbfgs_run(T, kwargs, 2, _quartic))


def test_lbfgs_state_keys_and_types():
    def fn(T):
        out = []
        for kwargs in (dict(max_iter=1), dict(max_iter=3), dict(max_iter=3, line_search_fn="strong_wolfe")):
            params, losses, calls, sd = _lbfgs_run(T, kwargs, 1, _quartic)
            st = sd["state"][0]
            out.append((list(st), {k: type(v).__name__ for k, v in st.items()},
                        [None if v is None else tuple(v.shape) for v in st.get("al", [])], st.get("t")))
        return out
    check(fn)


def test_lbfgs_parameter_without_grad_and_zero_gradient():
    """A parameter whose grad stays None counts as zeros; a zero gradient ends the step at once."""
    _check_float32_lbfgs(lambda T: _lbfgs_run(T, dict(max_iter=3), 2, _quartic, none_grad=True))

    def fn(T):
        p = T.nn.Parameter(T.tensor([1.0, 2.0]))
        opt = T.optim.LBFGS([p])

        def closure():
            p.grad = T.zeros(2)
            return T.tensor(3.0)
        return opt.step(closure), opt.step(closure), opt.state_dict(), p.detach()
    check(fn)


def test_lbfgs_model_closure():
    """The usual closure: zero_grad, forward, backward on a tiny least-squares model."""
    def fn(T, line_search):
        rng = np.random.RandomState(0)
        model = T.nn.Linear(3, 2)
        with T.no_grad():
            model.weight.copy_(T.tensor(rng.uniform(-0.5, 0.5, (2, 3)).astype(np.float32)))
            model.bias.copy_(T.tensor(rng.uniform(-0.5, 0.5, 2).astype(np.float32)))
        x = T.tensor(rng.standard_normal((8, 3)).astype(np.float32))
        y = T.tensor(rng.standard_normal((8, 2)).astype(np.float32))
        opt = T.optim.LBFGS(model.parameters(), max_iter=3, line_search_fn=line_search)

        def closure():
            opt.zero_grad()
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
            return loss
        losses = [opt.step(closure) for _ in range(2)]
        return [p.detach() for p in model.parameters()], losses, opt.state_dict()["state"][0]["n_iter"]
    for line_search in (None, "strong_wolfe"):
        check(lambda T: fn(T, line_search), rtol=1e-5, atol=1e-5)


def test_lbfgs_load_torch_state_dict_mid_run():
    for kwargs in (dict(max_iter=3, history_size=4), dict(max_iter=3, line_search_fn="strong_wolfe")):
        rng = np.random.RandomState(1)
        init = [rng.uniform(-1, 1, s) for s in LBFGS_SHAPES]

        def make(T):
            params = [T.nn.Parameter(T.tensor(w)) for w in init]

            def closure():
                x = np.concatenate([p.detach().numpy().ravel() for p in params])
                f, g = _quartic(x)
                offset = 0
                for p in params:
                    n = p.numel()
                    p.grad = T.tensor(g[offset:offset + n].reshape(tuple(p.shape)))
                    offset += n
                return T.tensor(f)
            return params, closure
        tp, tclosure = make(torch)
        topt = torch.optim.LBFGS(tp, **kwargs)
        for _ in range(2):
            topt.step(tclosure)
        mp, mclosure = make(mstorch)
        with mstorch.no_grad():
            for p, q in zip(mp, tp):
                p.copy_(mstorch.tensor(q.detach().numpy()))
        mopt = mstorch.optim.LBFGS(mp, lr=0.3)
        mopt.load_state_dict(_to_mstorch(topt.state_dict()))
        losses = [(topt.step(tclosure), mopt.step(mclosure)) for _ in range(2)]
        assert_same([t for t, _ in losses], [m for _, m in losses], rtol=1e-9, atol=1e-12)
        assert_same([p.detach() for p in tp], [p.detach() for p in mp], rtol=1e-9, atol=1e-12)
        assert_same(topt.state_dict(), mopt.state_dict(), rtol=1e-9, atol=1e-12)


def test_lbfgs_complex_parameters():
    """torch optimizes complex parameters as (real, imaginary) pairs."""
    target = np.array([1 + 2j, -0.5 + 0.25j, 2 - 1j], dtype=np.complex64)

    def fn(T):
        p = T.nn.Parameter(T.tensor(np.array([0.1 + 0.1j, 0.2 - 0.3j, -0.4 + 0.2j], dtype=np.complex64)))
        q = T.nn.Parameter(T.tensor([0.5, -0.5]))
        opt = T.optim.LBFGS([p, q], max_iter=4, line_search_fn="strong_wolfe")

        def closure():
            z, r = p.detach().numpy().astype(np.complex128), q.detach().numpy().astype(np.float64)
            diff = z - target
            f = np.sum(np.abs(diff) ** 2 * (1 + 0.1 * np.abs(diff) ** 2)) + np.sum(r ** 4)
            p.grad = T.tensor((2 * diff * (1 + 0.2 * np.abs(diff) ** 2)).astype(np.complex64))
            q.grad = T.tensor((4 * r ** 3).astype(np.float32))
            return T.tensor(np.float32(f))
        losses = [opt.step(closure) for _ in range(2)]
        return p.detach(), q.detach(), losses, opt.state_dict()
    check(fn, rtol=1e-5, atol=1e-6)


def test_lbfgs_step_errors_and_hooks():
    def no_closure(T):
        return T.optim.LBFGS([T.nn.Parameter(T.ones(2))]).step()
    _raises_like_torch(no_closure)
    _raises_like_torch(lambda T: T.optim.LBFGS([T.nn.Parameter(T.ones(2))]).step(None))

    def bad_search(T):
        p = T.nn.Parameter(T.ones(2))
        opt = T.optim.LBFGS([p], line_search_fn="backtracking")

        def closure():
            p.grad = T.ones(2)
            return T.tensor(1.0)
        opt.step(closure)
    _raises_like_torch(bad_search)

    def hooks(T):
        p = T.nn.Parameter(T.tensor([1.0, -1.0]))
        opt = T.optim.LBFGS([p], max_iter=2)
        events = []
        opt.register_step_pre_hook(lambda o, args, kwargs: events.append(("pre", len(args), p.detach().clone())))
        opt.register_step_post_hook(lambda o, args, kwargs: events.append(("post", p.detach().clone())))

        def closure():
            opt.zero_grad()
            loss = (p * p).sum()
            loss.backward()
            return loss
        return opt.step(closure), events
    check(hooks, **_TIGHT)


def test_lbfgs_step_counts_as_in_place_write_for_autograd():
    def fn(T):
        p = T.nn.Parameter(T.tensor([1.0, 2.0]))
        opt = T.optim.LBFGS([p], max_iter=1)
        saved = (p * p).sum()   # saves p for backward

        def closure():
            p.grad = T.tensor([1.0, 1.0])
            return T.tensor(1.0)
        opt.step(closure)
        saved.backward()
    ref, got = check(fn, raises=True)
    assert isinstance(ref, Raised) and "modified by an inplace operation" in str(got.exc)
