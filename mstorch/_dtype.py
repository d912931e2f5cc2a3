"""torch dtype objects, their MindSpore and NumPy counterparts, the default dtype and type promotion."""
import numpy as np
import mindspore as ms

# category ranks used by torch's promotion: bool < integral < floating < complex
_BOOL, _INT, _FLOAT, _COMPLEX = 0, 1, 2, 3


class dtype:
    """Mirrors ``torch.dtype``: a singleton per type, printed as ``torch.<name>``."""

    __slots__ = ("_name", "is_floating_point", "is_complex", "is_signed", "itemsize", "_ms", "_np",
                 "_cat", "__weakref__")

    def __init__(self, name, ms_dtype, np_dtype, cat, itemsize, signed):
        self._name = name
        self._ms = ms_dtype
        self._np = np_dtype
        self._cat = cat
        self.itemsize = itemsize
        self.is_floating_point = cat == _FLOAT
        self.is_complex = cat == _COMPLEX
        self.is_signed = signed

    def __repr__(self):
        return f"torch.{self._name}"

    def __reduce__(self):
        return (_dtype_by_name, (self._name,))

    def to_real(self):
        return {complex64: float32, complex128: float64}.get(self, self)

    def to_complex(self):
        return {float32: complex64, float64: complex128, float16: complex64}.get(self, self)


def _dtype_by_name(name):
    return _BY_NAME[name]


float32 = dtype("float32", ms.float32, np.float32, _FLOAT, 4, True)
float64 = dtype("float64", ms.float64, np.float64, _FLOAT, 8, True)
float16 = dtype("float16", ms.float16, np.float16, _FLOAT, 2, True)
bfloat16 = dtype("bfloat16", ms.bfloat16, None, _FLOAT, 2, True)
uint8 = dtype("uint8", ms.uint8, np.uint8, _INT, 1, False)
uint16 = dtype("uint16", ms.uint16, np.uint16, _INT, 2, False)
uint32 = dtype("uint32", ms.uint32, np.uint32, _INT, 4, False)
uint64 = dtype("uint64", ms.uint64, np.uint64, _INT, 8, False)
int8 = dtype("int8", ms.int8, np.int8, _INT, 1, True)
int16 = dtype("int16", ms.int16, np.int16, _INT, 2, True)
int32 = dtype("int32", ms.int32, np.int32, _INT, 4, True)
int64 = dtype("int64", ms.int64, np.int64, _INT, 8, True)
bool_ = dtype("bool", ms.bool_, np.bool_, _BOOL, 1, False)
complex64 = dtype("complex64", ms.complex64, np.complex64, _COMPLEX, 8, True)
complex128 = dtype("complex128", ms.complex128, np.complex128, _COMPLEX, 16, True)

class _StorageOnlyDtype(dtype):
    """A torch dtype MindSpore cannot hold on this platform (float8, float4, complex32, bits, quantized):
    the object exists, prints and compares as torch's, and any tensor of it refuses by name."""
    __slots__ = ()

    def _refuse(self):
        raise RuntimeError(f"mstorch: tensors of dtype torch.{self._name} are not supported: MindSpore 2.10 has no "
                           "CPU kernels (not even a cast) for it")

    _ms = property(_refuse)
    _np = property(_refuse)


def _storage_only(name, cat, itemsize, signed):
    d = object.__new__(_StorageOnlyDtype)
    for attr, value in (("_name", name), ("_cat", cat), ("itemsize", itemsize), ("is_floating_point", cat == _FLOAT),
                        ("is_complex", cat == _COMPLEX), ("is_signed", signed)):
        object.__setattr__(d, attr, value)
    return d


# torch 2.13's dtypes without a MindSpore counterpart here (see _StorageOnlyDtype)
float8_e4m3fn = _storage_only("float8_e4m3fn", _FLOAT, 1, True)
float8_e4m3fnuz = _storage_only("float8_e4m3fnuz", _FLOAT, 1, True)
float8_e5m2 = _storage_only("float8_e5m2", _FLOAT, 1, True)
float8_e5m2fnuz = _storage_only("float8_e5m2fnuz", _FLOAT, 1, True)
float8_e8m0fnu = _storage_only("float8_e8m0fnu", _FLOAT, 1, False)
float4_e2m1fn_x2 = _storage_only("float4_e2m1fn_x2", _FLOAT, 1, True)
complex32 = _storage_only("complex32", _COMPLEX, 4, True)
STORAGE_ONLY = (float8_e4m3fn, float8_e4m3fnuz, float8_e5m2, float8_e5m2fnuz, float8_e8m0fnu, float4_e2m1fn_x2,
                complex32)


