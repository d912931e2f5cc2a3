"""view_as_real / view_as_complex: a complex tensor's memory read as (..., 2) reals, and back.

Two ways to build the view, chosen per call:
- while autograd records the base, the view is computed by differentiable ops (``real``/``imag`` stacked,
  ``Complex`` of the two halves): gradients flow as torch's, but the view is a new buffer;
- otherwise, for a contiguous tensor on the host, the view is the base's own memory reinterpreted
  (``from_numpy`` over the base's NumPy view), so a later in-place change of the base shows through the
  view as in torch.
Writes through the view (``r[0, 1] = 5``, ``c.add_(1)``) reach the base either way, by ``make_view``'s
write-back. MindSpore has no complex32, so ``view_as_complex`` of float16 refuses by name.
"""
import mindspore as ms
import numpy as np

from .. import _dtype as D
from .. import _ms_private as P
from .._tensor import Tensor, host_view, scalar_type_name
from . import _msops as ops
from . import _kernels as kernels
from ._registry import register
from ._views import make_view, broadcast_shape

F = "complex"
_REAL_OF = {ms.complex64: np.float32, ms.complex128: np.float64}
_COMPLEX_OF = {ms.float32: np.complex64, ms.float64: np.complex128}


def _shared(base_ms, np_view):
    """``base_ms``'s memory as another NumPy view, or None where it cannot be shared."""
    if (not kernels.HOST_WORKAROUNDS or not base_ms.size or not base_ms.is_contiguous()
            or (P.requires_grad(base_ms) and P.grad_enabled())):   # the device path: a copy by kernels
        return None
    arr = host_view(base_ms)
    if arr.base is None:   # asnumpy() copied it (another device, asynchronous launch)
        return None
    return ms.from_numpy(np_view(arr))


def _as_real(base_ms):
    shape = tuple(base_ms.shape) + (2,)
    shared = _shared(base_ms, lambda a: a.reshape(-1).view(_REAL_OF[base_ms.dtype]).reshape(shape))
    if shared is not None:
        return shared
    if not base_ms.size:   # MindSpore's Real has no kernel for empty input
        return ops.zeros(shape, ms.float32 if base_ms.dtype == ms.complex64 else ms.float64)
    return ops.stack((ops.real(base_ms), ops.imag(base_ms)), -1)


def _as_complex(base_ms):
    shape = tuple(base_ms.shape[:-1])
    shared = _shared(base_ms, lambda a: a.reshape(-1).view(_COMPLEX_OF[base_ms.dtype]).reshape(shape))
    if shared is not None:
        return shared
    if not base_ms.size:
        return ops.zeros(shape, ms.complex64 if base_ms.dtype == ms.float32 else ms.complex128)
    return ops.complex_of_parts(base_ms[..., 0], base_ms[..., 1])


@register("view_as_real", family=F, namespace="torch", raw=True)
def view_as_real(input):
    if not input.dtype.is_complex:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    return make_view(input, _as_real(input._ms), lambda base_ms, new: _as_complex(new), _as_real)


@register("view_as_complex", family=F, namespace="torch", raw=True)
def view_as_complex(input):
    dt = input.dtype
    if dt not in (D.float32, D.float64, D.float16):
        raise RuntimeError("view_as_complex is only supported for half, float and double tensors, but got a "
                           f"tensor of scalar type: {scalar_type_name(dt)}")
    if input.dim() == 0:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if input.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    strides = input.stride()
    if strides[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % 2 for s in strides[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if input.storage_offset() % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    if dt is D.float16:
        raise RuntimeError("mstorch: torch.view_as_complex of a float16 tensor gives torch.complex32, a dtype "
                           "MindSpore does not have")
    return make_view(input, _as_complex(input._ms), lambda base_ms, new: _as_real(new), _as_complex)


# --- complex from parts ----------------------------------------------------------------------------

def _parts_check(name, a, b):
    for arg, pos, t in (("real" if name == "complex" else "abs", 1, a), ("imag" if name == "complex" else "angle", 2, b)):
        if not isinstance(t, ms.Tensor):
            raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not {type(t).__name__}")
    da, db = D._FROM_MS[a.dtype], D._FROM_MS[b.dtype]
    floats = (D.float16, D.float32, D.float64)
    if da not in floats or db not in floats:
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got {scalar_type_name(da)} "
                           f"and {scalar_type_name(db)}")
    if da is not db:
        raise RuntimeError(f"Expected object of scalar type {scalar_type_name(da)} but got scalar type "
                           f"{scalar_type_name(db)} for second argument")
    if da is D.float16 and name == "polar":
        raise NotImplementedError("\"polar_cpu\" not implemented for 'Half'")   # torch's CPU build has none
    if da is D.float16:
        raise RuntimeError(f"mstorch: torch.{name} of float16 parts gives torch.complex32, a dtype MindSpore does "
                           "not have")


def _from_parts(re, im):
    if tuple(re.shape) != tuple(im.shape):
        shape = broadcast_shape((re.shape, im.shape))
        re, im = ops.broadcast_to(re, shape), ops.broadcast_to(im, shape)
    return ops.complex_of_parts(re, im)


_COMPLEX_NAME_OF = {D.float16: "ComplexHalf", D.float32: "ComplexFloat", D.float64: "ComplexDouble"}


def _complex_parts_out(args, out):
    """complex/polar: out= must be the complex dtype of the (valid) parts, checked before the kernel."""
    if len(args) < 2 or not all(isinstance(a, Tensor) for a in args[:2]) or args[0].dtype is not args[1].dtype:
        return
    want = _COMPLEX_NAME_OF.get(args[0].dtype)
    if want is not None and D.SCALAR_TYPE_NAMES.get(out.dtype) != want:
        raise RuntimeError(f"Expected object of scalar type {want} but got scalar type "
                           f"{D.SCALAR_TYPE_NAMES.get(out.dtype, out.dtype)} for argument 'out'")


@register("complex", family=F, namespace="torch", out=True, out_check=_complex_parts_out)
def complex(real, imag):
    _parts_check("complex", real, imag)
    return _from_parts(real, imag)


@register("polar", family=F, namespace="torch", out=True, out_check=_complex_parts_out)
def polar(abs, angle):
    _parts_check("polar", abs, angle)
    return _from_parts(ops.mul(abs, ops.cos(angle)), ops.mul(abs, ops.sin(angle)))
