"""torch.nn.attention: the SDPBackend enum and the sdpa_kernel context manager.

mstorch's ``F.scaled_dot_product_attention`` is one implementation (torch's math path). The backend switches
are kept as torch keeps them (``torch.backends.cuda.*_sdp_enabled``) and SDPA honours them as torch's CPU
dispatch does: the math path runs when MATH is allowed, or when FLASH_ATTENTION is allowed and its
conditions hold (no dropout, 4-d inputs, one head dim); otherwise torch's errors are raised. EFFICIENT,
CUDNN and OVERRIDEABLE alone never run on CPU, as in torch.
"""
import contextlib
import enum

from ...backends import cuda as _cuda

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS"]

WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.Enum):
    """Mirrors torch.nn.attention.SDPBackend (torch's is a pybind enum: ``int()`` gives the value, it does not
    compare equal to ints)."""
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __int__(self):
        return self.value

    __index__ = __int__

    def __hash__(self):
        return hash(self.value)

    def __str__(self):
        return f"SDPBackend.{self.name}"


_FLAG_OF = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION,
            "mem_efficient": SDPBackend.EFFICIENT_ATTENTION, "math": SDPBackend.MATH,
            "overrideable": SDPBackend.OVERRIDEABLE}


def _current(with_priority):
    on = [b for name, b in _FLAG_OF.items() if _cuda._SDP[name]]
    if with_priority:
        on.sort(key=lambda b: _cuda._SDP_PRIORITY.index(int(b)))
    return on


def _apply(backends, set_priority):
    for name, b in _FLAG_OF.items():
        _cuda._SDP[name] = b in backends
    if set_priority:
        order = [int(b) for b in backends]
        order += [p for p in _cuda._SDP_PRIORITY if p not in order]
        _cuda._SDP_PRIORITY[:] = order


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Mirrors torch.nn.attention.sdpa_kernel: only ``backends`` are enabled inside the block; the previous
    switches (and, with ``set_priority``, the previous priority order's enabled set) come back on exit."""
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of SDPBackend instances, got "
                             f"{type(backends).__name__}")
    if isinstance(backends, SDPBackend):
        backends = [backends]
    backends = list(dict.fromkeys(backends))
    previous = _current(set_priority)
    try:
        _apply(backends, set_priority)
        yield {}
    finally:
        _apply(previous, set_priority)
