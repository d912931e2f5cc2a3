"""torch.nn.utils.skip_init: a module built without running its parameter initialisation."""
import inspect

from ..modules.module import Module


def skip_init(module_cls, *args, **kwargs):
    """Mirrors torch.nn.utils.skip_init: the module is built on the meta device (no initialisation runs)
    and then given fresh storage with ``to_empty`` (zero-filled in mstorch, uninitialised in torch)."""
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    kwargs["device"] = "meta"
    return module_cls(*args, **kwargs).to_empty(device=final_device)
