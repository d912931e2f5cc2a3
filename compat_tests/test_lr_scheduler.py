"""torch.optim.lr_scheduler and torch.optim.swa_utils against torch.

Learning-rate (and momentum / betas) sequences over 100 steps must agree to 1e-12; state_dicts are
compared key by key (torch leaves callables out, and so must we); a state_dict taken mid-schedule and
loaded into a fresh scheduler must continue exactly as torch's does.
"""
import warnings

import numpy as np
import pytest
import torch

import mstorch
from harness import Raised, assert_same, check

EXACT = dict(rtol=1e-12, atol=1e-12)
STEPS = 100


def _optimizer(T, kind="sgd", lr=0.1, lr2=0.05):
    p1, p2 = T.nn.Parameter(T.ones(2)), T.nn.Parameter(T.ones(1))
    groups = [{"params": [p1]}, {"params": [p2], "lr": lr2}]
    if kind == "sgd":
        return T.optim.SGD(groups, lr=lr, momentum=0.9)
    if kind == "sgd-nomomentum":
        return T.optim.SGD(groups, lr=lr)
    return T.optim.Adam(groups, lr=lr)


def _snapshot(opt, sched):
    groups = opt.param_groups
    return (sched.get_last_lr(), [g["lr"] for g in groups], [g.get("momentum") for g in groups],
            [g.get("betas") for g in groups], getattr(sched, "last_epoch", None))


def _state(sched):
    return {k: v for k, v in sched.state_dict().items() if not callable(v)}


def _scale(x):
    return 1 / (1.0 + 0.01 * x)


# (id, optimizer kind, factory(T, opt) -> scheduler)
L = "lr_scheduler"
CASES = [
    ("lambda", "sgd", lambda T, o: T.optim.lr_scheduler.LambdaLR(o, lambda e: 0.97 ** e)),
    ("lambda-list", "sgd", lambda T, o: T.optim.lr_scheduler.LambdaLR(o, [lambda e: 1 / (e + 1), lambda e: e % 7])),
    ("multiplicative", "sgd", lambda T, o: T.optim.lr_scheduler.MultiplicativeLR(o, lambda e: 0.95)),
    ("step", "sgd", lambda T, o: T.optim.lr_scheduler.StepLR(o, step_size=7, gamma=0.5)),
    ("multistep", "sgd", lambda T, o: T.optim.lr_scheduler.MultiStepLR(o, milestones=[10, 30, 30, 70], gamma=0.3)),
    ("constant", "sgd", lambda T, o: T.optim.lr_scheduler.ConstantLR(o, factor=0.25, total_iters=13)),
    ("linear", "sgd", lambda T, o: T.optim.lr_scheduler.LinearLR(o, start_factor=0.1, end_factor=0.9, total_iters=37)),
    ("exponential", "sgd", lambda T, o: T.optim.lr_scheduler.ExponentialLR(o, gamma=0.96)),
    ("polynomial", "sgd", lambda T, o: T.optim.lr_scheduler.PolynomialLR(o, total_iters=60, power=2.5)),
    ("cosine", "sgd", lambda T, o: T.optim.lr_scheduler.CosineAnnealingLR(o, T_max=17, eta_min=0.001)),
    ("warm-restarts", "sgd", lambda T, o: T.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=5, T_mult=2,
                                                                                           eta_min=1e-4)),
    ("warm-restarts-mult1", "sgd", lambda T, o: T.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=9)),
    ("cyclic-triangular", "sgd", lambda T, o: T.optim.lr_scheduler.CyclicLR(o, 0.01, [0.1, 0.2], step_size_up=7,
                                                                            step_size_down=4)),
    ("cyclic-triangular2", "sgd", lambda T, o: T.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1, step_size_up=6,
                                                                             mode="triangular2")),
    ("cyclic-exp-range", "sgd", lambda T, o: T.optim.lr_scheduler.CyclicLR(o, [0.01, 0.02], 0.1, step_size_up=5,
                                                                           mode="exp_range", gamma=0.97,
                                                                           base_momentum=[0.7, 0.75])),
    ("cyclic-scale-fn", "sgd", lambda T, o: T.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1, step_size_up=8,
                                                                          scale_fn=_scale, scale_mode="iterations")),
    ("cyclic-adam-betas", "adam", lambda T, o: T.optim.lr_scheduler.CyclicLR(o, 0.001, 0.01, step_size_up=9)),
    ("cyclic-no-momentum", "sgd-nomomentum", lambda T, o: T.optim.lr_scheduler.CyclicLR(
        o, 0.001, 0.01, step_size_up=9, cycle_momentum=False)),
    ("onecycle-cos", "sgd", lambda T, o: T.optim.lr_scheduler.OneCycleLR(o, max_lr=[0.1, 0.3], total_steps=STEPS)),
    ("onecycle-linear", "sgd", lambda T, o: T.optim.lr_scheduler.OneCycleLR(o, 0.2, epochs=10, steps_per_epoch=10,
                                                                            anneal_strategy="linear", pct_start=0.25)),
    ("onecycle-three-phase", "adam", lambda T, o: T.optim.lr_scheduler.OneCycleLR(o, 0.1, total_steps=STEPS + 3,
                                                                                  three_phase=True,
                                                                                  div_factor=10.0)),
    ("onecycle-no-momentum", "sgd", lambda T, o: T.optim.lr_scheduler.OneCycleLR(o, 0.1, total_steps=STEPS,
                                                                                 cycle_momentum=False)),
    ("swalr-cos", "sgd", lambda T, o: T.optim.swa_utils.SWALR(o, swa_lr=0.02, anneal_epochs=15)),
    ("swalr-linear", "sgd", lambda T, o: T.optim.swa_utils.SWALR(o, swa_lr=[0.02, 0.5], anneal_epochs=7,
                                                                  anneal_strategy="linear")),
    ("swalr-no-anneal", "sgd", lambda T, o: T.optim.swa_utils.SWALR(o, swa_lr=0.03, anneal_epochs=0)),
]


