"""Reductions: sum, mean, prod, max/min (with indices), argmax/argmin, std/var, norm, logsumexp,
count_nonzero, aminmax, all/any (cumulative ops and diff: scans.py).

MindSpore's CPU reduce kernels differ from torch in a few ways handled here: max/min/argmax skip NaNs
(torch propagates them), integer sums come back as int64 whatever was asked, bool and bfloat16 inputs
lack kernels, and empty inputs raise or come back uninitialised. Order statistics (median, mode, quantile) live in sorting.py.
"""
import collections
import functools
import math

import mindspore as ms
import numpy as np
from .. import _runtime
from .._runtime import read_host, CAPTURE as _CAPTURE
from . import _msops as ops
from . import _kernels as kernels

from .. import _dtype as D
from .. import _ms_private as P
from ._argerr import invalid_args
from .._tensor import Tensor as _Tensor
from ._helpers import wrap_dims, wrap_dim, promote, MsTensor, _scalar_name, cast, _node
from ._registry import register, OPS
from ..autograd._higher_order import own_backward

F = "reduction"
_FROM_MS = D._FROM_MS
_NAN_DTYPES = (ms.float32, ms.float64, ms.float16)


_RETURN_TYPES = {}


def return_type(name, fields):
    """torch.return_types.<name>: a namedtuple of (values, indices) and friends."""
    base = collections.namedtuple(name, fields)

    def __new__(cls, *values):
        # (a torch structseq is also made from one sequence of the fields: torch.return_types.max((v, i)))
        if len(values) == 1 and len(fields) > 1:
            values = tuple(values[0])
        return base.__new__(cls, *values)
    t = type(name, (base,), {"__new__": __new__, "__slots__": ()})
    t.__module__ = "torch.return_types"
    t.__repr__ = lambda self: (f"torch.return_types.{name}(\n" +
                               ",\n".join(f"{f}={getattr(self, f)!r}" for f in fields) + ")")
    # pickle finds the class here, not in torch.return_types (which may be absent, or torch's own)
    t.__reduce__ = lambda self: (_rebuild_return_type, (name, tuple(self)))
    _RETURN_TYPES[name] = t
    return t


def _rebuild_return_type(name, values):
    return _RETURN_TYPES[name](*values)


max_rt = return_type("max", ("values", "indices"))
min_rt = return_type("min", ("values", "indices"))
aminmax_rt = return_type("aminmax", ("min", "max"))


# --- shared helpers -----------------------------------------------------------------------------

def _axes(input, dim):
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return ()
    return wrap_dims(dim, input.ndim)


def _out_shape(shape, axes, keepdim):
    """Shape of a reduction of ``shape`` over ``axes`` (() = all)."""
    axes = axes or tuple(range(len(shape)))
    if keepdim:
        return tuple(1 if i in axes else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in axes)


def is_float(t):
    return _FROM_MS[t.dtype]._cat >= D._FLOAT


# Whether a floating tensor holds a NaN. MindSpore's CPU max/min/sort kernels skip NaNs where torch
# propagates them; a look at the host view (zero-copy on CPU) keeps the NaN-free path one kernel.
_has_nan_host = ops._has_nan


def _may_have_nan(t):
    """The device path's answer: no host look, so a floating tensor may hold NaN and the caller runs its
    NaN rule as kernels (each caller's NaN branch is correct for NaN-free input too)."""
    return t.dtype in _NAN_DTYPES and t.size > 0


if kernels.HOST_WORKAROUNDS:
    def has_nan(t):
        # while torch.compile records a graph, the kernel-only answer (a host look would be frozen in it)
        return _may_have_nan(t) if _CAPTURE[0] else _has_nan_host(t)
else:
    has_nan = _may_have_nan


def comparable(x):
    """A dtype MindSpore's CPU compare/select kernels accept, and the cast back (bool, bfloat16)."""
    if x.dtype == ms.bool_:
        return cast(x, ms.uint8), ms.bool_
    if x.dtype == ms.bfloat16:
        return cast(x, ms.float32), ms.bfloat16
    return x, None


def _back(t, dt):
    return t if dt is None else cast(t, dt)


def nan_scalar(dt):
    return ms.Tensor(math.nan, dt)


def as_int64(t):
    """int64 indices. MindSpore 2.10's CPU Cast costs ~0.6 ms of CPU per call whatever the size
    (measured); an index tensor is never differentiated, so on CPU it converts on the host (~10 µs)."""
    if t.dtype == ms.int64:
        return t
    if kernels.HOST_WORKAROUNDS:
        return ms.Tensor.from_numpy(read_host(t).astype(np.int64))
    return cast(t, ms.int64)


_CONSTS = {}


def const(value, dt):
    """A cached 0-dim operand (``ops.zeros((), dt)`` launches kernels on every call). Never return it:
    the caller would share it."""
    key = (value, dt)
    t = _CONSTS.get(key)
    if t is None:
        t = _CONSTS[key] = ms.Tensor(value, dt)
    return t


def needs_grad(t):
    return P.requires_grad(t) and P.grad_enabled()


def empty_result(input, shape, value=0):
    """The result of reducing over no elements (or of an empty output), ``value`` everywhere: made
    by hand because MindSpore's kernels leave it uninitialised, and kept on the input's autograd graph
    as torch's is. A NaN for complex results is (nan, nan), torch's 0 / 0."""
    if isinstance(value, float) and value != value and input.dtype in (ms.complex64, ms.complex128):
        value = complex(value, value)
    if shape.count(0):
        z = ops.zeros(shape, input.dtype)
    elif input.dtype == ms.bfloat16:   # (no bfloat16 FillV2 kernel on CPU)
        z = cast(ops.full(shape, value, dtype=ms.float32), ms.bfloat16)
    else:
        z = ops.full(shape, value, dtype=input.dtype)
    if not needs_grad(input):
        return z
    if input.size == 0:    # a sum over [nothing, 0] is a 0 that backward reaches the input through
        return ops._linked(z, input)
    if input.dtype == ms.bfloat16:   # no bfloat16 ReduceSum on CPU
        return z + cast(ops.sum(cast(input, ms.float32)) * 0, ms.bfloat16)
    return z + ops.sum(input) * 0


