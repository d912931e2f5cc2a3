"""torch.utils: the parts mstorch provides."""
from . import data  # noqa: F401
