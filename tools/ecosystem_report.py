"""Generate docs/ecosystem.md: for each library PyTorch users run (transformers, sentence-transformers, timm,
torchvision, accelerate, peft), the torch APIs its installed release uses (``python -m mstorch scan``), which
mstorch supports, which are missing and why, and how many missing names its modules reach at import time.

Two stages, because scanning is slow (transformers alone is ~3,000 files: a minute of CPU) and its result
depends only on the library releases and torch's:
- ``--scan``: parse the installed packages (``mstorch._scan.scan_uses``, which marks the uses that run at
  import: module level, class bodies, decorators, defaults, evaluated annotations), ask the real torch
  which names it has (a name torch lacks too is a vendor backend's or another release's, which the library
  guards), and keep the result in docs/ecosystem-uses.json, keyed by each package's version.
- render: the statuses come from mstorch now (``_scan.status``, as the scanner reports them) and the uses
  from that file, so the document follows every mstorch change without rescanning.

Run: .venv/bin/python tools/ecosystem_report.py [--scan] [--check]
Without --scan, the packages are rescanned only when an installed version differs from the file.
With --check, exit 1 when docs/ecosystem.md is stale or a package release changed (the test suite runs this;
it does not scan).
"""
import importlib
import importlib.metadata
import importlib.util
import json
import os
import pathlib
import sys
import types
import warnings

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from gen_coverage import write_or_check  # noqa: E402

PACKAGES = {  # import name: distribution name
    "transformers": "transformers", "sentence_transformers": "sentence-transformers", "timm": "timm",
    "torchvision": "torchvision", "accelerate": "accelerate", "peft": "peft"}
DATA = ROOT / "docs" / "ecosystem-uses.json"
NOT_IN_TORCH = ("not in torch 2.13 either (a vendor backend's module or another torch release's name; "
                "the library guards its use)")


def installed_versions():
    return {pkg: importlib.metadata.version(dist) for pkg, dist in PACKAGES.items()}


def _in_torch(name):
    """Whether the real torch has the dotted ``name`` (importing submodules as an import statement would)."""
    import torch
    obj, parts = torch, name.split(".")
    absent = object()

    def attr(o, n):
        try:
            return getattr(o, n, absent)
        except Exception:  # noqa: BLE001 - torch.classes raises for names no C++ class registered
            return absent

    for i, p in enumerate(parts[1:], 1):
        nxt = attr(obj, p)
        if nxt is absent and attr(obj, "__path__") is not absent:
            try:
                nxt = importlib.import_module(".".join(parts[:i + 1]))
            except Exception:  # noqa: BLE001 - any failure to import means torch has no such module here
                nxt = absent
        if nxt is absent and not isinstance(obj, types.ModuleType):
            # ``from torch.multiprocessing.spawn import X``: the import statement reads the submodule that a
            # package attribute of the same name (a function) hides
            try:
                nxt = attr(importlib.import_module(".".join(parts[:i])), p)
            except Exception:  # noqa: BLE001 - no such module
                nxt = absent
        if nxt is absent:
            return False
        obj = nxt
    return True


def scan(versions):
    """{pkg: {"version", "names": {name: [uses, uses at import, first use]}}} from the installed packages."""
    from mstorch import _scan
    data = {}
    for pkg, version in versions.items():
        root = os.path.dirname(importlib.util.find_spec(pkg).origin)
        base = os.path.dirname(root)
        names = {}
        for name, locs in sorted(_scan.scan_uses([root]).items()):
            first = next((loc for loc in locs if loc[2]), locs[0])   # an import-time use when there is one
            where = f"{os.path.relpath(first[0], base)}:{first[1]}"
            names[name] = [len(locs), sum(1 for loc in locs if loc[2]), where]
        data[pkg] = {"version": version, "names": names}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        absent = sorted({n for d in data.values() for n in d["names"] if not _in_torch(n)})
    return {"torch": "2.13", "not_in_torch": absent, "packages": data}


def _code(name):
    return f"`{name}`"


