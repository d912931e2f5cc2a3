"""torch.distributed.fsdp.api: the configuration enums (accelerate's FSDP plugin and scripts name them)."""
import enum

__all__ = ["ShardingStrategy", "StateDictType"]


class ShardingStrategy(enum.Enum):
    """Mirrors torch.distributed.fsdp.ShardingStrategy."""
    FULL_SHARD = enum.auto()
    SHARD_GRAD_OP = enum.auto()
    NO_SHARD = enum.auto()
    HYBRID_SHARD = enum.auto()
    _HYBRID_SHARD_ZERO2 = enum.auto()


class StateDictType(enum.Enum):
    """Mirrors torch.distributed.fsdp.StateDictType."""
    FULL_STATE_DICT = enum.auto()
    LOCAL_STATE_DICT = enum.auto()
    SHARDED_STATE_DICT = enum.auto()
