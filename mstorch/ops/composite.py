"""Ops torch builds from other ops, built here the same way from mstorch's: block_diag, diagflat, adjoint,
ravel, cov, corrcoef, trapezoid, combinations, unravel_index, renorm, sum_to_size, fill_diagonal_,
constant_pad_nd, igamma, _grouped_mm (and F.grouped_mm), _softmax_backward_data, put, index_reduce, nonzero_static,
Tensor.resize / resize_as, gradient. Values, dtypes and gradients follow from the
ops they are made of."""
import functools
import itertools
import math
import operator
import warnings

import numpy as np

from .. import _dtype as D
from .._dtype import scalar_type_name
from .._tensor import Tensor
from .._warnings import warn_once
from ._helpers import iteration_order, wrap_dim
from ._registry import PUBLIC, register

F = "composite"



@register("block_diag", family=F, namespace="torch", raw=True)
def block_diag(*tensors):
    mats = []
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.dim()} dimensions")
        mats.append(t.reshape(1, 1) if t.dim() == 0 else t.reshape(1, -1) if t.dim() == 1 else t)
    if not mats:
        return PUBLIC["empty"](1, 0)
    # torch's result_type: a 0-d block promotes only across categories (bfloat16 with a 0-d float32 stays
    # bfloat16)
    dtype = D.result_type_parts([t.dtype for t in tensors if t.dim()], [t.dtype for t in tensors if not t.dim()], [])
    cols = sum(m.shape[1] for m in mats)
    pieces, c = [], 0
    for m in mats:
        # each block padded with zeros to the full width, then the rows stacked: differentiable throughout
        m = m.to(dtype)
        if m.shape[0]:
            pieces.append(PUBLIC["nn.functional.pad"](m, (c, cols - c - m.shape[1])))
        else:   # MindSpore's pad has no kernel for empty input; an empty block still joins the graph
            pieces.append(PUBLIC["cat"]((PUBLIC["zeros"](0, c, dtype=dtype), m,
                                         PUBLIC["zeros"](0, cols - c - m.shape[1], dtype=dtype)), 1))
        c += m.shape[1]
    return PUBLIC["cat"](pieces, 0)   # (no rows: the empty blocks keep the result on their graph)


@register("diagflat", family=F, raw=True)
def diagflat(input, offset=0):
    return PUBLIC["diag"](input.reshape(-1), offset)


@register("adjoint", family=F, raw=True)
def adjoint(input):
    if input.dim() == 0:
        warn_once("adjoint() is deprecated on 0-D tensors. Consider using x.conj().")
        return input.conj()
    if input.dim() < 2:
        raise RuntimeError(f"tensor.adjoint() is only supported on matrices or batches of matrices. Got "
                           f"{input.dim()}-D tensor.")
    out = input.transpose(-2, -1)
    return out.conj() if input.dtype.is_complex else out


@register("ravel", family=F, raw=True)
def ravel(input):
    return input.reshape(-1)


def _check_weights(name, w, n, kind, dtype_ok):
    if w is None:
        return
    if w.dim() > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got {name} with {w.dim()} "
                           "dimensions")
    if not dtype_ok(w.dtype):
        raise RuntimeError(f"cov(): expected {name} to have {kind} dtype but got {name} with "
                           f"{scalar_type_name(w.dtype)} dtype")
    if w.numel() != n:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are observations in the input "
                           f"but got {w.numel()} != {n}")
    if bool((w < 0).any()):
        raise RuntimeError(f"cov(): {name} cannot be negative")


