"""Matrix products and distances: matmul, mm, bmm, dot, mv, outer, addmm..., tensordot, chain_matmul,
trace, cross, cdist, pdist (einsum, which reduces to these, is in einsum.py).

MindSpore's CPU MatMul has no bfloat16 kernel: bfloat16 products run in float32 and round back once, as
torch's CPU kernels effectively do (they accumulate in float).
"""
import math
import threading

import mindspore as ms
import numpy as np
from .._runtime import read_host
from . import _msops as ops

from .. import _dtype as D
from ._helpers import promote, dtype_of, wrap_dim, wrap_size_dim, _scalar_name, cast, _node, records, iteration_order  # noqa: F401
from .. import _ms_private as P
from ._views import fresh
from ._registry import register
from .reduction import needs_grad
from .creation import _check_fill

F = "linalg"
_bf16 = ms.bfloat16
_f32 = ms.float32

# torch's messages name dtypes by their C++ types here
_CPP = {ms.float32: "float", ms.float64: "double", ms.float16: "c10::Half", ms.bfloat16: "c10::BFloat16",
        ms.int64: "long int", ms.int32: "int", ms.int16: "short int", ms.int8: "signed char",
        ms.uint8: "unsigned char", ms.bool_: "bool", ms.complex64: "c10::complex<float>",
        ms.complex128: "c10::complex<double>"}


def _no_bool(t, kernel):
    if t.dtype == ms.bool_:
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


def _same_dtype_mm(a, b):
    if a.dtype != b.dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {_CPP[a.dtype]} != {_CPP[b.dtype]}")


def _scalar_type_msg(expected, found):
    raise RuntimeError(f"expected scalar type {_scalar_name(expected)} but found {_scalar_name(found)}")


_MATMUL = ops.MatMul()
_MATMUL_KERNEL = ms.ops.MatMul()   # (unguarded: for operands known non-empty)


def _mm(a, b):
    """torch.matmul's broadcasting over MindSpore kernels; bfloat16 computed in float32."""
    if a.dtype == _bf16:
        return cast(_mm(cast(a, _f32), cast(b, _f32)), _bf16)
    if a.size == 0 and b.size == 0:
        return ops.matmul(a, b)     # an empty inner dimension: zeros (the guarded kernel, see _msops)
    if a.ndim == 2 and b.ndim == 2:
        # the classic MatMul primitive: its backward records completely, so double backward
        # (gradient penalties, MAML, Hessian-vector products) is right; the backward of ops.matmul's
        # MatMulExt consumes views of its saved operands and loses their edges (measured, 2.10 CPU)
        return _MATMUL(a, b)
    if a.ndim <= 2 and b.ndim <= 2:   # a 1-D operand: a row or column of a 2-D product
        out = _MATMUL(a.reshape(1, -1) if a.ndim == 1 else a, b.reshape(-1, 1) if b.ndim == 1 else b)
        return out.reshape(tuple(a.shape[:-1]) + tuple(b.shape[1:]))
    if b.ndim == 2:
        # (..., n, k) @ (k, m): one 2-D product over the folded leading dims
        return _MATMUL(a.reshape(-1, a.shape[-1]), b).reshape(tuple(a.shape[:-1]) + (b.shape[-1],))
    # batched products go through BatchMatMul: MatMul's backward fails for some size-1 batch shapes
    a2 = a.reshape(1, -1) if a.ndim == 1 else a
    b2 = b.reshape(-1, 1) if b.ndim == 1 else b
    batch = _broadcast_batch(a2.shape[:-2], b2.shape[:-2])
    n, k, m = a2.shape[-2], a2.shape[-1], b2.shape[-1]
    if 0 in batch or n == 0 or m == 0:
        # an empty result (BatchMatMul refuses broadcasting to an empty batch): zeros that still lead back
        # to both operands (zero gradients)
        out = ops.mul(ops.zeros(batch + (n, m), a.dtype), ops.add(ops.sum(a), ops.sum(b)).astype(a.dtype))
        return out.squeeze(-2) if a.ndim == 1 else out.squeeze(-1) if b.ndim == 1 else out
    a3 = ops.broadcast_to(a2, batch + (n, k)) if tuple(a2.shape[:-2]) != batch else a2
    b3 = ops.broadcast_to(b2, batch + (k, m)) if tuple(b2.shape[:-2]) != batch else b2
    out = ops.bmm(a3.reshape(-1, n, k), b3.reshape(-1, k, m)).reshape(batch + (n, m))
    if a.ndim == 1:
        out = out.squeeze(-2)
    if b.ndim == 1:
        out = out.squeeze(-1)
    return out


_HALF = (ms.float16, _bf16)


def _mm_acc(a, b):
    """_mm, with half operands multiplied in float32 and left there: torch's half addmm-like kernels
    accumulate in float and apply alpha and beta before they round (:func:`_add_scaled`)."""
    if a.dtype in _HALF:
        return _mm(cast(a, _f32), cast(b, _f32))
    return _mm(a, b)


def _broadcast_batch(sa, sb):
    out = []
    na, nb = len(sa), len(sb)
    n = max(na, nb)
    for i in range(n):
        x = sa[i - n + na] if i - n + na >= 0 else 1
        y = sb[i - n + nb] if i - n + nb >= 0 else 1
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                               f"non-singleton dimension {i}")
        out.append(max(x, y) if x and y else 0)
    return tuple(out)


def _check_dot(a, b):
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.dtype != b.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {_scalar_name(a)} and "
                           f"{_scalar_name(b)}")
    if a.shape[0] != b.shape[0]:
        n, m = a.shape[0], b.shape[0]
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same "
                           f"number of elements, but got {n} and {m} elements respectively")
    _no_bool(a, "dot")


def _check_mv(mat, vec):
    if mat.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {mat.ndim}, {vec.ndim}")
    if mat.shape[1] != vec.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({mat.shape[0]}), mat ({mat.shape[0]}x{mat.shape[1]}), "
                           f"vec ({vec.shape[0]})")


def _check_mm_shapes(a, b):
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} and "
                           f"{b.shape[0]}x{b.shape[1]})")


def _check_bmm_shapes(a, b):
    if b.shape[0] != a.shape[0] or b.shape[1] != a.shape[2]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{a.shape[0]}, "
                           f"{a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")


# --- products -----------------------------------------------------------------------------------

# the common product, two non-empty float32/float64 matrices that fit: straight to MatMul (the checks
# below all pass for it), a dozen Python calls fewer per product
_MM_FAST = frozenset((_f32, ms.float64))


