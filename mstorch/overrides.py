"""torch.overrides: the ``__torch_function__`` protocol for Tensor subclasses, tensor-likes and modes.

Every op of mstorch's table (``torch.X``, ``Tensor.X``, ``nn.functional.X``, and the operators built on them)
hands calls with an overriding argument, or any call while a ``TorchFunctionMode`` is active, to
``handle_torch_function``, as torch's dispatcher does: the innermost mode first (popped off the stack while
it runs, so the calls it makes go to the modes below it), then the subclasses. The default
``Tensor.__torch_function__`` runs the op with overrides disabled and returns its tensors as the subclass.
Hand-written Tensor members (``__getitem__``, ``to``, ``detach``, ``item``...) do not dispatch (see
docs/known-differences.md). The switch that turns the check on is flipped by the first Tensor subclass that
overrides (mstorch's own Parameter and internal subclasses opt out as torch's do) and while a mode is pushed,
so programs without either pay a single global test per op.
"""
import contextlib
import functools
import sys
import threading
import warnings

__all__ = ["handle_torch_function", "has_torch_function", "is_tensor_like", "wrap_torch_function",
           "is_tensor_method_or_property"]   # (TorchFunctionMode is public but, as in torch, not in __all__)

# per thread, as torch's Python TLS: .disabled (depth of DisableTorchFunctionSubclass), .all_disabled (depth
# of DisableTorchFunction: modes too), .modes (the TorchFunctionMode stack, innermost last)
_state = threading.local()
_modes_lock = threading.Lock()
_modes_pushed = 0   # modes on all threads' stacks: the op wrappers' check is on while any is


def _disabled():
    """Whether subclass overrides are off on this thread."""
    return getattr(_state, "disabled", 0) > 0 or getattr(_state, "all_disabled", 0) > 0


def _mode_stack():
    stack = getattr(_state, "modes", None)
    if stack is None:
        stack = _state.modes = []
    return stack


def _mode_active():
    return bool(getattr(_state, "modes", None)) and not getattr(_state, "all_disabled", 0)


class DisableTorchFunctionSubclass:
    """torch._C.DisableTorchFunctionSubclass: within it, the subclasses' ``__torch_function__`` overrides are
    not consulted (modes still are)."""

    _attr = "disabled"

    def __enter__(self):
        setattr(_state, self._attr, getattr(_state, self._attr, 0) + 1)
        return self

    def __exit__(self, *exc):
        setattr(_state, self._attr, getattr(_state, self._attr) - 1)
        return False


class DisableTorchFunction(DisableTorchFunctionSubclass):
    """torch._C.DisableTorchFunction: within it, neither modes nor subclass overrides are consulted."""

    _attr = "all_disabled"


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
    """Mirrors torch.overrides.has_torch_function: an active mode or an overriding argument."""
    return _mode_active() or not _disabled() and any(_overrides(a) for a in _flatten(relevant_args))


def has_torch_function_unary(arg):
    return _mode_active() or not _disabled() and _overrides(arg)


def has_torch_function_variadic(*args):
    return has_torch_function(args)


def _overloaded_args(relevant_args):
    """torch's order: one argument per type, a subclass before its base classes, otherwise left to right."""
    found, types = [], []
    if _disabled():
        return found
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
    """Mirrors torch.overrides.handle_torch_function: the innermost mode (run with itself popped off the
    stack), then the overriding arguments; the first that does not return NotImplemented."""
    overloaded = _overloaded_args(relevant_args)
    types = tuple(type(a) for a in overloaded)
    kinds = ""
    if _mode_active():
        with _pop_mode_temporarily() as mode:
            result = mode.__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
        kinds = f"\n  - mode object {mode!r}"
    for arg in overloaded:
        result = type(arg).__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    name = getattr(public_api, "__qualname__", None) or getattr(public_api, "__name__", repr(public_api))
    kinds += "".join(f"\n  - tensor subclass {type(a)}" for a in overloaded)
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
    """The result of the active mode or the overrides among ``args``/``kwargs`` for ``func``, or
    NOT_OVERRIDDEN."""
    relevant = args + tuple(kwargs.values()) if kwargs else args
    if _mode_active():
        return handle_torch_function(func, relevant, *args, **kwargs)
    if _disabled():
        return NOT_OVERRIDDEN
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


# --- torch function modes -----------------------------------------------------------------------------------

class TorchFunctionMode:
    """torch.overrides.TorchFunctionMode: ``with Mode():`` pushes the mode on this thread's stack; while it is
    there, every call of an op of mstorch's table reaches ``mode.__torch_function__(func, types, args,
    kwargs)`` (``types``: the overriding subclasses among the arguments) and its return value is the call's
    result. Within it the mode is popped, so the torch calls it makes go on to the next mode down, then to the
    subclasses and the op itself."""

    inner = None

    def __init__(self):
        pass

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        _push_mode(self)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        _pop_mode()

    @classmethod
    def push(cls, *args, **kwargs):
        warnings.warn("`Mode.push()` is no longer necessary and can be replaced with just `with Mode()`",
                      stacklevel=2)
        return cls(*args, **kwargs)


class BaseTorchFunctionMode(TorchFunctionMode):
    """torch.overrides.BaseTorchFunctionMode: a mode that runs every call unchanged (a base to override)."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


def _count_modes(delta):
    """Keep the op wrappers' global check on while any thread has a mode pushed."""
    global _modes_pushed
    from .ops import _bind
    with _modes_lock:   # (the flag is set under the lock too: two threads cannot leave it stale)
        _modes_pushed += delta
        _bind.set_torch_function_modes(_modes_pushed > 0)


def _push_on_torch_function_stack(mode):
    """torch._C._push_on_torch_function_stack."""
    _mode_stack().append(mode)
    _count_modes(1)


def _pop_torch_function_stack():
    """torch._C._pop_torch_function_stack: the innermost mode, removed."""
    stack = _mode_stack()
    if not stack:
        raise RuntimeError("Trying to pop from an empty mode stack")
    mode = stack.pop()
    _count_modes(-1)
    return mode


def _len_torch_function_stack():
    """torch._C._len_torch_function_stack."""
    return len(getattr(_state, "modes", None) or ())


def _get_function_stack_at(level):
    """torch._C._get_function_stack_at: the mode at ``level`` (0: the outermost)."""
    stack = getattr(_state, "modes", None) or []
    if not -len(stack) <= level < len(stack):
        raise RuntimeError("Trying to access a mode at an index outside the mode stack")
    return stack[level]


def _is_torch_function_mode_enabled():
    """torch._C._is_torch_function_mode_enabled: a mode is pushed and DisableTorchFunction is not active."""
    return _mode_active()


def _is_torch_function_enabled():
    """torch._C._is_torch_function_enabled: subclass overrides are consulted."""
    return not _disabled()


def _is_torch_function_all_disabled():
    """torch._C._is_torch_function_all_disabled: within DisableTorchFunction."""
    return getattr(_state, "all_disabled", 0) > 0


_push_mode = _push_on_torch_function_stack
_pop_mode = _pop_torch_function_stack


def _get_current_function_mode():
    """The innermost mode, or None."""
    stack = getattr(_state, "modes", None)
    return stack[-1] if stack else None


def _get_current_function_mode_stack():
    """The modes, outermost first (a copy)."""
    return list(getattr(_state, "modes", None) or ())


@contextlib.contextmanager
def _pop_mode_temporarily():
    """The innermost mode, off the stack for the duration of the block (its calls go to the modes below)."""
    old = _pop_mode()
    try:
        yield old
    finally:
        _push_mode(old)
