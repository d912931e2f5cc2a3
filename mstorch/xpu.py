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


def mem_get_info(device=None):
    _lazy_init()


def get_rng_state(device="xpu"):
    _lazy_init()


def get_rng_state_all():
    """No XPU devices: no states."""
    return []


def set_rng_state(new_state, device="xpu"):
    """Queued until XPU initialises, which it never does without XPU (torch copies the state first)."""
    new_state.clone()


def set_rng_state_all(new_states):
    for state in new_states:
        set_rng_state(state)


def is_current_stream_capturing():
    # torch's CPU build reaches a placeholder of its XPU binding
    raise RuntimeError("Tried to instantiate dummy base class _xpu_isCurrentStreamCapturing")


def _index(device):
    """torch._utils._get_device_index for XPU: an int as is, ``xpu[:n]`` its index, another device type fails."""
    if device is None or isinstance(device, int):
        return device
    from ._device import device as _device_cls
    d = _device_cls(device) if isinstance(device, str) else device
    if d.type != "xpu":
        raise ValueError(f"Expected a xpu device, but got: {d}")
    return d.index


class device:  # noqa: N801 - torch's name
    """torch.xpu.device(idx): entering it selects an XPU device, which a build without XPU cannot."""

    def __init__(self, device):
        self.idx = _index(device)
        self.prev_idx = -1

    def __enter__(self):
        raise NotImplementedError("PyTorch was compiled without XPU support")

    def __exit__(self, *exc):
        return False