def _run(T, kind, make, steps=STEPS):
    opt = _optimizer(T, kind)
    sched = make(T, opt)
    seq = [_snapshot(opt, sched)]
    for _ in range(steps):
        opt.step()
        sched.step()
        seq.append(_snapshot(opt, sched))
    return seq, _state(sched), [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups]


@pytest.mark.parametrize("name,kind,make", CASES, ids=[c[0] for c in CASES])
def test_schedule_matches_torch(name, kind, make):
    check(lambda T: _run(T, kind, make), **EXACT)


@pytest.mark.parametrize("name,kind,make", CASES, ids=[c[0] for c in CASES])
def test_state_dict_round_trip_mid_schedule(name, kind, make):
    def fn(T):
        opt = _optimizer(T, kind)
        sched = make(T, opt)
        for _ in range(41):
            opt.step()
            sched.step()
        sd, opt_sd = sched.state_dict(), opt.state_dict()
        opt2 = _optimizer(T, kind, lr=0.7, lr2=0.3)
        sched2 = make(T, opt2)
        opt2.load_state_dict(opt_sd)
        sched2.load_state_dict(sd)
        seq = [_snapshot(opt2, sched2)]
        for _ in range(STEPS - 41):
            opt2.step()
            sched2.step()
            seq.append(_snapshot(opt2, sched2))
        return {k: v for k, v in sd.items() if not callable(v)}, seq, _state(sched2)
    check(fn, **EXACT)


def test_onecycle_past_total_steps_raises():
    def fn(T):
        opt = _optimizer(T)
        sched = T.optim.lr_scheduler.OneCycleLR(opt, 0.1, total_steps=5)
        for _ in range(6):
            opt.step()
            sched.step()
    ref, got = check(fn, raises=True)
    assert isinstance(ref, Raised) and str(got.exc) == str(ref.exc)


def test_tensor_learning_rate():
    def fn(T):
        opt = T.optim.SGD([T.nn.Parameter(T.ones(2))], lr=T.tensor(0.1))
        sched = T.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
        seq = []
        for _ in range(10):
            opt.step()
            sched.step()
            seq.append((sched.get_last_lr(), opt.param_groups[0]["lr"].clone()))
        # get_last_lr hands out copies, never the group's own tensor
        return seq, sched.get_last_lr()[0] is opt.param_groups[0]["lr"], sched.base_lrs
    check(fn)


