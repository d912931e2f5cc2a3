"""Mirrors torch.utils.dlpack: exchanging CPU tensors with other libraries (NumPy, torch, JAX, CuPy...) through the
DLPack protocol. MindSpore's own DLPack support (``mindspore.utils.dlpack``) shares the memory both ways, strides
and storage offsets included, as torch does (NumPy arrays come in through ``from_numpy``, which shares too). MindSpore has no DLPack code for bool and complex: such a tensor goes
through NumPy's DLPack instead, which shares on export and copies on import (NumPy marks imported arrays read-only)."""
import enum

import numpy as np
from mindspore.utils import dlpack as _ms_dlpack

__all__ = ["DLDeviceType", "from_dlpack", "to_dlpack"]


class DLDeviceType(enum.IntEnum):
    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


def _exportable(tensor):
    if tensor.requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    if tensor._dev is not None:
        raise BufferError(f"mstorch exports only CPU memory through DLPack; this tensor is on {tensor._dev}")


def to_dlpack(tensor):
    """torch.utils.dlpack.to_dlpack: a DLPack capsule over the tensor's memory (shared, not copied)."""
    _exportable(tensor)
    try:
        return _ms_dlpack.to_dlpack(tensor._ms)
    except RuntimeError as e:     # bool, complex: not in MindSpore's DLPack; NumPy's array shares this memory
        if "data type" not in str(e):
            raise
        return tensor.numpy().__dlpack__()


def dlpack(tensor, stream=None, max_version=None, dl_device=None, copy=None):
    """Tensor.__dlpack__: an unversioned capsule (every consumer reads one); ``copy=True`` exports a copy."""
    if dl_device is not None and int(dl_device[0]) != DLDeviceType.kDLCPU:
        raise BufferError(f"mstorch exports only CPU memory through DLPack; dl_device={dl_device} was asked")
    return to_dlpack(tensor.clone() if copy else tensor)


def dlpack_device(tensor):
    """Tensor.__dlpack_device__."""
    if tensor._dev is not None:
        return (DLDeviceType.kDLCUDA, tensor._dev.index or 0)
    return (DLDeviceType.kDLCPU, 0)


def from_dlpack(ext_tensor, *, device=None, copy=None):
    """torch.from_dlpack: a tensor over the memory of ``ext_tensor`` (an object with ``__dlpack__`` or a legacy
    capsule), shared unless ``copy=True``; only CPU memory can be imported."""
    from .._tensor import Tensor, wrap
    if isinstance(ext_tensor, Tensor):
        return ext_tensor.clone() if copy else ext_tensor
    if device is not None and str(device) != "cpu":
        raise BufferError(f"mstorch.from_dlpack imports into CPU memory only; device={device!r} was asked")
    if isinstance(ext_tensor, np.ndarray):
        # MindSpore's DLPack import crashes on NumPy's capsules; from_numpy shares the array's memory (torch's
        # from_dlpack shares it too; a read-only array is copied, see docs/known-differences.md)
        from ..ops.creation import from_numpy
        out = from_numpy(ext_tensor)
        return out.clone() if copy else out
    if hasattr(ext_tensor, "__dlpack__"):
        kind, _ = ext_tensor.__dlpack_device__()
        if int(kind) != DLDeviceType.kDLCPU:
            raise BufferError(f"mstorch.from_dlpack imports CPU memory only; the producer's memory is on device "
                              f"type {DLDeviceType(int(kind)).name if int(kind) in DLDeviceType._value2member_map_ else kind}")
        capsule = ext_tensor.__dlpack__()
    else:
        capsule = ext_tensor
    try:
        out = wrap(_ms_dlpack.from_dlpack(capsule))
    except (RuntimeError, TypeError, ValueError) as e:
        unsupported = "data type" in str(e)
        if unsupported and hasattr(ext_tensor, "__dlpack__"):
            # bool, complex: MindSpore rejects it before consuming the capsule; NumPy reads a second export (a copy: see above)
            from ..ops.creation import tensor
            return tensor(np.from_dlpack(ext_tensor))
        if unsupported:
            raise RuntimeError(f"mstorch.from_dlpack: MindSpore's DLPack cannot import this capsule's dtype "
                               f"({str(e).splitlines()[0]}); pass the producer object instead") from None
        raise RuntimeError("from_dlpack received an invalid capsule. Note that DLTensor capsules can be consumed "
                           "only once, so you might have already constructed a tensor from it once.") from None
    return out.clone() if copy else out


def _tensor_dlpack(self, *, stream=-1, max_version=None, dl_device=None, copy=None):
    """torch.Tensor.__dlpack__: a capsule sharing this CPU tensor's memory."""
    return dlpack(self, stream, max_version, dl_device, copy)


# installed on Tensor by mstorch/_install.py (the Tensor class sits below this module's imports)
TENSOR_MEMBERS = {"__dlpack__": _tensor_dlpack, "__dlpack_device__": dlpack_device}