@register("cov", family=F, raw=True)
def cov(input, *, correction=1, fweights=None, aweights=None):
    if input.dim() > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.dim()} dimensions")
    if input.dtype is D.bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input.reshape(1, -1) if input.dim() < 2 else input
    n = x.shape[1]
    _check_weights("fweights", fweights, n, "integral", lambda d: not (d.is_floating_point or d.is_complex))
    _check_weights("aweights", aweights, n, "floating point", lambda d: d.is_floating_point)
    w = fweights
    if aweights is not None:
        w = aweights if w is None else w * aweights
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        # integer observations as torch's: summed in int64 (weighted: in the weights' promoted dtype), divided
        # by the weights' sum (n in int64) to a float mean, which the deviations promote to
        w_sum = PUBLIC["tensor"](n, dtype=D.int64) if w is None else w.sum()
        avg = (x if w is None else x * w).sum(1) / w_sum
    elif w is None:
        avg = x.mean(1)
        w_sum = PUBLIC["tensor"](n, dtype=avg.dtype if avg.dtype.is_floating_point else D.get_default_dtype())
    else:
        w_sum = w.sum()
        avg = (x * w).sum(1) / w_sum
    if w is None or aweights is None or correction == 0:
        norm_factor = w_sum - correction
    else:
        norm_factor = w_sum - correction * (w * aweights).sum() / w_sum
    if bool(norm_factor <= 0):
        import warnings
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                      "observations.")
        norm_factor = PUBLIC["zeros_like"](norm_factor)
    xm = x - avg.unsqueeze(1)
    xw = xm if w is None else xm * w
    c = PUBLIC["mm"](xw, xm.t().conj()) / norm_factor
    return c.squeeze()


@register("corrcoef", family=F, raw=True)
def corrcoef(input):
    if input.dim() > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.dim()} dimensions")
    c = cov(input)
    if c.dim() == 0:
        return c / c
    d = PUBLIC["diag"](c)
    if c.dtype.is_complex:
        d = d.real
    stddev = d.sqrt()
    c = c / stddev.unsqueeze(1)
    c = c / stddev.unsqueeze(0)
    return c.clamp(-1, 1) if not c.dtype.is_complex else c


@register("detach_", family=F, namespace="torch", raw=True)
def detach_(input):
    return input.detach_()


@register("constant_pad_nd", family=F, namespace="torch", raw=True)
def constant_pad_nd(input, pad, value=0):
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    return PUBLIC["nn.functional.pad"](input, pad, "constant", value)


@register("igamma", family=F, inplace="igamma_", out=True, raw=True)
def igamma(input, other):
    _need_tensor("igamma", other)
    return PUBLIC["special.gammainc"](input, other)


@register("igammac", family=F, inplace="igammac_", out=True, raw=True)
def igammac(input, other):
    _need_tensor("igammac", other)
    return PUBLIC["special.gammaincc"](input, other)


def _need_tensor(name, other):
    if not isinstance(other, Tensor):
        raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")


# --- integration by the trapezoid rule: torch's formulas, so values round as torch's do -----------------

def _except(y, dim):
    """zeros shaped like ``y`` without ``dim``: torch's integral over no sample points."""
    return PUBLIC["zeros"](tuple(s for i, s in enumerate(y.shape) if i != dim), dtype=y.dtype)


def _spacing(name, y, x, dim):
    """x's differences, shaped to broadcast against y's pairs of neighbours along ``dim``."""
    if x.dim() == 1:
        if x.shape[0] != y.shape[dim]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        x = x.view(*[x.shape[0] if i == dim else 1 for i in range(y.dim())])
    elif x.dim() < y.dim():
        x = x.view(*([1] * (y.dim() - x.dim())), *x.shape)
    n = x.shape[dim]
    return x.narrow(dim, 1, n - 1) - x.narrow(dim, 0, n - 1)


def _trapezoid(name, cumulative):
    def integrate(y, x=None, *, dx=None, dim=-1):
        dim = dim + y.dim() if dim < 0 else dim
        if not cumulative and y.shape[dim] == 0:   # torch: no integral before any check of the dtypes or x
            return _except(y, dim)
        if y.dtype is D.bool_ or isinstance(x, Tensor) and x.dtype is D.bool_:
            raise RuntimeError(f"{name}: received a bool input for `{'x` or `y' if isinstance(x, Tensor) else 'y'}`, "
                               "but bool is not supported")
        n = y.shape[dim]
        if n == 0:   # torch: no integral (without gradient), or an empty running one (with one)
            return (y * 0.5).cumsum(dim) if cumulative else _except(y, dim)
        left, right = y.narrow(dim, 0, n - 1), y.narrow(dim, 1, n - 1)
        if x is not None:
            step = _spacing(name, y, x, dim)
            # torch's order: the product in the operands' dtype (integers wrap) before the halving
            return ((left + right) * step).cumsum(dim) / 2.0 if cumulative else ((left + right) * step).sum(dim) / 2.0
        dx = 1 if dx is None else dx
        if cumulative:
            return (dx / 2.0 * (left + right)).cumsum(dim)
        return (y.sum(dim) - (y.select(dim, 0) + y.select(dim, -1)) * 0.5) * dx
    integrate.__name__ = name
    return integrate


