"""MSTORCH_TRACE: each dispatched op printed with shapes and dtypes; ``compare`` re-runs ops on torch and
reports the first divergence (the debugging switches of STYLE.md)."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(code, trace):
    env = dict(os.environ, MSTORCH_TRACE=trace, PYTHONPATH=ROOT)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180, env=env,
                         cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return out.stdout, [ln for ln in out.stderr.splitlines() if ln.startswith("[mstorch]")]


def test_trace_prints_each_op_with_shapes_and_dtypes_and_never_imports_torch():
    code = ("import sys, mstorch as T\n"
            "a = T.ones(2, 3)\n"
            "b = (a + 2).sum(1)\n"
            "T.add(a, a, out=T.empty(2, 3, dtype=T.float64))\n"
            "print('torch' in sys.modules)\n")
    stdout, lines = run(code, "1")
    assert stdout.strip() == "False"
    assert "[mstorch] add(Tensor[2, 3] float32, 2) -> Tensor[2, 3] float32" in lines
    assert "[mstorch] sum(Tensor[2, 3] float32, 1) -> Tensor[2] float32" in lines
    # out= is traced as the op's own result; the write into out follows torch's out= rules
    assert lines.count("[mstorch] add(Tensor[2, 3] float32, Tensor[2, 3] float32) -> Tensor[2, 3] float32") == 1


def test_trace_off_prints_nothing():
    _, lines = run("import mstorch as T\n(T.ones(2) + 1).sum()\n", "0")
    assert lines == []


def test_compare_reports_the_first_divergence_from_torch():
    # an implementation that is wrong on purpose, bound the way the op table binds every op
    code = ("import mstorch as T\n"
            "from mindspore import ops\n"
            "from mstorch.ops import _bind\n"
            "from mstorch.ops._registry import OPS\n"
            "a = T.tensor([0.5, 1.0])\n"
            "T.tanh(a)\n"
            "wrong_tanh = _bind._make_function(OPS['tanh'], lambda x: ops.sin(x))\n"
            "wrong_tanh(a)\n"
            "wrong_tanh(a)\n")
    _, lines = run(code, "compare")
    diverging = [ln for ln in lines if "DIVERGES" in ln]
    assert len(diverging) == 2, lines
    assert "(first divergence)" in diverging[0] and "(first divergence)" not in diverging[1]
    # the correct call before them agreed with torch
    assert lines[lines.index(diverging[0]) - 1].startswith("[mstorch] tanh(Tensor[2] float32)")
    assert not any("DIVERGES" in ln for ln in lines[:lines.index(diverging[0]) - 1])
