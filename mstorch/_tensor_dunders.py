"""Python operators on Tensor, bound to the table's functions (``a + b`` is ``torch.add(a, b)``)."""
from . import _functions as fn
from ._tensor import Tensor


def _swap(f):
    def reflected(self, other):
        return f(other, self)
    return reflected


def _inplace(name):
    method = getattr(Tensor, name)

    def iop(self, other):
        return method(self, other)
    return iop


Tensor.__add__ = fn["add"]
Tensor.__radd__ = _swap(fn["add"])
Tensor.__iadd__ = _inplace("add_")
Tensor.__sub__ = fn["sub"]
Tensor.__rsub__ = _swap(fn["sub"])
Tensor.__isub__ = _inplace("sub_")
Tensor.__mul__ = fn["mul"]
Tensor.__rmul__ = _swap(fn["mul"])
Tensor.__imul__ = _inplace("mul_")
Tensor.__truediv__ = fn["div"]
Tensor.__rtruediv__ = _swap(fn["div"])
Tensor.__itruediv__ = _inplace("div_")
Tensor.__floordiv__ = fn["floor_divide"]
Tensor.__rfloordiv__ = _swap(fn["floor_divide"])
Tensor.__ifloordiv__ = _inplace("floor_divide_")
Tensor.__mod__ = fn["remainder"]
Tensor.__rmod__ = _swap(fn["remainder"])
Tensor.__imod__ = _inplace("remainder_")
Tensor.__pow__ = fn["pow"]
Tensor.__rpow__ = _swap(fn["pow"])
Tensor.__ipow__ = _inplace("pow_")
Tensor.__matmul__ = fn["matmul"]
Tensor.__rmatmul__ = _swap(fn["matmul"])
Tensor.__neg__ = fn["neg"]
Tensor.__pos__ = lambda self: self
Tensor.__abs__ = fn["abs"]


def _invert(self):
    # torch's ~ refuses floats with a TypeError (bitwise_not itself raises NotImplementedError)
    if self.dtype.is_floating_point or self.dtype.is_complex:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return fn["bitwise_not"](self)


Tensor.__invert__ = _invert
Tensor.__lshift__ = fn["bitwise_left_shift"]
Tensor.__rshift__ = fn["bitwise_right_shift"]
Tensor.__rlshift__ = _swap(fn["bitwise_left_shift"])
Tensor.__rrshift__ = _swap(fn["bitwise_right_shift"])
Tensor.__ilshift__ = _inplace("bitwise_left_shift_")
Tensor.__irshift__ = _inplace("bitwise_right_shift_")
Tensor.__and__ = fn["bitwise_and"]
Tensor.__rand__ = _swap(fn["bitwise_and"])
Tensor.__iand__ = _inplace("bitwise_and_")
Tensor.__or__ = fn["bitwise_or"]
Tensor.__ror__ = _swap(fn["bitwise_or"])
Tensor.__ior__ = _inplace("bitwise_or_")
Tensor.__xor__ = fn["bitwise_xor"]
Tensor.__rxor__ = _swap(fn["bitwise_xor"])
Tensor.__ixor__ = _inplace("bitwise_xor_")
Tensor.__eq__ = fn["eq"]
Tensor.__ne__ = fn["ne"]
Tensor.__lt__ = fn["lt"]
Tensor.__le__ = fn["le"]
Tensor.__gt__ = fn["gt"]
Tensor.__ge__ = fn["ge"]
Tensor.__hash__ = object.__hash__
