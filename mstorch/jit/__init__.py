"""torch.jit for an eager backend: TorchScript's Python API, with the code running as plain Python.

mstorch runs eagerly on MindSpore and has no TorchScript compiler, so ``script`` and ``trace`` return
the object they are given (``script(fn)(x) == fn(x)``), after torch's argument checks and warnings;
``trace`` runs the function once on the example inputs as torch's tracer does and checks the output
structure as torch does. A function comes back wrapped in a ``ScriptFunction`` that calls it; a module
comes back itself, marked so that ``isinstance(m, torch.jit.ScriptModule)`` (``RecursiveScriptModule``,
``TracedModule``) answers as for torch's scripted copy. Archives (``save``/``load``) raise:
a TorchScript file holds compiled TorchScript code that only torch's JIT can write or run.
See docs/known-differences.md.
"""
import collections
import collections.abc
import contextlib
import functools
import inspect
import types
import typing
import warnings
from typing import Final  # noqa: F401  (torch.jit.Final is typing.Final)

from .. import nn as _nn
from ..ops._registry import unsupported
from .._tensor import Tensor as _Tensor
from .._future import Future, _CFuture as _Future   # torch.jit.Future is torch.futures.Future

__all__ = ["Attribute", "Error", "Final", "Future", "ScriptFunction", "ScriptModule", "annotate", "export",
           "enable_onednn_fusion", "fork", "freeze", "interface", "ignore", "isinstance", "is_scripting",
           "is_tracing", "load", "onednn_fusion_enabled", "optimize_for_inference", "save", "script",
           "script_if_tracing", "set_fusion_strategy", "strict_fusion", "trace", "trace_module", "unused",
           "wait", "fuser", "optimized_execution"]

_builtin_isinstance = isinstance
_MARK = "_mstorch_jit"          # "script" or "trace": how the object went through torch.jit
_state = {"tracing": 0, "onednn": False, "fusion": [("STATIC", 2), ("DYNAMIC", 10)]}


def _deprecated(api, hint="Please switch to `torch.compile` or `torch.export`."):
    warnings.warn(f"`torch.jit.{api}` is deprecated. {hint}", DeprecationWarning, stacklevel=3)


def _optimize_deprecated(optimize):
    if optimize is not None:
        warnings.warn("`optimize` is deprecated and has no effect. Use `with torch.jit.optimized_execution()` "
                      "instead", FutureWarning, stacklevel=3)


def _torch_name(cls):
    module = cls.__module__
    if module == "mstorch" or module.startswith("mstorch."):
        module = "torch" + module[len("mstorch"):]
    return f"<class '{module}.{cls.__qualname__}'>"


def _mark(module, kind):
    module.__dict__[_MARK] = kind  # plain instance state: no parameter/submodule registration
    return module


def _kind(obj):
    return obj.__dict__.get(_MARK) if _builtin_isinstance(obj, _nn.Module) else None


# --- ScriptModule / ScriptFunction: names for isinstance checks ------------------------------------

class _JitMeta(type):
    """isinstance(x, ScriptModule) is True for modules that went through script/trace (torch returns a
    ScriptModule there; mstorch returns the module itself, marked) and for real subclasses."""

    def __instancecheck__(cls, obj):
        if type.__instancecheck__(cls, obj):
            return True
        accepts = cls.__dict__.get("_accepts")
        return accepts is not None and accepts(obj)


class ScriptModule(_nn.Module, metaclass=_JitMeta):
    """torch.jit.ScriptModule: subclassing it gives an ordinary (eager) Module; see ``script_method``."""

    @staticmethod
    def _accepts(obj):
        return _builtin_isinstance(obj, _nn.Module) and _kind(obj) is not None

    def __setattr__(self, name, value):
        if _builtin_isinstance(value, Attribute):
            value = value.value
        super().__setattr__(name, value)


class RecursiveScriptModule(ScriptModule):
    @staticmethod
    def _accepts(obj):
        return _builtin_isinstance(obj, _nn.Module) and _kind(obj) == "script"


