"""torch.utils.benchmark.Timer: ``timeit.Timer`` with warmup, the thread count fixed while measuring, blocked
and adaptive replicate loops, and Measurement results, as torch's. C++ statements and Callgrind need torch's C++
build and refuse by name."""
import enum
import sys
import textwrap
import timeit

from .... import accelerator
from . import common

__all__ = ["Timer", "timer", "Language"]


def timer():
    """``timeit.default_timer`` after waiting for the accelerator's queued work, if there is an accelerator."""
    if accelerator.is_available():
        accelerator.synchronize()
    return timeit.default_timer()


class Language(enum.Enum):
    PYTHON = 0
    CPP = 1


class Timer:
    _timer_cls = timeit.Timer

    def __init__(self, stmt="pass", setup="pass", global_setup="", timer=timer, globals=None, label=None,
                 sub_label=None, description=None, env=None, num_threads=1, language=Language.PYTHON):
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        self._globals = dict(globals or {})
        if language in (Language.PYTHON, "py", "python"):
            self._globals.setdefault("torch", sys.modules[__name__.split(".")[0]])
            self._language = Language.PYTHON
            if global_setup:
                raise ValueError(f"global_setup is C++ only, got `{global_setup}`. Most likely this code can simply "
                                 "be moved to `setup`.")
        elif language in (Language.CPP, "cpp", "c++"):
            raise NotImplementedError("torch.utils.benchmark.Timer(language='c++') is not supported by mstorch: it "
                                      "compiles the statement against torch's C++ library")
        else:
            raise ValueError(f"Invalid language `{language}`.")
        stmt, setup = _clean(stmt), _clean(setup)
        self._timer = self._timer_cls(stmt=stmt, setup=setup, timer=timer, globals=self._globals)
        self._task_spec = common.TaskSpec(stmt=stmt, setup=setup, global_setup=global_setup, label=label,
                                          sub_label=sub_label, description=description, env=env,
                                          num_threads=num_threads)

    def _timeit(self, number):
        return max(self._timer.timeit(number), 1e-9)   # (a zero time would break the ratios below)

    def timeit(self, number=1000000):
        with common.set_torch_threads(self._task_spec.num_threads):
            self._timeit(number=max(int(number // 100), 2))      # warmup
            return common.Measurement(number_per_run=number, raw_times=[self._timeit(number=number)],
                                      task_spec=self._task_spec)

    def repeat(self, repeat=-1, number=-1):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback=None):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _measurement_loop(self, number, stop_hook, min_run_time, max_run_time=None, callback=None):
        total, can_stop, times = 0.0, False, []
        with common.set_torch_threads(self._task_spec.num_threads):
            while total < min_run_time or not can_stop:
                spent = self._timeit(number)
                times.append(spent)
                total += spent
                if callback:
                    callback(number, spent)
                can_stop = stop_hook(times)
                if max_run_time and total > max_run_time:
                    break
        return times

    def _estimate_block_size(self, min_run_time):
        """Runs per block: grown tenfold until the timer's own overhead is under 0.01% of a block (and a block
        takes a thousandth of ``min_run_time``), or a block takes longer than ``min_run_time``."""
        with common.set_torch_threads(self._task_spec.num_threads):
            overheads = sorted(self._timeit(0) for _ in range(5))
            overhead = overheads[2]
            number = 1
            while True:
                taken = self._timeit(number)
                if overhead / taken <= 1e-4 and taken >= min_run_time / 1000:
                    break
                if taken > min_run_time or number * 10 > 2147483647:
                    break
                number *= 10
        return number

    def blocked_autorange(self, callback=None, min_run_time=0.2):
        number = self._estimate_block_size(min_run_time)
        times = self._measurement_loop(number, lambda times: True, min_run_time, callback=callback)
        return common.Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)

    def adaptive_autorange(self, threshold=0.1, *, min_run_time=0.01, max_run_time=10.0, callback=None):
        number = self._estimate_block_size(min_run_time=0.05)

        def stop_hook(times):
            return len(times) > 3 and common.Measurement(number_per_run=number, raw_times=times,
                                                         task_spec=self._task_spec).meets_confidence(threshold)
        times = self._measurement_loop(number, stop_hook, min_run_time, max_run_time, callback=callback)
        return common.Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)

    def collect_callgrind(self, number=100, *, repeats=None, collect_baseline=True, retain_out_file=False):
        raise NotImplementedError("torch.utils.benchmark.Timer.collect_callgrind is not supported by mstorch: it "
                                  "counts instructions with valgrind's Callgrind in a subprocess of torch's C++ build")


def _clean(code):
    code = textwrap.dedent(code)
    return (code[1:] if code and code[0] == "\n" else code).rstrip()