ALL = (float32, float64, float16, bfloat16, uint8, uint16, uint32, uint64, int8, int16, int32, int64,
       bool_, complex64, complex128)
_BY_NAME = {d._name: d for d in ALL + STORAGE_ONLY}



class _NoKernelDtype(dtype):
    """A torch dtype MindSpore cannot hold on this device (the float8 formats): the dtype object itself
    works (``repr``, ``itemsize``, ``torch.finfo``, comparisons, pickling), and making a tensor of it raises
    ``NotImplementedError`` naming it, at the first place that asks for its MindSpore or NumPy type."""

    __slots__ = ("_why",)

    def __init__(self, name, why, signed=True):
        self._name, self._cat, self.itemsize, self._why = name, _FLOAT, 1, why
        self.is_floating_point, self.is_complex, self.is_signed = True, False, signed
        self._why = why

    def _refuse(self):
        raise NotImplementedError(f"mstorch: tensors of dtype torch.{self._name} are not supported: {self._why}")

    _ms = property(lambda self: self._refuse())
    _np = property(lambda self: self._refuse())

    def to_real(self):
        return self

    def to_complex(self):
        return self


_FLOAT8_WHY = "MindSpore 2.10 has no float8 kernels on CPU (not even a cast)"
float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz, float8_e8m0fnu = (
    _NoKernelDtype(n, _FLOAT8_WHY, n != "float8_e8m0fnu")
    for n in ("float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu"))
NO_KERNEL = (float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz, float8_e8m0fnu)
_BY_NAME.update({d._name: d for d in NO_KERNEL})

# torch's aliases, exported from the top-level namespace
ALIASES = {
    "float": float32, "double": float64, "half": float16, "long": int64, "int": int32, "short": int16,
    "bool": bool_, "cfloat": complex64, "cdouble": complex128,
}

# torch's ScalarType names: error messages, legacy tensor types (torch.FloatTensor), storage classes
SCALAR_TYPE_NAMES = {
    float32: "Float", float64: "Double", float16: "Half", bfloat16: "BFloat16", uint8: "Byte",
    int8: "Char", int16: "Short", int32: "Int", int64: "Long", bool_: "Bool",
    complex64: "ComplexFloat", complex128: "ComplexDouble", uint16: "UInt16", uint32: "UInt32",
    uint64: "UInt64",
}


def scalar_type_name(d):
    return SCALAR_TYPE_NAMES.get(d) or d._name.capitalize()  # Float8_e4m3fn, as torch names it


_FROM_MS = {d._ms: d for d in ALL}
# MindSpore dtypes are singletons; hashing one costs ~0.3 us, id() ~0.05 us (hot path: Tensor.dtype)
_FROM_MS_ID = {id(d._ms): d for d in ALL}
_FROM_NP = {np.dtype(d._np): d for d in ALL if d._np is not None}

_default = [float32]


def from_numpy_dtype(np_dtype):
    try:
        return _FROM_NP[np.dtype(np_dtype)]
    except KeyError:
        raise TypeError(
            f"can't convert np.ndarray of type {np.dtype(np_dtype)}. The only supported types are: "
            "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, "
            "uint32, uint16, uint8, and bool.") from None


def get_default_dtype():
    return _default[0]


def set_default_dtype(d):
    if not isinstance(d, dtype) or d not in (float32, float64, float16, bfloat16):
        raise TypeError("only floating-point types are supported as the default type")
    _default[0] = d


def default_complex():
    """The complex dtype torch's printing treats as the default (cfloat unless the default is float64)."""
    return complex128 if _default[0] is float64 else complex64


def complex_of_default():
    """The dtype torch gives a complex Python number under the current default dtype."""
    d = _default[0]
    if d is float16:   # torch gives complex32 (ComplexHalf): never a silently different dtype
        raise RuntimeError(
            "mstorch: under torch.set_default_dtype(torch.float16) a complex value becomes torch.complex32, "
            "which MindSpore has no dtype for; pass dtype=torch.complex64 or use a float32 default")
    if d is bfloat16:
        raise RuntimeError("invalid default scalar type for complex")
    return complex128 if d is float64 else complex64


