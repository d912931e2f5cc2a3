"""The layer list: every family module here contributes ``MODULES`` (a list of ModuleInfo)."""
import importlib
import pkgutil

from .common import ModuleInfo, M  # noqa: F401

ALL = []
for _info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if _info.name != "common":
        ALL.extend(importlib.import_module(f"{__name__}.{_info.name}").MODULES)
