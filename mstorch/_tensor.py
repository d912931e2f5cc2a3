"""mstorch.Tensor: torch's Tensor API over one ``mindspore.Tensor``.

The wrapper holds the MindSpore tensor in ``_ms``; autograd state (requires_grad, grad, grad_fn) is
MindSpore's own, reached through ``_ms_private``. Most methods are generated from the op table
(``ops/_bind.py``); what is defined here is what has no op behind it: properties, conversions,
indexing, autograd entry points and the in-place write-back every ``*_`` method goes through.
"""
from __future__ import annotations

import ctypes
import warnings

import numpy as np
import mindspore as ms
from mindspore import ops as _ms_ops

from ._runtime import read_host, READS as _READS
from . import _dtype as D
from ._dtype import scalar_type_name  # noqa: F401  (re-exported for the op families)
from . import _ms_private as P
from . import _runtime
from . import _device
from ._device import device as _device_cls, check_available
_META = _device_cls("meta")
_CPU = _device_cls("cpu")
from ._size import from_shape as _size
from ._warnings import warn_once
from ._layout import strided
from ._cast import NP_BF16

_MsTensor = ms.Tensor
_FROM_MS_ID = D._FROM_MS_ID
_DIFFERENTIABLE = frozenset((ms.float16, ms.float32, ms.float64, ms.bfloat16, ms.complex64, ms.complex128))


# torch.inference_mode's switch (autograd/grad_mode.py sets it): tensors made while it is on answer
# is_inference() True; MindSpore has no inference tensors, so the wrapper carries the mark
inference_state = {"inference": False}


def wrap(t):
    """Wrap a mindspore.Tensor (never copies)."""
    w = _new(Tensor)
    w._ms = t
    if inference_state["inference"]:
        w._inference = True
    return w


_new = object.__new__


def beside(src, t):
    """wrap(t) on the device of Tensor ``src`` (for results computed from ``src`` outside the op table)."""
    w = wrap(t)
    d = src._dev
    if d is not None:
        w._dev = d
    elif src._meta:
        w._meta = True
    return w


