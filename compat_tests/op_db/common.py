"""OpInfo-like records: which op, which sample inputs, how to compare. Data, not code."""
from dataclasses import dataclass, field

import numpy as np


# The ways test_ops.py calls a sample: torch.<name>, Tensor.<name>, torch.nn.functional.<name>, the
# gradient of the first of those, and Tensor.<name>_ on a copy of the first argument.
FORMS = ("function", "method", "functional", "grad", "inplace")


class S:
    """One sample call. Positional NumPy arrays become tensors in each namespace (float ones require
    grad when the op is differentiable); anything else passes through. A callable ``lambda T: ...``
    is evaluated per namespace (for dtypes, generators or tensors built with ops).

    ``errors`` names the forms (of ``FORMS``) torch rejects: there mstorch must raise the same exception
    type with the same first line of the message; everywhere else torch raising fails the test. A value
    sample torch rejects in some forms says so with ``.rejects(form, ...)``."""
    errors = frozenset()

    def __init__(self, *args, **kwargs):
        self.args = args
        self.kwargs = kwargs

    def rejects(self, *forms):
        unknown = set(forms) - set(FORMS)
        assert not unknown, f"unknown forms {unknown}"
        self.errors = self.errors | frozenset(forms)
        return self

    def __repr__(self):
        def short(a):
            if isinstance(a, np.ndarray):
                return f"{a.dtype}{list(a.shape)}"
            return getattr(a, "__name__", repr(a))
        parts = [short(a) for a in self.args] + [f"{k}={short(v)}" for k, v in self.kwargs.items()]
        return "(" + ", ".join(parts) + ")"


class E(S):
    """A sample both libraries must reject with the same exception type and the same first line of the
    message, in every form (``.accepts(form, ...)`` names the forms torch accepts, compared by value)."""
    errors = frozenset(FORMS)

    def accepts(self, *forms):
        unknown = set(forms) - set(FORMS)
        assert not unknown, f"unknown forms {unknown}"
        self.errors = self.errors - frozenset(forms)
        return self


class EType(E):
    """An error sample whose message names torch internals that mstorch does not reproduce (a kernel
    name chosen by memory format, a LAPACK detail...): only the exception type is compared. Say why
    next to it."""


@dataclass
class OpInfo:
    name: str                      # the torch name (and the key in mstorch's op table)
    samples: list
    grad: bool = True              # compare gradients of float inputs
    method: bool = True            # also call as Tensor method on the first argument
    function: bool = True          # call as torch.<name>
    inplace: bool = True           # also check the in-place form when the table has one
    rtol: float = 1e-5
    atol: float = 1e-6
    call: object = None            # custom caller: lambda T, *args, **kw -> result
    skip: str = ""                 # reason this op is not compared here (tested elsewhere)
    variants: tuple = field(default_factory=tuple)