class _Decay:
    """A callable object: torch keeps its __dict__ in state_dict (plain functions become None)."""

    def __init__(self, rate):
        self.rate = rate

    def __call__(self, x):
        return self.rate ** x


def test_callable_objects_keep_their_state():
    def fn(T):
        s = T.optim.lr_scheduler
        opt = _optimizer(T)
        lam = s.LambdaLR(opt, [_Decay(0.9), lambda e: 1.0])
        opt_c = _optimizer(T)
        cyc = s.CyclicLR(opt_c, 0.01, 0.1, step_size_up=3, scale_fn=_Decay(0.8))
        for _ in range(5):
            opt.step()
            opt_c.step()
            lam.step()
            cyc.step()
        sd_lam, sd_cyc = lam.state_dict(), cyc.state_dict()
        sd_lam["lr_lambdas"][0]["rate"] = 0.5
        sd_cyc["_scale_fn_custom"]["rate"] = 0.6
        lam2 = s.LambdaLR(_optimizer(T), [_Decay(0.1), lambda e: 2.0])
        lam2.load_state_dict(sd_lam)
        cyc2 = s.CyclicLR(_optimizer(T), 0.01, 0.1, step_size_up=3, scale_fn=_Decay(0.1))
        cyc2.load_state_dict(sd_cyc)
        for _ in range(3):
            lam2.optimizer.step()
            cyc2.optimizer.step()
            lam2.step()
            cyc2.step()
        return (sd_lam, sd_cyc, lam2.lr_lambdas[0].rate, cyc2._scale_fn_custom.rate, lam2.get_last_lr(),
                cyc2.get_last_lr(), "lr_lambdas" in sd_lam, sorted(sd_cyc))
    check(fn, **EXACT)


RESUME = [
    ("step", lambda T, o, e: T.optim.lr_scheduler.StepLR(o, 3, gamma=0.5, last_epoch=e)),
    ("exponential", lambda T, o, e: T.optim.lr_scheduler.ExponentialLR(o, 0.9, last_epoch=e)),
    ("cosine", lambda T, o, e: T.optim.lr_scheduler.CosineAnnealingLR(o, T_max=10, last_epoch=e)),
    ("linear", lambda T, o, e: T.optim.lr_scheduler.LinearLR(o, start_factor=0.5, total_iters=12, last_epoch=e)),
    ("onecycle", lambda T, o, e: T.optim.lr_scheduler.OneCycleLR(o, 0.1, total_steps=30, last_epoch=e)),
    ("cyclic", lambda T, o, e: T.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1, step_size_up=4, last_epoch=e)),
    ("warm-restarts", lambda T, o, e: T.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=4, last_epoch=e)),
]


@pytest.mark.parametrize("name,make", RESUME, ids=[c[0] for c in RESUME])
def test_resume_with_last_epoch(name, make):
    """A checkpointed run: the optimizer's param_groups (with initial_lr) are restored and the scheduler
    is rebuilt with last_epoch instead of loading its state_dict."""
    def fn(T):
        opt = _optimizer(T)
        sched = make(T, opt, -1)
        for _ in range(6):
            opt.step()
            sched.step()
        opt2 = _optimizer(T)
        opt2.load_state_dict(opt.state_dict())
        sched2 = make(T, opt2, sched.last_epoch)
        seq = [_snapshot(opt2, sched2)]
        for _ in range(8):
            opt2.step()
            sched2.step()
            seq.append(_snapshot(opt2, sched2))
        return seq, _state(sched2)
    check(fn, **EXACT)


# --- chaining: several schedulers on one optimizer -------------------------------------------------

def _chained(T, o):
    s = T.optim.lr_scheduler
    return s.ChainedScheduler([s.ConstantLR(o, factor=0.5, total_iters=4), s.ExponentialLR(o, gamma=0.9),
                               s.MultiStepLR(o, milestones=[20, 50])])


def _sequential(T, o):
    s = T.optim.lr_scheduler
    return s.SequentialLR(o, [s.LinearLR(o, start_factor=0.2, total_iters=10), s.CosineAnnealingLR(o, T_max=30),
                              s.ExponentialLR(o, gamma=0.95)], milestones=[10, 60])