def _fast_mm(a, b):
    sa, sb = a.shape, b.shape
    return (len(sa) == 2 and len(sb) == 2 and sa[1] == sb[0] and 0 not in sa and 0 not in sb
            and a.dtype in _MM_FAST and b.dtype == a.dtype)


def _folds(a, b):
    """torch's should_fold for a (..., n, k) @ (k[, m]) product: a's batch folds into rows when ``b`` requires
    grad, when ``a`` is empty, or when its leading dims view as rows without a copy."""
    from .._ms_private import requires_grad
    if requires_grad(b) or a.size == 0:
        return True
    shape, strides = a.shape, a.stride()
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(a.ndim - 2))


@register("matmul", family=F, out="exact")
def matmul(input, other):
    if _fast_mm(input, other):
        return _MATMUL_KERNEL(input, other)
    a, b = input, other
    if a.ndim == 0 or b.ndim == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {a.ndim}D and {b.ndim}D")
    if a.ndim == 1 and b.ndim == 1:
        return dot(a, b)
    if a.ndim >= 3 and b.ndim <= 2 and not _folds(a, b):
        # torch multiplies a batch it cannot fold without a copy through bmm (b expanded): bmm's checks
        k = b.shape[0]
        if a.shape[-1] != k:
            bs = math.prod(a.shape[:-2])
            raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{bs}, "
                               f"{a.shape[-1]}] but got: [{bs}, {k}].")
        _no_bool(a, "bmm")
        if a.dtype != b.dtype:
            _scalar_type_msg(a, b)
    _same_dtype_mm(a, b)
    if a.ndim <= 2 and b.ndim <= 2:
        if b.ndim == 1:
            _check_mv(a, b)
        else:
            _check_mm_shapes(a.reshape(1, -1) if a.ndim == 1 else a, b)
    elif b.ndim <= 2:   # torch folds A's batch into its rows: a matrix (or matrix-vector) product
        rows = a.reshape(math.prod(a.shape[:-1]), a.shape[-1])
        _check_mv(rows, b) if b.ndim == 1 else _check_mm_shapes(rows, b)
    else:   # a batched product over the broadcast batch, which torch checks first
        batch = _broadcast_batch(a.shape[:-2], b.shape[:-2])
        if a.shape[-1] != b.shape[-2]:
            bs = math.prod(batch)
            raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{bs}, "
                               f"{a.shape[-1]}] but got: [{bs}, {b.shape[-2]}].")
    if a.size and b.size:   # (after the shape checks; torch answers an empty product without its kernel)
        _no_bool(a, "addmm_impl_cpu_")
    return _mm(a, b)


@register("mm", family=F, out="exact")
def mm(input, mat2):
    if _fast_mm(input, mat2):
        return _MATMUL_KERNEL(input, mat2)
    if input.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    _same_dtype_mm(input, mat2)
    _check_mm_shapes(input, mat2)   # (torch's shape check comes before the kernel's bool refusal)
    if input.size and mat2.size:   # (torch answers an empty product without its kernel)
        _no_bool(input, "addmm_impl_cpu_")
    return _mm(input, mat2)


@register("bmm", family=F, out="exact")
def bmm(input, mat2):
    if input.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    _check_bmm_shapes(input, mat2)
    if input.dtype != mat2.dtype:
        _scalar_type_msg(input, mat2)
    if input.size and mat2.size:   # (torch answers an empty product without its kernel)
        _no_bool(input, "bmm")
    return _mm(input, mat2)


def _dot(a, b):
    if a.dtype == _f32 and a.size:
        # torch's sdot rounds each product to float before it sums (a product past the float limit is inf,
        # so inf - inf gives NaN), where MindSpore's MatMul fuses the multiply-add; the sum in double,
        # rounded once
        return cast(ops.sum(cast(ops.mul(a, b), ms.float64)), _f32)
    if a.dtype == ms.float64 and a.size:
        return ops.sum(ops.mul(a, b))
    return _mm(a.reshape(1, -1), b.reshape(-1, 1)).reshape(())


@register("dot", family=F, out="exact")
def dot(input, other):
    _check_dot(input, other)
    return _dot(input, other)


@register("vdot", family=F, out="exact")
def vdot(input, other):
    _check_dot(input, other)
    if input.dtype in (ms.complex64, ms.complex128):
        input = ops.conj(input)
    return _dot(input, other)


@register("mv", family=F, out="exact")
def mv(input, vec):
    wrap_size_dim(0, input.ndim)   # (torch sizes its result by input.size(0) before any check)
    _check_mv(input, vec)
    if input.dtype != vec.dtype:
        n = _scalar_name(vec)
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {n}, {_scalar_name(input)}, "
                           f"and {n}")
    if input.size == 0 and input.dtype == ms.bool_:   # torch fills zeros without looking for a kernel
        return ops.zeros((input.shape[0],), input.dtype)
    _no_bool(input, "addmv_impl_cpu")
    return _mm(input, vec.reshape(-1, 1)).reshape(-1)


def _mul(a, b):
    if a.dtype == ms.bool_:
        return ops.logical_and(a, b)
    if a.dtype == _bf16:
        return cast(ops.mul(cast(a, _f32), cast(b, _f32)), _bf16)
    return ops.mul(a, b)


@register("outer", family=F, out=True, aliases=("ger",))
def outer(input, vec2):
    for t, name in ((input, "self"), (vec2, "vec2")):
        if t.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.ndim}-D")
    a, b, _ = promote(input, vec2)
    return _mul(a.reshape(-1, 1), b.reshape(1, -1))


def _scaled(t, s, always=False):
    """s * t for a Python scalar s, in t's dtype (torch converts alpha/beta to the result type). A complex t
    is scaled as BLAS does, by the plain product with s + 0j: an infinite part makes the other part NaN
    (``always``: even for s = 1, as torch's gemv for a row-major matrix does)."""
    if s == 1 and not (always and t.dtype in (ms.complex64, ms.complex128)):
        return t
    if t.dtype in (ms.complex64, ms.complex128):
        re, im, z = ops.real(t), ops.imag(t), ms.Tensor(0, ops.real(t).dtype)
        sr, si = complex(s).real, complex(s).imag
        return ops.complex_of_parts(ops.sub(ops.mul(re, sr), ops.mul(im, si if si else z)),
                           ops.add(ops.mul(re, si if si else z), ops.mul(im, sr)))
    d = dtype_of(t)
    if d is D.bool_:   # (torch converts the scalar to bool: 0.5 is True)
        return t if s else ops.zeros_like(t)
    if d._cat <= D._INT:
        _check_fill(s, d)   # (torch converts alpha and beta to the result type: -1.0 or 300 refused for uint8)
        s = int(s)
    if t.dtype == _bf16:
        return cast(ops.mul(cast(t, _f32), s), _bf16)
    return ops.mul(t, ms.Tensor(s, t.dtype))