def _check_nonempty_dims(name, input, axes, sep="(): "):
    for a in axes:
        if input.shape[a] == 0:
            raise IndexError(f"{name}{sep}Expected reduction dim {a} to have non-zero size.")


# --- sums and means -----------------------------------------------------------------------------

def _acc_dtype(input, dtype):
    """The result dtype of sum/prod/cumsum: ``dtype=``, else int64 for integers and bools."""
    if dtype is not None:
        return dtype._ms
    if _FROM_MS[input.dtype]._cat < D._FLOAT:
        return ms.int64
    return input.dtype


def _reduce_sum(x, axes, keepdim, out_dt):
    if out_dt == ms.int64 and x.size and not _CAPTURE[0] and _runtime.device_target() == "CPU":
        # MindSpore's CPU ReduceSum accumulates int64 in double: a sum past 2**53 loses its low digits
        # (torch's is exact, and wraps on overflow as numpy's does)
        r = np.sum(read_host(x), axis=axes or None, keepdims=keepdim, dtype=np.int64)
        return ms.from_numpy(np.ascontiguousarray(r) if np.ndim(r) else np.asarray(r))
    if x.dtype != out_dt:
        x = cast(x, out_dt)
    if x.size == 0:
        return empty_result(x, _out_shape(x.shape, axes, keepdim))
    if out_dt == ms.bfloat16:       # no CPU kernel: accumulate in float32 as torch's CPU does
        return cast(ops.sum(cast(x, ms.float32), axes, keepdim), ms.bfloat16)
    r = ops.sum(x, axes, keepdim)
    return r if r.dtype == out_dt else cast(r, out_dt)   # MindSpore widens integer sums to int64


_SUM_FAST = frozenset((ms.float32, ms.float64))


@register("sum", family=F, out="dtype", out_requires="dim_or_none")
def sum(input, dim=None, keepdim=False, *, dtype=None):
    if dtype is None and type(dim) is int and input.dtype in _SUM_FAST:
        # the common sum, a float32/float64 tensor over one dim in range: _reduce_sum's path for it
        n = len(input.shape)
        if n and -n <= dim < n:
            return ops.sum(input, (dim + n if dim < 0 else dim,), keepdim)
    return _reduce_sum(input, _axes(input, dim), keepdim, _acc_dtype(input, dtype))


@register("nansum", family=F, out="dtype")
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    out_dt = _acc_dtype(input, dtype)
    axes = _axes(input, dim)
    _no_complex_nansum(input)
    x = cast(input, ms.float32) if input.dtype == ms.bfloat16 else input   # (IsNan has no bfloat16 kernel)
    if is_float(x):   # (before a cast to an integer dtype, which would make a NaN INT_MIN: torch adds 0)
        x = ops.where(ops.isnan(x), const(0, x.dtype), x)
    x = cast(x, out_dt) if x.dtype != out_dt else x
    return _reduce_sum(x, axes, keepdim, out_dt)


def _no_complex_nansum(input):
    # (torch's refusal, after the dims are checked)
    if input.dtype in (ms.complex64, ms.complex128):
        raise RuntimeError("nansum on CPU does not support complex inputs")


def _mean_input(input, dtype, name="mean"):
    if name == "nanmean" and not is_float(input):   # (torch's check, before dtype= applies)
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got "
                           f"{_scalar_name(input)}")
    if dtype is not None:
        if dtype._cat < D._FLOAT:
            raise RuntimeError(
                f"{name}(): could not infer output dtype. Optional dtype must be either a floating point or "
                f"complex dtype. Got: {_scalar_name(ops.zeros((), dtype._ms))}")
        return cast(input, dtype._ms) if input.dtype != dtype._ms else input
    if not is_float(input):
        if name == "nanmean":
            raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got "
                               f"{_scalar_name(input)}")
        raise RuntimeError(
            f"{name}(): could not infer output dtype. Input dtype must be either a floating point or complex "
            f"dtype. Got: {_scalar_name(input)}")
    return input


@register("mean", family=F, out=True)
def mean(input, dim=None, keepdim=False, *, dtype=None):
    x = _mean_input(input, dtype)
    if x.size == 0:
        return empty_result(x, _out_shape(x.shape, _axes(input, dim), keepdim), math.nan)
    if x.dtype == ms.bfloat16:
        return cast(ops.mean(cast(x, ms.float32), _axes(input, dim), keepdim), ms.bfloat16)
    if x.dtype in (ms.complex64, ms.complex128):
        return _complex_mean(x, _axes(input, dim), keepdim)
    return ops.mean(x, _axes(input, dim), keepdim)


def _complex_mean(x, axes, keepdim):
    """torch's sum / n, a complex division by n + 0j: each part times 1 / n plus the other part times 0,
    so a NaN or infinite part makes the other part NaN (MindSpore's mean divides the parts alone, and
    has no complex gradient)."""
    s = _reduce_sum(x, axes, keepdim, x.dtype)
    n = math.prod(x.shape[a] for a in (axes or range(x.ndim))) if x.ndim else 1
    re, im = ops.real(s), ops.imag(s)
    scale = const(1.0 / n, re.dtype)
    re, im = ops.mul(re, scale), ops.mul(im, scale)
    nan = const(math.nan, re.dtype)
    return ops.complex_of_parts(ops.where(ops.isfinite(im), re, nan), ops.where(ops.isfinite(re), im, nan))




@register("nanmean", family=F, out=True)
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    x = _mean_input(input, dtype, "nanmean")
    axes = _axes(input, dim)
    _no_complex_nansum(input)   # (torch's nansum of the input as given, then its kernel for dtype=)
    if x.dtype in (ms.complex64, ms.complex128):
        raise NotImplementedError(f"\"nansum_cpu\" not implemented for '{_scalar_name(x)}'")
    keep = ops.logical_not(ops.isnan(x))
    total = _reduce_sum(ops.where(keep, x, const(0, x.dtype)), axes, keepdim, x.dtype)
    return total / _reduce_sum(keep, axes, keepdim, x.dtype)


