"""torch.autograd.Variable: the pre-0.4 wrapper, which torch keeps as a name for Tensor.

``Variable(t)`` makes a new tensor sharing ``t``'s memory, detached, with ``requires_grad`` as asked;
every Tensor is an instance of ``Variable`` (``isinstance(t, Variable)``), as in torch.
"""
import warnings

from .._tensor import Tensor


class VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, Tensor)


class Variable(metaclass=VariableMeta):
    """Mirrors torch.autograd.Variable."""

    def __new__(cls, data=None, requires_grad=False, volatile=False):
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                          stacklevel=2)
        if data is None:
            data = Tensor()   # (the legacy constructor: an empty tensor of the default dtype)
        elif not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        out = data.detach()
        if requires_grad:
            out.requires_grad_(True)
        return out


Variable.__module__ = "torch.autograd.variable"
