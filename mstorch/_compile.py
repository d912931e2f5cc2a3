"""torch.compile: mstorch runs eagerly (MindSpore PyNative), so compiling changes nothing but the wrapper.

What stays observable is kept: torch's argument checks and messages, ``OptimizedModule`` around a
module (its ``state_dict`` keys carry torch's ``_orig_mod.`` prefix, attributes read and write
through to the original module), a ``functools.wraps`` wrapper around a function, the decorator
forms, and ``disable=True`` returning the model itself.
"""
import functools

from .nn.modules import module as _module_mod
from .nn.modules.module import Module

__all__ = ["compile", "OptimizedModule", "InvalidBackend"]

_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")
# torch._dynamo.list_backends(exclude_tags=()) in torch 2.13
_BACKENDS = {"aot_eager", "aot_eager_decomp_partition", "aot_eager_decomp_partition_crossref",
             "aot_eager_decomp_partition_with_mode", "aot_eager_default_partitioner", "aot_ts", "cudagraphs",
             "dynamo_accuracy_minifier_backend", "dynamo_minifier_backend", "eager", "eager_debug",
             "eager_noexcept", "inductor", "invoke_subgraph", "openxla", "openxla_eval", "pre_dispatch_eager", "ts",
             "tvm"}


class InvalidBackend(RuntimeError):
    """Mirrors torch._dynamo.exc.InvalidBackend."""

    def __init__(self, name):
        super().__init__(f"Invalid backend: {name!r}, see `torch._dynamo.list_backends()` for available backends.")


def _has_any_global_hook():
    m = _module_mod
    return bool(m._global_backward_pre_hooks or m._global_backward_hooks or m._global_forward_pre_hooks
                or m._global_forward_hooks or m._global_forward_hooks_with_kwargs)


class OptimizedModule(Module):
    """Mirrors torch._dynamo.eval_frame.OptimizedModule; ``forward`` runs the original module eagerly."""

    _opt_mod_attributes = {"_orig_mod", "dynamo_ctx", "_torchdynamo_orig_callable", "forward", "_forward",
                           "__dict__", "_super_module_initialized", "get_compiler_config"}

    def __init__(self, mod, dynamo_ctx=None):
        object.__setattr__(self, "_orig_mod", mod)   # attribute access reads it before Module.__init__ ends
        object.__setattr__(self, "_super_module_initialized", False)
        super().__init__()
        object.__setattr__(self, "_super_module_initialized", True)
        # registered as the child ``_orig_mod`` (torch's state_dict prefix) without renaming the original
        # module's MindSpore parameters, which keep the names the original module gives them
        del self.__dict__["_orig_mod"]
        self._modules["_orig_mod"] = self._cells["_orig_mod"] = mod
        object.__setattr__(self, "dynamo_ctx", dynamo_ctx)

    def forward(self, *args, **kwargs):
        return self._orig_mod(*args, **kwargs)

    def __call__(self, *args, **kwargs):
        if _has_any_global_hook():
            import warnings
            warnings.warn(
                "Using `torch.compile(module)` when there are global hooks on modules (e.g., from "
                "`register_module_forward_hook`); this will cause the hooks to fire an extra time for the "
                "`OptimizedModule` created by `torch.compile(module)`. If this causes undesired behavior, please "
                "try using `module.compile()`, or use the per-module hooks instead", stacklevel=2)
        return Module._call_impl(self, *args, **kwargs)

    def __len__(self):
        mod = self._orig_mod
        if hasattr(type(mod), "__len__"):
            return len(mod)
        raise TypeError(f"{type(mod).__name__} does not support len()")

    def __reduce_ex__(self, protocol):
        return (self.__class__, (self._orig_mod, self.dynamo_ctx))

    @property
    def training(self):
        return self._orig_mod.training

    @training.setter
    def training(self, value):
        # the Module default set during __init__ is ignored; afterwards the original module's flag changes
        if self.__dict__.get("_super_module_initialized"):
            self._orig_mod.training = value

    def __getattr__(self, name):
        d = self.__dict__
        if name == "_orig_mod":
            if "_modules" in d and "_orig_mod" in d["_modules"]:
                return d["_modules"]["_orig_mod"]
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        if not d.get("_super_module_initialized"):
            return Module.__getattr__(self, name)
        return getattr(self._orig_mod, name)

    def __setattr__(self, name, value):
        if (not self.__dict__.get("_super_module_initialized") or hasattr(type(self), name)
                or name in OptimizedModule._opt_mod_attributes):
            return Module.__setattr__(self, name, value)
        return setattr(self._orig_mod, name, value)

    def __delattr__(self, name):
        if hasattr(type(self), name) or name in OptimizedModule._opt_mod_attributes:
            return Module.__delattr__(self, name)
        return delattr(self._orig_mod, name)


def _check_backend(backend, mode, options, dynamic):
    if backend == "inductor":
        if mode not in _MODES and mode is not None:
            raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
        if options is not None:
            options.items()   # torch iterates the options dict (a non-mapping fails there)
    elif isinstance(backend, str) and backend not in _BACKENDS:
        raise InvalidBackend(name=backend)
    if dynamic is not None and not isinstance(dynamic, bool):
        raise AssertionError(f"Expected enable to be a bool, got {type(dynamic)}")


def compile(model=None, *, fullgraph=False, dynamic=None, backend=None, mode=None, options=None, name=None,
            disable=False, recompile_limit=None, isolate_recompiles=False, shapes_spec=None):
    """Mirrors torch.compile. mstorch executes eagerly; the result computes exactly what ``model`` does."""
    if backend is None:
        backend = "inductor"
    if model is None:
        def fn(model):
            if model is None:
                raise RuntimeError("Model can't be None")
            return compile(model, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                           options=options, name=name, disable=disable, recompile_limit=recompile_limit,
                           isolate_recompiles=isolate_recompiles, shapes_spec=shapes_spec)
        return fn
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if mode is None and options is None:
        mode = "default"
    _check_backend(backend, mode, options, dynamic)
    if disable:
        return model
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    if isinstance(model, Module):
        return OptimizedModule(model)

    @functools.wraps(model)
    def compiled(*args, **kwargs):
        return model(*args, **kwargs)
    compiled._torchdynamo_orig_callable = model
    return compiled


compile.mstorch_difference = "returns torch's OptimizedModule wrapper, but the model runs eagerly (no graph capture)"
