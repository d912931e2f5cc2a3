"""torch.profiler.profile on MindSpore's profiler, against torch's: the schedule's windows and on_trace_ready
calls, ProfilerStep#N and record_function ranges, key_averages / table layout, the Chrome trace file and
tensorboard_trace_handler's naming, and the options that refuse. Kernel names are MindSpore's (checked against
the ops that ran); timings are real, so only their consistency is compared."""
import json
import os
import re

import pytest

from harness import NAMESPACES, check, rand


def _train_step(T, model, x):
    with T.profiler.record_function("forward"):
        loss = model(x).relu().sum()
    with T.profiler.record_function("backward"):
        loss.backward()


def _setup(T):
    T.manual_seed(0)
    return T.nn.Linear(8, 4), T.tensor(rand(16, 8))


def _windows(T):
    """Run 7 steps under a schedule; per on_trace_ready call: step_num, the user ranges recorded (sorted)."""
    model, x = _setup(T)
    seen = []

    def ready(prof):
        names = sorted(e.name for e in prof.events() if e.name.startswith(("ProfilerStep", "forward", "backward")))
        seen.append((prof.step_num, names))

    sched = T.profiler.schedule(wait=1, warmup=1, active=2, repeat=2)
    with T.profiler.profile(activities=[T.profiler.ProfilerActivity.CPU], schedule=sched, on_trace_ready=ready) as p:
        for _ in range(9):
            _train_step(T, model, x)
            p.step()
    return seen, p.step_num


def test_schedule_windows_and_steps():
    check(_windows)


def _summary(T):
    model, x = _setup(T)
    with T.profiler.profile() as prof:
        for _ in range(2):
            _train_step(T, model, x)
    avg = {e.key: e for e in prof.key_averages()}
    table = prof.key_averages().table(sort_by="cpu_time_total", row_limit=5)
    lines = table.splitlines()
    user = [(k, avg[k].count) for k in ("forward", "backward")]
    # a range's total covers its children; self time excludes them
    consistent = all(avg[k].cpu_time_total >= avg[k].self_cpu_time_total >= 0 for k in ("forward", "backward"))
    top = sorted({e.name for e in prof.events() if e.cpu_parent is None})
    return (user, consistent, lines[1].split(), len(lines), lines[-1].split(":")[0], top,
            re.fullmatch(r"-+( +-+)+ *", lines[0]) is not None)


def test_key_averages_and_table():
    check(_summary)


def test_kernels_are_the_ops_that_ran():
    """MindSpore's kernel names, nested in the range that launched them (torch would show aten::addmm...)."""
    T = NAMESPACES["mstorch"]
    model, x = _setup(T)
    with T.profiler.profile() as prof:
        _train_step(T, model, x)
    events = prof.events()
    forward = next(e for e in events if e.name == "forward")
    inside = {c.name for c in forward.cpu_children}
    # (linear runs MindSpore's MatMul, or numpy's BLAS where the CPU kernel table picks the host: reported too)
    assert inside & {"MatMul", "MatMul (host)"} and "ReLU" in inside, inside
    backward = next(e for e in events if e.name == "backward")
    assert "ReluGrad" in {c.name for c in backward.cpu_children}
    assert all(e.cpu_time_total > 0 for e in events)


def test_chrome_trace_and_tensorboard_handler(tmp_path):
    def fn(T):
        model, x = _setup(T)
        out = tmp_path / T.__name__
        with T.profiler.profile(schedule=T.profiler.schedule(wait=0, warmup=0, active=1),
                                on_trace_ready=T.profiler.tensorboard_trace_handler(str(out), worker_name="w")) as p:
            for _ in range(2):
                _train_step(T, model, x)
                p.step()
        files = sorted(os.listdir(out))
        trace = json.loads((out / files[0]).read_text())
        events = [e for e in trace["traceEvents"] if e.get("ph") == "X"]
        steps = sorted(e["name"] for e in events if e["name"].startswith("ProfilerStep"))
        users = sorted(e["name"] for e in events if e.get("cat") == "user_annotation")
        fields = all({"name", "ts", "dur", "pid", "tid", "cat"} <= set(e) for e in events)
        return ([re.sub(r"\.\d+\.", ".<ns>.", f) for f in files], steps, users, fields, "traceEvents" in trace,
                "schemaVersion" in trace)
    check(fn)


@pytest.mark.parametrize("option", ["record_shapes", "profile_memory", "with_stack", "with_flops", "with_modules"])
def test_unmapped_options_refuse(option):
    T = NAMESPACES["mstorch"]
    with pytest.raises(NotImplementedError, match=f"torch.profiler.profile\\({option}=...\\) is not supported"):
        T.profiler.profile(**{option: True})


def test_record_function_without_profiler_and_names():
    def fn(T):
        with T.profiler.record_function("region"):
            y = T.ones(2) * 3
        return (y, T.profiler.kineto_available(), [(k, int(v)) for k, v in T.profiler.DeviceType.__members__.items()])
    check(fn)


def test_device_stopped_from_a_schedule_raises():
    def fn(T):
        p = T.profiler.profile(schedule=lambda step: T.profiler.ProfilerAction.DEVICE_STOPPED if step else
                               T.profiler.ProfilerAction.NONE)
        p.start()
        try:
            p.step()
        finally:
            p.current_action = T.profiler.ProfilerAction.NONE
            p.stop()
    check(fn, raises=True)
