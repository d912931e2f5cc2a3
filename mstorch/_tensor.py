"""mstorch.Tensor: torch's Tensor API over one ``mindspore.Tensor``.

The wrapper holds the MindSpore tensor in ``_ms``; autograd state (requires_grad, grad, grad_fn) is
MindSpore's own, reached through ``_ms_private``. Most methods are generated from the op table
(``ops/_bind.py``); what is defined here is what has no op behind it: properties, conversions,
indexing, autograd entry points and the in-place write-back every ``*_`` method goes through.
"""
from __future__ import annotations

import numpy as np
import mindspore as ms

from . import _dtype as D
from . import _ms_private as P
from ._device import device as _device_cls, current_device, check_available
from ._size import Size

_MsTensor = ms.Tensor


def wrap(t):
    """Wrap a mindspore.Tensor (never copies)."""
    w = _new(Tensor)
    w._ms = t
    return w


_new = object.__new__


class Tensor:
    __slots__ = ("_ms", "__dict__", "__weakref__")

    # torch.Tensor(data) / torch.Tensor(*sizes): the legacy constructor
    def __new__(cls, *args, **kwargs):
        from .ops.creation import legacy_construct
        w = _new(cls)
        w._ms = legacy_construct(args, kwargs, D.get_default_dtype())
        return w

    def __init__(self, *args, **kwargs):
        pass

    _view = None  # (base Tensor, writeback(base_ms, new_view_ms) -> new base_ms) for views

    # --- basic properties ------------------------------------------------------------------

    @property
    def dtype(self):
        return D._FROM_MS[self._ms.dtype]

    @property
    def shape(self):
        return Size(self._ms.shape)

    def size(self, dim=None):
        shape = self._ms.shape
        if dim is None:
            return Size(shape)
        return shape[_wrap_dim(dim, len(shape))]

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

    @property
    def device(self):
        return current_device()

    @property
    def is_cuda(self):
        return current_device().type == "cuda"

    @property
    def is_cpu(self):
        return current_device().type == "cpu"

    is_sparse = False
    is_quantized = False
    is_meta = False
    is_mkldnn = False
    is_nested = False
    layout = None  # set to torch.strided in __init__

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
        return wrap(self._ms.contiguous())

    def stride(self, dim=None):
        strides = tuple(self._ms.stride())
        return strides if dim is None else strides[_wrap_dim(dim, len(strides))]

    def storage_offset(self):
        return int(self._ms.storage_offset())

    def data_ptr(self):
        return int(self._ms._data_ptr())

    def __len__(self):
        shape = self._ms.shape
        if not shape:
            raise TypeError("len() of a 0-d tensor")
        return shape[0]

    def __iter__(self):
        if self._ms.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __hash__(self):
        return id(self)

    # --- scalars and host conversions -------------------------------------------------------

    def item(self):
        if self._ms.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._ms.size} elements cannot be converted to Scalar")
        return _host(self._ms).reshape(()).item()

    def tolist(self):
        return _host(self._ms).tolist()

    def numpy(self, *, force=False):
        if self._ms.dtype == ms.bfloat16:
            raise TypeError("Got unsupported ScalarType BFloat16")
        if not force and P.requires_grad(self._ms):
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        return self._ms.asnumpy()

    def __array__(self, dtype=None, copy=None):
        arr = _host(self._ms)
        return arr if dtype is None else arr.astype(dtype)

    def __bool__(self):
        if self._ms.size != 1:
            raise RuntimeError(
                f"Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __complex__(self):
        return complex(self.item())

    def __index__(self):
        if self.dtype._cat > D._INT or self._ms.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __format__(self, spec):
        if self._ms.ndim == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def __repr__(self, *, tensor_contents=None):
        from ._printing import tensor_repr
        return tensor_repr(self)

    def __str__(self):
        return self.__repr__()

    # --- dtype / device conversions ------------------------------------------------------------

    def to(self, *args, **kwargs):
        dtype, dev, copy = _parse_to(args, kwargs)
        check_available(dev)
        if dtype is None or dtype._ms == self._ms.dtype:
            return self.clone() if copy else self
        return wrap(_cast(self._ms, dtype._ms))

    def type(self, dtype=None, non_blocking=False, **kwargs):
        if dtype is None:
            return _LEGACY_TYPE_NAMES[self.dtype]
        if isinstance(dtype, str):
            dtype = _LEGACY_NAME_TO_DTYPE[dtype]
        elif isinstance(dtype, type) and hasattr(dtype, "_legacy_dtype"):
            dtype = dtype._legacy_dtype
        return self.to(dtype)

    def float(self, memory_format=None):
        return self.to(D.float32)

    def double(self, memory_format=None):
        return self.to(D.float64)

    def half(self, memory_format=None):
        return self.to(D.float16)

    def bfloat16(self, memory_format=None):
        return self.to(D.bfloat16)

    def long(self, memory_format=None):
        return self.to(D.int64)

    def int(self, memory_format=None):
        return self.to(D.int32)

    def short(self, memory_format=None):
        return self.to(D.int16)

    def char(self, memory_format=None):
        return self.to(D.int8)

    def byte(self, memory_format=None):
        return self.to(D.uint8)

    def bool(self, memory_format=None):
        return self.to(D.bool_)

    def cfloat(self, memory_format=None):
        return self.to(D.complex64)

    def cdouble(self, memory_format=None):
        return self.to(D.complex128)

    def type_as(self, other):
        return self.to(other.dtype)

    def cpu(self, memory_format=None):
        return self

    def cuda(self, device=None, non_blocking=False, memory_format=None):
        check_available(_device_cls("cuda") if device is None or isinstance(device, int) else device)
        return self

    def npu(self, device=None, non_blocking=False):
        check_available(_device_cls("npu"))
        return self

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
        return P.requires_grad(self._ms)

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
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        P.set_requires_grad(t, bool(requires_grad))
        return self

    @property
    def is_leaf(self):
        return P.is_leaf(self._ms) or not P.requires_grad(self._ms)

    @property
    def grad(self):
        g = P.grad(self._ms)
        return None if g is None else wrap(g)

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type {type(value).__name__}")
            if value.dtype is not self.dtype:
                raise RuntimeError("assigned grad has data of a different type")
            if tuple(value._ms.shape) != tuple(self._ms.shape):
                raise RuntimeError("assigned grad has data of a different size")
            value = value._ms
        P.set_grad(self._ms, value)

    @grad.deleter
    def grad(self):
        P.set_grad(self._ms, None)

    @property
    def grad_fn(self):
        from .autograd.graph import node_for
        return node_for(self._ms)

    @property
    def retains_grad(self):
        return bool(P.retains_grad(self._ms))

    def retain_grad(self):
        if not P.requires_grad(self._ms):
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if not P.is_leaf(self._ms):
            P.retain_grad(self._ms)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        from .autograd import backward
        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def register_hook(self, hook):
        from .autograd.hooks import register_tensor_hook
        return register_tensor_hook(self, hook)

    def detach(self):
        return wrap(P.detach(self._ms))

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
        return wrap(P.detach(self._ms))

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"data must be a Tensor, not {type(value).__name__}")
        self._set_data(value._ms)

    def _set_data(self, new_ms):
        t = self._ms
        if isinstance(t, ms.Parameter):
            # keep the Parameter object (Cells and optimizers hold it); swap its value
            t.set_data(new_ms, slice_shape=True)
        else:
            rg = P.requires_grad(t)
            self._ms = P.detach(new_ms)
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

    def _write(self, new):
        """Make ``new`` (a mindspore.Tensor) the value of this tensor in place, as torch's ``*_`` ops do."""
        self._check_inplace()
        t = self._ms
        if new.dtype != t.dtype:
            src, dst = D._FROM_MS[new.dtype], D._FROM_MS[t.dtype]
            if not D.can_cast(src, dst):
                raise RuntimeError(
                    f"result type {_SCALAR_TYPE_NAMES[src]} can't be cast to the desired output type "
                    f"{_SCALAR_TYPE_NAMES[dst]}")
            new = _cast(new, t.dtype)
        if new.shape != t.shape:
            if not _broadcastable_to(new.shape, t.shape):
                raise RuntimeError(
                    f"output with shape {list(t.shape)} doesn't match the broadcast shape {list(new.shape)}")
            new = new.broadcast_to(t.shape)
        t.copy_(new)
        view = self._view
        if view is not None:
            base, writeback = view
            base._write(writeback(base._ms, t))
        return self

    # --- indexing ----------------------------------------------------------------------------

    def __getitem__(self, index):
        from .ops.indexing import getitem
        return getitem(self, index)

    def __setitem__(self, index, value):
        from .ops.indexing import setitem
        setitem(self, index, value)

    # --- misc -----------------------------------------------------------------------------------

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        new = self.clone().detach() if not P.is_leaf(self._ms) else wrap(self._ms.copy())
        if P.requires_grad(self._ms):
            P.set_requires_grad(new._ms, True)
        if self.__dict__:
            import copy
            new.__dict__.update(copy.deepcopy(self.__dict__, memo))
        memo[id(self)] = new
        return new

    def __reduce_ex__(self, protocol):
        from .serialization import reduce_tensor
        return reduce_tensor(self)

    __array_priority__ = 1000

    @property
    def T(self):
        n = self._ms.ndim
        if n == 2:
            return self.t()
        return self.permute(*range(n - 1, -1, -1))

    @property
    def mT(self):
        if self._ms.ndim < 2:
            raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got {self._ms.ndim}-D tensor.")
        return self.transpose(-2, -1)

    @property
    def H(self):
        return self.T.conj() if self.is_complex() else self.T

    @property
    def mH(self):
        return self.mT.conj() if self.is_complex() else self.mT

    def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
        from .ops.creation import tensor
        return tensor(data, dtype=dtype or self.dtype, requires_grad=requires_grad)

    def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
        from .ops.creation import zeros
        return zeros(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)

    def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
        from .ops.creation import ones
        return ones(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)

    def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
        from .ops.creation import empty
        return empty(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)

    def new_full(self, size, fill_value, dtype=None, device=None, requires_grad=False):
        from .ops.creation import full
        return full(size, fill_value, dtype=dtype or self.dtype, requires_grad=requires_grad)

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


