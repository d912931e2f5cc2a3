"""torch.cuda over the accelerator of mstorch/_device.py.

MindSpore runs one device target per process. On a GPU target (or with simulated CUDA devices,
``MSTORCH_FAKE_DEVICES=cuda:N``) ``torch.cuda`` describes it; on CPU (and on Ascend, whose torch spelling is
``npu``) ``is_available()`` is False and every call answers as a CPU-only torch build does.
"""
from . import _device
from . import random as _random
from ._device import device as _dev
from ._runtime import OutOfMemoryError  # noqa: E402,F401  (torch.cuda.OutOfMemoryError is torch.OutOfMemoryError)


def _target():
    return _device.accel["kind"]


def is_available():
    return _device.accel["kind"] == "cuda"


def device_count():
    return _device.accel["count"] if is_available() else 0


def _lazy_init():
    if not is_available():
        raise AssertionError("Torch not compiled with CUDA enabled")


def current_device():
    _lazy_init()
    return _device.accel["index"]


def _index(device, optional=True):
    """torch.cuda._get_device_index: an int, 'cuda:1' or a cuda device -> its index (None/'cuda' -> current)."""
    if isinstance(device, int) and not isinstance(device, bool):
        return device
    if device is None:
        return -1 if optional else current_device()
    d = _dev(device)
    if d.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {d}")
    return current_device() if d.index is None else d.index


def set_device(device):
    """torch.cuda.set_device: the device ``.cuda()``, ``device='cuda'`` and the default generator use. With
    MindSpore's one device per process, call it before the first tensor is made."""
    index = _index(device)
    if index < 0:
        return
    if not is_available():   # what a CPU-only torch build raises (its C binding is missing)
        raise AttributeError("module 'torch._C' has no attribute '_cuda_setDevice'")
    _device.select(index)


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
    _cpu_build_missing("_cuda_resetPeakMemoryStats")
    return reset_peak_memory_stats(device=device)


def is_bf16_supported(including_emulation=True):
    if not is_available():
        return False
    return True


def is_initialized():
    return is_available()


def init():
    _lazy_init()


# --- random numbers: one DeviceGenerator per device (mstorch/random.py) -------------------------------
# Without CUDA torch queues these calls until CUDA initialises, which never happens: they return quietly.

def _generator(device="cuda"):
    idx = _index(device, optional=False)
    gens = _random.device_generators()
    if idx >= len(gens):
        raise IndexError("tuple index out of range")
    return gens[idx]


def manual_seed(seed):
    seed = int(seed)
    if is_available():
        _generator().manual_seed(seed)


def manual_seed_all(seed):
    seed = int(seed)
    if is_available():
        for g in _random.device_generators():
            g.manual_seed(seed)


def seed():
    if is_available():
        _generator().seed()


def seed_all():
    if is_available():
        s = _generator().seed()
        for g in _random.device_generators():
            g.manual_seed(s)


def initial_seed():
    _lazy_init()
    return _generator().initial_seed()


def get_rng_state(device="cuda"):
    _lazy_init()
    return _generator(device).get_state()


def get_rng_state_all():
    return [g.get_state() for g in _random.device_generators()] if is_available() else []


def set_rng_state(new_state, device="cuda"):
    if is_available():
        _generator(device).set_state(new_state)


def set_rng_state_all(new_states):
    for i, state in enumerate(new_states):
        set_rng_state(state, i)


class device:
    """torch.cuda.device(idx): makes ``idx`` the current device inside the block (-1/None: no change)."""

    def __init__(self, device):
        self.idx = _index(device)
        self.prev_idx = -1

    def __enter__(self):
        if self.idx == -1:
            return None
        if not is_available():
            raise RuntimeError("PyTorch was compiled without CUDA support")
        self.prev_idx = _device.accel["index"]
        if self.prev_idx != self.idx:
            _device.select(self.idx)

    def __exit__(self, *exc):
        if self.idx != -1 and self.prev_idx != self.idx:
            _device.select(self.prev_idx)
        return False


