"""Generate docs/api-coverage.md: torch 2.13's public names, namespace by namespace, and what mstorch
does with each — provided, refused by name with a reason (``ops/_registry.UNSUPPORTED``), or absent
with the reason listed in ``compat_tests/api_absent.txt``.

Every absent name needs its line there: the tool (and so ``compat_tests/test_docs.py``) fails when a torch
name is absent without one, and when a line there matches no absent name (stale once the name is provided).

torch's public names of a namespace are its ``__all__``, else its ``dir()`` without underscore names;
``Tensor`` is ``dir(torch.Tensor)``. Needs torch (a development tool, like the tests).

Run: .venv/bin/python tools/api_coverage.py [--check]
With --check, exit 1 when docs/api-coverage.md is stale (the test suite runs this).
"""
import fnmatch
import importlib
import pathlib
import sys
import warnings

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# the namespaces scripts and libraries use (API_SCOPE.md tiers, the ecosystem issue's list)
NAMESPACES = (
    "", "Tensor", "nn", "nn.functional", "nn.init", "nn.utils", "nn.utils.rnn", "nn.utils.parametrize",
    "nn.utils.prune", "nn.attention", "nn.parallel", "optim", "optim.lr_scheduler", "optim.swa_utils",
    "autograd", "autograd.functional", "autograd.graph", "autograd.forward_ad", "linalg", "special", "fft",
    "sparse", "random", "serialization", "amp", "cuda", "cpu", "accelerator", "backends", "distributions",
    "distributed", "multiprocessing", "utils.data", "utils.checkpoint", "utils.hooks", "utils.model_zoo",
    "utils.benchmark", "utils._pytree", "utils.tensorboard", "testing", "jit", "hub", "onnx", "func",
    "profiler", "masked", "nested", "overrides", "types", "storage", "futures", "fx", "library", "export",
    "compiler",
)
SUMMARY = "Namespace summary"
ABSENT_FILE = ROOT / "compat_tests" / "api_absent.txt"


def absent_reasons(path=ABSENT_FILE):
    """[(pattern, reason)] from api_absent.txt: "<qualified name or glob> | <reason>" per line."""
    entries = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        pattern, sep, reason = (part.strip() for part in line.partition("|"))
        if not sep or not reason:
            raise ValueError(f"{path.name}:{n}: expected '<name> | <reason>', got {line!r}")
        entries.append((pattern, reason))
    return entries


def _qualified(ns, name):
    return "torch." + (ns + "." if ns else "") + name


def attach_reasons(table, entries):
    """Give each absent name the reason of the first entry matching it; return (unlisted, stale)."""
    used = set()
    unlisted = []
    for ns, rows in table.items():
        for name, (st, _) in rows.items():
            if st != "absent":
                continue
            qual = _qualified(ns, name)
            match = next((e for e in entries if fnmatch.fnmatchcase(qual, e[0])), None)
            if match is None:
                unlisted.append(qual)
            else:
                used.add(match[0])
                rows[name] = ("absent", match[1])
    stale = [pattern for pattern, _ in entries if pattern not in used]
    return unlisted, stale


def _imported(mod, name):
    """A name a torch module's ``dir()`` shows only because the module imported it for its own use: another
    module that is not its submodule (``math``, ``np``, ``torch``), or a standard-library / NumPy object
    (``typing.Callable``, ``abc.ABC``, ``datetime.timedelta``). Not torch API."""
    obj = getattr(mod, name, None)
    if isinstance(obj, type(sys)):
        return obj.__name__ != f"{mod.__name__}.{name}"
    origin = getattr(obj, "__module__", None)
    return isinstance(origin, str) and origin.split(".")[0] in sys.stdlib_module_names | {"numpy"}


def _public(obj):
    names = getattr(obj, "__all__", None)
    if names is None or not isinstance(obj, type(sys)):
        names = [n for n in dir(obj) if not n.startswith("_")]
        if isinstance(obj, type(sys)):
            names = [n for n in names if not _imported(obj, n)]
    return sorted(set(names))


