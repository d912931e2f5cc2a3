"""torch.mps.profiler: Metal's OS-signpost tracing, which needs the MPS backend mstorch does not have."""
import contextlib

__all__ = ["start", "stop", "profile"]


def start(mode="interval", wait_until_completed=False):
    raise RuntimeError("Cannot execute profilerStartTrace() without MPS backend.")


def stop():
    raise RuntimeError("Cannot execute profilerStopTrace() without MPS backend.")


@contextlib.contextmanager
def profile(mode="interval", wait_until_completed=False):
    try:
        start(mode, wait_until_completed)
        yield
    finally:
        stop()
