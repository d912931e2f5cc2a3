"""torch.utils: the parts mstorch provides. Only ``hooks`` is imported with the package: autograd and nn import
it while mstorch itself is still importing; ``mstorch/__init__`` imports the others once their names exist."""
import importlib as _importlib

from . import hooks  # noqa: F401


def _import_submodules():
    for name in ("data", "checkpoint", "_pytree"):
        _importlib.import_module(f"{__name__}.{name}")
