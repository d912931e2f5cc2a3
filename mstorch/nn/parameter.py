"""nn.Parameter (holds a mindspore.Parameter) and nn.Buffer, as torch."""
import mindspore as ms

from .. import _ms_private as P
from .._tensor import Tensor, wrap
from ..ops.creation import empty as _empty


def _covers_its_storage(t):
    # MindSpore's in-place CPU kernels (copy_, the optimizers' writes) do not write a Parameter that is a
    # strided or offset part of a larger storage ("cannot use CPU inplace copy"): such a source is copied
    try:
        return t.is_contiguous() and t.storage_offset() == 0 and t.nbytes == t.untyped_storage().nbytes()
    except Exception:  # noqa: BLE001 - a storage MindSpore cannot describe: copy
        return False


def _ms_parameter(t, requires_grad):
    if isinstance(t, ms.Parameter):
        P.set_requires_grad(t, requires_grad)
        return t
    # Over t's memory, as torch shares it, where MindSpore can write such a Parameter in place; the name becomes
    # the dotted torch name once a Module registers it.
    data = P.detach(t)
    if _covers_its_storage(data):
        param = P.parameter_over(data, "param", requires_grad)
    else:
        param = ms.Parameter(data, name="param", requires_grad=requires_grad)
    # through the accessor, so the leaf gets the same autograd set-up as any tensor that requires grad
    P.set_requires_grad(param, requires_grad)
    return param


class Parameter(Tensor):
    """Mirrors torch.nn.Parameter: a leaf Tensor that Modules register; requires grad by default."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): argument 'data' must be Tensor, not {type(data).__name__}")
        if requires_grad and not (data.dtype.is_floating_point or data.dtype.is_complex):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        p = object.__new__(cls)
        p._ms = _ms_parameter(data._ms, bool(requires_grad))
        return p

    def __init__(self, data=None, requires_grad=True):
        pass

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, protocol):
        from ..serialization import reduce_parameter
        return reduce_parameter(self)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(wrap(self._ms.copy()), self.requires_grad)
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

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


class UninitializedParameter(Parameter):
    """Lazy modules are not supported in mstorch; constructing one says so."""

    def __new__(cls, *args, **kwargs):
        raise NotImplementedError(
            "torch.nn.UninitializedParameter (lazy modules) is not supported by mstorch: MindSpore "
            "parameters need their shape at creation")

