"""torch._C: the few names of torch's C++ binding module that libraries use from Python.

Dispatch keys exist for torch.library registrations (``Library.impl(op, fn, "AutocastCPU")``) and for
``_ExcludeDispatchKeyGuard``, which makes mstorch's operator registry (``_library``) skip those keys in this
thread, as torch's dispatcher does (torchvision's autocast kernels re-call their op under it)."""
import enum

from . import _library
from ._runtime import AcceleratorError, OutOfMemoryError  # noqa: F401  (torch._C names them too)

# what this build has (torch._C's flags, re-exported as torch.has_*): LAPACK-backed torch.linalg and the FFTs of
# torch.fft, OpenMP threads in MindSpore's CPU kernels; no MKL (torch.backends.mkl.is_available() is False)
has_lapack = True
has_spectral = True
has_openmp = True
has_mkl = False


class DispatchKey(enum.Enum):
    """torch._C.DispatchKey: the keys torch.library registrations name."""
    Undefined = 0
    CPU = 1
    CUDA = 2
    XPU = 3
    MPS = 4
    Meta = 5
    PrivateUse1 = 6
    CompositeImplicitAutograd = 7
    CompositeExplicitAutograd = 8
    Autograd = 9
    AutogradCPU = 10
    AutogradCUDA = 11
    AutocastCPU = 12
    AutocastCUDA = 13
    AutocastXPU = 14
    Python = 15
    BackendSelect = 16


class DispatchKeySet:
    """torch._C.DispatchKeySet: a set of dispatch keys, combined with ``|``."""

    def __init__(self, key=None):
        self._keys = frozenset() if key is None else frozenset([key.name if isinstance(key, DispatchKey) else key])

    def __or__(self, other):
        out = DispatchKeySet()
        out._keys = self._keys | other._keys
        return out

    def has(self, key):
        return (key.name if isinstance(key, DispatchKey) else key) in self._keys

    def __repr__(self):
        return f"DispatchKeySet({', '.join(sorted(self._keys))})"


class _ExcludeDispatchKeyGuard:
    """torch._C._ExcludeDispatchKeyGuard(keyset): while active, operators skip kernels under these keys."""

    def __init__(self, keyset):
        self._guard = _library.exclude_keys(keyset._keys)

    def __enter__(self):
        self._guard.__enter__()
        return self

    def __exit__(self, *exc):
        return self._guard.__exit__(*exc)


from .overrides import (DisableTorchFunctionSubclass, DisableTorchFunction,  # noqa: E402,F401
                        _disabled_torch_function_impl, _push_on_torch_function_stack, _pop_torch_function_stack,
                        _len_torch_function_stack, _get_function_stack_at, _is_torch_function_mode_enabled,
                        _is_torch_function_enabled, _is_torch_function_all_disabled)


def _get_accelerator(check=False):
    """torch._C._get_accelerator: the current accelerator's device, ``cpu`` on a build without one."""
    from .accelerator import current_accelerator
    from ._device import device
    return current_accelerator() or device("cpu")


def _log_api_usage_once(event):
    """torch's API-usage telemetry: it records only where a logging handler is installed in C++, which mstorch
    has none of."""


def _get_tracing_state():
    """torch.jit tracing state: mstorch has no TorchScript tracer, so never tracing."""
    return None


def _get_privateuse1_backend_name():
    return "privateuseone"


class _TorchScriptIR:
    """torch._C.Graph / torch._C.Value as types: ONNX symbolic functions annotate their arguments with them
    (``def symbolic(g: torch._C.Graph, input: torch._C.Value)``, evaluated when the class is defined). mstorch has
    no TorchScript IR, so no value of them is ever made."""

    mstorch_difference = "the type exists for annotations; mstorch has no TorchScript IR, constructing one raises"

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(f"torch._C.{type(self).__name__}: mstorch has no TorchScript graphs (torch.jit "
                                  "runs eagerly)")


class Graph(_TorchScriptIR):
    """Mirrors torch._C.Graph as a type (see _TorchScriptIR)."""


class Value(_TorchScriptIR):
    """Mirrors torch._C.Value as a type (see _TorchScriptIR)."""


Graph.__module__ = Value.__module__ = "torch"



