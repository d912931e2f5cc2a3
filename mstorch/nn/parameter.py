"""nn.Parameter (holds a mindspore.Parameter) and nn.Buffer, as torch."""
import mindspore as ms

from .. import _ms_private as P
from .._tensor import Tensor, beside
from ..overrides import _disabled_torch_function_impl
from ..ops.creation import empty as _empty


def _ms_parameter(t, requires_grad):
    if isinstance(t, ms.Parameter):
        P.set_requires_grad(t, requires_grad)
        return t
    # Over t's memory, whatever its layout, as torch shares it (in-place writes into a strided or offset one
    # go through Tensor._write's host path); the name becomes the dotted torch name once a Module registers it.
    data = P.detach(t)
    param = P.parameter_over(data, "param", requires_grad)
    # through the accessor, so the leaf gets the same autograd set-up as any tensor that requires grad
    P.set_requires_grad(param, requires_grad)
    return param


class Parameter(Tensor):
    """Mirrors torch.nn.Parameter: a leaf Tensor that Modules register; requires grad by default."""

    # as torch's: ops on a Parameter give plain Tensors
    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): argument 'data' must be Tensor, not {type(data).__name__}")
        if requires_grad and not (data.dtype.is_floating_point or data.dtype.is_complex):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        p = object.__new__(cls)
        p._ms = _ms_parameter(data._ms, bool(requires_grad))
        if data._meta:
            p._meta = True
        if data._dev is not None:
            p._dev = data._dev
        return p

    def __init__(self, data=None, requires_grad=True):
        pass

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(beside(self, self._ms.copy()), self.requires_grad)
        memo[id(self)] = result
        return result


def is_parameter(obj):
    return isinstance(obj, Parameter)


class _BufferMeta(type):
    # torch's nn.Buffer(t) is a plain Tensor flagged ``_is_buffer``; isinstance(x, Buffer) reads the flag
    def __instancecheck__(cls, instance):
        if cls is Buffer and isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False):
            return True
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """Mirrors torch.nn.Buffer: returns a detached Tensor marked to be registered as a buffer when assigned to a
    Module (its type stays Tensor, as in torch)."""

    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        if data._meta:
            t._meta = True
        t.persistent = persistent
        t._is_buffer = True
        return t


class UninitializedTensorMixin:
    """Mirrors torch.nn.parameter.UninitializedTensorMixin: a 0-element placeholder whose shape is set by
    ``materialize`` (lazy modules call it on their first forward), which also turns it into its
    ``cls_to_become``. Operations on it are not intercepted as torch's ``__torch_function__`` does: they see
    an empty tensor."""

    __slots__ = ()
    __torch_function__ = _disabled_torch_function_impl

    def materialize(self, shape, device=None, dtype=None):
        dtype = self.dtype if dtype is None else dtype
        self.data = _empty(shape, dtype=dtype, device=self.device if device is None else device)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually happens in "
            "`load_state_dict` when trying to load an uninitialized parameter into an initialized one. Call "
            "`forward` to initialize the parameters before accessing their attributes.")

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to initialize the "
            "parameters before calling `module.share_memory()`.")

    def __repr__(self):
        return f"<{self.__class__.__name__}>"

    def __reduce_ex__(self, protocol):
        return (self.__class__, (self.requires_grad,))


def is_lazy(param):
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """Mirrors torch.nn.UninitializedParameter."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        p = object.__new__(cls)
        e = _empty(0, dtype=dtype, device=device)
        p._ms = _ms_parameter(e._ms, bool(requires_grad))
        p._dev = e._dev
        return p

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, None, self.dtype)
        return memo[id(self)]


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """Mirrors torch.nn.UninitializedBuffer: registered as a buffer when assigned to a Module."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        t = object.__new__(cls)
        e = _empty(0, dtype=dtype, device=device, requires_grad=requires_grad)
        t._ms, t._dev = e._ms, e._dev
        t.persistent = persistent
        t._is_buffer = True
        return t

    def __init__(self, requires_grad=False, device=None, dtype=None, persistent=True):
        pass

    def __deepcopy__(self, memo):
        # torch reaches Tensor.__deepcopy__, which its uninitialised-tensor guard refuses
        raise ValueError(
            "Attempted to use an uninitialized parameter in Tensor.__deepcopy__. This error happens when you are "
            "using a `LazyModule` or explicitly manipulating `torch.nn.parameter.UninitializedBuffer` objects. "
            "When using LazyModules Call `forward` with a dummy batch to initialize the parameters before calling "
            "torch functions")
