"""torch.backends.cuda: matmul precision flags are stored; MindSpore has no TF32 switch on CPU."""
import contextlib

from .. import _runtime
from .. import _fp32


class _MatmulFlags:
    allow_fp16_reduced_precision_reduction = True
    allow_bf16_reduced_precision_reduction = True

    # TF32 switches: the legacy one and the new one, linked as torch links them (mstorch/_fp32.py)
    @property
    def allow_tf32(self):
        return _fp32.cublas_allow_tf32()

    @allow_tf32.setter
    def allow_tf32(self, value):
        _fp32.set_cublas_allow_tf32(value)

    fp32_precision = _fp32.setting("cuda", "matmul")

    def __getattr__(self, name):
        raise AttributeError("Unknown attribute " + name)

    def __setattr__(self, name, value):
        if not hasattr(type(self), name):
            raise AttributeError("Unknown attribute " + name)
        object.__setattr__(self, name, value)


matmul = _MatmulFlags()


def is_built():
    return _runtime.device_target() == "GPU"   # torch.cuda.is_available()'s answer


# scaled_dot_product_attention backend switches: global, as torch's (they apply on CPU too). mstorch has one
# SDPA implementation (torch's math path); ops/nn_attention.py asks sdp_backend_for() which backend torch's
# CPU dispatch would pick and raises torch's errors when none is allowed.
_SDP = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True, "overrideable": True}
_SDP_PRIORITY = [1, 2, 0, 3, 4]  # FLASH, EFFICIENT, MATH, CUDNN, OVERRIDEABLE (torch's default order)
_SDP_REDUCED_MATH = [False]


def flash_sdp_enabled():
    return _SDP["flash"]


def enable_flash_sdp(enabled):
    _SDP["flash"] = bool(enabled)


def mem_efficient_sdp_enabled():
    return _SDP["mem_efficient"]


def enable_mem_efficient_sdp(enabled):
    _SDP["mem_efficient"] = bool(enabled)


def math_sdp_enabled():
    return _SDP["math"]


def enable_math_sdp(enabled):
    _SDP["math"] = bool(enabled)


def cudnn_sdp_enabled():
    return _SDP["cudnn"]


def enable_cudnn_sdp(enabled):
    _SDP["cudnn"] = bool(enabled)


def fp16_bf16_reduction_math_sdp_allowed():
    return _SDP_REDUCED_MATH[0]


def allow_fp16_bf16_reduction_math_sdp(enabled):
    _SDP_REDUCED_MATH[0] = bool(enabled)


def is_flash_attention_available():
    return False  # the CUDA flash kernel (torch's CPU build answers False too)


def sdp_backend_for(query, key, value, dropout_p):
    """The backend torch's CPU dispatch picks (1 flash, 0 math), or torch's error when none may run. Shapes are
    MindSpore/mstorch tensors; the stride-1 condition of the fused kernel is not checked (inputs are contiguous
    here)."""
    import warnings
    if not (_SDP["math"] or _SDP["flash"]):
        raise RuntimeError("No viable backend for scaled_dot_product_attention was found. This is likely due to "
                           "turning off both the math kernel and the fused kernels.")
    if _SDP["flash"]:
        reason = _flash_refusal(query, key, value, dropout_p)
        if reason is None:
            return 1
        if not _SDP["math"]:
            warnings.warn("Flash attention kernel not used because:", stacklevel=4)
            warnings.warn(reason, stacklevel=4)
            raise RuntimeError("No available kernel.  Aborting execution.")
    return 0


def _flash_refusal(q, k, v, dropout_p):
    if dropout_p > 0.0:
        return "Both fused kernels do not support non-zero dropout."
    if not (q.ndim == k.ndim == v.ndim == 4):
        return ("All fused kernels requires query, key and value to be 4 dimensional, but got Query dim: "
                f"{q.ndim}, Key dim: {k.ndim}, Value dim: {v.ndim} instead.")
    if not (q.shape[-1] == k.shape[-1] == v.shape[-1]):
        return ("Flash attention requires q,k,v to have the same last dimension. Got Query.size(-1): "
                f"{q.shape[-1]}, Key.size(-1): {k.shape[-1]}, Value.size(-1): {v.shape[-1]} instead.")
    return None


def sdp_kernel(enable_flash=True, enable_math=True, enable_mem_efficient=True, enable_cudnn=True):
    """Mirrors the deprecated torch.backends.cuda.sdp_kernel: a FutureWarning, then a context manager that
    enables only the chosen backends inside the block, as ``nn.attention.sdpa_kernel`` of that list does."""
    import warnings
    warnings.warn("`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context manager will be "
                  "removed. Please see `torch.nn.attention.sdpa_kernel()` for the new context manager, with "
                  "updated signature.", FutureWarning, stacklevel=2)
    return _sdp_switches({"flash": enable_flash, "mem_efficient": enable_mem_efficient, "math": enable_math,
                          "cudnn": enable_cudnn, "overrideable": False})


@contextlib.contextmanager
def _sdp_switches(switches):
    previous = dict(_SDP)
    try:
        _SDP.update(switches)
        yield {}
    finally:
        _SDP.update(previous)
