"""torch.utils.hooks: the one hook handle of mstorch (module, optimizer, tensor and accelerate's own hook
tables all hand out this class, as torch's do) and the serialization helpers for tensor hooks."""
import warnings
import weakref
from collections import OrderedDict

__all__ = ["RemovableHandle", "unserializable_hook", "warn_if_has_hooks"]


class RemovableHandle:
    """Mirrors torch.utils.hooks.RemovableHandle: removes entry ``id`` from ``hooks_dict`` (held weakly) and
    from the ``extra_dict`` dictionary or list of dictionaries."""

    next_id = 0

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        self.extra_dict_ref = ()
        if isinstance(extra_dict, dict):
            self.extra_dict_ref = (weakref.ref(extra_dict),)
        elif isinstance(extra_dict, list):
            self.extra_dict_ref = tuple(weakref.ref(d) for d in extra_dict)

    def remove(self):
        hooks_dict = self.hooks_dict_ref()
        if hooks_dict is not None and self.id in hooks_dict:
            del hooks_dict[self.id]
        for ref in self.extra_dict_ref:
            extra = ref()
            if extra is not None and self.id in extra:
                del extra[self.id]

    def __getstate__(self):
        return (self.hooks_dict_ref(), self.id, tuple(ref() for ref in self.extra_dict_ref))

    def __setstate__(self, state):
        # a handle whose table is gone unpickles with a dead reference, as torch's
        self.hooks_dict_ref = weakref.ref(OrderedDict() if state[0] is None else state[0])
        self.id = state[1]
        RemovableHandle.next_id = max(RemovableHandle.next_id, self.id + 1)
        extra = state[2] if len(state) > 2 else None
        self.extra_dict_ref = () if extra is None else tuple(weakref.ref(d) for d in extra)

    def __enter__(self):
        return self

    def __exit__(self, type, value, tb):
        self.remove()


def unserializable_hook(f):
    """Mirrors torch.utils.hooks.unserializable_hook: marks ``f`` so that saving a tensor with it does not warn."""
    f.__torch_unserializable__ = True
    return f


def warn_if_has_hooks(tensor):
    """Mirrors torch.utils.hooks.warn_if_has_hooks."""
    hooks = tensor._backward_hooks
    for hook in (hooks or {}).values():
        if not hasattr(hook, "__torch_unserializable__"):
            warnings.warn(f"backward hook {hook!r} on tensor will not be serialized.  If this is expected, you can "
                          "decorate the function with @torch.utils.hooks.unserializable_hook to suppress this "
                          "warning", stacklevel=2)