def _add_scaled(input, product, beta, alpha, target_shape, name, gemv=False):
    """beta * input + alpha * product, with input broadcast to the product's shape (beta=0 ignores it);
    ``gemv``: a complex input is scaled even by beta = 1 (torch's gemv of a row-major matrix). A float32
    ``product`` of half operands (:func:`_mm_acc`) is combined in float32 and rounded once, as torch's half
    kernels do (a product past the half limit scaled back into range stays finite)."""
    if input.dtype in _HALF and product.dtype == _f32:
        if tuple(input.shape) != tuple(target_shape):
            _expandable(input.shape, target_shape)
        return cast(_add_scaled(cast(input, _f32), product, beta, alpha, target_shape, name, gemv), input.dtype)
    if input.dtype != product.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {_scalar_name(input)} and "
                           f"{_scalar_name(product)}")
    if tuple(input.shape) != tuple(target_shape):
        _expandable(input.shape, target_shape)
        input = ops.broadcast_to(input, tuple(target_shape))
    out = _scaled(product, alpha)
    if beta == 0:
        return out
    x = _scaled(input, beta, always=gemv)
    if x.dtype == _bf16:
        return cast(ops.add(cast(x, _f32), cast(out, _f32)), _bf16)
    return ops.logical_or(x, out) if x.dtype == ms.bool_ else ops.add(x, out)


def _empty_inner(input, beta, shape):
    """torch's check where the product's inner dimension is empty: it scales the input in place by beta
    (unless beta is 0), which refuses a beta whose type the result cannot hold (a float beta of an
    integer input, an int one of a bool input: torch's mul_). Returns the result for bool input (no
    kernel needed), None for the others (computed as usual)."""
    d = dtype_of(input)
    if beta != 0:
        rt = D.result_type_parts([d], [], [beta])
        if not D.can_cast(rt, d):
            raise RuntimeError(f"result type {D.SCALAR_TYPE_NAMES[rt]} can't be cast to the desired output type "
                               f"{D.SCALAR_TYPE_NAMES[d]}")
    if d is not D.bool_:
        return None
    if beta == 0:
        return ops.zeros(tuple(shape), input.dtype)
    return fresh(ops.broadcast_to(input, tuple(shape)) if tuple(input.shape) != tuple(shape) else input)


def _mm_dtypes(input, mat, name):
    """torch's check that input and the matrices share a dtype, before any look at the product's kernel."""
    if input.dtype != mat.dtype:
        raise RuntimeError(f"self and {name} must have the same dtype, but got {_scalar_name(input)} and "
                           f"{_scalar_name(mat)}")


def _expandable(src, dst):
    src, dst = tuple(src), tuple(dst)
    off = len(dst) - len(src)
    ok = off >= 0 and all(s == 1 or s == d for s, d in zip(src, dst[off:]))
    if not ok:
        bad = next((i for i, (s, d) in enumerate(zip(src, dst[max(off, 0):])) if s != 1 and s != d), 0)
        raise RuntimeError(
            f"The expanded size of the tensor ({dst[bad + max(off, 0)] if dst else 0}) must match the existing "
            f"size ({src[bad] if src else 0}) at non-singleton dimension {bad + max(off, 0)}.  Target sizes: "
            f"{list(dst)}.  Tensor sizes: {list(src)}")


@register("addmm", family=F, out="exact", inplace="addmm_")
def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    for t, name in ((mat1, "mat1"), (mat2, "mat2")):
        if t.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix, got {t.ndim}-D tensor")
    _same_dtype_mm(mat1, mat2)
    _check_mm_shapes(mat1, mat2)
    shape = (mat1.shape[0], mat2.shape[1])
    if tuple(input.shape) != shape:
        _expandable(input.shape, shape)
    _mm_dtypes(input, mat2, "mat2")
    if math.prod(shape) and mat1.shape[1] == 0:   # (no kernel needed: torch's in-place beta scaling)
        r = _empty_inner(input, beta, shape)
        if r is not None:
            return r
    if math.prod(shape) == 0 and mat1.dtype == ms.bool_:
        return ops.zeros(shape, ms.bool_)
    _no_bool(mat1, "addmm_impl_cpu_")
    return _add_scaled(input, _mm_acc(mat1, mat2), beta, alpha, shape, "addmm")


@register("addmv", family=F, out="exact", inplace="addmv_")
def addmv(input, mat, vec, *, beta=1, alpha=1):
    if input.ndim > 1 or mat.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.ndim}, {mat.ndim}, {vec.ndim}")
    if mat.shape[1] != vec.shape[0] or (mat.shape[0] != input.size and input.size != 1):
        wrap_size_dim(0, input.ndim)   # (torch reads input.size(0) for its message)
        raise RuntimeError(f"size mismatch, got input ({input.shape[0]}), mat ({mat.shape[0]}x{mat.shape[1]}), "
                           f"vec ({vec.shape[0]})")
    if len({input.dtype, mat.dtype, vec.dtype}) != 1:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {_scalar_name(input)}, "
                           f"{_scalar_name(mat)}, and {_scalar_name(vec)}")
    if mat.size == 0 and beta != 0:
        # torch's shortcut for an empty matrix: beta * input in input's own shape (not broadcast to the rows)
        if input.dtype != ms.bool_ and records() and any(P.requires_grad(t) for t in (input, mat, vec)):
            return _empty_addmv_node(input, mat, vec, beta)
        return _scaled(input, beta)
    if mat.size == 0 and input.dtype == ms.bool_:   # (beta = 0: the zeroed result, without the kernel)
        return ops.zeros((mat.shape[0],), ms.bool_)
    _no_bool(mat, "addmv_impl_cpu")
    return _add_scaled(input, _mm_acc(mat, vec.reshape(-1, 1)).reshape(-1), beta, alpha, (mat.shape[0],), "addmv",
                       gemv=True)