class Tensor:
    __slots__ = ("_ms", "__dict__", "__weakref__")

    # torch.Tensor(data) / torch.Tensor(*sizes): the legacy constructor
    def __init__(self, *args, **kwargs):
        pass

    _view = None  # (base Tensor, writeback, derive) for views: see ops/_views.py

    # --- basic properties ------------------------------------------------------------------

    @property
    def dtype(self):
        return _FROM_MS_ID[id(self._ms.dtype)]

    @property
    def shape(self):
        return _size(self._ms.shape)

    def size(self, dim=None):
        shape = self._ms.shape
        if dim is None:
            return _size(shape)
        return shape[_wrap_size_dim(dim, len(shape))]

    @property
    def ndim(self):
        return self._ms.ndim

    def dim(self):
        return self._ms.ndim

    ndimension = dim

    def numel(self):
        return self._ms.size

    nelement = numel

    def element_size(self):
        return self.dtype.itemsize

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def nbytes(self):
        return self.dtype.itemsize * self._ms.size

    # A tensor made for the meta device (``device="meta"``, ``with torch.device("meta")``, ``.to("meta")``):
    # MindSpore has no data-less tensors, so it holds real (zero-filled) memory, and reports ``device`` meta, as
    # libraries that build models on meta before loading weights (transformers) test for. Results of other ops
    # on it are ordinary tensors (docs/known-differences.md).
    _meta = False

    # The device a tensor is placed on (mstorch/_device.py): None for the CPU, else a torch device
    # (``cuda:0``). Only set where the process has an accelerator (or simulated devices).
    _dev = None

    @property
    def device(self):
        d = self._dev
        if d is not None:
            return d
        return _META if self._meta else _CPU

    # torch's per-device flags: whether the tensor lives on that device type
    is_cpu = property(lambda self: self._dev is None and not self._meta, doc="Mirrors torch.Tensor.is_cpu.")
    is_cuda = property(lambda self: self._dev is not None and self._dev.type == "cuda",
                       doc="Mirrors torch.Tensor.is_cuda.")
    # devices MindSpore has no target for
    is_xpu = is_mps = is_ipu = is_xla = is_maia = is_mtia = is_vulkan = property(
        lambda self: False, doc="Mirrors torch.Tensor.is_xpu (and is_mps, is_ipu...): False, no such device.")
    is_meta = property(lambda self: self._meta, doc="Mirrors torch.Tensor.is_meta.")

    # layouts mstorch does not have (dense strided tensors; SparseCooTensor overrides is_sparse)
    is_sparse = False
    is_sparse_csr = False
    is_quantized = False
    is_mkldnn = False
    is_nested = False

    def is_coalesced(self):
        raise RuntimeError("is_coalesced expected sparse coordinate tensor layout but got Strided")

    def is_distributed(self):
        return False

    def is_inference(self):
        """Mirrors torch.Tensor.is_inference: True for a tensor made inside ``inference_mode``."""
        return self.__dict__.get("_inference", False)

    def is_nonzero(self):
        n = self._ms.size
        if n != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous" if n else
                               "Boolean value of Tensor with no values is ambiguous")
        return bool(self.item())

    def is_same_size(self, other):
        if not isinstance(other, Tensor):
            raise TypeError(f"is_same_size(): argument 'other' (position 1) must be Tensor, not "
                            f"{type(other).__name__}")
        return tuple(self._ms.shape) == tuple(other._ms.shape)

    def is_set_to(self, tensor):
        """Mirrors torch.Tensor.is_set_to: the same memory, offset, sizes and strides."""
        if not isinstance(tensor, Tensor):
            raise TypeError(f"is_set_to(): argument 'tensor' (position 1) must be Tensor, not "
                            f"{type(tensor).__name__}")
        a, b = self._ms, tensor._ms
        if a.size == 0 or b.size == 0:  # empty tensors have no address to compare
            return a is b
        return (a.data_ptr() == b.data_ptr() and a.storage_offset() == b.storage_offset()
                and tuple(a.shape) == tuple(b.shape) and tuple(a.stride()) == tuple(b.stride()))

    def to_sparse_csr(self, dense_dim=None):
        if self._ms.ndim != 2 or dense_dim:
            raise NotImplementedError("mstorch: to_sparse_csr supports 2-D tensors without dense dims")
        return self.to_sparse().to_sparse_csr()

    def to_dense(self, dtype=None, *, masked_grad=None):
        return self if dtype is None else self.to(dtype)

    layout = strided

    def is_floating_point(self):
        return self.dtype.is_floating_point

    def is_complex(self):
        return self.dtype.is_complex

    def is_signed(self):
        return self.dtype.is_signed

    def is_contiguous(self, memory_format=None):
        return bool(self._ms.is_contiguous())

    def contiguous(self, memory_format=None):
        if self._ms.is_contiguous():
            return self
        return beside(self, self._ms.contiguous())

    def stride(self, dim=None):
        strides = tuple(self._ms.stride())
        return strides if dim is None else strides[_wrap_size_dim(dim, len(strides))]

    def storage_offset(self):
        return int(self._ms.storage_offset())

    def data_ptr(self):
        return int(self._ms.data_ptr())

    const_data_ptr = data_ptr   # (torch's read-only twin of data_ptr: the same address)

    def untyped_storage(self):
        """torch's Tensor.untyped_storage: a view answers with its base's storage."""
        from .storage import UntypedStorage
        root = self
        while root._view is not None:
            root = root._view[0]
        return UntypedStorage._of(root)

    def __len__(self):
        shape = self._ms.shape
        if not shape:
            raise TypeError("len() of a 0-d tensor")
        return shape[0]

    def __reversed__(self):
        if self._ms.ndim == 0:
            return self
        return beside(self, _ms_ops.flip(self._ms, (0,)))

    def __contains__(self, element):
        if isinstance(element, (Tensor, bool, int, float, complex)):
            return bool((element == self).any().item())
        raise RuntimeError(
            f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a {type(element)}.")

    def __hash__(self):
        return id(self)

    # --- scalars and host conversions -------------------------------------------------------

    def item(self):
        n = self._ms.size
        if n != 1:
            raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
        return _host(self._ms).reshape(()).item()

    def tolist(self):
        return _host(self._ms).tolist()

    def numpy(self, *, force=False):
        """torch.Tensor.numpy: on CPU the array shares memory with the tensor, views included."""
        if self._dev is not None:
            raise TypeError(f"can't convert {self._dev} device type tensor to numpy. Use Tensor.cpu() to copy the "
                            "tensor to host memory first.")
        if self._ms.dtype == ms.bfloat16:
            raise TypeError("Got unsupported ScalarType BFloat16")
        if not force and self.requires_grad and P.grad_enabled():   # torch allows it under no_grad
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        t = self._ms
        if self._view is not None:
            return _strided_numpy(self)
        if t.is_contiguous():
            return host_view(t)
        arr = strided_host_view(t)   # an alias of other memory (a detached view): share it, as torch
        return read_host(t) if arr is None else arr

    def __array__(self, dtype=None, copy=None):
        arr = self.numpy()
        return arr if dtype is None else arr.astype(dtype, copy=False)

    def __bool__(self):
        n = self._ms.size
        if n != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous" if n else
                               "Boolean value of Tensor with no values is ambiguous")
        return bool(_host(self._ms).reshape(()).item())

    def _python_scalar(self, warn=False):
        if self._ms.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        if warn and self.requires_grad:  # torch warns for float() and complex() only
            warn_once("Converting a tensor with requires_grad=True to a scalar may lead to unexpected "
                      "behavior.\nConsider using tensor.detach() first.", stacklevel=4)
        return _host(self._ms).reshape(()).item()

    def __float__(self):
        return float(self._python_scalar(True))

    def __int__(self):
        return int(self._python_scalar())

    def __complex__(self):
        return complex(self._python_scalar(True))

    def __index__(self):
        if self.dtype._cat > D._INT or self._ms.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(_host(self._ms).reshape(()).item())

    def __format__(self, spec):
        if self._ms.ndim == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def __str__(self):
        return self.__repr__()

    # --- dtype / device conversions ------------------------------------------------------------

    def to(self, *args, **kwargs):
        if not kwargs and len(args) == 1 and type(args[0]) is D.dtype:
            return self._to_dtype(args[0])
        dtype, dev, copy = _parse_to(args, kwargs)
        if dev is None and args and isinstance(args[0], Tensor):
            dev = args[0].device   # to(other): other's dtype and device
        check_available(dev)
        if dev is not None and (_device_cls(dev).type == "meta") != self._meta:
            if self._meta:
                raise NotImplementedError(
                    "Cannot copy out of meta tensor; no data! Please consider using torch.nn.Module.to_empty() instead "
                    "of torch.nn.Module.to() when moving module from meta to a different device.")
            out = wrap(self._ms.copy() if dtype is None or dtype._ms == self._ms.dtype else _cast(self._ms, dtype._ms))
            out._meta = True
            return out
        if dev is not None and not self._meta:
            place = _device.placement(dev)
            if place != self._dev:   # a move: new memory on the other device (dtype converted first)
                src = self if dtype is None or dtype._ms == self._ms.dtype else wrap(_cast(self._ms, dtype._ms))
                return _moved(src, place)
        if dtype is None or dtype._ms == self._ms.dtype:
            if copy:
                out = wrap(self._ms.copy())   # a recorded copy in new memory
                out._dev = self._dev
                return out
            return self
        out = wrap(_cast(self._ms, dtype._ms))
        if self._meta:
            out._meta = True
        out._dev = self._dev
        return out

    def _to_dtype(self, dtype):
        if dtype._ms == self._ms.dtype:
            return self
        return beside(self, _cast(self._ms, dtype._ms))

    def type(self, dtype=None, non_blocking=False, **kwargs):
        if dtype is None:
            return _LEGACY_TYPE_NAMES[self.dtype]
        if isinstance(dtype, str):
            if dtype not in _LEGACY_NAME_TO_DTYPE:
                raise ValueError(f"invalid type: '{dtype}'")
            if dtype.startswith("torch.cuda."):
                check_available(_device_cls("cuda"))
            dtype = _LEGACY_NAME_TO_DTYPE[dtype]
        elif isinstance(dtype, type) and hasattr(dtype, "_legacy_dtype"):
            dtype = dtype._legacy_dtype
        elif not isinstance(dtype, D.dtype):
            raise TypeError("dtype must be a type, str, or dtype object")
        return self._to_dtype(dtype)

    def float(self, memory_format=None):
        return self._to_dtype(D.float32)

    def double(self, memory_format=None):
        return self._to_dtype(D.float64)

    def half(self, memory_format=None):
        return self._to_dtype(D.float16)

    def bfloat16(self, memory_format=None):
        return self._to_dtype(D.bfloat16)

    def long(self, memory_format=None):
        return self._to_dtype(D.int64)

    def int(self, memory_format=None):
        return self._to_dtype(D.int32)

    def short(self, memory_format=None):
        return self._to_dtype(D.int16)

    def char(self, memory_format=None):
        return self._to_dtype(D.int8)

    def byte(self, memory_format=None):
        return self._to_dtype(D.uint8)

    def bool(self, memory_format=None):
        return self._to_dtype(D.bool_)

    def cfloat(self, memory_format=None):
        return self._to_dtype(D.complex64)

    def cdouble(self, memory_format=None):
        return self._to_dtype(D.complex128)

    def type_as(self, other):
        return self._to_dtype(other.dtype)

    def cpu(self, memory_format=None):
        return self if self._dev is None else _moved(self, None)

    def cuda(self, device=None, non_blocking=False, memory_format=None):
        if device is None:
            device = _device_cls("cuda")
        elif isinstance(device, int) and not isinstance(device, bool):
            device = _device_cls(device)  # torch maps a bare index to the accelerator
        else:
            device = _device_cls(device)
            if device.type != "cuda":
                raise RuntimeError("Invalid device, must be cuda device")
        place = _device.placement(device)
        return self if place == self._dev else _moved(self, place)

    def npu(self, device=None, non_blocking=False):
        place = _device.placement(_device_cls("npu") if device is None else _device_cls("npu", _index_of(device)))
        return self if place == self._dev else _moved(self, place)

    # devices MindSpore has no target for: torch's error for a build without them
    def xpu(self, device=None, non_blocking=False, memory_format=None):
        check_available(_device_cls("xpu"))

    def ipu(self, device=None, non_blocking=False, memory_format=None):
        check_available(_device_cls("ipu"))

    def mtia(self, device=None, non_blocking=False, memory_format=None):
        check_available(_device_cls("mtia"))

    def pin_memory(self, device=None):
        # torch pins host memory for faster host->GPU copies; MindSpore manages host memory itself.
        return self

    def is_pinned(self, device=None):
        return False

    def share_memory_(self):
        return self

    def is_shared(self):
        return False

    # --- autograd ----------------------------------------------------------------------------

    @property
    def requires_grad(self):
        t = self._ms
        # MindSpore also marks integer and bool results of ops on grad tensors; torch never does
        return P.requires_grad(t) and t.dtype in _DIFFERENTIABLE

    @requires_grad.setter
    def requires_grad(self, flag):
        self.requires_grad_(flag)

    def requires_grad_(self, requires_grad=True):
        t = self._ms
        if not P.is_leaf(t):
            if not requires_grad:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want to use a "
                    "computed variable in a subgraph that doesn't require differentiation use "
                    "var_no_grad = var.detach().")
            return self
        if requires_grad and not (self.dtype.is_floating_point or self.dtype.is_complex):
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        P.set_requires_grad(t, bool(requires_grad))
        return self

    @property
    def is_leaf(self):
        return P.is_leaf(self._ms) or not self.requires_grad

    @property
    def grad(self):
        g = P.grad(self._ms)
        if g is None:
            if not self.is_leaf and not self.retains_grad:
                _warn_non_leaf_grad()
            return None
        return beside(self, g)   # a gradient lives where its tensor does

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type {type(value).__name__}")
            if value.dtype is not self.dtype:
                raise RuntimeError("assigned grad has data of a different type")
            if tuple(value._ms.shape) != tuple(self._ms.shape):
                raise RuntimeError("assigned grad has data of a different size")
            if value._dev != self._dev:
                raise RuntimeError("assigned grad has data located on a different device")
            value = value._ms
        P.set_grad(self._ms, value)

    @grad.deleter
    def grad(self):
        P.set_grad(self._ms, None)

    @property
    def retains_grad(self):
        return P.retain_hook(self._ms) is not None

    @property
    def _backward_hooks(self):
        """torch's table of this tensor's ``register_hook`` hooks by handle id; None before the first."""
        return P.tensor_hooks(self._ms)

    def detach(self):
        return beside(self, P.detach(self._ms))

    def as_subclass(self, cls):
        """torch.Tensor.as_subclass: the same data (and autograd history) as an instance of ``cls``, a Tensor
        subclass (torchvision's tv_tensors are made this way)."""
        if not (isinstance(cls, type) and issubclass(cls, Tensor)):
            raise TypeError(f"as_subclass(): argument 'cls' (position 1) must be a subclass of Tensor, not "
                            f"{cls!r}" if isinstance(cls, type) else
                            f"as_subclass(): argument 'cls' (position 1) must be type, not {type(cls).__name__}")
        out = _new(cls)
        out._ms = self._ms
        out.__dict__.update(self.__dict__)   # a view stays a view of the same base
        return out

    def detach_(self):
        if self._view is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
                "(DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP "
                "buckets, and hence detach_() cannot be called on these gradients. To fix this error, please "
                "refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
        self._ms = P.detach(self._ms)
        return self

    @property
    def data(self):
        return beside(self, P.detach(self._ms))

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"data must be a Tensor, not {type(value).__name__}")
        self._set_data(value._ms)
        if value._dev is not self._dev:
            self._dev = value._dev

    def _set_data(self, new_ms):
        t = self._ms
        if isinstance(t, ms.Parameter):
            # keep the Parameter object where the shape stays (Cells hold it); swap its value
            if new_ms.dtype != t.dtype:
                P.set_grad(t, None)
            self._ms = P.replace_parameter_data(t, P.detach(new_ms).copy() if new_ms is t else P.detach(new_ms))
        else:
            rg = P.requires_grad(t)
            self._ms = P.detach(new_ms)
            # now an alias of new_ms's memory, no longer a view of its old base: writes go there
            self.__dict__.pop("_view", None)
            if rg:
                P.set_requires_grad(self._ms, True)

    @property
    def _version(self):
        return P.version(self._ms)

    # --- in-place write-back -------------------------------------------------------------------

    def _check_inplace(self):
        t = self._ms
        if P.requires_grad(t) and P.is_leaf(t) and P.grad_enabled():
            raise RuntimeError(
                "a leaf Variable that requires grad is being used in an in-place operation.")
        view = self._view
        if view is not None:
            base = view[0]
            while base._view is not None:
                base = base._view[0]
            b = base._ms
            if P.requires_grad(b) and P.is_leaf(b) and P.grad_enabled():
                raise RuntimeError(
                    "a view of a leaf Variable that requires grad is being used in an in-place operation.")

    # --- indexing ----------------------------------------------------------------------------

    # --- misc -----------------------------------------------------------------------------------

    def __deepcopy__(self, memo):
        t = self._ms
        if self.requires_grad and not P.is_leaf(t):
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol "
                "at the moment.  If you were attempting to deepcopy a module, this may be because of a "
                "torch.nn.utils.weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001")
        if id(self) in memo:
            return memo[id(self)]
        new = _new(type(self))
        new._ms = P.detach(t).copy()
        if self.requires_grad:
            P.set_requires_grad(new._ms, True)
        g = P.grad(t)
        if g is not None:
            P.set_grad(new._ms, g.copy())
        state = {k: v for k, v in self.__dict__.items() if k != "_view"}  # the copy is no view
        if state:
            import copy
            new.__dict__.update(copy.deepcopy(state, memo))
        memo[id(self)] = new
        return new

    __array_priority__ = 1000

    @property
    def T(self):
        n = self._ms.ndim
        if n == 2:
            return self.t()
        if n == 0:
            _warn("Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.")
            return self
        _warn("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated "
              "and it will throw an error in a future release. Consider `x.mT` to transpose batches of "
              "matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a "
              "tensor.")
        return self.permute(*range(n - 1, -1, -1))

    @property
    def mT(self):
        n = self._ms.ndim
        if n == 0:
            _warn("Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases.")
            return self
        if n < 2:
            raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got {n}-D tensor.")
        return self.transpose(-2, -1)

    @property
    def H(self):
        n = self._ms.ndim
        if n == 0:
            _warn("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().")
            return _conj(self)
        if n != 2:
            hint = ". For batches of matrices, consider using tensor.mH" if n > 2 else "."
            raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {n}-D tensor{hint}")
        return _conj(self.t())

    @property
    def mH(self):
        n = self._ms.ndim
        if n == 0:
            _warn("Tensor.mH is deprecated on 0-D tensors. Consider using x.conj().")
            return _conj(self)
        if n < 2:
            raise RuntimeError(f"tensor.mH is only supported on matrices or batches of matrices. Got {n}-D tensor.")
        return _conj(self.transpose(-2, -1))

    # --- native interop -------------------------------------------------------------------------

    def to_mindspore(self):
        """The underlying ``mindspore.Tensor`` (zero-copy)."""
        return self._ms


