"""torch.futures for eager code: ``torch.Future`` (``torch._C.Future``, what ``torch.jit.fork`` returns),
``torch.futures.Future`` (= ``torch.jit.Future``, its subclass), ``collect_all`` and ``wait_all``; a
distributed ``Work``'s ``get_future`` and DDP's communication hooks hand out the same classes.

A Python future with torch's semantics and messages: ``wait`` blocks until another thread completes it,
``then`` chains a callback whose error completes the chained future, errors in ``add_done_callback`` callbacks
are reported on stderr and swallowed, as torch's C++ future does. A future made for a collective still in
flight (``_after``) completes itself when first waited on.
"""
import sys
import threading
from typing import Generic, TypeVar

_T = TypeVar("_T")

class _CFuture:
    """torch.Future (torch._C.Future): what ``torch.jit.fork`` returns."""

    def __init__(self, *, devices=None):
        self._cond = threading.Condition()
        self._done = False
        self._value = None
        self._error = None
        self._callbacks = []
        self._driver = None   # completes a lazily completed future (``_after``) when first waited on

    @classmethod
    def _after(cls, wait, value):
        """A future of ``value`` (or ``value()``) that completes once ``wait()`` (a collective's ``Work.wait``)
        returns: waiting on it, or on a future chained from it, drives the work, so no thread is needed whether
        the collective ran synchronously or is an asynchronous handle of the communication engine."""
        fut = cls()

        def drive():
            try:
                wait()
                result = value() if callable(value) else value
            except Exception as exc:  # noqa: BLE001 - handed to whoever waits, as torch's futures do
                fut.set_exception(exc)
            else:
                fut.set_result(result)
        fut._driver = drive
        return fut

    def _drive(self):
        driver, self._driver = self._driver, None
        if driver is not None:
            driver()

    def done(self):
        return self._done

    def wait(self):
        if not self._done:
            self._drive()
        with self._cond:
            while not self._done:
                self._cond.wait()
        if self._error is not None:
            raise self._error
        return self._value

    def value(self):
        if not self._done:
            raise RuntimeError("Future.value() called before the Future completed (torch: completed() INTERNAL "
                               "ASSERT FAILED)")
        return self.wait()

    def set_result(self, result):
        self._finish(result, None)

    def set_exception(self, result):
        if not isinstance(result, Exception):
            raise AssertionError(f"{result} is of type {type(result)}, not an Exception.")
        self._finish(None, result)

    def _finish(self, value, error):
        with self._cond:
            if self._done:
                raise RuntimeError("Attempting to mark a completed Future as complete again. Note that a Future can "
                                   "only be marked completed once.")
            self._done, self._value, self._error = True, value, error
            callbacks, self._callbacks = self._callbacks, []
            self._cond.notify_all()
        for callback in callbacks:
            callback(self)

    def then(self, callback):
        chained = type(self)()
        chained._driver = self._drive   # waiting on the chained future drives this one

        def run(fut):
            try:
                result = callback(fut)
            except Exception as exc:  # noqa: BLE001 - torch delivers it through the chained future
                chained.set_exception(RuntimeError(
                    f"Got the following error when running the callback: {type(exc).__name__}: {exc}"))
            else:
                chained.set_result(result)
        self._on_done(run)
        return chained

    def add_done_callback(self, callback):
        def run(fut):
            try:
                callback(fut)
            except Exception as exc:  # noqa: BLE001 - torch logs a failing done-callback and goes on
                print(f"Got the following error when running the callback: {type(exc).__name__}: {exc}",
                      file=sys.stderr)
        self._on_done(run)

    def _on_done(self, run):
        with self._cond:
            if not self._done:
                self._callbacks.append(run)
                return
        run(self)

    def __repr__(self):
        return f"<{type(self).__module__}.{type(self).__qualname__} object at {hex(id(self))}>"


_CFuture.__module__, _CFuture.__name__, _CFuture.__qualname__ = "torch", "Future", "Future"


class Future(_CFuture, Generic[_T]):
    """Mirrors torch.futures.Future (torch.jit.Future): a subclass of torch.Future (``Future[Tensor]`` in
    annotations, as DDP's communication hooks declare)."""


Future.__module__ = "torch.jit"


def collect_all(futures):
    """Mirrors torch.futures.collect_all: a future of the list of ``futures``, complete when all are (with the
    first error among them, if any)."""
    futures = list(futures)
    for f in futures:
        if not isinstance(f, _CFuture):
            raise TypeError("_collect_all(): incompatible function arguments. The following argument types are "
                            "supported:\n    1. (arg0: collections.abc.Sequence[torch._C.Future]) -> "
                            f"torch._C.Future\n\nInvoked with: {futures!r}")
    collected = _CFuture()
    remaining = [len(futures)]
    lock = threading.Lock()

    def one_done(_):
        with lock:
            remaining[0] -= 1
            last = remaining[0] == 0
        if last:
            error = next((f._error for f in futures if f._error is not None), None)
            if error is not None:
                collected.set_exception(error)
            else:
                collected.set_result(futures)
    if not futures:
        collected.set_result([])
    for f in futures:
        f._on_done(one_done)
    return collected


def wait_all(futures):
    """Mirrors torch.futures.wait_all: the futures' values (the first error raised)."""
    return [f.wait() for f in collect_all(futures).wait()]
