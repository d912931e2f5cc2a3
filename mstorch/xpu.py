"""torch.xpu (Intel GPUs) as a torch build without XPU support answers it: not available, no devices, memory
queries 0, seeding ignored; what needs a device raises torch's error. MindSpore has no XPU target."""
_NOT_COMPILED = "Torch not compiled with XPU enabled"


def is_available():
    return False


def device_count():
    return 0


def is_initialized():
    return False


def _lazy_init():
    raise AssertionError(_NOT_COMPILED)


def current_device():
    _lazy_init()


def set_device(device):
    _lazy_init()


def synchronize(device=None):
    _lazy_init()


def get_device_name(device=None):
    _lazy_init()


def get_device_capability(device=None):
    _lazy_init()


def get_device_properties(device=None):
    _lazy_init()


def empty_cache():
    """A no-op where XPU was never initialised, as in torch."""


def memory_allocated(device=None):
    return 0


def max_memory_allocated(device=None):
    return 0


def memory_reserved(device=None):
    return 0


def reset_peak_memory_stats(device=None):
    # torch's CPU build fails looking up the XPU allocator's binding
    raise AttributeError("module 'torch._C' has no attribute '_xpu_resetPeakMemoryStats'")


def manual_seed(seed):
    """Ignored without XPU, as in torch (its per-device generators are created lazily)."""


def manual_seed_all(seed):
    """Ignored without XPU, as in torch."""


def is_bf16_supported(including_emulation=True):
    return False
