"""Build a torch sub-namespace (``torch.linalg``, ``torch.special``) from the op table entries keyed
``<prefix>.<name>``: the same generated wrappers as ``mstorch.<name>`` (unwrap, call, wrap, ``out=``)."""
from . import _runtime
from .ops import _bind
from .ops._registry import OPS, UNSUPPORTED


def functions(prefix):
    device = _runtime.device_target()
    out = {}
    for name, opdef in OPS.items():
        if name.startswith(prefix + "."):
            short = name[len(prefix) + 1:]
            fn = _bind._make_function(opdef, opdef.impl_for(device))
            fn.__name__ = fn.__qualname__ = short
            fn.__module__ = f"mstorch.{prefix}"
            out[short] = fn
    return out


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
