"""The op list: every family module here contributes ``OPS`` (a list of OpInfo)."""
import importlib
import pkgutil

from .common import FORMS, OpInfo, S, E, EType  # noqa: F401

ALL = []
for _info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if _info.name != "common":
        ALL.extend(importlib.import_module(f"{__name__}.{_info.name}").OPS)

BY_NAME = {}
for _op in ALL:
    BY_NAME.setdefault(_op.name, []).append(_op)
