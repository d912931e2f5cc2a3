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

ALL = (float32, float64, float16, bfloat16, uint8, uint16, uint32, uint64, int8, int16, int32, int64,
       bool_, complex64, complex128)
_BY_NAME = {d._name: d for d in ALL}

# torch's aliases, exported from the top-level namespace
ALIASES = {
    "float": float32, "double": float64, "half": float16, "long": int64, "int": int32, "short": int16,
    "bool": bool_, "cfloat": complex64, "cdouble": complex128,
}

_FROM_MS = {d._ms: d for d in ALL}
_FROM_NP = {np.dtype(d._np): d for d in ALL if d._np is not None}

_default = [float32]


def from_ms(ms_dtype):
    return _FROM_MS[ms_dtype]


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
    return complex128 if _default[0] is float64 else complex64


# --- promotion ---------------------------------------------------------------------------------

def _promote_pair(a, b):
    if a is b:
        return a
    if a._cat != b._cat:
        hi, lo = (a, b) if a._cat > b._cat else (b, a)
        if hi._cat == _COMPLEX and lo in (float64,):
            return complex128
        return hi
    if a._cat == _FLOAT:
        if {a, b} == {float16, bfloat16}:
            return float32
        return a if a.itemsize >= b.itemsize else b
    if a._cat == _COMPLEX:
        return a if a.itemsize >= b.itemsize else b
    # integers: NumPy's lattice matches torch's for the types torch promotes
    return _FROM_NP[np.promote_types(a._np, b._np)]


_PROMOTE = {(a, b): _promote_pair(a, b) for a in ALL for b in ALL}


def promote_types(a, b):
    return _PROMOTE[(a, b)]


def scalar_dtype(value):
    """The dtype torch gives a Python scalar on its own (``torch.tensor(value)``)."""
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        return int64
    if isinstance(value, float):
        return _default[0]
    if isinstance(value, complex):
        return default_complex()
    raise TypeError(f"unsupported scalar type {type(value).__name__}")


def _cat_of_scalar(value):
    if isinstance(value, bool):
        return _BOOL
    if isinstance(value, int):
        return _INT
    if isinstance(value, float):
        return _FLOAT
    return _COMPLEX


def result_type_parts(dim_dtypes, zero_dim_dtypes, scalars):
    """torch.result_type over three tiers: dimensioned tensors, zero-dim tensors, Python scalars.

    A lower tier only counts when its category is above every higher tier's category.
    """
    state = None
    for d in dim_dtypes:
        state = d if state is None else _PROMOTE[(state, d)]
    zstate = None
    for d in zero_dim_dtypes:
        zstate = d if zstate is None else _PROMOTE[(zstate, d)]
    if zstate is not None:
        if state is None:
            state = zstate
        elif zstate._cat > state._cat:
            state = _PROMOTE[(state, zstate)] if zstate._cat == _COMPLEX else zstate
    sstate = None
    for s in scalars:
        cat = _cat_of_scalar(s)
        if sstate is None or cat > sstate:
            sstate = cat
    if sstate is not None:
        if state is None:
            state = {_BOOL: bool_, _INT: int64, _FLOAT: _default[0], _COMPLEX: default_complex()}[sstate]
        elif sstate > state._cat:
            if sstate == _FLOAT:
                state = _default[0]
            elif sstate == _COMPLEX:
                state = complex128 if state is float64 else (
                    default_complex() if state._cat < _FLOAT else state.to_complex())
            else:
                state = int64
    return state


def can_cast(from_, to):
    """torch.can_cast: no casting to a lower category (bool < int < float < complex)."""
    return from_._cat <= to._cat
