"""torch_npu's ``torch.npu``: the Ascend target."""
from . import _runtime


def is_available():
    return _runtime.device_target() == "Ascend"


def device_count():
    return 1 if is_available() else 0


def current_device():
    if not is_available():
        raise RuntimeError("mstorch: no Ascend device (MindSpore's device target is "
                           f"{_runtime.device_target()})")
    return 0


def set_device(device):
    current_device()


def synchronize(device=None):
    if is_available():
        import mindspore as ms
        ms.runtime.synchronize()


def manual_seed(seed):
    from .random import manual_seed as _seed
    _seed(seed)


manual_seed_all = manual_seed
