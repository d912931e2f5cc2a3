"""torch.profiler on MindSpore's profiler.

``profile`` runs ``mindspore.profiler.Profiler`` over each recording window (torch's ``schedule`` state machine
and ``on_trace_ready`` calls) and reads back the CPU kernels MindSpore timed; ``record_function`` ranges and
``ProfilerStep#N`` steps are timed here on the same clock (wall-clock nanoseconds). Events, ``key_averages()``,
``table()`` and ``export_chrome_trace`` (torch's trace format: it opens in Perfetto / chrome://tracing) follow
torch. The kernels carry MindSpore's names (``MatMul``, ``ReLU``), not torch's ``aten::`` names; options that
need data MindSpore does not give per op (shapes, memory, stacks, FLOPs, modules) refuse by name
(docs/known-differences.md).
"""
import contextlib
import enum
import gzip
import json
import logging
import os
import shutil
import socket
import tempfile
import threading
import time
import warnings

from . import _runtime

__all__ = ["profile", "schedule", "supported_activities", "ProfilerAction", "ProfilerActivity", "record_function",
           "tensorboard_trace_handler", "DeviceType", "kineto_available"]


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


class DeviceType(_Enum):
    """Mirrors torch.profiler.DeviceType (the device an event ran on; mstorch's events are CPU)."""
    CPU = 0
    CUDA = 1
    MKLDNN = 2
    OPENGL = 3
    OPENCL = 4
    IDEEP = 5
    HIP = 6
    FPGA = 7
    MAIA = 8
    XLA = 9
    Vulkan = 10
    Metal = 11
    XPU = 12
    MPS = 13
    MTIA = 19
    Meta = 14
    HPU = 15
    VE = 16
    Lazy = 17
    IPU = 18
    PrivateUse1 = 20


def kineto_available():
    """Mirrors torch.profiler.kineto_available: True, as in torch's CPU build. Libraries ask it to choose
    ``torch.profiler.profile`` (activities, schedules, Chrome traces), which mstorch provides on MindSpore's
    profiler in place of Kineto."""
    return True


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


# --- events -------------------------------------------------------------------------------------------------


def _format_time(us):
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _format_share(us, total):
    if total == 0:
        return "NaN"
    return f"{us * 100.0 / total:.2f}%"


class Interval:
    """Mirrors torch.autograd.profiler_util.Interval (microseconds)."""

    def __init__(self, start, end):
        self.start = start
        self.end = end

    def elapsed_us(self):
        return self.end - self.start


class _Timing:
    """The time columns torch's events and averages share (CPU only: device times are zero)."""
    device_time_total = self_device_time_total = device_time = 0
    cpu_memory_usage = self_cpu_memory_usage = device_memory_usage = self_device_memory_usage = 0
    is_async = False
    is_legacy = False
    node_id = -1
    flops = 0
    use_device = None
    overload_name = ""
    device_type = DeviceType.CPU

    @property
    def cpu_time(self):
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    @property
    def cpu_time_str(self):
        return _format_time(self.cpu_time)

    @property
    def cpu_time_total_str(self):
        return _format_time(self.cpu_time_total)

    @property
    def self_cpu_time_total_str(self):
        return _format_time(self.self_cpu_time_total)


class FunctionEvent(_Timing):
    """Mirrors torch.autograd.profiler_util.FunctionEvent: one kernel or one labelled range."""

    def __init__(self, id, name, thread, start_us, end_us, is_user_annotation=False):
        self.id = id
        # torch lists its step ranges as "ProfilerStep*" (one key for all steps) and traces them by number
        self.trace_name = name
        self.name = self.key = "ProfilerStep*" if name.startswith("ProfilerStep#") else name
        self.thread = thread
        self.time_range = Interval(start_us, end_us)
        self.is_user_annotation = is_user_annotation
        self.cpu_children = []
        self.cpu_parent = None
        self.count = 1
        self.input_shapes = []
        self.stack = []
        self.scope = 0
        self.sequence_nr = -1

    @property
    def cpu_time_total(self):
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self):
        return self.cpu_time_total - sum(child.cpu_time_total for child in self.cpu_children)

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} device_type={self.device_type} "
                f"cpu_time={self.cpu_time_str} start_us={self.time_range.start} end_us={self.time_range.end} "
                f"cpu_children={[c.id for c in self.cpu_children]} thread={self.thread}>")


