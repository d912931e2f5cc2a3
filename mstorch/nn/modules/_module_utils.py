"""Small helpers of torch.nn.Module kept out of module.py: type names for error messages, the
load_state_dict result, hook handles, repr indentation, the global module hook tables and the
register_module_* functions (re-exported by module.py, where torch has them)."""
import inspect
import weakref
from collections import OrderedDict, namedtuple

from ..._tensor import Tensor
from ...utils.hooks import RemovableHandle  # noqa: F401  (torch.nn.modules.module has it too)


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


def _addindent(s_, num_spaces):
    s = s_.split("\n")
    if len(s) == 1:
        return s_
    first = s.pop(0)
    s = [(num_spaces * " ") + line if line.strip() else "" for line in s]   # blank lines stay empty (torch 2.13)
    return first + "\n" + "\n".join(s)


class _WrappedHook:
    """A load_state_dict pre-hook, called with its module (held weakly) when ``module`` is given."""

    def __init__(self, hook, module=None):
        self.hook = hook
        self.with_module = module is not None
        if self.with_module:
            self.module = weakref.ref(module)

    def __call__(self, *args, **kwargs):
        if self.with_module:
            module = self.module()
            if module is None:
                raise RuntimeError("You are trying to call the hook of a dead Module!")
            return self.hook(module, *args, **kwargs)
        return self.hook(*args, **kwargs)

    def __getstate__(self):
        state = {"hook": self.hook, "with_module": self.with_module}
        if self.with_module:
            state["module"] = self.module()
        return state

    def __setstate__(self, state):
        self.hook = state["hook"]
        self.with_module = state["with_module"]
        if self.with_module:
            if state["module"] is None:
                raise RuntimeError("You are trying to revive the hook of a dead Module!")
            self.module = weakref.ref(state["module"])


# --- hooks common to all modules (torch.nn.modules.module.register_module_*) ------------------------
# The tables are shared with module.py (re-exported there) and read by hooks.py / backward_hooks.py.

_global_forward_pre_hooks = OrderedDict()
_global_forward_hooks = OrderedDict()
_global_forward_hooks_with_kwargs = OrderedDict()
_global_forward_hooks_always_called = OrderedDict()
_global_backward_pre_hooks = OrderedDict()
_global_backward_hooks = OrderedDict()
_global_backward_kind = {"full": None}


def register_module_forward_pre_hook(hook):
    handle = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    return handle


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    handle = RemovableHandle(_global_forward_hooks, extra_dict=[_global_forward_hooks_with_kwargs,
                                                                _global_forward_hooks_always_called])
    _global_forward_hooks[handle.id] = hook
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def _global_backward_kind_check(full):
    if _global_backward_kind["full"] is (not full):
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a global Module "
                           "hook. Please use only one of them.")
    _global_backward_kind["full"] = full


def register_module_full_backward_pre_hook(hook):
    handle = RemovableHandle(_global_backward_pre_hooks)
    _global_backward_pre_hooks[handle.id] = hook
    return handle


def register_module_full_backward_hook(hook):
    _global_backward_kind_check(True)
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle


def register_module_backward_hook(hook):
    # mstorch runs module backward hooks with the full-hook semantics (see Module.register_backward_hook)
    _global_backward_kind_check(False)
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle


# Registration hooks: hook(module, name, value) may return a replacement value (torch 2.13). torch has no
# per-module registration hooks, so these are the only ones; Module calls them through run_registration_hooks.
_global_buffer_registration_hooks = OrderedDict()
_global_module_registration_hooks = OrderedDict()
_global_parameter_registration_hooks = OrderedDict()


def _add_registration_hook(table, hook):
    handle = RemovableHandle(table)
    table[handle.id] = hook
    return handle


def register_module_buffer_registration_hook(hook):
    return _add_registration_hook(_global_buffer_registration_hooks, hook)


def register_module_module_registration_hook(hook):
    return _add_registration_hook(_global_module_registration_hooks, hook)


def register_module_parameter_registration_hook(hook):
    return _add_registration_hook(_global_parameter_registration_hooks, hook)


def run_registration_hooks(table, module, name, value):
    for hook in table.values():
        output = hook(module, name, value)
        if output is not None:
            value = output
    return value


# --- load_state_dict helpers -------------------------------------------------------------------------

def _is_tensor_like(x):
    return isinstance(x, Tensor) or type(x).__name__ == "Tensor" and hasattr(x, "shape")


