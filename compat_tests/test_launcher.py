"""Unmodified torch scripts run through ``python -m mstorch run`` in a subprocess."""
import os
import pathlib
import subprocess
import sys

import torch

SCRIPTS = pathlib.Path(__file__).parent / "scripts"


def launch(*args, cwd=None):
    env = dict(os.environ, MSTORCH_DISABLE_ALIAS="1")
    return subprocess.run([sys.executable, "-m", "mstorch", "run", *map(str, args)], capture_output=True,
                          text=True, timeout=180, cwd=cwd, env=env)


def lines(out):
    return [line for line in out.stdout.splitlines() if not line.startswith("[WARNING]")]


def test_script_runs_with_argv_main_and_sibling_imports():
    out = launch(SCRIPTS / "basics.py", "a", "--b", "3")
    assert out.returncode == 0, out.stderr
    got = lines(out)
    assert got[0] == "name __main__"
    assert got[1] == "argv ['a', '--b', '3']"
    assert got[2] == "sibling 42"
    assert got[3] == "same class True"
    assert got[4] == "sum 12.0"
    assert got[5] == "device cpu"
    assert got[6] == "F [[3.0], [3.0]]"


def test_exit_code_is_the_scripts():
    assert launch(SCRIPTS / "basics.py", "--exit", "7").returncode == 7


def test_exception_traceback_and_exit_code_as_python():
    out = launch(SCRIPTS / "basics.py", "--fail")
    plain = subprocess.run([sys.executable, str(SCRIPTS / "basics.py"), "--fail"], capture_output=True, text=True,
                           timeout=180)
    assert out.returncode == plain.returncode == 1
    assert out.stderr.strip().splitlines()[-1] == "ValueError: failing on purpose"
    # the traceback starts in the script, as with plain python: no launcher frames
    tb = [ln for ln in out.stderr.splitlines() if ln.startswith("  File ")]
    assert tb and all("mstorch/__main__.py" not in ln and "runpy" not in ln for ln in tb)
    assert tb == [ln for ln in plain.stderr.splitlines() if ln.startswith("  File ")]


def test_missing_script_fails_like_python(tmp_path):
    out = launch(tmp_path / "nope.py")
    assert out.returncode == 2
    assert "can't open file" in out.stderr


def test_loads_a_model_pickled_by_real_torch(tmp_path):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Linear(2, 1))
    x = torch.randn(4, 3)
    torch.save(model, tmp_path / "model.pt")
    torch.save(x, tmp_path / "x.pt")
    out = launch(SCRIPTS / "load_model.py", tmp_path / "model.pt", tmp_path / "x.pt")
    assert out.returncode == 0, out.stderr
    got = lines(out)
    assert got[0] == "torch.nn.modules.container Sequential" or got[0].endswith("Sequential")
    values = eval(got[1][4:])  # noqa: S307 - our own script's output
    expected = model(x).tolist()
    assert all(abs(a[0] - b[0]) < 1e-5 for a, b in zip(values, expected))


def test_alias_inside_process_maps_torch_submodules():
    code = ("from mstorch._compat import alias; alias.install()\n"
            "import torch, torch.nn.functional as F, mstorch\n"
            "from torch.utils import data\n" if False else
            "from mstorch._compat import alias; alias.install()\n"
            "import torch, torch.nn.functional as F, mstorch\n"
            "print(torch is mstorch, F is mstorch.nn.functional, torch.nn.Linear is mstorch.nn.Linear)\n"
            "alias.uninstall()\n"
            "import sys; print('torch' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180,
                         env=dict(os.environ, MSTORCH_DISABLE_ALIAS="1"))
    assert out.returncode == 0, out.stderr
    assert lines(out) == ["True True True", "False"]


def test_missing_torch_module_raises_module_not_found():
    code = ("from mstorch._compat import alias; alias.install()\n"
            "try:\n    import torch.no_such_module\nexcept ModuleNotFoundError as e:\n    print(e.name)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr
    assert lines(out) == ["torch.no_such_module"]
