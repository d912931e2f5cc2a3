"""torch.mtia as a CPU build answers it (accelerate asks torch.mtia.is_available()): the queries, and the errors of
every call that needs an MTIA device, compared with torch."""
import pytest

from harness import check, check_raises


def test_queries():
    check(lambda T: [T.mtia.is_available(), T.mtia.is_initialized(), T.mtia.device_count(), T.mtia.memory_stats(),
                     T.mtia.memory_stats(0), T.mtia.max_memory_allocated(), T.mtia.memory_allocated(),
                     T.mtia.reset_peak_memory_stats(), T.mtia.record_memory_history(), T.mtia.is_bf16_supported(),
                     T.mtia.is_bf16_supported(False), T.mtia.manual_seed(0), T.mtia.manual_seed_all(1),
                     T.mtia.seed(), T.mtia.seed_all(), T.mtia.get_rng_state_all(), T.mtia.set_stream(None),
                     sorted(T.mtia.__all__) == sorted(n for n in T.mtia.__all__ if hasattr(T.mtia, n))])


CALLS = [lambda T: T.mtia.init(), lambda T: T.mtia.initial_seed(), lambda T: T.mtia.get_rng_state(),
         lambda T: T.mtia.current_device(), lambda T: T.mtia.set_device(0), lambda T: T.mtia.synchronize(),
         lambda T: T.mtia.synchronize(0), lambda T: T.mtia.current_stream(), lambda T: T.mtia.default_stream(),
         lambda T: T.mtia.stream(None), lambda T: T.mtia.get_device_capability(),
         lambda T: T.mtia.get_device_capability(0), lambda T: T.mtia.get_device_properties(),
         lambda T: T.mtia.set_rng_state(T.zeros(1)), lambda T: T.mtia.empty_cache(), lambda T: T.mtia.snapshot(),
         lambda T: T.mtia.attach_out_of_memory_observer(print), lambda T: T.mtia.graph_pool_handle(),
         lambda T: T.mtia.device(0).__enter__()]


@pytest.mark.parametrize("i", range(len(CALLS)))
def test_calls_needing_the_device(i):
    ref, got = check_raises(CALLS[i])
    assert str(got.exc) == str(ref.exc)
