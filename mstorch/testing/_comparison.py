"""torch.testing.assert_close on mstorch tensors.

Same pairing of inputs (None, bools, numbers, tensor-likes, sequences and mappings of them), the same
default tolerances per dtype and the same error messages as torch 2.13. Closeness and the mismatch
statistics are computed on the host with NumPy in the tensors' own dtype, rounding each step as
torch's CPU kernels do (float16/bfloat16 compute in float32 and round after every op), so the
numbers in a message are the ones torch prints.
"""
import abc
import cmath
import collections.abc
import contextlib
import warnings

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor

__all__ = ["assert_close", "assert_allclose"]


class ErrorMeta(Exception):
    """An error to raise later, with the item path (``id``) of nested inputs."""

    def __init__(self, type, msg, *, id=()):
        super().__init__("If you are a user and see this message during normal operation please file an issue at "
                         "https://github.com/pytorch/pytorch/issues. If you are a developer and working on the "
                         "comparison functions, please `raise ErrorMeta.to_error()` for user facing errors.")
        self.type, self.msg, self.id = type, msg, id

    def to_error(self, msg=None):
        if not isinstance(msg, str):
            generated = self.msg
            if self.id:
                generated += f"\n\nThe failure occurred for item {''.join(str([item]) for item in self.id)}"
            msg = msg(generated) if callable(msg) else generated
        return self.type(msg)


_DTYPE_PRECISIONS = {
    D.float16: (0.001, 1e-5),
    D.bfloat16: (0.016, 1e-5),
    D.float32: (1.3e-6, 1e-5),
    D.float64: (1e-7, 1e-7),
    D.complex64: (1.3e-6, 1e-5),
    D.complex128: (1e-7, 1e-7),
}


def default_tolerances(*inputs, dtype_precisions=None):
    """Loosest (rtol, atol) over the inputs' dtypes; 0 for integral and bool dtypes."""
    dtypes = []
    for inp in inputs:
        if isinstance(inp, Tensor):
            dtypes.append(inp.dtype)
        elif isinstance(inp, D.dtype):
            dtypes.append(inp)
        else:
            raise TypeError(f"Expected a torch.Tensor or a torch.dtype, but got {type(inp)} instead.")
    table = dtype_precisions or _DTYPE_PRECISIONS
    rtols, atols = zip(*[table.get(d, (0.0, 0.0)) for d in dtypes])
    return max(rtols), max(atols)


def get_tolerances(*inputs, rtol, atol, id=()):
    if (rtol is None) ^ (atol is None):
        raise ErrorMeta(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                                    f"{'rtol' if rtol is None else 'atol'}.", id=id)
    if rtol is not None:
        return rtol, atol
    return default_tolerances(*inputs)


def _type_name(obj):
    """``str(type(obj))`` as torch prints it (mstorch classes under their torch names)."""
    cls = type(obj)
    if cls is Tensor:
        return "<class 'torch.Tensor'>"
    module = cls.__module__
    if module == "mstorch" or module.startswith("mstorch."):
        return f"<class 'torch{module[len('mstorch'):]}.{cls.__qualname__}'>"
    return str(cls)


def _make_mismatch_msg(*, default_identifier, identifier=None, extra=None, abs_diff, abs_diff_idx=None, atol,
                       rel_diff, rel_diff_idx=None, rtol):
    equality = rtol == 0 and atol == 0

    def diff_line(kind, diff, idx, tol):
        if idx is None:
            line = f"{kind.title()} difference: {diff}"
        else:
            line = f"Greatest {kind} difference: {diff} at index {idx}"
        if not equality:
            line += f" (up to {tol} allowed)"
        return line + "\n"

    if identifier is None:
        identifier = default_identifier
    elif callable(identifier):
        identifier = identifier(default_identifier)
    msg = f"{identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        msg += f"{extra.strip()}\n"
    msg += diff_line("absolute", abs_diff, abs_diff_idx, atol)
    msg += diff_line("relative", rel_diff, rel_diff_idx, rtol)
    return msg.strip()


