"""torch.device and the mapping of torch device strings onto MindSpore's single device target."""
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


def _accelerator_type():
    target = _runtime.device_target()
    return {"GPU": "cuda", "Ascend": "npu"}.get(target, "cpu")


def _accelerator_for_index():
    kind = _accelerator_type()
    if kind == "cpu":
        raise RuntimeError("Cannot access accelerator device when none is available.")
    return kind


CPU = device("cpu")
_default = [None]  # torch.set_default_device / ``with torch.device(...)``
_entered = []  # the defaults that enclosing ``with device(...)`` blocks restore


def current_device():
    """The torch device that tensors live on: MindSpore runs every op on one device target."""
    kind = _accelerator_type()
    return CPU if kind == "cpu" else device(kind, 0)


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
    acc = _accelerator_type()
    if dev.type in ("cuda", "npu") and acc != "cpu":
        return
    if dev.type in _NOT_COMPILED:
        raise AssertionError(_NOT_COMPILED[dev.type])
    if dev.type not in ("npu", "hpu", "privateuseone", "lazy"):
        raise RuntimeError(f"PyTorch is not linked with support for {dev.type} devices")
    raise RuntimeError(f"mstorch: device '{dev}' is not available; MindSpore's device target is "
                       f"{_runtime.device_target()}")


def get_default_device():
    """torch.get_default_device."""
    dev = _default[0]
    if dev is None:
        return current_device()
    check_available(dev)
    if dev.type in ("cuda", "npu") and dev.index is None:
        return device(dev.type, 0)
    return dev


def set_default_device(dev):
    """torch.set_default_device (``None`` restores the default)."""
    _default[0] = None if dev is None else device(dev)
