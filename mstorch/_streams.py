"""torch.Stream / torch.Event: the device-generic stream and event types, as torch's CPU build has them.

The CPU has one implicit stream (id 0, device index -1); queries answer "complete", and what needs events
raises torch's "cpu backend doesn't support events.". Other device types raise torch's not-linked error
without MindSpore's GPU target and refuse by name on it (MindSpore's streams are not mapped).
"""
from ._device import device as _device

__all__ = ["Stream", "Event"]


def _cpu_only(device, api):
    dev = _device(device) if device is not None else _device("cpu")
    if dev.type != "cpu":
        from . import cuda
        if dev.type == "cuda" and cuda.is_available():
            raise NotImplementedError(f"torch.{api} on {dev.type} is not supported by mstorch: MindSpore's device "
                                      "streams are not mapped")
        raise RuntimeError(f"PyTorch is not linked with support for {dev.type} devices")
    return dev


def _no_events():
    raise RuntimeError("cpu backend doesn't support events.")


class _CpuHandle:
    """What the CPU's stream and event share: the device, and work that is always complete."""

    @property
    def device(self):
        return _device(self.device_type)

    def query(self):
        return True

    def synchronize(self):
        pass


class Stream(_CpuHandle):
    """Mirrors torch.Stream on the CPU."""

    def __init__(self, device=None, *, priority=0):
        dev = _cpu_only(device, "Stream")
        self.device_type, self.device_index, self.stream_id = dev.type, -1, 0

    def record_event(self, event=None):
        _no_events()

    def wait_event(self, event):
        _no_events()

    def wait_stream(self, stream):
        _no_events()

    def is_capturing(self):
        return False

    @property
    def native_handle(self):
        return 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __eq__(self, other):
        return isinstance(other, Stream) and (self.device_type, self.stream_id) == (other.device_type, other.stream_id)

    def __hash__(self):
        return hash((self.device_type, self.device_index, self.stream_id))

    def __repr__(self):
        return (f"torch.Stream device_type={self.device_type}, device_index={self.device_index}, "
                f"stream_id={self.stream_id}")


class Event(_CpuHandle):
    """Mirrors torch.Event on the CPU."""

    def __init__(self, device=None, *, enable_timing=False, blocking=False, interprocess=False):
        dev = _cpu_only(device, "Event")
        self.device_type, self.device_index, self.event_id = dev.type, -1, 0
        self._flag = 1 if enable_timing else 0
        self._timing = enable_timing

    def record(self, stream=None):
        _no_events()

    def wait(self, stream=None):
        pass

    def elapsed_time(self, end_event):
        if not (self._timing and getattr(end_event, "_timing", False)):
            raise ValueError("Both events must be created with argument 'enable_timing=True'.")
        _no_events()

    def ipc_handle(self):
        _no_events()

    @classmethod
    def from_ipc_handle(cls, device, ipc_handle):
        _no_events()

    def __repr__(self):
        return (f"torch.Event device_type={self.device_type}, device_index={self.device_index}, "
                f"event_flag={self._flag}, event_id={self.event_id}")


for _cls in (Stream, Event):
    _cls.__module__ = "torch"
