"""Ops torch builds from other ops, built here the same way from mstorch's: block_diag, diagflat, adjoint,
ravel, cov, corrcoef, _grouped_mm, _softmax_backward_data. Values, dtypes and gradients follow from the ops they are made of."""
from .. import _dtype as D
from .._dtype import scalar_type_name
from ._registry import PUBLIC, register

F = "composite"



@register("block_diag", family=F, method=False, raw=True)
def block_diag(*tensors):
    mats = []
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.dim()} dimensions")
        mats.append(t.reshape(1, 1) if t.dim() == 0 else t.reshape(1, -1) if t.dim() == 1 else t)
    if not mats:
        return PUBLIC["empty"](1, 0)
    dtype = mats[0].dtype
    for m in mats[1:]:
        dtype = D.promote_types(dtype, m.dtype)
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


@register("_grouped_mm", family=F, method=False, raw=True)
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


@register("_softmax_backward_data", family=F, method=False, raw=True)
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