class TracedModule(ScriptModule):
    @staticmethod
    def _accepts(obj):
        return _builtin_isinstance(obj, _nn.Module) and _kind(obj) == "trace"


class TopLevelTracedModule(TracedModule):
    _accepts = TracedModule._accepts


class ScriptFunction:
    """What ``script(fn)`` / ``trace(fn)`` return: calls the Python function (no compilation)."""

    def __init__(self, *args, **kwargs):
        raise TypeError("torch.jit.ScriptFunction: No constructor defined")

    @classmethod
    def _of(cls, fn):
        self = object.__new__(cls)
        functools.update_wrapper(self, fn)
        self._fn = fn
        return self

    def __call__(self, *args, **kwargs):
        return self._fn(*args, **kwargs)

    @property
    def name(self):
        return getattr(self._fn, "__name__", "_lambda").replace("<lambda>", "_lambda")

    @property
    def qualified_name(self):
        module = getattr(self._fn, "__module__", None) or "__main__"
        return ("__torch__" if module == "__main__" else "__torch__." + module) + "." + self.name

    def __repr__(self):
        return f"<torch.jit.ScriptFunction object at {hex(id(self))}>"


ScriptFunction.__module__ = "torch.jit"


class RecursiveScriptClass:
    """torch.jit.RecursiveScriptClass: mstorch's ``script(cls)`` returns the class itself, as torch does."""


Attribute = collections.namedtuple("Attribute", ["value", "type"])
Attribute.__module__ = "torch.jit._script"


class Error(Exception):
    """torch.jit.Error (raised by TorchScript code; eager mstorch code raises Python's own errors)."""


Error.__module__ = "torch.jit"


class ScriptWarning(Warning):
    pass


class TracerWarning(Warning):
    pass


class TracingCheckError(Exception):
    def __init__(self, graph_diff_error, tensor_compare_error, extra_msg=None):
        message = "Tracing failed sanity checks!\n"
        if extra_msg is not None:
            message += extra_msg + "\n"
        if graph_diff_error is not None:
            message += "ERROR: Graphs differed across invocations!\n" + graph_diff_error + "\n"
        if tensor_compare_error is not None:
            message += ("ERROR: Tensor-valued Constant nodes differed in value across invocations. This often "
                        "indicates that the tracer has encountered untraceable code.\n" + tensor_compare_error
                        + "\n")
        super().__init__(message)


# --- script ---------------------------------------------------------------------------------------

def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """Mirrors torch.jit.script; returns ``obj`` itself (mstorch runs eagerly)."""
    _deprecated("script")
    _optimize_deprecated(optimize)
    if _builtin_isinstance(obj, ScriptFunction) or _kind(obj) is not None:
        return obj
    if example_inputs:
        warnings.warn("Warning: monkeytype is not installed. Please install https://github.com/Instagram/MonkeyType "
                      "to enable Profile-Directed Typing in TorchScript. Refer to "
                      "https://github.com/Instagram/MonkeyType/blob/master/README.rst to install MonkeyType. ",
                      stacklevel=2)
    if _builtin_isinstance(obj, _nn.Module):
        return _mark(_prepare_scriptable(obj, {}), "script")
    if hasattr(obj, "__prepare_scriptable__"):
        obj = obj.__prepare_scriptable__()
    if inspect.isclass(obj):
        if issubclass(obj, _nn.Module):
            raise RuntimeError(f"Type '{_torch_name(obj)}' cannot be compiled since it inherits from nn.Module, "
                               "pass an instance instead")
        import enum
        if issubclass(obj, enum.Enum):
            return obj
        if len(obj.mro()) > 2:
            raise RuntimeError("TorchScript classes does not support inheritance yet. Please directly inherit "
                               "from 'object'.")
        return obj
    if inspect.isfunction(obj) or inspect.ismethod(obj):
        original = getattr(obj, "_mstorch_script_if_tracing", None)
        return ScriptFunction._of(original if original is not None else obj)
    return obj


