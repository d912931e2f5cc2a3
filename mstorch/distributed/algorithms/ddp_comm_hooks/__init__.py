"""Mirrors ``torch.distributed.algorithms.ddp_comm_hooks``: the default hooks (``default``) and the
``DDPCommHookType`` registry of them. PowerSGD, quantization and optimizer-overlap hooks are not provided."""
from enum import Enum, member
from functools import partial

from . import default_hooks as default

__all__ = ["DDPCommHookType", "register_ddp_comm_hook"]


def _ddp_comm_hook_wrapper(comm_hook, model, state):
    model.register_comm_hook(state, comm_hook)


class DDPCommHookType(Enum):
    """Mirrors ``DDPCommHookType``: ``DDPCommHookType.ALLREDUCE.value(model=ddp, state=group)`` registers it."""

    ALLREDUCE = member(partial(_ddp_comm_hook_wrapper, comm_hook=default.allreduce_hook))
    FP16_COMPRESS = member(partial(_ddp_comm_hook_wrapper, comm_hook=default.fp16_compress_hook))
    BF16_COMPRESS = member(partial(_ddp_comm_hook_wrapper, comm_hook=default.bf16_compress_hook))


def register_ddp_comm_hook(comm_hook_type, model, state=None):
    """Mirrors ``register_ddp_comm_hook``."""
    comm_hook_type.value(model=model, state=state)
