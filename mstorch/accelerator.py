"""torch.accelerator: the current accelerator is MindSpore's GPU (``cuda``) or Ascend (``npu``) target (or
simulated devices): mstorch/_device.py."""
from . import _device as _state
from ._device import device as _device


def _kind():
    return _state.accel["kind"]


def is_available():
    return _kind() is not None


def current_accelerator(check_available=False):
    kind = _kind()
    return None if kind is None else _device(kind)


def device_count():
    return _state.accel["count"]


def current_device_index():
    return _state.accel["index"] if is_available() else -1


current_device_idx = current_device_index


def set_device_index(device):
    if not is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")
    index = device if isinstance(device, int) else _device(device).index
    if index is not None and index >= 0:
        _state.select(index)


set_device_idx = set_device_index


def synchronize(device=None):
    if is_available():
        import mindspore as ms
        ms.runtime.synchronize()
