"""torch._dynamo on mstorch: the decorators and queries that models use around compiled regions.

mstorch runs every model eagerly (``torch.compile`` returns an eager wrapper, see ``_compile``), so there is
no graph capture to steer: ``is_compiling()`` is always False (as in torch outside a compiled region),
``disable``/``allow_in_graph``/``assume_constant_result`` return the function they decorate (torch's also
return a callable that computes the same thing in eager mode), and ``mark_static_address`` tags the tensor as
torch's does. ``config`` holds dynamo's settings as plain attributes, read by nobody. The exceptions and
``OptimizedModule`` are torch's types, so ``except``/``isinstance`` work."""
import types as _types

from .._compile import OptimizedModule, _BACKENDS
from . import exc, utils  # noqa: F401
from . import _trace_wrapped_higher_order_op  # noqa: F401

__all__ = ["allow_in_graph", "assume_constant_result", "disable", "is_compiling", "mark_static_address",
           "mark_dynamic", "maybe_mark_dynamic", "mark_unbacked", "reset", "list_backends", "config",
           "OptimizedModule"]

# torch._dynamo.eval_frame.OptimizedModule is the class torch.compile(module) returns
eval_frame = _types.ModuleType("torch._dynamo.eval_frame", "torch._dynamo.eval_frame: OptimizedModule")
eval_frame.OptimizedModule = OptimizedModule

# the settings models read or set (transformers sets capture_scalar_outputs); nothing compiles here
config = _types.ModuleType("torch._dynamo.config", "torch._dynamo.config: dynamo's settings (no effect in mstorch)")
config.capture_scalar_outputs = False
config.capture_dynamic_output_shape_ops = False
config.cache_size_limit = 8
config.recompile_limit = 8
config.accumulated_cache_size_limit = 256
config.accumulated_recompile_limit = 256
config.suppress_errors = False
config.verbose = False
config.optimize_ddp = True
config.skip_fwd_side_effects_in_bwd_under_checkpoint = False
config.allow_unspec_int_on_nn_module = False
config.inline_inbuilt_nn_modules = True


def is_compiling():
    """Mirrors torch._dynamo.is_compiling: False, nothing is ever being traced in mstorch."""
    return False


def disable(fn=None, recursive=True, *, reason=None, wrapping=True):
    """Mirrors torch._dynamo.disable: ``fn`` runs eagerly, which every mstorch function does."""
    if fn is None:
        return lambda f: disable(f, recursive, reason=reason, wrapping=wrapping)
    if not callable(fn):
        raise AssertionError(f"expected a callable, got {type(fn)}")
    return fn


def allow_in_graph(fn):
    """Mirrors torch._dynamo.allow_in_graph: returns ``fn`` (there is no graph to put it in)."""
    if isinstance(fn, (list, tuple)):
        return [allow_in_graph(x) for x in fn]
    if not callable(fn):
        raise AssertionError("allow_in_graph expects a callable")
    return fn


def assume_constant_result(fn):
    """Mirrors torch._dynamo.assume_constant_result: marks ``fn`` and returns it."""
    fn._dynamo_marked_constant = True
    return fn


def mark_static_address(t, guard=False):
    """Mirrors torch._dynamo.mark_static_address: tags the tensor (read by compiled graphs; none here)."""
    from .._tensor import Tensor
    if not isinstance(t, Tensor):
        raise TypeError(f"mark_static_address expects a tensor but received {type(t)}")
    t._dynamo_static_input_type = "guarded" if guard else "unguarded"


def _mark_dims(attr):
    def mark(t, index, *args, **kwargs):
        dims = index if isinstance(index, (list, tuple)) else [index]
        marked = getattr(t, attr, None) or set()
        t.__dict__[attr] = marked | set(dims)
    return mark


mark_dynamic = _mark_dims("_dynamo_dynamic_indices")
maybe_mark_dynamic = _mark_dims("_dynamo_weak_dynamic_indices")
mark_unbacked = _mark_dims("_dynamo_unbacked_indices")


def reset():
    """Mirrors torch._dynamo.reset: there are no compiled-code caches to clear."""


def list_backends(exclude_tags=("debug", "experimental")):
    """The backend names torch.compile accepts (it runs each of them eagerly in mstorch)."""
    excluded = {"aot_eager_decomp_partition_crossref", "aot_eager_decomp_partition_with_mode",
                "aot_eager_default_partitioner", "dynamo_accuracy_minifier_backend", "dynamo_minifier_backend",
                "eager_debug", "eager_noexcept", "invoke_subgraph", "pre_dispatch_eager", "aot_eager",
                "aot_eager_decomp_partition", "eager", "aot_ts", "ts"} if exclude_tags else set()
    return sorted(_BACKENDS - excluded)