# --- helpers shared by ops ----------------------------------------------------------------------

def _wrap_dim(dim, ndim):
    if isinstance(dim, Tensor):
        dim = int(dim)
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim + n if dim < 0 else dim


def _warn_non_leaf_grad():
    warnings.warn(
        "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
        "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
        "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf "
        "Tensor by mistake, make sure you access the leaf Tensor instead. See "
        "github.com/pytorch/pytorch/pull/30531 for more information.", UserWarning, stacklevel=3)


def _warn(msg):
    warn_once(msg, stacklevel=4)


def _conj(t):
    return beside(t, _ms_ops.conj(t._ms)) if t.dtype.is_complex else t


def _wrap_size_dim(dim, ndim):
    """Dim check of size(d)/stride(d): unlike ops, a 0-d tensor has no dim 0 here."""
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return _wrap_dim(dim, ndim)


def _strided_numpy(t):
    """A NumPy view of a view tensor over its base's memory (torch's numpy() shares it), or a copy
    where MindSpore keeps the view in memory of its own."""
    ms_t = t._ms
    root = t
    while root._view is not None:
        root = root._view[0]
    buf = read_host(root._ms)
    itemsize = buf.itemsize
    start = buf.__array_interface__["data"][0]
    offset = ms_t.data_ptr() - start
    strides = tuple(s * itemsize for s in ms_t.stride())
    shape = tuple(ms_t.shape)
    span = sum((n - 1) * s for n, s in zip(shape, strides)) + itemsize
    if (start != root._ms.data_ptr() or offset < 0 or offset % itemsize or offset + span > buf.nbytes
            or 0 in shape):
        return read_host(ms_t)
    return np.ndarray(shape, buf.dtype, buffer=buf, offset=offset, strides=strides)


