"""torch's repr/str format for tensors (``torch/_tensor_str.py``'s rules, computed on a NumPy copy).

The rules that decide a tensor's look: one column width for the whole tensor, taken from the
non-zero finite values only; integer-valued floats print ``1.``; scientific notation when the
largest/smallest magnitude ratio exceeds 1000, the largest exceeds 1e8 or the smallest is below 1e-4;
tensors over ``threshold`` elements keep ``edgeitems`` per dimension around ``...``; 1-D rows wrap
at ``linewidth``; dtype/size/grad suffixes wrap too.
"""
import contextlib
import math

import numpy as np

from ._runtime import read_host
from . import _dtype as D

_DEFAULTS = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80}
_PROFILES = {
    "default": _DEFAULTS,
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}
_opts = dict(_DEFAULTS, sci_mode=None)


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None,
                     sci_mode=None):
    """torch.set_printoptions (sci_mode is reset to None unless given, as torch does)."""
    if profile is not None and profile in _PROFILES:
        _opts.update(_PROFILES[profile])
    for k, v in (("precision", precision), ("threshold", threshold), ("edgeitems", edgeitems),
                 ("linewidth", linewidth)):
        if v is not None:
            _opts[k] = v
    _opts["sci_mode"] = sci_mode


def get_printoptions():
    """torch._tensor_str.get_printoptions."""
    return dict(_opts)


@contextlib.contextmanager
def printoptions(**kwargs):
    """torch._tensor_str.printoptions: set options for the duration of a ``with`` block."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


class _Formatter:
    """Decides one column width and number style for a whole (summarised) real array."""

    __slots__ = ("floating", "int_mode", "sci_mode", "width", "prec")

    def __init__(self, arr, floating):
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.prec = _opts["precision"]
        flat = arr.reshape(-1)
        if not floating:
            self.width = max([1] + [len(str(v)) for v in flat.tolist()])
            return
        self.width = 1
        vals = flat[np.isfinite(flat) & (flat != 0)]
        if vals.size == 0:
            return
        self.int_mode = bool(np.all(vals == np.ceil(vals)))
        mags = np.abs(vals.astype(np.float64))
        mx, mn = float(mags.max()), float(mags.min())
        sci = _opts["sci_mode"]
        self.sci_mode = (mx / mn > 1000.0 or mx > 1.0e8 or mn < 1.0e-4) if sci is None else sci
        p = self.prec
        pylist = vals.tolist()
        if self.sci_mode:
            self.width = max(len(f"{v:.{p}e}") for v in pylist)
        elif self.int_mode:
            self.width = max(len(f"{v:.0f}") for v in pylist) + 1
        else:
            self.width = max(len(f"{v:.{p}f}") for v in pylist)

    def format(self, v):
        if not self.floating:
            s = str(v)
        elif self.sci_mode:
            s = f"{v:{self.width}.{self.prec}e}"
        elif self.int_mode:
            s = f"{v:.0f}" if math.isinf(v) or math.isnan(v) else f"{v:.0f}."
        else:
            s = f"{v:.{self.prec}f}"
        return s.rjust(self.width)


def _summarized(arr, edge):
    """The values that remain visible after summarisation (what the formatter measures)."""
    if arr.ndim == 0:
        return arr
    if arr.ndim == 1:
        # NumPy's arr[-0:] is the whole array, exactly like torch's slice, so edge=0 matches too
        return np.concatenate((arr[:edge], arr[-edge:])) if arr.shape[0] > 2 * edge else arr
    if not edge:
        return np.empty((0,) * arr.ndim, arr.dtype)
    rows = range(arr.shape[0])
    if arr.shape[0] > 2 * edge:
        rows = list(rows[:edge]) + list(rows[-edge:])
    return np.stack([_summarized(arr[i], edge) for i in rows])


class _Printer:
    __slots__ = ("f1", "f2", "summarize", "edge", "linewidth")

    def __init__(self, arr, summarize):
        self.summarize = summarize
        self.edge = _opts["edgeitems"]
        self.linewidth = _opts["linewidth"]
        shown = _summarized(arr, self.edge) if summarize else arr
        if np.iscomplexobj(arr):
            self.f1 = _Formatter(shown.real, True)
            self.f2 = _Formatter(shown.imag, True)
        else:
            self.f1 = _Formatter(shown, arr.dtype.kind == "f")
            self.f2 = None

    def value(self, v):
        if self.f2 is None:
            return self.f1.format(v)
        real = self.f1.format(v.real)
        imag = (self.f2.format(v.imag) + "j").lstrip()
        return real + imag if imag[0] in "+-" else real + "+" + imag

    def vector(self, arr, indent):
        item_len = self.f1.width + 2
        if self.f2 is not None:
            item_len += self.f2.width + 1
        per_line = max(1, (self.linewidth - indent) // item_len)
        edge, n = self.edge, arr.shape[0]
        if self.summarize and not edge:
            items = ["..."]
        elif self.summarize and n > 2 * edge:
            items = ([self.value(v) for v in arr[:edge].tolist()] + [" ..."]
                     + [self.value(v) for v in arr[-edge:].tolist()])
        else:
            items = [self.value(v) for v in arr.tolist()]
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"

    def block(self, arr, indent):
        if arr.ndim == 0:
            return self.value(arr.item())
        if arr.ndim == 1:
            return self.vector(arr, indent)
        n, edge = arr.shape[0], self.edge
        if self.summarize and n > 2 * edge:
            parts = ([self.block(arr[i], indent + 1) for i in range(edge)] + ["..."]
                     + [self.block(arr[i], indent + 1) for i in range(n - edge, n)])
        else:
            parts = [self.block(arr[i], indent + 1) for i in range(n)]
        return "[" + ("," + "\n" * (arr.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def _host_array(t):
    ms_t = t._ms
    if t.dtype is D.bfloat16:
        ms_t = ms_t.astype(D.float32._ms)  # exact: every bfloat16 value is a float32 value
    return read_host(ms_t)


def tensor_str(arr, indent):
    """The bracketed body of a tensor's repr (``torch._tensor_str._tensor_str``)."""
    if arr.size == 0:
        return "[]"
    summarize = arr.size > _opts["threshold"]
    return _Printer(arr, summarize).block(arr, indent)