class device_of(device):
    """torch.cuda.device_of(obj): the device of a tensor (a CPU tensor selects nothing)."""

    def __init__(self, obj):
        super().__init__(obj.get_device() if obj.is_cuda else -1)


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


def __getattr__(name):
    # torch.cuda.default_generators: one per device, made when first asked for (empty without CUDA)
    if name == "default_generators":
        return _random.device_generators() if is_available() else ()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# --- the rest of torch.cuda, answering as a CPU-only torch build where there is no GPU target ----------------
# Each gives torch's CPU-build value or error without a GPU target; on MindSpore's GPU target memory queries
# read MindSpore's runtime counters and what is not mapped refuses by name.

def _cpu_build_missing(c_name):
    """torch's CPU build lacks these bindings: the call fails with Python's AttributeError naming them."""
    if not is_available():
        raise AttributeError(f"module 'torch._C' has no attribute '{c_name}'")


def _unmapped(api):
    raise NotImplementedError(f"torch.cuda.{api} is not supported by mstorch on MindSpore's GPU target")


class _LegacyCudaTensorType:
    """torch.cuda.<Scalar>Tensor: legacy typed constructors of CUDA tensors."""

    def __new__(cls, *args, **kwargs):
        if not is_available():
            raise TypeError(f"type torch.cuda.{cls.__name__} not available. Torch not compiled with CUDA enabled.")
        _unmapped(cls.__name__)


def _legacy_type(name):
    return type(name, (_LegacyCudaTensorType,), {"__module__": "torch.cuda", "__doc__": f"torch.cuda.{name}"})


BFloat16Tensor, BoolTensor, ByteTensor, CharTensor, DoubleTensor, FloatTensor, HalfTensor, IntTensor, LongTensor, \
    ShortTensor = (_legacy_type(n) for n in ("BFloat16Tensor", "BoolTensor", "ByteTensor", "CharTensor", "DoubleTensor",
                                             "FloatTensor", "HalfTensor", "IntTensor", "LongTensor", "ShortTensor"))

has_half = True     # torch's CPU build answers True and False here too
has_magma = False


def get_arch_list():
    return []


def get_gencode_flags():
    return ""


def is_tf32_supported():
    return False


def memory_stats(device=None):
    if not is_available():
        from collections import OrderedDict
        return OrderedDict()
    import mindspore as ms
    return dict(ms.runtime.memory_stats())


def memory_stats_as_nested_dict(device=None):
    return {} if not is_available() else memory_stats(device)


def max_memory_reserved(device=None):
    if not is_available():
        return 0
    import mindspore as ms
    return int(ms.runtime.max_memory_reserved())


def memory_cached(device=None):
    """Deprecated torch spelling of memory_reserved."""
    return memory_reserved(device)


def max_memory_cached(device=None):
    """Deprecated torch spelling of max_memory_reserved."""
    return max_memory_reserved(device)


def host_memory_stats():
    from collections import OrderedDict
    return OrderedDict()


def host_memory_stats_as_nested_dict():
    return {}


def reset_max_memory_cached(device=None):
    _cpu_build_missing("_cuda_resetPeakMemoryStats")
    import mindspore as ms
    ms.runtime.reset_max_memory_reserved()


def reset_accumulated_memory_stats(device=None):
    _cpu_build_missing("_cuda_resetAccumulatedMemoryStats")
    _unmapped("reset_accumulated_memory_stats")


def reset_peak_host_memory_stats():
    _cpu_build_missing("_cuda_resetPeakHostMemoryStats")
    _unmapped("reset_peak_host_memory_stats")


def reset_accumulated_host_memory_stats():
    _cpu_build_missing("_cuda_resetAccumulatedHostMemoryStats")
    _unmapped("reset_accumulated_host_memory_stats")


def memory_snapshot(mempool_id=None):
    _cpu_build_missing("_cuda_memorySnapshot")
    _unmapped("memory_snapshot")


