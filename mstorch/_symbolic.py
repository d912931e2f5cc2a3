"""torch.sym_* helpers and small top-level Python names libraries read at import (torch.pi, torch.typename...).

mstorch has no symbolic shapes (no SymInt/SymFloat/SymBool: shapes are always concrete ints), so the sym_*
helpers take the branch torch takes for plain Python and NumPy numbers, with torch's promotion rules (sym_max of
an int and a float is a float)."""
import builtins
import math

import numpy as np

from math import e, inf, nan, pi  # noqa: F401  (torch.e, torch.inf, torch.nan, torch.pi)

from ._dtype import bool_
from ._tensor import Tensor

newaxis = None
_ALL_TYPES = (np.integer, np.floating, builtins.int, builtins.float)
_FLOAT_TYPES = (np.floating, builtins.float)


_NO_SYMBOLIC_SHAPES = ("mstorch has no symbolic shapes (no dynamo or export tracing): sizes are always concrete "
                       "Python ints, so no symbolic number is ever made")


class _SymbolicNumber:
    """torch.SymInt/SymFloat/SymBool as types: ``isinstance(n, torch.SymInt)`` is False for every number mstorch
    hands out, and the types work in annotations and type tuples; making one raises."""

    mstorch_difference = "the type exists for isinstance checks and annotations; no value of it is ever made"

    def __init__(self, node):
        raise NotImplementedError(f"torch.{type(self).__name__}: {_NO_SYMBOLIC_SHAPES}")


class SymInt(_SymbolicNumber):
    """Mirrors torch.SymInt as a type (see _SymbolicNumber)."""


class SymFloat(_SymbolicNumber):
    """Mirrors torch.SymFloat as a type (see _SymbolicNumber)."""


class SymBool(_SymbolicNumber):
    """Mirrors torch.SymBool as a type (see _SymbolicNumber)."""


for _cls in (SymInt, SymFloat, SymBool):
    _cls.__module__ = "torch"


def sym_not(a):
    return not a


def sym_float(a):
    return builtins.float(a)


def sym_int(a):
    return builtins.int(a)


def _extremum(pick, a, b):
    """builtins.max/min of two numbers, a float when either is (torch's rule for sym_max/sym_min)."""
    for x in (a, b):
        if not isinstance(x, _ALL_TYPES):
            raise AssertionError(f"expected {_ALL_TYPES}, got {type(x)}")
    if isinstance(a, _FLOAT_TYPES) or isinstance(b, _FLOAT_TYPES):
        return builtins.float(pick(a, b))
    return pick(a, b)


def sym_max(a, b):
    return _extremum(builtins.max, a, b)


def sym_min(a, b):
    return _extremum(builtins.min, a, b)


def sym_sqrt(a):
    return math.sqrt(a)


def sym_ite(b, t, f):
    if not isinstance(b, builtins.bool):
        raise AssertionError(f"expected SymBool or bool, got {type(b)}")
    if type(t) is not type(f):
        raise AssertionError(f"type mismatch: {type(t)} vs {type(f)}")
    return t if b else f


def sym_sum(*args):
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = args[0]
    return builtins.sum(args)


def typename(obj, /):
    """The dotted type name of ``obj`` as torch prints it: tensors give their legacy type (``torch.FloatTensor``),
    mstorch classes their torch path (``torch.nn.modules.linear.Linear``)."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    if module == "mstorch" or module.startswith("mstorch."):
        module = "torch" + module[len("mstorch"):]
    if module in ("", "builtins"):
        return qualname
    return f"{module}.{qualname}"


def is_storage(obj, /):
    """Mirrors torch.is_storage: the only storages mstorch has are ``Tensor.untyped_storage()``'s."""
    from .storage import UntypedStorage
    return isinstance(obj, UntypedStorage)


# --- torch._check and friends: torch's runtime checks with a lazily built message ------------------

def _check_with(error_type, cond, message):
    if not isinstance(cond, bool):
        if isinstance(cond, Tensor):
            raise TypeError("cond must be a bool, but got a Tensor. For tensor conditions, use "
                            "torch._check_tensor_all() to assert that all elements are true.")
        raise TypeError(f"cond must be a bool, but got {type(cond)}")
    if cond:
        return
    if message is None:
        text = ("Expected cond to be True, but got False. (Could this error message be improved? If so, please "
                "report an enhancement request to PyTorch.)")
    else:
        if not callable(message):
            raise TypeError("message must be a callable")
        text = str(message())
    raise error_type(text)


