"""Python operators on Tensor, bound to the table's functions (``a + b`` is ``torch.add(a, b)``).

As in torch, an operator whose other operand the function refuses with a TypeError (a string, a list,
None) returns NotImplemented, so Python raises its own "unsupported operand type(s)" error, or tries the
other operand's reflected method, and ``==`` falls back to identity.

``tensor <op> proxy`` under torch.fx records what torch records through the operator's
``__torch_function__``: a ``call_method`` of the Tensor method the operator dispatches to (``add``,
``remainder``...), so those operators call the table's method wrappers, which record their method name; the
bitwise, shift and floor-division operators keep their dunder name in torch's graphs (``_binary(..., traced_as=)``).
"""
import numpy as np

from ._functions import FUNCTIONS as fn
from ._tensor import Tensor
from .ops import _bind


def _binary(f, traced_as=None):
    if traced_as is None:
        def op(self, other):
            try:
                return f(self, other)
            except TypeError:
                return NotImplemented
    else:
        def op(self, other):
            if _bind.PROXIES_ALIVE:
                r = _bind.record_proxy_op(f, traced_as, (self, other), {})
                if r is not _bind.NOT_TRACED:
                    return r
            try:
                return f(self, other)
            except TypeError:
                return NotImplemented
    op.__name__ = getattr(f, "__name__", "op")
    return op


def _swap(f):
    def reflected(self, other):
        try:
            return f(other, self)
        except TypeError:
            return NotImplemented
    return reflected


def _inplace(method):
    def iop(self, other):
        try:
            return method(self, other)
        except TypeError:
            return NotImplemented
    return iop


def _rtruediv(self, other):
    # torch computes number / tensor as reciprocal(tensor) * number (one more rounding than a division)
    try:
        return fn["reciprocal"](self) * other
    except TypeError:
        return NotImplemented


def _eq(eq):
    def __eq__(self, other):
        # torch's == (alone among the comparisons) takes a NumPy array as a tensor
        if isinstance(other, np.ndarray):
            other = fn["as_tensor"](other)
        try:
            return eq(self, other)
        except TypeError:
            return NotImplemented
    return __eq__


def _matmul(matmul):
    def __matmul__(self, other):
        if isinstance(other, Tensor) or _bind.PROXIES_ALIVE:   # (a Proxy is recorded by the wrapper)
            return matmul(self, other)
        return NotImplemented
    return __matmul__


def _rmatmul(self, other):
    return fn["matmul"](other, self) if isinstance(other, Tensor) else NotImplemented


def _invert(self):
    # torch's ~ refuses floats with a TypeError (bitwise_not itself raises NotImplementedError)
    if self.dtype.is_floating_point or self.dtype.is_complex:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return fn["bitwise_not"](self)


def _broadcast_to(self, *size, **kwargs):
    # torch's method also takes the sizes unpacked (x.broadcast_to(2, 3)); torch.broadcast_to does not
    return fn["broadcast_to"](self, *((size,) if len(size) > 1 else size), **kwargs)


def members(methods):
    """The operators (and methods that are thin adapters over a table function), given the table's Tensor
    ``methods`` (the in-place operators call the in-place methods)."""
    return {
        "__add__": _binary(methods["add"]),
        "__radd__": _swap(fn["add"]),
        "__iadd__": _inplace(methods["add_"]),
        "__sub__": _binary(methods["sub"]),
        "__rsub__": _swap(fn["sub"]),
        "__isub__": _inplace(methods["sub_"]),
        "__mul__": _binary(methods["mul"]),
        "__rmul__": _swap(fn["mul"]),
        "__imul__": _inplace(methods["mul_"]),
        "__truediv__": _binary(methods["div"]),
        "__rtruediv__": _rtruediv,
        "__itruediv__": _inplace(methods["div_"]),
        "__floordiv__": _binary(fn["floor_divide"], "__floordiv__"),
        "__rfloordiv__": _swap(fn["floor_divide"]),
        "__ifloordiv__": _inplace(methods["floor_divide_"]),
        "__mod__": _binary(methods["remainder"]),
        "__rmod__": _swap(fn["remainder"]),
        "__imod__": _inplace(methods["remainder_"]),
        "__pow__": _binary(methods["pow"]),
        "__rpow__": _swap(fn["pow"]),
        "__ipow__": _inplace(methods["pow_"]),
        "__matmul__": _matmul(methods["matmul"]),
        "__rmatmul__": _rmatmul,
        "__neg__": fn["neg"],
        "__pos__": lambda self: self,
        "__abs__": fn["abs"],
        "__invert__": _invert,
        "__lshift__": _binary(fn["bitwise_left_shift"], "__lshift__"),
        "__rshift__": _binary(fn["bitwise_right_shift"], "__rshift__"),
        "__rlshift__": _swap(fn["bitwise_left_shift"]),
        "__rrshift__": _swap(fn["bitwise_right_shift"]),
        "__ilshift__": _inplace(methods["bitwise_left_shift_"]),
        "__irshift__": _inplace(methods["bitwise_right_shift_"]),
        "__and__": _binary(fn["bitwise_and"], "__and__"),
        "__rand__": _swap(fn["bitwise_and"]),
        "__iand__": _inplace(methods["bitwise_and_"]),
        "__or__": _binary(fn["bitwise_or"], "__or__"),
        "__ror__": _swap(fn["bitwise_or"]),
        "__ior__": _inplace(methods["bitwise_or_"]),
        "__xor__": _binary(fn["bitwise_xor"], "__xor__"),
        "__rxor__": _swap(fn["bitwise_xor"]),
        "__ixor__": _inplace(methods["bitwise_xor_"]),
        "__eq__": _eq(methods["eq"]),
        "__ne__": _binary(methods["ne"]),
        "__lt__": _binary(methods["lt"]),
        "__le__": _binary(methods["le"]),
        "__gt__": _binary(methods["gt"]),
        "__ge__": _binary(methods["ge"]),
        "real": property(fn["real"]),
        "imag": property(fn["imag"]),
        "broadcast_to": _broadcast_to,
    }