def _as_mstorch(x):
    if isinstance(x, Tensor):
        return x
    import mindspore as ms
    from ..._tensor import wrap
    from ...ops.creation import tensor
    if isinstance(x, ms.Tensor):
        return wrap(x)
    # a real torch tensor (tests, interop): go through NumPy
    import numpy as np
    if str(getattr(x, "dtype", "")) == "torch.bfloat16":
        from ... import _dtype as D
        return tensor(np.asarray(x.float().detach().cpu().numpy())).to(D.bfloat16)
    return tensor(np.asarray(x.detach().cpu().numpy()))


def _copy_no_grad(param, value):
    from ...autograd.grad_mode import no_grad
    with no_grad():
        param.copy_(value)


def _module_dir(module):
    """Module.__dir__: class and instance attributes plus the registered members, as torch lists them."""
    keys = (dir(module.__class__) + list(module.__dict__) + list(module._parameters) + list(module._modules)
            + list(module._buffers))
    return sorted(key for key in keys if not key[0].isdigit())


def _rebuild_module(cls):
    return cls.__new__(cls)


# --- MindSpore Cell names that torch's Module does not have ------------------------------------------

class _CellOnlyName:
    """A public attribute of mindspore.nn.Cell that torch's Module lacks (``cells``, ``phase``, ``offload``,
    ``shard``...). A torch model is free to use such a name for a submodule, parameter or buffer
    (``self.cells = nn.ModuleList(...)``); the model's own entry wins, as it would in torch, and the Cell
    attribute is seen otherwise (MindSpore's machinery keeps working). Plain values a model assigns to a
    method name land in the instance dictionary, which Python already prefers to a method."""

    def __init__(self, name, cell_attr):
        self.name = name
        self.cell_attr = cell_attr

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self.cell_attr
        d = obj.__dict__
        for registry in ("_parameters", "_buffers", "_modules"):
            entries = d.get(registry)
            if entries is not None and self.name in entries:
                return entries[self.name]
        return self.cell_attr.__get__(obj, objtype)


class _CellOnlyProperty(_CellOnlyName):
    """The same for a Cell property (``phase``, ``compiled``...): a model's plain value of any type is kept
    in the instance dictionary instead of going through MindSpore's type-checked setter."""

    def __get__(self, obj, objtype=None):
        if obj is not None and self.name in obj.__dict__:
            return obj.__dict__[self.name]
        return super().__get__(obj, objtype)

    def __set__(self, obj, value):
        obj.__dict__[self.name] = value

    def __delete__(self, obj):
        if self.name not in obj.__dict__:
            raise AttributeError(self.name)
        del obj.__dict__[self.name]


# torch.nn.Module's public names (torch 2.13; compat_tests/test_module_names.py checks the list)
TORCH_MODULE_NAMES = frozenset((
    "T_destination", "add_module", "apply", "bfloat16", "buffers", "call_super_init", "children", "compile",
    "cpu", "cuda", "double", "dump_patches", "eval", "extra_repr", "float", "forward", "get_buffer",
    "get_extra_state", "get_parameter", "get_submodule", "half", "ipu", "load_state_dict", "modules", "mtia",
    "named_buffers", "named_children", "named_modules", "named_parameters", "parameters",
    "register_backward_hook", "register_buffer", "register_forward_hook", "register_forward_pre_hook",
    "register_full_backward_hook", "register_full_backward_pre_hook", "register_load_state_dict_post_hook",
    "register_load_state_dict_pre_hook", "register_module", "register_parameter",
    "register_state_dict_post_hook", "register_state_dict_pre_hook", "requires_grad_", "set_extra_state",
    "set_submodule", "share_memory", "state_dict", "to", "to_empty", "train", "type", "xpu", "zero_grad"))


def shadow_cell_only_names(module_cls):
    """Install the descriptors above on ``module_cls`` for every public method or property it has (from
    Cell, or our own Cell-side overrides such as ``construct``) that torch's Module does not; returns
    the set of those names (for the "attribute already exists" checks)."""
    names = set()
    for name in dir(module_cls):
        if name.startswith("_") or name in TORCH_MODULE_NAMES:
            continue
        attr = inspect.getattr_static(module_cls, name)
        if isinstance(attr, property):
            setattr(module_cls, name, _CellOnlyProperty(name, attr))
        elif inspect.isfunction(attr):
            setattr(module_cls, name, _CellOnlyName(name, attr))
        else:
            continue
        names.add(name)
    return frozenset(names)


def attribute_exists(module, name, cell_only_names):
    """torch's ``hasattr(self, name)`` test of register_buffer/register_parameter/add_module, blind to
    the Cell-only names a model has not used itself."""
    if name in cell_only_names:
        return name in module.__dict__
    return hasattr(module, name)