class FunctionEventAvg(_Timing):
    """Mirrors torch.autograd.profiler_util.FunctionEventAvg: the events of one name, summed."""

    def __init__(self):
        self.key = None
        self.count = 0
        self.cpu_time_total = 0
        self.self_cpu_time_total = 0
        self.input_shapes = None
        self.stack = None
        self.cpu_parent = None
        self.cpu_children = None
        self.is_user_annotation = False

    def add(self, other):
        if self.key is None:
            self.key = other.key
            self.is_user_annotation = other.is_user_annotation
            # a name that is top-level once counts as top-level (table(top_level_events_only=True))
            self.cpu_parent = other.cpu_parent
        elif other.cpu_parent is None:
            self.cpu_parent = None
        self.count += other.count
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        return self

    def __iadd__(self, other):
        return self.add(other)

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
                f"cpu_time={self.cpu_time_str} input_shapes={self.input_shapes}>")


class EventList(list):
    """Mirrors torch.autograd.profiler_util.EventList."""

    def __init__(self, *args, use_device=None, profile_memory=False, with_flops=False):
        super().__init__(*args)
        self._use_device = use_device

    @property
    def self_cpu_time_total(self):
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shapes=False, group_by_stack_n=0, group_by_overload_name=False):
        if group_by_input_shapes or group_by_stack_n:
            raise NotImplementedError("torch.profiler key_averages(group_by_input_shapes / group_by_stack_n) is "
                                      "not supported by mstorch: MindSpore's profiler records no shapes or stacks")
        groups = {}
        for event in self:
            groups.setdefault(event.key, FunctionEventAvg()).add(event)
        return EventList(groups.values())

    def total_average(self):
        total = FunctionEventAvg()
        for event in self:
            total.count += event.count
            total.cpu_time_total += event.cpu_time_total
            total.self_cpu_time_total += event.self_cpu_time_total
        total.key = "Total"
        return total

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False, time_unit=None):
        return _table(self, sort_by, header, row_limit, max_name_column_width, top_level_events_only, time_unit)

    def __str__(self):
        return self.table()

    def export_chrome_trace(self, path):
        _write_trace(self, path)


def _table(events, sort_by, header, row_limit, max_name_width, top_level_only, time_unit):
    """torch's summary table, CPU columns (Name, Self CPU %, Self CPU, CPU total %, CPU total, CPU time avg,
    # of Calls)."""
    if not events:
        return ""
    if sort_by is not None:
        events = sorted(events, key=lambda e: getattr(e, sort_by.replace("cuda", "device")), reverse=True)
    name_width = max(len(e.key) for e in events) + 4
    if max_name_width is not None:
        name_width = min(name_width, max_name_width)
    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]
    widths = [name_width] + [12] * (len(headers) - 1)
    row = "".join("{: >" + str(w) + "}  " for w in widths)
    rule = "".join("-" * w + "  " for w in widths)
    length = sum(w + 2 for w in widths) - 2
    total = sum(e.self_cpu_time_total for e in events)

    def shown(us, default):
        if time_unit == "s":
            return f"{us / 1e6:.3f}s"
        if time_unit == "ms":
            return f"{us / 1e3:.3f}ms"
        if time_unit == "us":
            return f"{us:.3f}us"
        return default

    lines = []
    if header is not None:
        lines += ["=" * length, header]
    if top_level_only:
        lines += ["=" * length, "This report only display top-level ops statistics"]
    lines += [rule, row.format(*headers), rule]
    shown_rows = 0
    for e in events:
        if shown_rows == row_limit:
            break
        if top_level_only and e.cpu_parent is not None:
            continue
        shown_rows += 1
        name = e.key
        if max_name_width is not None and len(name) >= max_name_width - 3:
            name = name[:max_name_width - 3] + "..."
        lines.append(row.format(name, _format_share(e.self_cpu_time_total, total),
                                shown(e.self_cpu_time_total, e.self_cpu_time_total_str),
                                _format_share(e.cpu_time_total, total), shown(e.cpu_time_total, e.cpu_time_total_str),
                                shown(e.cpu_time, e.cpu_time_str), e.count))
    lines += [rule, f"Self CPU time total: {shown(total, _format_time(total))}"]
    return "\n".join(lines) + "\n"


def _write_trace(events, path):
    """A Chrome trace in torch's (Kineto's) JSON layout: complete ("X") events in microseconds."""
    pid = os.getpid()
    trace = {"schemaVersion": 1, "deviceProperties": [], "traceEvents": [
        {"ph": "X", "cat": "user_annotation" if e.is_user_annotation else "cpu_op", "name": e.trace_name, "pid": pid,
         "tid": e.thread, "ts": e.time_range.start, "dur": e.cpu_time_total, "args": {"External id": e.id}}
        for e in sorted(events, key=lambda e: e.time_range.start)], "traceName": str(path)}
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "wt") as f:
        json.dump(trace, f)


