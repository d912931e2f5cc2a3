"""Every ``is_*`` attribute and device move of torch's Tensor, Parameter and Module, enumerated from torch
itself (so a name a new torch adds fails here until mstorch has it), compared on several tensors.

Exceptions are compared by exact type and message, values exactly, and whether the name is a property or
a method as well."""
import re

import pytest
import torch

import mstorch

from harness import check

TENSOR_FLAGS = sorted(n for n in dir(torch.Tensor) if n.startswith("is_"))
MODULE_FLAGS = sorted(n for n in dir(torch.nn.Module) if n.startswith("is_"))


def _device_kinds():
    # the device types torch knows, from its own error message for an unknown one
    try:
        torch.device("no_such_kind")
    except RuntimeError as exc:
        listed = re.search(r"Expected one of (.*) device type", str(exc)).group(1)
        return [k.strip() for k in listed.split(",")]
    raise AssertionError("torch accepted an unknown device type")


DEVICE_KINDS = _device_kinds()
TENSOR_MOVES = sorted(n for n in dir(torch.Tensor) if n in DEVICE_KINDS)
MODULE_MOVES = sorted(n for n in dir(torch.nn.Module) if n in DEVICE_KINDS)


def outcome(call):
    """What a call gives: its value, or the exact exception type and message."""
    try:
        return call()
    except Exception as exc:  # noqa: BLE001 - the exception is the result being compared
        return ("raised", type(exc).__name__, str(exc).split("\n")[0])


def samples(T):
    """(label, tensor, other) triples: ``other`` is the argument of the binary predicates."""
    base = T.arange(6.0).reshape(2, 3)
    leaf = T.ones(3, requires_grad=True)
    with T.inference_mode():
        made_inside = T.zeros(2)
        view_inside = base[0]
    return [
        ("float", base, base),
        ("view", base[:], base),
        ("transposed", base.t(), base.t()),
        ("reshaped view", base.view(3, 2), base),
        ("offset slice", base[1:], base),
        ("clone", base.clone(), base),
        ("int scalar", T.tensor(3), T.tensor(4)),
        ("zero scalar", T.tensor(0.0), T.tensor([1.0])),
        ("bool one", T.tensor([True]), T.tensor([False])),
        ("uint8", T.tensor([1, 2], dtype=T.uint8), T.zeros(2)),
        ("complex", T.tensor([1 + 2j]), T.tensor([1j])),
        ("empty", T.zeros(0), T.zeros(0)),
        ("leaf", leaf, leaf),
        ("non-leaf", leaf * 2, leaf),
        ("parameter", T.nn.Parameter(T.ones(2, 2)), T.ones(2, 2)),
        ("inference tensor", made_inside, made_inside),
        ("view made in inference mode", view_inside, base),
        ("not a tensor argument", base, 3),
    ]


def _flag_answers(T, name):
    answers = []
    for label, t, other in samples(T):
        attr = outcome(lambda: getattr(t, name))
        if not callable(attr):
            answers.append((label, "property", attr))
            continue
        if name in ("is_same_size", "is_set_to"):
            answers.append((label, "method", outcome(lambda: attr(other))))
        else:
            answers.append((label, "method", outcome(attr)))
    return answers


@pytest.mark.parametrize("name", TENSOR_FLAGS)
def test_tensor_is_flags(name):
    check(lambda T: _flag_answers(T, name))


def test_is_set_to_shares_memory_as_torch():
    def fn(T):
        t = T.arange(6.0).reshape(2, 3)
        return [t.is_set_to(t), t.is_set_to(t[:]), t.is_set_to(t.view(3, 2)), t.is_set_to(t.clone()),
                t.is_set_to(t.detach()), t[1:].is_set_to(t[1:]), t.t().is_set_to(t.t())]
    check(fn)


@pytest.mark.parametrize("name", ["is_nonzero", "is_signed", "is_same_size", "is_inference", "is_distributed",
                                  "is_floating_point", "is_complex", "is_conj", "is_neg",
                                  "is_vulkan_available"])
def test_toplevel_is_functions(name):
    def fn(T):
        f = getattr(T, name)
        if name == "is_vulkan_available":
            return outcome(f)
        out = []
        for label, t, other in samples(T):
            args = (t, other) if name == "is_same_size" else (t,)
            out.append((label, outcome(lambda: f(*args))))
        # a non-tensor argument: torch's TypeError
        out.append(outcome(lambda: f(2.0, 2.0) if name == "is_same_size" else f(2.0)))
        return out
    check(fn)


@pytest.mark.parametrize("name", TENSOR_MOVES)
def test_tensor_device_moves(name):
    def fn(T):
        t = T.ones(2)
        r = outcome(lambda: getattr(t, name)())
        return r if isinstance(r, tuple) else ("same tensor", r is t)
    check(fn)


@pytest.mark.parametrize("name", MODULE_MOVES + MODULE_FLAGS)
def test_module_device_queries(name):
    def fn(T):
        m = T.nn.Linear(2, 2)
        attr = getattr(m, name)
        r = outcome(attr) if callable(attr) else attr
        return r if isinstance(r, tuple) else ("same module", r is m)
    check(fn)


# hpu, privateuseone: torch's CPU build fails importing torch.hpu (ModuleNotFoundError), and lazy in its
# dispatcher (NotImplementedError): artefacts of how torch is built; mstorch's error names the device
@pytest.mark.parametrize("kind", [k for k in DEVICE_KINDS if k not in ("cpu", "meta", "hpu", "privateuseone",
                                                                         "lazy")])
def test_unavailable_device_errors(kind):
    def fn(T):
        return [outcome(lambda: T.ones(2).to(kind)), outcome(lambda: T.nn.Linear(2, 2).to(kind))]
    ref, got = check(fn)
    assert all(r[0] == "raised" for r in ref)


def test_module_has_every_torch_device_method():
    missing = [n for n in MODULE_MOVES + MODULE_FLAGS if not hasattr(mstorch.nn.Module, n)]
    assert not missing
