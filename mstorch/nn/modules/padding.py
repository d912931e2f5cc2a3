"""Padding layers: Zero/Constant/Reflection/Replication/Circular Pad 1d-3d (torch's F.pad order)."""
from .. import functional as F
from .utils import _ntuple, _pair, _quadruple
from .module import Module

__all__ = ["CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d"]

_sextuple = _ntuple(6)


class _PadNd(Module):
    _mode = "constant"
    _expand = staticmethod(_pair)

    def __init__(self, padding):
        super().__init__()
        self.padding = self._expand(padding)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class _CircularPadNd(_PadNd):
    _mode = "circular"
    _dims = 1

    def forward(self, input):
        n = self._dims
        if input.dim() != n + 1 and input.dim() != n + 2:
            raise ValueError(f"expected {n + 1}D or {n + 2}D input (got {input.dim()}D input)")
        return F.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    _expand, _dims = staticmethod(_pair), 1


class CircularPad2d(_CircularPadNd):
    _expand, _dims = staticmethod(_quadruple), 2


class CircularPad3d(_CircularPadNd):
    _expand, _dims = staticmethod(_sextuple), 3


class _ConstantPadNd(Module):
    _expand = staticmethod(_pair)

    def __init__(self, padding, value):
        super().__init__()
        self.value = value
        self.padding = self._expand(padding)

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    _expand = staticmethod(_pair)


class ConstantPad2d(_ConstantPadNd):
    _expand = staticmethod(_quadruple)


class ConstantPad3d(_ConstantPadNd):
    _expand = staticmethod(_sextuple)


class ReflectionPad1d(_PadNd):
    _mode, _expand = "reflect", staticmethod(_pair)


class ReflectionPad2d(_PadNd):
    _mode, _expand = "reflect", staticmethod(_quadruple)


class ReflectionPad3d(_PadNd):
    _mode, _expand = "reflect", staticmethod(_sextuple)


class ReplicationPad1d(_PadNd):
    _mode, _expand = "replicate", staticmethod(_pair)


class ReplicationPad2d(_PadNd):
    _mode, _expand = "replicate", staticmethod(_quadruple)


class ReplicationPad3d(_PadNd):
    _mode, _expand = "replicate", staticmethod(_sextuple)


class ZeroPad1d(ConstantPad1d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"
