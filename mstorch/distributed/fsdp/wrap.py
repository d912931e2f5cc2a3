"""torch.distributed.fsdp.wrap: the auto-wrap policies and the ``enable_wrap``/``wrap`` annotations.

Policies are plain callables ``policy(module, recurse, nonwrapped_numel) -> bool`` (or ``_Policy`` objects) that
decide which submodules become their own wrapper unit; accelerate and peft build them (``functools.partial(
transformer_auto_wrap_policy, transformer_layer_cls=...)``) before handing them to FSDP. They work for any
``wrapper_cls``; wrapping with ``FullyShardedDataParallel`` itself raises where it is constructed (mstorch has no
FSDP: see the package docstring)."""
import contextlib
import copy
from abc import ABC, abstractmethod

from ... import nn

__all__ = ["always_wrap_policy", "lambda_auto_wrap_policy", "transformer_auto_wrap_policy",
           "size_based_auto_wrap_policy", "enable_wrap", "wrap", "CustomPolicy", "ModuleWrapPolicy"]


def always_wrap_policy(*args, **kwargs):
    """Every submodule becomes a unit."""
    return True


class _Policy(ABC):
    """A policy that maps the modules of a root to the kwargs of the wrapper applied to each."""

    @abstractmethod
    def _run_policy(self, root_module, ignored_modules, root_kwargs):
        ...


def _module_wrap_policy(module, recurse, nonwrapped_numel, module_classes):
    """Keep descending; wrap the instances of ``module_classes``."""
    return True if recurse else isinstance(module, tuple(module_classes))


class ModuleWrapPolicy(_Policy):
    """Wraps every module of the given classes with the root's kwargs."""

    def __init__(self, module_classes):
        self._module_classes = set(module_classes)
        self._module_classes_str = str(self._module_classes)

    def _run_policy(self, root_module, ignored_modules, root_kwargs):
        classes = tuple(self._module_classes)
        return {m: copy.copy(root_kwargs) for m in root_module.modules()
                if m not in ignored_modules and isinstance(m, classes)}

    def __call__(self, module, recurse, *args, **kwargs):
        return _module_wrap_policy(module, recurse, nonwrapped_numel=-1, module_classes=self._module_classes)

    def __repr__(self):
        return super().__repr__() + f"({self._module_classes_str})"


class CustomPolicy(_Policy):
    """``lambda_fn(module)`` says False (not wrapped), True (the root's kwargs) or a dict of kwarg overrides."""

    def __init__(self, lambda_fn):
        self._lambda_fn = lambda_fn

    def _run_policy(self, root_module, ignored_modules, root_kwargs):
        targets = {}
        for module in root_module.modules():
            if module in ignored_modules:
                continue
            res = self._lambda_fn(module)
            if not isinstance(res, (dict, bool)):
                raise ValueError("The lambda_fn passed to CustomPolicy should return False/True or a kwarg dict, "
                                 f"but it returned {res}")
            if res:
                kwargs = copy.copy(root_kwargs)
                if isinstance(res, dict):
                    kwargs.update(res)
                targets[module] = kwargs
        return targets


def lambda_auto_wrap_policy(module, recurse, nonwrapped_numel, lambda_fn):
    """Wrap the modules ``lambda_fn`` accepts."""
    return True if recurse else lambda_fn(module)


def transformer_auto_wrap_policy(module, recurse, nonwrapped_numel, transformer_layer_cls):
    """Wrap the instances of ``transformer_layer_cls`` (the decoder/encoder layer classes)."""
    return _module_wrap_policy(module, recurse, nonwrapped_numel, transformer_layer_cls)


def _wrap_module_cls_individually(module, module_classes, recurse, *args, **kwargs):
    return True if recurse else isinstance(module, tuple(module_classes))


def _or_policy(module, recurse, nonwrapped_numel, policies):
    """Wrap where any of ``policies`` would."""
    return any(policy(module=module, recurse=recurse, nonwrapped_numel=nonwrapped_numel) for policy in policies)


def size_based_auto_wrap_policy(module, recurse, nonwrapped_numel, min_num_params=int(1e8), force_leaf_modules=None,
                                exclude_wrap_modules=None):
    """Wrap a module once the parameters not yet wrapped below it reach ``min_num_params``; never descend into
    ``force_leaf_modules`` (MultiheadAttention) nor wrap ``exclude_wrap_modules`` (the containers)."""
    if force_leaf_modules is None:
        force_leaf_modules = size_based_auto_wrap_policy.FORCE_LEAF_MODULES
    if exclude_wrap_modules is None:
        exclude_wrap_modules = size_based_auto_wrap_policy.EXCLUDE_WRAP_MODULES
    is_large = nonwrapped_numel >= min_num_params
    return is_large and not isinstance(module, tuple(force_leaf_modules if recurse else exclude_wrap_modules))


