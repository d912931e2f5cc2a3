"""The op table: torch's public name -> an implementation per MindSpore device target.

One entry per torch op. From this table come the ``mstorch.<name>`` functions, the ``Tensor.<name>``
methods (plus their in-place ``<name>_`` forms and ``out=``), the compat-test op list and
``docs/coverage.md``.

Implementations are plain functions over ``mindspore.Tensor``: the generated wrappers unwrap mstorch
Tensors (also inside lists and tuples) before the call and wrap the returned ``mindspore.Tensor``s
after it. An implementation that needs the mstorch wrapper itself (views, ops on autograd state) is
registered with ``raw=True`` and receives the arguments untouched.

    @register("add", family="pointwise", inplace="add_", out=True)
    def add(input, other, *, alpha=1): ...

    @add.on("Ascend")            # a faster kernel where the device has one
    def _add_ascend(input, other, *, alpha=1): ...
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

ANY = "any"
DEVICES = ("CPU", "GPU", "Ascend")


@dataclass
class OpDef:
    name: str
    family: str
    impls: dict = field(default_factory=dict)  # device target (or ANY) -> callable
    function: bool = True        # exported as mstorch.<name> (and torch.nn.functional where noted)
    method: bool = True          # bound as Tensor.<name>
    inplace: str | None = None   # name of the generated in-place method (e.g. "add_")
    out: bool = False            # the function accepts out=
    raw: bool = False            # impl takes mstorch objects, unwrapped by itself
    note: str = ""               # a known difference from torch, shown in docs/coverage.md
    aliases: tuple = ()          # other torch names for the same op (e.g. "absolute" for "abs")
    functional: bool | str = False  # also torch.nn.functional.<name> (or the given name there)
    autocast: str | None = None  # "lower" / "fp32": torch's autocast cast policy (set from ops/_autocast.py)

    def on(self, device: str):
        """Register the implementation used on one MindSpore device target."""
        if device not in DEVICES:
            raise ValueError(f"unknown device target {device!r}")

        def deco(fn):
            self.impls[device] = fn
            return fn
        return deco

    def impl_for(self, device: str) -> Callable:
        return self.impls.get(device) or self.impls[ANY]

    def __call__(self, *args, **kwargs):
        # Calling the registered object runs the generic implementation on MindSpore tensors;
        # handy when one implementation builds on another.
        return self.impls[ANY](*args, **kwargs)


OPS: dict[str, OpDef] = {}

# The generated public functions by torch name, filled by ``ops/_bind.build``: for family code that
# composes other public ops by name at call time (the sparse table runs a dense op on a sparse tensor's
# values; a loss takes a user's distance function and the default one). The op layer cannot import
# ``mstorch/_functions.py``, which is built above it.
PUBLIC: dict[str, Callable] = {}

# torch op name -> implementation for calls with a sparse tensor argument (``ops/sparse.py``). The
# generated wrapper of the op falls back to it when an argument has no dense storage; it receives the
# mstorch objects untouched. Ops missing here raise torch's "Could not run 'aten::<op>'" error.
SPARSE: dict = {}


def register_sparse(*names):
    def deco(fn):
        for name in names:
            if name in SPARSE:
                raise RuntimeError(f"sparse op {name!r} registered twice")
            SPARSE[name] = fn
        return fn
    return deco


def register(name, *, family, function=True, method=True, inplace=None, out=False, raw=False,
             note="", aliases=(), functional=False):
    def deco(fn):
        if name in OPS:
            raise RuntimeError(f"op {name!r} registered twice")
        opdef = OpDef(name=name, family=family, impls={ANY: fn}, function=function, method=method,
                      inplace=inplace, out=out, raw=raw, note=note, aliases=tuple(aliases),
                      functional=functional)
        OPS[name] = opdef
        return opdef
    return deco


# Names torch has and mstorch does not provide, with the reason: the one place that says so. Keyed by the
# dotted name under ``torch.`` (``"linalg.lu"``, ``"jit.save"``); filled by family files and namespace
# modules via ``unsupported(...)``. The sub-namespaces raise an AttributeError with the reason for a name
# listed here, functions that exist only to refuse (``torch.jit.save``) raise it when called, the scanner
# reports these names as missing with the reason, and docs/coverage.md lists them.
UNSUPPORTED: dict[str, str] = {}


def unsupported(name, reason):
    if name in UNSUPPORTED or name in OPS:
        raise RuntimeError(f"{name!r} is both provided and listed as unsupported, or listed twice")
    UNSUPPORTED[name] = reason
