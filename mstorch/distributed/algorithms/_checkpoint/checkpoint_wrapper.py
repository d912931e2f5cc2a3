"""Mirrors torch.distributed.algorithms._checkpoint.checkpoint_wrapper: wrappers that run a module under
``torch.utils.checkpoint`` (recompute in backward) or ``save_on_cpu`` (activations kept on the host), used by
accelerate and FSDP setups through ``apply_activation_checkpointing``.

The wrapped module sits under ``_checkpoint_wrapped_module``; as in torch, ``named_parameters`` and the state dict
hide that prefix, so a wrapped model saves and loads the same keys as the unwrapped one."""
from enum import Enum, auto
from functools import partial

from .... import nn
from ....autograd.graph import save_on_cpu
from ....utils.checkpoint import checkpoint as _checkpoint

__all__ = ["CheckpointImpl", "ActivationWrapper", "CheckpointWrapper", "OffloadWrapper", "checkpoint_wrapper",
           "offload_wrapper", "apply_activation_checkpointing"]

_CHECKPOINT_WRAPPED_MODULE = "_checkpoint_wrapped_module"
_CHECKPOINT_PREFIX = _CHECKPOINT_WRAPPED_MODULE + "."


class CheckpointImpl(Enum):
    REENTRANT = auto()
    NO_REENTRANT = auto()


def _replace_by_prefix(state_dict, old_prefix, new_prefix):
    """Renames, in place, the keys of ``state_dict`` that start with ``old_prefix``."""
    if old_prefix == new_prefix:
        raise ValueError("old_prefix and new_prefix must be distinct")
    for key in list(state_dict):
        if key.startswith(old_prefix):
            state_dict[new_prefix + key[len(old_prefix):]] = state_dict.pop(key)


class ActivationWrapper(nn.Module):
    """The shared base of the two wrappers (torch's is abstract: ``forward`` is the subclasses')."""

    def __init__(self, mod):
        super().__init__()
        self._checkpoint_wrapped_module = mod
        self._register_state_dict_hook(self._post_state_dict_hook)
        self.register_load_state_dict_pre_hook(self._pre_load_state_dict_hook)

    def forward(self, *args, **kwargs):
        raise ValueError("Subclasses should implement forward().")

    def __getattr__(self, name):
        # attributes the wrapper lacks are the wrapped module's (a wrapped model keeps its .config etc.)
        try:
            return super().__getattr__(name)
        except AttributeError:
            if name == _CHECKPOINT_WRAPPED_MODULE:     # asked for before it is set (while Cell initialises)
                raise
            return getattr(self._checkpoint_wrapped_module, name)

    def __getitem__(self, key):
        return self._checkpoint_wrapped_module.__getitem__(key)

    def named_parameters(self, *args, **kwargs):
        for name, param in super().named_parameters(*args, **kwargs):
            yield name.replace(_CHECKPOINT_PREFIX, ""), param

    @staticmethod
    def _post_state_dict_hook(module, state_dict, prefix, *args):
        _replace_by_prefix(state_dict, f"{prefix}{_CHECKPOINT_PREFIX}", prefix)
        return state_dict

    @staticmethod
    def _pre_load_state_dict_hook(module, state_dict, prefix, *args):
        _replace_by_prefix(state_dict, prefix, prefix + _CHECKPOINT_PREFIX)


class OffloadWrapper(ActivationWrapper):
    def forward(self, *args, **kwargs):
        with save_on_cpu(pin_memory=True):
            return self._checkpoint_wrapped_module(*args, **kwargs)


class CheckpointWrapper(ActivationWrapper):
    """A module run through ``torch.utils.checkpoint.checkpoint`` (or ``checkpoint_fn``) on every call."""

    def __init__(self, mod, checkpoint_impl=CheckpointImpl.NO_REENTRANT, checkpoint_fn=None, **checkpoint_fn_kwargs):
        super().__init__(mod)
        self.checkpoint_impl = checkpoint_impl
        if checkpoint_fn is None:
            self.checkpoint_fn = partial(_checkpoint, use_reentrant=checkpoint_impl == CheckpointImpl.REENTRANT,
                                         **checkpoint_fn_kwargs)
        else:
            self.checkpoint_fn = partial(checkpoint_fn, **checkpoint_fn_kwargs)

    def forward(self, *args, **kwargs):
        if self.checkpoint_impl == CheckpointImpl.REENTRANT and kwargs:
            # the reentrant checkpoint takes positional inputs only: keyword values travel after them
            keys = tuple(kwargs)
            flat = args + tuple(kwargs.values())

            def run(*inputs):
                split = len(inputs) - len(keys)
                return self._checkpoint_wrapped_module(*inputs[:split], **dict(zip(keys, inputs[split:])))
            return self.checkpoint_fn(run, *flat)
        return self.checkpoint_fn(self._checkpoint_wrapped_module, *args, **kwargs)


def offload_wrapper(module):
    return OffloadWrapper(module)


def checkpoint_wrapper(module, checkpoint_impl=CheckpointImpl.NO_REENTRANT, checkpoint_fn=None,
                       **checkpoint_fn_kwargs):
    return CheckpointWrapper(module, checkpoint_impl, checkpoint_fn, **checkpoint_fn_kwargs)


def _post_order_apply(root, fn):
    """Replaces each module below ``root`` (children first, shared modules once) by ``fn(module)`` when that is
    not None."""
    visited = {root}

    def visit(module, name, parent):
        for child_name, child in module.named_children():
            if child not in visited:
                visited.add(child)
                visit(child, child_name, module)
        replacement = fn(module)
        if replacement is not None:
            if not isinstance(replacement, nn.Module):
                raise AssertionError(f"fn should return None or an nn.Module but got {replacement}")
            setattr(parent, name, replacement)
    visit(root, "", None)


def apply_activation_checkpointing(model, checkpoint_wrapper_fn=checkpoint_wrapper, check_fn=lambda _: True,
                                   auto_wrap_policy=None):
    """Wraps, in place, the submodules of ``model`` that ``auto_wrap_policy`` (else ``check_fn``) selects; the
    root itself is never wrapped."""
    from ...fsdp.wrap import _Policy, _recursive_wrap, lambda_auto_wrap_policy
    policy = auto_wrap_policy if auto_wrap_policy is not None else partial(lambda_auto_wrap_policy, lambda_fn=check_fn)
    if not callable(policy):
        if not isinstance(policy, _Policy):
            raise ValueError(f"Expected {policy} to be callable or be a pre-defined wrap policy")
        targets = policy._run_policy(model, ignored_modules=set(), root_kwargs={})
        _post_order_apply(model, lambda m: checkpoint_wrapper_fn(m, **targets[m])
                          if m in targets and m is not model else None)
        return
    _recursive_wrap(module=model, auto_wrap_policy=policy, wrapper_cls=checkpoint_wrapper_fn, ignored_modules=set(),
                    ignored_params=set(), only_wrap_children=True)
