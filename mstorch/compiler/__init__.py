"""torch.compiler: the public face of torch.compile's machinery, answering as eager torch on CPU does
(see ``mstorch._dynamo``): nothing is ever compiling or exporting, ``disable`` leaves calls as they are,
``wrap_numpy`` runs its NumPy function on the tensors' arrays."""
from .. import _dynamo, _runtime
from .._compile import compile  # noqa: F401,A004
from .._dynamo import (allow_in_graph, assume_constant_result, list_backends, reset, set_stance,  # noqa: F401
                       substitute_in_graph)
from . import config  # noqa: F401

__all__ = ["compile", "config", "assume_constant_result", "reset", "allow_in_graph", "substitute_in_graph",
           "list_backends", "disable", "set_default_backend", "get_default_backend", "set_stance",
           "cudagraph_mark_step_begin", "wrap_numpy", "is_compiling", "is_dynamo_compiling", "is_exporting",
           "save_cache_artifacts", "load_cache_artifacts", "nested_compile_region"]

_default_backend = ["inductor"]


def disable(fn=None, recursive=True, *, reason=None):
    return _dynamo.disable(fn, recursive, reason=reason)


def is_compiling():
    """True while torch.compile records a forward into a MindSpore graph."""
    return _runtime.CAPTURE[0]


def is_dynamo_compiling():
    return _runtime.CAPTURE[0]


def is_exporting():
    return False


def cudagraph_mark_step_begin():
    """Marks a new iteration for CUDA graph trees: there are none, so there is nothing to mark."""


def set_default_backend(backend):
    if backend not in _dynamo.list_backends(()):
        from .._compile import InvalidBackend
        raise InvalidBackend(backend)
    _default_backend[0] = backend


def get_default_backend():
    return _default_backend[0]


def wrap_numpy(fn):
    """torch.compiler.wrap_numpy: ``fn`` from arrays to arrays becomes a function from tensors to tensors
    (tensor arguments passed as their ``numpy()`` arrays, array results returned as tensors)."""
    import functools

    import numpy as np

    from .. import as_tensor
    from .._tensor import Tensor
    from ..utils import _pytree as pytree

    @functools.wraps(fn)
    def wrap(*args, **kwargs):
        args, kwargs = pytree.tree_map_only(Tensor, lambda x: x.numpy(), (args, kwargs))
        out = fn(*args, **kwargs)
        return pytree.tree_map_only(np.ndarray, as_tensor, out)
    return wrap


def save_cache_artifacts():
    """Nothing was compiled, so there are no artifacts: torch returns None then."""
    return None


def load_cache_artifacts(serialized_artifacts):
    raise RuntimeError("mstorch: torch.compiler.load_cache_artifacts reads torch's compiled-code caches, which "
                       "mstorch (eager on MindSpore) cannot use")


def set_enable_guard_collectives(enabled):
    """Whether compiled code shares guard checks across ranks; returns the previous setting."""
    prev = _guard_collectives[0]
    _guard_collectives[0] = bool(enabled)
    return prev


_guard_collectives = [False]


def _guard_filter(name):
    def refuse(guard_entries, *args, **kwargs):
        raise RuntimeError(f"mstorch: torch.compiler.{name} filters Dynamo's guards; mstorch captures no graphs "
                           "and builds no guards")
    refuse.__name__ = name
    return refuse


for _n in ("keep_portable_guards_unsafe", "keep_tensor_guards_unsafe", "skip_all_guards_unsafe",
           "skip_guard_on_all_nn_modules_unsafe", "skip_guard_on_globals_unsafe",
           "skip_guard_on_inbuilt_nn_modules_unsafe"):
    globals()[_n] = _guard_filter(_n)


def load_compiled_function(file, *, f_globals=None, external_data=None):
    raise RuntimeError("mstorch: torch.compiler.load_compiled_function loads torch's compiled code, which mstorch "
                       "(eager on MindSpore) cannot run")


def nested_compile_region(fn=None):
    """Marks a region compiled once and reused: eagerly, the function itself."""
    if fn is None:
        return lambda f: f
    return fn