def _host(t):
    """NumPy copy of a mindspore tensor (bfloat16 goes through float32, as torch's tolist does)."""
    if t.dtype == ms.bfloat16:
        t = t.astype(ms.float32)
    return host_view(t)


def solid(ms_t):
    """Whether ``ms_t`` is all of its storage, row-major: the only receiver MindSpore's CPU ``copy_``
    writes (into a strided, offset or partial one it writes nothing, or fails at the next read)."""
    return (ms_t.is_contiguous() and not ms_t.storage_offset()
            and ms_t.untyped_storage().nbytes() == ms_t.nbytes)


def strided_host_view(ms_t):
    """A NumPy array over ``ms_t``'s memory in its own strides and storage offset (torch's ``numpy()``
    of any layout), or None off the host (another device, no memory)."""
    if not _runtime.host_workarounds():   # the device path: no host reads (copy_ writes strided views there)
        return None
    _runtime.note_host_read()
    if not _runtime.launch_is_blocking():
        ms.runtime.synchronize()   # kernels still queued may write this memory
    storage = ms_t.untyped_storage()
    ptr, nbytes = storage.data_ptr(), storage.nbytes()
    d = D._FROM_MS.get(ms_t.dtype)
    if not ptr or d is None:
        return None
    dt = NP_BF16 if d is D.bfloat16 else np.dtype(d._np)
    strides = tuple(s * dt.itemsize for s in ms_t.stride())
    offset = ms_t.storage_offset() * dt.itemsize
    shape = tuple(ms_t.shape)
    if offset + sum((n - 1) * s for n, s in zip(shape, strides)) + dt.itemsize > nbytes:
        return None
    buf = (ctypes.c_char * nbytes).from_address(ptr)
    buf.owner = ms_t
    return np.ndarray(shape, dt, buffer=buf, offset=offset, strides=strides)


