"""torch.export.exported_program: ``ExportedProgram`` as a type (see mstorch/export/__init__.py)."""
from . import ExportedProgram  # noqa: F401