@register("prod", family=F, out="dtype", out_requires="dim")
def prod(input, dim=None, keepdim=False, *, dtype=None):
    out_dt = _acc_dtype(input, dtype)
    if dim is not None and not isinstance(dim, int):
        raise invalid_args("prod", (input, dim), signatures=(
            "Tensor input, *, torch.dtype dtype = None", "Tensor input, int dim, bool keepdim = False, *, "
            "torch.dtype dtype = None, Tensor out = None", "Tensor input, name dim, bool keepdim = False, *, "
            "torch.dtype dtype = None, Tensor out = None"))
    axes = () if dim is None else (wrap_dim(dim, input.ndim),)
    if input.size == 0:          # MindSpore's kernel gives zeros where torch gives the identity
        return ops.ones(_out_shape(input.shape, axes, keepdim and dim is not None), out_dt)
    x = cast(input, out_dt) if input.dtype != out_dt else input
    if x.dtype in (ms.float16, ms.bfloat16) and x.ndim and (x.size if dim is None else x.shape[axes[0]]) <= _SEQ_PROD:
        xs, d, kd = x.reshape(-1) if dim is None else x, 0 if dim is None else axes[0], keepdim and dim is not None
        if not needs_grad(xs):
            return _prod_in_order(xs, d, kd)
        node = _ProdSeqNode if dim is None else _ProdSeqDimNode
        r = node.apply(xs, d, kd, dim is None)
        P.set_function_of_output(r, node)
        return r
    if x.dtype == ms.bfloat16:
        x = cast(x, ms.float32)
    if dim is None:
        flat = x.reshape(-1)
        r = _recorded_prod(flat, 0, False, True) if x.ndim else x.copy()
    else:
        r = _recorded_prod(x, axes[0], keepdim, False) if x.ndim else x.copy()
    return r if r.dtype == out_dt else cast(r, out_dt)


_SEQ_PROD = 256


def _prod_in_order(x, d, keepdim):
    """A half-precision product as torch's CPU kernel takes it (short reductions, and any along an outer
    dim): one element after another, each step rounded to the dtype, so 65504 * -1.9 * ... is inf there
    however the later factors shrink it (MindSpore's kernel, and float32, stay finite). Products of slices:
    autograd multiplies the other factors."""
    parts = ops.split(x, 1, d)
    r = parts[0]
    for p in parts[1:]:
        r = ops.mul(r, p)
    return r if keepdim else ops.squeeze(r, d)


def _recorded_prod(x, d, keepdim, whole):
    if not needs_grad(x):
        return ops.prod(x, d, keepdim)
    node = _ProdNode if whole else _ProdDimNode
    r = node.apply(x, d, keepdim, whole)
    P.set_function_of_output(r, node)
    return r


class _ProdNode(P.FunctionBase):
    """prod with torch's prod_backward (MindSpore's ProdGrad gives NaN for the whole product of an input with
    two zeros and an inf): without a zero in the input, grad * (result / input) (inf / inf is NaN there, as
    torch's); with zeros, the gradient times the product of the other elements along ``d``, from exclusive
    products from both ends; the whole product of an input with two zeros or more, outside a recording pass,
    zeros (torch skips the products, whose inf * 0 would be NaN). In ops a recording pass records
    (create_graph: _higher_order._OWN_FUNCTIONS)."""

    @staticmethod
    def forward(node, x, d, keepdim, whole):
        node.save_for_backward(x)
        node.args = (d, keepdim, whole)
        return ops.prod(x, d, keepdim)

    @staticmethod
    def backward(node, g):
        (x,) = node.saved_tensors
        d, keepdim, whole = node.args
        if not keepdim:
            g = g.expand_dims(d)
        cplx = x.dtype in (ms.complex64, ms.complex128)
        others = ops.mul(_exclusive_prod(x, d), ops.flip(_exclusive_prod(ops.flip(x, (d,)), d), (d,)))
        zero = ops.equal(x, const(0, x.dtype))
        zeros = ops.sum(cast(zero, ms.int32))
        recording = needs_grad(x) or needs_grad(g)
        # the result: recorded as the other elements' product times the element (create_graph), else the kernel's
        r = _tail(ops.mul(others, x), d) if recording else ops.prod(x, d, True)
        ratio = ops.div(r, ops.where(zero, const(1, x.dtype), x))   # (no NaN gradient where unselected)
        plain = ops.mul(g, ops.conj(ratio) if cplx else ratio)
        out = ops.where(ops.equal(zeros, 0), plain, ops.mul(g, ops.conj(others) if cplx else others))
        if whole and not recording:
            out = ops.where(ops.greater(zeros, 1), ops.zeros_like(out), out)
        return out, None, None, None


class _ProdSeqNode(P.FunctionBase):
    """A half-precision product taken in order (_prod_in_order) with torch's prod_backward on it, each step
    rounded to the dtype as torch's CPU ops round (autograd through the chain of products would multiply the
    other factors, finite where torch's result / input is NaN): without a zero, grad * (result / input);
    with zeros, grad times the exclusive products from both ends (cumprod: accumulated in float32, rounded);
    the whole product of two zeros or more outside a recording pass, zeros. Computed in float32 (no
    half compare/select kernels on CPU)."""

    @staticmethod
    def forward(node, x, d, keepdim, whole):
        node.save_for_backward(x)
        node.args = (d, keepdim, whole)
        return _prod_in_order(x, d, keepdim)

    @staticmethod
    def backward(node, g):
        (x,) = node.saved_tensors
        d, keepdim, whole = node.args
        dt = x.dtype
        if not keepdim:
            g = g.expand_dims(d)

        def rnd(t):
            return cast(cast(t, dt), ms.float32)

        x32, g32 = cast(x, ms.float32), cast(g, ms.float32)
        zero = ops.equal(x32, const(0, ms.float32))
        zeros = int(read_host(ops.sum(cast(zero, ms.int32))))
        recording = needs_grad(x) or needs_grad(g)
        if zeros == 0:
            if recording:   # the product through this node again (its derivative torch's result / input
                # too), in the half type: each op of the double backward rounded as torch's
                r = type(node).apply(x, d, True, whole)
                return ops.mul(g.astype(dt), ops.div(r, x)), None, None, None
            r = cast(_prod_in_order(x, d, True), ms.float32)
            out = rnd(ops.mul(g32, rnd(ops.div(r, x32))))
        elif whole and zeros > 1 and not recording:
            out = ops.zeros_like(x32)
        else:
            others = rnd(ops.mul(rnd(_exclusive_prod(x32, d)),
                                 ops.flip(rnd(_exclusive_prod(ops.flip(x32, (d,)), d)), (d,))))
            out = rnd(ops.mul(g32, others))
        return cast(out, dt), None, None, None