def _nest(events):
    """Parents and children by time containment on each thread (what torch's event tree shows)."""
    by_thread = {}
    for e in sorted(events, key=lambda e: (e.time_range.start, -e.time_range.end)):
        stack = by_thread.setdefault(e.thread, [])
        while stack and stack[-1].time_range.end <= e.time_range.start:
            stack.pop()
        if stack and e.time_range.end <= stack[-1].time_range.end:
            e.cpu_parent = stack[-1]
            stack[-1].cpu_children.append(e)
        stack.append(e)
    return events


# --- recording: MindSpore's profiler for the kernels, this module for the labelled ranges -------------------

_running = []    # the profilers recording now (record_function reports to them)


class _KernelRecorder:
    """One recording window of mindspore.profiler.Profiler: its CPU kernels, read back after stop.

    On CPU, MindSpore writes each kernel's launch time (wall-clock ns), duration (ms) and thread to
    ``FRAMEWORK/cpu_op_execute_timestamp_<rank>.txt`` when the profiler stops; that file is read directly
    (the full analysis MindSpore runs for its own reports takes a second per window and adds nothing here).
    """

    def __init__(self):
        from mindspore import profiler as ms_profiler
        self._dir = tempfile.mkdtemp(prefix="mstorch_profiler_")
        # MindSpore logs its own notices here (the class's deprecation in favour of its torch-like API, which
        # would parse every window; a schedule without warmup): nothing a torch user can act on
        ms_log = logging.getLogger(f"ME.mindspore.log.{os.getpid()}")
        level = ms_log.level
        ms_log.setLevel(logging.ERROR)
        try:
            self._profiler = ms_profiler.Profiler(start_profile=False, output_path=self._dir)
        finally:
            ms_log.setLevel(level)
        self._profiler.start()

    def stop(self):
        """[(name, start_us, duration_us)] of the kernels that ran."""
        from mindspore.profiler.profiler_interface import ProfilerInterface
        self._profiler.stop()
        # release MindSpore's profiler for the next window without its (slow, unneeded) analysis step
        ProfilerInterface.finalize()
        ProfilerInterface.clear()
        try:
            kernels = []
            for root, _, files in os.walk(self._dir):
                for name in files:
                    if name.startswith("cpu_op_execute_timestamp") and name.endswith(".txt"):
                        kernels += _read_kernels(os.path.join(root, name))
            return kernels
        finally:
            shutil.rmtree(self._dir, ignore_errors=True)


def _read_kernels(path):
    kernels = []
    with open(path) as f:
        for line in f:
            parts = line.strip().split(";")
            if len(parts) < 3 or not parts[0]:
                continue
            for launch in parts[2].split():
                start_ns, dur_ms, _ = launch.split(",")
                kernels.append((parts[0], int(start_ns) / 1e3, float(dur_ms) * 1e3))
    return kernels


def _now_us():
    return time.time_ns() / 1e3


class record_function(contextlib.ContextDecorator):
    """Mirrors torch.profiler.record_function: a labelled range, recorded by the profilers that run."""

    def __init__(self, name, args=None):
        self.name = name
        self.args = args
        self._start = None

    def __enter__(self):
        self._start = _now_us()
        return self

    def __exit__(self, *exc):
        end = _now_us()
        for prof in _running:
            prof._ranges.append((self.name, threading.get_ident(), self._start, end))
        return False


_UNSUPPORTED_OPTIONS = {
    "record_shapes": "MindSpore's profiler records no input shapes per op for mstorch to report",
    "profile_memory": "MindSpore's CPU profiler records no per-op memory",
    "with_stack": "MindSpore's profiler records no Python stacks per op",
    "with_flops": "MindSpore's profiler computes no FLOPs on CPU",
    "with_modules": "MindSpore's profiler records no module hierarchy",
    "execution_trace_observer": "torch's execution trace is a graph of torch's own ops",
}


