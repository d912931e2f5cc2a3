"""torch.utils._sympy.numbers: refused by name (see the package docstring)."""
from ..._namespace import missing_getattr
from . import REASON  # noqa: F401  (registers the refused names)

__getattr__ = missing_getattr(__name__)