def make_scalar_mismatch_msg(actual, expected, *, rtol, atol, identifier=None):
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _make_mismatch_msg(default_identifier="Scalars", identifier=identifier,
                              extra=f"Expected {expected} but got {actual}.", abs_diff=abs_diff, atol=atol,
                              rel_diff=rel_diff, rtol=rtol)


# --- host arithmetic in a tensor's dtype ------------------------------------------------------------

def _round_bf16(x):
    """float32 array -> nearest bfloat16 values (ties to even), kept as float32."""
    x = np.asarray(x, dtype=np.float32)
    bits = x.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000).astype(np.uint32).view(np.float32)
    return np.where(np.isnan(x), x, rounded)


def _round_f16(x):
    return np.asarray(x, np.float32).astype(np.float16).astype(np.float32)


class _Arith:
    """Element-wise steps in a torch dtype: ``host`` is the NumPy dtype of the values, ``fix`` rounds a
    step's float32 result back to the storage dtype (float16/bfloat16 compute in float32, as torch)."""

    def __init__(self, dtype):
        self.dtype = dtype
        if dtype == D.bfloat16:
            self.compute, self.fix = np.float32, _round_bf16
        elif dtype == D.float16:
            self.compute, self.fix = np.float32, _round_f16
        else:
            self.compute, self.fix = None, lambda a: a

    def host(self, t):
        if self.dtype == D.bfloat16:
            return t.detach().float().numpy().reshape(-1)
        a = np.array(t.detach().numpy()).reshape(-1)
        return a.astype(np.float32) if self.compute is not None else a

    def abs(self, x):
        if self.dtype == D.complex64:  # torch's complex64 abs is the correctly rounded hypot (measured)
            return np.sqrt(x.real.astype(np.float64) ** 2 + x.imag.astype(np.float64) ** 2).astype(np.float32)
        return np.abs(x)

    def scalar(self, value):
        """A Python float as torch's kernels see it next to a floating tensor of this dtype."""
        return np.float64(value) if self.dtype in (D.float64, D.complex128) else np.float32(value)


def _isclose(ar, a, b, rtol, atol, equal_nan):
    """torch.isclose(a, b) for host arrays of one dtype (torch's formula and rounding)."""
    floating = ar.dtype.is_floating_point or ar.dtype.is_complex
    with np.errstate(all="ignore"):
        close = a == b
        if equal_nan and floating:
            close |= np.isnan(a) & np.isnan(b)
        if rtol == 0 and atol == 0:
            return close
        if ar.dtype == D.bool_:  # torch computes bool inputs in the default float dtype
            ar, a, b = _Arith(D.float32), a.astype(np.float32), b.astype(np.float32)
            floating = True
        if floating:
            allowed = ar.fix(ar.scalar(atol) + ar.abs(ar.fix(ar.scalar(rtol) * b)))
            error = ar.abs(ar.fix(a - b))
        else:  # integral: the tolerance in float32, the error in the integer dtype (wrapping as torch's)
            allowed = np.float32(atol) + np.abs(np.float32(rtol) * b.astype(np.float32))
            error = np.abs(a - b).astype(np.float32)
        return close | (np.isfinite(error) & (error <= allowed))


def _first_argmax(x):
    # torch.max(dim) on CPU: NaN wins, the first of equal values wins
    nan = np.isnan(x)
    return int(np.argmax(nan)) if nan.any() else int(np.argmax(x))


def make_tensor_mismatch_msg(actual, expected, matches, *, rtol, atol, identifier=None, arrays=None):
    shape = tuple(matches.shape)

    def unravel(flat):
        return tuple(int(i) for i in np.unravel_index(flat, shape)) if shape else ()

    total = matches.size
    mismatches = total - int(matches.sum())
    extra = f"Mismatched elements: {mismatches} / {total} ({mismatches / total:.1%})"
    ar = _Arith(actual.dtype)
    a, b = arrays
    flat_matches = matches.reshape(-1)
    with np.errstate(all="ignore"):
        if not (actual.dtype.is_floating_point or actual.dtype.is_complex):
            a, b = a.astype(np.int64), b.astype(np.int64)
            abs_diff = np.abs(a - b)
            abs_diff[flat_matches] = 0
            rel_diff = abs_diff.astype(np.float32) / np.abs(b).astype(np.float32)
        else:
            abs_diff = ar.fix(ar.abs(ar.fix(a - b)))
            abs_diff[flat_matches] = 0
            rel_diff = ar.fix(abs_diff / ar.abs(b))
        rel_diff[flat_matches] = 0
    i_abs, i_rel = _first_argmax(abs_diff), _first_argmax(rel_diff)
    return _make_mismatch_msg(default_identifier="Tensor-likes", identifier=identifier, extra=extra,
                              abs_diff=abs_diff[i_abs].item(), abs_diff_idx=unravel(i_abs), atol=atol,
                              rel_diff=rel_diff[i_rel].item(), rel_diff_idx=unravel(i_rel), rtol=rtol)