class profile:
    """Mirrors torch.profiler.profile (CPU activity) on MindSpore's profiler."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, execution_trace_observer=None, acc_events=False, use_cuda=None,
                 custom_trace_id_callback=None, post_processing_timeout_s=None):
        given = {"record_shapes": record_shapes, "profile_memory": profile_memory, "with_stack": with_stack,
                 "with_flops": with_flops, "with_modules": with_modules,
                 "execution_trace_observer": execution_trace_observer is not None}
        for option, on in given.items():
            if on:
                raise NotImplementedError(f"torch.profiler.profile({option}=...) is not supported by mstorch: "
                                          f"{_UNSUPPORTED_OPTIONS[option]}")
        self.activities = set(activities) if activities is not None else supported_activities()
        if use_cuda:
            self.activities.add(ProfilerActivity.CUDA)
        if self.activities - supported_activities():
            # torch's CPU build records CPU activity only; its Kineto warns likewise about missing devices
            warnings.warn("mstorch's profiler records CPU activity only (MindSpore's CPU kernels); "
                          f"{sorted(a.name for a in self.activities - supported_activities())} is ignored",
                          stacklevel=2)
        if schedule is None:
            self.schedule = lambda step: ProfilerAction.RECORD
            self.record_steps = False
        else:
            self.schedule = schedule
            self.record_steps = True
        self.on_trace_ready = on_trace_ready
        self.record_shapes = self.profile_memory = self.with_stack = self.with_flops = self.with_modules = False
        self.step_num = 0
        self.current_action = self.schedule(0)
        self._kernels = None
        self._host_kernels = []
        self._ranges = []
        self._events = None
        self._step_range = None

    # torch's transitions between schedule actions (prepare / start / stop / save)
    def _transit(self, prev, current):
        A = ProfilerAction
        recording = (A.RECORD, A.RECORD_AND_SAVE)
        if prev in recording and (current is None or current in (A.NONE, A.WARMUP) or prev == A.RECORD_AND_SAVE):
            if prev == A.RECORD and current is not None:
                warnings.warn(f"Incorrect schedule: RECORD followed by {current.name}", stacklevel=3)
            self._stop_trace()
            if prev == A.RECORD_AND_SAVE or current is None:
                self._trace_ready()
            if current in recording:
                self._start_trace()
        elif prev not in recording and current in recording:
            self._start_trace()
        elif prev == A.WARMUP and current == A.NONE:
            warnings.warn("Incorrect schedule: WARMUP followed by NONE", stacklevel=3)

    def _start_trace(self):
        self._ranges = []
        self._events = None
        self._kernels = _KernelRecorder()
        self._host_kernels = []
        _runtime.HOST_KERNEL_LOGS.append(self._host_kernels)
        _running.append(self)

    def _stop_trace(self):
        self._close_step()
        if self in _running:
            _running.remove(self)
        kernels = self._kernels.stop() if self._kernels is not None else []
        self._kernels = None
        logs = _runtime.HOST_KERNEL_LOGS
        logs[:] = [log for log in logs if log is not self._host_kernels]    # (by identity: lists compare equal)
        kernels += self._host_kernels
        thread = threading.get_ident()
        # kernels run on the launching thread on CPU (MindSpore's blocking launch): they nest in its ranges
        events = [FunctionEvent(0, name, thread, start, start + dur) for name, start, dur in kernels]
        events += [FunctionEvent(0, name, tid, start, end, is_user_annotation=True)
                   for name, tid, start, end in self._ranges]
        events.sort(key=lambda e: e.time_range.start)
        for i, e in enumerate(events):
            e.id = i + 1
        self._events = EventList(_nest(events))

    def _trace_ready(self):
        if self.on_trace_ready:
            self.on_trace_ready(self)

    def _open_step(self):
        if self.record_steps and self.current_action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            self._step_range = record_function("ProfilerStep#" + str(self.step_num)).__enter__()

    def _close_step(self):
        if self._step_range is not None:
            self._step_range.__exit__(None, None, None)
            self._step_range = None

    def start(self):
        self._transit(ProfilerAction.NONE, self.current_action)
        self._open_step()

    def stop(self):
        self._close_step()
        self._transit(self.current_action, None)

    def step(self):
        self._close_step()
        prev = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        if self.current_action == ProfilerAction.DEVICE_STOPPED:
            raise ValueError("ProfilerAction.DEVICE_STOPPED is set internally by the profiler and must not be "
                             "returned by a user-provided schedule")
        self._transit(prev, self.current_action)
        self._open_step()

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    def events(self):
        if self._events is None:
            raise AssertionError("Expected profiler to be initialized")
        return self._events

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        return self.events().key_averages(group_by_input_shape, group_by_stack_n, group_by_overload_name)

    def export_chrome_trace(self, path):
        self.events().export_chrome_trace(path)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        raise NotImplementedError("torch.profiler.profile.export_stacks is not supported by mstorch: "
                                  f"{_UNSUPPORTED_OPTIONS['with_stack']}")

    def export_memory_timeline(self, path, device=None):
        raise NotImplementedError("torch.profiler.profile.export_memory_timeline is not supported by mstorch: "
                                  f"{_UNSUPPORTED_OPTIONS['profile_memory']}")


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False):
    """Mirrors torch.profiler.tensorboard_trace_handler: each finished window's Chrome trace, as
    ``<dir>/<worker>.<ns>.pt.trace.json[.gz]`` (the layout TensorBoard's profiler plugin reads)."""

    def handler(prof):
        os.makedirs(dir_name, exist_ok=True)
        worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        name = f"{worker}.{time.time_ns()}.pt.trace.json" + (".gz" if use_gzip else "")
        prof.export_chrome_trace(os.path.join(dir_name, name))
    return handler
