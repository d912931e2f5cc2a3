"""torch.finfo / torch.iinfo: machine limits of floating and integer dtypes."""
import math

import numpy as np

from . import _dtype as D

# bfloat16 has no NumPy type here: its limits, as torch reports them
_BF16 = dict(bits=16, eps=0.0078125, max=3.3895313892515355e+38, tiny=1.1754943508222875e-38, resolution=0.01)
# the float8 formats (no NumPy types either): (eps, max, tiny) as torch reports them; min is -max except for
# the exponent-only e8m0, whose smallest value is its tiny
_FLOAT8 = {"float8_e4m3fn": (0.125, 448.0, 0.015625), "float8_e5m2": (0.25, 57344.0, 6.103515625e-05),
           "float8_e4m3fnuz": (0.125, 240.0, 0.0078125), "float8_e5m2fnuz": (0.125, 57344.0, 3.0517578125e-05),
           "float8_e8m0fnu": (1.0, 1.7014118346046923e+38, 5.877471754111438e-39)}


def _check_dtype(fn, type_):
    if not isinstance(type_, D.dtype):
        raise TypeError(f"{fn}(): argument 'type' (position 1) must be torch.dtype, not {type(type_).__name__}")


class finfo:
    """Mirrors ``torch.finfo``; a complex dtype reports the limits of its real part."""

    __hash__ = None

    def __init__(self, type=None):
        type_ = D.get_default_dtype() if type is None else type
        _check_dtype("finfo", type_)
        if type_._cat < D._FLOAT:
            raise TypeError(
                "torch.finfo() requires a floating point input type. Use torch.iinfo to handle 'torch.finfo'")
        real = type_.to_real()
        if real is D.bfloat16:
            v = _BF16
        elif real._name in _FLOAT8:
            eps, mx, tiny = _FLOAT8[real._name]
            v = dict(bits=8, eps=eps, max=mx, tiny=tiny, resolution=1.0)
        else:
            f = np.finfo(real._np)
            # resolution as torch computes it in double: 10 ** -floor(-log10(eps))
            v = dict(bits=f.bits, eps=float(f.eps), max=float(f.max), tiny=float(f.tiny),
                     resolution=10.0 ** -math.floor(-math.log10(float(f.eps))))
        self.bits = v["bits"]
        self.eps = v["eps"]
        self.max = v["max"]
        self.min = v["tiny"] if real._name == "float8_e8m0fnu" else -v["max"]
        self.tiny = v["tiny"]
        self.smallest_normal = v["tiny"]
        self.resolution = v["resolution"]
        self.dtype = real._name

    def __eq__(self, other):
        return isinstance(other, finfo) and (self.bits, self.dtype) == (other.bits, other.dtype)

    def __ne__(self, other):
        return not self == other

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")

    __str__ = __repr__


class iinfo:
    """Mirrors ``torch.iinfo``."""

    __hash__ = None

    def __init__(self, type):
        _check_dtype("iinfo", type)
        if type._cat != D._INT:
            if type is D.bool_:
                raise TypeError("torch.bool is not supported by torch.iinfo")
            raise TypeError(
                "torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        i = np.iinfo(type._np)
        self.bits = i.bits
        self.max = int(i.max)
        self.min = int(i.min)
        self.dtype = type._name

    def __eq__(self, other):
        return isinstance(other, iinfo) and (self.bits, self.dtype) == (other.bits, other.dtype)

    def __ne__(self, other):
        return not self == other

    def __repr__(self):
        return f"iinfo(min={float(self.min):g}, max={float(self.max):g}, dtype={self.dtype})"

    __str__ = __repr__
