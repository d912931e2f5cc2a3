"""torch.accelerator: the current accelerator is MindSpore's GPU (``cuda``) or Ascend (``npu``) target."""
from . import _runtime
from ._device import device as _device


def _kind():
    return {"GPU": "cuda", "Ascend": "npu"}.get(_runtime.device_target())


def is_available():
    return _kind() is not None


def current_accelerator(check_available=False):
    kind = _kind()
    return None if kind is None else _device(kind)


def device_count():
    return 1 if is_available() else 0


def current_device_index():
    return 0 if is_available() else -1


current_device_idx = current_device_index


def set_device_index(device):
    if not is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")


set_device_idx = set_device_index


def synchronize(device=None):
    if is_available():
        import mindspore as ms
        ms.runtime.synchronize()
