"""torch.device, the accelerator this process has, and where tensors are placed.

A tensor's device is a label on the mstorch wrapper (``Tensor._dev``; None is the CPU): factories,
``.to()``, ``.cuda()`` and ``.cpu()`` set it and move the data through MindSpore (``Tensor.move_to``), and
the generated op wrapper (``ops/_bind.py``) checks that an op's tensors share a device and labels its
results. The accelerator is MindSpore's device target (GPU -> ``cuda``, Ascend -> ``npu``; MindSpore runs one
device per process). ``MSTORCH_FAKE_DEVICES=cuda:2`` (or ``simulate("cuda", 2)`` in tests) makes a CPU-only
process answer as if it had that many devices, backed by host memory, so placement, round trips and torch's
mixed-device errors can be tested without one. Without any device the label is never set and ops pay nothing.
"""
import os
import re

from . import _runtime

_TYPES = ("cpu", "cuda", "npu", "mps", "xpu", "meta", "xla", "hpu", "privateuseone", "ipu", "mkldnn",
          "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia", "lazy", "vulkan", "mtia")
_EXPECTED = ("cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, vulkan, "
             "mps, meta, hpu, mtia, privateuseone")
# torch accepts "type" or "type:index" with an index without leading zeros
_DEVICE_RE = re.compile(r"([a-zA-Z_]+)(?::([1-9]\d*|0))?")
_SIGNATURES = " * (torch.device device)\n * (str type, int index = -1)\n"


class device:
    """Mirrors ``torch.device``: ``device('cuda:0')``, ``device('cpu')``, ``device('cuda', 1)``, ``device(0)``.

    As in torch, a device never equals a string (``device('cpu') == 'cpu'`` is False), and entering
    ``with device(...)`` makes it the default device until the block ends.
    """

    __slots__ = ("type", "index")

    def __init__(self, type=None, index=None):
        if isinstance(type, device):
            if index is not None:
                raise TypeError("device(): argument 'type' (position 1) must be str, not torch.device")
            self.type, self.index = type.type, type.index
            return
        if isinstance(type, int) and not isinstance(type, bool) and index is None:
            type, index = _accelerator_for_index(), type
        elif not isinstance(type, str):
            got = "" if type is None else builtins_type(type).__name__
            raise TypeError(f"device() received an invalid combination of arguments - got ({got}), but "
                            f"expected one of:\n{_SIGNATURES}")
        if index is not None and (not isinstance(index, int) or isinstance(index, bool)):
            raise TypeError(f"device(): argument 'index' (position 2) must be int, not "
                            f"{builtins_type(index).__name__}")
        m = _DEVICE_RE.fullmatch(type)
        if m is None:
            raise RuntimeError(f"Invalid device string: '{type}'")
        kind, idx = m.group(1), m.group(2)
        if kind not in _TYPES:
            raise RuntimeError(f"Expected one of {_EXPECTED} device type at start of device string: {kind}")
        if idx is not None:
            if index is not None:
                raise RuntimeError(
                    f"type (string) must not include an index because index was passed explicitly: {type}")
            index = int(idx)
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        self.type = kind
        self.index = index

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        if not isinstance(other, device):
            return NotImplemented
        return self.type == other.type and self.index == other.index

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))

    def __enter__(self):
        _entered.append(_default[0])
        _default[0] = self
        return self

    def __exit__(self, *exc):
        _default[0] = _entered.pop()
        return False


builtins_type = type


# The accelerator: its torch type ("cuda", "npu") or None, how many devices, whether they are simulated,
# and the current index (torch.cuda.set_device / torch.cuda.device). ``on_placed`` are the callbacks told
# when devices appear or go (the op wrapper switches its device check on only then).
accel = {"kind": None, "count": 0, "simulated": False, "index": 0}
on_placed = []
_KIND_OF_TARGET = {"GPU": "cuda", "Ascend": "npu"}


def configure():
    """Read the accelerator from MindSpore's device target (after ``_runtime.configure``) and from
    ``MSTORCH_FAKE_DEVICES`` (``cuda``, ``cuda:2``, ``npu:1``), which applies only on a CPU target."""
    kind = _KIND_OF_TARGET.get(_runtime.device_target())
    if kind is not None:
        import mindspore as ms
        try:
            count = int(ms.hal.device_count(_runtime.device_target()))
        except Exception:  # noqa: BLE001 - a runtime without the query still has its one device
            count = 1
        _set(kind, max(count, 1), False, int(ms.get_context("device_id") or 0))
        return
    fake = os.environ.get("MSTORCH_FAKE_DEVICES", "").strip()
    if fake:
        fkind, _, n = fake.partition(":")
        if fkind not in ("cuda", "npu") or (n and not n.isdigit()):
            raise RuntimeError(f"MSTORCH_FAKE_DEVICES={fake!r}: expected 'cuda', 'cuda:N', 'npu' or 'npu:N'")
        _set(fkind, int(n or 1), True, 0)


def _set(kind, count, simulated, index=0):
    accel.update(kind=kind, count=count if kind else 0, simulated=simulated, index=index)
    for callback in on_placed:
        callback(kind is not None)