_ProdDimNode = type("ProdBackward1", (_ProdNode,), {})   # torch's node names, kept by grad_fn
_ProdNode = type("ProdBackward0", (_ProdNode,), {})
_ProdSeqDimNode = type("ProdBackward1", (_ProdSeqNode,), {})
_ProdSeqNode = type("ProdBackward0", (_ProdSeqNode,), {})


def _tail(x, d):
    """The last slice along ``d`` (kept)."""
    begin = [0] * x.ndim
    begin[d] = x.shape[d] - 1
    return ops.strided_slice(x, tuple(begin), tuple(x.shape), (1,) * x.ndim)


def _exclusive_prod(x, d):
    """Products of the elements before each position along ``d`` (1 for the first): log2(n) products of
    shifted copies, made of strided slices and concatenations (recorded ops)."""
    n = x.shape[d]
    shape = list(x.shape)
    shape[d] = 1
    out = ops.cat((ops.ones(tuple(shape), x.dtype), _head(x, d, n - 1)), d)
    s = 1
    while s < n:
        shape[d] = s
        out = out * ops.cat((ops.ones(tuple(shape), x.dtype), _head(out, d, n - s)), d)
        s *= 2
    return out


def _head(x, d, k):
    end = list(x.shape)
    end[d] = k
    return ops.strided_slice(x, (0,) * x.ndim, tuple(end), (1,) * x.ndim)


# --- max / min ----------------------------------------------------------------------------------

def _nan_both(a, b, r):
    """maximum/minimum ``r`` of ``a, b`` with torch's NaN: the result where either is NaN, as ``a + b``, whose
    gradient reaches both (torch's backward masks neither: NaN is neither above, below nor equal)."""
    return ops.where(ops.logical_or(ops.isnan(a), ops.isnan(b)), ops.add(a, b), r)


def _binary(name, fn, logical):
    def run(input, other):
        a, b, rt = promote(input, other)
        if rt.is_complex:
            raise RuntimeError(f"{name} not implemented for complex tensors.")
        if rt is D.bool_:
            return logical(a, b)
        from .pointwise import _empty_broadcast   # (MindSpore's Maximum/Minimum refuse an empty output)
        empty = _empty_broadcast(a, b)
        if empty is not None:
            return empty
        a2, dt = comparable(a)
        b2, _ = comparable(b)
        r = fn(a2, b2)
        if has_nan(a2) or has_nan(b2):   # torch.maximum propagates NaN; MindSpore's CPU kernel drops it
            r = _nan_both(a2, b2, r)
        return _back(r, dt)
    run.__name__ = name
    return run


def _full(name, fn, input):
    if input.size == 0:
        raise RuntimeError(
            f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
            "reduction dim with the 'dim' argument.")
    x, dt = comparable(input)
    r = _extreme(fn, x, (), False)
    if has_nan(x):
        # NaN, made from the NaNs themselves: torch's backward spreads the gradient evenly over them
        nan = ops.isnan(x)
        count = ops.sum(cast(nan, x.dtype))
        found = ops.greater(count, const(0, x.dtype))
        # (a count of 0 only on the device path, which takes this branch unlooked: r stays, grads finite)
        nan_r = ops.div(ops.sum(ops.where(nan, x, const(0, x.dtype))), ops.where(found, count, const(1, x.dtype)))
        r = ops.where(found, nan_r, r)
    return _back(r, dt)


def _extreme(fn, x, axes, keepdim):
    """amax/amin over ``axes`` (() for all), with torch's backward for double backward (MindSpore's
    ReduceMax/ReduceMin backward is not recorded completely): the gradient shared evenly by the ties."""
    r = fn(x, axes, keepdim)
    return own_backward(r, _extreme_backward, x, axes or tuple(range(x.ndim)), keepdim, P.detach(r))


def _extreme_backward(node, grad_outputs, x, axes, keepdim, r):
    g = grad_outputs[0]
    if g is None:
        return (None,)
    if not keepdim:
        kept = tuple(1 if i in axes else s for i, s in enumerate(x.shape))
        g, r = g.reshape(kept), r.reshape(kept)
    hit = cast(ops.equal(x, r), g.dtype)
    return (ops.div(ops.mul(g, hit), ops.sum(hit, axes, True)),)


def selection_backward(nr, shape, d, keepdim=True):
    """Our own backward (for double backward) of a kernel whose output ``nr`` holds values selected
    along ``d`` at the indices it also returns (max/min over a dim, sort: MindSpore's backward of these
    is not recorded completely): the values' gradient added into zeros at the indices. Use as
    ``own_backward(values, backward, *selection_backward(...), idx)``."""
    return _selection_backward, nr, shape, d, keepdim


def _selection_backward(node, grad_outputs, nr, shape, d, keepdim, idx):
    g = grad_outputs[nr]
    if g is None:
        return (None,)
    if not keepdim:
        g, idx = g.expand_dims(d), idx.expand_dims(d)
    return (ops.tensor_scatter_elements(ops.zeros(shape, g.dtype), idx, g, d, "add"),)


def _minmax(name, reduce_fn, pair_fn, binary_fn, rt):
    def impl(input, dim=None, keepdim=False, *, other=None):
        if other is not None:
            if dim is not None:
                raise TypeError(f"{name}() received an invalid combination of arguments")
            return binary_fn(input, other)
        if isinstance(dim, MsTensor):      # torch.max(a, b) is torch.maximum
            return binary_fn(input, dim)
        if dim is None:
            return _full(name, reduce_fn, input)
        d = wrap_dim(dim, input.ndim)
        if input.dtype in (ms.complex64, ms.complex128):
            raise RuntimeError(f"{name}(): does not support complex input")
        if input.ndim == 0:
            return rt(input.copy(), ops.zeros((), ms.int64))
        _check_nonempty_dims(name, input, (d,))
        if input.size == 0:
            shape = _out_shape(input.shape, (d,), keepdim)
            return rt(empty_result(input, shape), ops.zeros(shape, ms.int64))
        x, dt = comparable(input)
        values, idx = pair_fn(x, d, keepdim)   # ties: first occurrence, as torch; grad goes to idx
        own_backward(values, *selection_backward(1, tuple(x.shape), d, keepdim), idx)   # values: output 1
        if has_nan(x):
            nan = ops.isnan(x)
            found = ops.any(nan, d, keepdim)
            idx = ops.where(found, as_int64(ops.argmax(nan, d, keepdim)), idx)
            # the NaN read at its index: torch's backward sends the gradient there
            picked = ops.gather_elements(x, d, idx if keepdim else idx.expand_dims(d))
            values = ops.where(found, picked if keepdim else picked.squeeze(d), values)
        return rt(_back(values, dt), idx)     # MindSpore's ArgMaxWithValue gives int64 already
    impl.__name__ = name
    register(name, family=F, out=True, out_check=functools.partial(_pair_out, name))(impl)


