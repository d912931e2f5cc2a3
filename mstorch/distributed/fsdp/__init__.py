"""torch.distributed.fsdp: the wrapper type libraries unwrap (``isinstance(model, FullyShardedDataParallel)``
in accelerate). Sharding parameters across ranks is not implemented: wrapping a module raises
(docs/known-differences.md)."""
from .api import ShardingStrategy, StateDictType  # noqa: F401
from .fully_sharded_data_parallel import FullyShardedDataParallel  # noqa: F401

__all__ = ["FullyShardedDataParallel", "ShardingStrategy", "StateDictType"]
