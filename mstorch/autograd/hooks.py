"""Tensor.register_hook on MindSpore's tensor hooks."""
from .. import _ms_private as P
from .._tensor import wrap


class RemovableHandle:
    def __init__(self, ms_handle):
        self._h = ms_handle

    def remove(self):
        if self._h is not None:
            self._h.remove()
            self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def register_tensor_hook(tensor, hook):
    if not P.requires_grad(tensor._ms):
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")

    def ms_hook(grad):
        r = hook(wrap(grad))
        return None if r is None else r._ms

    return RemovableHandle(tensor._ms.register_hook(ms_hook))