def _pair_out(name, args, out, kwargs=None):
    # torch's parser: max/min over a dim write a (values, indices) pair, so a Tensor out= is refused before
    # the reduction's own checks (an empty dim's IndexError, a complex input's refusal); dim= too
    if len(args) > 1 and not isinstance(args[1], _Tensor) or kwargs and "dim" in kwargs:
        raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors, not Tensor")
    # the whole reduction with out= is torch's {name}_all kernel, which refuses complex before the empty check
    if len(args) == 1 and not (kwargs and "other" in kwargs) and isinstance(args[0], _Tensor) \
            and args[0].dtype.is_complex:
        raise NotImplementedError(f'"{name}_all" not implemented for \'{D.SCALAR_TYPE_NAMES[args[0].dtype]}\'')


_maximum = _binary("maximum", ops.maximum, ops.logical_or)
_minimum = _binary("minimum", ops.minimum, ops.logical_and)
_minmax("max", ops.amax, lambda x, d, k: ops.max(x, d, k), _maximum, max_rt)
_minmax("min", ops.amin, lambda x, d, k: ops.min(x, d, k), _minimum, min_rt)


def _amaxmin(name, fn):
    def impl(input, dim=(), keepdim=False):
        axes = _axes(input, dim)
        if input.ndim == 0:   # (dim 0 or -1 of a 0-d tensor is the element itself)
            return _amaxmin_0d(name, fn, input)
        if not axes:
            if input.size == 0:
                raise RuntimeError(
                    f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
                    "reduction dim with the 'dim' argument.")
        else:
            _check_nonempty_dims(name, input, axes)
            if input.size == 0:
                return empty_result(input, _out_shape(input.shape, axes, keepdim))
        x, dt = comparable(input)
        r = _extreme(fn, x, axes, keepdim)
        if has_nan(x):
            r = ops.where(ops.any(ops.isnan(x), axes, keepdim), _nan_of_slices(x, axes, keepdim), r)
        return _back(r, dt)
    impl.__name__ = name
    return register(name, family=F, out="exact")(impl)


def _nan_of_slices(x, axes, keepdim):
    """NaN for the slices holding a NaN, with torch's gradient there: its backward divides the gradient by
    the count of elements equal to the (NaN) result, none, so every element of such a slice gets NaN (a
    sum of x * NaN over the slice has that gradient; the other slices' terms are x * 0, unselected)."""
    if not needs_grad(x):
        return const(math.nan, x.dtype)
    scale = ops.where(ops.any(ops.isnan(x), axes, True), const(math.nan, x.dtype), const(0.0, x.dtype))
    return ops.sum(ops.mul(x, scale), axes, keepdim) if x.ndim else ops.mul(x, scale)


def _amaxmin_0d(name, fn, input):
    if input.dtype in (ms.complex64, ms.complex128):
        return fn(input)   # (the kernel's own refusal)
    if needs_grad(input) and has_nan(comparable(input)[0]):   # (torch: a NaN gradient, see _nan_of_slices)
        return ops.mul(input, const(math.nan, input.dtype))
    return input.copy()


amax = _amaxmin("amax", ops.amax)
amin = _amaxmin("amin", ops.amin)


def _arg(name, fn):
    def impl(input, dim=None, keepdim=False):
        if input.dtype == ms.bool_:
            raise RuntimeError(f"{name}(): does not support bool input")
        x, _ = comparable(input)
        if dim is None:
            if x.size == 0:
                raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
            flat = x.reshape(-1)
            r = as_int64(fn(flat, 0, False))
            if has_nan(flat):
                nan = ops.isnan(flat)
                r = ops.where(nan.any(), as_int64(ops.argmax(nan, 0, False)), r)
            return r.reshape((1,) * x.ndim) if keepdim else r
        d = wrap_dim(dim, x.ndim)
        if x.ndim == 0:
            return ops.zeros((), ms.int64)
        _check_nonempty_dims(name, x, (d,))
        if x.size == 0:
            return ops.zeros(_out_shape(x.shape, (d,), keepdim), ms.int64)
        r = as_int64(fn(x, d, keepdim))
        if has_nan(x):
            nan = ops.isnan(x)
            r = ops.where(ops.any(nan, d, keepdim), as_int64(ops.argmax(nan, d, keepdim)), r)
        return r
    impl.__name__ = name
    return register(name, family=F, out="exact")(impl)


argmax = _arg("argmax", ops.argmax)
argmin = _arg("argmin", ops.argmin)


@register("aminmax", family=F, out="tuple")
def aminmax(input, *, dim=None, keepdim=False):
    if dim is None:
        if input.size == 0:
            raise RuntimeError(
                "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.")
        lo, hi = amin(input, (), False), amax(input, (), False)
        if keepdim:
            shape = (1,) * input.ndim
            lo, hi = lo.reshape(shape), hi.reshape(shape)
        return aminmax_rt(lo, hi)
    d = wrap_dim(dim, input.ndim)
    if input.ndim == 0:
        return aminmax_rt(input.copy(), input.copy())
    _check_nonempty_dims("aminmax", input, (d,), sep=": ")
    return aminmax_rt(amin(input, d, keepdim), amax(input, d, keepdim))


def _logical_axes(input, dim):
    """all/any's dims: unlike sum's, an empty list reduces no dim (torch.all(x, []) is x != 0); None
    reduces every dim. None for "no reduction"."""
    if isinstance(dim, (tuple, list)) and len(dim) == 0:
        return None
    return _axes(input, dim)


