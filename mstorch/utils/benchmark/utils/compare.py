"""torch.utils.benchmark.Compare: Measurements merged by TaskSpec and laid out as torch's tables (one per
label; rows by thread count, env and sub_label or stmt; columns by description), with torch's optional
significant-figure trimming, colouring and variance warnings."""
import collections
import enum

from ...._functions import tensor
from . import common

__all__ = ["Colorize", "Compare"]

BEST = "\033[92m"
GOOD = "\033[34m"
BAD = "\033[2m\033[91m"
VERY_BAD = "\033[31m"
BOLD = "\033[1m"
TERMINATE = "\033[0m"


class Colorize(enum.Enum):
    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


class _Column:
    """One description's cells: a shared number format (integer digits of the largest, decimals the least
    precise measurement supports when trimming, else one)."""

    def __init__(self, grouped, scale, trim, highlight):
        self.grouped = grouped
        flat = [m for group in grouped for m in group]
        self.trim = trim
        self.highlight = highlight and any(m.has_warnings for m in flat if m)
        digits = [int(tensor(m.median / scale).log10().ceil()) if m else None for m in flat]
        whole = max(d for d in digits if d is not None)
        decimals = min(max(m.significant_figures - d, 0) for d, m in zip(digits, flat)
                       if m is not None and d is not None) if trim else 1
        width = whole + decimals + (1 if decimals else 0)
        self.template = f"{{:>{width}.{decimals}f}}{{:>{7 if self.highlight else 0}}}"

    def cell(self, value, sigfigs, spread):
        if value is None:
            return " " * len(self.cell(1, sigfigs, None))
        if self.trim:
            value = common.trim_sigfig(value, sigfigs)
        return self.template.format(value, f" (! {spread * 100:.0f}%)" if self.highlight and spread is not None else "")


def _colored(text, value, best):
    if value <= best * 1.01 or value <= best + 100e-9:
        return BEST + BOLD + text + TERMINATE * 2
    if value <= best * 1.1:
        return GOOD + BOLD + text + TERMINATE * 2
    if value >= best * 5:
        return VERY_BAD + BOLD + text + TERMINATE * 2
    if value >= best * 2:
        return BAD + text + TERMINATE * 2
    return text


class _Row:
    def __init__(self, results, group, show_env, env_width, scale, colorize, threads):
        self.results, self.group, self.show_env, self.env_width = results, group, show_env, env_width
        self.scale, self.colorize, self.threads, self.columns = scale, colorize, threads, ()

    def strings(self):
        first = next(r for r in self.results if r is not None)
        env = (f"({first.env})" if self.show_env else "").ljust(self.env_width + 4)
        out = ["  " + env + first.as_row_name]
        for m, column in zip(self.results, self.columns):
            out.append(column.cell(None, 1, None) if m is None else column.cell(
                m.median / self.scale, m.significant_figures, m.iqr / m.median if m.has_warnings else None))
        return out

    def separator(self, width):
        return [f"{self.threads} threads: ".ljust(width, "-")] if self.threads is not None else []

    def finish(self, strings, widths):
        if self.colorize == Colorize.ROWWISE:
            best = [min(r.median for r in self.results if r is not None)] * len(strings)
        elif self.colorize == Colorize.COLUMNWISE:
            best = []
            for column in self.columns:
                medians = [r.median for r in column.grouped[self.group] if r is not None]
                best.append(min(medians) if medians else None)
        else:
            best = [-1] * len(strings)
        cells = [strings[0].ljust(widths[0])]
        for text, width, m, b in zip(strings[1:], widths[1:], self.results, best):
            text = text.center(width)
            if self.colorize != Colorize.NONE and m is not None and b is not None:
                text = _colored(text, m.median, b)
            cells.append(text)
        return cells


class _Table:
    def __init__(self, results, colorize, trim, highlight):
        if len({r.label for r in results}) != 1:
            raise AssertionError("All results must share the same label")
        self.results, self.colorize, self.highlight = results, colorize, highlight
        self.label = results[0].label
        self.unit, self.scale = common.select_unit(min(r.median for r in results))
        row_key = lambda m: (m.num_threads, m.env, m.as_row_name)   # noqa: E731
        self.row_keys = common.ordered_unique(row_key(r) for r in results)
        self.row_keys.sort(key=lambda k: k[:2])            # (stable: statements keep their order)
        self.column_keys = common.ordered_unique(r.description for r in results)
        grid = [[None] * len(self.column_keys) for _ in self.row_keys]
        rows_at = {k: i for i, k in enumerate(self.row_keys)}
        cols_at = {k: j for j, k in enumerate(self.column_keys)}
        for r in results:
            grid[rows_at[row_key(r)]][cols_at[r.description]] = r
        envs = {r.env for r in results}
        show_env = len(envs) > 1
        env_width = max(len(e) for e in envs) if show_env else 0
        self.rows, groups = [], []
        prior_threads, prior_env, group = -1, "", -1
        for (threads, env, _), row in zip(self.row_keys, grid):
            new_group = threads != prior_threads
            if new_group:
                prior_threads, prior_env, group = threads, "", group + 1
                groups.append([])
            self.rows.append(_Row(row, group, show_env and env != prior_env, env_width, self.scale, colorize,
                                  threads if new_group else None))
            groups[-1].append(row)
            prior_env = env
        columns = tuple(_Column([tuple(row[j] for row in g) for g in groups], self.scale, trim, highlight)
                        for j in range(len(self.column_keys)))
        for row in self.rows:
            row.columns = columns

    def render(self):
        table = [[""] + self.column_keys] + [row.strings() for row in self.rows]
        n = max(len(r) for r in table)
        for r in table:
            r.extend([""] * (n - len(r)))
        widths = [max(len(cell) for cell in col) for col in zip(*table)]
        lines = ["  |  ".join(cell.center(w) for cell, w in zip(table[0], widths))]
        width = len(lines[0])
        for strings, row in zip(table[1:], self.rows):
            lines.extend(row.separator(width))
            lines.append("  |  ".join(row.finish(strings, widths)))
        warned = self.highlight and any(r.has_warnings for r in self.results)
        note = "(! XX%) Measurement has high variance, where XX is the IQR / median * 100.\n" if warned else ""
        title = (" " + (self.label or "") + " ").center(width - 2, "-")
        return (f"[{title}]\n" + "\n".join(lines) + "\n\n"
                f"Times are in {common.unit_to_english(self.unit)}s ({self.unit}).\n" + note)


class Compare:
    def __init__(self, results):
        self._results = []
        self.extend_results(results)
        self._trim_significant_figures = False
        self._colorize = Colorize.NONE
        self._highlight_warnings = False

    def __str__(self):
        return "\n".join(self._render())

    def extend_results(self, results):
        for r in results:
            if not isinstance(r, common.Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(r)} instead.")
        self._results.extend(results)

    def trim_significant_figures(self):
        self._trim_significant_figures = True

    def colorize(self, rowwise=False):
        self._colorize = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self):
        self._highlight_warnings = True

    def print(self):
        print(str(self))

    def _render(self):
        by_label = collections.defaultdict(list)
        for r in common.Measurement.merge(self._results):
            by_label[r.label].append(r)
        return [_Table(group, self._colorize, self._trim_significant_figures, self._highlight_warnings).render()
                for group in by_label.values()]