register("trapezoid", family=F, namespace="torch", raw=True)(_trapezoid("trapezoid", False))
register("cumulative_trapezoid", family=F, namespace="torch", raw=True)(_trapezoid("cumulative_trapezoid", True))


@register("trapz", family=F, namespace="torch", raw=True)
def trapz(y, x=None, *, dx=None, dim=-1):
    return PUBLIC["trapezoid"](y, x, dx=dx, dim=dim) if x is not None else PUBLIC["trapezoid"](y, dx=dx, dim=dim)


@register("combinations", family=F, namespace="torch", raw=True)
def combinations(input, r=2, with_replacement=False):
    """The r-element combinations of a 1-d tensor's entries, in torch's (lexicographic) order: an index
    gather, so gradients flow to the entries."""
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return PUBLIC["empty"](0, dtype=input.dtype)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = list(pick(range(input.shape[0]), r))
    index = PUBLIC["tensor"](rows, dtype=D.int64) if rows else PUBLIC["zeros"](0, r, dtype=D.int64)
    return input[index.reshape(-1)].reshape(len(rows), r)


@register("unravel_index", family=F, namespace="torch", raw=True)
def unravel_index(indices, shape):
    if not isinstance(indices, Tensor):
        raise TypeError(f"expected 'indices' to be a tensor, but got {type(indices)}")
    if indices.dtype.is_floating_point or indices.dtype.is_complex or indices.dtype is D.bool_:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    # the place values of each dimension (row-major), then torch's floor division and remainder
    coefs = [math.prod(shape[i + 1:]) for i in range(len(shape))]
    idx = indices.to(D.int64).unsqueeze(-1)
    out = PUBLIC["remainder"](PUBLIC["floor_divide"](idx, PUBLIC["tensor"](coefs, dtype=D.int64)),
                              PUBLIC["tensor"](list(shape), dtype=D.int64))
    return tuple(out.unbind(-1))


@register("renorm", family=F, inplace="renorm_", out=True, raw=True)
def renorm(input, p, dim, maxnorm):
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if input.dim() < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.dim()} dimensions")
    d = wrap_dim(dim, input.dim())
    dims = [i for i in range(input.dim()) if i != d]
    # half types: torch takes the norm and the factor in float32, the factor then rounded to the input's dtype
    acc = D.float32 if input.dtype in (D.float16, D.bfloat16) else None
    norm = PUBLIC["linalg.vector_norm"](input, p, dims, True, dtype=acc)
    big = norm > maxnorm
    grad = input.requires_grad
    if grad:
        # torch's backward selects the plain gradient for rows within maxnorm (NaN rows too): their
        # norm is taken of zeros here, so its own backward meets no 0 * NaN. The factor is a reciprocal,
        # whose gradient (-g * r * r) neither overflows nor flushes y ** 2 to 0 as a quotient's does, with
        # maxnorm inside it (g * maxnorm overflows at a huge row, where torch's gradient is 0)
        norm = PUBLIC["linalg.vector_norm"](PUBLIC["where"](big, input, 0), p, dims, True, dtype=acc)
        inv = PUBLIC["reciprocal"]((norm + 1e-7) / maxnorm) if maxnorm > 0 else \
            PUBLIC["reciprocal"](norm + 1e-7) * maxnorm
        factor = PUBLIC["where"](big, inv, PUBLIC["ones_like"](norm))
    else:
        factor = PUBLIC["where"](big, maxnorm / (norm + 1e-7), PUBLIC["ones_like"](norm))
    if acc is not None:
        factor = factor.to(input.dtype)
    tiny = _SMALLEST_NORMAL.get(input.dtype)
    # a factor below the smallest normal number (a float32 norm past maxnorm * 8.5e37) is subnormal, which
    # MindSpore's kernels flush to 0 (docs/known-differences.md; their division too, through 1 / norm):
    # scaled up by 2 ** 64 it stays normal, and the products scaled back down are torch's (-3.4e38
    # renormed to 0.5 is -0.5, not -0). A finite norm gives such a factor only for maxnorm < 4 (past
    # it, only an infinite norm, whose factor is 0 either way)
    if tiny is None or not 0 < maxnorm < 4:
        return input * factor
    if grad:
        scaled = input * PUBLIC["reciprocal"]((norm + 1e-7) / (maxnorm * 2.0 ** 64)) * 2.0 ** -64
    else:
        scaled = input * (maxnorm / ((norm + 1e-7) * 2.0 ** -64)) * 2.0 ** -64
    return PUBLIC["where"](factor < tiny, scaled, input * factor)


