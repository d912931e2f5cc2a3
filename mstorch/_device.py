"""torch.device and the mapping of torch device strings onto MindSpore's single device target."""
from . import _runtime

_TYPES = ("cpu", "cuda", "npu", "mps", "xpu", "meta", "xla", "hpu", "privateuseone")


class device:
    """Mirrors ``torch.device``: ``device('cuda:0')``, ``device('cpu')``, ``device('cuda', 1)``."""

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if isinstance(type, int):
            type, index = _accelerator_type(), type
        if not isinstance(type, str):
            raise TypeError(f"device() received an invalid combination of arguments - got ({type.__class__.__name__})")
        if ":" in type:
            if index is not None:
                raise RuntimeError(f"type (string) must not include an index because index was passed explicitly: {type}")
            type, _, idx = type.partition(":")
            if not idx.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}:{idx}'")
            index = int(idx)
        if type not in _TYPES:
            raise RuntimeError(
                "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, "
                "xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device "
                f"string: {type}")
        if index is not None and index < 0:
            raise RuntimeError(f"Device index must not be negative")
        self.type = type
        self.index = index

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and self.type == other.type and self.index == other.index

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _accelerator_type():
    target = _runtime.device_target()
    return {"GPU": "cuda", "Ascend": "npu"}.get(target, "cpu")


CPU = device("cpu")


def current_device():
    """The torch device that tensors live on: MindSpore runs every op on one device target."""
    kind = _accelerator_type()
    return CPU if kind == "cpu" else device(kind, 0)


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
    if dev.type == "cuda":
        raise AssertionError("Torch not compiled with CUDA enabled")
    raise RuntimeError(f"mstorch: device '{dev}' is not available; MindSpore's device target is "
                       f"{_runtime.device_target()}")
