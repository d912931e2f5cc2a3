"""torch.utils.benchmark.utils.common: TaskSpec, Measurement and the formatting helpers. The statistics are
torch's: medians and quartiles by ``quantile`` on float64, the significant-figure estimate over the
interquartile points."""
import collections
import contextlib
import dataclasses
import textwrap

from ...._dtype import float64
from ...._functions import tensor
from ...._runtime import get_num_threads, set_num_threads

__all__ = ["TaskSpec", "Measurement", "select_unit", "unit_to_english", "trim_sigfig", "ordered_unique",
           "set_torch_threads"]

_MAX_SIGNIFICANT_FIGURES = 4
_MIN_CONFIDENCE_INTERVAL = 25e-9
_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25


@dataclasses.dataclass(init=True, repr=False, eq=True, frozen=True)
class TaskSpec:
    """What a Timer measures (everything but its globals)."""
    stmt: str
    setup: str
    global_setup: str = ""
    label: str = None
    sub_label: str = None
    description: str = None
    env: str = None
    num_threads: int = 1

    @property
    def title(self):
        suffix = f": {self.sub_label}" if self.sub_label else ""
        if self.label is not None:
            return self.label + suffix
        if "\n" not in self.stmt:
            return self.stmt + suffix
        return f"stmt:{f' ({self.sub_label})' if self.sub_label else ''}\n{textwrap.indent(self.stmt, '  ')}"

    def setup_str(self):
        if self.setup == "pass" or not self.setup:
            return ""
        if "\n" in self.setup:
            return f"setup:\n{textwrap.indent(self.setup, '  ')}"
        return f"setup: {self.setup}"

    def summarize(self):
        sections = [self.title, self.description or "", self.setup_str()]
        return "\n".join(f"{s}\n" if "\n" in s else s for s in sections if s)


_TASKSPEC_FIELDS = tuple(f.name for f in dataclasses.fields(TaskSpec))


@dataclasses.dataclass(init=True, repr=False)
class Measurement:
    """One or more timings of a statement (``raw_times`` of ``number_per_run`` runs each)."""
    number_per_run: int
    raw_times: list
    task_spec: TaskSpec
    metadata: dict = None

    def __post_init__(self):
        self._sorted_times = ()
        self._warnings = ()
        self._median = self._mean = self._p25 = self._p75 = -1.0

    def __getattr__(self, name):
        if name in _TASKSPEC_FIELDS:
            return getattr(self.task_spec, name)
        return super().__getattribute__(name)

    @property
    def times(self):
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def median(self):
        self._lazy_init()
        return self._median

    @property
    def mean(self):
        self._lazy_init()
        return self._mean

    @property
    def iqr(self):
        self._lazy_init()
        return self._p75 - self._p25

    @property
    def significant_figures(self):
        """Digits the interquartile spread supports (a 90% interval with z = 1.645), between 1 and 4."""
        self._lazy_init()
        n = len(self._sorted_times)
        middle = self._sorted_times[n // 4:int(tensor(3 * n / 4).ceil())]
        std = tensor(middle).std(unbiased=False).item()
        sqrt_n = tensor(len(middle)).sqrt().item()
        interval = max(1.645 * std / sqrt_n, _MIN_CONFIDENCE_INTERVAL)
        digits = int(tensor(tensor(self._median / interval).log10().item()).floor())
        return min(max(digits, 1), _MAX_SIGNIFICANT_FIGURES)

    @property
    def has_warnings(self):
        self._lazy_init()
        return bool(self._warnings)

    def _lazy_init(self):
        if not self.raw_times or self._sorted_times:
            return
        self._sorted_times = tuple(sorted(self.times))
        ordered = tensor(self._sorted_times, dtype=float64)
        self._median = ordered.quantile(0.5).item()
        self._mean = ordered.mean().item()
        self._p25 = ordered.quantile(0.25).item()
        self._p75 = ordered.quantile(0.75).item()

        def warn(msg):
            spread = self.iqr / self.median * 100
            self._warnings += (f"  WARNING: Interquartile range is {spread:.1f}% of the median measurement.\n"
                               f"           {msg}",)
        if not self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD):
            warn("This suggests significant environmental influence.")
        elif not self.meets_confidence(_IQR_WARN_THRESHOLD):
            warn("This could indicate system fluctuation.")

    def meets_confidence(self, threshold=_IQR_WARN_THRESHOLD):
        return self.iqr / self.median < threshold

    @property
    def title(self):
        return self.task_spec.title

    @property
    def env(self):
        # torch's property reads ``self.taskspec`` (no such attribute), so Python falls back to the TaskSpec's
        # field: the env as given, None included
        return self.task_spec.env

    @property
    def as_row_name(self):
        return self.sub_label or self.stmt or "[Unknown]"

    def __repr__(self):
        self._lazy_init()
        n = len(self._sorted_times)
        unit, scale = select_unit(self._median)
        lines = [object.__repr__(self), self.task_spec.summarize(),
                 f"  {'Median: ' if n > 1 else ''}{self._median / scale:.2f} {unit}"]
        if n >= 4:
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} ({self._p25 / scale:.2f} to {self._p75 / scale:.2f})")
        lines.append(f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs "
                     f"{'per measurement,' if n > 1 else ','} {self.num_threads} thread"
                     f"{'s' if self.num_threads > 1 else ''}")
        lines.append("\n".join(self._warnings))
        return "\n".join(lines).strip()

    @staticmethod
    def merge(measurements):
        """Replicates of one TaskSpec merged into one Measurement of single runs (metadata dropped)."""
        groups = collections.defaultdict(list)
        for m in measurements:
            groups[m.task_spec].append(m)
        return [Measurement(number_per_run=1, raw_times=[t for m in group for t in m.times], task_spec=spec,
                            metadata=None) for spec, group in groups.items()]


def select_unit(t):
    """(unit, scale) that puts ``t`` seconds in [1, 1000)."""
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(int(tensor(t).log10().item() // 3), "s")
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[unit]


def unit_to_english(u):
    return {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}[u]


def trim_sigfig(x, n):
    """``x`` rounded to ``n`` significant figures."""
    if n != int(n):
        raise AssertionError("Number of significant figures must be an integer")
    magnitude = int(tensor(x).abs().log10().ceil().item())
    scale = 10 ** (magnitude - n)
    return float(tensor(x / scale).round() * scale)


def ordered_unique(elements):
    return list(dict.fromkeys(elements))


@contextlib.contextmanager
def set_torch_threads(n):
    prior = get_num_threads()
    if n == prior:          # (MindSpore logs a deprecation warning at each thread-count change: make none)
        yield
        return
    try:
        set_num_threads(n)
        yield
    finally:
        set_num_threads(prior)
