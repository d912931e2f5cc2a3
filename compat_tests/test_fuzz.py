"""The differential fuzzer (tools/fuzz.py) on fixed seeds: no undocumented silent-wrong class (value,
dtype, shape, gradient, leaked state) and no crash. Wrong-exception classes are reported, not failed.
Plus the fuzzer's own parts: the comparison sees differences, the known-differences table parses."""
import importlib.util
import pathlib

import numpy as np
import torch

import mstorch

_SPEC = importlib.util.spec_from_file_location(
    "fuzz", pathlib.Path(__file__).resolve().parents[1] / "tools" / "fuzz.py")
fuzz = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(fuzz)

# fixed seeds, 300 cases each (about 30 s of CPU); each seed stops after MINUTES of wall time on a
# loaded machine, so the test stays under ~3 minutes (cases are numbered: a shorter run is a prefix)
SEEDS = (1, 2)
CASES = 300
MINUTES = 1.25


def test_fixed_seeds_find_no_undocumented_silent_difference():
    results, crashes = [], []
    for seed in SEEDS:
        r, c = fuzz.fuzz(seed, cases=CASES, minutes=MINUTES, log=lambda *a: None)
        results += r
        crashes += c
    results += fuzz.crash_records(crashes, None)
    counts, classes = fuzz.summarize(results, fuzz.known_differences())
    report = fuzz.report(counts, classes, SEEDS)
    print(report)
    assert counts["cases"] >= 100, report
    silent = fuzz.silent_classes(classes)
    assert not silent, "undocumented silent differences (fix them or document them in " \
        "docs/known-differences.md's fuzzer table):\n" + report


def test_comparison_sees_each_kind():
    t = torch.tensor
    assert fuzz.compare(t([float("nan")]), t([0.0]), 1)[0] == "value"
    assert fuzz.compare(t([1.0, -1.0]) / -0.0, t([1.0, -1.0]) / 0.0, 1)[0] == "value"
    assert fuzz.compare(t([1.0]), t([1.0], dtype=torch.float64), 1)[0] == "dtype"
    assert fuzz.compare(t([1.0]), t([[1.0]]), 1)[0] == "shape"
    assert fuzz.compare(t([0.1], dtype=torch.float64), t([0.1], dtype=torch.float32).double(), 1)[0] == "value"
    assert fuzz.compare((t([1.0]), t([2.0])), (t([1.0]), t([3.0])), 1, "grads", True)[0] == "grad"
    assert fuzz.compare(fuzz.Raised(TypeError()), fuzz.Raised(RuntimeError()), 1)[0] == "exception-type"
    assert fuzz.compare(fuzz.Raised(RuntimeError()), t([1.0]), 1)[0] == "raises-vs-returns"
    assert fuzz.compare(t([1.0, float("nan")]), t([1.0 + 1e-6, float("nan")]), 1) is None


def test_cases_run_identically_on_both_sides():
    lines = ["out = T.relu(T.tensor([float('nan'), -1.0, 2.0]))"]
    assert fuzz.one_line(lines) == "T.relu(T.tensor([float('nan'), -1.0, 2.0]))"
    status, kind, _ = fuzz.run_case(["out = T.tensor([1.5, -2.0]).abs()"], torch, mstorch)
    assert (status, kind) == ("agree", None)
    status, kind, _ = fuzz.run_case(["out = T.zeros(2).reshape(3)"], torch, mstorch)
    assert (status, kind) == ("both-raise", None)


def test_state_leak_is_seen():
    # a case that switches grad mode off in mstorch only is a state difference
    lines = ["out = T.set_grad_enabled(False) if T.__name__ == 'mstorch' else None"]
    try:
        assert fuzz.run_case(lines, torch, mstorch)[1] == "state"
    finally:
        mstorch.set_grad_enabled(True)


def test_generated_tensors_round_trip():
    rng = np.random.default_rng(0)
    for dtype in fuzz.DTYPES:
        vals = fuzz.gen_values(rng, (2, 3), dtype, None, True)
        arg = fuzz.Arg(vals, dtype, "transposed", rng)
        src = arg.src() + arg.view
        a = fuzz.execute([f"out = {src}"], torch)
        assert str(a.dtype) == f"torch.{dtype}" and tuple(a.shape) == (2, 3) and not a.is_contiguous()


def test_known_differences_table_parses():
    rows = fuzz.known_differences()
    assert rows and all(r["op"] and r["kind"] for r in rows)
    kinds = set(fuzz.SILENT + fuzz.LOUD) | {"*"}
    assert all(r["kind"] in kinds for r in rows), [r for r in rows if r["kind"] not in kinds]
    for row in rows:
        op = row["op"].split()[-1].replace("*", "x")
        rec = {"op": op, "kind": row["kind"] if row["kind"] != "*" else "value",
               "tags": [t for t in row["when"] if not t.startswith("~")],
               "repro": " ".join(t[1:] for t in row["when"] if t.startswith("~"))}
        assert fuzz.documented(rec, rows) is not None, row
    # every plain condition is a tag the fuzzer gives a case (a row with a word of prose there never matches)
    plain = {"contiguous", "transposed", "stepped", "offset", "expanded", "special", "boundary", "empty", "subnormal",
             "nan", "inf", "function", "method", "functional", "inplace", "out", "backward", "accumulate", "random"}
    unknown = [(row["op"], t) for row in rows for t in row["when"] if not t.startswith("~") and t not in plain
               and t not in fuzz.DTYPES and not t.startswith(("shape:", "dtype:"))]
    assert not unknown, unknown


def test_crash_is_attributed_to_its_side():
    # the worker notes each case and the side running it: a death in torch's run is torch's own
    case = {"op": "linalg.eigvals", "repro": "T.linalg.eigvals(T.zeros((0, 0)))", "tags": ["empty"]}
    ours = fuzz.crash_records([(7, 3, -8, [], 0, False, dict(case, side="mstorch"))], None, alone_s=0)
    assert [(r["op"], r["kind"], r["repro"]) for r in ours] == [("linalg.eigvals", "crash", case["repro"])]
    assert "SIGFPE" in ours[0]["detail"]
    assert fuzz.crash_records([(7, 3, -8, [], 0, False, dict(case, side="torch"))], None, alone_s=0) == []
