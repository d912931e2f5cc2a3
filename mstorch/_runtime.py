"""MindSpore mode and runtime defaults chosen per device, each overridable by an environment variable.

| setting | CPU default | override |
|---|---|---|
| execution mode | PyNative (eager, as torch) | none: mstorch is eager by design |
| kernel launch | blocking (``mindspore.runtime.launch_blocking()``): the async runtime cost ~1 ms per host sync on a 2-core host | ``MSTORCH_LAUNCH_BLOCKING=0`` keeps MindSpore's asynchronous launch |
| device target | what MindSpore was built for (``CPU`` here) | ``MSTORCH_DEVICE_TARGET=CPU|GPU|Ascend`` |
| device path | the CPU workarounds (host reads) on CPU, kernel-only ops elsewhere | ``MSTORCH_DEVICE_PATH=1`` runs the kernel-only path on CPU |
| index checks | on the host path; not on the device path (as torch's CUDA kernels) | ``MSTORCH_CHECK_INDICES=1`` checks them on every path |
| threads | MindSpore's default; ``torch.set_num_threads(n)`` sets ``runtime_num_threads`` and numpy's BLAS threads (host kernels, through ``threadpoolctl`` when installed) | ``OMP_NUM_THREADS`` / ``OPENBLAS_NUM_THREADS`` before import |

The device path (docs/design.md, "Device path"): ops whose MindSpore CPU kernel is wrong read values on the
host to fix the result (a NaN scan, a row-sum check, an index-range check, a NumPy optimizer update). On a
device every such read is a device->host copy and a sync, so there the op runs its kernels only.
``host_workarounds()`` is that choice, made once in ``configure()``; ``read_host`` is the one place where
mstorch reads a tensor's values into host memory, and ``host_reads()`` counts those reads.

A requested target MindSpore cannot load (no CUDA/cuDNN or CANN libraries) does not fail the import: as
torch on a machine without the device, the process runs on CPU and ``torch.cuda.is_available()`` answers
False (``requested_target()`` keeps what was asked, for error messages).
"""
import contextlib
import os
import traceback

import mindspore as ms

_state = {"device_target": None, "requested": None}


def _env_flag(name, default):
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() not in ("0", "false", "no", "off", "")


# host_workarounds() and launch_is_blocking() together, read as a constant on the per-op path (host_view):
# CPU memory can be read in place, without a sync. Set by configure().
DIRECT_HOST_READS = False


def configure():
    target = os.environ.get("MSTORCH_DEVICE_TARGET", "").strip()
    if target and target.upper() != "CPU":
        if _target_loads(target):
            ms.set_device(target, _device_id())
        else:
            _state["requested"] = target
    elif target:
        ms.set_device("CPU")
    ms.set_context(mode=ms.PYNATIVE_MODE)
    device = ms.get_context("device_target")
    _state["device_target"] = device
    _state["blocking"] = _env_flag("MSTORCH_LAUNCH_BLOCKING", device == "CPU")
    _state["host_workarounds"] = device == "CPU" and not _env_flag("MSTORCH_DEVICE_PATH", False)
    _state["check_indices"] = _state["host_workarounds"] or _env_flag("MSTORCH_CHECK_INDICES", False)
    global DIRECT_HOST_READS
    DIRECT_HOST_READS = _state["host_workarounds"] and _state["blocking"]
    if _state["blocking"]:
        ms.runtime.launch_blocking()
    return device


def _target_loads(target):
    """Whether MindSpore can run on ``target`` here (its plugin and the CUDA/CANN libraries load)."""
    try:
        return bool(ms.hal.is_available(target))
    except Exception:  # noqa: BLE001 - an unknown target name is not available either
        return False


def _device_id():
    """The device this process uses: torchrun's LOCAL_RANK, msrun's DEVICE_ID, else 0 (torch.cuda.set_device
    can still choose another before the first tensor is made)."""
    for name in ("LOCAL_RANK", "DEVICE_ID"):
        value = os.environ.get(name, "")
        if value.isdigit():
            return int(value)
    return 0