_SMALLEST_NORMAL = {D.float32: 2.0 ** -126, D.float64: 2.0 ** -1022, D.complex64: 2.0 ** -126, D.complex128: 2.0 ** -1022}


@register("sum_to_size", family=F, namespace="Tensor", raw=True)
def sum_to_size(input, *size):
    size = tuple(size[0]) if len(size) == 1 and not isinstance(size[0], int) else tuple(size)
    shape = tuple(input.shape)
    lead = len(shape) - len(size)
    if lead < 0 or any(s != 1 and s != t for s, t in zip(size, shape[lead:])):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    r = input.sum(tuple(range(lead))) if lead else input
    squash = tuple(i for i, (s, t) in enumerate(zip(size, shape[lead:])) if s == 1 and t != 1)
    return r.sum(squash, keepdim=True) if squash else (r if lead else r.view_as(r))


@register("fill_diagonal_", family=F, namespace="Tensor", raw=True)
def fill_diagonal_(input, fill_value, wrap=False):
    """torch fills the storage positions of the main diagonal (offset + k * sum(strides)), and with
    ``wrap`` on a tall matrix the same stride again from row width + 1: found here as logical positions."""
    if input.dim() < 2:
        raise RuntimeError("dimensions must larger than 1")
    height, width = input.shape[0], input.shape[1]
    if input.dim() > 2 and any(s != height for s in input.shape[1:]):
        raise RuntimeError("all dimensions of input must be of equal length")
    mask = np.zeros(tuple(input.shape), dtype=bool)
    n = min(height, width)
    mask[(np.arange(n),) * input.dim()] = True
    if wrap and input.dim() == 2 and height > width + 1:
        step = width + 1
        count = (input.numel() + step - 1) // step - n
        # storage positions of the wrapped diagonal, mapped back to the (row, column) holding each
        strides = input.stride()
        where = {r * strides[0] + c * strides[1]: (r, c) for r in range(height) for c in range(width)}
        start = strides[0] * (width + 1)
        for k in range(count):
            rc = where.get(start + k * (strides[0] + strides[1]))
            if rc is not None:
                mask[rc] = True
    return input.masked_fill_(PUBLIC["tensor"](mask), fill_value)
def _check_grouped_mm_layout(m):
    """torch's grouped GEMM reads each matrix with one unit stride among its last two dims and a leading
    dimension that is a multiple of 16 bytes (its kernels load aligned vectors)."""
    rows, cols = m.shape[-2:]
    s_r, s_c = m.stride()[-2:]
    if s_c == 1 and s_r >= max(1, cols):
        lead = s_r
    elif s_r == 1 and s_c >= max(1, rows):
        lead = s_c
    else:
        raise RuntimeError(f"Invalid strides/sizes, got {list(m.stride())} for strides and {list(m.shape)} for sizes")
    if lead * m.element_size() % 16:
        raise RuntimeError("strides should be multiple of 16 bytes")


