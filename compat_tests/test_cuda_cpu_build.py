"""torch.cuda, torch.cpu streams, torch.accelerator and torch.Stream / torch.Event without a GPU, against torch's
CPU build: the same values, and the same exception types and messages where torch's CPU build raises."""
import warnings

import pytest

from harness import NAMESPACES

CALLS = {
    "cuda_Stream": lambda T: T.cuda.Stream(), "cuda_Event": lambda T: T.cuda.Event(),
    "Event_timing": lambda T: T.cuda.Event(enable_timing=True), "current_stream": lambda T: T.cuda.current_stream(),
    "default_stream": lambda T: T.cuda.default_stream(), "stream_none": lambda T: T.cuda.stream(None).__enter__(),
    "set_stream_none": lambda T: T.cuda.set_stream(None), "CUDAGraph": lambda T: T.cuda.CUDAGraph(),
    "capturing": lambda T: T.cuda.is_current_stream_capturing(),
    "FloatTensor": lambda T: T.cuda.FloatTensor(), "LongTensor": lambda T: T.cuda.LongTensor([1]),
    "BFloat16Tensor": lambda T: T.cuda.BFloat16Tensor(2), "isinstance_legacy": lambda T: isinstance(T.ones(1),
                                                                                                  T.cuda.FloatTensor),
    "memory_stats": lambda T: T.cuda.memory_stats(), "memory_stats_nested": lambda T: T.cuda.memory_stats_as_nested_dict(),
    "memory_cached": lambda T: T.cuda.memory_cached(), "max_memory_cached": lambda T: T.cuda.max_memory_cached(),
    "max_memory_reserved": lambda T: T.cuda.max_memory_reserved(), "host_stats": lambda T: T.cuda.host_memory_stats(),
    "host_nested": lambda T: T.cuda.host_memory_stats_as_nested_dict(),
    "reset_max_allocated": lambda T: T.cuda.reset_max_memory_allocated(),
    "reset_max_cached": lambda T: T.cuda.reset_max_memory_cached(),
    "reset_accumulated": lambda T: T.cuda.reset_accumulated_memory_stats(),
    "reset_peak_host": lambda T: T.cuda.reset_peak_host_memory_stats(),
    "memory_snapshot": lambda T: T.cuda.memory_snapshot(), "allocator_backend": lambda T: T.cuda.get_allocator_backend(),
    "allocator_delete": lambda T: T.cuda.caching_allocator_delete(0),
    "change_allocator": lambda T: T.cuda.change_current_allocator(None),
    "arch_list": lambda T: T.cuda.get_arch_list(), "gencode": lambda T: T.cuda.get_gencode_flags(),
    "has_half": lambda T: (T.cuda.has_half, T.cuda.has_magma), "tf32": lambda T: T.cuda.is_tf32_supported(),
    "get_rng_state": lambda T: T.cuda.get_rng_state(), "get_rng_state_all": lambda T: T.cuda.get_rng_state_all(),
    "set_rng_state": lambda T: T.cuda.set_rng_state(T.zeros(1, dtype=T.uint8)),
    "set_rng_state_all": lambda T: T.cuda.set_rng_state_all([]), "initial_seed": lambda T: T.cuda.initial_seed(),
    "ipc_collect": lambda T: T.cuda.ipc_collect(), "properties": lambda T: T.cuda.get_device_properties(0),
    "sync_debug": lambda T: T.cuda.get_sync_debug_mode(), "set_sync_debug": lambda T: T.cuda.set_sync_debug_mode(0),
    "fraction": lambda T: T.cuda.get_per_process_memory_fraction(),
    "set_fraction": lambda T: T.cuda.set_per_process_memory_fraction(0.5), "cudart": lambda T: T.cuda.cudart(),
    "blas": lambda T: T.cuda.current_blas_handle(), "solver": lambda T: T.cuda.current_solver_handle(),
    "alloc": lambda T: T.cuda.caching_allocator_alloc(8), "peer": lambda T: T.cuda.can_device_access_peer(0, 1),
    "external": lambda T: T.cuda.get_stream_from_external(0),
    "device_of": lambda T: (T.cuda.device_of(T.ones(1)).idx, T.cuda.device_of(T.ones(1)).__enter__()),
    "device_enter": lambda T: T.cuda.device(0).__enter__(), "device_enter_cpu": lambda T: T.cuda.device("cpu").__enter__(),
    "device_enter_none": lambda T: T.cuda.device(-1).__enter__(), "device_enter_1": lambda T: T.cuda.device("cuda:1").__enter__(),
    "submodules": lambda T: (T.cuda.streams.Stream is T.cuda.Stream, T.cuda.streams.Event is T.cuda.Event,
                             T.cuda.memory.memory_allocated(), T.cuda.random.manual_seed(1),
                             T.cuda.memory.max_memory_cached()),
    "nvtx": lambda T: T.cuda.nvtx.range_push("a"),
    "cpu_streams": lambda T: (T.cpu.current_stream() is T.cpu.current_stream(), T.cpu.Event().query(),
                              T.cpu.Event().record(), T.cpu.Event().synchronize(), T.cpu.Stream().wait_stream(None),
                              T.cpu.stream(None).__enter__()),
    "cpu_stream_ctx": lambda T: _cpu_stream_ctx(T),
    "acc_current_stream": lambda T: T.accelerator.current_stream(),
    "acc_set_stream": lambda T: T.accelerator.set_stream(T.Stream()),
    "acc_mem": lambda T: T.accelerator.memory_allocated(), "acc_max": lambda T: T.accelerator.max_memory_reserved(),
    "acc_stats": lambda T: T.accelerator.memory_stats(), "acc_info": lambda T: T.accelerator.get_memory_info(),
    "acc_empty": lambda T: T.accelerator.empty_cache(), "acc_host": lambda T: T.accelerator.empty_host_cache(),
    "acc_capability": lambda T: T.accelerator.get_device_capability(), "acc_graph": lambda T: T.accelerator.Graph(),
    "acc_reset": lambda T: T.accelerator.reset_peak_memory_stats(),
    "acc_reset_acc": lambda T: T.accelerator.reset_accumulated_memory_stats(),
    "acc_index_none": lambda T: T.accelerator.device_index(None).__enter__(),
    "acc_index": lambda T: T.accelerator.device_index(0).__enter__(),
    "Stream": lambda T: (repr(T.Stream()), T.Stream().query(), T.Stream().synchronize(), T.Stream() == T.Stream(),
                         hash(T.Stream()) == hash(T.Stream()), repr(T.Stream("cpu", priority=1)),
                         repr(T.Stream().device), T.Stream().__enter__() == T.Stream()),
    "Stream_cuda": lambda T: T.Stream("cuda"), "Stream_wait": lambda T: T.Stream().wait_stream(T.Stream()),
    "Stream_record": lambda T: T.Stream().record_event(),
    "Event": lambda T: (repr(T.Event()), repr(T.Event(enable_timing=True)), T.Event().query(), T.Event().wait(),
                        repr(T.Event().device)),
    "Event_record": lambda T: T.Event().record(), "Event_cuda": lambda T: T.Event("cuda"),
    "Event_elapsed": lambda T: T.Event().elapsed_time(T.Event()),
}


def _cpu_stream_ctx(T):
    s = T.cpu.Stream()
    with T.cpu.stream(s):
        inside = T.cpu.current_stream() is s
    return inside, T.cpu.current_stream() is s


def _outcome(fn, T):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            value = fn(T)
        except Exception as exc:  # noqa: BLE001 - the error is the outcome
            return "raised", type(exc).__name__, str(exc)
    return "value", repr(value)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_as_torch_cpu_build(name):
    ref = _outcome(CALLS[name], NAMESPACES["torch"])
    got = _outcome(CALLS[name], NAMESPACES["mstorch"])
    assert got == ref
