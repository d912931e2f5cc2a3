"""torch.distributed.checkpoint.default_planner: the planner types (constructing raises)."""
from . import DefaultLoadPlanner, DefaultSavePlanner  # noqa: F401