def _empty_addmv_node(input, mat, vec, beta):
    """addmv's empty-matrix shortcut on the graph of all three operands, with torch's AddmvBackward0: the
    input's gradient g * beta; mat's, outer(g, vec), and vec's, mat^T g, which raise torch's errors where
    the result (shaped as the input) is not shaped as mat's rows."""
    m, n = mat.shape
    need_mat, need_vec = P.requires_grad(mat), P.requires_grad(vec)

    def fwd(x, a, v):
        return fresh(_scaled(x, beta)), ()

    def bwd(saved, g):
        if need_mat and g.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument self, but got {g.ndim}-D")
        if need_vec and g.ndim != 1:
            raise RuntimeError(f"vector + matrix @ vector expected, got 1, 2, {g.ndim}")
        if need_vec and g.shape[0] != m:
            raise RuntimeError(f"size mismatch, got input ({n}), mat ({n}x{m}), vec ({g.shape[0]})")
        if need_mat and g.shape[0] != m:
            raise RuntimeError(f"Function AddmvBackward0 returned an invalid gradient at index 1 - got "
                               f"[{g.shape[0]}, {n}] but expected shape compatible with [{m}, {n}]")
        return _scaled(g, complex(beta).conjugate() if isinstance(beta, complex) else beta), \
            ops.zeros((m, n), mat.dtype), ops.zeros((n,), vec.dtype)
    if P.grad_enabled():
        return _node("AddmvBackward0", fwd, bwd)(input, mat, vec)
    # every operand that needs a gradient is empty (ops/_bind.py runs the op unrecorded): recorded here,
    # so that the backward raises as torch's, and kept as it is (linked to all three operands already)
    P.set_grad_enabled(True)
    try:
        out = _node("AddmvBackward0", fwd, bwd)(input, mat, vec)
    finally:
        P.set_grad_enabled(False)
    out._mstorch_unlinked = True
    return out


def _check_batches(b1, b2, kernel="bmm", computed=True):
    for t, name in ((b1, "batch1"), (b2, "batch2")):
        if t.ndim < 3:   # torch reads size(2) before it checks the rank
            raise IndexError(f"Dimension out of range (expected to be in range of [{-max(t.ndim, 1)}, "
                             f"{max(t.ndim, 1) - 1}], but got 2)")
        if t.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    _check_bmm_shapes(b1, b2)
    if b1.dtype != b2.dtype:
        _scalar_type_msg(b1, b2)
    if computed:   # (a product torch answers without its kernel needs none for bool)
        _no_bool(b1, kernel)


@register("addbmm", family=F, out="exact", inplace="addbmm_")
def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    # torch's order: size(1)/size(2) read, input expanded to the result, then rank, batches, matrix sizes
    for t in (batch1, batch2):
        if t.ndim < 3:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-max(t.ndim, 1)}, "
                             f"{max(t.ndim, 1) - 1}], but got 2)")
    n, p = batch1.shape[1], batch2.shape[2]
    if tuple(input.shape) != (n, p):
        _expandable(input.shape, (n, p))
    for t, name in ((batch1, "batch1"), (batch2, "batch2")):
        if t.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    if batch1.shape[0] != batch2.shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {batch1.shape[0]} and "
                           f"{batch2.shape[0]}")
    if batch1.shape[2] != batch2.shape[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({batch1.shape[1]}x{batch1.shape[2]} and "
                           f"{batch2.shape[1]}x{batch2.shape[2]})")
    _check_batches(batch1, batch2, "addmm_impl_cpu_", batch1.shape[0] * batch1.shape[2] * n * p != 0)
    if n * p and batch1.shape[0] * batch1.shape[2] == 0:   # an empty sum of products
        r = _empty_inner(input, beta, (n, p))
        if r is not None:
            return r
    if batch1.dtype in _HALF and batch1.shape[0] > 1:
        # torch adds the batches one addmm_ at a time, rounding to the half type after each
        out = input
        for i in range(batch1.shape[0]):
            out = _add_scaled(out, _mm_acc(batch1[i], batch2[i]), beta if i == 0 else 1, alpha, (n, p), "addbmm")
        return out
    # sum_b b1[b] @ b2[b] is one matmul over the concatenated inner dimension
    a = batch1.transpose(1, 0, 2).reshape(n, -1)
    b = batch2.reshape(-1, p)
    return _add_scaled(input, _mm_acc(a, b), beta, alpha, (n, p), "addbmm")


@register("baddbmm", family=F, out="exact", inplace="baddbmm_")
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    check_baddbmm_dtypes(input, batch1, batch2)
    shape = (batch1.shape[0], batch1.shape[1], batch2.shape[2])
    _check_batches(batch1, batch2, "baddbmm", math.prod(shape) * batch1.shape[2] != 0)
    if math.prod(shape) == 0:
        return ops.zeros(shape, input.dtype) if input.dtype == ms.bool_ else \
            _add_scaled(input, _mm_acc(batch1, batch2), beta, alpha, shape, "baddbmm")
    if batch1.shape[2] == 0:
        r = _empty_inner(input, beta, shape)
        if r is not None:
            return r
    return _add_scaled(input, _mm_acc(batch1, batch2), beta, alpha, shape, "baddbmm")


def check_baddbmm_dtypes(input, batch1, batch2):
    """torch's baddbmm reads the result's sizes, expands ``input`` to them and compares its dtype with
    batch1's before any other check of the batches."""
    for t, dims in ((batch1, (0, 1)), (batch2, (2,))):
        for d in dims:
            if d >= t.ndim:
                raise IndexError(f"Dimension out of range (expected to be in range of [{-max(t.ndim, 1)}, "
                                 f"{max(t.ndim, 1) - 1}], but got {d})")
    shape = (batch1.shape[0], batch1.shape[1], batch2.shape[2])
    if tuple(input.shape) != shape:
        _expandable(input.shape, shape)
    if input.dtype != batch1.dtype:
        from .arithmetic import _c_name
        raise RuntimeError(f"Input dtypes must be the same, got: input {_c_name(dtype_of(input))}, batch1: "
                           f"{_c_name(dtype_of(batch1))}, batch2: {_c_name(dtype_of(batch2))}")


@register("addr", family=F, out=True, inplace="addr_")
def addr(input, vec1, vec2, *, beta=1, alpha=1):
    for t, name in ((vec1, "vec1"), (vec2, "vec2")):
        if t.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {t.ndim}-D")
    if dtype_of(input)._cat < D._FLOAT:
        for v, arg in ((beta, "beta"), (alpha, "alpha")):
            if isinstance(v, float):
                raise RuntimeError(f"For integral input tensors, argument {arg} must not be a floating point number.")
    a, b, _ = promote(vec1, vec2)
    if input.dtype != a.dtype:
        _scalar_type_msg(a, input)
    # torch's kernel computes alpha * vec1[i] * vec2[j] left to right, each product rounded in the result
    # dtype: alpha * vec1 overflows first (2 * -3.4e38 * -0.03 is inf)
    if alpha != 1 and P.grad_enabled() and (P.requires_grad(a) or P.requires_grad(b)):
        prod = _AddrProduct.apply(a, b, alpha)
        P.set_function_of_output(prod, _AddrProduct)
    else:
        prod = _mul(_scaled(a, alpha).reshape(-1, 1), b.reshape(1, -1))
    return _add_scaled(input, prod, beta, 1, tuple(prod.shape), "addr")


def _conj(t):
    return ops.conj(t) if t.dtype in (ms.complex64, ms.complex128) else t


class _AddrProduct(P.FunctionBase):
    """addr's alpha * vec1[i] * vec2[j] (as addr's forward) with torch's gradients: grad.mv(vec2) * alpha for
    vec1, grad.t().mv(vec1) * alpha for vec2, alpha applied after the sum (autograd through the forward's
    alpha * vec1 would scale vec1 first: 2 * -3.4e38 overflows where torch's gradient is finite). In ops a
    recording pass records (create_graph: the node is in _higher_order._OWN_FUNCTIONS)."""

    @staticmethod
    def forward(node, a, b, alpha):
        node.save_for_backward(a, b)
        node.args = (alpha,)
        return _mul(_scaled(a, alpha).reshape(-1, 1), b.reshape(1, -1))

    @staticmethod
    def backward(node, g):
        a, b = node.saved_tensors
        (alpha,) = node.args
        alpha = alpha.conjugate() if isinstance(alpha, complex) else alpha
        ga = _scaled(_mm(g, _conj(b)), alpha) if P.requires_grad(a) else None
        gb = _scaled(_mm(g.T, _conj(a)), alpha) if P.requires_grad(b) else None
        return ga, gb, None


_AddrProduct = type("AddrBackward0", (_AddrProduct,), {})   # torch's node name, kept by grad_fn


@register("inner", family=F, out="exact")
def inner(input, other):
    if input.ndim == 0 or other.ndim == 0:
        a, b, _ = promote(input, other)
        return _mul(a, b)
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input.shape)} and {list(other.shape)}")
    if input.dtype != other.dtype:
        raise RuntimeError("both inputs should have same dtype")
    k = input.shape[-1]
    # explicit row counts: reshape(-1, 0) of an empty tensor is ambiguous
    a2, b2 = input.reshape(math.prod(input.shape[:-1]), k), other.reshape(math.prod(other.shape[:-1]), k).T
    out = _bool_contraction(a2, b2, input, other) if input.dtype == ms.bool_ else _mm(a2, b2)
    return out.reshape(tuple(input.shape[:-1]) + tuple(other.shape[:-1]))


