"""Every layer in compat_tests/module_db, built in torch and mstorch: state_dict keys and shapes, repr,
forward output and gradients (after loading torch's weights into mstorch), initial parameter
statistics, and constructor errors."""
import numpy as np
import pytest
import torch

import mstorch
from harness import assert_same, to_np, Raised, run
from module_db import ALL
from module_db.common import BadArgs


def _cases():
    for info in ALL:
        for i, cfg in enumerate(info.configs):
            yield pytest.param(info, cfg, id=f"{info.name}-{i}")


def _build(T, info, cfg):
    args = [a(T) if callable(a) and not isinstance(a, type) else a for a in cfg.args]
    kwargs = {k: (v(T) if callable(v) and not isinstance(v, type) else v) for k, v in cfg.kwargs.items()}
    return getattr(T.nn, info.name)(*args, **kwargs)


def _inputs(T, cfg):
    out = []
    for a in cfg.inputs:
        if isinstance(a, np.ndarray):
            out.append(T.tensor(a, requires_grad=a.dtype.kind == "f"))
        elif callable(a):
            out.append(a(T))
        else:
            out.append(a)
    return out


def _load_torch_weights(tm, mm):
    sd = {k: mstorch.tensor(to_np(v)).to(getattr(mstorch, str(v.dtype).split(".")[1]))
          for k, v in tm.state_dict().items()}
    mm.load_state_dict(sd)


@pytest.mark.parametrize("info,cfg", list(_cases()))
def test_layer(info, cfg):
    if info.skip:
        pytest.skip(info.skip)
    if isinstance(cfg, BadArgs):
        ref = run(lambda T: _build(T, info, cfg), torch)
        got = run(lambda T: _build(T, info, cfg), mstorch)
        assert isinstance(ref, Raised), "torch accepted the bad arguments"
        assert_same(ref, got)
        assert str(got.exc) == str(ref.exc), f"message: torch {ref.exc!r} vs mstorch {got.exc!r}"
        return
    torch.manual_seed(0)
    tm = _build(torch, info, cfg)
    mm = _build(mstorch, info, cfg)
    assert repr(mm) == repr(tm)
    tsd, msd = tm.state_dict(), mm.state_dict()
    assert list(msd) == list(tsd)
    for k in tsd:
        assert tuple(msd[k].shape) == tuple(tsd[k].shape), k
        assert repr(msd[k].dtype) == repr(tsd[k].dtype), k
    assert [n for n, _ in mm.named_parameters()] == [n for n, _ in tm.named_parameters()]
    _load_torch_weights(tm, mm)
    if not cfg.train:
        tm.eval()
        mm.eval()
    if info.random:
        return
    results = []
    for T, m in ((torch, tm), (mstorch, mm)):
        xs = _inputs(T, cfg)
        out = m(*xs, **cfg.forward_kwargs)
        outs = out if isinstance(out, tuple) else (out,)
        flat = []
        for o in outs:
            flat.extend(o if isinstance(o, tuple) else (o,))
        grads = None
        if info.grad:
            rng = np.random.RandomState(0)
            loss = None
            for o in flat:
                if hasattr(o, "requires_grad") and o.requires_grad:
                    w = T.tensor(rng.standard_normal(tuple(o.shape)).astype(np.float32)).to(o.dtype)
                    term = (o * w).sum()
                    loss = term if loss is None else loss + term
            if loss is not None:
                loss.backward()
                grads = ([x.grad for x in xs if hasattr(x, "requires_grad") and x.requires_grad],
                         [p.grad for _, p in m.named_parameters()])
        results.append((flat, grads, m.state_dict()))
    assert_same(results[0], results[1], rtol=info.rtol, atol=info.atol)


def _stats_cases():
    seen = set()
    for info in ALL:
        for cfg in info.configs:
            if not isinstance(cfg, BadArgs) and info.init_stats and info.name not in seen:
                seen.add(info.name)
                yield pytest.param(info, cfg, id=info.name)


@pytest.mark.parametrize("info,cfg", list(_stats_cases()))
def test_initial_parameters_match_seeded_torch(info, cfg):
    """With the same seed, fresh parameters equal torch's: mstorch reproduces torch's CPU generator
    (bit-exact for uniform-based inits, within 2 ulp for normal-based ones)."""
    torch.manual_seed(1234)
    tm = _build(torch, info, cfg)
    mstorch.manual_seed(1234)
    mm = _build(mstorch, info, cfg)
    for (name, tp), (_, mp) in zip(tm.named_parameters(), mm.named_parameters()):
        a, b = to_np(tp), to_np(mp)
        np.testing.assert_allclose(b, a, rtol=3e-7, atol=1e-7, err_msg=name)
