"""``MSTORCH_TRACE``: print every dispatched op, and optionally find the first op that diverges from torch.

| value | effect |
|---|---|
| unset / ``0`` | nothing (the generated wrappers carry no tracing code path at all) |
| ``1`` | each op prints ``[mstorch] add(Tensor[64, 64] float32, 2.0) -> Tensor[64, 64] float32`` to stderr |
| ``compare`` | also re-runs each op on real torch (when it is importable) with the same inputs and reports every op whose result differs, the first one marked; a debugging aid only: it imports torch |

Read once, when the op table is bound (``import mstorch``): set the variable before importing.
"""
import os
import sys

import numpy as np

_MODE = os.environ.get("MSTORCH_TRACE", "").strip().lower()
ENABLED = _MODE not in ("", "0", "false", "no", "off")
COMPARE = _MODE == "compare"
_state = {"diverged": False, "torch": None}


def _describe(v, Tensor):
    if isinstance(v, Tensor):
        return f"Tensor{list(v.shape)} {repr(v.dtype).replace('torch.', '')}"
    if isinstance(v, (list, tuple)) and any(isinstance(x, Tensor) for x in v):
        inner = ", ".join(_describe(x, Tensor) for x in v)
        return f"[{inner}]" if isinstance(v, list) else f"({inner})"
    return repr(v)


def _torch():
    if _state["torch"] is None:
        try:
            import torch   # only in MSTORCH_TRACE=compare: never on a normal import
        except ImportError:
            torch = False
        _state["torch"] = torch
    return _state["torch"]


def _to_torch(v, Tensor, torch):
    if isinstance(v, Tensor):
        from .._dtype import bfloat16
        a = (v.detach().float() if v.dtype is bfloat16 else v.detach()).numpy()
        t = torch.from_numpy(np.array(a))
        return t.to(torch.bfloat16) if v.dtype is bfloat16 else t
    if isinstance(v, (list, tuple)):
        return type(v)(_to_torch(x, Tensor, torch) for x in v)
    if type(v).__module__.startswith("mstorch"):   # dtypes, devices, layouts: torch's object of that name
        r = repr(v)
        return eval(r, {"torch": torch}) if r.startswith("torch.") else v   # noqa: S307 (names like torch.float32)
    return v


def _torch_function(torch, name):
    obj = torch
    for part in name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return getattr(torch.nn.functional, name, None)
    return obj


def _differs(ours, ref, Tensor, torch):
    if isinstance(ours, Tensor) and isinstance(ref, torch.Tensor):
        if tuple(ours.shape) != tuple(ref.shape) or repr(ours.dtype) != repr(ref.dtype):
            return f"shape/dtype {list(ours.shape)} {ours.dtype} vs torch {list(ref.shape)} {ref.dtype}"
        a = ours.detach().float().numpy() if ours.dtype.is_floating_point and ours.dtype.itemsize == 2 \
            else ours.detach().numpy()
        b = ref.detach().float().numpy() if ref.dtype in (torch.float16, torch.bfloat16) else ref.detach().numpy()
        if a.dtype.kind in "fc":
            if not np.allclose(a, b, rtol=1e-4, atol=1e-5, equal_nan=True):
                return f"max abs difference {np.nanmax(np.abs(a - b)) if a.size else 0}"
        elif not np.array_equal(a, b):
            return "values differ"
        return None
    if isinstance(ours, (list, tuple)) and isinstance(ref, (list, tuple)) and len(ours) == len(ref):
        for i, (o, r) in enumerate(zip(ours, ref)):
            d = _differs(o, r, Tensor, torch)
            if d:
                return f"[{i}] {d}"
    return None


def tracer(name):
    """A callable that reports one call of op ``name``: before(args, kwargs) -> after(result)."""
    from .._tensor import Tensor

    def report(args, kwargs, result):
        parts = [_describe(a, Tensor) for a in args] + [f"{k}={_describe(v, Tensor)}" for k, v in kwargs.items()]
        print(f"[mstorch] {name}({', '.join(parts)}) -> {_describe(result, Tensor)}", file=sys.stderr)
        if COMPARE:
            _compare(name, args, kwargs, result, Tensor)
    return report


def _compare(name, args, kwargs, result, Tensor):
    torch = _torch()
    if not torch:
        return
    fn = _torch_function(torch, name)
    if fn is None:
        return
    try:
        ref = fn(*_to_torch(args, Tensor, torch), **{k: _to_torch(v, Tensor, torch) for k, v in kwargs.items()})
    except Exception as exc:  # noqa: BLE001 - torch refusing is itself a finding
        print(f"[mstorch]   torch raised {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}",
              file=sys.stderr)
        return
    diff = _differs(result, ref, Tensor, torch)
    if diff:
        first = "" if _state["diverged"] else " (first divergence)"
        _state["diverged"] = True
        print(f"[mstorch]   DIVERGES from torch{first}: {diff}", file=sys.stderr)