@register("_grouped_mm", family=F, namespace="torch", raw=True)
def _grouped_mm(mat_a, mat_b, offs=None, bias=None, out_dtype=None):
    """torch._grouped_mm: one matrix product per group. ``offs`` (int32, cumulative ends) splits the dimension a
    2-D operand does not batch: a's rows (2-D a, 3-D b: an (M, N) result), the shared K (both 2-D: (G, M, N)) or
    b's columns (3-D a, 2-D b: (M, N)); two 3-D operands are a batched product without offsets."""
    for name, m in (("mat_a", mat_a), ("mat_b", mat_b)):
        if m.dtype not in (D.float32, D.bfloat16, D.float16):
            raise RuntimeError(f"Expected {name} to be Float32, BFloat16 or Float16 matrix, got "
                               f"{scalar_type_name(m.dtype)}")
    for name, m in (("mat_a", mat_a), ("mat_b", mat_b)):
        if m.dim() not in (2, 3):
            raise RuntimeError(f"{name} has to be 2 or 3d")
    if (offs is not None) == (mat_a.dim() == 3 and mat_b.dim() == 3):
        raise RuntimeError("Have to provide offsets if there is a 2d matrix, or no offset if both matrices are 3d")
    if offs is not None and offs.dtype != D.int32:
        raise RuntimeError("Offsets have to be int32")
    if out_dtype is not None and out_dtype != mat_a.dtype:
        raise RuntimeError("Grouped gemm output dtype must match `mat_a` dtype")
    if bias is not None:
        raise RuntimeError("Bias not supported yet")
    _check_grouped_mm_layout(mat_a)
    _check_grouped_mm_layout(mat_b)
    mm = PUBLIC["mm"]
    if offs is None:
        return PUBLIC["bmm"](mat_a, mat_b)
    bounds = [0] + offs.tolist()
    spans = list(zip(bounds[:-1], bounds[1:]))
    batched = mat_b if mat_b.dim() == 3 else mat_a if mat_a.dim() == 3 else None
    if batched is not None and batched.shape[0] != len(spans):
        raise RuntimeError("matrix batch sizes have to match")
    if mat_a.dim() == 2 and mat_b.dim() == 3:
        parts = [mm(mat_a[lo:hi], mat_b[g]) for g, (lo, hi) in enumerate(spans)]
        return PUBLIC["cat"](parts + _grouped_tail(mat_a, mat_b, bounds[-1], 0), 0)
    if mat_a.dim() == 2:
        return PUBLIC["stack"]([mm(mat_a[:, lo:hi], mat_b[lo:hi]) for lo, hi in spans], 0)
    parts = [mm(mat_a[g], mat_b[:, lo:hi]) for g, (lo, hi) in enumerate(spans)]
    return PUBLIC["cat"](parts + _grouped_tail(mat_a, mat_b, bounds[-1], 1), 1)


def _grouped_tail(mat_a, mat_b, end, dim):
    """The rows (dim 0) or columns (dim 1) of the result past the last offset: torch's result keeps the
    split operand's size there and leaves them unwritten (uninitialised memory); zeros here."""
    rest = (mat_a.shape[0] if dim == 0 else mat_b.shape[1]) - max(end, 0)
    if rest <= 0:
        return []
    shape = (rest, mat_b.shape[-1]) if dim == 0 else (mat_a.shape[-2], rest)
    return [PUBLIC["zeros"](shape, dtype=mat_a.dtype)]


@register("grouped_mm", family=F, namespace="nn.functional", raw=True)
def grouped_mm(mat_a, mat_b, *, offs=None, bias=None, out_dtype=None):
    """torch.nn.functional.grouped_mm: the keyword-only public form of ``torch._grouped_mm``."""
    return _grouped_mm(mat_a, mat_b, offs=offs, bias=bias, out_dtype=out_dtype)


@register("_softmax_backward_data", family=F, namespace="torch", raw=True)
def _softmax_backward_data(grad_output, output, dim, input_dtype):
    """torch._softmax_backward_data: the gradient through ``output = softmax(x, dim)``,
    ``output * (grad - sum(grad * output, dim))``, in the gradient's dtype (models with their own softmax autograd
    Function call it: transformers' DeBERTa)."""
    if tuple(grad_output.shape) != tuple(output.shape):
        raise RuntimeError(f"Expected tensor for argument #1 'grad' to have same size as tensor for argument #2 "
                           f"'output'; but {list(grad_output.shape)} does not equal {list(output.shape)} (while "
                           "checking arguments for softmax_backward)")
    if not grad_output.dtype.is_floating_point:
        last = grad_output.dim() == 0 or dim in (-1, grad_output.dim() - 1)
        kernel = "softmax_backward_lastdim_kernel_impl" if last else "softmax_backward_kernel_impl"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_type_name(grad_output.dtype)}'")
    if output.dtype != grad_output.dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name(grad_output.dtype)} but found "
                           f"{scalar_type_name(output.dtype)}")
    if grad_output.dtype == D.float32 and input_dtype == D.float16:
        # torch's half-to-float path expects a Half gradient for a Half input
        raise RuntimeError("expected scalar type Float but found Half")
    dot = PUBLIC["sum"](grad_output * output, dim, keepdim=True)
    return output * (grad_output - dot)


