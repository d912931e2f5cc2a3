"""Small helpers of torch.nn.Module kept out of module.py: type names for error messages, the
load_state_dict result, hook handles and repr indentation."""
import weakref
from collections import namedtuple

from ..._tensor import Tensor


def _typename(obj):
    if isinstance(obj, Tensor):
        from ..._tensor import _LEGACY_TYPE_NAMES
        return _LEGACY_TYPE_NAMES[obj.dtype]
    module = type(obj).__module__
    name = type(obj).__qualname__
    if module in ("builtins", "__builtin__", None):
        return name
    return f"{module}.{name}"


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class RemovableHandle:
    """Mirrors torch.utils.hooks.RemovableHandle."""

    next_id = 0

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        self.extra_dict_ref = tuple(weakref.ref(d) for d in (extra_dict or ()))

    def remove(self):
        hooks_dict = self.hooks_dict_ref()
        if hooks_dict is not None and self.id in hooks_dict:
            del hooks_dict[self.id]
        for ref in self.extra_dict_ref:
            d = ref()
            if d is not None and self.id in d:
                del d[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _addindent(s_, num_spaces):
    s = s_.split("\n")
    if len(s) == 1:
        return s_
    first = s.pop(0)
    s = [(num_spaces * " ") + line for line in s]
    return first + "\n" + "\n".join(s)
