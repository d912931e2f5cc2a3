"""The float32 precision settings of torch.backends (``fp32_precision`` per backend and operator) and the legacy
switches that overlap them (``cuda.matmul.allow_tf32``, ``cudnn.allow_tf32``, ``set_float32_matmul_precision``),
kept as one state with torch 2.13's rules: an operator left at ``none`` reads its backend's ``all``, then the
generic setting; the legacy setters write the new settings, and a read that finds the two APIs disagreeing raises
torch's "mix of the legacy and new APIs" RuntimeError. No effect on numerics: MindSpore's CPU kernels always
compute float32 in full precision (torch on CPU: the same)."""
_DOCS = " See also: https://pytorch.org/docs/main/notes/cuda.html#tensorfloat-32-tf32-on-ampere-and-later-devices"
_MIXED_CUBLAS = ("PyTorch is checking whether allow_tf32_new is enabled for cuBlas matmul,Current status indicate "
                 "that you have used mix of the legacy and new APIs to set the TF32 status for cublas matmul. We "
                 "suggest only using the new API to set the TF32 flag." + _DOCS)
_MIXED_MATMUL = ("PyTorch is checking the matmul precision without a specific backend name,Current status indicate "
                 "that you have used mix of the legacy and new APIs to set the matmul precision. We suggest only "
                 "using the new API for matmul precision." + _DOCS)
_MIXED_CUDNN = ("PyTorch is checking whether allow_tf32 is enabled for cuDNN without a specific operator name,but the "
                "current flag(s) indicate that cuDNN conv and cuDNN RNN have different TF32 flags.This combination "
                "indicates that you have used a mix of the legacy and new APIs to set the TF32 flags. We suggest "
                "only using the new API to set the TF32 flag(s)." + _DOCS)

_PRECISIONS = ("none", "ieee", "tf32", "bf16")
_OPS = ("matmul", "conv", "rnn")


# what was set on each (backend, operator); ``none`` defers to the backend's ``all``, then to the generic setting
_ENTRIES = {("generic", "all"): "none", **{(backend, op): "none" for backend in ("cuda", "mkldnn")
                                           for op in ("all",) + _OPS}}
_LEGACY = {"matmul_precision": "highest", "cudnn_tf32": True}


def get(backend, op):
    p = _ENTRIES[(backend, op)]
    if p == "none":
        p = _ENTRIES[(backend, "all")] if backend != "generic" else p
    if p == "none":
        p = _ENTRIES[("generic", "all")]
    if backend == "cuda" and p == "bf16":       # cuda has no bf16 mode: it reads as none
        return "none"
    if p == "none" and backend == "cuda" and op in ("conv", "rnn"):
        return "tf32" if _LEGACY["cudnn_tf32"] else "none"     # cuDNN's legacy switch, on by default
    return p


def set(backend, op, precision):
    if not isinstance(precision, str):
        raise TypeError("_set_fp32_precision_setter(): incompatible function arguments. The following argument types "
                        "are supported:\n    1. (arg0: str, arg1: str, arg2: str) -> str\n\nInvoked with: "
                        f"'{backend}', '{op}', {precision!r}")
    if precision not in _PRECISIONS:
        raise RuntimeError(f"Unknown precision: {precision}")
    if backend == "cuda" and precision == "bf16":
        raise RuntimeError("backend 'cuda' does not support precision 'bf16'")
    _ENTRIES[(backend, op)] = precision


# --- the legacy APIs ---------------------------------------------------------------------------------------------

def _check_bool(value):
    if not isinstance(value, bool):
        raise RuntimeError(f"set_allow_tf32_cublas expects a bool, but got {type(value).__name__}")


def cublas_allow_tf32():
    new = get("cuda", "matmul") == "tf32"
    if (_LEGACY["matmul_precision"] != "highest") != new:
        raise RuntimeError(_MIXED_CUBLAS)
    return new


def set_cublas_allow_tf32(value):
    _check_bool(value)
    _LEGACY["matmul_precision"] = "high" if value else "highest"
    set("cuda", "matmul", "tf32" if value else "ieee")


def cudnn_allow_tf32():
    conv, rnn = get("cuda", "conv") == "tf32", get("cuda", "rnn") == "tf32"
    if not conv == rnn == _LEGACY["cudnn_tf32"]:
        raise RuntimeError(_MIXED_CUDNN)
    return _LEGACY["cudnn_tf32"]


def set_cudnn_allow_tf32(value):
    _check_bool(value)
    _LEGACY["cudnn_tf32"] = value
    set("cuda", "conv", "tf32" if value else "none")
    set("cuda", "rnn", "tf32" if value else "none")


def float32_matmul_precision():
    legacy, mkl = _LEGACY["matmul_precision"], get("mkldnn", "matmul")
    if ((get("cuda", "matmul") == "tf32" and legacy == "highest") or (mkl == "bf16" and legacy != "medium")
            or (mkl == "tf32" and legacy != "high")):
        raise RuntimeError(_MIXED_MATMUL)
    return legacy


_MATMUL_MODES = {"highest": ("ieee", "ieee"), "high": ("tf32", "tf32"), "medium": ("tf32", "bf16")}


def set_float32_matmul_precision(precision):
    _LEGACY["matmul_precision"] = precision
    cuda, mkldnn = _MATMUL_MODES[precision]
    set("cuda", "matmul", cuda)
    set("mkldnn", "matmul", mkldnn)


def setting(backend, op, writes=None):
    """A ``fp32_precision`` property reading (backend, op) and writing ``writes`` (default: the same pair)."""
    return property(lambda self: get(backend, op), lambda self, value: set(*(writes or (backend, op)), value))


class _FP32Precision:
    """torch.backends.<backend>.<op>: an object whose only attribute is ``fp32_precision``."""

    def __init__(self, backend, op):
        object.__setattr__(self, "backend", backend)
        object.__setattr__(self, "op", op)

    def __getattr__(self, name):
        raise AttributeError("Unknown attribute " + name)

    def __setattr__(self, name, value):
        if name == "fp32_precision":
            set(self.backend, self.op, value)
        elif name in ("backend", "op"):
            object.__setattr__(self, name, value)
        else:
            raise AttributeError("Unknown attribute " + name)

    @property
    def fp32_precision(self):
        return get(self.backend, self.op)