# --- flat writes, indexed reductions, copies torch builds from its indexing ops ------------------------

@register("put", family=F, inplace="put_", raw=True)
def put(input, index, source, accumulate=False):
    """``input`` with ``source`` written (or added) at ``index`` into its row-major flattening; negative
    indices count from the end. Built on ``index_put`` over the flattened input, so gradients follow."""
    if index.dtype != D.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {scalar_type_name(index.dtype)}")
    if source.dtype != input.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{scalar_type_name(input.dtype)} and source.dtype = {scalar_type_name(source.dtype)}")
    if source.numel() != index.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    n = input.numel()
    flat_index = index.reshape(-1)
    if flat_index.numel():
        lo, hi = int(flat_index.min()), int(flat_index.max())
        bad = lo if lo < -n else hi if hi >= n else None
        if bad is not None:
            if not n:
                raise IndexError("put_(): Tried to put elements into an empty tensor")
            raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")
    # torch writes in its TensorIterator's order over (source, index reshaped as source), which follows their
    # strides: with duplicate indices the last write in that order wins (serial below 32768 elements)
    index = index.reshape(source.shape)
    order = iteration_order(tuple(source.shape), source.stride(), index.stride())
    if order != sorted(order, reverse=True):
        index, source = index.permute(order[::-1]), source.permute(order[::-1])
    flat = input.reshape(-1)
    return flat.index_put((index.reshape(-1),), source.reshape(-1), accumulate=accumulate).view(input.shape)


_INDEX_REDUCE = ("prod", "mean", "amax", "amin")


@register("index_reduce", family=F, inplace="index_reduce_", raw=True, out=True)
def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """``scatter_reduce`` with ``index`` (1-d, one entry per slice of ``source`` along ``dim``) spread over
    the other dims, as torch defines index_reduce."""
    warn_once("index_reduce() is in beta and the API may change at any time.")
    if reduce not in _INDEX_REDUCE:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    d = wrap_dim(dim, input.dim())
    if index.dim() > 1:
        raise IndexError(f"index_reduce_(): Index is supposed to be a vector, but got dim: {index.dim()} with type: "
                         f"{scalar_type_name(index.dtype)} and size: {list(index.shape)}")
    if index.dtype not in (D.int64, D.int32):
        raise RuntimeError("index_reduce_(): Expected dtype int32/int64 for index but got: "
                           f"{scalar_type_name(index.dtype)}")
    if source.dtype != input.dtype:
        raise RuntimeError(f"index_reduce_(): self ({scalar_type_name(input.dtype)}) and source "
                           f"({scalar_type_name(source.dtype)}) must have the same scalar type")
    if d != 0 and d >= source.dim():
        raise RuntimeError(f"index_reduce_(): Indexing dim {d} is out of bounds of the source tensor with dim "
                           f"{source.dim()}")
    n = index.numel()
    if (source.shape[d] if source.dim() else 1) != n:
        raise RuntimeError(f"index_reduce_(): Number of indices ({n}) should be equal to source.size(dim): "
                           f"({source.shape[d] if source.dim() else 1}), for dim: {dim}")
    own, src = list(input.shape), list(source.shape)
    if own and src:
        del own[d], src[d]
    if own != src:
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {list(input.shape)} source.shape = {list(source.shape)}")
    if input.dtype is D.bool_ or input.dtype.is_complex:
        # torch's kernels: the fill of the excluded self, and the one-dimensional loop, take neither
        # (before the index range check)
        kernel = "index_reduce_func_exclude_input_init" if not include_self else "index_func_" if input.dim() <= 1 else None
        if kernel:
            raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_type_name(input.dtype)}'")
    if n and (int(index.min()) < 0 or int(index.max()) >= (input.shape[d] if input.dim() else 1)):   # (none < 0)
        if not include_self and not input.numel() and source.numel():
            # torch fills the excluded slices of an empty self first, through a view its storage cannot hold
            # (with an empty source that view is empty too: the range check's IndexError)
            raise RuntimeError(f"index_reduce_(): index out of range for the empty self of size {list(input.shape)}")
        size = input.shape[d] if input.dim() else 1
        if not include_self:   # (the excluded slices' fill is an index_fill_, which names the first bad index)
            bad = [i for i in index.reshape(-1).tolist() if not -size <= i < size]
            if bad:
                raise IndexError(f"index {bad[0]} is out of bounds for dimension {d} with size {size}")
        raise IndexError("index out of range in self")
    if not input.dim():   # (a 0-d self and source: as one-element vectors)
        return input.reshape(1).scatter_reduce(0, index.to(D.int64).reshape(1), source.reshape(1), reduce,
                                               include_self=include_self).reshape(())
    shape = [1] * max(source.dim(), 1)
    shape[d] = n
    spread = index.to(D.int64).reshape(shape).expand(tuple(source.shape) or (1,))
    return input.scatter_reduce(d, spread, source, reduce, include_self=include_self)


