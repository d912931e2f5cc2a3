"""torch.amp.autocast_mode: ``autocast``, ``custom_fwd``/``custom_bwd`` and the ``torch.*autocast*`` state API.

The state is per thread, as torch's; the ops that consult it are tagged in ``mstorch/ops/_autocast.py``.
Warnings and errors follow torch 2.13 word for word (CUDA is unavailable on a CPU target, so
``autocast("cuda")`` warns and disables itself exactly as on a CPU-only torch build).
"""
import collections.abc
import functools
import warnings

import numpy as np

from .. import _dtype as D
from .._device import device as _device
from ..ops import _autocast as _S

__all__ = ["autocast_decorator", "autocast", "is_autocast_available", "custom_fwd", "custom_bwd"]

# device types torch 2.13 (no extra backends) answers True for in is_autocast_available
_AVAILABLE = {"cpu", "cuda", "mps", "xpu", "hpu", "privateuseone", "mtia", "maia", "xla", "ipu"}


def _device_type(device_type):
    return _device(device_type).type


def is_autocast_available(device_type):
    """Mirrors torch.amp.is_autocast_available."""
    kind = _device_type(device_type)
    if kind == "npu":   # torch spells Ascend ``npu`` only with torch_npu installed
        return _S.tensor_device_type() == "npu"
    return kind in _AVAILABLE


# --- the torch.* state functions -------------------------------------------------------------------

def get_autocast_dtype(device_type):
    return _S.device_state(_device_type(device_type))[1]


def set_autocast_dtype(device_type, dtype):
    _S.device_state(_device_type(device_type))[1] = dtype


def is_autocast_enabled(device_type=None):
    """torch.is_autocast_enabled: without an argument, the CUDA state (as torch)."""
    return _S.device_state("cuda" if device_type is None else _device_type(device_type))[0]


def set_autocast_enabled(device_type, enabled=None):
    if enabled is None:   # torch's one-argument form sets the CUDA state
        device_type, enabled = "cuda", device_type
    _S.set_enabled(_device_type(device_type), enabled)


def is_autocast_cache_enabled():
    return _S.state()["cache"]


def set_autocast_cache_enabled(enabled):
    _S.state()["cache"] = bool(enabled)


def autocast_increment_nesting():
    s = _S.state()
    s["nesting"] += 1
    return s["nesting"]


def autocast_decrement_nesting():
    s = _S.state()
    s["nesting"] -= 1
    return s["nesting"]


def clear_autocast_cache():
    """mstorch keeps no cast cache (casts are recomputed per op), so there is nothing to clear."""


def _deprecated(old, new):
    warnings.warn(f"torch.{old}() is deprecated. Please use torch.{new} instead.", DeprecationWarning, stacklevel=3)


def get_autocast_cpu_dtype():
    _deprecated("get_autocast_cpu_dtype", "get_autocast_dtype('cpu')")
    return get_autocast_dtype("cpu")


def get_autocast_gpu_dtype():
    _deprecated("get_autocast_gpu_dtype", "get_autocast_dtype('cuda')")
    return get_autocast_dtype("cuda")


def set_autocast_cpu_dtype(dtype):
    _deprecated("set_autocast_cpu_dtype", "set_autocast_dtype('cpu', dtype)")
    set_autocast_dtype("cpu", dtype)


def set_autocast_gpu_dtype(dtype):
    _deprecated("set_autocast_gpu_dtype", "set_autocast_dtype('cuda', dtype)")
    set_autocast_dtype("cuda", dtype)


def is_autocast_cpu_enabled():
    _deprecated("is_autocast_cpu_enabled", "is_autocast_enabled('cpu')")
    return is_autocast_enabled("cpu")


def set_autocast_cpu_enabled(enabled):
    _deprecated("set_autocast_cpu_enabled", "set_autocast_enabled('cpu', enabled)")
    set_autocast_enabled("cpu", enabled)


# --- autocast ------------------------------------------------------------------------------------

def autocast_decorator(autocast_instance, func):
    @functools.wraps(func)
    def decorate_autocast(*args, **kwargs):
        with autocast_instance:
            return func(*args, **kwargs)
    return decorate_autocast


def _cuda_unavailable():
    from .. import cuda
    return not cuda.is_available()


class autocast:
    """Mirrors torch.autocast / torch.amp.autocast (context manager and decorator)."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self.device = device_type
        if not is_autocast_available(self.device):
            raise RuntimeError(f"User specified an unsupported autocast device_type '{self.device}'")
        supported = [D.bfloat16, D.float16]
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        name = self.device.upper()
        if enabled:
            if self.device == "cuda":
                if _cuda_unavailable():
                    warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.",
                                  stacklevel=2)
                    enabled = False
                else:
                    from .. import cuda
                    if self.fast_dtype == D.bfloat16 and not cuda.is_bf16_supported():
                        raise RuntimeError(
                            "Current CUDA Device does not support bfloat16. Please switch dtype to float16.")
            elif self.fast_dtype not in supported:
                warnings.warn(f"In {name} autocast, but the target dtype is not supported. Disabling autocast.\n"
                              f"{name} Autocast only supports dtypes of " + ", ".join(map(str, supported))
                              + " currently.", stacklevel=2)
                enabled = False
        self._enabled = enabled

    def __enter__(self):
        self.prev_cache_enabled = is_autocast_cache_enabled()
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = get_autocast_dtype(self.device)
        set_autocast_enabled(self.device, self._enabled)
        set_autocast_dtype(self.device, self.fast_dtype)
        autocast_increment_nesting()
        set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if autocast_decrement_nesting() == 0:
            clear_autocast_cache()
        set_autocast_enabled(self.device, self.prev)
        set_autocast_dtype(self.device, self.prev_fastdtype)
        set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. "
                f"Did you mean to use autocast as a context manager? For example:\n"
                f"    with torch.autocast(device_type=...):\n"
                f"        output = model(input)")
        return autocast_decorator(self, func)


def _cast(value, device_type, dtype):
    """Floating tensors on ``device_type`` (float64 excepted) cast to ``dtype``, through containers."""
    from .._tensor import Tensor
    if isinstance(value, Tensor):
        eligible = value.is_floating_point() and value.device.type == device_type and value.dtype != D.float64
        return value.to(dtype) if eligible else value
    if isinstance(value, (str, bytes, np.ndarray)):
        return value
    if isinstance(value, collections.abc.Mapping):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype) for k, v in value.items()}
    if isinstance(value, collections.abc.Iterable):
        iterable = (_cast(v, device_type, dtype) for v in value)
        return type(value)(iterable) if isinstance(value, (list, tuple)) else iterable
    return value


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Mirrors torch.amp.custom_fwd (for ``forward`` of custom autograd Functions)."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        autocast_context = is_autocast_enabled(device_type)
        args[0]._fwd_used_autocast = False
        if autocast_context:
            with autocast(device_type=device_type, enabled=False):
                return fwd(*_cast(args, device_type, cast_inputs), **_cast(kwargs, device_type, cast_inputs))
        return fwd(*args, **kwargs)
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """Mirrors torch.amp.custom_bwd: ``backward`` runs with the autocast state of ``forward``."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast, dtype=args[0]._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd
