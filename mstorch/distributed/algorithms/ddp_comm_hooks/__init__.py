"""Mirrors ``torch.distributed.algorithms.ddp_comm_hooks``: the default hooks (``default``) and the
``DDPCommHookType`` registry of them, and PowerSGD (``powerSGD_hook``). Quantization and optimizer-overlap
hooks are not provided."""
from enum import Enum, member
from functools import partial

from . import default_hooks as default
from . import powerSGD_hook as powerSGD

__all__ = ["DDPCommHookType", "register_ddp_comm_hook"]


def _ddp_comm_hook_wrapper(comm_hook, model, state):
    model.register_comm_hook(state, comm_hook)


def _powerSGD_comm_hook_wrapper(comm_hook, model, state, matrix_approximation_rank, start_powerSGD_iter=1_000):
    """As the other wrappers, ``state`` is the process group; the PowerSGD state is made around it."""
    model.register_comm_hook(powerSGD.PowerSGDState(process_group=state,
                                                    matrix_approximation_rank=matrix_approximation_rank,
                                                    start_powerSGD_iter=start_powerSGD_iter), comm_hook)


class DDPCommHookType(Enum):
    """Mirrors ``DDPCommHookType``: ``DDPCommHookType.ALLREDUCE.value(model=ddp, state=group)`` registers it."""

    ALLREDUCE = member(partial(_ddp_comm_hook_wrapper, comm_hook=default.allreduce_hook))
    FP16_COMPRESS = member(partial(_ddp_comm_hook_wrapper, comm_hook=default.fp16_compress_hook))
    BF16_COMPRESS = member(partial(_ddp_comm_hook_wrapper, comm_hook=default.bf16_compress_hook))
    POWER_SGD = member(partial(_powerSGD_comm_hook_wrapper, comm_hook=powerSGD.powerSGD_hook,
                               matrix_approximation_rank=1))
    POWER_SGD_RANK2 = member(partial(_powerSGD_comm_hook_wrapper, comm_hook=powerSGD.powerSGD_hook,
                                     matrix_approximation_rank=2))
    BATCHED_POWER_SGD = member(partial(_powerSGD_comm_hook_wrapper, comm_hook=powerSGD.batched_powerSGD_hook,
                                       matrix_approximation_rank=1))
    BATCHED_POWER_SGD_RANK2 = member(partial(_powerSGD_comm_hook_wrapper, comm_hook=powerSGD.batched_powerSGD_hook,
                                             matrix_approximation_rank=2))


def register_ddp_comm_hook(comm_hook_type, model, state=None):
    """Mirrors ``register_ddp_comm_hook``."""
    comm_hook_type.value(model=model, state=state)