class simulate:
    """Test hook: ``with simulate("cuda", 2):`` gives a CPU-only process two simulated CUDA devices backed by
    host memory (as ``MSTORCH_FAKE_DEVICES=cuda:2``); the previous state is restored on exit."""

    def __init__(self, kind="cuda", count=1):
        if _runtime.device_target() != "CPU":
            raise RuntimeError("mstorch: simulated devices exist only on a CPU target")
        self._saved = dict(accel)
        _set(kind, count, True, 0)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _default[0] = None
        _set(self._saved["kind"], self._saved["count"], self._saved["simulated"], self._saved["index"])
        return False


def select(index):
    """Make ``index`` the accelerator's current device (torch.cuda.set_device). A real device is chosen in
    MindSpore (``mindspore.set_device``), which takes effect only before its runtime starts."""
    if not 0 <= index < accel["count"]:
        raise RuntimeError(f"{'CUDA' if accel['kind'] == 'cuda' else 'NPU'} error: invalid device ordinal")
    if not accel["simulated"] and index != accel["index"]:
        import mindspore as ms
        try:
            ms.set_device(_runtime.device_target(), index)
        except Exception:  # noqa: BLE001 - reported below as the one-device-per-process limit
            pass
        if int(ms.get_context("device_id") or 0) != index:
            raise RuntimeError(
                f"mstorch: MindSpore runs one device per process and this one already uses "
                f"{accel['kind']}:{accel['index']}; call torch.cuda.set_device({index}) before the first tensor "
                "is made, or start one process per device (torchrun / msrun)")
    accel["index"] = index


def _accelerator_type():
    return accel["kind"] or "cpu"


def _accelerator_for_index():
    kind = _accelerator_type()
    if kind == "cpu":
        raise RuntimeError("Cannot access accelerator device when none is available.")
    return kind


CPU = device("cpu")
_default = [None]  # torch.set_default_device / ``with torch.device(...)``
_entered = []  # the defaults that enclosing ``with device(...)`` blocks restore


def current_device():
    """The accelerator's current device (``cuda:0``), or the CPU where there is none."""
    kind = accel["kind"]
    return CPU if kind is None else device(kind, accel["index"])


def placement(dev):
    """The label a tensor made for ``dev`` carries: None for the CPU (and meta, which has its own flag), else
    the accelerator's device with its index (``cuda`` -> ``cuda:<current>``); ``dev`` is checked first."""
    if dev is None:
        return None
    if type(dev) is not device:
        dev = device(dev)
    if dev.type in ("cpu", "meta"):
        return None
    check_available(dev)
    kind = accel["kind"]   # (on Ascend, torch_npu's convention: "cuda" means the NPU)
    return device(kind, accel["index"] if dev.index is None else dev.index)


def default_placement():
    """The label of a factory's result without ``device=``: torch.set_default_device / ``with device``."""
    dev = _default[0]
    return None if dev is None else placement(dev)


# torch's answers for device kinds its CPU build lacks (mstorch never has them either)
_NOT_COMPILED = {
    "cuda": "Torch not compiled with CUDA enabled",
    "xpu": "Torch not compiled with XPU enabled",
    "mtia": "Torch not compiled with MTIA enabled. Ensure you have `import mtia.host_runtime.torch_mtia."
            "dynamic_library` in your python src file and include `//mtia/host_runtime/torch_mtia:torch_mtia` "
            "as your target dependency!",
}


def check_available(dev):
    """Validate a requested device; raise as torch does for one this build cannot reach."""
    if dev is None:
        return
    if not isinstance(dev, device):
        dev = device(dev)
    if dev.type in ("cpu", "meta"):
        return
    kind = accel["kind"]
    if kind is not None and (dev.type == kind or kind == "npu" and dev.type == "cuda"):
        if dev.index is not None and dev.index >= accel["count"]:
            raise RuntimeError(f"{'CUDA' if kind == 'cuda' else 'NPU'} error: invalid device ordinal")
        if dev.index is not None and dev.index != accel["index"] and not accel["simulated"]:
            raise RuntimeError(
                f"mstorch: MindSpore runs one device per process and this one uses {kind}:{accel['index']}, so "
                f"'{dev}' is not reachable; call torch.cuda.set_device({dev.index}) before the first tensor is "
                "made, or start one process per device (torchrun / msrun)")
        return
    if dev.type in _NOT_COMPILED:
        raise AssertionError(_NOT_COMPILED[dev.type])
    if dev.type not in ("npu", "hpu", "privateuseone", "lazy"):
        raise RuntimeError(f"PyTorch is not linked with support for {dev.type} devices")
    raise RuntimeError(f"mstorch: device '{dev}' is not available; MindSpore's device target is "
                       f"{_runtime.device_target()}" + _unavailable_note())


def _unavailable_note():
    wanted = _runtime.requested_target()
    return f" (MSTORCH_DEVICE_TARGET={wanted} was requested but MindSpore could not load it)" if wanted else ""


def get_default_device():
    """torch.get_default_device."""
    dev = _default[0]
    if dev is None:
        return CPU
    check_available(dev)
    if dev.type in ("cuda", "npu") and dev.index is None:
        return device(dev.type, accel["index"])
    return dev


def set_default_device(dev):
    """torch.set_default_device (``None`` restores the default)."""
    _default[0] = None if dev is None else device(dev)
