"""torch.export.decomp_utils: ``CustomDecompTable`` as a type (see mstorch/export/__init__.py)."""
from . import CustomDecompTable  # noqa: F401
