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
