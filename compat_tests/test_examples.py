"""The example scripts of the public PyTorch-examples kind (examples/*.py, plain ``import torch``) run under real
torch and unmodified through ``python -m mstorch run``, with the same loss curve step for step."""
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"
# every loss a script prints: "Loss_D: 1.23", "loss 1.23", "valid loss 1.23"
LOSS = re.compile(r"(?:Loss_[DG]:|loss) (-?\d+\.\d+)")


def _losses(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return [float(v) for v in LOSS.findall(out.stdout)], out.stdout


@pytest.mark.parametrize("script,args", [
    ("dcgan.py", []),
    ("word_language_model.py", ["--tied"]),
    ("word_language_model.py", ["--model", "GRU", "--epochs", "1"]),
    ("forward_forward.py", []),
])
def test_loss_curve_matches_torch(script, args):
    path = str(EXAMPLES / script)
    ref, ref_out = _losses([sys.executable, path, *args])
    got, got_out = _losses([sys.executable, "-m", "mstorch", "run", path, *args])
    assert len(ref) >= 8 and len(got) == len(ref), (ref_out, got_out)
    # same seeds, initial weights, data and dropout masks: float32 rounding differences only
    np.testing.assert_allclose(got, ref, rtol=1e-4, err_msg=got_out)


def test_onnx_export_request_names_the_api(tmp_path):
    out = subprocess.run([sys.executable, "-m", "mstorch", "run", str(EXAMPLES / "word_language_model.py"),
                          "--epochs", "1", "--onnx-export", str(tmp_path / "lm.onnx")],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode != 0
    assert "NotImplementedError: mstorch: torch.onnx.export is not supported" in out.stderr
    assert "| end of epoch   1 |" in out.stdout   # training ran before the export was requested