def get_allocator_backend():
    _cpu_build_missing("_cuda_getAllocatorBackend")
    _unmapped("get_allocator_backend")


def caching_allocator_delete(mem_ptr):
    _cpu_build_missing("_cuda_cudaCachingAllocator_raw_delete")
    _unmapped("caching_allocator_delete")


def change_current_allocator(allocator):
    _cpu_build_missing("_cuda_changeCurrentAllocator")
    _unmapped("change_current_allocator")


def _lazy_then_unmapped(api):
    def call(*args, **kwargs):
        _lazy_init()
        _unmapped(api)
    call.__name__ = call.__qualname__ = api
    call.__doc__ = f"torch.cuda.{api}: needs CUDA (torch's CPU build raises its not-compiled error)."
    return call


ipc_collect = _lazy_then_unmapped("ipc_collect")
get_device_properties = _lazy_then_unmapped("get_device_properties")
get_sync_debug_mode = _lazy_then_unmapped("get_sync_debug_mode")
set_sync_debug_mode = _lazy_then_unmapped("set_sync_debug_mode")
get_per_process_memory_fraction = _lazy_then_unmapped("get_per_process_memory_fraction")
set_per_process_memory_fraction = _lazy_then_unmapped("set_per_process_memory_fraction")
cudart = _lazy_then_unmapped("cudart")
current_blas_handle = _lazy_then_unmapped("current_blas_handle")
current_solver_handle = _lazy_then_unmapped("current_solver_handle")
caching_allocator_alloc = _lazy_then_unmapped("caching_allocator_alloc")
can_device_access_peer = _lazy_then_unmapped("can_device_access_peer")
get_stream_from_external = _lazy_then_unmapped("get_stream_from_external")


def set_stream(stream):
    if stream is None:
        return
    _no_cuda_object("set_stream", AssertionError("Torch not compiled with CUDA enabled"))


class _NvtxMissing:
    """torch.cuda.nvtx on a build without NVTX: every marker raises torch's error."""

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)

        def call(*args, **kwargs):
            raise RuntimeError("NVTX functions not installed. Are you sure you have a CUDA build?")
        return call


nvtx = _NvtxMissing()


# torch.cuda.amp (deprecated spellings of torch.amp): cuda.py is a module, so the submodule is
# registered by name for ``import torch.cuda.amp`` / ``from torch.cuda.amp import GradScaler``.
from .amp import cuda_amp as amp  # noqa: E402
import sys as _sys  # noqa: E402

_sys.modules.setdefault(__name__ + ".amp", amp)


def _submodule(name, members):
    """torch.cuda.<name> (streams, memory, random): torch's submodules, whose names torch.cuda re-exports."""
    import types
    mod = types.ModuleType(f"{__name__}.{name}", f"torch.cuda.{name}")
    for member in members:
        setattr(mod, member, globals()[member])
    _sys.modules.setdefault(mod.__name__, mod)
    return mod


streams = _submodule("streams", ("Stream", "ExternalStream", "Event"))
memory = _submodule("memory", ("caching_allocator_alloc", "caching_allocator_delete", "empty_cache",
                               "get_per_process_memory_fraction", "set_per_process_memory_fraction", "memory_stats",
                               "memory_stats_as_nested_dict", "reset_accumulated_memory_stats",
                               "reset_peak_memory_stats", "reset_max_memory_allocated", "reset_max_memory_cached",
                               "host_memory_stats", "host_memory_stats_as_nested_dict", "memory_allocated",
                               "max_memory_allocated", "memory_reserved", "max_memory_reserved", "memory_cached",
                               "max_memory_cached", "memory_snapshot", "mem_get_info", "get_allocator_backend",
                               "change_current_allocator"))
random = _submodule("random", ("get_rng_state", "get_rng_state_all", "set_rng_state", "set_rng_state_all",
                               "manual_seed", "manual_seed_all", "seed", "seed_all", "initial_seed"))
