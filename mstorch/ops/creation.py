"""Creation ops: tensor, as_tensor, from_numpy, zeros/ones/full/empty(_like), arange, linspace, eye..."""
import math

import numpy as np
import mindspore as ms
from mindspore import ops

from .. import _dtype as D
from .. import _ms_private as P
from .._device import check_available
from .._tensor import Tensor, wrap
from ._helpers import size_args
from ._registry import register

F = "creation"


def _finish(t, requires_grad, device=None):
    if device is not None:
        check_available(device)
    w = wrap(t)
    if requires_grad:
        w.requires_grad_(True)
    return w


def _infer_np(data, dtype):
    """NumPy array for ``data`` with torch's dtype inference (floats -> default dtype, ints -> int64)."""
    if isinstance(data, Tensor):
        arr = data._ms
        return arr if dtype is None else arr.astype(dtype._ms)
    if isinstance(data, np.ndarray):
        arr = data
        inferred = D.from_numpy_dtype(arr.dtype)
    else:
        arr = np.array(_to_host_nested(data))
        if arr.dtype == object:
            raise TypeError(f"Could not infer dtype of {type(data).__name__}")
        if arr.dtype.kind == "f":
            inferred = D.get_default_dtype()
        elif arr.dtype.kind == "c":
            inferred = D.default_complex()
        elif arr.dtype.kind in "iu":
            inferred = D.int64
        elif arr.dtype.kind == "b":
            inferred = D.bool_
        elif arr.dtype.kind in "US":
            raise TypeError(f"new(): invalid data type '{arr.dtype.kind == 'U' and 'str' or 'bytes'}'")
        else:
            raise TypeError(f"Could not infer dtype of {type(data).__name__}")
        if isinstance(data, (list, tuple)) and _has_tensor(data):
            inferred = _nested_tensor_dtype(data) or inferred
    target = dtype or inferred
    return _np_to_ms(arr, target)


def _np_to_ms(arr, target):
    if target is D.bfloat16:
        return ms.Tensor(np.ascontiguousarray(arr, dtype=np.float32)).astype(ms.bfloat16)
    return ms.Tensor(np.ascontiguousarray(arr, dtype=target._np))


def _has_tensor(data):
    for x in data:
        if isinstance(x, Tensor):
            return True
        if isinstance(x, (list, tuple)) and _has_tensor(x):
            return True
    return False


def _nested_tensor_dtype(data):
    for x in data:
        if isinstance(x, Tensor):
            return x.dtype
        if isinstance(x, (list, tuple)):
            d = _nested_tensor_dtype(x)
            if d is not None:
                return d
    return None


def _to_host_nested(data):
    if isinstance(data, Tensor):
        if data.numel() != 1 and data.dim() != 0:
            return data.tolist()
        return data.item() if data.dim() == 0 else data.tolist()
    if isinstance(data, (list, tuple)):
        return [_to_host_nested(x) for x in data]
    if isinstance(data, np.generic):
        return data.item()
    return data


@register("tensor", family=F, method=False, raw=True)
def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    if isinstance(data, Tensor):
        t = P.detach(data._ms).copy()
        if dtype is not None and t.dtype != dtype._ms:
            t = t.astype(dtype._ms)
        return _finish(t, requires_grad, device)
    return _finish(_infer_np(data, dtype), requires_grad, device)


@register("as_tensor", family=F, method=False, raw=True)
def as_tensor(data, dtype=None, device=None):
    if isinstance(data, Tensor):
        if dtype is None or dtype is data.dtype:
            return data
        return data.to(dtype)
    if isinstance(data, np.ndarray) and (dtype is None or dtype._np == data.dtype) and data.flags.c_contiguous:
        return from_numpy(data)
    return _finish(_infer_np(data, dtype), False, device)


@register("asarray", family=F, method=False, raw=True)
def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    if copy:
        return tensor(obj, dtype=dtype, device=device, requires_grad=requires_grad)
    t = as_tensor(obj, dtype=dtype, device=device)
    return t.requires_grad_(True) if requires_grad else t


@register("from_numpy", family=F, method=False, raw=True)
def from_numpy(ndarray):
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    D.from_numpy_dtype(ndarray.dtype)
    if not ndarray.flags.c_contiguous or not ndarray.flags.writeable:
        return wrap(ms.Tensor(np.ascontiguousarray(ndarray)))
    return wrap(ms.from_numpy(ndarray))


def _factory(size, fill, dtype, requires_grad, device, name):
    shape = size_args(size)
    dt = dtype or D.get_default_dtype()
    if not isinstance(dt, D.dtype):
        raise TypeError(f"{name}(): argument 'dtype' must be torch.dtype, not {type(dt).__name__}")
    return _finish(ops.fill(dt._ms, shape, fill) if shape else ms.Tensor(fill, dt._ms), requires_grad, device)


