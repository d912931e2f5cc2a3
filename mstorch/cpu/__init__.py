"""torch.cpu: the CPU device module (always available; one device)."""
from . import amp  # noqa: F401

__all__ = ["is_available", "is_initialized", "synchronize", "current_device", "set_device", "device_count"]


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
