"""torch.jit.annotations: the TorchScript type names that Python code annotates with (torchvision's
``BroadcastingList2[int]``). Subscripting them gives None, as torch's do: to Python they are plain annotations.
The typing names are re-exported as torch's module does (timm imports ``List`` from here)."""
from typing import Any, Callable, Dict, List, Optional, Tuple, Union  # noqa: F401


class _BroadcastingListCls:
    """TorchScript's "an int or a list of ints" annotation; to Python an annotation without a type."""

    def __getitem__(self, types):
        return None


BroadcastingList1 = _BroadcastingListCls()
BroadcastingList2 = _BroadcastingListCls()
BroadcastingList3 = _BroadcastingListCls()