def _bool_contraction(a2, b2, a, b):
    """torch's tensordot (inner) of bool operands, as the (m, k) @ (k, n) product ``a2 @ b2``: there is no
    bool matmul kernel ("dot" for a one-element result, "addmm_impl_cpu_" otherwise), except that a
    one-element result of a non-contiguous operand is summed from the products (true if any pair is)."""
    m, n = a2.shape[0], b2.shape[1]
    if m * n == 0:
        return ops.zeros((m, n), ms.bool_)
    if m * n == 1 and not (a.is_contiguous() and b.is_contiguous()):
        return ops.any(ops.logical_and(a2.reshape(-1), b2.reshape(-1))).reshape(1, 1)
    if a2.shape[1] == 0 and m * n > 1:   # (torch answers an empty inner dimension without its kernel)
        return ops.zeros((m, n), ms.bool_)
    raise NotImplementedError(f"\"{'dot' if m * n == 1 else 'addmm_impl_cpu_'}\" not implemented for 'Bool'")


def _strides(t, n):
    st = tuple(t.stride()) if t.ndim else ()
    return (0,) * (n - len(st)) + st


def _kron_product_views(sa, sb, st_a, st_b):
    """Whether torch's kron can view its product as the result: torch multiplies a (a0, 1, a1, 1, ...) view
    of ``input`` by a (1, b0, 1, b1, ...) view of ``other``; the product's memory follows the operands'
    stride order (TensorIterator's dimension sort), and merging each pair of dims back is a view that fails
    when that order interleaves them (a permuted operand)."""
    shape, strides = [], ([], [])
    for i in range(len(sa)):
        shape += [sa[i], sb[i]]
        strides[0].extend((st_a[i] if sa[i] > 1 else 0, 0))   # (a broadcast dim: stride 0)
        strides[1].extend((0, st_b[i] if sb[i] > 1 else 0))
    if 0 in shape:
        return True
    nd = len(shape)
    perm = iteration_order(shape, *strides)   # perm[0]: the fastest-moving dim
    out, step = [0] * nd, 1
    for d in perm:
        out[d], step = step, step * shape[d]
    return all(shape[2 * i] == 1 or shape[2 * i + 1] == 1 or out[2 * i] == out[2 * i + 1] * shape[2 * i + 1]
               for i in range(len(sa)))


_KRON_OUT = threading.local()


def _kron_out(args, out):
    """kron(out=): torch's kron_out resizes ``out`` and multiplies into an _unsafe_view of it, so the view of
    the product that the functional form takes (and can refuse) is never made; the flag tells the call that
    follows at once (the generated wrapper's out= precheck runs just before the op)."""
    _KRON_OUT.active = True


@register("kron", family=F, out=True, out_check=_kron_out)
def kron(input, other):
    n = max(input.ndim, other.ndim)
    sa = (1,) * (n - input.ndim) + tuple(input.shape)
    sb = (1,) * (n - other.ndim) + tuple(other.shape)
    to_out, _KRON_OUT.active = getattr(_KRON_OUT, "active", False), False
    if not to_out and not _kron_product_views(sa, sb, _strides(input, n), _strides(other, n)):
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one dimension "
                           "spans across two contiguous subspaces). Use .reshape(...) instead.")
    a, b, _ = promote(input, other)
    # interleave: a as (a0, 1, a1, 1, ...) times b as (1, b0, 1, b1, ...)
    ea = a.reshape(tuple(x for s in sa for x in (s, 1)))
    eb = b.reshape(tuple(x for s in sb for x in (1, s)))
    return _mul(ea, eb).reshape(tuple(x * y for x, y in zip(sa, sb)))


