"""torch_npu's ``torch.npu``: the Ascend target (or simulated NPUs, ``MSTORCH_FAKE_DEVICES=npu:N``)."""
from . import _device
from . import _runtime
from . import random as _random


def is_available():
    return _device.accel["kind"] == "npu"


def device_count():
    return _device.accel["count"] if is_available() else 0


def current_device():
    if not is_available():
        raise RuntimeError("mstorch: no Ascend device (MindSpore's device target is "
                           f"{_runtime.device_target()})")
    return _device.accel["index"]


def set_device(device):
    current_device()
    index = device if isinstance(device, int) else _device.device(device).index
    if index is not None and index >= 0:
        _device.select(index)


def synchronize(device=None):
    if is_available():
        import mindspore as ms
        ms.runtime.synchronize()


def manual_seed(seed):
    if is_available():
        _random.device_generators()[_device.accel["index"]].manual_seed(int(seed))


def manual_seed_all(seed):
    for g in _random.device_generators() if is_available() else ():
        g.manual_seed(int(seed))
