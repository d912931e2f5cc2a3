"""The public functions generated from the op table, for the device target this process runs on.

``mstorch.<name>`` re-exports these; package modules that call an op import it from here
(``from .._functions import exp``), which is where it is defined, instead of importing the ``mstorch``
package (whose ``__init__`` imports them: a cycle). ``METHODS`` and ``FUNCTIONAL`` are the same table's
Tensor members and ``torch.nn.functional`` entries; ``mstorch/_install.py`` puts the methods on Tensor.
"""
from . import _runtime
from .ops import _families  # noqa: F401  (imports every op family file: fills the table)
from .ops import _bind

FUNCTIONS, METHODS, FUNCTIONAL = _bind.build(_runtime.device_target())
globals().update(FUNCTIONS)
