"""The deprecated ``torch.cuda.amp`` and ``torch.cpu.amp`` spellings: same objects, torch's FutureWarnings."""
import functools
import warnings

from .. import _dtype as D
from . import autocast_mode as _am
from . import grad_scaler as _gs


def _warn(old, new):
    warnings.warn(f"`torch.{old}(args...)` is deprecated. Please use `{new}` instead.", FutureWarning, stacklevel=3)


class cuda_autocast(_am.autocast):
    """Mirrors torch.cuda.amp.autocast."""

    def __init__(self, enabled=True, dtype=D.float16, cache_enabled=True):
        _warn("cuda.amp.autocast", "torch.amp.autocast('cuda', args...)")
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class cpu_autocast(_am.autocast):
    """Mirrors torch.cpu.amp.autocast."""

    def __init__(self, enabled=True, dtype=D.bfloat16, cache_enabled=True):
        _warn("cpu.amp.autocast", "torch.amp.autocast('cpu', args...)")
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


# named and placed (for pickling) where users import them: torch.cuda.amp / torch.cpu.amp
_MODULES = {"cuda": "mstorch.amp.cuda_amp", "cpu": "mstorch.cpu.amp"}
for _cls, _kind in ((cuda_autocast, "cuda"), (cpu_autocast, "cpu")):
    _cls.__name__ = _cls.__qualname__ = "autocast"
    _cls.__module__ = _MODULES[_kind]


def _scaler(kind):
    class GradScaler(_gs.GradScaler):
        __doc__ = f"Mirrors torch.{kind}.amp.GradScaler."

        def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                     enabled=True):
            _warn(f"{kind}.amp.GradScaler", f"torch.amp.GradScaler('{kind}', args...)")
            super().__init__(kind, init_scale=init_scale, growth_factor=growth_factor,
                             backoff_factor=backoff_factor, growth_interval=growth_interval, enabled=enabled)
    GradScaler.__qualname__ = "GradScaler"
    GradScaler.__module__ = _MODULES[kind]
    return GradScaler


cuda_GradScaler = _scaler("cuda")
cpu_GradScaler = _scaler("cpu")


def cuda_custom_fwd(fwd=None, *, cast_inputs=None):
    """Mirrors torch.cuda.amp.custom_fwd."""
    _warn("cuda.amp.custom_fwd", "torch.amp.custom_fwd(args..., device_type='cuda')")
    return functools.partial(_am.custom_fwd, device_type="cuda")(fwd=fwd, cast_inputs=cast_inputs)


def cuda_custom_bwd(bwd):
    """Mirrors torch.cuda.amp.custom_bwd."""
    _warn("cuda.amp.custom_bwd", "torch.amp.custom_bwd(args..., device_type='cuda')")
    return functools.partial(_am.custom_bwd, device_type="cuda")(bwd)


def amp_definitely_not_available():
    from .. import cuda
    return not cuda.is_available()
