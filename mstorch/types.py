"""torch.types: the type aliases annotations use (``Number``, ``Device``, ``_size``...)."""
import os
from typing import IO, Any, Sequence, Union

from ._device import device as _device
from ._dtype import dtype as _dtype  # noqa: F401  (torch.types._dtype)
from ._size import Size
from ._tensor import Tensor

__all__ = ["Number", "Device", "FileLike", "Storage", "IntLikeType", "FloatLikeType", "BoolLikeType", "Size",
           "Tensor", "py_sym_types", "PySymType"]

_bool = bool
_int = int
_float = float
_complex = complex
_str = str
_bytes = bytes
_size = Union[Size, list, tuple]
_symsize = _size
_layout = Any
_qscheme = Any
_dispatchkey = Union[str, Any]
_TensorOrTensors = Union[Tensor, Sequence[Tensor]]
_TensorOrOptionalTensors = Union[Tensor, Sequence[Union[Tensor, None]]]

Number = Union[int, float, bool]
_Number = (int, float, bool)
Device = Union[_device, str, int, None]
FileLike = Union[str, os.PathLike, IO[bytes]]
IntLikeType = int
FloatLikeType = float
BoolLikeType = bool
# mstorch has no symbolic shapes: the Sym* types are the plain Python ones they stand for
py_sym_types = (int, float, bool)
PySymType = Union[int, float, bool]
Storage = Any

del os, Any, Sequence, Union, IO