# --- pairs ----------------------------------------------------------------------------------------

class UnsupportedInputs(Exception):
    """A pair type that cannot handle the inputs; the next one is tried."""


class Pair(abc.ABC):
    def __init__(self, actual, expected, *, id=(), **unknown_parameters):
        self.actual, self.expected, self.id = actual, expected, id
        self._unknown_parameters = unknown_parameters

    @staticmethod
    def _inputs_not_supported():
        raise UnsupportedInputs

    @staticmethod
    def _check_inputs_isinstance(*inputs, cls):
        if not all(isinstance(i, cls) for i in inputs):
            Pair._inputs_not_supported()

    def _fail(self, type, msg, *, id=()):
        raise ErrorMeta(type, msg, id=self.id if not id and hasattr(self, "id") else id)

    @abc.abstractmethod
    def compare(self):
        """Raise ErrorMeta when the inputs mismatch."""

    def extra_repr(self):
        return []

    def __repr__(self):
        items = [("id", self.id), ("actual", self.actual), ("expected", self.expected),
                 *[(e, getattr(self, e)) if isinstance(e, str) else e for e in self.extra_repr()]]
        return "\n".join((f"{type(self).__name__}(", *[f"    {k}={v!s}," for k, v in items], ")"))


class NonePair(Pair):
    def __init__(self, actual, expected, **other):
        if not (actual is None or expected is None):
            self._inputs_not_supported()
        super().__init__(actual, expected, **other)

    def compare(self):
        if not (self.actual is None and self.expected is None):
            self._fail(AssertionError, f"None mismatch: {self.actual} is not {self.expected}")


class BooleanPair(Pair):
    def __init__(self, actual, expected, *, id, **other):
        self._check_inputs_isinstance(actual, expected, cls=(bool, np.bool_))
        actual, expected = (bool(x) for x in (actual, expected))
        super().__init__(actual, expected, **other)

    def compare(self):
        if self.actual is not self.expected:
            self._fail(AssertionError, f"Booleans mismatch: {self.actual} is not {self.expected}")


class NumberPair(Pair):
    _TYPE_TO_DTYPE = {int: D.int64, float: D.float64, complex: D.complex128}
    _NUMBER_TYPES = tuple(_TYPE_TO_DTYPE)

    def __init__(self, actual, expected, *, id=(), rtol=None, atol=None, equal_nan=False, check_dtype=False,
                 **other):
        self._check_inputs_isinstance(actual, expected, cls=(*self._NUMBER_TYPES, np.number))
        actual, expected = (x.item() if isinstance(x, np.number) else x for x in (actual, expected))
        super().__init__(actual, expected, id=id, **other)
        self.rtol, self.atol = get_tolerances(*[self._TYPE_TO_DTYPE[type(x)] for x in (actual, expected)],
                                              rtol=rtol, atol=atol, id=id)
        self.equal_nan, self.check_dtype = equal_nan, check_dtype

    def compare(self):
        if self.check_dtype and type(self.actual) is not type(self.expected):
            self._fail(AssertionError,
                       f"The (d)types do not match: {type(self.actual)} != {type(self.expected)}.")
        if self.actual == self.expected:
            return
        if self.equal_nan and cmath.isnan(self.actual) and cmath.isnan(self.expected):
            return
        abs_diff = abs(self.actual - self.expected)
        if cmath.isfinite(abs_diff) and abs_diff <= self.atol + self.rtol * abs(self.expected):
            return
        self._fail(AssertionError, make_scalar_mismatch_msg(self.actual, self.expected, rtol=self.rtol,
                                                            atol=self.atol))

    def extra_repr(self):
        return ("rtol", "atol", "equal_nan", "check_dtype")


