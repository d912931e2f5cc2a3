"""torch.cuda.amp (deprecated in torch; each name warns as torch's does)."""
from ._deprecated import (cuda_autocast as autocast, cuda_GradScaler as GradScaler,  # noqa: F401
                          cuda_custom_fwd as custom_fwd, cuda_custom_bwd as custom_bwd, amp_definitely_not_available)
from .grad_scaler import OptState  # noqa: F401

__all__ = ["amp_definitely_not_available", "autocast", "custom_bwd", "custom_fwd", "GradScaler"]
