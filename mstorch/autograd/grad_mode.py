"""no_grad, enable_grad, set_grad_enabled, inference_mode: context managers and decorators, as torch."""
import functools
import inspect

from .. import _ms_private as P


class _DecoratorContextManager:
    def __call__(self, func):
        if inspect.isclass(func):
            raise RuntimeError(f"Please use {type(self).__name__}() as a decorator on functions, not classes")
        if inspect.isgeneratorfunction(func):
            @functools.wraps(func)
            def gen(*args, **kwargs):
                with self.clone():
                    yield from func(*args, **kwargs)
            return gen

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        return type(self)()


class no_grad(_DecoratorContextManager):
    """Mirrors torch.no_grad."""

    def __init__(self):
        self.prev = False

    def __enter__(self):
        self.prev = P.grad_enabled()
        P.set_grad_enabled(False)

    def __exit__(self, *exc):
        P.set_grad_enabled(self.prev)
        return False


class enable_grad(_DecoratorContextManager):
    """Mirrors torch.enable_grad."""

    def __enter__(self):
        self.prev = P.grad_enabled()
        P.enable_recording()
        P.set_grad_enabled(True)

    def __exit__(self, *exc):
        P.set_grad_enabled(self.prev)
        return False


class set_grad_enabled(_DecoratorContextManager):
    """Mirrors torch.set_grad_enabled: a function call, a context manager and a decorator."""

    def __init__(self, mode):
        self.prev = P.grad_enabled()
        self.mode = bool(mode)
        P.set_grad_enabled(self.mode)

    def __call__(self, func):
        P.set_grad_enabled(self.prev)
        return super().__call__(func)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        P.set_grad_enabled(self.prev)
        return False

    def clone(self):
        return type(self)(self.mode)


class inference_mode(_DecoratorContextManager):
    """Mirrors torch.inference_mode; on MindSpore it is no_grad (no separate inference tensors)."""

    def __init__(self, mode=True):
        self.mode = mode

    def __new__(cls, mode=True):
        if callable(mode) and not isinstance(mode, bool):
            return cls()(mode)
        return super().__new__(cls)

    def __enter__(self):
        self.prev = P.grad_enabled()
        if self.mode:
            P.set_grad_enabled(False)

    def __exit__(self, *exc):
        P.set_grad_enabled(self.prev)
        return False

    def clone(self):
        return type(self)(self.mode)


def is_grad_enabled():
    return P.grad_enabled()


def is_inference_mode_enabled():
    return False
