"""torch.mps as a torch build without Apple's Metal (MPS) backend answers: MindSpore has no Metal target, so
there is no MPS device. ``is_available()`` is False and ``device_count()`` 0, ``manual_seed`` does nothing (torch's
global ``manual_seed`` calls it), and the functions that need the device raise torch's RuntimeError. transformers,
accelerate and sentence-transformers reach these behind ``is_available`` checks."""
from . import profiler  # noqa: F401
from .event import Event

__all__ = ["compile_shader", "load_metallib", "device_count", "get_rng_state", "manual_seed", "seed",
           "set_rng_state", "synchronize", "empty_cache", "set_per_process_memory_fraction",
           "current_allocated_memory", "driver_allocated_memory", "Event", "profiler", "recommended_max_memory",
           "is_available"]


def _no_backend(call):
    return RuntimeError(f"Cannot execute {call}() without MPS backend.")


def is_available():
    return False


def device_count():
    return 0


def synchronize():
    raise _no_backend("deviceSynchronize")


def _get_default_mps_generator():
    raise _no_backend("getDefaultGenerator")


def get_rng_state(device="mps"):
    raise _no_backend("getDefaultGenerator")


def set_rng_state(new_state, device="mps"):
    raise _no_backend("getDefaultGenerator")


def manual_seed(seed):
    """Nothing to seed without the backend (as torch's, which mstorch.manual_seed may call)."""
    return None


def seed():
    raise _no_backend("getDefaultGenerator")


def empty_cache():
    raise _no_backend("emptyCache")


def set_per_process_memory_fraction(fraction):
    if not isinstance(fraction, float):
        raise TypeError("Invalid type for fraction argument, must be `float`")
    if fraction < 0 or fraction > 2:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~2")
    raise _no_backend("setMemoryFraction")


def current_allocated_memory():
    raise _no_backend("getCurrentAllocatedMemory")


def driver_allocated_memory():
    raise _no_backend("getDriverAllocatedMemory")


def recommended_max_memory():
    raise _no_backend("getRecommendedMaxMemory")


def compile_shader(source):
    raise RuntimeError("MPS is not available")


def load_metallib(source):
    raise RuntimeError("MPS is not available")
