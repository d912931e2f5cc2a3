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
    ref, got = check(fn)
    assert isinstance(ref, Raised) and str(got.exc) == str(ref.exc)


def test_parameter_in_two_groups_raises_like_torch():
    def fn(T):
        p = T.nn.Parameter(T.ones(2))
        return T.optim.Adam([{"params": [p]}, {"params": [p]}])
    ref, got = check(fn)
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
