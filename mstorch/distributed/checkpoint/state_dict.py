"""torch.distributed.checkpoint.state_dict: ``StateDictOptions`` is torch's; the getters and setters, which
gather or scatter sharded (DTensor/FSDP) state, raise."""
import contextlib
from dataclasses import dataclass, field

from ...ops._registry import unsupported
from . import REASON, refuse

__all__ = ["StateDictOptions", "get_model_state_dict", "get_optimizer_state_dict", "get_state_dict",
           "set_model_state_dict", "set_optimizer_state_dict", "set_state_dict"]


@dataclass
class StateDictOptions:
    """Mirrors torch.distributed.checkpoint.state_dict.StateDictOptions."""
    full_state_dict: bool = False
    cpu_offload: bool = False
    ignore_frozen_params: bool = False
    keep_submodule_prefixes: bool = True
    strict: bool = True
    broadcast_from_rank0: bool = False
    flatten_optimizer_state_dict: bool = False
    dsd_fqn_modifiers: str = "_fqn_modifiers"


def get_model_state_dict(model, *, submodules=None, options=None):
    raise refuse("distributed.checkpoint.state_dict.get_model_state_dict")


def get_optimizer_state_dict(model, optimizers, *, submodules=None, options=None):
    raise refuse("distributed.checkpoint.state_dict.get_optimizer_state_dict")


def get_state_dict(model, optimizers, *, submodules=None, options=None):
    raise refuse("distributed.checkpoint.state_dict.get_state_dict")


def set_model_state_dict(model, model_state_dict, *, options=None):
    raise refuse("distributed.checkpoint.state_dict.set_model_state_dict")


def set_optimizer_state_dict(model, optimizers, optim_state_dict, *, options=None):
    raise refuse("distributed.checkpoint.state_dict.set_optimizer_state_dict")


def set_state_dict(model, optimizers, *, model_state_dict, optim_state_dict, options=None):
    raise refuse("distributed.checkpoint.state_dict.set_state_dict")


for _name in __all__[1:]:
    unsupported(f"distributed.checkpoint.state_dict.{_name}", REASON)
_ = (contextlib, field)
