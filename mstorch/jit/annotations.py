"""torch.jit.annotations: the TorchScript type names that Python code annotates with (torchvision's
``BroadcastingList2[int]``). Subscripting them gives None, as torch's do: to Python they are plain annotations.
The typing names are re-exported as torch's module does (timm imports ``List`` from here)."""
from typing import Any, Callable, Dict, List, Optional, Tuple, Union  # noqa: F401

from ..nn.functional import BroadcastingList1, BroadcastingList2, BroadcastingList3  # noqa: E402,F401
