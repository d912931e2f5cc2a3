"""torch.nn.functional: the op table's entries marked ``functional`` (see mstorch/ops/_registry.py)."""
from ..._functions import FUNCTIONAL as _FUNCTIONAL

globals().update(_FUNCTIONAL)
__all__ = sorted(_FUNCTIONAL)

# Pickles of whole models hold these functions (TransformerEncoderLayer.activation is F.relu): name them
# mstorch.nn.functional.<f>, which checkpoints write as torch.nn.functional.<f>.
for _name, _fn in _FUNCTIONAL.items():
    if getattr(_fn, "__qualname__", None) in (_name, "nn.functional." + _name):
        _fn.__module__, _fn.__qualname__, _fn.__name__ = __name__, _name, _name

# torch.nn.functional re-exports these (its Python functionals call them); not in its __all__
from ...overrides import (handle_torch_function, has_torch_function, has_torch_function_unary,  # noqa: E402,F401
                          has_torch_function_variadic)
from ..._tensor import Tensor  # noqa: E402,F401
from typing import TYPE_CHECKING  # noqa: E402,F401  (torch.nn.functional's module globals)


class _BroadcastingListCls:
    """TorchScript's "an int or a list of ints" annotation (torch.nn.functional's and torch.jit.annotations'
    BroadcastingList1/2/3); to Python an annotation without a type: subscripting gives None."""

    def __getitem__(self, types):
        return None


BroadcastingList1 = _BroadcastingListCls()
BroadcastingList2 = _BroadcastingListCls()
BroadcastingList3 = _BroadcastingListCls()

# the integer codes of grid_sample's modes, as torch's grid_sampler ATen op takes them
GRID_SAMPLE_INTERPOLATION_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
GRID_SAMPLE_PADDING_MODES = {"zeros": 0, "border": 1, "reflection": 2}

# boolean_dispatch's table (torch keeps it in torch._jit_internal): each dispatching function -> its two targets (torch's
# TorchScript frontend reads it; here it is kept for code that inspects it)
_boolean_dispatched = {}


def assert_int_or_pair(arg, arg_name, message):
    """torch.nn.functional.assert_int_or_pair: ``arg`` is an int or has two elements, else AssertionError."""
    if not (isinstance(arg, int) or len(arg) == 2):
        raise AssertionError(message.format(arg_name))


def boolean_dispatch(arg_name, arg_index, default, if_true, if_false, module_name, func_name):
    """torch.nn.functional.boolean_dispatch: a function that calls ``if_true`` or ``if_false`` by the boolean
    argument ``arg_name`` (keyword, else position ``arg_index``, else ``default``), with their one docstring."""
    def fn(*args, **kwargs):
        flag = kwargs[arg_name] if arg_name in kwargs else args[arg_index] if arg_index < len(args) else default
        return if_true(*args, **kwargs) if flag else if_false(*args, **kwargs)

    if if_true.__doc__ is None and if_false.__doc__ is not None:
        if_true.__doc__ = doc = if_false.__doc__
    elif if_false.__doc__ is None and if_true.__doc__ is not None:
        if_false.__doc__ = doc = if_true.__doc__
    elif if_false.__doc__ is None and if_true.__doc__ is None:
        doc = None
    else:
        raise RuntimeError("only one function can have a docstring")
    fn.__doc__ = doc
    if module_name is not None:
        fn.__module__ = module_name
    if func_name is not None:
        fn.__name__ = func_name
    _boolean_dispatched[fn] = {"if_true": if_true, "if_false": if_false, "index": arg_index, "default": default,
                              "arg_name": arg_name}
    return fn
