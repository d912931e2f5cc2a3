"""torch.special on MindSpore. The functions come from the op table (``mstorch/ops/special.py``, entries
keyed ``special.<name>``); names torch has and mstorch lacks raise an AttributeError that says so."""
from . import _namespace
from .ops._registry import unsupported

globals().update(_namespace.functions("special"))

_POLY = "not implemented in mstorch (no MindSpore kernel; torch's orthogonal-polynomial family)"
_MISSING = {name: _POLY for name in (
    "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
    "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
    "legendre_polynomial_p")}
_MISSING["airy_ai"] = "not implemented in mstorch (MindSpore 2.10 has no Airy function kernel)"

for _name, _reason in _MISSING.items():
    unsupported(f"special.{_name}", _reason)
__getattr__ = _namespace.missing_getattr(__name__)