def _logical_out(name):
    def check(args, out):
        # torch's check of out= comes first (before the dims'): bool, or uint8 (a bool result cast into it)
        if out.dtype is not D.bool_ and out.dtype is not D.uint8:
            raise RuntimeError(f"{name} only supports bool tensor for result, got: {D.scalar_type_name(out.dtype)}")
    return check


@register("all", family=F, out=True, out_check=_logical_out("all"))
def all(input, dim=None, keepdim=False):
    if _logical_axes(input, dim) is None:
        r = ops.ne(input, const(0, input.dtype)) if input.dtype != ms.bool_ else input.copy()
    elif input.size == 0:
        r = ops.ones(_out_shape(input.shape, _axes(input, dim), keepdim), ms.bool_)
    else:
        r = ops.all(cast(input, ms.bool_), _axes(input, dim), keepdim)
    return cast(r, ms.uint8) if input.dtype == ms.uint8 else r   # torch keeps uint8 here


@register("any", family=F, out=True, out_check=_logical_out("any"))
def any(input, dim=None, keepdim=False):
    if _logical_axes(input, dim) is None:
        r = ops.ne(input, const(0, input.dtype)) if input.dtype != ms.bool_ else input.copy()
    elif input.size == 0:
        r = ops.zeros(_out_shape(input.shape, _axes(input, dim), keepdim), ms.bool_)
    else:
        r = ops.any(cast(input, ms.bool_), _axes(input, dim), keepdim)
    return cast(r, ms.uint8) if input.dtype == ms.uint8 else r


@register("count_nonzero", family=F)
def count_nonzero(input, dim=None):
    nz = ops.ne(input, const(0, input.dtype)) if input.dtype != ms.bool_ else input
    axes = _axes(input, dim)
    return _reduce_sum(nz, axes if input.ndim else (), False, ms.int64)   # (0-d: dim 0 is the element)


# --- variance, norms, logsumexp -----------------------------------------------------------------

def _var_args(name, input, dim, unbiased, keepdim, correction):
    if isinstance(dim, bool):            # legacy std(input, unbiased)
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise invalid_args(name, (input,) + ((dim,) if dim is not None else ()),
                           {"correction": correction, "unbiased": unbiased})
    if not is_float(input):
        kind = name if name in ("var_mean", "std_mean") else "std and var"
        raise RuntimeError(f"{kind} only support floating point and complex dtypes")
    c = correction if correction is not None else (0 if unbiased is False else 1)
    return _axes(input, dim), c, keepdim


def _var_mean(input, axes, c, keepdim, root=False):
    """(var, mean), or (std, mean) with ``root``. Real inputs below float64 compute in float64, as torch's
    CPU kernel accumulates them in double: squares of 1e30 would overflow float32 (std of [1e30, -4, 0]
    is 5.8e29)."""
    real = _FROM_MS[input.dtype]._cat != D._COMPLEX
    x = cast(input, ms.float64) if real and input.dtype != ms.float64 else input
    if x.size == 0:
        m = empty_result(x, _out_shape(x.shape, axes, True), math.nan)
    else:
        m = ops.mean(x, axes, True)
    dev = x - m
    sq = ops.real(dev * ops.conj(dev)) if _FROM_MS[x.dtype]._cat == D._COMPLEX else ops.square(dev)
    n = 1
    for a in (axes or range(x.ndim)) if x.ndim else ():   # (a 0-d tensor's dim 0 is itself: one element)
        n *= x.shape[a]
    if n - c > 0:
        var = _reduce_sum(sq, axes, keepdim, sq.dtype) / float(n - c)
    elif needs_grad(x):
        var = _VarNode.apply(x, axes, c, keepdim)
        P.set_function_of_output(var, _VarNode)
    else:
        var = _var_no_dof(sq, axes, keepdim)
    if not keepdim:
        m = m.reshape(_out_shape(x.shape, axes, False))
    if root:
        var = _safe_root(var, ops.sqrt, needs_grad(input))
    if x.dtype != input.dtype:
        var, m = cast(var, input.dtype), cast(m, input.dtype)
    return var, m


def _var_no_dof(sq, axes, keepdim):
    # torch divides by max(n - correction, 0) = 0: inf, NaN where the squares sum to 0 or NaN (as a
    # product by inf: MindSpore's NaN / 0 is -inf)
    return ops.mul(_reduce_sum(sq, axes, keepdim, sq.dtype), const(math.inf, _real_dtype(sq.dtype)))


def _real_dtype(dt):
    return ms.float64 if dt in (ms.float64, ms.complex128) else ms.float32


class _VarNode(P.FunctionBase):
    """var where n - correction <= 0, with torch's gradient: over given dims 2 / (n - c) * g * (x - mean)
    (finite for a negative n - c, where the value is inf); over all elements (or of a 0-d tensor) g times
    NaN where x equals the mean and inf elsewhere. The composed sum / 0 gave NaN. In ops a recording pass
    records (create_graph: _higher_order._OWN_FUNCTIONS)."""

    @staticmethod
    def forward(node, x, axes, c, keepdim):
        node.save_for_backward(x)
        node.args = (axes, c, keepdim)
        dev = ops.sub(x, ops.mean(x, axes, True) if x.ndim else x)
        sq = ops.real(ops.mul(dev, ops.conj(dev))) if x.dtype in (ms.complex64, ms.complex128) else ops.square(dev)
        return _var_no_dof(sq, axes, keepdim)

    @staticmethod
    def backward(node, g):
        (x,) = node.saved_tensors
        axes, c, keepdim = node.args
        if x.ndim and axes and not keepdim:
            for a in sorted(axes):
                g = ops.expand_dims(g, a)
        g = cast(g, x.dtype)
        m = ops.mean(x, axes, True) if x.ndim else x
        if not axes or not x.ndim:
            rt = _real_dtype(x.dtype)
            f = ops.where(ops.equal(x, m), const(math.nan, rt), const(math.inf, rt))
            return ops.mul(g, cast(f, x.dtype)), None, None, None
        n = math.prod(x.shape[a] for a in axes)
        two = 2.0 / (n - c) if n != c else math.inf
        return ops.mul(ops.mul(g, ops.sub(x, m)), const(two, x.dtype)), None, None, None


_VarNode = type("VarBackward0", (_VarNode,), {})   # torch's node name, kept by grad_fn


