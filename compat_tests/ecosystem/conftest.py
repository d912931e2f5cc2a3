"""Ecosystem tests run code in a subprocess where the real torch is not installed, as on a user's machine with
only mstorch: a small bootstrap hides torch (and functorch/torchgen, its sibling packages) from ``import`` and
from ``importlib.metadata`` before anything runs, without touching the installed torch.

The parent folder's conftest (torch imported, known failures) applies here too."""
import json
import os
import subprocess
import sys

import pytest

BOOTSTRAP = r'''
import importlib.machinery, importlib.metadata, os, re, runpy, sys
HIDDEN = tuple(os.environ["MSTORCH_TEST_HIDDEN"].split(","))
_find_spec = importlib.machinery.PathFinder.find_spec
_find_dists = importlib.machinery.PathFinder.find_distributions

def _find_spec_without_torch(fullname, path=None, target=None):
    if fullname.split(".")[0] in HIDDEN:
        return None
    return _find_spec(fullname, path, target)

def _find_dists_without_torch(*args, **kwargs):
    for dist in _find_dists(*args, **kwargs):
        if re.sub(r"[-_.]+", "-", dist.metadata["Name"] or "").lower() not in HIDDEN:
            yield dist

importlib.machinery.PathFinder.find_spec = staticmethod(_find_spec_without_torch)
importlib.machinery.PathFinder.find_distributions = staticmethod(_find_dists_without_torch)
mode, script, args = sys.argv[1], sys.argv[2], sys.argv[3:]
if mode == "run":  # python -m mstorch run SCRIPT ARGS
    import mstorch.__main__
    sys.exit(mstorch.__main__.main(["run", script] + args))
sys.argv = [script] + args
runpy.run_path(script, run_name="__main__")
'''


TORCH = ("torch", "functorch", "torchgen")


def _command(tmp_path, code, mode, hide_torch=True, also_hide=(), args=(), name="case.py"):
    """The command and environment running ``code``; ``also_hide``: more packages to make not installed (in both
    modes), e.g. optional dependencies a library would import when present."""
    script = tmp_path / name
    script.write_text(code)
    hidden = (TORCH if hide_torch else ()) + tuple(also_hide)
    if hidden:
        boot = tmp_path / "hiding_boot.py"
        boot.write_text(BOOTSTRAP)
        cmd = [sys.executable, str(boot), mode, str(script)]
    else:
        cmd = ([sys.executable, "-m", "mstorch", "run", str(script)] if mode == "run"
               else [sys.executable, str(script)])
    return cmd + [str(a) for a in args], dict(os.environ, MSTORCH_TEST_HIDDEN=",".join(hidden))


def _result(returncode, stdout, stderr):
    assert returncode == 0, stderr[-4000:]
    return json.loads(stdout.strip().splitlines()[-1])


def _run(tmp_path, code, mode, hide_torch=True, also_hide=(), args=(), name="case.py"):
    cmd, env = _command(tmp_path, code, mode, hide_torch, also_hide, args, name)
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=tmp_path, env=env)
    return _result(out.returncode, out.stdout, out.stderr)


@pytest.fixture(scope="module")
def torch_and_mstorch(tmp_path_factory):
    """``torch_and_mstorch(code)``: run ``code`` with the real torch and through ``python -m mstorch run`` with torch
    hidden, both at once (a module's cases share one pair of processes), and return (torch's, mstorch's) value."""
    def run(code):
        procs = []
        for mode, hide in (("plain", False), ("run", True)):
            folder = tmp_path_factory.mktemp(mode)
            cmd, env = _command(folder, code, mode, hide)
            procs.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=folder,
                                          env=env))
        outs = [p.communicate(timeout=600) for p in procs]
        return tuple(_result(p.returncode, *o) for p, o in zip(procs, outs))
    return run


@pytest.fixture
def run_case(tmp_path):
    """``run_case(code, mode)``: run ``code`` (which prints one JSON line last) and return that value.
    mode "run": through ``python -m mstorch run`` with torch hidden; "plain": plain python with torch hidden
    (the alias off); "torch": plain python with the real torch; "run-with-torch": the alias on beside an
    installed torch."""
    def run(code, mode, also_hide=(), args=(), name="case.py"):
        extra = dict(also_hide=also_hide, args=args, name=name)
        if mode == "torch":
            return _run(tmp_path, code, "plain", hide_torch=False, **extra)
        if mode == "run-with-torch":
            return _run(tmp_path, code, "run", hide_torch=False, **extra)
        return _run(tmp_path, code, mode, **extra)
    return run