def _sequential_in_chained(T, o):
    s = T.optim.lr_scheduler
    seq = s.SequentialLR(o, [s.ConstantLR(o, factor=0.1, total_iters=3), s.StepLR(o, 9, gamma=0.7)], milestones=[5])
    return s.ChainedScheduler([seq, s.MultiplicativeLR(o, lambda e: 0.99)], optimizer=o)


COMPOSITE = [("chained", _chained), ("sequential", _sequential), ("sequential-in-chained", _sequential_in_chained)]


@pytest.mark.parametrize("name,make", COMPOSITE, ids=[c[0] for c in COMPOSITE])
def test_composite_schedulers(name, make):
    def fn(T):
        seq, state, groups = _run(T, "sgd", make)
        opt = _optimizer(T)
        sched = make(T, opt)
        for _ in range(23):
            opt.step()
            sched.step()
        sd, opt_sd = sched.state_dict(), opt.state_dict()
        opt2 = _optimizer(T)
        sched2 = make(T, opt2)
        opt2.load_state_dict(opt_sd)
        sched2.load_state_dict(sd)
        tail = []
        for _ in range(30):
            opt2.step()
            sched2.step()
            tail.append(sched2.get_last_lr())
        return seq, state, groups, tail
    check(fn, **EXACT)


def test_two_schedulers_stepped_side_by_side():
    def fn(T):
        opt = _optimizer(T)
        a = T.optim.lr_scheduler.StepLR(opt, step_size=4, gamma=0.5)
        b = T.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=11)
        seq = []
        for _ in range(40):
            opt.step()
            a.step()
            b.step()
            seq.append((a.get_last_lr(), b.get_last_lr(), opt.param_groups[0]["lr"]))
        return seq, _state(a), _state(b)
    check(fn, **EXACT)


# --- the deprecated epoch argument (closed forms) and fractional warm-restart epochs -------------------

EPOCH_CASES = [
    ("step", lambda T, o: T.optim.lr_scheduler.StepLR(o, step_size=3, gamma=0.5)),
    ("multistep", lambda T, o: T.optim.lr_scheduler.MultiStepLR(o, milestones=[2, 5, 5], gamma=0.5)),
    ("constant", lambda T, o: T.optim.lr_scheduler.ConstantLR(o, factor=0.5, total_iters=4)),
    ("linear", lambda T, o: T.optim.lr_scheduler.LinearLR(o, start_factor=0.5, total_iters=6)),
    ("exponential", lambda T, o: T.optim.lr_scheduler.ExponentialLR(o, gamma=0.8)),
    ("polynomial", lambda T, o: T.optim.lr_scheduler.PolynomialLR(o, total_iters=8, power=2.0)),
    ("cosine", lambda T, o: T.optim.lr_scheduler.CosineAnnealingLR(o, T_max=6)),
    ("lambda-no-closed-form", lambda T, o: T.optim.lr_scheduler.LambdaLR(o, lambda e: 1 / (1 + e))),
]


@pytest.mark.parametrize("name,make", EPOCH_CASES, ids=[c[0] for c in EPOCH_CASES])
def test_step_with_epoch_uses_closed_form(name, make):
    def fn(T):
        opt = _optimizer(T)
        sched = make(T, opt)
        seq = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for epoch in [1, 2, 3, 7, 4, 10, 0, 12]:
                opt.step()
                sched.step(epoch)
                seq.append(_snapshot(opt, sched))
        return seq
    check(fn, **EXACT)


@pytest.mark.parametrize("t_mult", [1, 2, 3])
def test_warm_restarts_fractional_epochs(t_mult):
    def fn(T):
        opt = _optimizer(T)
        sched = T.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=4, T_mult=t_mult, eta_min=0.001)
        seq = []
        for i in range(12):
            for j in range(5):
                opt.step()
                sched.step(i + j / 5)
                seq.append((sched.get_last_lr(), sched.T_cur, sched.T_i, sched.last_epoch))
        sched.step()
        seq.append((sched.get_last_lr(), sched.T_cur, sched.T_i, sched.last_epoch))
        return seq, _state(sched)
    check(fn, **EXACT)