class TensorLikePair(Pair):
    def __init__(self, actual, expected, *, id=(), allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, **other):
        related = isinstance(actual, type(expected)) or isinstance(expected, type(actual))
        if not related or (not allow_subclasses and type(actual) is not type(expected)):
            self._inputs_not_supported()
        actual, expected = (self._to_tensor(x) for x in (actual, expected))
        super().__init__(actual, expected, id=id, **other)
        self.rtol, self.atol = get_tolerances(actual, expected, rtol=rtol, atol=atol, id=self.id)
        self.equal_nan, self.check_device, self.check_dtype = equal_nan, check_device, check_dtype
        self.check_layout, self.check_stride = check_layout, check_stride

    def _to_tensor(self, like):
        if isinstance(like, Tensor):
            return like
        from ..ops.creation import as_tensor
        try:
            return as_tensor(like)
        except Exception:  # noqa: BLE001 - not tensor-like: the next pair type is tried
            self._inputs_not_supported()

    def compare(self):
        actual, expected = self.actual, self.expected
        self._compare_attributes(actual, expected)
        actual, expected = self._equalize_attributes(actual, expected)
        self._compare_values(actual, expected)

    def _compare_attributes(self, actual, expected):
        def mismatch(name, a, b):
            self._fail(AssertionError, f"The values for attribute '{name}' do not match: {a} != {b}.")

        if actual.shape != expected.shape:
            mismatch("shape", actual.shape, expected.shape)
        if actual.layout != expected.layout:
            if self.check_layout:
                mismatch("layout", actual.layout, expected.layout)
        elif self.check_stride and actual.stride() != expected.stride():
            mismatch("stride()", actual.stride(), expected.stride())
        if self.check_device and actual.device != expected.device:
            mismatch("device", actual.device, expected.device)
        if self.check_dtype and actual.dtype != expected.dtype:
            mismatch("dtype", actual.dtype, expected.dtype)

    @staticmethod
    def _equalize_attributes(actual, expected):
        if actual.device != expected.device:
            actual, expected = actual.cpu(), expected.cpu()
        if actual.dtype != expected.dtype:
            wide = (D.uint16, D.uint32, D.uint64)
            a = D.int64 if actual.dtype in wide else actual.dtype
            b = D.int64 if expected.dtype in wide else expected.dtype
            common = D.promote_types(a, b)
            actual, expected = actual.to(common), expected.to(common)
        return actual, expected

    def _compare_values(self, actual, expected):
        self._compare_regular_values_close(actual, expected, rtol=self.rtol, atol=self.atol,
                                           equal_nan=self.equal_nan)

    def _compare_regular_values_close(self, actual, expected, *, rtol, atol, equal_nan, identifier=None):
        ar = _Arith(actual.dtype)
        a, b = ar.host(actual), ar.host(expected)
        matches = _isclose(ar, a, b, rtol, atol, equal_nan).reshape(tuple(actual.shape))
        if matches.all():
            return
        if tuple(actual.shape) == ():
            msg = make_scalar_mismatch_msg(actual.item(), expected.item(), rtol=rtol, atol=atol,
                                           identifier=identifier)
        else:
            msg = make_tensor_mismatch_msg(actual, expected, matches, rtol=rtol, atol=atol, identifier=identifier,
                                           arrays=(a, b))
        self._fail(AssertionError, msg)

    def extra_repr(self):
        return ("rtol", "atol", "equal_nan", "check_device", "check_dtype", "check_layout", "check_stride")


# --- pairing nested inputs ------------------------------------------------------------------------

def _is_sequence(x, sequence_types):
    return isinstance(x, sequence_types) and not isinstance(x, str)


