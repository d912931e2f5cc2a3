"""torch.fft on MindSpore. The functions come from the op table (``mstorch/ops/fft.py``, entries keyed
``fft.<name>``)."""
from . import _namespace

globals().update(_namespace.functions("fft"))

__getattr__ = _namespace.missing_getattr(__name__)
