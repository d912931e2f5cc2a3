"""torch._tensor_str: the print options as torch's module holds them (``printoptions``, ``get_printoptions``,
``PRINT_OPTS``); sentence-transformers formats its model cards under ``torch._tensor_str.printoptions``. The
formatting itself is mstorch/_printing.py."""
from . import _printing
from ._printing import get_printoptions, printoptions, set_printoptions  # noqa: F401

__all__ = ["get_printoptions", "printoptions", "set_printoptions", "PRINT_OPTS"]


class _PrinterOptions:
    """torch._tensor_str.PRINT_OPTS: the current options as attributes (read and written through)."""

    def __getattr__(self, name):
        try:
            return _printing._opts[name]
        except KeyError:
            raise AttributeError(f"'__PrinterOptions' object has no attribute '{name}'") from None

    def __setattr__(self, name, value):
        _printing._opts[name] = value


PRINT_OPTS = _PrinterOptions()
