"""torch.testing: ``assert_close`` (torch's comparison rules, tolerances and messages) and ``make_tensor``."""
from ._comparison import assert_allclose, assert_close
from ._creation import make_tensor

__all__ = ["assert_allclose", "assert_close", "make_tensor"]