def write_memory(ms_t, new):
    """Write ``new`` (of ``ms_t``'s shape and dtype) into the memory ``ms_t`` covers, element by logical
    element, whatever its strides and offset; count it as an in-place change of ``ms_t``."""
    if not ms_t.size:
        return
    arr = strided_host_view(ms_t)
    if arr is None:   # GPU/Ascend: MindSpore's InplaceCopy writes strided views there
        ms_t.copy_(new)
        return
    np.copyto(arr, read_host(new))
    P.bump_versions([ms_t])


def host_view(ms_t, flat=False):
    """``ms_t.asnumpy()``: for a contiguous CPU tensor, an array over the tensor's own memory, which it
    keeps alive. Built here from the data pointer while kernels complete before returning (CPU's
    blocking launch): ``asnumpy()`` spends ~7 us parsing a PEP 3118 format string in Python, which
    ``loss.item()`` paid every step. ``flat``: 1-D where that costs nothing (a scan that ignores the
    shape)."""
    if _runtime.DIRECT_HOST_READS and ms_t.is_contiguous():
        d = D._FROM_MS.get(ms_t.dtype)
        n = ms_t.size
        if n and d is not None and d._np is not None and d is not D.bfloat16:
            ptr = ms_t.data_ptr()
            if ptr:
                if _READS["where"] is None:   # counted inline: this is on the per-op path (NaN scans, .item())
                    _READS["count"] += 1
                else:
                    _runtime.note_host_read()
                dt = np.dtype(d._np)
                buf = (ctypes.c_char * (n * dt.itemsize)).from_address(ptr)
                buf.owner = ms_t
                a = np.frombuffer(buf, dt)
                return a if flat else a.reshape(ms_t.shape)
    return read_host(ms_t)