def originate_pairs(actual, expected, *, pair_types, sequence_types=(collections.abc.Sequence,),
                    mapping_types=(collections.abc.Mapping,), id=(), **options):
    if _is_sequence(actual, sequence_types) and _is_sequence(expected, sequence_types):
        if len(actual) != len(expected):
            raise ErrorMeta(AssertionError,
                            f"The length of the sequences mismatch: {len(actual)} != {len(expected)}", id=id)
        pairs = []
        for i in range(len(actual)):
            pairs.extend(originate_pairs(actual[i], expected[i], pair_types=pair_types,
                                         sequence_types=sequence_types, mapping_types=mapping_types,
                                         id=(*id, i), **options))
        return pairs
    if isinstance(actual, mapping_types) and isinstance(expected, mapping_types):
        actual_keys, expected_keys = set(actual.keys()), set(expected.keys())
        if actual_keys != expected_keys:
            raise ErrorMeta(AssertionError,
                            "The keys of the mappings do not match:\n"
                            f"Missing keys in the actual mapping: {sorted(expected_keys - actual_keys)}\n"
                            f"Additional keys in the actual mapping: {sorted(actual_keys - expected_keys)}", id=id)
        keys = actual_keys
        with contextlib.suppress(Exception):
            keys = sorted(keys)
        pairs = []
        for key in keys:
            pairs.extend(originate_pairs(actual[key], expected[key], pair_types=pair_types,
                                         sequence_types=sequence_types, mapping_types=mapping_types,
                                         id=(*id, key), **options))
        return pairs
    for pair_type in pair_types:
        try:
            return [pair_type(actual, expected, id=id, **options)]
        except UnsupportedInputs:
            continue
        except ErrorMeta:
            raise
        except Exception as error:
            raise RuntimeError(
                f"Originating a {pair_type.__name__}() at item {''.join(str([item]) for item in id)} with\n\n"
                f"{type(actual).__name__}(): {actual}\n\nand\n\n{type(expected).__name__}(): {expected}\n\n"
                "resulted in the unexpected exception above. If you are a user and see this message during normal "
                "operation please file an issue at https://github.com/pytorch/pytorch/issues. If you are a "
                "developer and working on the comparison functions, please except the previous error and raise an "
                "expressive `ErrorMeta` instead.") from error
    raise ErrorMeta(TypeError, f"No comparison pair was able to handle inputs of type {_type_name(actual)} and "
                               f"{_type_name(expected)}.", id=id)


def not_close_error_metas(actual, expected, *, pair_types=(), sequence_types=(collections.abc.Sequence,),
                          mapping_types=(collections.abc.Mapping,), **options):
    __tracebackhide__ = True
    try:
        pairs = originate_pairs(actual, expected, pair_types=pair_types, sequence_types=sequence_types,
                                mapping_types=mapping_types, **options)
    except ErrorMeta as meta:
        raise meta.to_error() from None
    metas = []
    for pair in pairs:
        try:
            pair.compare()
        except ErrorMeta as meta:
            metas.append(meta)
        except Exception as error:
            raise RuntimeError(
                f"Comparing\n\n{pair}\n\nresulted in the unexpected exception above. If you are a user and see this "
                "message during normal operation please file an issue at https://github.com/pytorch/pytorch/issues. "
                "If you are a developer and working on the comparison functions, please except the previous error "
                "and raise an expressive `ErrorMeta` instead.") from error
    return metas


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    """Mirrors torch.testing.assert_close."""
    __tracebackhide__ = True
    metas = not_close_error_metas(actual, expected, pair_types=(NonePair, BooleanPair, NumberPair, TensorLikePair),
                                  allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                                  check_device=check_device, check_dtype=check_dtype, check_layout=check_layout,
                                  check_stride=check_stride, msg=msg)
    if metas:
        raise metas[0].to_error(msg)


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """Mirrors the deprecated torch.testing.assert_allclose."""
    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future "
                  "release. Please use `torch.testing.assert_close()` instead. You can find detailed upgrade "
                  "instructions in https://github.com/pytorch/pytorch/issues/61844.", FutureWarning, stacklevel=2)
    from ..ops.creation import tensor
    if not isinstance(actual, Tensor):
        actual = tensor(actual)
    if not isinstance(expected, Tensor):
        expected = tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = default_tolerances(actual, expected, dtype_precisions={
            D.float16: (1e-3, 1e-3), D.float32: (1e-4, 1e-5), D.float64: (1e-5, 1e-8)})
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True,
                 check_dtype=False, check_stride=False, msg=msg or None)