def test_warm_restarts_negative_epoch_raises():
    def fn(T):
        sched = T.optim.lr_scheduler.CosineAnnealingWarmRestarts(_optimizer(T), T_0=4)
        sched.step(-1)
    ref, got = check(fn, raises=True)
    assert isinstance(ref, Raised) and str(got.exc) == str(ref.exc)


# --- warnings --------------------------------------------------------------------------------------

def _warnings_of(body):
    def fn(T):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            body(T)
        return [(x.category.__name__, str(x.message)) for x in w]
    ref, got = check(fn)
    assert ref, "torch gave no warning: the test checks nothing"


def test_warns_when_scheduler_steps_before_optimizer():
    def body(T):
        opt = _optimizer(T)
        sched = T.optim.lr_scheduler.StepLR(opt, 2)
        sched.step()
        sched.step()
    _warnings_of(body)


def test_warns_when_optimizer_step_is_replaced():
    def body(T):
        opt = _optimizer(T)
        sched = T.optim.lr_scheduler.ExponentialLR(opt, 0.5)
        opt.step = lambda closure=None: None
        opt.step()
        sched.step()
    _warnings_of(body)


def test_no_warning_in_the_right_order():
    def fn(T):
        opt = _optimizer(T)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            a = T.optim.lr_scheduler.StepLR(opt, 2)
            b = T.optim.lr_scheduler.ExponentialLR(opt, 0.5)
            for _ in range(3):
                opt.step()
                a.step()
                b.step()
        return [str(x.message) for x in w], hasattr(opt.step, "_wrapped_by_lr_sched")
    check(fn)


def test_warns_on_epoch_argument_and_get_lr_outside_step():
    def body(T):
        opt = _optimizer(T)
        sched = T.optim.lr_scheduler.StepLR(opt, 2)
        opt.step()
        sched.step(3)
        sched.get_lr()
        swa = T.optim.swa_utils.SWALR(opt, 0.01)
        swa.get_lr()
        plateau = T.optim.lr_scheduler.ReduceLROnPlateau(opt)
        plateau.step(1.0, epoch=4)
    _warnings_of(body)


# --- ReduceLROnPlateau ------------------------------------------------------------------------------

METRICS = [1.0, 0.9, 0.95, 0.95, 0.91, 0.9, 0.9, 0.92, 0.899, 0.9, 0.9, 0.9, 0.9, 0.9, 0.85, 0.86, 0.87, 0.88,
           0.89, 0.9, 0.84, 0.84, 0.84, 0.84, 0.84, 0.84, 0.84, 0.84, 0.84, 0.84] * 3

PLATEAU = [
    dict(),
    dict(patience=2),
    dict(mode="max", patience=1, factor=0.5),
    dict(threshold_mode="abs", threshold=0.02, patience=1, cooldown=3),
    dict(mode="max", threshold_mode="abs", threshold=0.001, patience=0, factor=0.3),
    dict(patience=0, factor=0.2, min_lr=[0.004, 0.01]),
    dict(patience=0, factor=0.999, eps=1e-4),
    dict(patience=1, min_lr=0.02, cooldown=1),
]


@pytest.mark.parametrize("kwargs", PLATEAU, ids=[str(i) for i in range(len(PLATEAU))])
def test_reduce_lr_on_plateau(kwargs):
    def fn(T):
        opt = _optimizer(T)
        sched = T.optim.lr_scheduler.ReduceLROnPlateau(opt, **kwargs)
        seq = []
        for i, m in enumerate(METRICS):
            opt.step()
            sched.step(T.tensor(m) if i % 3 == 0 else m)   # a 0-dim tensor metric works like a float
            seq.append((sched.get_last_lr(), sched.best, sched.num_bad_epochs, sched.cooldown_counter,
                        sched.in_cooldown, sched.last_epoch))
            if i == 40:
                sd = sched.state_dict()
                fresh = T.optim.lr_scheduler.ReduceLROnPlateau(opt)
                fresh.load_state_dict(sd)
                sched = fresh
        return seq, _state(sched)
    check(fn, **EXACT)


def test_plateau_new_param_group_without_default_min_lr_raises():
    def fn(T):
        opt = _optimizer(T)
        sched = T.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0, min_lr=[0.0, 0.0])
        opt.add_param_group({"params": [T.nn.Parameter(T.ones(1))]})
        sched.step(1.0)
        sched.step(2.0)
    ref, got = check(fn, raises=True)
    assert isinstance(ref, Raised) and str(got.exc) == str(ref.exc)


