"""``python -m mstorch scan PATH``: which torch APIs a file or project uses, and mstorch's support for each.

AST-based, through import aliases (``import torch.nn as nn``, ``from torch.nn import functional as F``,
``from torch.optim import Adam``). Each use is marked as run at import time or not: module-level code,
class bodies, decorators, default values and (without ``from __future__ import annotations``) annotations
run when the module is imported; function bodies and ``if TYPE_CHECKING:`` blocks do not. A name's status comes from the same sources as docs/coverage.md:
the op table (``mstorch.ops._registry.OPS``, with its per-op difference notes and refusals) and the
mstorch namespace itself, so the scan can never disagree with the coverage document.
"""
import argparse
import ast
import collections
import html
import os
import sys
import types

SUPPORTED, DIFFERENT, MISSING = "supported", "supported with differences", "missing"


class _Visitor(ast.NodeVisitor):
    def __init__(self, path):
        self.path = path
        self.aliases = {}          # local name -> dotted torch name
        self.uses = []             # (dotted name, line, run at import time)
        self.deferred = 0          # > 0 inside code that does not run at import (function bodies)
        self.lazy_annotations = False   # from __future__ import annotations

    def _use(self, name, line):
        self.uses.append((name, line, not self.deferred))

    def _deferred(self, nodes):
        self.deferred += 1
        for n in nodes:
            self.visit(n)
        self.deferred -= 1

    def _visit_function(self, node):
        for n in getattr(node, "decorator_list", ()):
            self.visit(n)
        args = node.args
        for n in args.defaults + [d for d in args.kw_defaults if d is not None]:
            self.visit(n)
        if not isinstance(node, ast.Lambda):
            params = args.posonlyargs + args.args + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a]
            self._annotations([a.annotation for a in params if a.annotation] + ([node.returns] if node.returns else []))
        self._deferred(node.body if isinstance(node.body, list) else [node.body])

    def _annotations(self, nodes):
        # postponed annotations are still read later (typing.get_type_hints, dataclass argument parsers)
        if self.lazy_annotations:
            self._deferred(nodes)
        else:
            for n in nodes:
                self.visit(n)

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _visit_function

    def visit_AnnAssign(self, node):
        self._annotations([node.annotation])
        self.visit(node.target)
        if node.value is not None:
            self.visit(node.value)

    def visit_If(self, node):
        test = node.test
        if (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
                isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"):
            self._deferred(node.body)       # only type checkers read it
            for n in node.orelse:
                self.visit(n)
            return
        self.generic_visit(node)

    def visit_Import(self, node):
        for a in node.names:
            if a.name == "torch" or a.name.startswith("torch."):
                if a.asname:
                    self.aliases[a.asname] = a.name
                else:
                    self.aliases["torch"] = "torch"
                self._use(a.name, node.lineno)

    def visit_ImportFrom(self, node):
        mod = node.module or ""
        if mod == "__future__" and any(a.name == "annotations" for a in node.names):
            self.lazy_annotations = True
        if node.level == 0 and (mod == "torch" or mod.startswith("torch.")):
            for a in node.names:
                if a.name == "*":
                    continue
                full = f"{mod}.{a.name}"
                self.aliases[a.asname or a.name] = full
                self._use(full, node.lineno)

    def visit_Attribute(self, node):
        chain = []
        cur = node
        while isinstance(cur, ast.Attribute):
            chain.append(cur.attr)
            cur = cur.value
        if isinstance(cur, ast.Name) and cur.id in self.aliases:
            full = ".".join([self.aliases[cur.id]] + chain[::-1])
            self._use(full, node.lineno)
            return          # the whole chain is recorded; do not record its prefixes again
        self.generic_visit(node)

    def visit_Name(self, node):
        if node.id in self.aliases and isinstance(node.ctx, ast.Load):
            self._use(self.aliases[node.id], node.lineno)


def _files(path):
    if os.path.isfile(path):
        yield path
        return
    for root, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in ("__pycache__", "node_modules", ".venv"))
        for f in sorted(files):
            if f.endswith(".py"):
                yield os.path.join(root, f)


def scan_paths(paths):
    """Returns {dotted torch name: [(file, line), ...]}."""
    return {name: [(f, line) for f, line, _ in locs] for name, locs in scan_uses(paths).items()}


def scan_uses(paths):
    """Returns {dotted torch name: [(file, line, run at import time), ...]}."""
    found = collections.defaultdict(list)
    for base in paths:
        for f in _files(base):
            try:
                tree = ast.parse(open(f, encoding="utf-8").read(), filename=f)
            except (SyntaxError, UnicodeDecodeError):
                continue
            v = _Visitor(f)
            v.visit(tree)
            for name, line, at_import in v.uses:
                found[name].append((f, line, at_import))
    return found


