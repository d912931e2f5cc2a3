"""torch.profiler: the names libraries build on (accelerate's ``ProfileKwargs`` maps strings to
``ProfilerActivity`` and builds a ``schedule``). Recording torch's profiler events needs torch's
kernels; ``profile`` says so when it is constructed. ``record_function`` labels a region as torch's does
outside a running profiler: nothing is recorded, the code runs unchanged."""
import contextlib
import enum
import warnings

__all__ = ["profile", "schedule", "supported_activities", "ProfilerAction", "ProfilerActivity", "record_function"]


class _Enum(enum.Enum):
    # torch's profiler enums are pybind11 enums: int() gives the value, str() the qualified name
    def __int__(self):
        return self.value

    def __index__(self):
        return self.value


class ProfilerActivity(_Enum):
    """Mirrors torch.profiler.ProfilerActivity (members in torch's order, with torch's values)."""
    CPU = 0
    XPU = 1
    MTIA = 4
    CUDA = 2
    HPU = 3
    PrivateUse1 = 5


class ProfilerAction(_Enum):
    """Mirrors torch.profiler.ProfilerAction."""
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3
    DEVICE_STOPPED = 4


def supported_activities():
    """Mirrors torch.profiler.supported_activities on a CPU build."""
    return {ProfilerActivity.CPU}


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """Mirrors torch.profiler.schedule: the action for each step of a wait/warmup/active cycle."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} (need >= 0), "
            f"active={active} (need > 0), repeat={repeat} (need >= 0), skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results", stacklevel=2)
    cycle = wait + warmup + active

    def schedule_fn(step):
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:   # the first cycle starts without its wait
            step += wait
        if repeat > 0 and step / cycle >= repeat:
            return ProfilerAction.NONE
        pos = step % cycle
        if pos < wait:
            return ProfilerAction.NONE
        if pos < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if pos < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


class profile:
    """torch.profiler.profile: not supported (see docs/known-differences.md)."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(
            "torch.profiler.profile is not supported by mstorch: torch's profiler records the events of torch's "
            "own kernels; profile MindSpore's kernels with mindspore.profiler.Profiler instead")


class record_function(contextlib.ContextDecorator):
    """Mirrors torch.profiler.record_function outside a running profiler (mstorch has none): a label only."""

    def __init__(self, name, args=None):
        self.name = name
        self.args = args

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
