"""torch.nn.functional: the op table's entries marked ``functional`` (see mstorch/ops/_registry.py)."""
from ...ops._bind import FUNCTIONAL as _FUNCTIONAL

globals().update(_FUNCTIONAL)
__all__ = sorted(_FUNCTIONAL)
