"""examples/gcn.py (a plain PyTorch GCN on a sparse normalized adjacency) runs unmodified through
``python -m mstorch run`` and prints torch's loss curve step for step."""
import pathlib
import re
import subprocess
import sys

SCRIPT = pathlib.Path(__file__).resolve().parent.parent / "examples" / "gcn.py"


def _curve(out):
    assert out.returncode == 0, out.stderr[-3000:]
    rows = [line for line in out.stdout.splitlines() if line.startswith(("epoch", "test", "graph"))]
    assert len(rows) == 13, out.stdout
    return rows


def test_gcn_example_matches_torch():
    args = ["--epochs", "11"]
    ms = subprocess.run([sys.executable, "-m", "mstorch", "run", str(SCRIPT), *args], capture_output=True,
                        text=True, timeout=600)
    pt = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=600)
    ms_rows, pt_rows = _curve(ms), _curve(pt)
    assert ms_rows[0] == pt_rows[0]   # the same graph: node count and stored entries of the adjacency
    for m, p in zip(ms_rows[1:], pt_rows[1:]):
        mv = [float(x) for x in re.findall(r"\d+\.\d+", m)]
        pv = [float(x) for x in re.findall(r"\d+\.\d+", p)]
        assert len(mv) == len(pv) and mv, (m, p)
        for a, b in zip(mv, pv):
            assert abs(a - b) <= 1e-4 * max(abs(b), 1e-3), (m, p)
