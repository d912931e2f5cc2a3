"""torch.linalg on MindSpore. The functions come from the op table (``mstorch/ops/linalg.py`` and
``linalg_decomp.py``, entries keyed ``linalg.<name>``); names torch has and mstorch lacks raise an
AttributeError that says so."""
from . import _namespace
from .ops._registry import unsupported
from .ops.linalg_decomp import LinAlgError  # noqa: F401

globals().update(_namespace.functions("linalg"))

_NO_KERNEL = "MindSpore 2.10 has no CPU kernel for it"
_MISSING = {   # torch.linalg names mstorch lacks, and why
    "ldl_factor": _NO_KERNEL,
    "ldl_factor_ex": _NO_KERNEL,
    "ldl_solve": _NO_KERNEL,
}

for _name, _reason in _MISSING.items():
    unsupported(f"linalg.{_name}", _reason)
__getattr__ = _namespace.missing_getattr(__name__)