@register("nonzero_static", family=F, raw=True)
def nonzero_static(input, *, size, fill_value=-1):
    """``nonzero``'s rows, cut or padded with ``fill_value`` to exactly ``size`` rows."""
    if not isinstance(size, int) or size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    rows = PUBLIC["nonzero"](input)
    if rows.shape[0] >= size:
        return rows[:size]
    pad = PUBLIC["full"]((size - rows.shape[0], rows.shape[1]), fill_value, dtype=D.int64)
    return PUBLIC["cat"]([rows, pad], 0)


def _resize_by_autograd(input, sizes, name):
    """torch's non-in-place resize (``Tensor.resize``/``resize_as``): deprecated, and only a reshape that
    keeps the element count."""
    warnings.warn(f"non-inplace {name} is deprecated", stacklevel=4)
    numel = functools.reduce(operator.mul, sizes, 1)
    if numel != input.numel():
        raise RuntimeError(f"requested resize to {'x'.join(map(str, sizes))} ({numel} elements in total), but the "
                           f"given tensor has a size of {'x'.join(map(str, input.shape))} ({input.numel()} "
                           "elements). autograd's resize can only change the shape of a given tensor, while "
                           "preserving the number of elements. ")
    return input.reshape(*sizes)


@register("resize", family=F, namespace="Tensor", raw=True)
def resize(input, *sizes):
    return _resize_by_autograd(input, sizes, "resize")


@register("resize_as", family=F, namespace="Tensor", raw=True)
def resize_as(input, tensor):
    return _resize_by_autograd(input, tuple(tensor.shape), "resize_as")


# --- numerical derivatives ----------------------------------------------------------------------------

@register("gradient", family=F, namespace="torch", raw=True)
def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """torch.gradient: central differences inside, one-sided ones (first or second order) at the two
    edges, along each of ``dim`` (all dims by default); ``spacing`` a step for all dims, a step per dim, or
    per dim a 1-d tensor of coordinates (non-uniform steps). Built from slices, so gradients flow."""
    if isinstance(spacing, Tensor):
        raise TypeError("gradient() received an invalid combination of arguments - got (Tensor, spacing=Tensor), "
                        "but expected one of:")
    if input.dtype is D.uint8:   # (torch's first check: its differences would wrap around)
        raise RuntimeError("torch.gradient does not support uint8 input.")
    dims = list(range(input.dim())) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    dims = [wrap_dim(d, input.dim()) for d in dims]
    seen = set()
    for d in dims:
        if d in seen:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        seen.add(d)
    if isinstance(spacing, (list, tuple)):
        if len(spacing) != len(dims):
            if dim is None:
                raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar, or a list of length "
                                   f"equal to 'self.dim() = {input.dim()}', since dim argument was not given, but got "
                                   f"a list of length {len(spacing)}")
            raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                               f"arguments to have the same length, but got a spacing argument of length "
                               f"{len(spacing)} and a dim argument of length {len(dims)}.")
        steps = list(spacing)
    else:
        steps = [spacing] * len(dims)
    for d in (range(input.dim()) if dim is None else dims):
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    for s in steps:
        if isinstance(s, Tensor) and s.dim() != 1:
            raise RuntimeError("torch.gradient expected each element of spacing to have one dimension, but got an "
                               f"element with {s.dim()} dimensions!")
    return tuple(_gradient_along(input, d, s, edge_order) for d, s in zip(dims, steps))


