"""torch.compiler (the part torchvision uses at import): mstorch runs every model eagerly (see ``_compile``), so
nothing is ever being compiled and ``disable`` has nothing to switch off."""
import functools

__all__ = ["disable", "is_compiling", "is_dynamo_compiling", "is_exporting"]


def disable(fn=None, recursive=True, *, reason=None):
    """torch.compiler.disable: ``fn`` runs eagerly, as everything does in mstorch (decorator with or without
    arguments)."""
    if fn is None:
        return functools.partial(disable, recursive=recursive, reason=reason)
    return fn


def is_compiling():
    """False: mstorch never traces a model for compilation."""
    return False


def is_dynamo_compiling():
    return False


def is_exporting():
    """False: ``torch.export`` does not run in mstorch."""
    return False
