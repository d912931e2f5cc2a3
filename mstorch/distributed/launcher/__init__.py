"""torch.distributed.launcher: torchrun's launch API for Python callers."""
from .api import LaunchConfig, elastic_launch, launch_agent  # noqa: F401
