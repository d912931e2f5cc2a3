"""Libraries check for torch before using it (transformers' and accelerate's import-time checks): through the
alias, on a machine without torch, mstorch answers those checks as torch 2.13 CPU does; with the alias off,
nothing pretends torch is installed."""
import pytest
from packaging.version import Version

from harness import check_as_torch as check  # value and error cases side by side: as torch does

# What transformers (utils/import_utils.py) and accelerate (utils/imports.py, utils/versions.py) ask at
# import time, in our words: find_spec, packages_distributions, metadata/version, packaging comparisons of
# torch.__version__, torch.version.cuda/hip, backend availability.
PROBE = r'''
import importlib.metadata as md, importlib.util, json
from packaging import version
out = {}
out["find_spec"] = importlib.util.find_spec("torch") is not None
out["dist_map"] = md.packages_distributions().get("torch")
out["md_version"] = md.version("torch")
meta = md.metadata("torch")
out["md_name"] = meta["Name"]
out["md_version_field"] = meta["Version"]
out["dist_name"] = md.distribution("torch").metadata["Name"]
out["in_distributions"] = any((d.metadata["Name"] or "").lower() == "torch" for d in md.distributions())
# transformers.utils.import_utils.is_torch_available: version.parse(<metadata version>) >= 2.4.0
out["transformers_torch_ok"] = version.parse(md.version("torch")) >= version.parse("2.4.0")
# accelerate.utils.versions.is_torch_version(">=", "2.4.0")
out["accelerate_torch_ok"] = version.parse(md.version("torch")) >= version.parse("2.4.0")
import torch
out["type"] = type(torch.__version__).__name__
out["is_str"] = isinstance(torch.__version__, str)
out["base_version"] = version.parse(torch.__version__).base_version
out["cmp"] = [torch.__version__ >= "2.0", torch.__version__ >= (2, 1), torch.__version__ < (3,),
              torch.__version__ > "2.13", torch.__version__ == "2.13.0", torch.__version__ < "2.14",
              torch.__version__.split("+")[0]]
out["version_mod"] = [torch.version.__version__ == torch.__version__, torch.version.cuda, torch.version.hip,
                      torch.version.debug, isinstance(torch.version.git_version, str)]
out["TorchVersion"] = isinstance(torch.__version__, torch.torch_version.TorchVersion)
out["backends"] = [torch.cuda.is_available(), torch.backends.mps.is_available(), torch.backends.mps.is_built(),
                   torch.backends.cudnn.is_available(), torch.distributed.is_available(),
                   hasattr(torch, "accelerator")]
out["module"] = torch.__name__
import sys
out["real_torch_loaded"] = any(getattr(m, "__file__", None) and "site-packages/torch/" in m.__file__
                               for n, m in list(sys.modules.items()) if n == "torch" or n.startswith("torch."))
print(json.dumps(out))
'''

# the alias's distribution itself: no installed files, no requirements, no entry points
ALIAS_DIST = r'''
dist = md.distribution("torch")
out["alias_dist"] = {"files": dist.files, "requires": dist.requires, "entry_points": list(dist.entry_points)}
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    import json
    import subprocess
    import sys
    path = tmp_path_factory.mktemp("ref") / "probe.py"
    path.write_text(PROBE)
    out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_alias_answers_torch_checks_without_torch(run_case, reference):
    got = run_case(PROBE + ALIAS_DIST, "run")
    assert got["real_torch_loaded"] is False and got["module"] == "mstorch"
    assert reference["module"] == "torch"
    # metadata: torch's name and release (the real CPU wheel adds "+cpu"; the alias's has no local label)
    assert got["md_version"] == "2.13.0" == Version(reference["md_version"]).base_version
    assert got["md_version_field"] == got["md_version"]
    assert got["alias_dist"] == {"files": None, "requires": None, "entry_points": []}
    for key in ("find_spec", "dist_map", "md_name", "dist_name", "in_distributions", "transformers_torch_ok",
                "accelerate_torch_ok", "type", "is_str", "base_version", "version_mod", "TorchVersion",
                "backends"):
        assert got[key] == reference[key], key
    # torch.__version__ is "2.13.0+mstorch" (torch's is "2.13.0+cpu"): every comparison but == agrees
    assert got["cmp"][:4] + got["cmp"][5:] == reference["cmp"][:4] + reference["cmp"][5:]


def test_alias_off_nothing_pretends(run_case):
    code = r'''
import importlib.metadata as md, importlib.util, json
out = {"find_spec": importlib.util.find_spec("torch") is not None}
try:
    md.version("torch")
    out["version"] = "found"
except md.PackageNotFoundError:
    out["version"] = "PackageNotFoundError"
import mstorch
out["after_import"] = [importlib.util.find_spec("torch") is not None,
                       any((d.metadata["Name"] or "").lower() == "torch" for d in md.distributions())]
try:
    md.metadata("torch")
except md.PackageNotFoundError:
    out["metadata"] = "PackageNotFoundError"
try:
    import torch  # noqa: F401
    out["import"] = "imported"
except ModuleNotFoundError:
    out["import"] = "ModuleNotFoundError"
print(json.dumps(out))
'''
    got = run_case(code, "plain")
    assert got == {"find_spec": False, "version": "PackageNotFoundError", "after_import": [False, False],
                   "metadata": "PackageNotFoundError", "import": "ModuleNotFoundError"}


def test_alias_beside_installed_torch_keeps_its_metadata(run_case, reference):
    # the real torch's distribution is what the environment says; import torch still gives mstorch
    got = run_case(PROBE, "run-with-torch")
    assert got["module"] == "mstorch" and got["real_torch_loaded"] is False
    assert got["md_version"] == reference["md_version"]


@pytest.mark.parametrize("other", ["2.0", "2.13.0", "2.13.0+cpu", "2.13.1", "10.0", (2, 1), [2, 13, 0], (3,),
                                   "parrot", 2])
def test_torch_version_compares_as_torch(other):
    def fn(T):
        v = T.torch_version.TorchVersion("2.13.0+cpu")
        out = []
        for op in ("__lt__", "__le__", "__eq__", "__ge__", "__gt__"):
            try:
                out.append(getattr(v, op)(other))
            except TypeError:
                out.append("TypeError")
        try:
            out.append(v >= other)
        except TypeError:
            out.append("TypeError")
        return out + [str(v), hash(v) == hash("2.13.0+cpu"), isinstance(v, str)]
    check(fn)


def test_torch_version_against_packaging_version():
    # torch compares against its vendored Version class only: a packaging Version operand raises TypeError
    check(lambda T: T.torch_version.TorchVersion("2.13.0") >= Version("2.4"))
