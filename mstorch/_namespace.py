"""A torch sub-namespace (``torch.linalg``, ``torch.special``, ``torch.fft``) from the op table entries
exported there (``namespace="linalg"``): the generated wrappers ``ops/_bind.build`` made for them."""
from ._functions import NAMESPACED
from .ops._registry import UNSUPPORTED


def functions(prefix):
    return {name[len(prefix) + 1:]: fn for name, fn in NAMESPACED.items() if name.startswith(prefix + ".")}


def missing_getattr(module_name):
    """A module ``__getattr__`` that names the torch function mstorch lacks, and why (``UNSUPPORTED``)."""
    torch_name = "torch" + module_name[len("mstorch"):]
    prefix = torch_name[len("torch."):] + "."

    def __getattr__(name):
        reason = UNSUPPORTED.get(prefix + name)
        if reason is not None:
            raise AttributeError(f"{torch_name}.{name} is not provided by mstorch: {reason}")
        raise AttributeError(f"module '{torch_name}' has no attribute '{name}'")
    return __getattr__