def _parse_to(*args, **kwargs):
    """torch._C._nn._parse_to: the parser behind Tensor.to and Module.to, as (device, dtype, non_blocking,
    memory_format)."""
    from . import _dtype as D
    from ._device import device as _device_cls
    from ._tensor import Tensor, _parse_to as parse
    kwargs = dict(kwargs)
    if "copy" in kwargs or _positional_copy(args):
        raise RuntimeError(".to() does not accept copy argument")
    memory_format = kwargs.pop("memory_format", None)
    non_blocking = kwargs.get("non_blocking", False)
    if not isinstance(non_blocking, bool):
        got = ", ".join([type(a).__name__ for a in args] + [f"{k}={type(v).__name__}" for k, v in kwargs.items()])
        raise TypeError(f"to() received an invalid combination of arguments - got ({got}), but expected one of:")
    if args and isinstance(args[0], (bool, float, complex)):
        # torch's parser turns a Python scalar into a CPU tensor, whose device and dtype it then reads
        dtype = D.bool_ if isinstance(args[0], bool) else D.float64 if isinstance(args[0], float) else D.complex128
        parse((D.float32,) + args[1:], kwargs)     # validates the flags
        return _device_cls("cpu"), dtype, bool(non_blocking or (args[1:] and args[1])), memory_format
    dtype, dev, _ = parse(args, kwargs)
    if args and isinstance(args[0], Tensor):
        dev = args[0].device
    flags = args[_leading_arguments(args):]
    return dev, dtype, bool(non_blocking or (flags and flags[0])), memory_format


def _leading_arguments(args):
    """How many of ``args`` are the device/dtype/tensor of the call (the flags follow them)."""
    from . import _dtype as D
    if not args or isinstance(args[0], bool):
        return 0
    if args[0] is None or isinstance(args[0], (str, int)) or type(args[0]).__name__ == "device":
        return 2 if len(args) > 1 and (args[1] is None or isinstance(args[1], D.dtype)) else 1
    return 1


def _positional_copy(args):
    return len(args) - _leading_arguments(args) >= 2


class _nn:  # noqa: N801 - torch._C._nn, the module of the nn bindings
    """torch._C._nn: the one function of it libraries call from Python."""
    _parse_to = staticmethod(_parse_to)


# TorchScript's executor and fuser switches. mstorch has no TorchScript graphs (torch.jit.script returns the
# Python function), so nothing reads them: they are kept as state and answer as torch's CPU build does
# (timm's set_jit_fuser sets them and reads them back).
_JIT = {"profiling_executor": True, "profiling_mode": True, "fuse_cpu": False, "texpr": True, "nvfuser": False}


def _jit_flag(name, signature, value):
    # pybind11's bool argument takes None and what has a __bool__ (numbers, NumPy scalars), not str or list
    if value is not None and not hasattr(type(value), "__bool__"):
        raise TypeError(f"{name}(): incompatible function arguments. The following argument types are supported:\n"
                        f"    1. {signature}\n\nInvoked with: {value!r}")
    return bool(value)


def _jit_set_profiling_executor(flag):
    previous, _JIT["profiling_executor"] = _JIT["profiling_executor"], _jit_flag(
        "_jit_set_profiling_executor", "(arg0: bool) -> bool", flag)
    return previous


def _jit_set_profiling_mode(flag):
    previous, _JIT["profiling_mode"] = _JIT["profiling_mode"], _jit_flag(
        "_jit_set_profiling_mode", "(arg0: bool) -> bool", flag)
    return previous


def _jit_override_can_fuse_on_cpu(flag):
    _JIT["fuse_cpu"] = _jit_flag("_jit_override_can_fuse_on_cpu", "(arg0: bool) -> None", flag)


def _jit_override_can_fuse_on_gpu(flag):
    """Recorded nowhere: a build without CUDA never fuses on a GPU (torch's CPU build answers False after it)."""
    _jit_flag("_jit_override_can_fuse_on_gpu", "(arg0: bool) -> None", flag)


def _jit_can_fuse_on_cpu():
    return _JIT["fuse_cpu"]


def _jit_can_fuse_on_gpu():
    return False


def _jit_set_texpr_fuser_enabled(flag):
    _JIT["texpr"] = _jit_flag("_jit_set_texpr_fuser_enabled", "(arg0: bool) -> None", flag)


def _jit_texpr_fuser_enabled():
    return _JIT["texpr"]


def _jit_set_nvfuser_enabled(flag):
    """Deprecated in torch and a no-op there too (it logs a C++ warning)."""
    _jit_flag("_jit_set_nvfuser_enabled", "(arg0: bool) -> bool", flag)


def _jit_nvfuser_enabled():
    return None     # what torch's stub answers since nvfuser left TorchScript


def _jit_set_nvfuser_guard_mode(flag):
    """Deprecated in torch and a no-op there too."""
    _jit_flag("_jit_set_nvfuser_guard_mode", "(arg0: bool) -> bool", flag)