def _add_suffixes(text, suffixes, indent):
    out = [text]
    # torch counts the last line this way (2 more than its length when there is no newline)
    last = len(text) - text.rfind("\n") + 1
    linewidth = _opts["linewidth"]
    for s in suffixes:
        if last + len(s) + 2 > linewidth:
            out.append(",\n" + " " * indent + s)
            last = indent + len(s)
        else:
            out.append(", " + s)
            last += len(s) + 2
    out.append(")")
    return "".join(out)


def _is_plain(cls):
    from ._tensor import Tensor
    return cls is Tensor or (cls.__name__ == "Parameter" and cls.__module__.startswith("mstorch"))


def tensor_repr(t, tensor_contents=None):
    """``repr(tensor)`` in torch's format."""
    cls = type(t)
    prefix = "tensor(" if _is_plain(cls) else f"{cls.__name__}("
    indent = len(prefix)
    suffixes = []
    dev = t.device
    if dev.type != "cpu":
        suffixes.append(f"device='{dev}'")
    dtype = t.dtype
    default = D.get_default_dtype()
    shape = tuple(t._ms.shape)
    numel = t._ms.size
    if numel == 0:
        if len(shape) != 1:
            suffixes.append(f"size={shape}")
        if dtype is not default:
            suffixes.append(f"dtype={dtype}")
        body = "[]"
    else:
        if not _opts["edgeitems"]:
            suffixes.append(f"size={shape}")
        if dtype not in (default, D.default_complex(), D.int64, D.bool_):
            suffixes.append(f"dtype={dtype}")
        body = None if tensor_contents is not None else tensor_str(_host_array(t), indent)
    if tensor_contents is not None:
        body = tensor_contents
    node = t.grad_fn
    if node is not None:
        suffixes.append(f"grad_fn=<{node.name()}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + body, suffixes, indent)


# --- Tensor members owned here (installed on Tensor by mstorch/_install.py) ---------------------------------


def _repr(self, *, tensor_contents=None):
    return tensor_repr(self, tensor_contents)


TENSOR_MEMBERS = {"__repr__": _repr}
