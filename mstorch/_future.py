"""torch.futures.Future for eager code: ``torch.futures``, ``torch.jit.fork`` and a distributed ``Work``'s
``get_future`` all hand out this class.

A Future is completed by whoever produces its value. One made for a collective that is still in
flight (``Future._after``) completes itself when it is first waited on: ``wait()`` calls the
collective's ``Work.wait()``, so no thread is needed whether the collective ran synchronously or
is a real asynchronous handle of the communication engine.
"""
import threading
import traceback
from typing import Generic, TypeVar

_PENDING = object()
_T = TypeVar("_T")


class Future(Generic[_T]):
    """Mirrors ``torch.futures.Future``."""

    def __init__(self, *, devices=None):
        self._value = _PENDING
        self._exception = None
        self._callbacks = []
        self._lock = threading.Lock()
        self._event = threading.Event()
        self._driver = None      # called by wait() to complete a lazily completed future

    @classmethod
    def _after(cls, wait, value):
        """A future of ``value`` that completes once ``wait()`` (a collective's ``Work.wait``) returns."""
        fut = cls()

        def drive():
            try:
                wait()
            except BaseException as exc:   # noqa: BLE001 -- handed to whoever waits, as torch's futures do
                fut.set_exception(exc)
            else:
                fut.set_result(value() if callable(value) else value)
        fut._driver = drive
        return fut

    def done(self):
        return self._event.is_set()

    def _complete(self, value, exception):
        with self._lock:
            if self._event.is_set():
                raise RuntimeError("Attempting to mark a completed Future as complete again. Note that a Future "
                                   "can only be marked completed once.")
            self._value, self._exception = value, exception
            self._event.set()
            callbacks, self._callbacks = self._callbacks, []
        for cb in callbacks:
            cb(self)

    def set_result(self, result):
        self._complete(result, None)

    def set_exception(self, result):
        if not isinstance(result, BaseException):
            raise AssertionError(f"{result} is of type {type(result)}, not an Exception.")
        self._complete(None, result)

    def _drive(self):
        driver, self._driver = self._driver, None
        if driver is not None:
            driver()

    def wait(self):
        if not self._event.is_set():
            self._drive()
            self._event.wait()
        if self._exception is not None:
            raise self._exception
        return self._value

    def value(self):
        if not self._event.is_set():
            raise RuntimeError("Future.value() called before the future completed; call wait() first.")
        if self._exception is not None:
            raise self._exception
        return self._value

    def add_done_callback(self, callback):
        with self._lock:
            if not self._event.is_set():
                self._callbacks.append(callback)
                return
        callback(self)

    def then(self, callback):
        """A new future completed with ``callback(self)`` once this one completes; waiting on it waits on
        this one (so a lazily completed parent is driven by its child)."""
        child = type(self)()
        child._driver = self._drive

        def run(parent):
            try:
                result = callback(parent)
            except Exception as exc:   # noqa: BLE001 -- torch reports a failing callback on the child
                text = "".join(traceback.format_exception_only(type(exc), exc)).strip()
                child.set_exception(RuntimeError(f"Got the following error when running the callback: {text}"))
            else:
                child.set_result(result)
        self.add_done_callback(run)
        return child

    def __repr__(self):
        return f"<mstorch.futures.Future object at {hex(id(self))}>"


Future.__module__ = "torch.futures"
