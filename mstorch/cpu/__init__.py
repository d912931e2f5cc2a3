"""torch.cpu: the CPU device module (always available; one device)."""
from . import amp  # noqa: F401

__all__ = ["is_available", "is_initialized", "synchronize", "current_device", "set_device", "device_count", "Stream",
           "StreamContext", "Event", "current_stream", "stream"]


def is_available():
    return True


def is_initialized():
    return True


def synchronize(device=None):
    """torch.cpu.synchronize: waits for MindSpore's queued work (a no-op under its blocking launch)."""
    import mindspore as ms
    ms.runtime.synchronize()


def current_device():
    return "cpu"


def set_device(device):
    """torch.cpu.set_device: a no-op, as in torch."""


def device_count():
    return 1


# --- streams and events: torch's CPU device has one implicit stream; these are its no-op stand-ins ----------

class Stream:
    """Mirrors torch.cpu.Stream: CPU work is not queued on streams, so waits and records do nothing."""

    def __init__(self, priority=-1):
        pass

    def wait_stream(self, stream):
        pass

    def record_event(self):
        pass

    def wait_event(self, event):
        pass


class Event:
    """Mirrors torch.cpu.Event: always complete."""

    def query(self):
        return True

    def record(self, stream=None):
        pass

    def synchronize(self):
        pass

    def wait(self, stream=None):
        pass


_default_stream = Stream()
_current = [_default_stream]


def current_stream(device=None):
    """Mirrors torch.cpu.current_stream."""
    return _current[0]


class StreamContext:
    """Mirrors torch.cpu.StreamContext: selects ``stream`` as the current one (``None`` selects nothing)."""

    def __init__(self, stream):
        self.stream = stream
        self.prev_stream = _default_stream

    def __enter__(self):
        if self.stream is not None:
            self.prev_stream = _current[0]
            _current[0] = self.stream

    def __exit__(self, *exc):
        if self.stream is not None:
            _current[0] = self.prev_stream


def stream(stream):
    """Mirrors torch.cpu.stream."""
    return StreamContext(stream)
