"""torch._custom_ops: the older custom-operator entry points, kept by torch for libraries that still import
them (torchvision's meta registrations use ``get_ctx``)."""
from .library import get_ctx, impl_abstract  # noqa: F401