def _prepare_scriptable(module, memo):
    # torch calls __prepare_scriptable__ on the module and, recursively, on its submodules
    if id(module) in memo:
        return memo[id(module)]
    prepared = module.__prepare_scriptable__() if hasattr(module, "__prepare_scriptable__") else module
    memo[id(module)] = prepared
    children = getattr(prepared, "_modules", None)
    if _builtin_isinstance(children, dict):
        for name, child in list(children.items()):
            if child is not None and hasattr(child, "__prepare_scriptable__"):
                new = _prepare_scriptable(child, memo)
                if new is not child:
                    setattr(prepared, name, new)
    return prepared


def script_method(fn):
    _deprecated("script_method")
    return fn


def script_if_tracing(fn):
    """Mirrors torch.jit.script_if_tracing: ``fn`` runs as Python."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    wrapper._mstorch_script_if_tracing = fn
    return wrapper


def interface(obj):
    _deprecated("interface", "Please use `torch.compile` instead.")
    if not inspect.isclass(obj):
        raise RuntimeError("interface must be applied to a class")
    # torch: the MRO is (cls, Module, object); mstorch's Module has mindspore.nn.Cell's bases behind it
    is_module_interface = issubclass(obj, _nn.Module) and obj.mro()[1] is _nn.Module
    if not is_module_interface and len(obj.mro()) > 2:
        raise RuntimeError("TorchScript interface does not support inheritance yet. Please directly inherit from "
                           "'object' or 'nn.Module'.")
    module = obj.__module__
    prefix = "__torch__" if module == "__main__" else "__torch__." + module
    obj.__torch_script_interface__ = f"{prefix}.{obj.__name__}"
    return obj


# --- trace ----------------------------------------------------------------------------------------

def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-5,
          strict=True, _force_outplace=False, _module_class=None, _compilation_unit=None,
          example_kwarg_inputs=None, _store_inputs=True):
    """Mirrors torch.jit.trace: runs ``func`` once on the example and returns it (mstorch runs eagerly).

    ``check_trace``/``check_inputs``/``check_tolerance`` are accepted and not used: nothing is recorded,
    so there is no trace to check against a second run.
    """
    _deprecated("trace")
    _optimize_deprecated(optimize)
    if _builtin_isinstance(func, ScriptModule):
        warnings.warn("The input to trace is already a ScriptModule, tracing it is a no-op. Returning the object "
                      "as is.", stacklevel=2)
        return func
    owner = getattr(func, "__self__", None)
    module = func if _builtin_isinstance(func, _nn.Module) else None
    if module is None and _builtin_isinstance(owner, _nn.Module) and func.__name__ == "forward":
        module = owner
    if module is not None:
        if example_inputs is None:
            if not _builtin_isinstance(example_kwarg_inputs, dict):
                raise RuntimeError("example_kwarg_inputs should be a dict")
            example_inputs = example_kwarg_inputs
        return trace_module(module, {"forward": example_inputs}, None, check_trace, check_inputs,
                            check_tolerance, strict, _force_outplace, _module_class,
                            example_inputs_is_kwarg=_builtin_isinstance(example_kwarg_inputs, dict),
                            _store_inputs=_store_inputs)
    if _builtin_isinstance(owner, _nn.Module):
        raise AttributeError("trace doesn't support compiling individual module's functions.\n"
                             "Please use trace_module")
    if _builtin_isinstance(example_kwarg_inputs, dict):
        _run_traced(func, (), example_kwarg_inputs, strict)
    else:
        if _builtin_isinstance(example_inputs, (_Tensor, dict)):
            example_inputs = (example_inputs,)
        elif not _builtin_isinstance(example_inputs, tuple):
            example_inputs = tuple(example_inputs)
        _run_traced(func, example_inputs, {}, strict)
    return ScriptFunction._of(func)


def trace_module(mod, inputs, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-5,
                 strict=True, _force_outplace=False, _module_class=None, _compilation_unit=None,
                 example_inputs_is_kwarg=False, _store_inputs=True):
    """Mirrors torch.jit.trace_module: runs each named method once on its example; returns ``mod``."""
    _deprecated("trace_method")
    _optimize_deprecated(optimize)
    if not _builtin_isinstance(mod, _nn.Module):
        raise AttributeError("expected torch.nn.Module as the first argument")
    if not _builtin_isinstance(inputs, dict):
        raise AttributeError("expected a dictionary of (method_name, input) pairs")
    for method_name, example in inputs.items():
        method = mod if method_name == "forward" else getattr(mod, method_name)
        if example_inputs_is_kwarg:
            _run_traced(method, (), example, strict)
        else:
            if _builtin_isinstance(example, (_Tensor, dict)):
                example = (example,)
            elif not _builtin_isinstance(example, tuple):
                example = tuple(example)
            _run_traced(method, example, {}, strict)
    # torch scripts a module with @export methods instead of wrapping it as a TracedModule
    return _mark(mod, "script" if _has_exports(mod) else "trace")


def _has_exports(mod):
    cls = type(mod)
    return any(getattr(getattr(cls, name, None), "_torchscript_modifier", None) == _MODIFIERS["export"]
               for name in dir(cls))


def _run_traced(func, args, kwargs, strict):
    _state["tracing"] += 1
    try:
        out = func(*args, **kwargs)
    finally:
        _state["tracing"] -= 1
    if out is None:
        raise RuntimeError("The traced function didn't return any values! Side-effects are not captured in "
                           "traces, so it would be a no-op.")
    _check_trace_output(out, strict)


def _check_trace_output(out, strict):
    if _builtin_isinstance(out, _Tensor):
        return
    if _builtin_isinstance(out, dict) and strict:
        raise RuntimeError(
            "Encountering a dict at the output of the tracer might cause the trace to be incorrect, this is "
            "only valid if the container structure does not change based on the module's inputs. Consider using "
            "a constant container instead (e.g. for `list`, use a `tuple` instead. for `dict`, use a `NamedTuple` "
            "instead). If you absolutely need this and know the side effects, pass strict=False to trace() to "
            "allow this behavior.")
    if _builtin_isinstance(out, (tuple, list)):
        for item in out:
            _check_trace_output(item, strict)
        return
    if _builtin_isinstance(out, dict):
        for item in out.values():
            _check_trace_output(item, strict)
        return
    raise RuntimeError("Only tensors, lists, tuples of tensors, or dictionary of tensors can be output from "
                       "traced functions")


def is_tracing():
    """True only while ``trace`` runs the example through the function (as torch's tracer)."""
    return _state["tracing"] > 0


def is_scripting():
    return False


# --- decorators and annotations -------------------------------------------------------------------

_MODIFIERS = {
    "unused": "unused (ignored and replaced with raising of an exception)",
    "ignore": "ignore (leave as a call to Python, cannot be torch.jit.save'd)",
    "export": "export (compile this function even if nothing calls it)",
    "_drop": "_drop (function is fully ignored, declaration can be unscriptable)",
}


def export(fn):
    fn._torchscript_modifier = _MODIFIERS["export"]
    return fn


def unused(fn):
    if _builtin_isinstance(fn, property):
        fn.fget._torchscript_modifier = _MODIFIERS["unused"]
        if fn.fset:
            fn.fset._torchscript_modifier = _MODIFIERS["unused"]
        return fn
    fn._torchscript_modifier = _MODIFIERS["unused"]
    return fn


def ignore(drop=False, **kwargs):
    """``@ignore`` or ``@ignore(drop=...)``; the function runs as Python in both libraries."""
    if callable(drop):
        drop._torchscript_modifier = _MODIFIERS["ignore"]
        return drop
    if not _builtin_isinstance(drop, bool):
        raise RuntimeError(f"Argument to @torch.jit.ignore must be a bool or a function but got {drop}")
    drop_on_export = kwargs.pop("drop_on_export", None)
    if drop_on_export:
        warnings.warn("ignore(drop_on_export=True) has been deprecated. TorchScript will now drop the function "
                      "call on compilation. Use torch.jit.unused now. {}", FutureWarning, stacklevel=2)
        drop = drop_on_export
    elif drop:
        warnings.warn("ignore(True) has been deprecated. TorchScript will now drop the function call on "
                      "compilation. Use torch.jit.unused now. {}", FutureWarning, stacklevel=2)

    def decorator(fn):
        fn._torchscript_modifier = _MODIFIERS["unused" if drop else "ignore"]
        return fn
    return decorator


def _drop(fn):
    fn._torchscript_modifier = _MODIFIERS["_drop"]
    return fn


def _overload(func):
    return func


def _overload_method(func):
    return func


def _unwrap_optional(x):
    assert x is not None, "Unwrapping null optional"
    return x


def annotate(the_type, the_value):
    """Mirrors torch.jit.annotate: returns ``the_value``."""
    return the_value


def isinstance(obj, target_type):  # noqa: A001 - torch.jit.isinstance
    """Mirrors torch.jit.isinstance: container refinement checked element by element in eager mode."""
    if _builtin_isinstance(target_type, collections.abc.Container):
        if not _builtin_isinstance(target_type, tuple):
            raise RuntimeError("The second argument to `torch.jit.isinstance` must be a type or a tuple of types")
        return any(isinstance(obj, t) for t in target_type)
    if typing.get_origin(target_type):
        return _container_matches(obj, target_type)
    _require_args(target_type)
    return _builtin_isinstance(obj, target_type)


_BARE_CONTAINERS = {dict: "dict", list: "list", tuple: "tuple", typing.Dict: "Dict", typing.List: "List",
                    typing.Optional: "Optional", typing.Tuple: "Tuple"}


def _require_args(target_type):
    try:
        name = _BARE_CONTAINERS.get(target_type)
    except TypeError:  # unhashable annotations
        return
    if name is None:
        return
    if name.endswith("ict"):
        raise RuntimeError(f"Attempted to use {name} without contained types. Please add contained type, e.g. "
                           f"{name}[int, int]")
    raise RuntimeError(f"Attempted to use {name} without a contained type. Please add a contained type, e.g. "
                       f"{name}[int]")


def _warn_if_empty(obj):
    if obj == [] or obj == {} or obj == ():
        warnings.warn("The inner type of a container is lost when calling torch.jit.isinstance in eager mode. For "
                      "example, List[int] would become list and therefore falsely return True for List[float] or "
                      "List[str].", stacklevel=3)


def _element_matches(value, annotation):
    if typing.get_origin(annotation):
        return _container_matches(value, annotation)
    return _builtin_isinstance(value, annotation)


def _container_matches(obj, target_type):
    origin, args = typing.get_origin(target_type), typing.get_args(target_type)
    _require_args(target_type)
    if origin is list:
        _warn_if_empty(obj)
        return _builtin_isinstance(obj, list) and all(_element_matches(el, args[0]) for el in obj)
    if origin is dict:
        _warn_if_empty(obj)
        return _builtin_isinstance(obj, dict) and all(
            _builtin_isinstance(k, args[0]) and _element_matches(v, args[1]) for k, v in obj.items())
    if origin is tuple:
        _warn_if_empty(obj)
        return (_builtin_isinstance(obj, tuple) and len(obj) == len(args)
                and all(_element_matches(el, t) for el, t in zip(obj, args)))
    if origin is typing.Union or origin is types.UnionType:
        if obj is None:
            return True
        for t in args:
            if typing.get_origin(t):
                return _container_matches(obj, t)   # torch decides on the first container member
            if _builtin_isinstance(obj, t):
                return True
    return False


# --- fork / wait ----------------------------------------------------------------------------------



def fork(func, *args, **kwargs):
    """Mirrors torch.jit.fork outside TorchScript: runs ``func`` now and returns a completed Future."""
    _deprecated("fork", "Please use `torch.compile` instead.")
    fut = _Future()
    fut.set_result(func(*args, **kwargs))
    return fut


def wait(future):
    _deprecated("wait", "Please use `torch.compile` instead.")
    return future.wait()


# --- archives: not available without torch ----------------------------------------------------------

def _no_archive(api, detail):
    return RuntimeError(
        f"torch.jit.{api} is not supported by mstorch: {detail} A TorchScript archive holds TorchScript code and "
        "graphs that only torch's JIT compiler can produce or run, and mstorch runs models eagerly on MindSpore. "
        "Save and load the weights instead: torch.save(model.state_dict(), f), then build the model in Python and "
        "call model.load_state_dict(torch.load(f)).")


def save(m, f, _extra_files=None):
    raise _no_archive("save", "it cannot write a TorchScript archive.")


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    raise _no_archive("load", "it cannot read a TorchScript archive.")


def save_jit_module_to_flatbuffer(m, f, _extra_files=None):
    raise _no_archive("save_jit_module_to_flatbuffer", "it cannot write a TorchScript flatbuffer.")


def jit_module_from_flatbuffer(f):
    raise _no_archive("jit_module_from_flatbuffer", "it cannot read a TorchScript flatbuffer.")


# ... and these as supported with a difference
script.mstorch_difference = "runs the function or module eagerly (no TorchScript compilation)"
trace.mstorch_difference = "runs the function once, then eagerly (no TorchScript graph)"

# present only to raise torch-style errors: the scanner (python -m mstorch scan) reports them as missing
for _fn in (save, load, save_jit_module_to_flatbuffer, jit_module_from_flatbuffer):
    unsupported(f"jit.{_fn.__name__}", "TorchScript archives cannot be written or read without torch")


def export_opnames(m):
    raise RuntimeError("torch.jit.export_opnames is not supported by mstorch: there is no TorchScript bytecode "
                       "to list the operators of (mstorch runs models eagerly on MindSpore).")


# --- freezing and fusion controls: no-ops on an eager backend ---------------------------------------

def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    _deprecated("freeze", "Please use `torch.compile` instead.")
    if not _builtin_isinstance(mod, ScriptModule):
        raise RuntimeError("Freezing expects a ScriptModule as input. Please use torch.jit.script or "
                           "torch.jit.trace to script your 'nn.Module'.")
    if mod.training:
        raise RuntimeError("Freezing is currently only implemented for modules in eval mode. Please call .eval() "
                           "on your module before freezing.")
    return mod


def run_frozen_optimizations(mod, optimize_numerics=True, preserved_methods=None):
    return None


def optimize_for_inference(mod, other_methods=None):
    _deprecated("optimize_for_inference", "Please use `torch.compile` instead.")
    if not _builtin_isinstance(mod, ScriptModule):
        raise RuntimeError("optimize_for_inference expects a ScriptModule as input. Please use torch.jit.script "
                           "or torch.jit.trace to script your 'nn.Module'.")
    return mod


@contextlib.contextmanager
def optimized_execution(should_optimize):
    yield


_FUSERS = ("fuser0", "fuser1", "fuser2", "fuser3", "none")


@contextlib.contextmanager
def fuser(name):
    if name not in _FUSERS:
        raise Exception(f"unrecognized fuser option (name: {name})")  # noqa: TRY002 - torch's type
    yield


def set_fusion_strategy(strategy):
    _deprecated("set_fusion_strategy", "Please use `torch.compile` instead.")
    previous, _state["fusion"] = _state["fusion"], list(strategy)
    return previous


def enable_onednn_fusion(enabled):
    _state["onednn"] = bool(enabled)


def onednn_fusion_enabled():
    return _state["onednn"]


class strict_fusion:
    def __init__(self):
        if not is_scripting():
            warnings.warn("Only works in script mode", stacklevel=2)

    def __enter__(self):
        pass

    def __exit__(self, type, value, tb):
        pass


_fork = fork
_wait = wait
_script_if_tracing = script_if_tracing   # the private name torchvision decorates with

from . import annotations  # noqa: E402,F401
