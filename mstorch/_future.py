"""torch.Future for eager code (``torch.jit.fork``, ``torch.futures``, a distributed ``Work``'s ``get_future``):
a result, or an exception, delivered once to the callbacks chained on it."""


class _Future:
    """torch.Future for eager code: ``fork`` runs the function at once; the future holds its result."""

    def __init__(self, *, devices=None):
        self._done, self._value, self._error, self._callbacks = False, None, None, []

    def done(self):
        return self._done

    def wait(self):
        if self._error is not None:
            raise self._error
        return self._value

    def value(self):
        return self.wait()

    def set_result(self, result):
        self._finish(result, None)

    def set_exception(self, result):
        self._finish(None, result)

    def _finish(self, value, error):
        if self._done:
            raise RuntimeError("Future can only be marked completed once.")
        self._done, self._value, self._error = True, value, error
        callbacks, self._callbacks = self._callbacks, []
        for cb in callbacks:
            cb(self)

    def then(self, callback):
        nxt = _Future()

        def run(fut):
            try:
                nxt.set_result(callback(fut))
            except Exception as exc:  # noqa: BLE001 - delivered through the chained future
                nxt.set_exception(exc)
        self.add_done_callback(run)
        return nxt

    def add_done_callback(self, callback):
        if self._done:
            callback(self)
        else:
            self._callbacks.append(callback)

    def __repr__(self):
        return f"<torch.Future object at {hex(id(self))}>"


_Future.__module__, _Future.__name__, _Future.__qualname__ = "torch", "Future", "Future"
