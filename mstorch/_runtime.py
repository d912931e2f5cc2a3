"""MindSpore mode and runtime defaults chosen per device, each overridable by an environment variable.

| setting | CPU default | override |
|---|---|---|
| execution mode | PyNative (eager, as torch) | none: mstorch is eager by design |
| kernel launch | blocking (``mindspore.runtime.launch_blocking()``): the async runtime cost ~1 ms per host sync on a 2-core host | ``MSTORCH_LAUNCH_BLOCKING=0`` keeps MindSpore's asynchronous launch |
| device target | what MindSpore was built for (``CPU`` here) | ``MSTORCH_DEVICE_TARGET=CPU|GPU|Ascend`` |
| threads | MindSpore's default; ``torch.set_num_threads(n)`` sets ``runtime_num_threads`` and numpy's BLAS threads (host kernels, through ``threadpoolctl`` when installed) | ``OMP_NUM_THREADS`` / ``OPENBLAS_NUM_THREADS`` before import |
"""
import os

import mindspore as ms

_state = {"device_target": None}


def _env_flag(name, default):
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() not in ("0", "false", "no", "off", "")


def configure():
    target = os.environ.get("MSTORCH_DEVICE_TARGET")
    if target:
        ms.set_device(target)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    device = ms.get_context("device_target")
    _state["device_target"] = device
    _state["blocking"] = _env_flag("MSTORCH_LAUNCH_BLOCKING", device == "CPU")
    if _state["blocking"]:
        ms.runtime.launch_blocking()
    return device


def launch_is_blocking():
    """Whether kernels finish before the op returns (then host memory can be read without a sync)."""
    return _state.get("blocking", False)


def device_target():
    return _state["device_target"]


# --- torch's runtime knobs ------------------------------------------------------------------------

_knobs = {"num_threads": None, "interop_threads": None, "matmul_precision": "highest", "deterministic": False,
          "warn_only": False}


def set_num_threads(n):
    """torch.set_num_threads -> MindSpore's runtime thread pool size (``runtime_num_threads``) and the
    thread count of numpy's BLAS, which the CPU host kernels (ops/_host.py: linear, attention) run on."""
    if not isinstance(n, int) or isinstance(n, bool) or n <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    ms.set_context(runtime_num_threads=n)
    _knobs["num_threads"] = n
    _limit_host_blas(n)


def _limit_host_blas(n):
    try:
        from threadpoolctl import threadpool_limits   # optional: without it, OpenBLAS keeps its own count
    except ImportError:
        return
    threadpool_limits(n, user_api="blas")


def get_num_threads():
    if _knobs["num_threads"] is not None:
        return _knobs["num_threads"]
    return int(ms.get_context("runtime_num_threads") or os.cpu_count() or 1)


def set_num_interop_threads(n):
    if not isinstance(n, int) or n <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    ms.set_context(inter_op_parallel_num=n)
    _knobs["interop_threads"] = n


def get_num_interop_threads():
    return _knobs["interop_threads"] or int(ms.get_context("inter_op_parallel_num") or 1)


def set_float32_matmul_precision(precision):
    """Stored and read back; MindSpore's CPU matmul is always full float32 (torch's 'highest')."""
    if precision not in ("highest", "high", "medium"):
        import warnings
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _knobs["matmul_precision"] = precision


def get_float32_matmul_precision():
    return _knobs["matmul_precision"]


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Passed to MindSpore's ``deterministic`` context switch; mstorch's RNG is deterministic already."""
    if not isinstance(mode, bool):
        raise TypeError(f"use_deterministic_algorithms(): argument 'mode' must be bool, not {type(mode).__name__}")
    ms.set_context(deterministic="ON" if mode else "OFF")
    _knobs["deterministic"] = mode
    _knobs["warn_only"] = warn_only


def are_deterministic_algorithms_enabled():
    return _knobs["deterministic"]


def is_deterministic_algorithms_warn_only_enabled():
    return _knobs["warn_only"]
