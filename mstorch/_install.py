"""The one install step: builds ``Tensor``'s methods, operators and properties, in one explicit place.

``mstorch/_tensor.py`` defines the class with what needs nothing above it (storage, dtype, shape,
conversions, the autograd flags). Everything else on Tensor is put there by ``install()``, which
``mstorch/__init__.py`` calls once, from these sources in this order (a later source never overrides an
earlier one, so which code answers ``x.name`` does not depend on import order):

1. the class body of ``_tensor.py`` (hand-written members);
2. members owned by the modules whose behaviour they are (each module's ``TENSOR_MEMBERS``): the legacy
   constructor and ``new_*`` (ops/creation), indexing (ops/indexing), the in-place write-back
   (ops/_views), autograd entry points (autograd), ``repr`` (_printing), ``to_sparse`` (_sparse_tensor),
   pickling (serialization), ``__torch_function__`` and the subclass hook (overrides);
3. the op table's generated methods and in-place methods (``_functions.METHODS``);
4. the Python operators and adapters over table functions (``_tensor_dunders.members``).

It also installs the autograd engine's per-leaf workaround hook on the device targets that need it
(``autograd/hooks.py``).

``x + y`` is therefore ``_tensor_dunders``'s ``__add__`` -> ``torch.add``'s generated wrapper
(``ops/_bind.py``) -> the ``add`` implementation registered in ``ops/arithmetic.py``.
"""
from . import _runtime
from ._tensor import Tensor
from . import _functions, _printing, _sparse_tensor, _tensor_dunders, autograd, overrides, serialization
from .autograd import hooks
from .nn.parameter import Parameter
from .ops import _views, creation, indexing
from .utils import dlpack

_OWNED = (creation, indexing, _views, autograd, _printing, _sparse_tensor, serialization, overrides, dlpack)


def install():
    members = {}
    own = set(vars(Tensor))
    for module in _OWNED:
        for name, value in module.TENSOR_MEMBERS.items():
            if name in own or name in members:
                raise RuntimeError(f"Tensor.{name} is defined twice ({module.__name__})")
            members[name] = value
    for name, value in _functions.METHODS.items():
        if name not in own and name not in members:
            members[name] = value
    _set(Tensor, members)
    _set(Tensor, {name: value for name, value in _tensor_dunders.members(vars(Tensor)).items()
                  if name not in own})
    _set(Parameter, serialization.PARAMETER_MEMBERS)
    hooks.install_leaf_hook(_runtime.device_target())   # the engine workaround, where a device needs it


def _set(cls, members):
    for name, value in members.items():
        setattr(cls, name, value)