@register("var", family=F, out=True, out_requires="no_bool_unbiased")
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _var_mean(input, *_var_args("var", input, dim, unbiased, keepdim, correction))[0]


@register("std", family=F, out=True, out_requires="no_bool_unbiased")
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _var_mean(input, *_var_args("std", input, dim, unbiased, keepdim, correction), root=True)[0]


@register("var_mean", family=F, namespace="torch")
def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _var_mean(input, *_var_args("var_mean", input, dim, unbiased, keepdim, correction))


@register("std_mean", family=F, namespace="torch")
def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _var_mean(input, *_var_args("std_mean", input, dim, unbiased, keepdim, correction), root=True)


def _safe_root(s, root, grad):
    """s ** (1/p) whose gradient is 0 where s == 0, as torch's norm backward (not 0 * inf = nan)."""
    if not grad:
        return root(s)
    zero = ops.equal(s, 0)
    return ops.where(zero, const(0, s.dtype), root(ops.where(zero, const(1, s.dtype), s)))


def _norm2(x, axes, keepdim):
    if x.size and math.prod(x.shape[d] for d in (axes or range(x.ndim))) == 1:
        return _reduce_sum(ops.abs(x), axes, keepdim, x.dtype)   # one element: |x|, not squared (1e30)
    return ops.sqrt(_reduce_sum(ops.square(x), axes, keepdim, x.dtype))


_NORM2_NODES = {}


def _norm2_node(axes, keepdim):
    """The 2-norm of a real tensor with torch's gradient x * (g / norm), 0 where the norm is 0: the
    composed sqrt(sum(x**2)) meets inf * 0 = NaN where x**2 overflows (|x| near the dtype's largest value),
    where torch's x / inf is 0. The backward is in recorded ops (double backward: _OWN_FUNCTIONS)."""
    key = (axes, keepdim)
    node = _NORM2_NODES.get(key)
    if node is not None:
        return node

    def backward(saved, g):
        (x,) = saved
        n = node(x) if P.grad_enabled() and P.requires_grad(x) else _norm2(x, axes, keepdim)
        if not keepdim and x.ndim:
            for d in sorted(axes or range(x.ndim)):
                g, n = ops.expand_dims(g, d), ops.expand_dims(n, d)
        zero = ops.equal(n, 0)
        # torch's grad * (x / norm).masked_fill_(norm == 0, 0): a zero norm's NaN or infinite grad still
        # gives NaN (normalize's 0 / 0 row sends NaN back through its norm)
        unit = ops.where(zero, ops.zeros_like(x), ops.div(x, ops.where(zero, ops.ones_like(n), n)))
        return ops.mul(g, unit)
    node = _NORM2_NODES[key] = _node("LinalgVectorNormBackward0", lambda x: (_norm2(x, axes, keepdim), (x,)),
                                     backward)
    return node


def vector_norm(x, p, axes, keepdim):
    """torch.linalg.vector_norm's math on a float or complex tensor (axes () = all)."""
    # MindSpore's Abs of a complex tensor stays complex: take torch's magnitude (a real tensor)
    a = OPS["abs"].impl(x) if _FROM_MS[x.dtype]._cat == D._COMPLEX else ops.abs(x)
    dt = a.dtype
    real = _FROM_MS[x.dtype]._cat != D._COMPLEX
    if p == 2 and real and needs_grad(x):
        # (torch's gradient x * g / norm: NaN at a NaN element also when it is the only one)
        return _norm2_node(axes, keepdim)(x)
    if p != 0 and x.size and (x.ndim == 0 or math.prod(x.shape[d] for d in (axes or range(x.ndim))) == 1):
        # one element per norm: torch's kernel gives |x| without squaring it (no overflow at 1e30)
        return a.reshape(_out_shape(x.shape, axes, keepdim))
    if p == 2:
        if _FROM_MS[x.dtype]._cat == D._COMPLEX:
            return _safe_root(_reduce_sum(ops.square(a), axes, keepdim, dt), ops.sqrt, needs_grad(x))
        return _norm2_node(axes, keepdim)(x) if needs_grad(x) else _norm2(x, axes, keepdim)
    if p == 1:
        return _reduce_sum(a, axes, keepdim, dt)
    if p in (math.inf, -math.inf):
        fn = amax if p > 0 else amin
        if needs_grad(x) and _FROM_MS[x.dtype]._cat != D._COMPLEX:
            # torch's gradient: sgn(x) shared by the extreme elements, and sgn(nan) = 0, so a norm that is
            # NaN passes none back (amax of |x| would send it all to the NaN)
            nan = ops.isnan(x)
            r = fn(ops.abs(ops.where(nan, ops.zeros_like(x), x)), axes, keepdim)
            return ops.where(ops.any(nan, axes, keepdim), const(math.nan, dt), r)
        return fn(a, axes, keepdim)
    if p == 0:
        return _reduce_sum(ops.ne(a, const(0, dt)), axes, keepdim, dt)
    if needs_grad(x) and p < 1:     # |a|**p has an infinite slope at 0, where torch's gradient is 0
        zero = ops.equal(a, 0)     # 0**p: 0, or inf for a negative p (the norm is then 0)
        powered = ops.where(zero, const(0 if p > 0 else math.inf, dt), ops.pow(ops.where(zero, const(1, dt), a), p))
    else:
        powered = ops.pow(a, p)
    s = _reduce_sum(powered, axes, keepdim, dt)
    return _safe_root(s, lambda t: ops.pow(t, 1.0 / p), needs_grad(x))


@register("norm", family=F, out="exact")
def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    if isinstance(dim, int):
        dim = (dim,)
    matrix = p == "nuc" or p == "fro" and dim is not None and len(dim) > 2
    if matrix and p == "nuc" and input.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if not matrix or p == "nuc":
        _check_norm_dtype(input, dtype, "linalg.matrix_norm" if matrix else "linalg.vector_norm")
    if dtype is not None:
        input = cast(input, dtype._ms)
    if isinstance(p, str):
        if p == "fro" and (dim is None or len(dim) <= 2):
            p = 2
        elif p == "nuc":
            return _nuclear(input, dim, keepdim)
        else:
            what = "dim must be a 2-tuple. Got " + " ".join(map(str, dim)) if p == "fro" else \
                f"Order {p} not supported."
            raise RuntimeError(f"linalg.matrix_norm: {what}")
    if p is None:
        p = 2
    if not is_float(input):
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. "
                           f"Got {_scalar_name(input)}")
    if input.size == 0 and (p < 0 or p == math.inf):
        # no identity over an empty dim: linalg.vector_norm's RuntimeError (amin's IndexError before)
        return OPS["linalg.vector_norm"].impl(input, p, dim, keepdim)
    low = input.dtype in (ms.bfloat16, ms.float16)   # (torch accumulates half norms in float32)
    x = cast(input, ms.float32) if low else input
    r = vector_norm(x, p, _axes(x, dim), keepdim)
    return cast(r, input.dtype) if low else r