def _host(t):
    """NumPy copy of a mindspore tensor (bfloat16 goes through float32, as torch's tolist does)."""
    if t.dtype == ms.bfloat16:
        t = t.astype(ms.float32)
    return t.asnumpy()


def _cast(t, ms_dtype):
    return t.astype(ms_dtype)


def _broadcastable_to(src, dst):
    if len(src) > len(dst):
        return False
    for s, d in zip(reversed(src), reversed(dst)):
        if s != d and s != 1:
            return False
    return True


def _parse_to(args, kwargs):
    """torch's Tensor.to overloads: to(dtype), to(device, dtype), to(other), keywords."""
    dtype = kwargs.pop("dtype", None)
    dev = kwargs.pop("device", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    for a in args:
        if isinstance(a, D.dtype):
            dtype = a
        elif isinstance(a, (str, _device_cls)) or isinstance(a, int) and not isinstance(a, bool):
            dev = a
        elif isinstance(a, Tensor):
            dtype = a.dtype
        elif isinstance(a, bool):
            pass  # non_blocking / copy positional flags
        elif a is not None:
            raise TypeError(f"to() received an invalid combination of arguments - got ({type(a).__name__})")
    if isinstance(dev, str) or isinstance(dev, int):
        dev = _device_cls(dev)
    return dtype, dev, copy


_SCALAR_TYPE_NAMES = {
    D.float32: "Float", D.float64: "Double", D.float16: "Half", D.bfloat16: "BFloat16", D.uint8: "Byte",
    D.int8: "Char", D.int16: "Short", D.int32: "Int", D.int64: "Long", D.bool_: "Bool",
    D.complex64: "ComplexFloat", D.complex128: "ComplexDouble", D.uint16: "UInt16", D.uint32: "UInt32",
    D.uint64: "UInt64",
}
_LEGACY_TYPE_NAMES = {d: f"torch.{n}Tensor" for d, n in _SCALAR_TYPE_NAMES.items()}
_LEGACY_NAME_TO_DTYPE = {v: k for k, v in _LEGACY_TYPE_NAMES.items()}
_LEGACY_NAME_TO_DTYPE.update({f"torch.cuda.{n}Tensor": d for d, n in _SCALAR_TYPE_NAMES.items()})


def scalar_type_name(d):
    return _SCALAR_TYPE_NAMES[d]


def is_tensor(obj):
    return isinstance(obj, Tensor)

