"""The device path (docs/design.md, "Device path"): with ``MSTORCH_DEVICE_PATH=1`` ops run the
implementations a GPU or Ascend runs (kernels only, no reads of values on the host). Run in
subprocesses, since the choice is made once at import."""
import json
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

import mstorch
from mstorch import _runtime

ROOT = pathlib.Path(__file__).resolve().parents[1]
STEPS = pathlib.Path(__file__).parent / "scripts" / "device_steps.py"


def _env(**flags):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    for k in ("MSTORCH_DEVICE_PATH", "MSTORCH_CHECK_INDICES"):
        env.pop(k, None)
    env.update(flags)
    return env


def _run(args, **flags):
    r = subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=600, env=_env(**flags))
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout


@pytest.fixture(scope="module")
def device_steps():
    return json.loads(_run(["-m", "mstorch", "run", str(STEPS)], MSTORCH_DEVICE_PATH="1").splitlines()[-1])


@pytest.mark.parametrize("model", ["mlp", "cnn", "transformer"])
def test_training_step_reads_nothing_on_the_host(device_steps, model):
    got = device_steps[model]
    assert got["reads"] == 0, "host reads inside the step:\n" + "\n".join(got["where"])
    assert got["mindspore_reads"] == 0


@pytest.mark.parametrize("model", ["mlp", "cnn", "transformer"])
def test_device_path_training_matches_torch(device_steps, model):
    want = json.loads(_run([str(STEPS)]).splitlines()[-1])[model]["losses"]
    assert device_steps[model]["losses"] == pytest.approx(want, rel=1e-4, abs=1e-5)


@pytest.mark.skipif(not _runtime.host_workarounds(), reason="the host path (MSTORCH_DEVICE_PATH=1 runs the other)")
def test_host_path_counts_its_reads():
    # on CPU the class-index cross-entropy reads its targets on the host: the counter must see it
    x, y = mstorch.randn(4, 3), mstorch.tensor([0, 1, 2, 1])
    before = _runtime.host_reads()
    mstorch.nn.functional.cross_entropy(x, y)
    assert _runtime.host_reads() > before
    before = _runtime.host_reads()
    x.sum().item()
    assert _runtime.host_reads() == before + 1


def test_every_host_read_goes_through_the_counter():
    """``asnumpy()`` is called in one place (``_runtime.read_host``); the zero-copy views count themselves."""
    offenders = []
    for path in (ROOT / "mstorch").rglob("*.py"):
        if path.name == "_runtime.py":
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            if re.search(r"\.asnumpy\(\)", code) and "``" not in code and not code.lstrip().startswith(('"', "'")):
                offenders.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not offenders, "call _runtime.read_host instead:\n" + "\n".join(offenders)


_INDEX_CASES = {
    "getitem": "T.arange(3.0)[T.tensor([0, 5])]",
    "index_select": "T.index_select(T.arange(3.0), 0, T.tensor([4]))",
    "gather": "T.gather(T.arange(3.0), 0, T.tensor([3]))",
    "embedding": "T.nn.functional.embedding(T.tensor([7]), T.ones(3, 2))",
    "cross_entropy": "T.nn.functional.cross_entropy(T.ones(2, 3), T.tensor([0, 3]))",
}

_OP_CASES = [
    "T.tensor([1.0, float('nan'), 3.0]).max()",
    "T.tensor([[1.0, float('nan')], [2.0, 0.5]]).max(1)",
    "T.tensor([2.0, float('nan'), 1.0]).sort()",
    "T.tensor([2.0, float('nan'), 1.0, 4.0]).median()",
    "T.tensor([2.0, float('nan'), 1.0, 4.0]).nanmedian()",
    "T.relu(T.tensor([float('nan'), -1.0, 2.0]))",
    "T.maximum(T.tensor([float('nan'), 1.0]), T.tensor([0.0, float('nan')]))",
    "T.arange(6.0).reshape(2, 3)[T.tensor([1, 0]), T.tensor([-1, 2])]",
    "T.arange(6.0).reshape(2, 3)[:, T.tensor([[0, 2], [1, 1]])]",
    "T.nn.functional.cross_entropy(T.arange(6.0).reshape(2, 3), T.tensor([2, -100]), label_smoothing=0.1)",
    "T.nn.functional.nll_loss(T.arange(6.0).reshape(2, 3), T.tensor([2, 1]), weight=T.tensor([1.0, 2.0, 3.0]))",
    "T.nn.functional.embedding(T.tensor([[0, 2], [1, 0]]), T.arange(6.0).reshape(3, 2), padding_idx=0)",
    "T.softmax(T.tensor([[1.0, 2.0, 3.0]]), 1)",
    "T.arange(4.0).view(T.int32)",
]

# evaluates each case under the namespace T; prints {case: [[values, dtype], ...] or [exception type, message]}
_EVAL = """
import json, sys
import {module} as T
cases, out = json.loads(sys.argv[1]), {{}}
for case in cases:
    try:
        r = eval(case, {{"T": T}})
        r = list(r) if isinstance(r, tuple) else [r]
        out[case] = [[x.tolist(), str(x.dtype)] for x in r]
    except Exception as e:
        out[case] = [type(e).__name__, str(e).splitlines()[0]]
print(json.dumps(out))
"""


def _evaluate(module, cases, **flags):
    return json.loads(_run(["-c", _EVAL.format(module=module), json.dumps(cases)], **flags).splitlines()[-1])


@pytest.fixture(scope="module")
def torch_results():
    return _evaluate("torch", list(_INDEX_CASES.values()) + _OP_CASES)


@pytest.fixture(scope="module")
def checked_indices():
    return _evaluate("mstorch", list(_INDEX_CASES.values()), MSTORCH_DEVICE_PATH="1", MSTORCH_CHECK_INDICES="1")


@pytest.fixture(scope="module")
def device_ops():
    return _evaluate("mstorch", _OP_CASES, MSTORCH_DEVICE_PATH="1")


@pytest.mark.parametrize("case", sorted(_INDEX_CASES))
def test_check_indices_flag_reports_as_torch(case, checked_indices, torch_results):
    """On the device path indices are not range-checked (torch's CUDA kernels do not either);
    ``MSTORCH_CHECK_INDICES=1`` checks them, with torch's CPU exception type and message."""
    expr = _INDEX_CASES[case]
    assert checked_indices[expr] == torch_results[expr]


@pytest.mark.parametrize("expr", _OP_CASES)
def test_device_path_ops_match_torch(expr, device_ops, torch_results):
    """The kernel-only implementations on CPU (NaN rules, indices, class-index losses, softmax, bit casts)."""
    got, want = device_ops[expr], torch_results[expr]
    assert len(got) == len(want)
    for (g, gd), (w, wd) in zip(got, want):
        assert gd == wd
        np.testing.assert_allclose(np.array(g, float), np.array(w, float), rtol=1e-6, atol=1e-7, equal_nan=True)
