"""Python operators on Tensor, bound to the table's functions (``a + b`` is ``torch.add(a, b)``).

As in torch, an operator whose other operand the function refuses with a TypeError (a string, a list,
None) returns NotImplemented, so Python raises its own "unsupported operand type(s)" error, or tries the
other operand's reflected method, and ``==`` falls back to identity.
"""
import numpy as np

from . import _functions as fn
from ._tensor import Tensor


def _binary(f):
    def op(self, other):
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


def _inplace(name):
    method = getattr(Tensor, name)

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


def _eq(self, other):
    # torch's == (alone among the comparisons) takes a NumPy array as a tensor
    if isinstance(other, np.ndarray):
        other = fn["as_tensor"](other)
    try:
        return fn["eq"](self, other)
    except TypeError:
        return NotImplemented


def _matmul(self, other):
    return fn["matmul"](self, other) if isinstance(other, Tensor) else NotImplemented


def _rmatmul(self, other):
    return fn["matmul"](other, self) if isinstance(other, Tensor) else NotImplemented


Tensor.__add__ = _binary(fn["add"])
Tensor.__radd__ = _swap(fn["add"])
Tensor.__iadd__ = _inplace("add_")
Tensor.__sub__ = _binary(fn["sub"])
Tensor.__rsub__ = _swap(fn["sub"])
Tensor.__isub__ = _inplace("sub_")
Tensor.__mul__ = _binary(fn["mul"])
Tensor.__rmul__ = _swap(fn["mul"])
Tensor.__imul__ = _inplace("mul_")
Tensor.__truediv__ = _binary(fn["div"])
Tensor.__rtruediv__ = _rtruediv
Tensor.__itruediv__ = _inplace("div_")
Tensor.__floordiv__ = _binary(fn["floor_divide"])
Tensor.__rfloordiv__ = _swap(fn["floor_divide"])
Tensor.__ifloordiv__ = _inplace("floor_divide_")
Tensor.__mod__ = _binary(fn["remainder"])
Tensor.__rmod__ = _swap(fn["remainder"])
Tensor.__imod__ = _inplace("remainder_")
Tensor.__pow__ = _binary(fn["pow"])
Tensor.__rpow__ = _swap(fn["pow"])
Tensor.__ipow__ = _inplace("pow_")
Tensor.__matmul__ = _matmul
Tensor.__rmatmul__ = _rmatmul
Tensor.__neg__ = fn["neg"]
Tensor.__pos__ = lambda self: self
Tensor.__abs__ = fn["abs"]


def _invert(self):
    # torch's ~ refuses floats with a TypeError (bitwise_not itself raises NotImplementedError)
    if self.dtype.is_floating_point or self.dtype.is_complex:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return fn["bitwise_not"](self)


Tensor.__invert__ = _invert
Tensor.__lshift__ = _binary(fn["bitwise_left_shift"])
Tensor.__rshift__ = _binary(fn["bitwise_right_shift"])
Tensor.__rlshift__ = _swap(fn["bitwise_left_shift"])
Tensor.__rrshift__ = _swap(fn["bitwise_right_shift"])
Tensor.__ilshift__ = _inplace("bitwise_left_shift_")
Tensor.__irshift__ = _inplace("bitwise_right_shift_")
Tensor.__and__ = _binary(fn["bitwise_and"])
Tensor.__rand__ = _swap(fn["bitwise_and"])
Tensor.__iand__ = _inplace("bitwise_and_")
Tensor.__or__ = _binary(fn["bitwise_or"])
Tensor.__ror__ = _swap(fn["bitwise_or"])
Tensor.__ior__ = _inplace("bitwise_or_")
Tensor.__xor__ = _binary(fn["bitwise_xor"])
Tensor.__rxor__ = _swap(fn["bitwise_xor"])
Tensor.__ixor__ = _inplace("bitwise_xor_")
Tensor.__eq__ = _eq
Tensor.__ne__ = _binary(fn["ne"])
Tensor.__lt__ = _binary(fn["lt"])
Tensor.__le__ = _binary(fn["le"])
Tensor.__gt__ = _binary(fn["gt"])
Tensor.__ge__ = _binary(fn["ge"])