from ._cast import cast as _cast  # noqa: E402


def broadcastable_to(src, dst):
    if len(src) > len(dst):
        return False
    for s, d in zip(reversed(src), reversed(dst)):
        if s != d and s != 1:
            return False
    return True


def _index_of(device):
    return device if isinstance(device, int) else _device_cls(device).index


def _moved(t, place):
    """``t``'s values in new memory on ``place`` (None: the CPU), through MindSpore's device copy. A tensor
    that requires grad is copied by a recorded op, so gradients flow back to the source as in torch; on
    simulated devices every tensor is in host memory and the copy is the move."""
    src = t._ms
    if _device.accel["simulated"] or P.requires_grad(src):
        out = wrap(src.copy())
    else:
        out = wrap(src.move_to("CPU" if place is None else _runtime.device_target()))
    if place is not None:
        out._dev = place
    return out


def _parse_to(args, kwargs):
    """torch's Tensor.to overloads -> (dtype, device, copy):
    to(dtype, non_blocking, copy), to(device, dtype, non_blocking, copy), to(tensor, non_blocking, copy)."""
    dtype = kwargs.pop("dtype", None)
    dev = kwargs.pop("device", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    kwargs.pop("memory_format", None)
    if kwargs:
        got = ", ".join(f"{k}={type(v).__name__}" for k, v in kwargs.items())
        raise TypeError(f"to() received an invalid combination of arguments - got ({got}, )")
    flags = args
    if args:
        a = args[0]
        flags = args[1:]
        if isinstance(a, D.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            dtype = a.dtype
        elif a is None or isinstance(a, (str, _device_cls)) or isinstance(a, int) and not isinstance(a, bool):
            dev = a
            if flags and (flags[0] is None or isinstance(flags[0], D.dtype)):
                dtype, flags = flags[0], flags[1:]
        else:
            flags = args
    if len(flags) > 2 or not all(isinstance(f, bool) for f in flags):
        got = ", ".join(type(a).__name__ for a in args)
        raise TypeError(f"to() received an invalid combination of arguments - got ({got}, )")
    if len(flags) == 2:
        copy = flags[1]
    if dev is not None and not isinstance(dev, _device_cls):
        dev = _device_cls(dev)
    return dtype, dev, copy


_LEGACY_TYPE_NAMES = {d: f"torch.{n}Tensor" for d, n in D.SCALAR_TYPE_NAMES.items()}
_LEGACY_NAME_TO_DTYPE = {v: k for k, v in _LEGACY_TYPE_NAMES.items()}
_LEGACY_NAME_TO_DTYPE.update({f"torch.cuda.{n}Tensor": d for d, n in D.SCALAR_TYPE_NAMES.items()})


def is_tensor(obj):
    return isinstance(obj, Tensor)