# --- constructor errors -------------------------------------------------------------------------------

def _sch(T):
    return T.optim.lr_scheduler


ERRORS = [
    lambda T: _sch(T).StepLR("not an optimizer", 2),
    lambda T: _sch(T).LambdaLR(_optimizer(T), [lambda e: 1.0]),
    lambda T: _sch(T).MultiplicativeLR(_optimizer(T), [lambda e: 1.0, 3]),
    lambda T: _sch(T).ConstantLR(_optimizer(T), factor=1.5),
    lambda T: _sch(T).LinearLR(_optimizer(T), start_factor=0),
    lambda T: _sch(T).LinearLR(_optimizer(T), end_factor=1.5),
    lambda T: _sch(T).StepLR(_optimizer(T), 2, last_epoch=3),
    lambda T: _sch(T).StepLR(_optimizer(T), 2, verbose=True),   # torch 2.13 dropped `verbose`
    lambda T: _sch(T).SequentialLR(_optimizer(T), [], milestones=[]),
    lambda T: _sch(T).SequentialLR(_optimizer(T), [object()], milestones=[]),
    lambda T: (lambda o: _sch(T).SequentialLR(o, [_sch(T).ReduceLROnPlateau(o)], milestones=[]))(_optimizer(T)),
    lambda T: (lambda o: _sch(T).SequentialLR(o, [_sch(T).StepLR(o, 2)], milestones=[3]))(_optimizer(T)),
    lambda T: _sch(T).ChainedScheduler([]),
    lambda T: (lambda o: _sch(T).ChainedScheduler([_sch(T).StepLR(o, 2), _sch(T).ReduceLROnPlateau(o)]))(_optimizer(T)),
    lambda T: _sch(T).ReduceLROnPlateau(_optimizer(T), factor=1.0),
    lambda T: _sch(T).ReduceLROnPlateau(_optimizer(T), mode="median"),
    lambda T: _sch(T).ReduceLROnPlateau(_optimizer(T), threshold_mode="relative"),
    lambda T: _sch(T).ReduceLROnPlateau(_optimizer(T), min_lr=[0.1]),
    lambda T: _sch(T).ReduceLROnPlateau([1, 2]),
    lambda T: _sch(T).CyclicLR(_optimizer(T), [0.01], 0.1),
    lambda T: _sch(T).CyclicLR(_optimizer(T), 0.01, 0.1, mode="sawtooth"),
    lambda T: _sch(T).CyclicLR(_optimizer(T, "sgd-nomomentum"), 0.01, 0.1, base_momentum=[0.1, 0.2, 0.3]),
    lambda T: _sch(T).CyclicLR(T.optim.Optimizer([T.nn.Parameter(T.ones(1))], {"lr": 0.1}), 0.01, 0.1),
    lambda T: _sch(T).CosineAnnealingWarmRestarts(_optimizer(T), T_0=0),
    lambda T: _sch(T).CosineAnnealingWarmRestarts(_optimizer(T), T_0=2.0),
    lambda T: _sch(T).CosineAnnealingWarmRestarts(_optimizer(T), T_0=2, T_mult=0),
    lambda T: _sch(T).CosineAnnealingWarmRestarts(_optimizer(T), T_0=2, eta_min="0"),
    lambda T: _sch(T).OneCycleLR(_optimizer(T), 0.1),
    lambda T: _sch(T).OneCycleLR(_optimizer(T), 0.1, total_steps=0),
    lambda T: _sch(T).OneCycleLR(_optimizer(T), 0.1, epochs=-1, steps_per_epoch=3),
    lambda T: _sch(T).OneCycleLR(_optimizer(T), 0.1, epochs=2, steps_per_epoch=2.5),
    lambda T: _sch(T).OneCycleLR(_optimizer(T), 0.1, total_steps=10, pct_start=1),
    lambda T: _sch(T).OneCycleLR(_optimizer(T), 0.1, total_steps=10, anneal_strategy="cosine"),
    lambda T: _sch(T).OneCycleLR(_optimizer(T), [0.1, 0.2, 0.3], total_steps=10),
    lambda T: _sch(T).OneCycleLR(T.optim.Optimizer([T.nn.Parameter(T.ones(1))], {"lr": 0.1}), 0.1, total_steps=10),
    lambda T: T.optim.swa_utils.SWALR(_optimizer(T), 0.1, anneal_strategy="exp"),
    lambda T: T.optim.swa_utils.SWALR(_optimizer(T), 0.1, anneal_epochs=-1),
    lambda T: T.optim.swa_utils.SWALR(_optimizer(T), [0.1]),
    lambda T: T.optim.swa_utils.get_ema_multi_avg_fn(1.5),
    lambda T: T.optim.swa_utils.get_ema_avg_fn(-0.1),
    lambda T: T.optim.swa_utils.AveragedModel(T.nn.Linear(2, 2), avg_fn=lambda a, b, n: a,
                                              multi_avg_fn=lambda a, b, n: None),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_constructor_errors_match_torch(i):
    ref, got = check(ERRORS[i], raises=True)
    assert isinstance(ref, Raised), f"torch did not raise: {ref!r}"
    assert type(got.exc) is type(ref.exc) and str(got.exc) == str(ref.exc)


def test_public_names_match_torch():
    assert sorted(mstorch.optim.lr_scheduler.__all__) == sorted(torch.optim.lr_scheduler.__all__)
    assert sorted(mstorch.optim.swa_utils.__all__) == sorted(torch.optim.swa_utils.__all__)
    assert mstorch.optim.lr_scheduler._LRScheduler.__name__ == torch.optim.lr_scheduler._LRScheduler.__name__
    assert issubclass(mstorch.optim.lr_scheduler._LRScheduler, mstorch.optim.lr_scheduler.LRScheduler)
    for name in torch.optim.lr_scheduler.__all__:
        ours, theirs = getattr(mstorch.optim.lr_scheduler, name), getattr(torch.optim.lr_scheduler, name)
        assert repr(ours).replace("mstorch", "torch") == repr(theirs)
        public = {a for a in dir(theirs) if not a.startswith("_")}
        assert {a for a in dir(ours) if not a.startswith("_")} == public, name   # no print_lr in 2.13


def test_torch_alias_imports_the_submodules():
    import subprocess
    import sys
    code = ("from mstorch._compat import alias; alias.install()\n"
            "from torch.optim.lr_scheduler import StepLR, _LRScheduler\n"
            "from torch.optim.swa_utils import AveragedModel, SWALR\n"
            "import torch, torch.optim.lr_scheduler as L, mstorch\n"
            "print(L is mstorch.optim.lr_scheduler, StepLR is mstorch.optim.lr_scheduler.StepLR,\n"
            "      AveragedModel is mstorch.optim.swa_utils.AveragedModel, torch.optim.swa_utils.SWALR is SWALR)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[-2] == "True True True True"


# --- swa_utils ------------------------------------------------------------------------------------------

def _model(T, seed=0):
    rng = np.random.RandomState(seed)
    m = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.BatchNorm1d(4), T.nn.ReLU(), T.nn.Linear(4, 2))
    sd = {k: T.tensor(rng.standard_normal(tuple(v.shape)).astype(np.float32)) if v.dtype == T.float32 else v
          for k, v in m.state_dict().items()}
    sd["1.running_var"] = sd["1.running_var"].abs() + 0.5
    m.load_state_dict(sd)
    return m


def _perturb(T, model, k):
    rng = np.random.RandomState(100 + k)
    with T.no_grad():
        for p in model.parameters():
            p.add_(T.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32)))
    model.train()
    model(T.tensor(rng.standard_normal((5, 3)).astype(np.float32)))   # moves the BatchNorm buffers