def _check_tensor_all_with(error_type, cond, message=None):
    """torch._check_tensor_all_with: ``error_type`` (with ``message()``) unless every element of the bool tensor
    ``cond`` is true."""
    if not isinstance(cond, Tensor):
        raise TypeError(f"cond must be a tensor, but got {type(cond)}")
    if cond.dtype is not bool_:
        raise TypeError(f"cond tensor must have dtype torch.bool, but got {cond.dtype}")
    _check_with(error_type, bool(cond.all().item()), message)


def _check_tensor_all(cond, message=None):
    _check_tensor_all_with(RuntimeError, cond, message)


def _check(cond, message=None):
    """torch._check: RuntimeError (with ``message()``) unless ``cond``."""
    _check_with(RuntimeError, cond, message)


def _check_index(cond, message=None):
    _check_with(IndexError, cond, message)


def _check_value(cond, message=None):
    _check_with(ValueError, cond, message)


def _check_type(cond, message=None):
    _check_with(TypeError, cond, message)


def _check_not_implemented(cond, message=None):
    _check_with(NotImplementedError, cond, message)


def _assert_async(input, assert_msg=None):
    """torch._assert_async (aten::_assert_async, .msg): raises unless the one-element ``input`` is nonzero. On CPU
    torch checks at once, as here."""
    if input.numel() == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if input.numel() > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    if not input.item():
        raise RuntimeError(assert_msg if assert_msg is not None else
                           "Expected Tensor with single nonzero value, but got zero")


def _assert_scalar(self, assert_msg):
    """torch._assert_scalar (aten::_assert_scalar): raises ``assert_msg`` unless the number is true."""
    if not self:
        raise RuntimeError(assert_msg)


# C++ type names torch prints for a tensor's element type (caffe2::TypeMeta), in _assert_tensor_metadata's message
_CPP_TYPE_NAMES = {"float32": "float", "float64": "double", "int64": "long int", "int32": "int", "int16": "short int",
                   "int8": "signed char", "uint8": "unsigned char", "bool": "bool", "float16": "c10::Half",
                   "bfloat16": "c10::BFloat16", "complex64": "c10::complex<float>",
                   "complex128": "c10::complex<double>"}


def _assert_tensor_metadata(a, size=None, stride=None, dtype=None, *, device=None, layout=None):
    """torch._assert_tensor_metadata: checks the tensor's size, stride, dtype, device and layout when given."""
    from ._device import device as _device
    from ._dtype import scalar_type_name

    def mismatch(what, want, have):
        raise RuntimeError(f"Tensor {what} mismatch! Expected: {want}, Got: {have}")

    if size is not None and tuple(a.shape) != tuple(size):
        mismatch("sizes", list(size), list(a.shape))
    if stride is not None and tuple(a.stride()) != tuple(stride):
        mismatch("strides", list(stride), list(a.stride()))
    if dtype is not None and a.dtype != dtype:
        name = str(a.dtype).rpartition(".")[2]
        mismatch("dtype", scalar_type_name(dtype), _CPP_TYPE_NAMES.get(name, scalar_type_name(a.dtype)))
    if device is not None and a.device != _device(device):
        mismatch("device", _device(device), a.device)
    if layout is not None and a.layout != layout:
        names = {"strided": "Strided", "sparse_coo": "Sparse", "sparse_csr": "SparseCsr", "sparse_csc": "SparseCsc",
                 "sparse_bsr": "SparseBsr", "sparse_bsc": "SparseBsc", "_mkldnn": "Mkldnn", "jagged": "Jagged"}
        mismatch("layout", *(names.get(str(x).rpartition(".")[2], str(x)) for x in (layout, a.layout)))


def sym_constrain_range_for_size(size, min=None, max=None):
    """torch.sym_constrain_range_for_size: a range hint for an unbacked size; on a concrete int, the check."""
    lo, hi = 0 if min is None else min, 2 ** 63 - 1 if max is None else max
    if not lo <= size <= hi:
        raise RuntimeError(f"Invalid value range for {size} between [{lo}, {hi}].")


def _check_is_size(i, message=None, *, max=None):
    _check(i >= 0, message)
    if max is not None:
        _check(i <= max, message)
