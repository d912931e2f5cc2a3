"""torch.signal."""
from . import windows  # noqa: F401

__all__ = ["windows"]
