"""torch.multiprocessing on mstorch: Python's ``multiprocessing`` with mstorch tensors picklable onto its
queues and pipes (they travel as NumPy arrays; torch moves them through shared memory), plus ``spawn``.

``Process`` and the contexts' ``Process`` run MindSpore's fork callbacks when they fork, so a forked
child can run MindSpore kernels after its parent has."""
import multiprocessing
import sys
from multiprocessing import *  # noqa: F401,F403

from ..utils.data._worker import process_class as _process_class, register_tensor_reducer as _register
from .spawn import (ENV_VAR_PARALLEL_START, ProcessContext, ProcessException, ProcessExitedException,  # noqa: F401
                    ProcessRaisedException, SpawnContext, spawn, start_processes)

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies"]
__all__ += multiprocessing.__all__

_register()


class _Context:
    """A ``multiprocessing`` context whose ``Process`` is fork-safe for MindSpore."""

    def __init__(self, ctx):
        self._ctx = ctx

    @property
    def Process(self):  # noqa: N802
        return _process_class(self._ctx)

    def __getattr__(self, name):
        return getattr(self._ctx, name)

    def __repr__(self):
        return repr(self._ctx)


def get_context(method=None):
    return _Context(multiprocessing.get_context(method))


def __getattr__(name):
    if name == "Process":        # follows set_start_method, as multiprocessing.Process does
        return _process_class(multiprocessing.get_context())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


del Process  # noqa: F821  (resolved by __getattr__ above)

if sys.platform == "darwin" or sys.platform == "win32":
    _sharing_strategy = "file_system"
    _all_sharing_strategies = {"file_system"}
else:
    _sharing_strategy = "file_descriptor"
    _all_sharing_strategies = {"file_descriptor", "file_system"}


def set_sharing_strategy(new_strategy):
    """Mirrors ``torch.multiprocessing.set_sharing_strategy`` (recorded; tensors are pickled either way)."""
    global _sharing_strategy
    if new_strategy not in _all_sharing_strategies:
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}, expected one of {_all_sharing_strategies}")
    _sharing_strategy = new_strategy


def get_sharing_strategy():
    return _sharing_strategy


def get_all_sharing_strategies():
    return _all_sharing_strategies
