"""torch.overrides: the ``__torch_function__`` protocol for Tensor subclasses and tensor-likes.

Every op of mstorch's table (``torch.X``, ``Tensor.X``, ``nn.functional.X``, and the operators built on them)
hands calls with an overriding argument to ``handle_torch_function``, as torch's dispatcher does; the default
``Tensor.__torch_function__`` runs the op with overrides disabled and returns its tensors as the subclass.
Hand-written Tensor members (``__getitem__``, ``to``, ``detach``, ``item``...) do not dispatch (see
docs/known-differences.md). The switch that turns the check on is flipped by the first Tensor subclass that
overrides (mstorch's own Parameter and internal subclasses opt out as torch's do), so programs without one pay
a single global test per op.
"""
import functools
import sys
import threading

__all__ = ["handle_torch_function", "has_torch_function", "is_tensor_like", "wrap_torch_function",
           "is_tensor_method_or_property"]

_state = threading.local()   # .disabled: depth of DisableTorchFunction(Subclass) on this thread


def _disabled():
    return getattr(_state, "disabled", 0) > 0


class DisableTorchFunctionSubclass:
    """torch._C.DisableTorchFunctionSubclass: within it, ``__torch_function__`` overrides are not consulted."""

    def __enter__(self):
        _state.disabled = getattr(_state, "disabled", 0) + 1
        return self

    def __exit__(self, *exc):
        _state.disabled -= 1
        return False


DisableTorchFunction = DisableTorchFunctionSubclass   # mstorch has no torch function modes to disable besides


def _disabled_torch_function_impl(func, types, args=(), kwargs=None):
    """torch._C._disabled_torch_function_impl: the ``__torch_function__`` of classes that opt out (Parameter):
    the op runs as for a plain Tensor."""
    with DisableTorchFunctionSubclass():
        return func(*args, **(kwargs or {}))


def _tensor_cls():
    return sys.modules["mstorch"].Tensor


def _overrides(obj):
    """Whether ``obj`` brings a __torch_function__ of its own (not a plain Tensor, not an opted-out class)."""
    tp = type(obj)
    if tp is _tensor_cls():
        return False
    impl = getattr(tp, "__torch_function__", None)
    if impl is None or getattr(impl, "__func__", impl) is _disabled_torch_function_impl:
        return False
    # a real torch tensor (a process that imports both, as the compatibility tests do) is a foreign object to
    # mstorch's ops, not a tensor-like: its __torch_function__ would call the mstorch op back with torch's
    # overrides disabled, not ours
    return isinstance(obj, _tensor_cls()) or not any(
        c.__name__ == "TensorBase" and c.__module__ == "torch._C" for c in tp.__mro__)


def _flatten(relevant_args):
    for a in relevant_args:
        if type(a) in (list, tuple):
            yield from a
        else:
            yield a


def has_torch_function(relevant_args):
    """Mirrors torch.overrides.has_torch_function."""
    return not _disabled() and any(_overrides(a) for a in _flatten(relevant_args))


def has_torch_function_unary(arg):
    return not _disabled() and _overrides(arg)


def has_torch_function_variadic(*args):
    return has_torch_function(args)


def _overloaded_args(relevant_args):
    """torch's order: one argument per type, a subclass before its base classes, otherwise left to right."""
    found, types = [], []
    for a in _flatten(relevant_args):
        if not _overrides(a) or type(a) in types:
            continue
        index = len(found)
        for i, other in enumerate(found):
            if issubclass(type(a), type(other)):
                index = i
                break
        found.insert(index, a)
        types.append(type(a))
    return found


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Mirrors torch.overrides.handle_torch_function: the first override that does not return NotImplemented."""
    overloaded = _overloaded_args(relevant_args)
    types = tuple(type(a) for a in overloaded)
    for arg in overloaded:
        result = type(arg).__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    name = getattr(public_api, "__qualname__", None) or getattr(public_api, "__name__", repr(public_api))
    kinds = "".join(f"\n  - tensor subclass {type(a)}" for a in overloaded)
    raise TypeError(f"Multiple dispatch failed for '{_public_name(public_api, name)}'; all __torch_function__ "
                    f"handlers returned NotImplemented:\n{kinds}\n\nFor more information, try re-running with "
                    "TORCH_LOGS=not_implemented")


def _public_name(func, name):
    module = getattr(func, "__module__", "") or ""
    if "." in name:      # a Tensor method: torch.Tensor.add
        return "torch." + name
    return ("torch.nn.functional." if "functional" in module else "torch.") + name


def is_tensor_like(inp):
    """Mirrors torch.overrides.is_tensor_like."""
    return type(inp) is _tensor_cls() or hasattr(inp, "__torch_function__")


def is_tensor_method_or_property(func):
    """Mirrors torch.overrides.is_tensor_method_or_property."""
    Tensor = _tensor_cls()
    name = getattr(func, "__name__", None)
    return name is not None and getattr(Tensor, name, None) is func or isinstance(func, property)


def wrap_torch_function(dispatcher):
    """Mirrors torch.overrides.wrap_torch_function: ``dispatcher(*args, **kwargs)`` names the relevant
    arguments of the decorated function, which then dispatches to their overrides."""
    def decorator(func):
        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            relevant = dispatcher(*args, **kwargs)
            if has_torch_function(relevant):
                return handle_torch_function(wrapped, relevant, *args, **kwargs)
            return func(*args, **kwargs)
        return wrapped
    return decorator


# --- what the op wrappers call (mstorch/ops/_bind.py) ---------------------------------------------------------

NOT_OVERRIDDEN = object()


def dispatch(func, args, kwargs):
    """The result of the overrides among ``args``/``kwargs`` for ``func``, or NOT_OVERRIDDEN."""
    if _disabled():
        return NOT_OVERRIDDEN
    relevant = args + tuple(kwargs.values()) if kwargs else args
    for a in _flatten(relevant):
        if _overrides(a):
            return handle_torch_function(func, relevant, *args, **kwargs)
    return NOT_OVERRIDDEN


def convert(ret, cls):
    """torch's _convert: the tensors of a result as ``cls`` (tuples and lists element by element)."""
    Tensor = _tensor_cls()
    if cls is Tensor:
        return ret
    if isinstance(ret, Tensor) and not isinstance(ret, cls):
        return ret.as_subclass(cls)
    if isinstance(ret, (tuple, list)):
        return type(ret)(convert(r, cls) for r in ret) if not hasattr(ret, "_fields") else \
            type(ret)(*(convert(r, cls) for r in ret))
    return ret


def _tensor_torch_function(cls, func, types, args=(), kwargs=None):
    """torch.Tensor.__torch_function__: run ``func`` with overrides off and return its tensors as ``cls`` (the
    default every Tensor subclass inherits)."""
    if not all(issubclass(cls, t) for t in types):
        return NotImplemented
    with DisableTorchFunctionSubclass():
        return convert(func(*args, **(kwargs or {})), cls)


def _tensor_init_subclass(cls, **kwargs):
    """Each new Tensor subclass: one that overrides turns the op wrappers' check on."""
    super(_tensor_cls(), cls).__init_subclass__(**kwargs)
    impl = getattr(cls, "__torch_function__", None)
    if impl is not None and getattr(impl, "__func__", impl) is not _disabled_torch_function_impl:
        from .ops import _bind
        _bind.set_torch_function_subclasses()


# installed on Tensor by mstorch/_install.py
TENSOR_MEMBERS = {"__torch_function__": classmethod(_tensor_torch_function),
                  "__init_subclass__": classmethod(_tensor_init_subclass)}
