"""The scanner resolves import aliases and reports statuses that agree with the op table."""
import os
import subprocess
import sys
import textwrap

import mstorch
from mstorch import _scan
from mstorch.ops._registry import OPS

SOURCE = textwrap.dedent("""
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    from torch.nn import functional as G
    from torch import nn as tnn
    from torch.utils.data import DataLoader

    x = torch.zeros(3)
    y = F.linear(x, x)
    z = G.linear(x, x)
    m = nn.Linear(2, 3)
    k = tnn.Linear(2, 3)
    e = torch.empty(2)
    q = torch.definitely_not_an_api(1)
""")


def test_aliases_resolve_to_torch_names(tmp_path):
    f = tmp_path / "train.py"
    f.write_text(SOURCE)
    found = _scan.scan_paths([str(tmp_path)])
    assert [ln for _, ln in found["torch.nn.functional.linear"]] == [10, 11]
    assert len(found["torch.nn.Linear"]) == 2
    assert "torch.zeros" in found and "torch.utils.data.DataLoader" in found


def test_statuses_come_from_the_table(tmp_path):
    f = tmp_path / "train.py"
    f.write_text(SOURCE)
    rows = {name: (st, detail) for name, st, detail, _ in _scan.report(_scan.scan_paths([str(f)]))}
    assert rows["torch.zeros"][0] == _scan.SUPPORTED
    assert rows["torch.nn.functional.linear"][0] == _scan.SUPPORTED
    assert rows["torch.definitely_not_an_api"][0] == _scan.MISSING
    # an op whose table entry carries a difference note is reported with that note
    assert rows["torch.empty"] == (_scan.DIFFERENT, OPS["empty"].note)


def test_every_table_function_is_reported_supported():
    for name, op in OPS.items():
        if op.function:
            st, detail = _scan.status(f"torch.{name}")
            assert st == (_scan.DIFFERENT if op.note else _scan.SUPPORTED), (name, st, detail)


def test_cli_formats(tmp_path):
    f = tmp_path / "train.py"
    f.write_text(SOURCE)
    for fmt, marker in (("text", "APIs:"), ("markdown", "| torch API |"), ("html", "<table")):
        out = subprocess.run([sys.executable, "-m", "mstorch", "scan", str(f), "--format", fmt],
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        assert marker in out.stdout
    assert mstorch is not None


def test_scan_of_the_repos_examples_finds_everything_supported():
    import pathlib
    root = pathlib.Path(__file__).resolve().parent.parent
    rows = _scan.report(_scan.scan_paths([str(root / "examples" / "train_digits.py"), str(root / "compat_tests" / "scripts")]))
    names = {r[0] for r in rows}
    assert {"torch.nn.Conv2d", "torch.nn.functional.cross_entropy", "torch.optim.SGD", "torch.save"} <= names
    assert [r for r in rows if r[1] == _scan.MISSING] == []
    for name, st, detail, _ in rows:
        assert (st, detail) == _scan.status(name)


def test_marked_functions_report_their_difference():
    # functions that exist only to raise torch-style errors are missing; eager stand-ins differ
    assert _scan.status("torch.jit.save")[0] == _scan.MISSING
    assert _scan.status("torch.jit.load")[0] == _scan.MISSING
    assert _scan.status("torch.jit.script")[0] == _scan.DIFFERENT
    assert _scan.status("torch.compile")[0] == _scan.DIFFERENT
    assert _scan.status("torch.linalg.norm")[0] == _scan.SUPPORTED


def test_every_unsupported_entry_is_a_torch_api_that_mstorch_refuses_by_name():
    """The one table of names mstorch lacks: each is real in torch; mstorch's attribute access or call
    raises naming it and the table's reason; the scanner reports it as missing with that reason."""
    import importlib
    import inspect

    import pkgutil

    import mstorch
    from mstorch.ops._registry import UNSUPPORTED
    # every module registers its refusals on import: import them all, so the table is complete whatever
    # this process imported before (a module needing an optional package, e.g. tensorboard, may fail)
    for info in pkgutil.walk_packages(mstorch.__path__, "mstorch."):
        if not info.name.endswith(("__main__", ".run", "._fastrng")):
            try:
                importlib.import_module(info.name)
            except ImportError:
                pass
    assert UNSUPPORTED
    for name, reason in UNSUPPORTED.items():
        module, _, leaf = ("torch." + name).rpartition(".")
        assert hasattr(importlib.import_module(module), leaf), f"torch.{name} does not exist in torch"
        ours = importlib.import_module(module.replace("torch", "mstorch", 1))
        try:
            fn = getattr(ours, leaf)
            params = [p for p in inspect.signature(fn).parameters.values() if p.default is p.empty]
            positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
            fn(*([None] * len(positional)), **{p.name: None for p in params if p.kind is p.KEYWORD_ONLY})
        except (AttributeError, RuntimeError, NotImplementedError) as exc:
            assert f"torch.{name}" in str(exc), (name, str(exc))
        else:
            raise AssertionError(f"mstorch provides torch.{name} though it is listed as unsupported")
        assert _scan.status("torch." + name) == (_scan.MISSING, reason)


def test_uses_are_marked_as_run_at_import_or_not(tmp_path):
    f = tmp_path / "lib.py"
    f.write_text(textwrap.dedent("""
        import torch
        from typing import TYPE_CHECKING
        if TYPE_CHECKING:
            from torch import Tensor
        x = torch.zeros(1)

        @torch.no_grad()
        def f(a=torch.ones(1), b: torch.dtype = None) -> torch.Size:
            return torch.exp(a)

        class C(torch.nn.Module):
            k = torch.float32
            def g(self):
                return torch.tanh
        h = lambda t=torch.pi: torch.sin(t)
    """))
    marks = {name: [at_import for _, _, at_import in locs] for name, locs in _scan.scan_uses([str(f)]).items()}
    assert marks == {"torch": [True], "torch.Tensor": [False], "torch.zeros": [True], "torch.no_grad": [True],
                     "torch.ones": [True], "torch.dtype": [True], "torch.Size": [True], "torch.exp": [False],
                     "torch.nn.Module": [True], "torch.float32": [True], "torch.tanh": [False], "torch.pi": [True],
                     "torch.sin": [False]}
    # postponed annotations run only when something reads them (typing.get_type_hints)
    f.write_text("from __future__ import annotations\nimport torch\ndef f(a: torch.dtype): pass\n")
    assert [m for _, _, m in _scan.scan_uses([str(f)])["torch.dtype"]] == [False]


def test_names_whose_value_is_none_exist():
    # torch.version.hip is None on a CPU build; the name exists (the scanner once reported it missing)
    assert _scan.status("torch.version.hip") == (_scan.SUPPORTED, "")
    assert _scan.status("torch.version.no_such_field")[0] == _scan.MISSING


def test_ecosystem_doc_is_current():
    """docs/ecosystem.md (the six libraries' torch APIs and mstorch's support) matches the code and the installed
    releases. It renders from docs/ecosystem-uses.json, the scan of those releases (a minute of CPU, so not rerun
    here): a changed release fails with the command that rescans."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run([sys.executable, os.path.join(root, "tools", "ecosystem_report.py"), "--check"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
