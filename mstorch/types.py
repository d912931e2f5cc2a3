"""torch.types: the aliases torch annotates with (``_size``, ``_dtype``, ``_device``, ``Number``...)."""
import os
from typing import IO, Any, Sequence, Union  # noqa: F401

from ._device import device as _device
from ._dtype import dtype as _dtype  # noqa: F401  (torch.types._dtype)
from ._size import Size
from ._tensor import Tensor  # noqa: F401

Device = Union[_device, str, int, None]
_size = Union[Size, list, tuple]
_symsize = _size
Number = Union[int, float, bool]
_Number = (int, float, bool)
_int, _float, _bool, _complex, _str, _bytes = int, float, bool, complex, str, bytes
_TensorOrTensors = Union[Tensor, Sequence[Tensor]]
FileLike = Union[str, os.PathLike, IO[bytes]]
IntLikeType = int
FloatLikeType = float
BoolLikeType = bool