# --- promotion ---------------------------------------------------------------------------------

_BITS_UNSIGNED = None  # filled below: uint16/32/64 only promote with themselves and floating types


def _promote_pair(a, b):
    if a is b:
        return a
    if (a in _BITS_UNSIGNED and b._cat != _FLOAT) or (b in _BITS_UNSIGNED and a._cat != _FLOAT):
        return None
    if a._cat != b._cat:
        hi, lo = (a, b) if a._cat > b._cat else (b, a)
        if hi._cat == _COMPLEX and lo is float64:
            return complex128
        return hi
    if a._cat == _FLOAT:
        if {a, b} == {float16, bfloat16}:
            return float32
        return a if a.itemsize >= b.itemsize else b
    if a._cat == _COMPLEX:
        return a if a.itemsize >= b.itemsize else b
    # integers: NumPy's lattice matches torch's for int8..int64 and uint8
    return _FROM_NP[np.promote_types(a._np, b._np)]


_BITS_UNSIGNED = (uint16, uint32, uint64)
_PROMOTE = {(a, b): _promote_pair(a, b) for a in ALL for b in ALL}


def promote_types(a, b):
    r = _PROMOTE.get((a, b))
    if r is None and (a in NO_KERNEL or b in NO_KERNEL):
        if a is b:
            return a
        n = scalar_type_name
        raise RuntimeError(f"Promotion for Float8 Types is not supported, attempted to promote {n(a)} and {n(b)}")
    if r is None:
        n = scalar_type_name
        raise RuntimeError(
            f"Promotion for uint16, uint32, uint64 types is not supported, attempted to promote {n(a)} and {n(b)}")
    return r


def scalar_dtype(value):
    """The dtype torch gives a Python scalar on its own (``torch.tensor(value)``)."""
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        return int64
    if isinstance(value, float):
        return _default[0]
    if isinstance(value, complex):
        return complex_of_default()
    raise TypeError(f"unsupported scalar type {type(value).__name__}")


def _scalar_cat(value):
    if isinstance(value, bool):
        return _BOOL
    if isinstance(value, int):
        return _INT
    if isinstance(value, float):
        return _FLOAT
    return _COMPLEX


def dtype_of_category(cat):
    """The dtype torch infers for a Python scalar of category ``cat``."""
    return complex_of_default() if cat == _COMPLEX else (bool_, int64, _default[0])[cat]


def _to_complex(d):
    if d is float16:
        # torch gives complex32 (ComplexHalf), which MindSpore has no dtype for
        raise RuntimeError(
            "mstorch: this promotion gives torch.complex32 (float16 with a complex operand), which MindSpore "
            "has no dtype for; cast the float16 operand to float32 first")
    return complex128 if d is float64 else complex64


def _combine(higher, lower):
    """torch's combine_categories: a lower-priority tier only wins with a higher category."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    hc = higher._cat
    if hc == _COMPLEX:
        return higher
    lc = lower._cat
    if lc == _COMPLEX:
        return _to_complex(higher) if hc == _FLOAT else lower
    if hc == _FLOAT:
        return higher
    if hc == _BOOL or lc == _FLOAT:
        return promote_types(higher, lower)
    return higher


def result_type_parts(dim_dtypes, zero_dim_dtypes, scalars):
    """torch.result_type over three tiers: dimensioned tensors, zero-dim tensors, Python scalars."""
    state = None
    for d in dim_dtypes:
        state = d if state is None else promote_types(state, d)
    zstate = None
    for d in zero_dim_dtypes:
        zstate = d if zstate is None else promote_types(zstate, d)
    sstate = None
    for s in scalars:
        d = scalar_dtype(s)
        sstate = d if sstate is None else promote_types(sstate, d)
    return _combine(state, _combine(zstate, sstate))


def can_cast(from_, to):
    """torch.can_cast: no casting to a lower category (bool < int < float < complex)."""
    return from_._cat <= to._cat


# the C++ names torch's cast errors use for a scalar's target type ("can't be cast to the desired output
# type long int")
CPP_TYPE_NAMES = {"Long": "long int", "Int": "int", "Short": "short int", "Char": "signed char",
                  "Byte": "unsigned char", "Bool": "bool", "Float": "float", "Double": "double"}
