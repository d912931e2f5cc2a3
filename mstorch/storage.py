"""torch.storage: ``Tensor.untyped_storage()``, the bytes a tensor and its views share. Libraries read its
address and size to find tensors that share memory before saving (accelerate's and safetensors'
``id_tensor_storage``), so views answer with their base's storage, as in torch. The bytes are MindSpore's
storage of the base tensor; this object reads them and does not resize or re-type them."""
import ctypes

__all__ = ["UntypedStorage"]


class UntypedStorage:
    """Mirrors torch.UntypedStorage for a tensor's storage: address, size, device, bytes."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError("mstorch: torch.UntypedStorage(...) cannot make a storage of its own; "
                           "read a tensor's with Tensor.untyped_storage()")

    @classmethod
    def _of(cls, root):
        """The storage of the mstorch Tensor ``root`` (a tensor that is no view)."""
        s = object.__new__(cls)
        s._ms_storage = root._ms.untyped_storage()
        s._device = root.device
        return s

    def data_ptr(self):
        return int(self._ms_storage.data_ptr())

    def nbytes(self):
        return int(self._ms_storage.nbytes())

    size = nbytes

    def __len__(self):
        return self.nbytes()

    def element_size(self):
        return 1

    @property
    def device(self):
        return self._device

    def get_device(self):
        return -1 if self._device.type == "cpu" else self._device.index

    @property
    def is_cuda(self):
        return self._device.type == "cuda"

    is_sparse = False
    is_sparse_csr = False

    def is_shared(self):
        return False

    def untyped(self):
        return self

    def tolist(self):
        n = self.nbytes()
        return list((ctypes.c_uint8 * n).from_address(self.data_ptr())) if n else []

    def __getitem__(self, index):
        if not isinstance(index, int):
            raise RuntimeError(f"mstorch: UntypedStorage indexing takes an int (got {type(index).__name__})")
        n = self.nbytes()
        if not -n <= index < n:
            raise IndexError(f"index {index} out of range for storage of size {n}")
        return ctypes.c_uint8.from_address(self.data_ptr() + index % n).value

    def __repr__(self):
        body = "".join(f" {b}\n" for b in self.tolist())
        return f"{body}[torch.storage.UntypedStorage(device={self._device}) of size {self.nbytes()}]"


class _FileStorage(UntypedStorage):
    """A storage over a file's bytes (``UntypedStorage.from_file``): a NumPy memory map, sliced without copying.
    ``torch.asarray`` of it gives a tensor over the same bytes (safetensors' ``safe_open`` reads weights so)."""

    @classmethod
    def _over(cls, array):
        from ._device import device
        s = object.__new__(cls)
        s._array = array
        s._device = device("cpu")
        return s

    def data_ptr(self):
        return int(self._array.ctypes.data) if self._array.size else 0

    def nbytes(self):
        return int(self._array.size)

    size = nbytes

    def __getitem__(self, index):
        if isinstance(index, slice):
            return _FileStorage._over(self._array[index])
        return int(self._array[index])

    def tolist(self):
        return self._array.tolist()


def _from_file(cls, filename, shared=False, nbytes=0):
    """Mirrors torch.UntypedStorage.from_file: the first ``nbytes`` bytes of ``filename``, mapped into memory;
    with ``shared=False`` writes stay private to the process (a copy-on-write map), as in torch."""
    import os
    import numpy as np
    size = os.path.getsize(filename)
    if nbytes > size:
        raise RuntimeError(f"unexpected EOF, expected {nbytes - size} more bytes. The file might be corrupted.")
    if nbytes == 0:
        return _FileStorage._over(np.zeros(0, np.uint8))
    return _FileStorage._over(np.memmap(filename, dtype=np.uint8, mode="r+" if shared else "c", shape=(nbytes,)))


UntypedStorage.from_file = classmethod(_from_file)


def storage_bytes(obj):
    """The bytes of a storage made by ``from_file``, as a uint8 NumPy array (``torch.asarray`` reads them)."""
    return obj._array if isinstance(obj, _FileStorage) else None