def status(name):
    """(status, detail) of one dotted torch name, from the op table and the mstorch namespace."""
    import mstorch  # noqa: F401  (registers every op family)
    from mstorch.ops._registry import OPS, UNSUPPORTED
    parts = name.split(".")
    leaf = parts[-1]
    reason = UNSUPPORTED.get(".".join(parts[1:]))
    if reason is not None:
        return MISSING, reason
    obj, failed = _resolve(parts)
    if failed is not None:
        return MISSING, f"mstorch has no {'.'.join(['torch'] + parts[1:failed + 1])}"
    difference = getattr(obj, "mstorch_difference", None)
    if isinstance(difference, str):
        return DIFFERENT, difference
    op = OPS.get(leaf)
    if op is not None and op.note and (len(parts) == 2 or parts[1:3] == ["nn", "functional"]):
        return DIFFERENT, op.note
    return SUPPORTED, ""


def _resolve(parts):
    """(the object mstorch has under the dotted torch name ``parts``, None), or (None, the index of the first part
    it lacks); submodules are imported as an import statement would."""
    import importlib
    obj = sys.modules["mstorch"]
    absent = object()   # an attribute whose value is None (torch.version.hip) exists
    for i, p in enumerate(parts[1:], 1):
        nxt = getattr(obj, p, absent)
        if nxt is absent and hasattr(obj, "__path__"):
            try:
                nxt = importlib.import_module(f"{obj.__name__}.{p}")
            except ImportError:
                nxt = absent
        if nxt is absent and not isinstance(obj, types.ModuleType):
            # ``from torch.multiprocessing.spawn import X``: the package attribute is a function, the import
            # statement reads the submodule of the same name
            try:
                nxt = getattr(importlib.import_module("mstorch." + ".".join(parts[1:i])), p, absent)
            except ImportError:
                pass
        if nxt is absent:
            return None, i
        obj = nxt
    return obj, None


def resolves(name):
    """Whether the dotted torch ``name`` resolves to an object in mstorch, whatever its status: a refused API that
    exists only to raise resolves."""
    import mstorch  # noqa: F401
    return _resolve(name.split("."))[1] is None


def report(found):
    rows = []
    for name in sorted(found):
        st, detail = status(name)
        rows.append((name, st, detail, found[name]))
    return rows


def _fmt_locs(locs, limit=3):
    shown = ", ".join(f"{f}:{ln}" for f, ln in locs[:limit])
    return shown + (f", +{len(locs) - limit} more" if len(locs) > limit else "")


def render_text(rows):
    counts = collections.Counter(r[1] for r in rows)
    width = max([len(r[0]) for r in rows] + [10])
    out = [f"{'torch API':<{width}}  {'uses':>4}  status"]
    for name, st, detail, locs in rows:
        out.append(f"{name:<{width}}  {len(locs):>4}  {st}" + (f": {detail}" if detail else ""))
        out.append(f"{'':<{width}}        at {_fmt_locs(locs)}")
    out.append("")
    out.append(f"{len(rows)} APIs: {counts[SUPPORTED]} supported, {counts[DIFFERENT]} supported with differences, "
               f"{counts[MISSING]} missing")
    return "\n".join(out)


def render_markdown(rows):
    counts = collections.Counter(r[1] for r in rows)
    out = ["# torch APIs used, and mstorch's support", "",
           f"{len(rows)} APIs: {counts[SUPPORTED]} supported, {counts[DIFFERENT]} supported with differences, "
           f"{counts[MISSING]} missing", "", "| torch API | uses | status | detail | where |", "|---|---|---|---|---|"]
    for name, st, detail, locs in rows:
        out.append(f"| `{name}` | {len(locs)} | {st} | {detail} | {_fmt_locs(locs)} |")
    return "\n".join(out) + "\n"


def render_html(rows):
    counts = collections.Counter(r[1] for r in rows)
    colour = {SUPPORTED: "#e6f4ea", DIFFERENT: "#fff4e5", MISSING: "#fdecea"}
    body = "".join(
        f"<tr style='background:{colour[st]}'><td><code>{html.escape(n)}</code></td><td>{len(locs)}</td>"
        f"<td>{st}</td><td>{html.escape(d)}</td><td>{html.escape(_fmt_locs(locs))}</td></tr>"
        for n, st, d, locs in rows)
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>mstorch scan</title></head><body>"
            f"<h1>torch APIs used, and mstorch's support</h1><p>{len(rows)} APIs: {counts[SUPPORTED]} supported, "
            f"{counts[DIFFERENT]} supported with differences, {counts[MISSING]} missing</p>"
            f"<table border='1' cellspacing='0' cellpadding='4'><tr><th>torch API</th><th>uses</th><th>status</th>"
            f"<th>detail</th><th>where</th></tr>{body}</table></body></html>\n")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m mstorch scan")
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--format", choices=("text", "markdown", "html"), default="text")
    parser.add_argument("--output")
    args = parser.parse_args(argv)
    rows = report(scan_paths(args.paths))
    text = {"text": render_text, "markdown": render_markdown, "html": render_html}[args.format](rows)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        print(text)
    return 1 if any(r[1] == MISSING for r in rows) and os.environ.get("MSTORCH_SCAN_STRICT") else 0
