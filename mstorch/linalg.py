"""torch.linalg on MindSpore. The functions come from the op table (``mstorch/ops/linalg.py`` and
``linalg_decomp.py``, ``linalg_lu.py``, entries keyed ``linalg.<name>``); names torch has and mstorch lacks raise an
AttributeError that says so."""
from . import _namespace
from .ops.linalg_decomp import LinAlgError  # noqa: F401

globals().update(_namespace.functions("linalg"))

__getattr__ = _namespace.missing_getattr(__name__)
