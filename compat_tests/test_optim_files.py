"""Optimizer and scheduler state_dicts cross between the libraries through checkpoint files:
torch trains, saves a checkpoint, mstorch resumes from it (and the other way), and both continue
to the same parameters as an uninterrupted run in the library that wrote the file."""
import numpy as np
import pytest
import torch

import mstorch
from harness import assert_same

SHAPES = [(4, 3), (3,), (2, 4)]

OPTIMIZERS = [
    ("SGD", dict(lr=0.01, momentum=0.9, weight_decay=0.01)),
    ("Adam", dict(lr=0.01, amsgrad=True)),
    ("AdamW", dict(lr=0.01)),
    ("Adamax", dict(lr=0.01)),
    ("NAdam", dict(lr=0.01)),
    ("RAdam", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, momentum=0.5, centered=True)),
    ("Adagrad", dict(lr=0.1)),
    ("Adadelta", dict(lr=1.0)),
    ("ASGD", dict(lr=0.01, t0=2)),
    ("Rprop", dict(lr=0.01)),
]

SCHEDULERS = [
    ("StepLR", dict(step_size=2, gamma=0.5)),
    ("CosineAnnealingWarmRestarts", dict(T_0=3, T_mult=2)),
    ("OneCycleLR", dict(max_lr=0.05, total_steps=12)),
]


def _targets(steps):
    rng = np.random.RandomState(1)
    return [[rng.standard_normal(s).astype(np.float32) for s in SHAPES] for _ in range(steps)]


def _params(T):
    rng = np.random.RandomState(0)
    return [T.nn.Parameter(T.tensor(rng.standard_normal(s).astype(np.float32))) for s in SHAPES]


def _train(T, params, opt, sched, targets):
    for target in targets:
        opt.zero_grad()
        loss = sum(((p * p).sum() * (0.5 + 0.1 * k) + (p * T.tensor(target[k])).sum())
                   for k, p in enumerate(params))
        loss.backward()
        opt.step()
        if sched is not None:
            sched.step()


def _build(T, opt_name, opt_kwargs, sched_spec, params):
    opt = getattr(T.optim, opt_name)(params, **opt_kwargs)
    sched = None
    if sched_spec is not None:
        sched = getattr(T.optim.lr_scheduler, sched_spec[0])(opt, **sched_spec[1])
    return opt, sched


def _resume(writer, reader, opt_name, opt_kwargs, sched_spec, path):
    """`writer` trains 5 steps and saves; `reader` loads the file and trains 5 more. Returns the reader's
    parameters and the writer's own parameters after 10 uninterrupted steps."""
    targets = _targets(10)
    params = _params(writer)
    opt, sched = _build(writer, opt_name, opt_kwargs, sched_spec, params)
    _train(writer, params, opt, sched, targets[:5])
    ckpt = {"params": [p.detach() for p in params], "optim": opt.state_dict(),
            "sched": None if sched is None else sched.state_dict()}
    writer.save(ckpt, path)
    _train(writer, params, opt, sched, targets[5:])
    expected = [p.detach() for p in params]

    loaded = reader.load(path)   # weights_only=True: optimizer and scheduler state need no unsafe globals
    params2 = [reader.nn.Parameter(t.clone()) for t in loaded["params"]]
    opt2, sched2 = _build(reader, opt_name, opt_kwargs, sched_spec, params2)
    opt2.load_state_dict(loaded["optim"])
    if sched2 is not None:
        sched2.load_state_dict(loaded["sched"])
    _train(reader, params2, opt2, sched2, targets[5:])
    return [p.detach() for p in params2], expected, opt2.state_dict()


@pytest.mark.parametrize("direction", ["torch->mstorch", "mstorch->torch"])
@pytest.mark.parametrize("opt_name,opt_kwargs", OPTIMIZERS, ids=[o[0] for o in OPTIMIZERS])
def test_optimizer_state_crosses_libraries(opt_name, opt_kwargs, direction, tmp_path):
    writer, reader = (torch, mstorch) if direction == "torch->mstorch" else (mstorch, torch)
    got, expected, _ = _resume(writer, reader, opt_name, opt_kwargs, None, tmp_path / "ckpt.pt")
    assert_same([e if writer is torch else torch.tensor(e.numpy()) for e in expected],
                [g if reader is torch else torch.tensor(g.numpy()) for g in got], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("direction", ["torch->mstorch", "mstorch->torch"])
@pytest.mark.parametrize("sched_spec", SCHEDULERS, ids=[s[0] for s in SCHEDULERS])
def test_scheduler_state_crosses_libraries(sched_spec, direction, tmp_path):
    writer, reader = (torch, mstorch) if direction == "torch->mstorch" else (mstorch, torch)
    opt_kwargs = dict(lr=0.01, momentum=0.9)
    got, expected, opt_state = _resume(writer, reader, "SGD", opt_kwargs, sched_spec, tmp_path / "ckpt.pt")
    assert_same([e if writer is torch else torch.tensor(e.numpy()) for e in expected],
                [g if reader is torch else torch.tensor(g.numpy()) for g in got], rtol=1e-5, atol=1e-6)
    assert opt_state["param_groups"][0]["lr"] > 0
