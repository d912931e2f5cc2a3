"""torch.mps against a torch build without the MPS backend (this test machine's): unavailable, no devices,
manual_seed a no-op, and torch's RuntimeError (same message) from everything that needs the device."""
import pytest

from harness import check
from test_autograd import check_message

CALLS = {
    "current_allocated_memory": lambda T: T.mps.current_allocated_memory(),
    "driver_allocated_memory": lambda T: T.mps.driver_allocated_memory(),
    "recommended_max_memory": lambda T: T.mps.recommended_max_memory(),
    "get_rng_state": lambda T: T.mps.get_rng_state(),
    "set_rng_state": lambda T: T.mps.set_rng_state(T.zeros(4, dtype=T.uint8)),
    "seed": lambda T: T.mps.seed(),
    "empty_cache": lambda T: T.mps.empty_cache(),
    "synchronize": lambda T: T.mps.synchronize(),
    "fraction": lambda T: T.mps.set_per_process_memory_fraction(0.5),
    "fraction_range": lambda T: T.mps.set_per_process_memory_fraction(3.0),
    "fraction_type": lambda T: T.mps.set_per_process_memory_fraction(1),
    "compile_shader": lambda T: T.mps.compile_shader("kernel void f() {}"),
    "profiler_start": lambda T: T.mps.profiler.start(),
    "profiler_profile": lambda T: T.mps.profiler.profile().__enter__(),
}


def test_mps_unavailable():
    check(lambda T: (T.mps.is_available(), T.mps.device_count(), T.mps.manual_seed(3), T.backends.mps.is_available(),
                     sorted(T.mps.__all__)))


@pytest.mark.parametrize("name", sorted(CALLS))
def test_mps_calls_raise(name):
    check_message(CALLS[name])
