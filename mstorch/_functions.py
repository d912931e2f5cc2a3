"""The public functions generated from the op table.

``mstorch.<name>`` re-exports these; package modules that call an op import it from here
(``from .._functions import exp``), which is where it is defined, instead of importing the ``mstorch``
package (whose ``__init__`` imports them: a cycle). ``METHODS``, ``FUNCTIONAL`` and ``NAMESPACED`` are the same
table's Tensor members, ``torch.nn.functional`` entries and ``torch.linalg``/``fft``/``special`` functions; ``mstorch/_install.py`` puts the methods on Tensor.
"""
from .ops import _families  # noqa: F401  (imports every op family file: fills the table)
from .ops import _bind

FUNCTIONS, METHODS, FUNCTIONAL, NAMESPACED = _bind.build()
globals().update(FUNCTIONS)
