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


# --- streams, memory and capability queries ------------------------------------------------------------------
# Without an accelerator target each raises torch's error; on MindSpore's GPU / Ascend target the memory
# queries read MindSpore's runtime counters, and streams / graphs (not mapped onto MindSpore's) refuse by name.

def _need_accelerator():
    if not is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")


def _unmapped(api):
    _need_accelerator()
    raise NotImplementedError(f"torch.accelerator.{api} is not supported by mstorch: MindSpore's device streams "
                              "and graph capture are not mapped")


def current_stream(device=None):
    _unmapped("current_stream")


def set_stream(stream):
    _unmapped("set_stream")


class Graph:
    """Mirrors torch.accelerator.Graph (graph capture); needs an accelerator."""

    def __init__(self, *args, **kwargs):
        _unmapped("Graph")


class device_index:  # noqa: N801
    """Mirrors torch.accelerator.device_index: ``None`` selects nothing; an index needs an accelerator (one
    device per MindSpore process, so index 0)."""

    def __init__(self, device, /):
        self.idx = device

    def __enter__(self):
        if self.idx is not None:
            set_device_index(self.idx)

    def __exit__(self, *exc):
        return False


def _runtime_count(name):
    _need_accelerator()
    import mindspore as ms
    return int(getattr(ms.runtime, name)())


def memory_allocated(device_index=None, /):
    return _runtime_count("memory_allocated")


def max_memory_allocated(device_index=None, /):
    return _runtime_count("max_memory_allocated")


def memory_reserved(device_index=None, /):
    return _runtime_count("memory_reserved")


def max_memory_reserved(device_index=None, /):
    return _runtime_count("max_memory_reserved")


def memory_stats(device_index=None, /):
    _need_accelerator()
    import mindspore as ms
    return dict(ms.runtime.memory_stats())


def reset_peak_memory_stats(device_index=None, /):
    _need_accelerator()
    import mindspore as ms
    ms.runtime.reset_peak_memory_stats()


def reset_accumulated_memory_stats(device_index=None, /):
    _unmapped("reset_accumulated_memory_stats")   # MindSpore keeps no cumulative allocation counters to reset


def empty_cache():
    _need_accelerator()
    import mindspore as ms
    ms.runtime.empty_cache()


def empty_host_cache():
    _need_accelerator()


def get_memory_info(device_index=None, /):
    _need_accelerator()
    import mindspore as ms
    status = ms.runtime.memory_stats()
    return status.get("total_free_mem", 0), status.get("total_mem", 0)


def get_device_capability(device=None, /):
    _unmapped("get_device_capability")
