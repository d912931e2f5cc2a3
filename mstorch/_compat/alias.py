"""``torch`` and every ``torch.*`` module name resolve to the matching ``mstorch`` module.

An import hook on sys.meta_path: ``import torch.nn.functional as F`` gives ``mstorch.nn.functional``,
the same module object under both names, so ``isinstance``, pickled class paths
(``torch.nn.modules.linear.Linear``) and third-party ``import torch`` (einops...) all meet mstorch.
A name mstorch does not provide fails like a missing module, naming what is missing.
``safetensors.torch`` resolves to ``mstorch.safetensors`` as well.

Libraries also ask the installed-package metadata whether torch is there and which version
(``importlib.metadata.version("torch")``: transformers, accelerate, peft). While the alias is on and no real torch
distribution is installed, the finder answers with a minimal distribution named torch, version
``TORCH_VERSION``, without files. Where the real torch *is* installed, its metadata is left as the environment
says (we never shadow an installed package's metadata; ``import torch`` still gives mstorch).
"""
import importlib
import importlib.abc
import importlib.metadata
import importlib.util
import re
import sys

TOP = "torch"
OPS = "torch.ops"
TORCH_VERSION = "2.13.0"  # the torch release mstorch follows (torch.__version__ adds "+mstorch")
_METADATA = (f"Metadata-Version: 2.1\nName: torch\nVersion: {TORCH_VERSION}\n"
             "Summary: the PyTorch API on MindSpore (mstorch's alias for torch)\n")


class _AliasDistribution(importlib.metadata.Distribution):
    """torch's metadata while the alias is on: name and version, ``top_level.txt`` naming torch (so
    ``packages_distributions()`` maps the import name to it), and no file list (``files`` is None)."""

    def read_text(self, filename):
        if filename in ("METADATA", "PKG-INFO"):
            return _METADATA
        if filename == "top_level.txt":
            return "torch\n"
        return None

    def locate_file(self, path):
        raise FileNotFoundError(f"mstorch's torch alias has no installed files ({path})")


def _normalized(name):
    return re.sub(r"[-_.]+", "-", name).lower()


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target):
        self.target = target

    def create_module(self, spec):
        module, _, attr = self.target.partition(":")   # "module:attribute" for an object that is not a module
        module = importlib.import_module(module)
        return getattr(module, attr) if attr else module

    def exec_module(self, module):
        # already executed under its mstorch name; re-binding happens in find_spec's caller
        pass


class TorchAliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname == "safetensors.torch":  # mstorch's reader/writer of the format (mstorch/_safetensors.py)
            return importlib.util.spec_from_loader(fullname, _AliasLoader("mstorch.safetensors"))
        if fullname != TOP and not fullname.startswith(TOP + "."):
            return None
        if fullname == OPS:  # torch.ops is the operator namespace object; mstorch/ops/ is the internal op table
            return importlib.util.spec_from_loader(fullname, _AliasLoader("mstorch._library:ops"))
        if fullname.startswith(OPS + "."):
            return None
        mapped = "mstorch" + fullname[len(TOP):]
        try:
            found = importlib.util.find_spec(mapped)
        except ModuleNotFoundError:
            found = None
        if found is None:
            parent = mapped.rpartition(".")[0]
            parent_mod = sys.modules.get(parent)
            # attributes that are modules (mstorch.nn.functional is an attribute too)
            attr = getattr(parent_mod, mapped.rpartition(".")[2], None) if parent_mod else None
            if attr is None or not isinstance(attr, type(sys)):
                return None
        spec = importlib.util.spec_from_loader(fullname, _AliasLoader(mapped), is_package=True)
        return spec

    def find_distributions(self, context=importlib.metadata.DistributionFinder.Context()):
        if context.name is not None and _normalized(context.name) != TOP:
            return iter(())
        if "path" in vars(context):  # a search of given folders (an install target): only what is there
            return iter(())
        if _real_torch_distribution(self):
            return iter(())
        return iter((_AliasDistribution(),))


def _real_torch_distribution(own):
    """Whether another finder (site-packages) holds an installed torch distribution."""
    context = importlib.metadata.DistributionFinder.Context(name=TOP)
    for finder in sys.meta_path:
        if finder is own:
            continue
        find = getattr(finder, "find_distributions", None)
        if find is not None and next(iter(find(context)), None) is not None:
            return True
    return False


_FINDER = TorchAliasFinder()


def install():
    """Make ``import torch`` give mstorch for the rest of this process."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
    for name in [n for n in sys.modules if n == TOP or n.startswith(TOP + ".")]:
        if not getattr(sys.modules[name], "__name__", "").startswith("mstorch"):
            raise RuntimeError(
                "mstorch: the real torch is already imported in this process; the alias must be installed "
                "before anything imports torch")
    import mstorch
    sys.modules[TOP] = mstorch
    sys.modules[OPS] = mstorch.ops
    for name, module in list(sys.modules.items()):
        if name.startswith("mstorch.") and module is not None and not name.startswith("mstorch.ops."):
            sys.modules.setdefault(TOP + name[len("mstorch"):], module)


def uninstall():
    if _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)
    for name in [n for n in sys.modules if n == TOP or n.startswith(TOP + ".") or n == "safetensors.torch"]:
        module = sys.modules[name]
        if getattr(module, "__name__", "").startswith("mstorch") or module is sys.modules["mstorch"].ops:
            del sys.modules[name]


def installed():
    return _FINDER in sys.meta_path