def _swa(T, **kw):
    u = T.optim.swa_utils
    return {"default": {}, "ema": dict(avg_fn=u.get_ema_avg_fn(0.9)), "swa-fn": dict(avg_fn=u.get_swa_avg_fn()),
            "ema-multi": dict(multi_avg_fn=u.get_ema_multi_avg_fn(0.8)),
            "swa-multi": dict(multi_avg_fn=u.get_swa_multi_avg_fn()),
            "custom": dict(avg_fn=lambda avg, cur, n: avg * 0.5 + cur * 0.5 + n * 0.0)}


SWA_CASES = [(name, ub) for name in ["default", "ema", "swa-fn", "ema-multi", "swa-multi", "custom"]
             for ub in (False, True)]


@pytest.mark.parametrize("name,use_buffers", SWA_CASES, ids=[f"{n}-buffers{int(b)}" for n, b in SWA_CASES])
def test_averaged_model(name, use_buffers):
    def fn(T):
        model = _model(T)
        avg = T.optim.swa_utils.AveragedModel(model, use_buffers=use_buffers, **_swa(T)[name])
        for k in range(4):
            _perturb(T, model, k)
            avg.update_parameters(model)
        avg.eval()
        out = avg(T.tensor(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)))
        sd = avg.state_dict()
        weights = {k: v for k, v in sd.items() if "running" not in k}
        stats = {k: v for k, v in sd.items() if "running" in k}
        return weights, (stats, out, [n for n, _ in avg.named_buffers()], avg.n_averaged)
    # torch's swa multi_avg_fn with buffers divides BatchNorm's integer num_batches_tracked with addcdiv
    raises = (name, use_buffers) == ("swa-multi", True)
    ref, got = check(fn, rtol=1e-6, atol=1e-7, raises=raises)
    if "multi" not in name and not raises:
        # the per-tensor averaging formulas are bit-exact; the multi_avg_fns go through lerp_, which
        # torch's CPU kernel evaluates with a fused multiply-add (1 ulp apart), and BatchNorm's
        # running statistics come from two different batch_norm kernels
        assert_same(ref[0], got[0], rtol=0, atol=0)


