"""torch.autograd's anomaly mode: ``detect_anomaly``, ``set_detect_anomaly`` and the switches behind
``torch.is_anomaly_enabled`` / ``torch.set_anomaly_enabled``.

With ``check_nan`` on, torch checks every backward function's outputs for NaN and raises naming the
function. MindSpore's engine does not hand us its own nodes' outputs, so the check runs where gradients
pass through mstorch: a custom ``Function``'s backward (named as torch names it), and every gradient
reaching a leaf or an input of ``autograd.grad``. A NaN that a built-in backward makes and a later one
masks is not seen (docs/known-differences.md). torch's second feature, the forward traceback printed
beside a backward error, has no counterpart: MindSpore keeps no forward stack per node.
"""
import warnings

from mindspore import ops as _ops

# (torch keeps one process-wide switch pair, not one per thread)
STATE = {"enabled": False, "check_nan": True}


def is_anomaly_enabled():
    """Mirrors torch.is_anomaly_enabled."""
    return STATE["enabled"]


def is_anomaly_check_nan_enabled():
    """Mirrors torch.is_anomaly_check_nan_enabled."""
    return STATE["check_nan"]


def set_anomaly_enabled(enabled, check_nan=True):
    """Mirrors torch.set_anomaly_enabled."""
    STATE["enabled"], STATE["check_nan"] = bool(enabled), bool(check_nan)


def _checking():
    return STATE["enabled"] and STATE["check_nan"]


def _has_nan(ms_tensor):
    if not (ms_tensor.dtype.is_floating_point or ms_tensor.dtype.is_complex) or ms_tensor.size == 0:
        return False
    return bool(_ops.isnan(ms_tensor).any())


def check_function_outputs(name, grads):
    """torch's check of a backward function's outputs (``grads``: mindspore.Tensors or None)."""
    if not _checking():
        return
    for i, g in enumerate(grads):
        if g is not None and _has_nan(g):
            raise RuntimeError(f"Function '{name}' returned nan values in its {i}th output.")


def check_gradient(grad):
    """The check where a built-in backward's result reaches a leaf or a requested input."""
    if grad is not None and _checking() and _has_nan(grad):
        raise RuntimeError(
            f"Function returned nan values in a gradient of shape {tuple(grad.shape)} (anomaly detection; torch "
            "names the backward function that returned them: MindSpore's engine does not expose which one)")


class detect_anomaly:
    """Mirrors torch.autograd.detect_anomaly (a context manager)."""

    def __init__(self, check_nan=True):
        self.prev = STATE["enabled"]
        self.check_nan = check_nan
        self.prev_check_nan = STATE["check_nan"]
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only "
                      "be enabled for debugging.", stacklevel=2)

    def __enter__(self):
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args):
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """Mirrors torch.autograd.set_detect_anomaly: switches anomaly mode on or off now, and back on exit
    when used as a context manager."""

    def __init__(self, mode, check_nan=True):
        self.prev = STATE["enabled"]
        self.prev_check_nan = STATE["check_nan"]
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *args):
        set_anomaly_enabled(self.prev, self.prev_check_nan)
