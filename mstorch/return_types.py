"""torch.return_types: the named-tuple types of ops with several results (``torch.max(x, 1)`` is a
``torch.return_types.max``), for ``isinstance`` checks and for building one by hand.

The types are made by the op families that return them (``ops/reduction.return_type``); this module names
them. torch has a twin ``<name>_out`` type per op for its ``out=`` overloads; mstorch's ``out=`` calls return
the same type, so each ``_out`` name is that type.
"""
from .ops.reduction import _RETURN_TYPES


def _public():
    return {name: t for name, t in _RETURN_TYPES.items() if not name.startswith("_")}


def __getattr__(name):
    types = _public()
    if name in types:
        return types[name]
    if name.endswith("_out") and name[:-4] in types:
        return types[name[:-4]]
    if name == "all_return_types":
        return list(types.values())
    raise AttributeError(f"module 'torch.return_types' has no attribute '{name}'")


def __dir__():
    names = _public()
    return sorted([*names, *(n + "_out" for n in names), "all_return_types"])