def _check_norm_dtype(input, dtype, who):
    """torch.linalg's norms take float and complex inputs, and a dtype= of the same kind that the input
    converts to without narrowing."""
    if not is_float(input):
        raise RuntimeError(f"{who}: Expected a floating point or complex tensor as input. Got {_scalar_name(input)}")
    if who == "linalg.matrix_norm" and input.dtype in (ms.float16, ms.bfloat16):   # (the SVD's norms)
        raise RuntimeError(f"{who}: Low precision dtypes not supported. Got {_scalar_name(input)}")
    if dtype is None:
        return
    src, name = _FROM_MS[input.dtype], D.scalar_type_name(dtype)
    if dtype._cat < D._FLOAT:
        raise RuntimeError(f"{who}: dtype should be floating point or complex, but got {name}")
    if src.is_complex != dtype.is_complex:
        kind = "complex" if src.is_complex else "real"
        raise RuntimeError(f"{who}: dtype should be {kind} for {kind} inputs, but got {name}")
    if D.promote_types(src, dtype) is not dtype:
        raise RuntimeError(f"{who}: the dtype of the input ({D.scalar_type_name(src)}) should be convertible "
                           f"without narrowing to the specified dtype ({name})")


@register("dist", family=F)
def dist(input, other, p=2):
    """torch.dist: the p-norm of input - other (broadcast, promoted), a 0-d tensor."""
    if not isinstance(other, MsTensor):
        raise TypeError(f"dist(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    if input.dtype is ms.bool_ or other.dtype is ms.bool_:
        from .arithmetic import _sub_bool_error    # torch subtracts first: its bool check
        _sub_bool_error(input, other)
    a, b, rt = promote(input, other)
    if not is_float(a):
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. "
                           f"Got {_scalar_name(a)} instead.")
    return norm(ops.sub(a, b), p)


def _nuclear(input, dim, keepdim):
    if not is_float(input) or _FROM_MS[input.dtype]._cat == D._COMPLEX:
        raise RuntimeError("linalg.matrix_norm: nuclear norm of this dtype is not supported by mstorch "
                           f"(got {_scalar_name(input)})")
    if input.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    dims = tuple(range(input.ndim)) if dim is None else tuple(dim)
    if len(dims) != 2:
        raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got " + " ".join(map(str, dims)))
    d0, d1 = wrap_dims(dims, input.ndim)
    x = ops.moveaxis(input, (d0, d1), (-2, -1))
    r = ops.sum(OPS["linalg.svdvals"].impl(x), -1)    # (its backward is torch's, also twice)
    if keepdim:
        for d in sorted((d0, d1)):
            r = r.expand_dims(d)
    return r


def _logsumexp_out(args, out):
    # torch's first check of logsumexp's out=, before the dim's
    if not (out.dtype.is_floating_point or out.dtype.is_complex):
        raise RuntimeError("logsumexp(): Expected floating point type for result tensor, but got: "
                           f"{D.SCALAR_TYPE_NAMES[out.dtype]}")


@register("logsumexp", family=F, out=True, out_check=_logsumexp_out)
def logsumexp(input, dim, keepdim=False):
    x = input if is_float(input) else cast(input, D.get_default_dtype()._ms)
    axes = _axes(x, dim)
    if x.size == 0:
        return empty_result(x, _out_shape(x.shape, axes, keepdim), -math.inf)
    r = _logsumexp_node(axes)(x) if needs_grad(x) else _logsumexp(x, axes)
    return r if keepdim else r.reshape(_out_shape(x.shape, axes, False))


def _logsumexp(x, axes):
    # shift by the (constant) max for range; an infinite max would turn inf - inf into nan
    if x.dtype in (ms.complex64, ms.complex128):
        # torch shifts a complex x by the max of its real parts (no MindSpore complex kernels for amax;
        # exp and log as mstorch's, which follow torch's at infinities)
        m = ops.stop_gradient(ops.amax(ops.real(x), axes, True))
        m = ops.where(ops.isinf(m), const(0, m.dtype), m)
        s = ops.sum(OPS["exp"].impl(ops.sub(x, cast(m, x.dtype))), axes, True)
        return ops.add(OPS["log"].impl(s), cast(m, x.dtype))
    m = ops.stop_gradient(ops.amax(x, axes, True))
    m = ops.where(ops.isinf(m), const(0, m.dtype), m)
    return ops.log(ops.sum(ops.exp(x - m), axes, True)) + m


_LOGSUMEXP_NODES = {}


def _logsumexp_node(axes):
    """logsumexp (dims kept) with torch's gradient g * exp(x - result): not the softmax of the composition,
    where they differ (the result rounded: 1e30 twice gives 1e30, so torch's gradient is 1 for each; an
    infinite result gives 0 beside a finite x and NaN at inf). In recorded ops (double backward:
    _OWN_FUNCTIONS)."""
    node = _LOGSUMEXP_NODES.get(axes)
    if node is not None:
        return node

    def backward(saved, g):
        x, = saved
        r = node(x) if P.grad_enabled() and P.requires_grad(x) else _logsumexp(x, axes)
        if x.dtype in (ms.complex64, ms.complex128):   # (torch's: g * conj(exp(x - result)))
            return ops.mul(g.reshape(r.shape), ops.conj(OPS["exp"].impl(ops.sub(x, r))))
        return ops.mul(g.reshape(r.shape), ops.exp(ops.sub(x, r)))
    node = _LOGSUMEXP_NODES[axes] = _node("LogsumexpBackward0", lambda x: (_logsumexp(x, axes), (x,)), backward)
    return node
