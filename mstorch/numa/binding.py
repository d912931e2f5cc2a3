"""Mirrors torch.numa.binding's option types. torch binds each worker to the NUMA node of the GPU whose index is
its local rank; mstorch's launcher (``torch.distributed.launcher.api``) runs CPU workers and refuses options it
would have to apply (see ``elastic_launch``)."""
from dataclasses import dataclass
from enum import Enum

__all__ = ["AffinityMode", "NumaOptions"]


class AffinityMode(str, Enum):
    NODE = "node"
    SOCKET = "socket"
    EXCLUSIVE = "exclusive"
    CORE_COMPLEX = "core-complex"


@dataclass(frozen=True)
class NumaOptions:
    affinity_mode: AffinityMode
    should_fall_back_if_binding_fails: bool = False
