"""no_grad, enable_grad, set_grad_enabled, inference_mode: context managers and decorators, as torch.

Grad mode is MindSpore's own switch (``_ms_private.set_grad_enabled``), so MindSpore code running in
the same process sees the same mode. inference_mode is grad mode off plus a flag for
``is_inference_mode_enabled`` and ``Tensor.is_inference``: MindSpore has no inference tensors
(docs/known-differences.md).
"""
import functools
import inspect
import sys
import warnings

from .. import _ms_private as P
from .._tensor import inference_state as _state  # read by wrap() to mark inference tensors


def _wrap_generator(make_ctx, func):
    # every resumption of the generator runs inside the mode, the caller's code between them outside
    @functools.wraps(func)
    def generator_context(*args, **kwargs):
        gen = func(*args, **kwargs)
        try:
            with make_ctx():
                response = gen.send(None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with make_ctx():
                        gen.close()
                    raise
                except BaseException:
                    with make_ctx():
                        response = gen.throw(*sys.exc_info())
                else:
                    with make_ctx():
                        response = gen.send(request)
        except StopIteration as e:
            return e.value
    return generator_context


class _DecoratorContextManager:
    def __call__(self, func):
        if inspect.isclass(func):
            warnings.warn(
                "Decorating classes is deprecated and will be disabled in future versions. You should only "
                "decorate functions or methods. To preserve the current behavior of class decoration, you "
                "can directly decorate the `__init__` method and nothing else.", FutureWarning, stacklevel=2)
            cls = func
            func = lambda *args, **kwargs: cls(*args, **kwargs)  # noqa: E731
        make_ctx = self.clone
        if inspect.isgeneratorfunction(func):
            return _wrap_generator(make_ctx, func)

        @functools.wraps(func)
        def decorate_context(*args, **kwargs):
            with make_ctx():
                return func(*args, **kwargs)
        return decorate_context

    def clone(self):
        return type(self)()


class _NoParamDecoratorContextManager(_DecoratorContextManager):
    """Also usable as a bare decorator: ``@no_grad``."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamDecoratorContextManager):
    """Mirrors torch.no_grad."""

    def __init__(self):
        self.prev = False

    def __enter__(self):
        self.prev = P.grad_enabled()
        P.set_grad_enabled(False)

    def __exit__(self, *exc):
        P.set_grad_enabled(self.prev)


class enable_grad(_NoParamDecoratorContextManager):
    """Mirrors torch.enable_grad."""

    def __enter__(self):
        self.prev = P.grad_enabled()
        P.enable_recording()
        P.set_grad_enabled(True)

    def __exit__(self, *exc):
        P.set_grad_enabled(self.prev)


class set_grad_enabled(_DecoratorContextManager):
    """Mirrors torch.set_grad_enabled: takes effect when called, and is also a context manager and a
    decorator."""

    def __init__(self, mode):
        self.prev = P.grad_enabled()
        self.mode = mode
        _set(mode)

    def __call__(self, func):
        _set(self.prev)
        return super().__call__(func)

    def __enter__(self):
        _set(self.mode)

    def __exit__(self, *exc):
        _set(self.prev)

    def __repr__(self):
        return f"torch.autograd.grad_mode.set_grad_enabled(mode={self.mode})"

    def clone(self):
        return type(self)(self.mode)


def _set(mode):
    if mode:
        P.enable_recording()
    P.set_grad_enabled(bool(mode))


class inference_mode(_DecoratorContextManager):
    """Mirrors torch.inference_mode (``mode=False`` turns grad mode back on, as torch)."""

    def __init__(self, mode=True):
        self.mode = mode

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)

    def __enter__(self):
        self.prev = (P.grad_enabled(), _state["inference"])
        _set(not self.mode)
        _state["inference"] = bool(self.mode)

    def __exit__(self, *exc):
        _set(self.prev[0])
        _state["inference"] = self.prev[1]

    def clone(self):
        return type(self)(self.mode)


def is_grad_enabled():
    """Mirrors torch.is_grad_enabled."""
    return P.grad_enabled()


def is_inference_mode_enabled():
    """Mirrors torch.is_inference_mode_enabled."""
    return _state["inference"]


_multithreading = [True]


class set_multithreading_enabled(_DecoratorContextManager):
    """Mirrors torch.autograd.set_multithreading_enabled: on at first, takes effect when called, and is a
    context manager and a decorator. MindSpore's engine runs every backward pass on the calling thread, which
    is what torch does on CPU either way (the flag only moves device backward passes off worker threads)."""

    def __init__(self, mode):
        self.prev = _multithreading[0]
        _multithreading[0] = bool(mode)
        self.mode = mode

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _multithreading[0] = self.prev

    def clone(self):
        return type(self)(self.mode)