@register("tensordot", family=F, namespace="torch", out="exact")
def tensordot(a, b, dims=2):
    if isinstance(dims, ms.Tensor):
        dims = read_host(dims).tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > a.ndim or dims > b.ndim:
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        da, db = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    else:
        da, db = dims
        da, db = ([da] if isinstance(da, int) else list(da)), ([db] if isinstance(db, int) else list(db))
        if len(da) != len(db):
            raise RuntimeError("both dimension lists should have same length")
    if a.dtype != b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    da = [wrap_dim(d, a.ndim) for d in da]
    db = [wrap_dim(d, b.ndim) for d in db]
    for x, y in zip(da, db):
        # a size-1 dimension broadcasts against the other's: torch sums the other side's over it first
        if b.shape[y] == 1 and a.shape[x] != 1:
            a = cast(ops.sum(a, x, keepdim=True), a.dtype)
        elif a.shape[x] == 1 and b.shape[y] != 1:
            b = cast(ops.sum(b, y, keepdim=True), b.dtype)
        elif a.shape[x] != b.shape[y]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {a.shape[x]} in dim "
                               f"{x if not isinstance(dims, int) else x - a.ndim} and second has size "
                               f"{b.shape[y]} in dim {y}")
    fa = [d for d in range(a.ndim) if d not in da]
    fb = [d for d in range(b.ndim) if d not in db]
    k = math.prod(a.shape[d] for d in da)
    pa = a.transpose(*(fa + da)) if fa + da != list(range(a.ndim)) else a
    pb = b.transpose(*(db + fb)) if db + fb != list(range(b.ndim)) else b
    a2, b2 = pa.reshape(math.prod(a.shape[d] for d in fa), k), pb.reshape(k, math.prod(b.shape[d] for d in fb))
    out = _bool_contraction(a2, b2, a, b) if a.dtype == ms.bool_ else _mm(a2, b2)
    return out.reshape(tuple(a.shape[d] for d in fa) + tuple(b.shape[d] for d in fb))


@register("chain_matmul", family=F, namespace="torch", out="exact")
def chain_matmul(*matrices):
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for m in matrices:
        if m.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {m.ndim}, expected 2 instead.")
    if len(matrices) == 1:
        return fresh(matrices[0])
    return chain_product(matrices, mm)


def chain_product(ms_, mul):
    """The product of the matrices ``ms_`` in torch's multi_dot order (the order changes which inf/NaN
    meets which zero, and the rounding): two or three by the cheaper of the two groupings (ties left
    first), more by the classic matrix-chain dynamic programme over p[i] * p[k+1] * p[j+1] costs, whose
    first cheapest split wins."""
    n = len(ms_)
    if n == 2:
        return mul(ms_[0], ms_[1])
    if n == 3:
        a, b = ms_[0].shape
        c, d = ms_[2].shape
        if a * c * (b + d) > b * d * (a + c):
            return mul(ms_[0], mul(ms_[1], ms_[2]))
        return mul(mul(ms_[0], ms_[1]), ms_[2])
    p = [m.shape[0] for m in ms_] + [ms_[-1].shape[1]]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for span in range(1, n):
        for i in range(n - span):
            j = i + span
            best = None
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if best is None or q < best:
                    best, split[i][j] = q, k
            cost[i][j] = best

    def product(i, j):
        if i == j:
            return ms_[i]
        k = split[i][j]
        return mul(product(i, k), product(k + 1, j))
    return product(0, n - 1)


@register("trace", family=F)
def trace(input):
    _no_bool(input, "trace")   # (torch's kernel dispatch on the dtype comes before its rank check)
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    d = ops.diagonal(input)
    if input.dtype == _bf16:
        return cast(ops.sum(cast(d, _f32)), _bf16)
    if dtype_of(input)._cat == D._INT:
        d = cast(d, ms.int64)   # torch sums integers in int64
        if d.size:
            # wrapping around on overflow as torch's: MindSpore's int64 ReduceSum saturates (through
            # double), its CumSum adds in int64
            return ops.cumsum(d, 0)[-1]
    return ops.sum(d)