def requested_target():
    """The MSTORCH_DEVICE_TARGET that could not be loaded (None when the target in use is the one asked)."""
    return _state["requested"]


def launch_is_blocking():
    """Whether kernels finish before the op returns (then host memory can be read without a sync)."""
    return _state.get("blocking", False)


def device_target():
    return _state["device_target"]


def host_workarounds():
    """Whether ops take their CPU workarounds (reads on the host), or run kernel-only (the device path)."""
    return _state["host_workarounds"]


def check_indices():
    """Whether gather/scatter/indexing/embedding check index ranges (on the host), as torch's CPU kernels
    do; torch's CUDA kernels do not (a device-side assert at best), nor does the device path."""
    return _state["check_indices"]


# --- device -> host reads -------------------------------------------------------------------------

# True while torch.compile records a forward into a MindSpore graph (_compile): a trace keeps the branch
# taken for the example input, so the ops whose kernel-only form is also correct on CPU (NaN propagation
# of relu/clamp/max pooling, the NaN test of reductions) take that form then, and host kernels step aside
CAPTURE = [False]

READS = {"count": 0, "where": None}   # "where": a list collecting stacks, inside recording_host_reads()


def read_host(ms_t):
    """``ms_t.asnumpy()``, counted: every read of a tensor's values into host memory goes through here
    (or through ``note_host_read`` for the zero-copy views of ``_tensor.host_view``)."""
    note_host_read()
    return ms_t.asnumpy()


def note_host_read():
    READS["count"] += 1
    if READS["where"] is not None:
        READS["where"].append("".join(traceback.format_stack(limit=8)[:-2]))


def host_reads():
    """How many device->host reads mstorch made in this process (tests assert none inside a step)."""
    return READS["count"]


@contextlib.contextmanager
def recording_host_reads():
    """Collect the stack of each host read inside the block (a list of strings), to find who reads."""
    previous, READS["where"] = READS["where"], []
    try:
        yield READS["where"]
    finally:
        READS["where"] = previous


# --- torch's runtime knobs ------------------------------------------------------------------------

_knobs = {"num_threads": None, "interop_threads": None, "deterministic": False,
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
    """Stored and read back with torch's links to the fp32_precision settings (mstorch/_fp32.py); MindSpore's CPU
    matmul is always full float32 (torch's 'highest')."""
    if precision not in ("highest", "high", "medium"):
        import warnings
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    from . import _fp32
    _fp32.set_float32_matmul_precision(precision)


def get_float32_matmul_precision():
    from . import _fp32
    return _fp32.float32_matmul_precision()


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


_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode):
    """torch.set_deterministic_debug_mode: 0/"default" off, 1/"warn" on with warn_only, 2/"error" on."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got "
                               f"{debug_mode}")
        debug_mode = _DEBUG_MODES[debug_mode]
    elif not isinstance(debug_mode, int):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode > 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    """torch.get_deterministic_debug_mode: 0 off, 1 warn only, 2 error."""
    if not _knobs["deterministic"]:
        return 0
    return 1 if _knobs["warn_only"] else 2


# --- accelerator errors (torch.OutOfMemoryError, torch.AcceleratorError) ----------------------------

class OutOfMemoryError(RuntimeError):
    """torch.OutOfMemoryError (also torch.cuda.OutOfMemoryError): an accelerator allocator's failure. A CPU
    build never raises it (host allocation failures are plain RuntimeErrors in torch too); code catches it."""


class AcceleratorError(RuntimeError):
    """torch.AcceleratorError: an accelerator kernel's asynchronous error; a CPU build never raises it."""


OutOfMemoryError.__module__ = AcceleratorError.__module__ = "torch"


# the kernel lists of the torch.profiler windows recording now: host kernels (numpy on a tensor's memory,
# ops/_host.py) append (name, start us, duration us) to each, as MindSpore's profiler times its own kernels
HOST_KERNEL_LOGS = []
