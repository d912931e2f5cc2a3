"""torch.cpu.amp (deprecated in torch; each name warns as torch's does)."""
from ..amp._deprecated import cpu_autocast as autocast, cpu_GradScaler as GradScaler  # noqa: F401

__all__ = ["autocast", "GradScaler"]
