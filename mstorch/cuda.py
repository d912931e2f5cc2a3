"""torch.cuda mapped onto MindSpore's device target.

MindSpore runs one device target per process. On a GPU target ``torch.cuda`` describes it; on CPU
(and on Ascend, whose torch spelling is ``npu``) ``is_available()`` is False and scripts take their
CPU path, exactly as on a CPU-only torch build.
"""
from . import _runtime


def _target():
    return _runtime.device_target()


def is_available():
    return _target() == "GPU"


def device_count():
    if not is_available():
        return 0
    import mindspore as ms
    return ms.hal.device_count("GPU") if hasattr(ms, "hal") else 1


def _lazy_init():
    if not is_available():
        raise AssertionError("Torch not compiled with CUDA enabled")


def current_device():
    _lazy_init()
    return 0


def set_device(device):
    from ._device import device as _dev
    index = device if isinstance(device, int) else _dev(device).index
    if index is not None and index < 0:
        return
    _lazy_init()


def get_device_name(device=None):
    _lazy_init()
    return "MindSpore GPU"


def get_device_capability(device=None):
    _lazy_init()
    return (8, 0)


def synchronize(device=None):
    _lazy_init()
    import mindspore as ms
    ms.runtime.synchronize()


def empty_cache():
    # torch makes this a no-op when CUDA was never initialised
    if is_available():
        import mindspore as ms
        ms.runtime.empty_cache()


def memory_allocated(device=None):
    if not is_available():
        return 0
    import mindspore as ms
    return int(ms.runtime.memory_allocated())


def max_memory_allocated(device=None):
    if not is_available():
        return 0
    import mindspore as ms
    return int(ms.runtime.max_memory_allocated())


def memory_reserved(device=None):
    if not is_available():
        return 0
    import mindspore as ms
    return int(ms.runtime.memory_reserved())


def reset_peak_memory_stats(device=None):
    if is_available():
        import mindspore as ms
        ms.runtime.reset_peak_memory_stats()


def is_bf16_supported(including_emulation=True):
    if not is_available():
        return False
    return True


def is_initialized():
    return is_available()


def init():
    _lazy_init()


def manual_seed(seed):
    # torch seeds each CUDA device's generator; mstorch draws every tensor from the CPU streams
    # (mstorch/random.py), so the global seed is the one that matters. Silently ignored without CUDA, as torch.
    if is_available():
        from .random import manual_seed as _seed
        _seed(seed)


def manual_seed_all(seed):
    manual_seed(seed)


def seed():
    pass


def seed_all():
    pass



class device:
    """torch.cuda.device(idx) context manager."""

    def __init__(self, device):
        self.idx = device

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


# torch.cuda.amp (deprecated spellings of torch.amp): cuda.py is a module, so the submodule is
# registered by name for ``import torch.cuda.amp`` / ``from torch.cuda.amp import GradScaler``.
from .amp import cuda_amp as amp  # noqa: E402
import sys as _sys  # noqa: E402

_sys.modules.setdefault(__name__ + ".amp", amp)
