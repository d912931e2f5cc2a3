"""Run at start-up by the children that ``mstorch.multiprocessing`` spawns from a ``python -m mstorch run``
process (their PYTHONPATH names this folder): ``import torch`` resolves to mstorch there too, before
the parent's main module is imported again. Then the environment's own sitecustomize, if any, runs."""
import importlib.machinery
import importlib.util
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
if os.environ.pop("MSTORCH_SPAWN_ALIAS", "") == "1":
    from mstorch._compat import alias

    alias.install()
_spec = importlib.machinery.PathFinder.find_spec("sitecustomize", sys.path)
if _spec is not None and _spec.loader is not None:
    _spec.loader.exec_module(importlib.util.module_from_spec(_spec))