size_based_auto_wrap_policy.EXCLUDE_WRAP_MODULES = {nn.ModuleList, nn.ModuleDict}
size_based_auto_wrap_policy.FORCE_LEAF_MODULES = {nn.MultiheadAttention}


class _ConfigAutoWrap:
    """The process-wide ``enable_wrap`` context (torch's: one at a time, not nested)."""

    in_autowrap_context = False
    wrapper_cls = None
    kwargs = {}

    def __init__(self, **kwargs):
        self.kwargs = kwargs

    @staticmethod
    def enable_autowrap_context(kwargs):
        if _ConfigAutoWrap.in_autowrap_context:
            raise NotImplementedError("You are already within an autowrap context and we currently do not supported "
                                      "nested autowrap.")
        _ConfigAutoWrap.in_autowrap_context = True
        if "wrapper_cls" not in kwargs:
            raise AssertionError("Expected to pass in wrapper_cls arg into _ConfigAutoWrap.")
        _ConfigAutoWrap.wrapper_cls = kwargs.pop("wrapper_cls")
        _ConfigAutoWrap.kwargs = kwargs

    @staticmethod
    def disable_autowrap_context():
        _ConfigAutoWrap.in_autowrap_context = False
        _ConfigAutoWrap.wrapper_cls = None
        _ConfigAutoWrap.kwargs = {}

    def __enter__(self):
        self.enable_autowrap_context(self.kwargs)

    def __exit__(self, *exc):
        self.disable_autowrap_context()


@contextlib.contextmanager
def enable_wrap(*, wrapper_cls, **wrapper_kwargs):
    """Within it, ``wrap(module)`` wraps with ``wrapper_cls(module, **wrapper_kwargs)``."""
    with _ConfigAutoWrap(wrapper_cls=wrapper_cls, **wrapper_kwargs):
        yield


def wrap(module, **wrap_overrides):
    """``module`` wrapped by the ``enable_wrap`` context's wrapper (its kwargs overridden by these); outside a
    context, ``module`` itself."""
    if _ConfigAutoWrap.in_autowrap_context:
        if _ConfigAutoWrap.wrapper_cls is None:
            raise AssertionError("Expected _ConfigAutoWrap.wrapper_cls to be set")
        return _wrap(module, _ConfigAutoWrap.wrapper_cls, **{**_ConfigAutoWrap.kwargs, **wrap_overrides})
    return module


def _wrap(module, wrapper_cls, **kwargs):
    if wrapper_cls is None:
        raise AssertionError("Expected wrapper_cls to be set")
    overrides = getattr(module, "_wrap_overrides", None)
    return wrapper_cls(module, **({**kwargs, **overrides} if overrides is not None else kwargs))


def _recursive_wrap(module, auto_wrap_policy, wrapper_cls, ignored_modules, ignored_params, only_wrap_children=False,
                    **kwargs):
    """Wrap, bottom up, the submodules ``auto_wrap_policy`` selects; returns (module, numel wrapped)."""
    if auto_wrap_policy is None:
        raise AssertionError("Must specify auto_wrap_policy.")
    if wrapper_cls is None:
        raise AssertionError("Must specify wrapper_cls")
    for _, child in module.named_modules():
        if child in ignored_modules:
            continue
        try:
            if isinstance(child, wrapper_cls):
                raise AssertionError(f"Child module {child} is already wrapped by {wrapper_cls}")
        except TypeError:   # wrapper_cls a function, not a class
            pass
    nonwrapped_numel = sum(p.numel() for p in module.parameters() if p not in ignored_params)
    if not auto_wrap_policy(module=module, recurse=True, nonwrapped_numel=nonwrapped_numel):
        return module, 0
    total = 0
    for name, child in module.named_children():
        if child in ignored_modules:
            continue
        wrapped, numel = _recursive_wrap(module=child, auto_wrap_policy=auto_wrap_policy, wrapper_cls=wrapper_cls,
                                         ignored_modules=ignored_modules, ignored_params=ignored_params, **kwargs)
        setattr(module, name, wrapped)
        total += numel
    if not only_wrap_children and auto_wrap_policy(module=module, recurse=False,
                                                   nonwrapped_numel=nonwrapped_numel - total):
        return _wrap(module, wrapper_cls, **kwargs), nonwrapped_numel
    return module, total
