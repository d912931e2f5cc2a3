"""torch.distributed._composable.fsdp: torch's older path to FSDP2's names (``torch.distributed.fsdp``)."""
from ...fsdp import (CPUOffloadPolicy, FSDPModule, MixedPrecisionPolicy, OffloadPolicy,  # noqa: F401
                     fully_shard, register_fsdp_forward_method)