def _gradient_along(f, d, step, edge_order):
    def at(i, j):   # f[i:j] along d (j None: to the end)
        n = f.shape[d]
        i, j = i % n if i < 0 else i, (j % n if j < 0 else j) if j is not None else n
        return f.narrow(d, i, j - i)
    cat = PUBLIC["cat"]
    if isinstance(step, Tensor):
        # non-uniform: second-order central weights from the neighbouring steps
        dx = step.diff()
        dx1, dx2 = dx[:-1], dx[1:]
        shape = [1] * f.dim()
        shape[d] = -1
        a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
        b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
        c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
        center = a * at(0, -2) + b * at(1, -1) + c * at(2, None)
        if edge_order == 1:
            first = (at(1, 2) - at(0, 1)) / dx[0]
            last = (at(-1, None) - at(-2, -1)) / dx[-1]
        else:
            h0, h1 = dx[0], dx[1]
            first = (-(2.0 * h0 + h1) / (h0 * (h0 + h1)) * at(0, 1) + (h0 + h1) / (h0 * h1) * at(1, 2)
                     + (-h0) / (h1 * (h0 + h1)) * at(2, 3))
            hl, hp = dx[-1], dx[-2]
            last = (hl / (hp * (hl + hp)) * at(-3, -2) + (-(hl + hp) / (hl * hp)) * at(-2, -1)
                    + (2 * hl + hp) / (hl * (hl + hp)) * at(-1, None))
    else:
        center = (at(2, None) - at(0, -2)) / step / 2
        if edge_order == 1:
            first = (at(1, 2) - at(0, 1)) / step
            last = (at(-1, None) - at(-2, -1)) / step
        else:
            first = (-1.5 * at(0, 1) + 2 * at(1, 2) - 0.5 * at(2, 3)) / step
            last = (0.5 * at(-3, -2) - 2 * at(-2, -1) + 1.5 * at(-1, None)) / step
    return cat([first, center, last], d)


# --- Python callables over the elements (torch's CPU-only apply_ / map_ / map2_) ----------------------------

def _python_value(r, dtype):
    """A callable's result as a value of ``dtype`` (torch's conversions and errors)."""
    if dtype.is_complex:
        if not isinstance(r, (int, float, complex, np.number)):
            raise TypeError(f"must be real number, not {type(r).__name__}")
        return complex(r)
    if not isinstance(r, (int, float, np.number)):   # (bool is an int)
        raise TypeError(f"must be real number, not {type(r).__name__}")
    if dtype.is_floating_point:
        return float(r)
    if dtype == D.bool_:
        return bool(r)
    r = int(r)
    if not -2 ** 63 <= r < 2 ** 63:
        raise ValueError("Overflow when unpacking long long")
    return r


def _map_elements(name, input, others, fn):
    if input.requires_grad:
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() instead.")
    from .creation import _LEGACY_NAMES
    for arg, other in zip(("'other'",) if len(others) == 1 else ("argument 'x'", "argument 'y'"), others):
        if other.dtype != input.dtype:
            raise TypeError(f"{name}: expected {_LEGACY_NAMES.get(input.dtype, input.dtype)} for {arg} (got "
                            f"{_LEGACY_NAMES.get(other.dtype, other.dtype)})")
    columns = [input.reshape(-1).tolist()] + [o.expand(input.shape).reshape(-1).tolist() for o in others]
    values = [_python_value(fn(*args), input.dtype) for args in zip(*columns)]
    return input.copy_(PUBLIC["tensor"](values, dtype=input.dtype).reshape(input.shape))


@register("apply_", family=F, namespace="Tensor", raw=True)
def apply_(input, callable):
    """Each element replaced by ``callable(element)``, in place (row-major order; views write through)."""
    return _map_elements("apply_", input, (), callable)


@register("map_", family=F, namespace="Tensor", raw=True)
def map_(input, tensor, callable):
    return _map_elements("map_", input, (tensor,), callable)


@register("map2_", family=F, namespace="Tensor", raw=True)
def map2_(input, x, y, callable):
    return _map_elements("map2_", input, (x, y), callable)
