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

    @register("linalg.slogdet", family="torch.linalg", namespace="linalg", out=True)
    def linalg_slogdet(A): ...

``namespace`` says where the op is exported, under the last part of its name: ``"torch"`` (the
top-level function), ``"Tensor"`` (the method), ``"nn.functional"``, or a sub-namespace (``"linalg"``,
``"fft"``, ``"special"``); the default is ``("torch", "Tensor")``. An op whose name is dotted
(``"linalg.slogdet"``, ``"nn.functional.relu"``, ``"Tensor.where"``) is one torch has under that name
only, beside a different op of the same short name. Per-device kernel choices live in ``ops/_kernels.py``
(chosen by measurement), not here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

TOP, METHOD, FUNCTIONAL = "torch", "Tensor", "nn.functional"
SUB_NAMESPACES = ("linalg", "fft", "special")
NAMESPACES = (TOP, METHOD, FUNCTIONAL) + SUB_NAMESPACES


@dataclass
class OpDef:
    name: str
    family: str
    impl: Callable               # over mindspore.Tensors (or mstorch objects when raw); per-device kernels: ops/_kernels.py
    namespace: tuple = (TOP, METHOD)   # where the op is exported (see the module docstring)
    inplace: str | None = None   # name of the generated in-place method (e.g. "add_")
    # the function accepts out=: True (a result castable to out's dtype by torch.can_cast is cast into it),
    # "exact" (torch takes only the result's own dtype), "tuple" (out= is a tuple of tensors, one a result),
    # "dtype" (out's dtype is the op's dtype=: the input is converted first, as sum/cumsum do)
    out: bool | str = False
    # what torch's argument parser requires of a call with out= (its out= overload is narrower than the
    # function): "dim" (a dim argument), "dim_or_none" (one that may be None: all dims), "tensor_self"
    # (the first operand a Tensor, not a Number),
    # "tensors" (every positional operand a Tensor), "no_bool_unbiased" (not the (Tensor, bool unbiased)
    # overload); checked before the op runs, with torch's message
    out_requires: tuple = ()
    # a check of ``out`` itself that torch makes before the kernel's own dtype checks: fn(args, out)
    out_check: Callable | None = None
    raw: bool = False            # impl takes mstorch objects, unwrapped by itself
    note: str = ""               # a known difference from torch, shown in docs/coverage.md
    aliases: tuple = ()          # other torch names for the same op (e.g. "absolute" for "abs")
    autocast: str | None = None  # "lower" / "fp32": torch's autocast cast policy (set from ops/_autocast.py)
    differentiable: bool = True  # False: torch's results never require grad (the Bessel family)

    @property
    def short(self) -> str:
        """The op's name inside its namespaces (``"slogdet"`` for ``"linalg.slogdet"``)."""
        return self.name.rpartition(".")[2]

    @property
    def function(self) -> bool:
        return TOP in self.namespace

    @property
    def method(self) -> bool:
        return METHOD in self.namespace

    @property
    def functional(self) -> bool:
        return FUNCTIONAL in self.namespace

    def __call__(self, *args, **kwargs):
        # Calling the registered object runs the implementation on MindSpore tensors;
        # handy when one implementation builds on another.
        return self.impl(*args, **kwargs)


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


_OUT_KINDS = (False, True, "exact", "tuple", "dtype")
_OUT_REQUIRES = ("dim", "dim_or_none", "tensor_self", "tensors", "no_bool_unbiased")


def register(name, *, family, namespace=(TOP, METHOD), inplace=None, out=False, out_requires=(), out_check=None,
             raw=False, note="", aliases=(), differentiable=True):
    namespace = (namespace,) if isinstance(namespace, str) else tuple(namespace)
    out_requires = (out_requires,) if isinstance(out_requires, str) else tuple(out_requires)
    if out not in _OUT_KINDS or any(r not in _OUT_REQUIRES for r in out_requires) or \
            ((out_requires or out_check) and not out):
        raise ValueError(f"op {name!r}: bad out={out!r} / out_requires={out_requires!r}")
    unknown = [n for n in namespace if n not in NAMESPACES]
    prefix = name.rpartition(".")[0]
    if unknown or not namespace or (prefix and prefix not in namespace):
        raise ValueError(f"op {name!r}: bad namespace {namespace!r}")

    def deco(fn):
        if name in OPS:
            raise RuntimeError(f"op {name!r} registered twice")
        opdef = OpDef(name=name, family=family, impl=fn, namespace=namespace, inplace=inplace,
                      out=out, out_requires=out_requires, out_check=out_check, raw=raw, note=note, aliases=tuple(aliases), differentiable=differentiable)
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
