"""torch.nn.modules: every family file here exports its layers through ``__all__``."""
import importlib
import pkgutil

from .module import Module  # noqa: F401
from .container import Container, Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict  # noqa: F401

__all__ = ["Module", "Container", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]
_INTERNAL = {"module", "container", "hooks", "backward_hooks", "native", "utils"}

for _info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if _info.name.startswith("_") or _info.name in _INTERNAL:
        continue
    _mod = importlib.import_module(f"{__name__}.{_info.name}")
    for _name in getattr(_mod, "__all__", ()):
        globals()[_name] = getattr(_mod, _name)
        __all__.append(_name)
