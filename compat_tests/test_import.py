"""`import mstorch` must not import torch, and must not need it installed."""
import subprocess
import sys


def test_import_does_not_import_torch():
    code = "import sys, mstorch; x = mstorch.ones(2) + 1; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "False"


def test_import_without_torch_installed():
    # a meta-path finder that refuses torch stands in for an environment without it
    code = ("import sys\n"
            "class Block:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name == 'torch' or name.startswith('torch.'):\n"
            "            raise ImportError('torch is blocked')\n"
            "sys.meta_path.insert(0, Block())\n"
            "import mstorch\n"
            "print(mstorch.tensor([1.0, 2.0]).sum().item())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "3.0"
