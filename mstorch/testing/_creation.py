"""torch.testing.make_tensor: torch's value ranges, checks and draws (randint / uniform_ on the
default generator, which follows torch's CPU stream, so a seeded call gives torch's values)."""
import collections.abc
import functools
import math
import warnings

import numpy as np

from .. import _dtype as D

_INTEGRAL = [D.uint8, D.int8, D.int16, D.int32, D.int64, D.uint16, D.uint32, D.uint64]
_FLOATING = [D.float16, D.bfloat16, D.float32, D.float64]
_COMPLEX = [D.complex64, D.complex128]
_BOOL_OR_INTEGRAL = [D.bool_, *_INTEGRAL]
_FLOATING_OR_COMPLEX = [*_FLOATING, *_COMPLEX]


def _mt():
    import mstorch
    return mstorch


def _limits(dtype, low, high, *, lowest, highest, default_low, default_high):
    """torch's clamping of [low, high) to what ``dtype`` holds."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if low == high and dtype in _FLOATING_OR_COMPLEX:
        warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or complex types is "
                      "deprecated since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead.",
                      FutureWarning, stacklevel=3)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), but {dtype} only "
                         f"supports [{lowest}, {highest})")
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    if dtype in _BOOL_OR_INTEGRAL:
        return math.ceil(low), math.ceil(high)   # randint's high is exclusive: ceil both ends
    return low, high


def _uniform(t, low, high, dtype):
    mt = _mt()
    if high - low >= mt.finfo(dtype).max:     # uniform_ needs high - low to be representable
        return t.uniform_(low / 2, high / 2).mul_(2)
    return t.uniform_(low, high)


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False, noncontiguous=False,
                exclude_zero=False, memory_format=None):
    """Mirrors torch.testing.make_tensor."""
    mt = _mt()
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually exclusive, but got "
                         f"noncontiguous={noncontiguous} and memory_format={memory_format}")
    if requires_grad and dtype in _BOOL_OR_INTEGRAL:
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, but got "
                         f"dtype={dtype}")
    noncontiguous = noncontiguous and functools.reduce(lambda x, y: x * y, shape, 1) > 1
    if noncontiguous:
        shape = (*shape[:-1], 2 * shape[-1])   # twice the last dim, then every other element

    if dtype is D.bool_:
        low, high = _limits(dtype, low, high, lowest=0, highest=2, default_low=0, default_high=2)
        result = mt.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _BOOL_OR_INTEGRAL:
        info = mt.iinfo(dtype)
        low, high = _limits(dtype, low, high, lowest=info.min, highest=info.max + (1 if dtype is not D.int64 else 0),
                            default_low=-9, default_high=10)
        result = mt.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _FLOATING_OR_COMPLEX:
        info = mt.finfo(dtype)
        low, high = _limits(dtype, low, high, lowest=info.min, highest=info.max, default_low=-9, default_high=9)
        if dtype in _COMPLEX:
            # torch fills view_as_real(result): real and imaginary parts interleaved in memory
            real_dtype = D.float32 if dtype == D.complex64 else D.float64
            parts = _uniform(mt.empty((*shape, 2), device=device, dtype=real_dtype), low, high, real_dtype).numpy()
            values = (parts[..., 0] + 1j * parts[..., 1]).astype(
                np.complex64 if dtype == D.complex64 else np.complex128)
            result = mt.from_numpy(np.ascontiguousarray(values)).to(device)
        else:
            result = _uniform(mt.empty(shape, device=device, dtype=dtype), low, high, dtype)
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by torch.testing.make_tensor(). To request "
                        "support, file an issue at: https://github.com/pytorch/pytorch/issues")

    if noncontiguous:
        result = result[..., 1::2]   # offset by one, to catch offset bugs too
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if dtype in _BOOL_OR_INTEGRAL else mt.finfo(dtype).tiny
    if dtype in _FLOATING_OR_COMPLEX:
        result.requires_grad = requires_grad
    return result
