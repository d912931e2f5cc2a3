"""Mirrors torch.mtia as a CPU build of torch answers it: no MTIA device exists, so the queries say so (False, 0,
empty statistics) and every call that needs the device raises torch's errors. Seeding is deferred until a device
is initialised, which never happens, so it is accepted and does nothing (as in torch)."""
__all__ = ["init", "is_available", "is_initialized", "synchronize", "device_count", "current_device",
           "current_stream", "default_stream", "memory_stats", "max_memory_allocated", "memory_allocated",
           "reset_peak_memory_stats", "get_device_capability", "get_device_properties", "record_memory_history",
           "snapshot", "attach_out_of_memory_observer", "empty_cache", "set_device", "set_stream", "stream",
           "device", "set_rng_state", "get_rng_state", "set_rng_state_all", "get_rng_state_all", "manual_seed",
           "manual_seed_all", "seed", "seed_all", "initial_seed", "is_bf16_supported"]

_NOT_COMPILED = ("Torch not compiled with MTIA enabled. Ensure you have `import mtia.host_runtime.torch_mtia."
                 "dynamic_library` in your python src file and include `//mtia/host_runtime/torch_mtia:torch_mtia` "
                 "as your target dependency!")


class DeferredMtiaCallError(Exception):
    pass


def _no_backend(what):
    raise RuntimeError(f"Cannot execute {what}() without MTIA backend.")


def is_available():
    return False


def is_initialized():
    return False


def device_count():
    return 0


def init():
    raise AssertionError(_NOT_COMPILED)


def initial_seed():
    raise AssertionError(_NOT_COMPILED)


def get_rng_state(device="mtia"):
    raise AssertionError(_NOT_COMPILED)


def current_device():
    _no_backend("getCurrentDevice")


def set_device(device):
    _no_backend("setCurrentDevice")


def synchronize(device=None):
    _no_backend("getCurrentDevice" if device is None else "maybeExchangeDevice")


def current_stream(device=None):
    _no_backend("getCurrentDevice")


def default_stream(device=None):
    _no_backend("getCurrentDevice")


def stream(stream):
    _no_backend("getCurrentDevice")


def set_stream(stream):
    return None      # torch returns before reaching the backend when there is no stream to set


def get_device_capability(device=None):
    _no_backend("getCurrentDevice" if device is None else "getDeviceCapability")


def get_device_properties(device=None):
    _no_backend("getCurrentDevice" if device is None else "getDeviceProperties")


def set_rng_state(new_state, device="mtia"):
    _no_backend("getCurrentDevice")


def get_rng_state_all():
    return []


def set_rng_state_all(new_states):
    for state in new_states:
        set_rng_state(state)


def manual_seed(seed):
    return None


def manual_seed_all(seed):
    return None


def seed():
    return None


def seed_all():
    return None


def empty_cache():
    _no_backend("emptyCache")


def snapshot():
    _no_backend("memorySnapshot")


def attach_out_of_memory_observer(observer):
    _no_backend("attachOutOfMemoryObserver")


def graph_pool_handle():
    _no_backend("graphPoolHandle")


def memory_stats(device=None):
    return {}


def max_memory_allocated(device=None):
    return 0


def memory_allocated(device=None):
    return 0


def reset_peak_memory_stats(device=None):
    return None


def record_memory_history(enabled="all", stacks="python", max_entries=0):
    return None


def is_bf16_supported(including_emulation=True):
    return True


class device:  # noqa: N801 - torch's name
    """torch.mtia.device(idx): a context manager that selects the device; entering it needs the backend."""

    def __init__(self, device):
        self.idx = device
        self.prev_idx = -1

    def __enter__(self):
        _no_backend("maybeExchangeDevice")

    def __exit__(self, *exc):
        return False