def test_update_bn():
    def fn(T):
        model = _model(T)
        model.eval()
        rng = np.random.RandomState(7)
        xs = [T.tensor(rng.standard_normal((4, 3)).astype(np.float32)) for _ in range(3)]
        loader = [xs[0], (xs[1], T.zeros(4)), [xs[2], T.ones(4)]]   # (input, target) batches use input only
        T.optim.swa_utils.update_bn(loader, model)
        bn = model[1]
        no_bn = T.nn.Linear(2, 2)
        T.optim.swa_utils.update_bn(loader, no_bn)   # no BatchNorm: nothing happens
        return dict(model.state_dict()), model.training, bn.momentum
    check(fn, rtol=1e-6, atol=1e-7)


def test_swa_training_loop():
    """The documented SWA recipe: cosine schedule, then SWALR, averaging and update_bn."""
    def fn(T):
        model = _model(T, seed=3)
        opt = T.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        swa_model = T.optim.swa_utils.AveragedModel(model)
        sched = T.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)
        swa_sched = T.optim.swa_utils.SWALR(opt, swa_lr=0.01, anneal_epochs=2)
        rng = np.random.RandomState(11)
        data = [T.tensor(rng.standard_normal((4, 3)).astype(np.float32)) for _ in range(3)]
        lrs = []
        for epoch in range(7):
            for x in data:
                opt.zero_grad()
                (model(x) ** 2).mean().backward()
                opt.step()
            if epoch >= 3:
                swa_model.update_parameters(model)
                swa_sched.step()
            else:
                sched.step()
            lrs.append(opt.param_groups[0]["lr"])
        T.optim.swa_utils.update_bn(data, swa_model)
        return lrs, dict(swa_model.state_dict())
    check(fn, rtol=1e-5, atol=1e-6)


def test_multi_avg_fns_on_tensor_lists():
    def fn(T):
        u = T.optim.swa_utils
        a = [T.tensor([1.0, 2.0, 3.0]), T.tensor([[0.5], [-1.0]])]
        b = [T.tensor([4.0, -2.0, 0.0]), T.tensor([[1.5], [1.0]])]
        u.get_ema_multi_avg_fn(0.75)(a, b, None)
        u.get_swa_multi_avg_fn()(a, b, T.tensor(2))
        u.get_swa_multi_avg_fn()(a, b, 3)
        ints = [T.tensor([10, 20])]
        u.get_ema_multi_avg_fn(0.5)(ints, [T.tensor([3, 4])], None)
        return a, ints
    check(fn, rtol=1e-6, atol=1e-7)
