"""Ops torch builds from other ops, built here the same way from mstorch's: block_diag, diagflat, adjoint,
ravel, cov, corrcoef, trapezoid, combinations, unravel_index, renorm, sum_to_size, fill_diagonal_,
constant_pad_nd, igamma, _grouped_mm, _softmax_backward_data. Values, dtypes and gradients follow from the
ops they are made of."""
import itertools
import math

import numpy as np

from .. import _dtype as D
from .._dtype import scalar_type_name
from .._tensor import Tensor
from .._warnings import warn_once
from ._helpers import wrap_dim
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
    rows = sum(m.shape[0] for m in mats)
    cols = sum(m.shape[1] for m in mats)
    pieces, c = [], 0
    for m in mats:
        # each block padded with zeros to the full width, then the rows stacked: differentiable throughout
        m = m.to(dtype)
        if m.shape[0]:
            pieces.append(PUBLIC["nn.functional.pad"](m, (c, cols - c - m.shape[1])))
        else:   # MindSpore's pad has no kernel for empty input; an empty block still joins the graph
            pieces.append(PUBLIC["cat"]((PUBLIC["zeros"](0, c, dtype=dtype), m, PUBLIC["zeros"](0, cols - c - m.shape[1], dtype=dtype)), 1))
        c += m.shape[1]
    return PUBLIC["cat"](pieces, 0) if rows else PUBLIC["zeros"](0, cols, dtype=dtype)


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
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        x = x.to(D.get_default_dtype())   # torch's integer observations give a float covariance
    n = x.shape[1]
    _check_weights("fweights", fweights, n, "integral", lambda d: not (d.is_floating_point or d.is_complex))
    _check_weights("aweights", aweights, n, "floating point", lambda d: d.is_floating_point)
    w = fweights
    if aweights is not None:
        w = aweights if w is None else w * aweights
    if w is None:
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
        if y.dtype is D.bool_ or isinstance(x, Tensor) and x.dtype is D.bool_:
            raise RuntimeError(f"{name}: received a bool input for `{'x' if y.dtype is not D.bool_ else 'y'}`, "
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
    norm = PUBLIC["linalg.vector_norm"](input, p, dims, True)
    factor = PUBLIC["where"](norm > maxnorm, maxnorm / (norm + 1e-7), PUBLIC["ones_like"](norm))
    return input * factor


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
    if mat_a.dim() == 2 and mat_b.dim() == 3:
        return PUBLIC["cat"]([mm(mat_a[lo:hi], mat_b[g]) for g, (lo, hi) in enumerate(spans)], 0)
    if mat_a.dim() == 2:
        return PUBLIC["stack"]([mm(mat_a[:, lo:hi], mat_b[lo:hi]) for lo, hi in spans], 0)
    return PUBLIC["cat"]([mm(mat_a[g], mat_b[:, lo:hi]) for g, (lo, hi) in enumerate(spans)], 1)


@register("_softmax_backward_data", family=F, namespace="torch", raw=True)
def _softmax_backward_data(grad_output, output, dim, input_dtype):
    """torch._softmax_backward_data: the gradient through ``output = softmax(x, dim)``,
    ``output * (grad - sum(grad * output, dim))``, in the gradient's dtype (models with their own softmax autograd
    Function call it: transformers' DeBERTa)."""
    if output.dtype != grad_output.dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name(grad_output.dtype)} but found "
                           f"{scalar_type_name(output.dtype)}")
    if grad_output.dtype == D.float32 and input_dtype == D.float16:
        # torch's half-to-float path expects a Half gradient for a Half input
        raise RuntimeError("expected scalar type Float but found Half")
    dot = PUBLIC["sum"](grad_output * output, dim, keepdim=True)
    return output * (grad_output - dot)