def render(data):
    from mstorch import _scan
    absent_from_torch = set(data["not_in_torch"])
    summary, sections = [], []
    for pkg, entry in data["packages"].items():
        rows = []
        for name, (uses, at_import, where) in entry["names"].items():
            st, detail = _scan.status(name)
            if st == _scan.MISSING and name in absent_from_torch:
                detail = NOT_IN_TORCH
            rows.append((name, uses, at_import, where, st, detail))
        # a refused name (in the table of unsupported APIs) that exists in mstorch imports and resolves: only
        # calling it raises, with its reason. Listed apart: its import-time uses (imports, annotations,
        # isinstance tables) work, the missing names proper are those an import-time use fails on
        refused = [r for r in rows if r[4] == _scan.MISSING and _scan.resolves(r[0])]
        missing = [r for r in rows if r[4] == _scan.MISSING and r not in refused]
        at_import = [r for r in missing if r[2]]
        at_import_real = [r for r in at_import if r[0] not in absent_from_torch]
        different = [r for r in rows if r[4] == _scan.DIFFERENT]
        supported = [r for r in rows if r[4] == _scan.SUPPORTED]
        title = f"{PACKAGES[pkg]} {entry['version']}"
        summary.append(f"| [{title}](#{title.replace(' ', '-').replace('.', '')}) | {len(rows)} | {len(supported)} | "
                       f"{len(different)} | {len(refused)} | {len(missing)} | {len(at_import_real)} | "
                       f"{len(at_import) - len(at_import_real)} |")
        out = [f"## {title}", "",
               f"{len(rows)} torch APIs used: {len(supported)} supported, {len(different)} supported with differences, "
               f"{len(refused)} present but refusing when called, {len(missing)} missing. Missing names used at "
               f"import time: **{len(at_import_real)}** that torch 2.13 has, {len(at_import) - len(at_import_real)} "
               "that it lacks too.", ""]
        for heading, group in (("Missing, used at import time", at_import),
                               ("Missing, used only when called", [r for r in missing if not r[2]]),
                               ("Present, refusing when called (the name imports; a call raises the reason)",
                                refused)):
            if group:
                out += [f"### {heading} ({len(group)})", "", "| torch API | uses | reason | first use |",
                        "|---|---|---|---|"]
                out += [f"| {_code(n)} | {u} | {d} | {w} |" for n, u, _, w, _, d in group]
                out.append("")
        if different:
            out += [f"### Supported with differences ({len(different)})", "", "| torch API | uses | difference |",
                    "|---|---|---|"]
            out += [f"| {_code(n)} | {u} | {d} |" for n, u, _, _, _, d in different]
            out.append("")
        out += [f"### Supported ({len(supported)})", "", ", ".join(f"{_code(n)} ({u})" for n, u, *_ in supported), ""]
        sections.append("\n".join(out))
    head = ["# The libraries PyTorch users run: torch APIs used, and mstorch's support", "",
            "Generated by `tools/ecosystem_report.py` from the installed releases (scanned with "
            "`python -m mstorch scan`; uses kept in `docs/ecosystem-uses.json`) and mstorch's namespace; do not edit "
            "by hand. *At import time* counts uses in code that runs when a module is imported (module level, "
            "class bodies, decorators, default values, evaluated annotations), in any module of the package. "
            "A missing name torch 2.13 lacks too belongs to a vendor backend or another torch release: the "
            "library guards it (`hasattr`, version checks), so it is listed apart. *Refusing* names exist (imports, "
            "annotations, `isinstance` and lookup tables work) and raise the reason given when called; "
            "`docs/known-differences.md` lists them. Speed of the libraries' workloads beside torch: "
            "`docs/performance.md` (`benchmarks/ecosystem.py`). That every module of timm, torchvision, accelerate, "
            "peft and sentence-transformers imports under `python -m mstorch run` (torch not installed) wherever it "
            "imports on torch is tested by `compat_tests/ecosystem/test_module_imports.py`.", "",
            "| package | APIs used | supported | with differences | refusing when called | missing | "
            "missing at import | missing at import, not in torch either |", "|---|---|---|---|---|---|---|---|"] + summary + [""]
    return "\n".join(head + sections)


def main():
    versions = installed_versions()
    data = json.loads(DATA.read_text()) if DATA.exists() else None
    stale = data is None or {p: d["version"] for p, d in data["packages"].items()} != versions
    if "--check" in sys.argv:
        if stale:
            print(f"docs/ecosystem-uses.json was scanned from other releases than the installed {versions}: "
                  "run tools/ecosystem_report.py --scan")
            return 1
    elif stale or "--scan" in sys.argv:
        data = scan(versions)
        DATA.write_text(json.dumps(data, indent=0, sort_keys=False) + "\n")
        print(f"wrote {DATA}")
    return write_or_check("ecosystem.md", render(data), "ecosystem_report.py")


if __name__ == "__main__":
    sys.exit(main())