@register("zeros", family=F, method=False, raw=True, out=True)
def zeros(*size, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    return _factory(size, 0, dtype, requires_grad, device, "zeros")


@register("ones", family=F, method=False, raw=True, out=True)
def ones(*size, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    return _factory(size, 1, dtype, requires_grad, device, "ones")


@register("empty", family=F, method=False, raw=True, out=True,
          note="memory is zero-filled (torch leaves it uninitialised)")
def empty(*size, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False,
          memory_format=None):
    return _factory(size, 0, dtype, requires_grad, device, "empty")


@register("full", family=F, method=False, raw=True, out=True)
def full(size, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if dtype is None:
        dtype = D.scalar_dtype(fill_value)
    if isinstance(size, int):
        size = (size,)
    return _factory((tuple(size),), fill_value, dtype, requires_grad, device, "full")


def _like(input, dtype):
    if not isinstance(input, Tensor):
        raise TypeError(f"argument 'input' must be Tensor, not {type(input).__name__}")
    return tuple(input._ms.shape), dtype or input.dtype


@register("zeros_like", family=F, method=False, raw=True)
def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    shape, dt = _like(input, dtype)
    return _factory((shape,), 0, dt, requires_grad, device, "zeros_like")


@register("ones_like", family=F, method=False, raw=True)
def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    shape, dt = _like(input, dtype)
    return _factory((shape,), 1, dt, requires_grad, device, "ones_like")


@register("empty_like", family=F, method=False, raw=True,
          note="memory is zero-filled (torch leaves it uninitialised)")
def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    shape, dt = _like(input, dtype)
    return _factory((shape,), 0, dt, requires_grad, device, "empty_like")


@register("full_like", family=F, method=False, raw=True)
def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    shape, dt = _like(input, dtype)
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    return _factory((shape,), fill_value, dt, requires_grad, device, "full_like")


def _num(x):
    return x.item() if isinstance(x, Tensor) else x


@register("arange", family=F, method=False, raw=True, out=True)
def arange(start=0, end=None, step=1, *, dtype=None, layout=None, device=None, requires_grad=False):
    start, end, step = _num(start), _num(end), _num(step)
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    if dtype is None:
        dtype = D.get_default_dtype() if any(isinstance(v, float) for v in (start, end, step)) else D.int64
    n = max(0, math.ceil((end - start) / step))
    if dtype.is_floating_point:
        # torch computes start + i * step in double precision, then rounds to the dtype
        arr = start + np.arange(n, dtype=np.float64) * step
    else:
        arr = np.arange(start, end, step, dtype=np.int64)[:n]
    return _finish(_np_to_ms(arr, dtype), requires_grad, device)


@register("range", family=F, method=False, raw=True, out=True,
          note="deprecated in torch; includes the end point")
def range_(start=0, end=None, step=1, *, dtype=None, layout=None, device=None, requires_grad=False):
    if end is None:
        start, end = 0, start
    dtype = dtype or D.get_default_dtype()
    n = int(math.floor((end - start) / step)) + 1
    arr = start + np.arange(n, dtype=np.float64) * step
    return _finish(_np_to_ms(arr, dtype), requires_grad, device)


@register("linspace", family=F, method=False, raw=True, out=True)
def linspace(start, end, steps, *, dtype=None, layout=None, device=None, requires_grad=False):
    start, end = _num(start), _num(end)
    if not isinstance(steps, int):
        raise TypeError(f"linspace(): argument 'steps' must be int, not {type(steps).__name__}")
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dtype = dtype or D.get_default_dtype()
    # torch fills the first half from start and the second half from end (symmetric rounding)
    work = np.float64 if dtype in (D.float64, D.complex128) or not dtype.is_floating_point else np.float32
    if steps == 1:
        arr = np.array([start], dtype=np.float64)
    else:
        s, e = work(start), work(end)
        step = (e - s) / work(steps - 1)
        idx = np.arange(steps)
        half = steps // 2
        arr = np.where(idx < half, s + step * idx.astype(work), e - step * (steps - idx - 1).astype(work))
    if not dtype.is_floating_point and not dtype.is_complex:
        arr = np.trunc(arr)
    return _finish(_np_to_ms(arr, dtype), requires_grad, device)


@register("logspace", family=F, method=False, raw=True, out=True)
def logspace(start, end, steps, base=10.0, *, dtype=None, layout=None, device=None, requires_grad=False):
    dtype = dtype or D.get_default_dtype()
    exps = linspace(start, end, steps, dtype=D.float64)._ms.asnumpy()
    arr = np.power(float(base), exps)
    return _finish(_np_to_ms(arr, dtype), requires_grad, device)


@register("eye", family=F, method=False, raw=True, out=True)
def eye(n, m=None, *, dtype=None, layout=None, device=None, requires_grad=False):
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    m = n if m is None else m
    if m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    dtype = dtype or D.get_default_dtype()
    return _finish(_np_to_ms(np.eye(n, m), dtype), requires_grad, device)


@register("scalar_tensor", family=F, method=False, raw=True)
def scalar_tensor(s, *, dtype=None, layout=None, device=None, requires_grad=False):
    dtype = dtype or D.get_default_dtype()
    return _finish(ms.Tensor(_num(s), dtype._ms), requires_grad, device)


# --- legacy constructors: torch.Tensor(...), torch.FloatTensor(...) -------------------------------

def legacy_construct(args, kwargs, dtype):
    if kwargs.pop("device", None) not in (None, "cpu"):
        pass
    if kwargs:
        raise TypeError(f"new() received an invalid combination of arguments - got {tuple(kwargs)}")
    if not args:
        return ms.Tensor(np.zeros((0,), dtype=dtype._np or np.float32)).astype(dtype._ms)
    if len(args) == 1 and isinstance(args[0], Tensor):
        return args[0]._ms if args[0].dtype is dtype else args[0]._ms.astype(dtype._ms)
    if all(isinstance(a, int) and not isinstance(a, bool) for a in args) or (
            len(args) == 1 and type(args[0]).__name__ == "Size"):
        shape = size_args(args)
        return ops.zeros(shape, dtype._ms)
    if len(args) == 1:
        data = args[0]
        if isinstance(data, np.ndarray):
            return _np_to_ms(data, dtype)
        return _infer_np(data, dtype)
    raise TypeError(f"new() received an invalid combination of arguments - got {tuple(type(a).__name__ for a in args)}")