@register("cross", family=F, out="exact")
def cross(input, other, dim=None):
    shape = _broadcast_batch(input.shape, other.shape)
    if dim is None:
        dim = next((i for i, s in enumerate(shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    given, dim = dim, wrap_dim(dim, len(shape))
    if input.shape[dim - len(shape) + input.ndim] != 3 or other.shape[dim - len(shape) + other.ndim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {given} must have length 3. Got "
                           f"{input.shape[dim - len(shape) + input.ndim]} and "
                           f"{other.shape[dim - len(shape) + other.ndim]}")
    # (torch: the shapes, then the kernel's dispatch on the input's dtype, then the other's dtype)
    _no_bool(input, "cross")
    if input.dtype != other.dtype:
        _scalar_type_msg(input, other)
    if 0 in shape:   # (MindSpore's slicing backward fails on an empty selection)
        return ops.zeros(tuple(shape), input.dtype)
    a, b = ops.broadcast_to(input, shape), ops.broadcast_to(other, shape)
    if a.dtype in (_f32, _bf16) and (needs_grad(a) or needs_grad(b)):
        node = _CROSS_NODES.get(dim)
        if node is None:
            node = _CROSS_NODES[dim] = _node("LinalgCrossBackward0", lambda p, q: (_cross_value(p, q, dim), (p, q)),
                                             lambda saved, g: (_cross_value(saved[1], g, dim),
                                                               _cross_value(g, saved[0], dim)))
        return node(a, b)
    return _cross_value(a, b, dim)


def _cross_value(a, b, dim):
    x = [ops.narrow(a, dim, i, 1) for i in range(3)]
    y = [ops.narrow(b, dim, i, 1) for i in range(3)]
    if a.dtype == _f32:
        # torch's compiled float32 kernel contracts p * q - r * s to fma(p, q, -(r * s)): the first product
        # is not rounded (3.4e38 * 1.2 - inf is -inf, not inf - inf). Emulated in float64, where a product
        # of two float32 values is exact (and a subnormal factor is not flushed to 0, as MindSpore's float32
        # kernels do: inf * 1e-45 is inf); the second product is rounded to float32 on its own
        def term(p, q, r, s):
            f64 = ms.float64
            rs = cast(cast(ops.mul(cast(r, f64), cast(s, f64)), _f32), f64)
            return cast(ops.sub(ops.mul(cast(p, f64), cast(q, f64)), rs), _f32)
    elif a.dtype == _bf16:
        # torch's bfloat16 arithmetic rounds each product and the difference to bfloat16 (no fma); float32
        # holds a product of two bfloat16 values exactly, and its rounded difference rounds on to bfloat16
        # as the exact one would (24 >= 2 * 8 + 2 bits)
        def term(p, q, r, s):
            def rounded(t):
                return cast(cast(t, _bf16), _f32)
            pq = rounded(ops.mul(cast(p, _f32), cast(q, _f32)))
            return cast(ops.sub(pq, rounded(ops.mul(cast(r, _f32), cast(s, _f32)))), _bf16)
    else:
        def term(p, q, r, s):
            return ops.sub(ops.mul(p, q), ops.mul(r, s))
    return ops.cat([term(x[1], y[2], x[2], y[1]), term(x[2], y[0], x[0], y[2]), term(x[0], y[1], x[1], y[0])], dim)


# float32 and bfloat16 cross products with a gradient, per dim: torch's backward is cross(other, g) and cross(g, input),
# through the same fused kernel (a composition's gradient would sum exact products: finite where torch's
# rounded one overflows). Its backward is in ops a recording pass records (create_graph: the node belongs in
# autograd/_higher_order._OWN_FUNCTIONS, /tmp/proposed_math.diff)
_CROSS_NODES = {}


@register("cdist", family=F, namespace="torch")
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    if compute_mode not in _CDIST_MODES:   # (torch.functional checks it before the tensors)
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    for t, name in ((x1, "X1"), (x2, "X2")):
        if dtype_of(t)._cat != D._FLOAT:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {_scalar_name(t)}")
        if t.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {t.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: "
                           f"{x2.shape[-1]}")
    if x1.dtype != x2.dtype:
        _scalar_type_msg(x1, x2)
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    mode = _CDIST_MODES[compute_mode]
    # torch's rule: p = 2 on non-empty inputs with more than 25 rows (or mode use_mm) goes through a matrix
    # product (|x|^2 - 2 x.y + |y|^2), whose cancellation its results keep; it has half kernels
    by_mm = p == 2 and x1.size and x2.size and (mode == 1 or (mode == 0 and max(x1.shape[-2], x2.shape[-2]) > 25))
    batch = _broadcast_batch(x1.shape[:-2], x2.shape[:-2])   # (torch expands the batches before its kernel)
    if x1.dtype in (ms.float16, _bf16) and x1.size and x2.size and not by_mm:   # (an empty input never
        raise NotImplementedError(f"\"cdist\" not implemented for '{_scalar_name(x1)}'")   # reaches it)
    a = ops.broadcast_to(x1, batch + tuple(x1.shape[-2:])) if batch else x1
    b = ops.broadcast_to(x2, batch + tuple(x2.shape[-2:])) if batch else x2
    if by_mm:
        return _euclid_mm_node(a, b) if needs_grad(a) or needs_grad(b) else _euclid_mm_fwd(a, b)[0]
    diff = ops.sub(ops.expand_dims(a, -2), ops.expand_dims(b, -3))   # (..., P, R, M)
    if needs_grad(a) or needs_grad(b):
        return _FIRST_ORDER_ONLY["cdist"](_p_norm_last(diff, p), a, b)
    return _p_norm_last(diff, p)


# (not "differentiable" for the binding: a half input's empty result keeps its raising node, which the
# binding's linking of empty results would replace; every other call is recorded here as the binding would)
@register("pdist", family=F, namespace=("torch", "nn.functional"), differentiable=False)
def pdist(input, p=2):
    """The distances between every pair of rows i < j, in torch's order (row-major upper triangle)."""
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if dtype_of(input)._cat != D._FLOAT:
        raise RuntimeError("pdist only supports floating-point dtypes")
    n = input.shape[0]
    i, j = np.triu_indices(n, 1)
    if input.dtype in (ms.float16, _bf16) and i.size and input.shape[1]:   # (torch's kernel: not reached
        raise NotImplementedError(f"\"pdist\" not implemented for '{_scalar_name(input)}'")   # when empty)
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    if (i.size == 0 or input.shape[1] == 0) and input.dtype in (ms.float16, _bf16) and needs_grad(input):
        # torch's backward has no half kernel
        return _PDIST_HALF_NODES[input.dtype](ops.zeros((i.size,), input.dtype), input)
    if needs_grad(input):
        from ._bind import _call_recorded
        return _FIRST_ORDER_ONLY["pdist"](_call_recorded(_pdist, [input, p, i, j], {}), input)
    return _pdist(input, p, i, j)


def _first_order_only(node_name, kernel):
    """torch's cdist (but for its matrix-product path) and pdist have backward kernels (_cdist_backward,
    _pdist_backward) without a derivative: a gradient of their gradient raises NotImplementedError. Our
    results are differentiable compositions; this pass-through node under torch's name hands a recording
    pass (create_graph) the incoming gradient through a node whose backward raises as torch's."""
    def refuse(saved, *grads):
        raise NotImplementedError(f"the derivative for '{kernel}' is not implemented.")
    barrier = _node(node_name[:-1] + "Backward0", lambda g, *inputs: (ops.add(g, ops.neg(ops.zeros_like(g))), ()),
                    refuse)

    def bwd(saved, g):
        if P.grad_enabled():   # (a recording pass: inputs of ours that require grad keep the barrier linked)
            g = barrier(g, *saved)
        return (g,) + (None,) * len(saved)
    return _node(node_name, lambda out, *inputs: (ops.add(out, ops.neg(ops.zeros_like(out))), inputs), bwd)


_FIRST_ORDER_ONLY = {"cdist": _first_order_only("CdistBackward0", "_cdist_backward"),
                     "pdist": _first_order_only("PdistBackward0", "_pdist_backward")}


def _pdist(input, p, i, j):
    if i.size == 0 or input.shape[1] == 0:   # no pairs, or no coordinates: zeros that still lead back
        return ops.mul(ops.zeros((i.size,), input.dtype), ops.sum(input))   # to input (zero gradient)
    rows_i = ops.gather(input, ms.Tensor(i.astype(np.int64)), 0)
    rows_j = ops.gather(input, ms.Tensor(j.astype(np.int64)), 0)
    return _p_norm_last(ops.sub(rows_i, rows_j), p)


def _pdist_half_node(name):
    def bwd(saved, g):
        raise NotImplementedError(f"\"pdist_backward\" not implemented for '{name}'")
    return _node("PdistBackward0", lambda r, x: (ops.zeros(r.shape, r.dtype), ()), bwd)


_PDIST_HALF_NODES = {ms.float16: _pdist_half_node("Half"), _bf16: _pdist_half_node("BFloat16")}


def _euclid_fwd(diff):
    r = ops.sqrt(ops.sum(ops.square(diff), -1))
    return r, (diff, r)


def _euclid_bwd(saved, g):
    # torch's gradient (g * diff) / r, in that order, taken after the root: a huge coordinate whose
    # square overflowed gets a finite g * diff / inf = 0 (the chain through the square would give
    # 0 * inf = NaN); zero where r == 0
    diff, r = saved
    r1 = ops.expand_dims(r, -1)
    gd = ops.mul(ops.expand_dims(g, -1), diff)
    return ops.where(ops.eq(r1, 0), ops.zeros_like(gd), ops.div(gd, r1))


_euclid_node = _node("CdistBackward0", _euclid_fwd, _euclid_bwd)


def _euclid(diff):
    return _euclid_node(diff) if needs_grad(diff) else _euclid_fwd(diff)[0]


_CDIST_MODES = {"use_mm_for_euclid_dist_if_necessary": 0, "use_mm_for_euclid_dist": 1,
                "donot_use_mm_for_euclid_dist": 2}


def _rounder(dtype):
    """(work dtype, rounding to ``dtype``): half dtypes run in float32 and round after every step, as
    torch's half kernels compute in float and store half (MindSpore lacks most bfloat16 CPU kernels)."""
    if dtype in (ms.float16, _bf16):
        return _f32, lambda t: cast(cast(t, dtype), _f32)
    return dtype, lambda t: t


def _mm_rows(a, b, w):
    """a @ b^T (b given by rows) in work dtype ``w``. float32 as torch's gemm: each product rounded to float,
    the sum then rounded once (double holds every float32 product exactly; MindSpore's blocked float32
    MatMul flushes subnormals in some tiles, so inf * 1e-40 gave NaN there)."""
    if w == ms.float64:
        return ops.matmul(a, ops.swapaxes(b, -1, -2))
    prod = ops.mul(ops.expand_dims(cast(a, ms.float64), -2), ops.expand_dims(cast(b, ms.float64), -3))
    return cast(ops.sum(cast(cast(prod, w), ms.float64), -1), w)


def _euclid_mm_fwd(x1, x2):
    """torch's matrix-product euclidean distance, step by step in its rounding: the augmented rows
    [-2 x1, |x1|^2, 1] times [x2, 1, |x2|^2], clamped at 0, square-rooted."""
    d = x1.dtype
    w, rnd = _rounder(d)
    u, v = cast(x1, w), cast(x2, w)
    n1 = rnd(ops.sum(rnd(ops.square(u)), -1, True))
    n2 = rnd(ops.sum(rnd(ops.square(v)), -1, True))
    a = ops.cat([ops.mul(u, -2.0), n1, ops.ones_like(n1)], -1)
    b = ops.cat([v, ops.ones_like(n2), n2], -1)
    m = rnd(_mm_rows(a, b, w))
    r = cast(ops.sqrt(ops.maximum(m, ops.zeros_like(m))), d)
    return r, (x1, x2, r)


def _euclid_mm_bwd(saved, g):
    # torch's _euclidean_dist_backward: ratio = g / r (0 where r == 0), then
    # x1 * sum_j ratio - ratio @ x2 and x2 * sum_i ratio - ratio^T @ x1
    x1, x2, r = saved
    d = x1.dtype
    w, rnd = _rounder(d)
    r, u, v = cast(r, w), cast(x1, w), cast(x2, w)
    ratio = rnd(ops.div(cast(g, w), r))
    ratio = ops.where(ops.eq(r, 0), ops.zeros_like(ratio), ratio)
    g1 = ops.sub(rnd(ops.mul(u, rnd(ops.sum(ratio, -1, True)))), rnd(_mm_rows(ratio, ops.swapaxes(v, -1, -2), w)))
    g2 = ops.sub(rnd(ops.mul(v, rnd(ops.expand_dims(ops.sum(ratio, -2), -1)))),
                 rnd(_mm_rows(ops.swapaxes(ratio, -1, -2), ops.swapaxes(u, -1, -2), w)))
    return cast(g1, d), cast(g2, d)


_euclid_mm_node = _node("EuclideanDistBackward0", _euclid_mm_fwd, _euclid_mm_bwd)


def _p_norm_last(diff, p):
    """The p-norm over the last dimension (p = 0 counts non-zeros), with torch's zero gradient where
    two points coincide."""
    if diff.shape[-1] == 0:   # no coordinates: every distance is 0 (amax over nothing reads garbage)
        return ops.mul(ops.zeros(tuple(diff.shape[:-1]), diff.dtype), ops.sum(diff))
    absd = ops.abs(diff)
    if p == 0:   # a count: torch's gradient is zero (not absent)
        return ops.add(ops.sum(cast(ops.ne(diff, 0), diff.dtype), -1), ops.mul(ops.sum(diff, -1), 0))
    if p == 1:
        return ops.sum(absd, -1)
    if math.isinf(p):
        # torch's gradient goes in full to every coordinate at the maximum (amax would share it):
        # the value is the maximum itself, the gradient that of the sum over the maximal coordinates
        fixed = ops.stop_gradient(absd)
        top = ops.amax(fixed, -1, True)
        picked = ops.sum(ops.mul(absd, cast(ops.equal(fixed, top), absd.dtype)), -1)
        slope = ops.sub(picked, ops.stop_gradient(picked))
        return ops.add(ops.squeeze(top, -1), ops.where(ops.isfinite(picked), slope, ops.zeros_like(slope)))
    if p == 2:
        return _euclid(diff)
    else:        # |d|**p has an infinite slope at 0 for p < 1: torch's gradient there is 0
        nz = ops.logical_not(ops.equal(absd, 0))   # (NaN is not zero: it stays in the sum)
        powd = ops.pow(ops.where(nz, absd, ops.ones_like(absd)), p)
        s = ops.sum(ops.where(nz, powd, ops.zeros_like(absd)), -1)
    # torch's backward gives 0 (not NaN) where two points coincide: keep the root off zero (NaN stays NaN)
    pos = ops.logical_not(ops.le(s, 0))
    safe = ops.where(pos, s, ops.ones_like(s))
    root = ops.sqrt(safe) if p == 2 else ops.pow(safe, 1.0 / p)
    return ops.where(pos, root, ops.zeros_like(s))
