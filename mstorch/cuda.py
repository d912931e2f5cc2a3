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


def reset_max_memory_allocated(device=None):
    """torch.cuda.reset_max_memory_allocated: deprecated by torch for reset_peak_memory_stats, which it calls."""
    import warnings
    warnings.warn("torch.cuda.reset_max_memory_allocated now calls torch.cuda.reset_peak_memory_stats, which resets "
                  "/all/ peak memory stats.", FutureWarning, stacklevel=2)
    return reset_peak_memory_stats(device=device)


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


# --- streams, events and CUDA graphs ------------------------------------------------------------------
# The types exist (annotations, isinstance); using them needs CUDA. Without a GPU target they fail as a
# CPU-only torch build fails; on a GPU target mstorch does not map them onto MindSpore's streams yet.

def _no_cuda_object(api, cpu_error):
    if not is_available():
        raise cpu_error
    raise NotImplementedError(f"torch.cuda.{api} is not supported by mstorch: MindSpore's GPU streams, events "
                              "and graph capture are not mapped")


class Stream:
    """Mirrors torch.cuda.Stream as a type."""

    def __new__(cls, device=None, priority=0, **kwargs):
        _no_cuda_object("Stream", RuntimeError("torch.cuda.Stream requires CUDA support"))


class ExternalStream(Stream):
    pass


class Event:
    """Mirrors torch.cuda.Event as a type."""

    def __new__(cls, enable_timing=False, blocking=False, interprocess=False, **kwargs):
        _no_cuda_object("Event", RuntimeError("Tried to instantiate dummy base class Event"))


class CUDAGraph:
    """Mirrors torch.cuda.CUDAGraph as a type."""

    def __new__(cls, keep_graph=False):
        _no_cuda_object("CUDAGraph", RuntimeError("Tried to instantiate dummy base class CUDAGraph"))


class StreamContext:
    """Mirrors torch.cuda.StreamContext: ``None`` selects nothing, as in torch."""

    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        if self.stream is not None:
            _no_cuda_object("StreamContext", AssertionError("Torch not compiled with CUDA enabled"))

    def __exit__(self, *exc):
        return False


def stream(stream):
    return StreamContext(stream)


class graph:  # noqa: N801
    """Mirrors torch.cuda.graph (capture into a CUDAGraph) as a type; entering it needs a CUDAGraph."""

    def __init__(self, cuda_graph, pool=None, stream=None, capture_error_mode="global"):
        if stream is None:
            Stream()
        self.cuda_graph = cuda_graph


def current_stream(device=None):
    _lazy_init()
    _no_cuda_object("current_stream", None)


def default_stream(device=None):
    _lazy_init()
    _no_cuda_object("default_stream", None)


def is_current_stream_capturing():
    """False: nothing is ever captured into a CUDA graph by mstorch."""
    if not is_available():
        raise RuntimeError("Tried to instantiate dummy base class _cuda_isCurrentStreamCapturing")
    return False


def mem_get_info(device=None):
    _lazy_init()
    import mindspore as ms
    status = ms.runtime.memory_stats()
    return status.get("total_free_mem", 0), status.get("total_mem", 0)


default_generators = ()  # one per CUDA device; mstorch draws every tensor from the CPU generator


# torch.cuda.amp (deprecated spellings of torch.amp): cuda.py is a module, so the submodule is
# registered by name for ``import torch.cuda.amp`` / ``from torch.cuda.amp import GradScaler``.
from .amp import cuda_amp as amp  # noqa: E402
import sys as _sys  # noqa: E402

_sys.modules.setdefault(__name__ + ".amp", amp)
