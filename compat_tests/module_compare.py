"""Helpers of test_module.py / test_module_calls.py: run one case on torch and mstorch and compare a
normal form of the result. Tensors compare by kind (Parameter or Tensor), shape, dtype, requires_grad and
values (float ones within rtol 1e-5, atol 1e-6, as ``harness.check``); modules by class name; exceptions
by exact type and exact message (a case torch rejects goes through ``raises``). The only rewrite is ``mstorch.`` ->
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


class Close:
    """Values compared as ``harness.check`` does: floats within rtol 1e-5, atol 1e-6, NaN equal to NaN;
    anything else exactly."""
    RTOL, ATOL = 1e-5, 1e-6

    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        if not isinstance(other, Close):
            return False
        a, b = np.asarray(self.value), np.asarray(other.value)
        if a.shape != b.shape or a.dtype.kind != b.dtype.kind:
            return False
        if a.dtype.kind in "fc":
            return bool(np.allclose(a, b, rtol=self.RTOL, atol=self.ATOL, equal_nan=True)
                        and np.allclose(b, a, rtol=self.RTOL, atol=self.ATOL, equal_nan=True))
        return bool(np.array_equal(a, b))

    def __repr__(self):
        return repr(self.value)


def _exc_name(exc):
    """The exception's type: built-in ones by name, torch's own by their name without the package."""
    t = type(exc)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__name__.lstrip('_')} ({t.__mro__[1].__name__})"


def _norm(x):
    if isinstance(x, BaseException):
        return ("raised", _exc_name(x), _text(str(x)))
    if isinstance(x, (torch.Tensor, mstorch.Tensor)):
        kind = "Parameter" if isinstance(x, (torch.nn.Parameter, mstorch.nn.Parameter)) else "Tensor"
        return (kind, tuple(x.shape), repr(x.dtype), bool(x.requires_grad), Close(to_np(x)))
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
        return Close(x)
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


def _raised(r):
    return isinstance(r, tuple) and len(r) == 3 and r[0] == "raised"


def same(case, raises=False):
    """``case(T)`` gives the same on both libraries; torch raising fails unless ``raises``."""
    ref = _run(case, torch)
    assert _raised(ref) == raises, f"torch {'did not raise' if raises else 'raised'}: {ref}"
    got = _run(case, mstorch)
    assert got == ref, _first_diff(ref, got)
    return ref


def raises(case):
    return same(case, raises=True)


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