def _torch_names(ns):
    import torch
    if ns == "Tensor":
        return _public(torch.Tensor)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mod = importlib.import_module("torch" + ("." + ns if ns else ""))
            return _public(mod)
    except Exception:  # noqa: BLE001 - an optional torch namespace (tensorboard) without its package
        return None


def _ours(ns):
    import mstorch
    if ns == "Tensor":
        return mstorch.Tensor
    try:
        return importlib.import_module("mstorch" + ("." + ns if ns else ""))
    except ImportError:
        return None


def _state(ours, ns, name, unsupported):
    key = (ns + "." if ns and ns != "Tensor" else "Tensor." if ns == "Tensor" else "") + name
    if key in unsupported:
        return "refused", unsupported[key]
    if ours is not None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                getattr(ours, name)
            return "provided", ""
        except AttributeError:
            pass
        except Exception:  # noqa: BLE001 - a property that raises on the class is still provided
            return "provided", ""
    return "absent", ""


def collect():
    import mstorch  # noqa: F401  (registers every op family)
    from mstorch.ops._registry import UNSUPPORTED
    table = {}
    for ns in NAMESPACES:
        names = _torch_names(ns)
        if names is None:
            continue
        ours = _ours(ns)
        table[ns] = {n: _state(ours, ns, n, UNSUPPORTED) for n in names}
    return table


def render(table):
    total = {k: sum(1 for rows in table.values() for st, _ in rows.values() if st == k)
             for k in ("provided", "refused", "absent")}
    n = sum(total.values())
    lines = ["# API coverage: torch 2.13's public names in mstorch", "",
             "Generated by `tools/api_coverage.py` (torch's `__all__` per namespace, else its public `dir()`);",
             "do not edit by hand. *Provided* means the name exists in mstorch (ops are compared with torch by",
             "the test suite; see `coverage.md`); *refused* names raise an error naming themselves and the",
             "reason (`ops/_registry.UNSUPPORTED`); *absent* names are not there, each for the reason given in",
             "`compat_tests/api_absent.txt`.", "",
             f"**{total['provided']} of {n} names provided ({100 * total['provided'] / n:.0f}%), "
             f"{total['refused']} refused by name, {total['absent']} absent.**", "",
             f"## {SUMMARY}", "", "| namespace | provided | refused | absent | total |", "|---|---|---|---|---|"]
    for ns, rows in table.items():
        c = {k: sum(1 for st, _ in rows.values() if st == k) for k in ("provided", "refused", "absent")}
        label = "torch" if not ns else ("torch.Tensor" if ns == "Tensor" else f"torch.{ns}")
        lines.append(f"| `{label}` | {c['provided']} | {c['refused']} | {c['absent']} | {len(rows)} |")
    lines.append("")
    for ns, rows in table.items():
        label = "torch" if not ns else ("torch.Tensor" if ns == "Tensor" else f"torch.{ns}")
        refused = sorted((name, why) for name, (st, why) in rows.items() if st == "refused")
        absent = {}
        for name, (st, why) in sorted(rows.items()):
            if st == "absent":
                absent.setdefault(why, []).append(name)
        if not (refused or absent):
            continue
        lines += [f"## `{label}`", ""]
        if refused:
            lines += ["Refused: " + "; ".join(f"`{name}` ({why})" for name, why in refused), ""]
        for why, names in absent.items():
            lines += [f"Absent ({why}): " + ", ".join(f"`{name}`" for name in names), ""]
    return "\n".join(lines)


def main():
    from gen_coverage import write_or_check
    table = collect()
    unlisted, stale = attach_reasons(table, absent_reasons())
    status = write_or_check("api-coverage.md", render(table), "api_coverage.py")
    for qual in unlisted:
        print(f"{qual}: absent from mstorch without a reason in compat_tests/api_absent.txt")
    for pattern in stale:
        print(f"compat_tests/api_absent.txt: '{pattern}' matches no absent name (stale: remove the line)")
    return 1 if unlisted or stale else status


if __name__ == "__main__":
    sys.exit(main())
