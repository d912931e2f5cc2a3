"""torch.sym_* helpers and small top-level Python names libraries read at import (torch.pi, torch.typename...).

mstorch has no symbolic shapes (no SymInt/SymFloat/SymBool: shapes are always concrete ints), so the sym_*
helpers take the branch torch takes for plain Python and NumPy numbers, with torch's promotion rules (sym_max of
an int and a float is a float)."""
import builtins
import math

import numpy as np

from math import e, inf, nan, pi  # noqa: F401  (torch.e, torch.inf, torch.nan, torch.pi)

newaxis = None
_ALL_TYPES = (np.integer, np.floating, builtins.int, builtins.float)
_FLOAT_TYPES = (np.floating, builtins.float)


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
    from ._tensor import Tensor
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
