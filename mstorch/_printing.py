"""torch's repr/str format for tensors (precision 4, shared column width, summarisation)."""
import numpy as np

from . import _dtype as D
from . import _ms_private as P

_opts = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None,
                     sci_mode=None):
    if profile == "default":
        _opts.update(precision=4, threshold=1000, edgeitems=3, linewidth=80)
    elif profile == "short":
        _opts.update(precision=2, threshold=1000, edgeitems=2, linewidth=80)
    elif profile == "full":
        _opts.update(precision=4, threshold=float("inf"), edgeitems=3, linewidth=80)
    for k, v in (("precision", precision), ("threshold", threshold), ("edgeitems", edgeitems),
                 ("linewidth", linewidth)):
        if v is not None:
            _opts[k] = v
    _opts["sci_mode"] = sci_mode


def get_printoptions():
    return dict(_opts)


def _fmt_values(arr, dtype):
    flat = arr.reshape(-1)
    if dtype is D.bool_:
        return lambda v: "True" if v else "False", 5
    if not (dtype.is_floating_point or dtype.is_complex):
        strs = [str(int(v)) for v in flat] or ["0"]
        width = max(len(s) for s in strs)
        return (lambda v: str(int(v))), width
    if dtype.is_complex:
        return (lambda v: repr(complex(v))), 10
    prec = _opts["precision"]
    finite = flat[np.isfinite(flat)].astype(np.float64)
    int_mode = True
    sci = False
    if finite.size:
        int_mode = bool(np.all(finite == np.ceil(finite)))
        nz = np.abs(finite[finite != 0])
        if nz.size:
            mx, mn = nz.max(), nz.min()
            if int_mode:
                sci = mx / mn > 1000.0 or mx > 1e8
            else:
                sci = mx / mn > 1000.0 or mx > 1e8 or mn < 1e-4
    if _opts["sci_mode"] is not None:
        sci = _opts["sci_mode"]
    if sci:
        fmt = lambda v: _special(v) or f"{v:.{prec}e}"
    elif int_mode:
        fmt = lambda v: _special(v) or f"{v:.0f}."
    else:
        fmt = lambda v: _special(v) or f"{v:.{prec}f}"
    strs = [fmt(float(v)) for v in flat] or ["0."]
    return fmt, max(len(s) for s in strs)


def _special(v):
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return None


def _summarize(arr, edge):
    if arr.ndim == 0:
        return arr
    if arr.shape[0] > 2 * edge:
        arr = np.concatenate([arr[:edge], arr[-edge:]], axis=0)
    return np.stack([_summarize(a, edge) for a in arr]) if arr.ndim > 1 else arr


def _format(arr, fmt, width, indent, summarize, edge):
    if arr.ndim == 0:
        return fmt(arr.item()).rjust(width)
    if arr.ndim == 1:
        items = [fmt(v.item()).rjust(width) for v in arr]
        if summarize and len(items) > 2 * edge:
            items = items[:edge] + ["..."] + items[-edge:]
        per_line = max(1, (_opts["linewidth"] - indent) // (width + 2))
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    rows = list(range(arr.shape[0]))
    parts = []
    sep = "," + "\n" * (arr.ndim - 1) + " " * (indent + 1)
    if summarize and arr.shape[0] > 2 * edge:
        head = [_format(arr[i], fmt, width, indent + 1, summarize, edge) for i in rows[:edge]]
        tail = [_format(arr[i], fmt, width, indent + 1, summarize, edge) for i in rows[-edge:]]
        parts = head + ["..."] + tail
    else:
        parts = [_format(arr[i], fmt, width, indent + 1, summarize, edge) for i in rows]
    return "[" + sep.join(parts) + "]"


def tensor_repr(t):
    dtype = t.dtype
    arr = t._ms.astype(D.float32._ms).asnumpy() if dtype is D.bfloat16 else t._ms.asnumpy()
    prefix = "tensor("
    indent = len(prefix)
    suffixes = []
    summarize = arr.size > _opts["threshold"]
    edge = _opts["edgeitems"]
    if arr.size == 0:
        body = "[]"
        if arr.ndim != 1:
            suffixes.append(f"size={tuple(arr.shape)}")
    else:
        fmt, width = _fmt_values(_summarize(arr, edge) if summarize else arr, dtype)
        body = _format(arr, fmt, width, indent, summarize, edge)
    default_dtypes = (D.get_default_dtype(), D.int64, D.bool_)
    if dtype is D.complex64 and D.get_default_dtype() is D.float32:
        default_dtypes += (D.complex64,)
    if dtype not in default_dtypes or arr.size == 0 and dtype is not D.get_default_dtype():
        if not (arr.size == 0 and dtype is D.get_default_dtype()):
            suffixes.append(f"dtype={dtype}")
    from .autograd.graph import node_for
    node = node_for(t._ms)
    if node is not None:
        suffixes.append(f"grad_fn=<{node.name()}>")
    elif P.requires_grad(t._ms):
        suffixes.append("requires_grad=True")
    if suffixes:
        body += ", " + ", ".join(suffixes)
    return prefix + body + ")"
