"""torch.utils.benchmark against torch: Measurement statistics and repr, the helpers, Compare's tables (plain,
trimmed, coloured, with warnings, several envs and thread counts) on fixed times, and Timer's structure (times
themselves are not compared)."""
import re

import pytest
import torch.utils.benchmark  # noqa: F401  (the submodule, as scripts import it)
import mstorch.utils.benchmark  # noqa: F401

from harness import check, check_raises


def _norm(text):
    """Object addresses and the package name differ; the rest is compared."""
    return re.sub(r"0x[0-9a-f]+", "0x", text).replace("mstorch", "torch")


def _measurements(B):
    setup = "x = torch.ones(3)"
    return [B.Measurement(10, [1.2e-5, 1.0e-5, 1.1e-5, 1.5e-5, 0.9e-5],
                          B.TaskSpec("x + 1", setup, label="add", sub_label="float", description="n=3")),
            B.Measurement(10, [2.2e-5, 2.0e-5, 2.1e-5, 2.5e-5, 1.9e-5],
                          B.TaskSpec("x * 2", setup, label="add", sub_label="int", description="n=3")),
            B.Measurement(100, [3.2e-3, 3.0e-3], B.TaskSpec("x * 2", "", label="add", sub_label="int", description="n=9")),
            B.Measurement(1, [5e-9], B.TaskSpec("f()\ng()", "a = 1\nb = 2", description="desc")),
            B.Measurement(4, [4e-1, 9e-1, 4.4e-1, 4.1e-1, 5e-1, 4e-1], B.TaskSpec("y", "pass", label="slow"))]


def test_measurement_statistics_and_repr():
    def fn(T):
        ms = _measurements(T.utils.benchmark)
        return [(round(m.median, 15), round(m.mean, 15), round(m.iqr, 15), m.significant_figures, m.has_warnings,
                 m.title, m.env, m.as_row_name, m.times, m.meets_confidence(0.5), m.stmt, m.num_threads,
                 _norm(repr(m))) for m in ms]
    check(fn)


def test_merge_and_taskspec():
    def fn(T):
        B = T.utils.benchmark
        ms = _measurements(B)
        merged = B.Measurement.merge(ms + ms[:2])
        spec = B.TaskSpec("a", "b\nc", label=None, sub_label="s")
        return ([(m.number_per_run, m.raw_times, m.title) for m in merged], spec.title, spec.setup_str(),
                spec.summarize(), spec == B.TaskSpec("a", "b\nc", sub_label="s"))
    check(fn)


def test_helpers():
    def fn(T):
        B = T.utils.benchmark
        return ([B.select_unit(t) for t in (3e-10, 3e-7, 2e-4, 0.5, 12.0)],
                [B.unit_to_english(u) for u in ("ns", "us", "ms", "s")],
                [B.trim_sigfig(x, n) for x, n in ((3.14159, 2), (123456.0, 3), (0.000123456, 1))],
                B.ordered_unique([3, 1, 3, 2, 1]), [c.value for c in B.Colorize], [lang.name for lang in B.Language])
    check(fn)


@pytest.mark.parametrize("mode", ["plain", "trim", "colour", "rowwise"])
def test_compare_tables(mode):
    def fn(T):
        B = T.utils.benchmark
        c = B.Compare(_measurements(B)[:4])     # (torch's table needs a description on every measurement)
        if mode != "plain":
            c.trim_significant_figures()
            c.highlight_warnings()
        if mode in ("colour", "rowwise"):
            c.colorize(rowwise=mode == "rowwise")
        return str(c)
    check(fn)


def test_compare_envs_threads_and_errors():
    def fn(T):
        B = T.utils.benchmark
        ms = [B.Measurement(10, [1e-3, 1.1e-3, 1.2e-3, 1.0e-3], B.TaskSpec("a", "", label="X", description="d1",
                                                                        env="envA", num_threads=t)) for t in (1, 4)]
        ms.append(B.Measurement(10, [2e-3, 2.1e-3, 2.2e-3, 2.0e-3],
                                B.TaskSpec("a", "", label="X", description="d2", env="envB")))
        c = B.Compare(ms[:1])
        c.extend_results(ms[1:])
        return str(c)
    check(fn)
    check_raises(lambda T: T.utils.benchmark.Compare([1.0]))


def test_timer_structure():
    def fn(T):
        B = T.utils.benchmark
        t = B.Timer("y = x + 1", setup="x = torch.ones(3)", label="L", sub_label="s", description="d", num_threads=1)
        m = t.timeit(50)
        calls = []
        b = t.blocked_autorange(callback=lambda n, s: calls.append(n), min_run_time=0.01)
        a = t.adaptive_autorange(min_run_time=0.01, max_run_time=0.05)
        spec = m.task_spec
        return (m.number_per_run, len(m.raw_times), (spec.stmt, spec.setup, spec.label, spec.sub_label,
                                                     spec.description, spec.env, spec.num_threads), type(m).__name__, b.number_per_run == calls[0],
                len(b.raw_times) == len(calls), len(a.raw_times) >= 1, b.task_spec == a.task_spec,
                B.Timer("\n    z = 1\n    w = 2\n", globals={"k": 1}).timeit(3).task_spec.stmt)
    check(fn)


@pytest.mark.parametrize("case", ["stmt", "global_setup", "language", "repeat", "autorange"])
def test_timer_errors(case):
    def fn(T):
        B = T.utils.benchmark
        if case == "stmt":
            return B.Timer(lambda: 1)
        if case == "global_setup":
            return B.Timer("x", global_setup="#include <x>")
        if case == "language":
            return B.Timer("x", language="rust")
        return getattr(B.Timer("1"), case)()
    check_raises(fn)
