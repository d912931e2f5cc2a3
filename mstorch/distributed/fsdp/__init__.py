"""torch.distributed.fsdp on mstorch: the configuration types are real, sharding a model raises.

FSDP (both ``FullyShardedDataParallel`` and ``fully_shard``) keeps each parameter as a shard per rank and
all-gathers it around every forward and backward through hooks on torch's autograd and stream machinery;
FSDP2 stores the shards as DTensors, which mstorch does not have. The enums and the policy/config dataclasses
that libraries build and pass around (``MixedPrecisionPolicy``, ``CPUOffloadPolicy``, ``ShardingStrategy``,
``StateDictType``, ``FullStateDictConfig``...) are torch's, so code that configures FSDP imports and runs;
``fully_shard`` and constructing ``FullyShardedDataParallel`` raise ``NotImplementedError`` naming the API."""
from dataclasses import dataclass
from enum import Enum, auto

from ...ops._registry import unsupported
from .fully_sharded_data_parallel import FullyShardedDataParallel  # noqa: F401

__all__ = ["BackwardPrefetch", "CPUOffload", "FullOptimStateDictConfig", "FullStateDictConfig",
           "FullyShardedDataParallel", "LocalOptimStateDictConfig", "LocalStateDictConfig", "MixedPrecision",
           "OptimStateDictConfig", "OptimStateKeyType", "ShardedOptimStateDictConfig", "ShardedStateDictConfig",
           "ShardingStrategy", "StateDictConfig", "StateDictSettings", "StateDictType", "CPUOffloadPolicy",
           "DataParallelMeshDims", "FSDPModule", "fully_shard", "MixedPrecisionPolicy", "OffloadPolicy",
           "register_fsdp_forward_method", "UnshardHandle", "share_comm_ctx"]

REASON = ("mstorch has no FSDP: sharded parameters need DTensor and torch's all-gather/reduce-scatter hooks "
          "around autograd, which mstorch does not have")


def refuse(api):
    return NotImplementedError(f"torch.{api} is not supported by mstorch: {REASON}")


# --- FSDP1 configuration ---------------------------------------------------------------------------------

class ShardingStrategy(Enum):
    FULL_SHARD = auto()
    SHARD_GRAD_OP = auto()
    NO_SHARD = auto()
    HYBRID_SHARD = auto()
    _HYBRID_SHARD_ZERO2 = auto()


class BackwardPrefetch(Enum):
    BACKWARD_PRE = auto()
    BACKWARD_POST = auto()


class StateDictType(Enum):
    FULL_STATE_DICT = auto()
    LOCAL_STATE_DICT = auto()
    SHARDED_STATE_DICT = auto()


class OptimStateKeyType(Enum):
    PARAM_NAME = auto()
    PARAM_ID = auto()


@dataclass
class MixedPrecision:
    param_dtype: object = None
    reduce_dtype: object = None
    buffer_dtype: object = None
    keep_low_precision_grads: bool = False
    cast_forward_inputs: bool = False
    cast_root_forward_inputs: bool = True
    _module_classes_to_ignore: tuple = ()


@dataclass
class CPUOffload:
    offload_params: bool = False


@dataclass
class StateDictConfig:
    offload_to_cpu: bool = False


@dataclass
class FullStateDictConfig(StateDictConfig):
    rank0_only: bool = False


@dataclass
class LocalStateDictConfig(StateDictConfig):
    pass


@dataclass
class ShardedStateDictConfig(StateDictConfig):
    _use_dtensor: bool = False


@dataclass
class OptimStateDictConfig:
    offload_to_cpu: bool = True


@dataclass
class FullOptimStateDictConfig(OptimStateDictConfig):
    rank0_only: bool = False


@dataclass
class LocalOptimStateDictConfig(OptimStateDictConfig):
    offload_to_cpu: bool = False


@dataclass
class ShardedOptimStateDictConfig(OptimStateDictConfig):
    _use_dtensor: bool = False


@dataclass
class StateDictSettings:
    state_dict_type: StateDictType
    state_dict_config: StateDictConfig
    optim_state_dict_config: OptimStateDictConfig


# --- FSDP2 (fully_shard) -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class MixedPrecisionPolicy:
    param_dtype: object = None
    reduce_dtype: object = None
    output_dtype: object = None
    cast_forward_inputs: bool = True


@dataclass
class OffloadPolicy:
    pass


@dataclass
class CPUOffloadPolicy(OffloadPolicy):
    pin_memory: bool = True


@dataclass
class DataParallelMeshDims:
    shard: object = None
    replicate: object = None


class FSDPModule:
    """Mirrors torch.distributed.fsdp.FSDPModule: the class ``fully_shard`` mixes into a sharded module's
    type. No mstorch module is ever one (``fully_shard`` raises), so ``isinstance`` checks answer False."""


class UnshardHandle:
    def wait(self):
        return None


def fully_shard(module, *, mesh=None, reshard_after_forward=None, shard_placement_fn=None, mp_policy=None,
                offload_policy=None, ignored_params=None, dp_mesh_dims=None):
    raise refuse("distributed.fsdp.fully_shard")


def register_fsdp_forward_method(module, method_name):
    raise refuse("distributed.fsdp.register_fsdp_forward_method")


def share_comm_ctx(modules):
    raise refuse("distributed.fsdp.share_comm_ctx")


for _name in ("fully_shard", "register_fsdp_forward_method", "share_comm_ctx"):
    unsupported(f"distributed.fsdp.{_name}", REASON)
for _cls in (MixedPrecisionPolicy, OffloadPolicy, CPUOffloadPolicy, DataParallelMeshDims, FSDPModule, UnshardHandle,
             fully_shard, register_fsdp_forward_method, share_comm_ctx):
    _cls.__module__ = __name__
from . import wrap  # noqa: E402,F401  (torch's package imports it too)
