"""Helpers of test_module.py / test_module_calls.py: run one case on torch and mstorch and compare a
normal form of the result. Tensors compare by kind (Parameter or Tensor), shape, dtype, requires_grad and
values; modules by class name; exceptions by type and exact message. The only rewrite is ``mstorch.`` ->
``torch.`` in messages and reprs, since mstorch's classes live at the same paths under its own package
name (torch names the class ``torch.nn.modules.container.Sequential``, mstorch
``mstorch.nn.modules.container.Sequential``).
"""
import types

import numpy as np
import torch

import mstorch
from harness import to_np

LIBS = (torch, mstorch)


def _text(s):
    return s.replace("mstorch.", "torch.")


def _norm(x):
    if isinstance(x, BaseException):
        return ("raised", type(x).__name__, _text(str(x)))
    if isinstance(x, (torch.Tensor, mstorch.Tensor)):
        kind = "Parameter" if isinstance(x, (torch.nn.Parameter, mstorch.nn.Parameter)) else "Tensor"
        return (kind, tuple(x.shape), repr(x.dtype), bool(x.requires_grad), np.round(to_np(x), 5).tolist())
    if isinstance(x, (torch.nn.Module, mstorch.nn.Module)):
        return ("Module", type(x).__name__)
    if isinstance(x, (torch.dtype, mstorch.dtype, torch.device, mstorch.device)):
        return repr(x)
    if isinstance(x, dict):
        return (type(x).__name__, [(k, _norm(v)) for k, v in x.items()])
    if isinstance(x, (set, frozenset)):
        return ("set", sorted(x))
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [_norm(v) for v in x])
    if isinstance(x, types.GeneratorType):
        return ("generator", [_norm(v) for v in x])
    if isinstance(x, str):
        return _text(x)
    if isinstance(x, float):
        return round(x, 5)
    return x


def _run(case, T):
    try:
        return _norm(case(T))
    except Exception as exc:  # noqa: BLE001 - the exception is the result
        return _norm(exc)


def _first_diff(ref, got, path="result"):
    if type(ref) is type(got) and isinstance(ref, (list, tuple)) and len(ref) == len(got):
        for i, (r, g) in enumerate(zip(ref, got)):
            if r != g:
                return _first_diff(r, g, f"{path}[{i}]")
    return f"{path}:\n  torch:   {ref!r}\n  mstorch: {got!r}"


def same(case):
    ref = _run(case, torch)
    got = _run(case, mstorch)
    assert got == ref, _first_diff(ref, got)
    return ref


def raises(case):
    ref = same(case)
    assert isinstance(ref, tuple) and ref[0] == "raised", f"torch did not raise: {ref}"


def fill(T, m):
    """Deterministic parameter values, independent of either random generator."""
    with T.no_grad():
        for i, p in enumerate(m.parameters()):
            v = np.linspace(-1.0, 1.0, p.numel(), dtype=np.float32).reshape(tuple(p.shape)) * (i + 1) / 3
            p.copy_(T.tensor(v))
    return m


def x_in(T, *shape, requires_grad=False):
    v = np.linspace(-2.0, 2.0, int(np.prod(shape)), dtype=np.float32).reshape(shape)
    return T.tensor(v, requires_grad=requires_grad)


def make_net(T):
    class Net(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = T.nn.Linear(3, 4)
            self.act = T.nn.ReLU()
            self.fc2 = T.nn.Linear(4, 2, bias=False)
            self.register_buffer("steps", T.zeros(2))
            self.register_buffer("scratch", T.ones(3), persistent=False)

        def forward(self, x, scale=1.0):
            return self.fc2(self.act(self.fc1(x))) * scale

    return fill(T, Net())


def make_tied(T):
    class TiedLM(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = T.nn.Parameter(T.ones(1))
            self.emb = T.nn.Embedding(5, 3)
            self.body = T.nn.Linear(3, 3)
            self.dec = T.nn.Linear(3, 5, bias=False)
            self.dec.weight = self.emb.weight
            self.again = self.body
            self.register_buffer("pos", T.arange(3))

        def forward(self, idx):
            return self.dec(self.again(self.body(self.emb(idx)))) * self.scale

    return fill(T, TiedLM())


def names(pairs):
    return [n for n, _ in pairs]
