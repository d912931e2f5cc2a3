"""Linear algebra that is not a factorisation: the torch.linalg namespace: norms, inv, solve, matrix_power,
multi_dot, vecdot, cross, diagonal, matmul, cond, matrix functions and Cholesky solves. torch.linalg entries
are keyed ``linalg.<name>``; ``mstorch/linalg.py`` turns them into the module's functions. Where
torch.linalg.X is torch.X under another name (det, inv, matmul), the entry binds the same implementation as
the top-level op. Determinants and inverses live in linalg_det.py, decompositions in linalg_decomp.py (LU
and LDL in linalg_lu.py), products in products.py.
"""
import math

import mindspore as ms
import numpy as np
from .._runtime import read_host
from . import _msops as ops

from .. import _dtype as D
from ._helpers import dtype_of, wrap_dim, wrap_dims, _scalar_name, cast
from ._views import fresh
from ._registry import register
from .reduction import (return_type, needs_grad, vector_norm as _vector_norm_math, amax, amin, _out_shape,
                        _reduce_sum)
from .scans import cumprod as _cumprod, _cumprod_scan
from .. import _ms_private as P
from .._warnings import warn_once
from .._tensor import Tensor as _Tensor
from .products import _broadcast_batch, _mm, _CPP, matmul, chain_product, cross as _cross
from .arithmetic import _sum_to
from .linalg_decomp import (_real, pinv, mH, LinAlgError, host_array, host_result, check_matrix, eye_like, mT,
                            svdvals_ms, _node, trsolve, _subnormal)
from .shape import diagonal as _diagonal
from .linalg_lu import host_lu_solve, _getrf


F = "linalg"
NS = "torch.linalg"

from .linalg_det import _check_square, _cmul, _conj, _parts, _zero_pivot, det, is_singular


_COMPLEX = (ms.complex64, ms.complex128)

inv_ex_rt = return_type("linalg_inv_ex", ("inverse", "info"))
solve_ex_rt = return_type("linalg_solve_ex", ("result", "info"))


def _same(name, opdef, **kw):
    """torch.linalg.<name> is the top-level op under another name: bind the same implementation."""
    return register(f"linalg.{name}", family=NS, namespace="linalg", **kw)(opdef.impl)




# --- norms --------------------------------------------------------------------------------------

def _fmt(x):
    """A Scalar as torch prints it in messages (2, -1, inf, 0.5)."""
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    return f"{x:g}" if isinstance(x, float) else str(x)


def _norm_dtype(x, dtype, name):
    """Apply torch's dtype= rules of the norms: the input is converted to dtype before the reduction."""
    if dtype is None:
        return x
    dt = dtype
    if dt._cat < D._FLOAT:
        raise RuntimeError(f"{name}: dtype should be floating point or complex, but got {_scalar_name(ops.zeros((), dt._ms))}")
    src = dtype_of(x)
    if src._cat == D._COMPLEX and dt._cat != D._COMPLEX:
        raise RuntimeError(f"{name}: dtype should be complex for complex inputs, but got "
                           f"{_scalar_name(ops.zeros((), dt._ms))}")
    if D.promote_types(src, dt) is not dt:
        raise RuntimeError(f"{name}: the dtype of the input ({_scalar_name(x)}) should be convertible without "
                           f"narrowing to the specified dtype ({_scalar_name(ops.zeros((), dt._ms))})")
    return cast(x, dt._ms) if x.dtype != dt._ms else x


def _check_float(x, name):
    if dtype_of(x)._cat < D._FLOAT:
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got {_scalar_name(x)}")


def _real_of(d):
    return {D.complex64: D.float32, D.complex128: D.float64}.get(d, d)


def _norm_out_check(name, always=True):
    """torch's out= check of a norm: only the real dtype of the input (or of dtype=, which the check does
    not see: ``always`` False checks only a complex out=, wrong whatever dtype= says)."""
    def check(args, out):
        x = args[0] if args else None
        if not isinstance(x, _Tensor) or x.dtype._cat < D._FLOAT:
            return
        want = _real_of(x.dtype)
        if out.dtype is want or not (always or out.dtype._cat == D._COMPLEX):
            return
        if name is None:
            raise RuntimeError(f"Expected out tensor to have dtype {_CPP[want._ms]}, but got {_CPP[out.dtype._ms]} "
                               "instead")
        raise RuntimeError(f"{name} expected out tensor dtype {D.SCALAR_TYPE_NAMES[want]} but got: "
                           f"{D.SCALAR_TYPE_NAMES[out.dtype]}")
    return check


@register("linalg.vector_norm", family=NS, namespace="linalg", out=True, out_check=_norm_out_check(None, False))
def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    if isinstance(ord, str) or not isinstance(ord, (int, float)):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' (position 2) must be Number, not {type(ord).__name__}")
    _check_float(x, "linalg.vector_norm")
    x = _norm_dtype(x, dtype, "linalg.vector_norm")
    axes = () if dim is None else wrap_dims(dim, x.ndim)
    if x.size == 0 and (ord < 0 or ord == math.inf):
        if not axes:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {_fmt(ord)} norm on an empty tensor because "
                               "the operation does not have an identity")
        for d in (dim if isinstance(dim, (tuple, list)) else (dim,)):
            if x.shape[wrap_dim(d, x.ndim)] == 0:
                raise RuntimeError(f"linalg.vector_norm cannot compute the {_fmt(ord)} norm on the dimension {d}"
                                   "because this dimension is empty and the operation does not have an identity")
    if x.ndim == 0:   # the element as a 1-element vector (its norm is 0-d with or without keepdim)
        x, axes, keepdim = x.reshape(1), (), False
    low = x.dtype in (ms.float16, ms.bfloat16)
    xc = cast(x, ms.float32) if low else x
    if ord == 1 and x.size and needs_grad(x) and dtype_of(x)._cat == D._FLOAT:
        # |x| as x sgn(x), sgn detached: torch's gradient g sgn(x) is NaN at a zero element when g is NaN
        # (a NaN norm beside it), where MindSpore's Abs backward gives 0
        r = _reduce_sum(ops.mul(xc, ops.stop_gradient(ops.sign(xc))), axes, keepdim, xc.dtype)
    elif -math.inf < ord < 1 and ord != 0 and x.size and needs_grad(x) and dtype_of(x)._cat == D._FLOAT:
        r = _small_p_node(ord, axes, keepdim, x.dtype)(xc)
    else:
        r = _vector_norm_math(xc, ord, axes, keepdim)
    return cast(r, x.dtype) if low else r


def _small_p_node(p, axes, keepdim, dtype):
    """The p-norm (p < 1) with torch's backward: sgn(x) |x|^(p-1) (0 at x = 0) times g norm^(1-p), where
    a NaN or infinite norm makes the zero elements' gradient NaN too (0 * inf); the norm as rounded to the
    input's ``dtype``."""
    def fwd(x):
        r = _vector_norm_math(P.detach(x), p, axes, keepdim)
        return r, (x, r)

    def bwd(saved, g):
        x, r = saved
        if dtype != x.dtype:
            r = cast(cast(r, dtype), x.dtype)
        if not keepdim and axes:
            for d in sorted(axes):
                r, g = ops.expand_dims(r, d), ops.expand_dims(g, d)
        zero = ops.equal(x, 0)
        one = ops.ones_like(x)
        scaled = ops.mul(ops.sign(x), ops.where(zero, ops.zeros_like(x), ops.pow(ops.where(zero, one, ops.abs(x)), p - 1)))
        return ops.mul(scaled, ops.mul(g, ops.pow(r, 1 - p)))
    return _node("LinalgVectorNormBackward0", fwd, bwd)


def _matrix_dims(A, dim):
    if len(dim) != 2:
        raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got " + " ".join(map(str, dim)))
    d0, d1 = wrap_dim(dim[0], A.ndim), wrap_dim(dim[1], A.ndim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    return d0, d1


def _keep(r, d0, d1, keepdim):
    if keepdim:
        for d in sorted((d0, d1)):
            r = ops.expand_dims(r, d)
    return r


def _svd_norm(A, d0, d1, keepdim, fn, ord=None):
    if min(A.shape[d0], A.shape[d1]) == 0 and ord in (2, -2):
        if ord == -2:   # no singular value to take the smallest of: torch's amin error
            raise IndexError("amin(): Expected reduction dim -1 to have non-zero size.")
        # the largest of none: torch's 0, off the graph (no gradient)
        return _unlinked(ops.zeros(_out_shape(A.shape, (d0, d1), keepdim), _real(A.dtype)))
    x = ops.moveaxis(A, (d0, d1), (-2, -1))
    return _keep(fn(svdvals_ms(x), -1), d0, d1, keepdim)


@register("linalg.matrix_norm", family=NS, namespace="linalg", out=True,
          out_check=_norm_out_check("linalg.matrix_norm", False))
def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    name = "linalg.matrix_norm"
    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise RuntimeError(f"{name}: Order {ord} not supported.")
    elif abs(ord) not in (1, 2, math.inf):
        raise RuntimeError(f"{name}: Order {_fmt(ord)} not supported.")
    if A.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    _check_float(A, name)
    if ord in ("nuc", 2, -2) and A.dtype in (ms.float16, ms.bfloat16):
        raise RuntimeError(f"{name}: Low precision dtypes not supported. Got {_scalar_name(A)}")
    dim = (dim,) if isinstance(dim, int) else tuple(dim)
    d0, d1 = _matrix_dims(A, dim)
    A = _norm_dtype(A, dtype, name)
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim)
    if ord == "nuc":
        return _svd_norm(A, d0, d1, keepdim, lambda s, d: ops.sum(s, d))
    if ord in (2, -2):
        return _svd_norm(A, d0, d1, keepdim, lambda s, d: (amax if ord > 0 else amin)(s, d, False), ord)
    # 1 / inf: the largest column / row sum of |A|
    inner, outer = (d0, d1) if abs(ord) == 1 else (d1, d0)
    if A.size == 0 and ord > 0:
        zeros = ops.zeros(_out_shape(A.shape, (d0, d1), keepdim), _real(A.dtype))
        # torch answers 0 for the largest of no sums off the graph (no gradient); the largest of (zero)
        # sums over an empty inner dim is on it
        return _unlinked(zeros) if A.shape[outer] == 0 else zeros
    sums = vector_norm(A, 1, inner, keepdim)
    # (without keepdim, the second reduction's dim shifts down: torch's amin error names it so)
    return _extreme_sum(amax if ord > 0 else amin, sums, outer - 1 if not keepdim and inner < outer else outer,
                        keepdim)


def _unlinked(t):
    """``t`` marked for the binding layer: a result of empty inputs that torch returns without a gradient
    (not linked to those inputs' graph)."""
    t._mstorch_unlinked = True
    return t


def _extreme_sum(fn, sums, dim, keepdim):
    """amax/amin of the row or column sums; where a sum is NaN, torch's backward divides the gradient by
    the count of elements equal to the (NaN) result, none, and sends NaN to the whole slice (amax's
    backward here sends nothing): a NaN of the sums times x, whose gradient is NaN everywhere."""
    r = fn(sums, dim, keepdim)
    if needs_grad(sums) and bool(ops.any(ops.isnan(sums))):
        r = ops.where(ops.any(ops.isnan(sums), dim, keepdim), ops.sum(ops.mul(sums, math.nan), dim, keepdim), r)
    return r


@register("linalg.norm", family=NS, namespace="linalg", out=True, out_check=_norm_out_check("linalg.norm", False))
def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    if dim is not None:
        dims = [dim] if isinstance(dim, int) else list(dim)
        if len(dims) not in (1, 2):
            raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {dims}")
    elif ord is not None and A.ndim not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
                           f"{A.ndim}D.")
    if isinstance(ord, str):
        return matrix_norm(A, ord, (0, 1) if dim is None else dim, keepdim, dtype=dtype)
    if ord is not None and ((dim is not None and len(dims) == 2) or (dim is None and A.ndim == 2)):
        return matrix_norm(A, ord, (0, 1) if dim is None else dims, keepdim, dtype=dtype)
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


@register("linalg.cond", family=NS, namespace="linalg", out=True)
def cond(A, p=None):
    if A.ndim < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    name = f"linalg.cond(ord={_fmt(p)})"
    if isinstance(p, str) and A.shape[-1] != A.shape[-2]:   # (checked for 'fro' / 'nuc' even when empty)
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")
    if A.size == 0:   # torch answers 0 for every (empty) matrix, before any other check, off the graph
        return _unlinked(ops.zeros(tuple(A.shape[:-2]), _real(A.dtype)))
    if p in (None, 2, -2):
        check_matrix(A, "linalg.cond", kernel="linalg_svd_cpu")
        s = svdvals_ms(A)
        big, small = amax(s, -1, False), amin(s, -1, False)
        return ops.div(small, big) if p == -2 else ops.div(big, small)
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")
    if p == "nuc":   # torch's nuclear condition number from the singular values: sum(S) sum(1 / S)
        check_matrix(A, "linalg.svd", kernel="linalg_svd_cpu")
        s = svdvals_ms(A)
        return ops.mul(ops.sum(s, -1), ops.sum(ops.reciprocal(s), -1))
    _check_square(A, "linalg.inv")
    # torch's inv_ex: a singular matrix's inverse is inf (no error), and a NaN product (0 * inf, or from
    # inf/NaN entries) is inf
    inv, info = inv_ex(A)
    if bool(ops.any(ops.gt(info, 0))):
        inv = ops.where(ops.expand_dims(ops.expand_dims(ops.gt(info, 0), -1), -1), ops.full_like(inv, math.inf), inv)
    r = ops.mul(matrix_norm(A, p), matrix_norm(inv, p))
    return ops.where(ops.isnan(r), ops.full_like(r, math.inf), r)


# --- inverses and solves ------------------------------------------------------------------------

def matrix_inverse(x):
    """MindSpore's MatrixInverse; a complex matrix (no CPU kernel) through its real form: A + iB acts on
    (re, im) pairs as [[A, -B], [B, A]], whose inverse is [[C, -D], [D, C]] for (A + iB)^-1 = C + iD."""
    if dtype_of(x)._cat != D._COMPLEX:
        return ops.inverse(x)
    re, im = ops.real(x), ops.imag(x)
    real_form = ops.cat((ops.cat((re, ops.neg(im)), -1), ops.cat((im, re), -1)), -2)
    inv = ops.inverse(real_form)
    n = x.shape[-1]
    return ops.complex_of_parts(inv[..., :n, :n], inv[..., n:, :n])


@register("inverse", family=F, out="exact")
def inverse(input):
    _check_square(input, "linalg.inv")
    n = input.shape[-1]
    if input.size == 0:   # (0 x 0 matrices, or an empty batch)
        return fresh(input)
    if n == 1:
        inv = ops.reciprocal(input)
    elif needs_grad(input) and _odd_for_grad(input):
        # MindSpore's MatrixInverse lets no NaN through (and its gradient uses that value): torch's
        # A X = I by LAPACK's elimination on the host, with the solve's gradient
        inv = _inv_nodes[False](input)
    else:
        inv = inverse_value(input)
    # MindSpore returns garbage for singular matrices; torch raises (a zero pivot in its LU)
    singular = is_singular(input)
    if bool(ops.any(singular)):
        raise singular_error("linalg.inv", input, singular)
    return inv


def _odd_for_grad(t):
    """Whether MindSpore's kernels get ``t`` wrong (an inf, NaN or subnormal entry, or one past the square
    root of the dtype's largest value): read only for inputs that need a gradient."""
    if _odd_host(t) is not None:
        return True
    a = read_host(t)
    return bool((np.abs(a) > math.sqrt(np.finfo(a.real.dtype).max)).any())


def singular_error(name, A, singular):
    """torch's LinAlgError for the first singular matrix of ``A``: the (1-based) index of the zero pivot
    that LAPACK's LU with partial pivoting meets, found by the same elimination on the host."""
    from .linalg_decomp import LinAlgError
    i = int(read_host(singular.reshape(-1)).nonzero()[0][0])
    where = f"(Batch element {i}): " if A.ndim > 2 else ""
    return LinAlgError(f"{name}: {where}The diagonal element {_zero_pivot(read_host(A).reshape((-1,) + A.shape[-2:])[i:i + 1])[0]}"
                       " is zero, the inversion could not be completed because the input matrix is singular.")


def inverse_value(t):
    """MindSpore's inverse of square matrices (n > 1); for inputs it gets wrong (inf, NaN, entries near
    the limit), torch's A X = I by LAPACK's getrf/getrs on the host, so that inf and NaN spread as there."""
    a = host_array(t)
    if a is None:
        return matrix_inverse(t)
    n = a.shape[-1]
    flat = a.reshape((-1, n, n))
    eye = np.broadcast_to(np.eye(n, dtype=a.dtype), flat.shape).copy()
    return host_result(host_lu_solve(flat, eye).reshape(a.shape), t)


@register("linalg.inv_ex", family=NS, namespace="linalg", out="tuple")
def inv_ex(A, *, check_errors=False):
    check_matrix(A, "linalg.inv", square=True)
    if A.shape[-1] == 0:
        return inv_ex_rt(A.copy(), ops.zeros(tuple(A.shape[:-2]), ms.int32))
    bad = is_singular(A, "linalg.inv_ex")
    if not bool(ops.any(bad)):
        return inv_ex_rt(inverse(A), cast(bad, ms.int32))
    if check_errors:
        raise singular_error("linalg.inv_ex", A, bad)
    # torch solves A X = I: its LU's info (the first zero pivot) and getrs' partial result (inf/NaN from
    # the division by that pivot), LAPACK's on the host
    n = A.shape[-1]
    info = _zero_pivot(read_host(A).reshape((-1, n, n))).reshape(tuple(A.shape[:-2]))
    inv = _inv_nodes[True](A) if needs_grad(A) else lapack_solve(A, eye_like(A), host=True)
    return inv_ex_rt(inv, ms.Tensor(info))


def _inv_node_for(host):
    """A^-1 solved as A X = I by LAPACK's elimination (``host``: always on the host, for singular matrices;
    else where MindSpore's kernels get the entries wrong, see lapack_solve), with torch's backward
    -inv^H (g inv^H) from the inverse (a solve's backward, -A^-H g X^H, rounds otherwise at extreme
    entries). A recording pass (create_graph) takes the inverse again through the solve's node, so the
    formula is differentiable with respect to A."""
    def fwd(a):
        inv = lapack_solve(a, eye_like(a).expand(tuple(a.shape)), host=host)
        return inv, (a, inv)

    def bwd(saved, g):
        a, inv = saved
        if needs_grad(g) or needs_grad(a):
            inv = _solve_nodes[host, True](a, eye_like(a).expand(tuple(a.shape)))
        h = mH(inv)
        return ops.neg(ops.matmul(h, ops.matmul(g, h)))
    return _node("LinalgInvExBackward0", fwd, bwd)


def _solve_args(A, B, left, name="linalg.solve"):
    check_matrix(A, name, square=True, low_precision=True)   # (the kernel's dtype check after the shapes')
    if A.dtype != B.dtype:
        raise RuntimeError(f"{name}: Expected A and B to have the same dtype, but found A of type "
                           f"{_scalar_name(A)} and B of type {_scalar_name(B)} instead")
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    b = ops.expand_dims(B, -1) if vector else B
    if vector and not left:   # torch compares A with B seen as a column
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation XA = B "
                           f"({A.shape[-2]}x{A.shape[-1]} and {b.shape[-2]}x{b.shape[-1]})")
    if not left:
        A, b = mT(A), mT(b)
    if A.shape[-1] != b.shape[-2]:
        rows, cols = (b.shape[-2], b.shape[-1]) if left else (b.shape[-1], b.shape[-2])
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation {eq} "
                           f"({A.shape[-2]}x{A.shape[-1]} and {rows}x{cols})")
    batch = _broadcast_batch(A.shape[:-2], b.shape[:-2])
    if A.dtype in (ms.float16, ms.bfloat16):
        check_matrix(A, name, square=True, kernel="lu_cpu")
    if tuple(A.shape[:-2]) != batch:
        A = ops.broadcast_to(A, batch + tuple(A.shape[-2:]))
    if tuple(b.shape[:-2]) != batch:
        b = ops.broadcast_to(b, batch + tuple(b.shape[-2:]))
    return A, b, vector


def _finish_solve(x, vector, left):
    if vector:
        return ops.squeeze(x, -1)
    return x if left else mT(x)


@register("linalg.solve", family=NS, namespace="linalg", out=True)
def solve(A, B, *, left=True):
    a, b, vector = _solve_args(A, B, left)
    if a.shape[-1] == 0 or b.size == 0:
        return _finish_solve(ops.zeros(tuple(b.shape), b.dtype), vector, left)
    if bool(ops.any(is_singular(a, "linalg.solve"))):
        raise LinAlgError("torch.linalg.solve: The solver failed because the input matrix is singular.")
    if needs_grad(a) or needs_grad(b):
        return _finish_solve(_solve_nodes[False, left](a, b), vector, left)
    return _finish_solve(_solve_value(a, b, left), vector, left)


def lapack_solve(f, b, trans="N", host=False):
    """F^-1 B (trans "T": F^-T B, "C": F^-H B) by MindSpore's MatrixSolve, or LAPACK's getrf/getrs on the
    host (torch's) for singular matrices (``host``) and where an entry is inf, NaN or subnormal: MindSpore's
    LU flushes subnormals to zero (and calls the matrix singular) and lets no NaN through where LAPACK's
    elimination spreads it."""
    hf, hb = _odd_host(f), _odd_host(b)
    if hf is None and hb is None and not host:
        return ops.matrix_solve({"N": f, "T": mT(f), "C": mH(f)}[trans], b)
    hf = read_host(f) if hf is None else hf
    hb = read_host(b) if hb is None else hb
    n, k = hb.shape[-2], hb.shape[-1]
    hf = np.broadcast_to(hf, hb.shape[:-2] + (n, n))
    x = host_lu_solve(hf.reshape((-1, n, n)), hb.reshape((-1, n, k)), trans)
    return host_result(x.reshape(hb.shape), b)


def _odd_host(t):
    """``t`` on the host if an entry is inf, NaN, subnormal or past the square root of the largest float
    (MindSpore's LU overflows there, e.g. with 1.8e308 below a pivot, and calls the matrix not invertible
    where LAPACK's elimination carries on to inf/NaN results), else None."""
    a = read_host(t)
    with np.errstate(invalid="ignore"):
        mag = np.abs(a)
        info = np.finfo(mag.dtype)
        return a if not np.isfinite(a).all() or ((mag > 0) & (mag < info.tiny)).any() or \
            (mag > np.sqrt(info.max)).any() else None


def _solve_value(a, b, left, host=False):
    """A X = B as torch solves it: from the LU of the user's A, which is ``a`` (left) or its transpose
    (X A = B taken as A^T X^T = B^T), so that inf and NaN spread as in torch's elimination."""
    return lapack_solve(a, b, host=host) if left else lapack_solve(mT(a), b, "T", host)


def _solve_adjoint(a, g, left, host=False):
    """A^-H G for the backward, from the same LU."""
    if left:
        return lapack_solve(a, g, "C", host)
    if a.dtype in _COMPLEX:   # (A^T)^H = conj(A)
        return ops.conj(lapack_solve(mT(a), ops.conj(g), host=host))
    return lapack_solve(mT(a), g, host=host)


def _solve_node_for(host, left):
    def fwd(a, b):
        x = _solve_value(a, b, left, host)
        return x, (a, x)

    def bwd(saved, gx):
        # X = A^-1 B: gB = A^-H gX, gA = -gB X^H (MindSpore's MatrixSolve backward returns float32
        # gradients for float64 inputs)
        a, x = saved
        # recording (double backward): through our own node again, whose gradients are right in float64
        gb = _solve_nodes[host, True](mH(a), gx) if needs_grad(gx) or needs_grad(a) else \
            _solve_adjoint(a, gx, left, host)
        return ops.neg(_mm(gb, mH(x))), gb
    return _node("LinalgSolveExBackward0", fwd, bwd)


# (host: singular matrices, whose partial results only LAPACK's elimination on the host gives)
_solve_nodes = {(h, left): _solve_node_for(h, left) for h in (False, True) for left in (False, True)}
_inv_nodes = {h: _inv_node_for(h) for h in (False, True)}


@register("linalg.solve_ex", family=NS, namespace="linalg", out="tuple")
def solve_ex(A, B, *, left=True, check_errors=False):
    a, b, vector = _solve_args(A, B, left)
    bad = is_singular(a if left else mT(a), "linalg.solve_ex") if a.shape[-1] else \
        ops.zeros(tuple(a.shape[:-2]), ms.bool_)
    if not bool(ops.any(bad)):
        return solve_ex_rt(solve(A, B, left=left), cast(bad, ms.int32))
    if check_errors:
        raise LinAlgError("torch.linalg.solve_ex: The solver failed because the input matrix is singular.")
    # a singular system: torch's LU info (the first zero pivot) and getrs' partial result (inf/NaN from the
    # division by that pivot), both LAPACK's on the host
    n = a.shape[-1]
    info = _getrf(read_host(a if left else mT(a)).reshape((-1, n, n)))[2].reshape(tuple(a.shape[:-2]))
    x = _solve_nodes[True, left](a, b) if needs_grad(a) or needs_grad(b) else _solve_value(a, b, left, True)
    return solve_ex_rt(_finish_solve(x, vector, left), ms.Tensor(info))


# --- products -----------------------------------------------------------------------------------

@register("linalg.matrix_power", family=NS, namespace="linalg", out=True)
def matrix_power(A, n):
    name = "linalg.matrix_power"
    if A.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")
    if n == 0:   # the identity, on A's graph (torch's gradient is zero, not absent), also where A is nan/inf
        if A.dtype == ms.bool_:
            return ops.logical_or(eye_like(A), False)
        return ops.where(ops.ones(A.shape, ms.bool_), ops.broadcast_to(eye_like(A), A.shape), A)
    if n < 0:
        A, n = inverse(A), -n
    if n == 1:
        return A.copy()
    if n == 3:   # torch's (A A) A, not the binary decomposition's A (A A)
        return _mm(_mm(A, A), A)
    result, base = None, A
    while n:
        if n & 1:
            result = base if result is None else _mm(result, base)
        n >>= 1
        if n:
            base = _mm(base, base)
    return result


@register("linalg.multi_dot", family=NS, namespace="linalg", out=True)
def multi_dot(tensors):
    ts = list(tensors)
    n = len(ts)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    first, last = ts[0], ts[-1]
    if first.ndim not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {first.ndim}D")
    if last.ndim not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last.ndim}D")
    for i in range(1, n - 1):
        if ts[i].ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {ts[i].ndim}D")
    out_shape = ([first.shape[0]] if first.ndim == 2 else []) + ([last.shape[1]] if last.ndim == 2 else [])
    ts[0] = first.reshape(1, -1) if first.ndim == 1 else first
    ts[-1] = last.reshape(-1, 1) if last.ndim == 1 else last
    for i in range(1, n):
        if ts[i].dtype != ts[0].dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                               f"{_CPP[ts[0].dtype]} and tensor {i} {_CPP[ts[i].dtype]}")
        if ts[i - 1].shape[-1] != ts[i].shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i - 1} and {i} with shapes {list(ts[i - 1].shape)} and "
                               f"{list(ts[i].shape)} cannot be multiplied")
    return chain_product(ts, _mm).reshape(tuple(out_shape))


@register("linalg.vecdot", family=NS, namespace="linalg", out=True)
def vecdot(x, y, *, dim=-1):
    _check_float(x, "linalg.vecdot")
    if x.dtype != y.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           f"{_scalar_name(x)} and y of type {_scalar_name(y)} instead")
    shape = _broadcast_batch(x.shape, y.shape)
    d = wrap_dim(dim, len(shape))
    xc = ops.conj(x) if x.dtype in _COMPLEX else x
    p = ops.mul(xc, y)
    if p.dtype in (ms.float16, ms.bfloat16):
        return cast(ops.sum(cast(p, ms.float32), d), p.dtype)
    return ops.sum(p, d)


@register("linalg.cross", family=NS, namespace="linalg", out=True)
def cross(input, other, *, dim=-1):
    shape = _broadcast_batch(input.shape, other.shape)
    d = wrap_dim(dim, len(shape))
    ni, no = input.shape[d - len(shape) + input.ndim], other.shape[d - len(shape) + other.ndim]
    if ni != 3 or no != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {ni} and {no}")
    return _cross(input, other, d)


@register("linalg.diagonal", family=NS, namespace="linalg", raw=True)
def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    return _diagonal.impl(A, offset, dim1, dim2)


# --- matrix functions and tensor forms built from the ops above -------------------------------------

@register("matrix_exp", family=F)
def matrix_exp(input):
    """exp(A) by scaling and squaring: A / 2^s has a 1-norm of at most 1/2 (the largest over the batch),
    a Taylor polynomial of degree 15 (error < 1e-18 there), then s squarings, all in double precision:
    torch's float32 degree-18 form has rounding errors of its own, which single precision squarings
    would add to (3e-4 relative on entries that cancel). MindSpore's MatrixExp kernel fails on CPU; this
    composite of products is differentiable to any order through MindSpore's engine (torch differentiates
    its own Taylor form through the exact Fréchet derivative: gradients agree to the dtype's rounding)."""
    check_matrix(input, "linalg.matrix_exp", square=True, low_precision=True)
    n = input.shape[-1]
    if input.size == 0:
        return fresh(input)
    if n == 1:
        y = _exp_1x1(input)
        # (an inf or NaN entry, or an exponential that overflows: torch's block-matrix backward is NaN there;
        # a complex one: our node's backward differentiates again, MindSpore's complex Exp gradient does not)
        if needs_grad(input) and (input.dtype in _COMPLEX or not bool(ops.all(_finite_1x1(input, y)))):
            return _exp_1x1_node(input)
        return y
    if input.ndim > 3 and not _batch_viewable(input):
        # torch views the batch dims as one (view, not reshape): an expanded or permuted batch fails there
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one dimension "
                           "spans across two contiguous subspaces). Use .reshape(...) instead.")
    wide = {ms.float16: ms.float64, ms.bfloat16: ms.float64, ms.float32: ms.float64, ms.complex64: ms.complex128}
    if input.dtype in wide:
        return cast(matrix_exp(cast(input, wide[input.dtype])), input.dtype)
    mag = ops.sqrt(ops.square(ops.real(input)) + ops.square(ops.imag(input))) if input.dtype in _COMPLEX \
        else ops.abs(input)
    sums = ops.sum(mag, -2)
    norms = ops.amax(sums, -1)
    # a NaN or an infinite 1-norm: torch scales by 2^-inf (or NaN), which leaves NaN everywhere (a NaN
    # column sum is a NaN norm, which MindSpore's amax would pass over)
    bad = ops.logical_not(ops.all(ops.isfinite(sums), -1))
    if bool(ops.any(bad)):
        mask = ops.expand_dims(ops.expand_dims(bad, -1), -1)
        r = matrix_exp(ops.where(mask, ops.zeros((), input.dtype), input))
        # (A NaN: x times NaN, whose gradient is NaN too, as torch's block-matrix backward gives there)
        # (the masked input first: NaN times the zero gradient of a good matrix would be NaN)
        zero = ops.zeros((), input.dtype)
        if input.dtype in _COMPLEX and math.prod(input.shape[:-2]) == 1 and bool(ops.any(ops.isnan(sums))):
            # a lone matrix with a NaN norm goes through torch's unbatched degree choice, whose scaling
            # leaves NaN + 0j everywhere (the gradient too); in a batch, or at an inf norm, NaN + NaN j
            re = ops.real(ops.where(mask, input, zero))
            nan = ops.mul(re, ms.Tensor(math.nan, re.dtype))
            return ops.complex_of_parts(nan, ops.zeros_like(nan))
        return ops.where(mask, ops.mul(ops.where(mask, input, zero), ms.Tensor(math.nan, input.dtype)), r)
    # each matrix's own number of squarings (torch scales each matrix by its own norm): one shared by the
    # batch would scale a small matrix beside a huge one by 2^-1000 and lose it to rounding or underflow
    with np.errstate(divide="ignore"):
        norm = np.asarray(read_host(norms), np.float64)
        squarings = np.where(norm > 0.5, np.ceil(np.log2(np.maximum(norm, 0.5)) + 1), 0).astype(np.int64)
    a = host_array(input)
    if a is not None:   # entries past sqrt(max): A / 2^s has subnormal entries, which MindSpore flushes to 0
        with np.errstate(all="ignore"):
            r = _taylor_exp(a, squarings, np.eye(n, dtype=a.dtype), np.matmul,
                            lambda t, f: t * f.astype(a.dtype)[..., None, None], np.where)
        return host_result(r, input)
    np_type = dtype_of(input)._np
    return _taylor_exp(input, squarings, eye_like(input), _mm,
                       lambda t, f: ops.mul(t, ms.Tensor(f.astype(np_type)[..., None, None])),
                       lambda m, p, q: ops.where(ms.Tensor(m), p, q))


def _batch_viewable(t):
    """Whether ``t``'s batch dims (all but the last two) merge into one by a view: each (non-1) dim's stride
    is the next one's stride times its size."""
    dims = [(size, st) for size, st in zip(t.shape[:-2], t.stride()[:-2]) if size != 1]
    return all(outer[1] == inner[1] * inner[0] for outer, inner in zip(dims, dims[1:]))


def _finite_1x1(x, y):
    # (IsFinite has no complex kernel: both parts of a complex entry)
    parts = [_parts(t) for t in (x, y)]
    return ops.logical_and(*(ops.logical_and(ops.isfinite(r), ops.isfinite(i)) for r, i in parts))


def _exp_1x1(x):
    """torch's exp of a 1x1 matrix (its exp kernel): real types in double, rounded once (MindSpore's float32
    Exp is 2e-5 relative off at 80, and overflows from 88.7 where exp stays below float32's largest value)."""
    if x.dtype in _COMPLEX or x.dtype == ms.float64:
        return ops.exp(x)
    return cast(ops.exp(cast(x, ms.float64)), x.dtype)


def _exp_1x1_backward(saved, g):
    # torch differentiates exp(A) as the corner of exp([[A^H, G], [0, A^H]]), a matrix whose 1-norm is
    # not finite beside an inf or NaN entry of A: NaN there, not g exp(a). A float32 exponential that
    # overflows: the corner g exp(a), finite while the product is (torch's), rounded once; NaN where
    # exp(a) overflows double too (torch's squarings meet 0 * inf from a ~ 360 for |g| ~ 1, at the latest
    # from 710)
    x, y = saved
    if y.dtype not in _COMPLEX:
        wide = ops.exp(cast(x, ms.float64))
        good = ops.logical_and(ops.isfinite(x), ops.isfinite(wide))
        if y.dtype != ms.float64:
            prod = cast(ops.mul(cast(g, ms.float64), wide), y.dtype)
        else:
            prod = ops.mul(g, y)
        return ops.where(good, prod, ops.full_like(g, math.nan))
    good = _finite_1x1(x, y)
    # complex: g conj(y) from real parts (MindSpore's complex Mul has no gradient)
    gr, gi = _cmul(_parts(g), _conj(_parts(y)))
    nan = ops.full_like(gr, math.nan)
    return ops.complex_of_parts(ops.where(good, gr, nan), ops.where(good, gi, nan))


_exp_1x1_node = _node("LinalgMatrixExpBackward0", lambda x: (lambda y: (y, (x, y)))(_exp_1x1(x)), _exp_1x1_backward)


def _taylor_exp(x, squarings, eye, mm, scale, where):
    """The degree-15 Taylor polynomial of A / 2^s, squared s times (tensors or host arrays); ``squarings``:
    s per matrix of the batch (an int array of the batch's shape)."""
    for part in (squarings // 2, squarings - squarings // 2):   # (2^-1025 is below double's normal range)
        if part.any():
            x = scale(x, np.exp2(-part.astype(np.float64)))
    r = eye
    for k in range(15, 0, -1):
        r = eye + mm(x, r) / k
    top = int(squarings.max()) if squarings.size else 0
    same = squarings.size == 0 or (squarings == top).all()
    for j in range(top):
        r = mm(r, r) if same else where((squarings > j)[..., None, None], mm(r, r), r)
    return r


_same("matrix_exp", matrix_exp)


@register("linalg.tensorinv", family=NS, namespace="linalg", out=True)
def tensorinv(A, ind=2):
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    if ind > A.ndim:   # (torch slices A's shape at ind first)
        raise RuntimeError(f"ArrayRef: invalid slice, N = {ind}; size = {A.ndim}")
    rows, cols = math.prod(A.shape[:ind]), math.prod(A.shape[ind:])
    if rows != cols:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {cols} != {rows}")
    a = A.reshape(cols, cols)
    _check_square(a, "linalg.inv")
    singular = is_singular(a, "linalg.tensorinv") if cols else None
    if cols and bool(ops.any(singular)):   # torch reports the failed inversion under the name "inv"
        raise singular_error("inv", a, singular)
    return inverse(a).reshape(tuple(A.shape[ind:]) + tuple(A.shape[:ind]))


@register("linalg.tensorsolve", family=NS, namespace="linalg", out=True)
def tensorsolve(A, B, dims=None):
    if dims is not None:
        dims = [wrap_dim(d, A.ndim) for d in dims]
        A = ops.moveaxis(A, tuple(dims), tuple(range(A.ndim - len(dims), A.ndim)))
    x_shape = tuple(A.shape[B.ndim:])
    n, m = math.prod(x_shape), math.prod(B.shape)
    if n != m:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {n} != {m}")
    return solve(A.reshape(n, n), B.reshape(n)).reshape(x_shape)


def _vander_powers(x, n):
    """Columns x^0 .. x^(n-1) (n > 1) as torch builds them: a row of ones, then cumulative products."""
    copies = ops.broadcast_to(ops.expand_dims(x, -1), tuple(x.shape) + (n - 1,))
    if not needs_grad(x):
        powers = ops.cumprod(copies, -1)
    elif bool(ops.all(ops.isfinite(ops.cumprod(ops.stop_gradient(copies), -1)))):
        # products of shifted copies: exact at zeros (MindSpore's CumProd backward divides by them) and
        # recorded for double backward
        powers = _cumprod_scan(copies, x.ndim)
    else:
        # an infinite power: torch.cumprod's own gradient formula (the reversed sum of grad * out over
        # x: NaN at an infinite x, inf where a power overflows), not the exact products of the others
        powers = _cumprod.impl(copies, x.ndim)
    return ops.cat((ops.ones(tuple(x.shape) + (1,), powers.dtype), powers), -1)


@register("linalg.vander", family=NS, namespace="linalg")
def linalg_vander(x, *, N=None):
    d = dtype_of(x)
    if d in (D.bool_, D.float16, D.bfloat16):
        raise RuntimeError("linalg.vander supports floating point, complex, and integer tensors, but got "
                           f"{_scalar_name(x)}")
    x = x.reshape(1) if x.ndim == 0 else x
    n = x.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    if d._cat < D._FLOAT:   # torch's cumprod gives integers as int64
        x = cast(x, ms.int64)
    return _vander_powers(x, n)


@register("vander", family=F, namespace="torch")
def vander(x, N=None, increasing=False):
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    if dtype_of(x)._cat < D._FLOAT:   # the result type promotes with int64 (cumprod's integer type)
        x = cast(x, ms.int64)
    if n == 0:
        return ops.zeros((x.shape[0], 0), x.dtype)
    r = ops.ones((x.shape[0], 1), x.dtype) if n == 1 else _vander_powers(x, n)
    return r if increasing else ops.flip(r, (1,))


@register("matrix_power", family=F, out=True)
def legacy_matrix_power(input, n):
    return matrix_power(input, n)


@register("pinverse", family=F)
def pinverse(input, rcond=1e-15):
    return pinv(input, rcond=rcond)


@register("nuclear_norm", family=F, namespace="torch", out=True, out_check=_norm_out_check("linalg.matrix_norm"))
def nuclear_norm(input, dim=None, keepdim=False):
    warn_once("at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will be removed in a "
              "future PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead")
    if isinstance(dim, bool):   # nuclear_norm(input, keepdim)
        dim, keepdim = None, dim
    return matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim)


@register("frobenius_norm", family=F, namespace="torch", out=True, out_check=_norm_out_check(None))
def frobenius_norm(input, dim, keepdim=False):
    warn_once("at::frobenius_norm is deprecated and it is just left for JIT compatibility. It will be removed in a "
              "future PyTorch release. Please use `linalg.vector_norm(A, 2., dim, keepdim)` instead")
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dims) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dims)} dimensions instead.")
    if dtype_of(input)._cat < D._FLOAT:
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got {_scalar_name(input)} "
                           "instead.")
    return vector_norm(input, 2, dims, keepdim)


# --- solves and inverses from a Cholesky factor --------------------------------------------------

@register("cholesky_solve", family=F, out=True)
def cholesky_solve(input, input2, upper=False):
    for t, arg in ((input, "b"), (input2, "u")):
        if t.ndim < 2:
            raise RuntimeError(f"{arg} should have at least 2 dimensions, but has {t.ndim} dimensions instead")
    if input.dtype != input2.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {_scalar_name(input)} "
                           f"and A of type {_scalar_name(input2)} instead.")
    # torch's shape checks come before its kernel's dtype dispatch
    n = input2.shape[-1]
    if input2.shape[-2] != n:
        raise RuntimeError(f"A must be batches of square matrices, but they are {input2.shape[-2]} by {n} matrices")
    if input.shape[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for cholesky_solve: each A matrix is {n} by {n} but each b "
                           f"matrix is {input.shape[-2]} by {input.shape[-1]}")
    _broadcast_batch(input.shape[:-2], input2.shape[:-2])
    if input.dtype not in (ms.float32, ms.float64, ms.complex64, ms.complex128):
        raise NotImplementedError(f"\"cholesky_solve_cpu\" not implemented for '{_scalar_name(input)}'")
    # torch's LAPACK call reads one triangle of the factor, and its gradient treats the factor as a full
    # matrix in A = L L^H (or U^H U): the factor's value is its triangle, its gradient passes to all of it
    if (needs_grad(input) or needs_grad(input2)) and input.dtype in (ms.float32, ms.float64):
        return _cholesky_solve_nodes[bool(upper)](input, input2)
    return _potrs(input, input2, upper)


def _potrs(b, factor, upper, recorded=False):
    """A^-1 B for A = L L^H (U^H U) as LAPACK's potrs computes it: two triangular solves with the factor.
    Forming A first squares the condition number (3e-4 relative off torch for ill-conditioned float32
    factors) and overflows for entries near the float limit."""
    if upper:
        x = trsolve(factor, trsolve(mH(factor), b, False), True)
    else:
        x = trsolve(mH(factor), trsolve(factor, b, False), True)
    if recorded and (needs_grad(factor) or needs_grad(b)):
        # the backward under create_graph: torch differentiates the factor as a full matrix
        # in A = L L^H, where the triangular solves would mask its other triangle; the value stays potrs'
        ref = solve(_gram(factor, upper), b)
        x = ops.add(ops.stop_gradient(x), ops.sub(ref, ops.stop_gradient(ref)))
    return x


def _cholesky_solve_node(upper):
    # torch's backward: gB = A^-1 gX (A from the triangle), and the factor's gradient multiplies the whole
    # input, not its triangle: -F (gB X^H + X gB^H) for U^H U, -(gB X^H + X gB^H) F for L L^H
    def fwd(b, factor):
        x = _potrs(b, factor, upper)
        return x, (b, factor, x)

    def bwd(saved, g):
        b, factor, x = saved
        gb = _potrs(g, factor, upper, recorded=True)
        common = _mm(gb, mH(x))
        common = ops.add(common, mH(common))
        gf = ops.neg(_mm(factor, common) if upper else _mm(common, factor))
        return _sum_to(gb, b.shape), _sum_to(gf, factor.shape)
    return _node("CholeskySolveBackward0", fwd, bwd)


_cholesky_solve_nodes = {u: _cholesky_solve_node(u) for u in (False, True)}


@register("cholesky_inverse", family=F, out=True)
def cholesky_inverse(input, upper=False):
    if input.ndim < 2:
        raise RuntimeError("cholesky_inverse: The input tensor A must have at least 2 dimensions.")
    if input.shape[-1] != input.shape[-2]:   # (before the kernel's dtype dispatch)
        raise RuntimeError(f"cholesky_inverse: A must be batches of square matrices, but they are {input.shape[-2]} "
                           f"by {input.shape[-1]} matrices")
    if dtype_of(input)._cat < D._FLOAT or input.dtype in (ms.float16, ms.bfloat16):
        raise NotImplementedError(f"\"cholesky_inverse_out_cpu\" not implemented for '{_scalar_name(input)}'")
    check_matrix(input, "cholesky_inverse", square=True)
    if input.size == 0:
        return fresh(input)
    _check_factor_diagonal(input)
    if needs_grad(input):
        return _cholesky_inverse_nodes[bool(upper)](input)
    a = host_array(input)
    if a is None and _subnormal(input):   # (as inf: a subnormal pivot's inverse overflows)
        a = read_host(input)
    if a is not None:   # inf/NaN entries: LAPACK's potri, whose inf/NaN pattern the triangular solves miss
        return host_result(_host_potri(a, upper), input)
    return _potri(input, upper)


def _check_factor_diagonal(factor):
    """torch's potri (its trtri) refuses an exact zero on the factor's diagonal, naming the first one."""
    # (on the host: MindSpore's Equal flushes a subnormal diagonal entry to zero, which LAPACK inverts)
    zero = np.diagonal(read_host(factor), 0, -2, -1) == 0
    if not zero.any():
        return
    flat = zero.reshape((-1, factor.shape[-1]))
    b = int(flat.any(axis=1).nonzero()[0][0])
    where = f"(Batch element {b}): " if factor.ndim > 2 else ""
    raise LinAlgError(f"cholesky_inverse: {where}The diagonal element {int(flat[b].nonzero()[0][0]) + 1} is zero, "
                      "the inversion could not be completed because the input matrix is singular.")


def _potri(factor, upper):
    """A^-1 for A = L L^H (U^H U) as LAPACK's potri forms it: the factor's inverse W, then W^H W (W W^H).
    Inverting L L^H itself squares the condition number (1e-3 relative off torch in float32)."""
    w = trsolve(factor, eye_like(factor), upper)
    if w.dtype not in _COMPLEX:
        return _mm(w, mH(w)) if upper else _mm(mH(w), w)
    # zlauu2 reads only the real part of each diagonal entry, and scales the last row (column) with the
    # last one, whose imaginary part stays: a factor with a complex diagonal gives torch's complex corner
    n = w.shape[-1]
    diag = ops.ne(ops.eye(n, n, ms.float32), 0)
    re = ops.real(w).astype(w.dtype)
    x = ops.where(diag, re, w)
    x = _mm(x, mH(x)) if upper else _mm(mH(x), x)
    corner = ops.logical_and(diag, ops.eq(ops.arange(n), n - 1).reshape(1, n))
    return ops.where(corner, ops.mul(re, w), x)


def _host_potri(a, upper):
    """LAPACK's unblocked potri (trti2, then lauu2) on a host batch with inf/NaN entries, where the order
    of operations decides between inf and NaN: trmv skips a zero entry (no 0 * inf), the diagonal is
    copied and the other triangle mirrored as torch fills it."""
    flat = a.reshape((-1,) + a.shape[-2:])
    out = np.empty_like(flat)
    with np.errstate(all="ignore"):
        for b, m in enumerate(flat):
            # an upper factor is the lower one with its indices reversed (trti2), transposed (lauu2)
            low = np.tril(m[::-1, ::-1] if upper else m)
            w = _trti2_lower(low)
            if upper:
                w = w[::-1, ::-1].T.conj()
            r = _lauu2_lower(w)
            if upper:
                r = r.conj()
            full = np.tril(r) + np.tril(r, -1).T.conj()
            out[b] = full.T if upper else full
    return out.reshape(a.shape)


def _trti2_lower(w):
    """The inverse of a lower triangular matrix column by column from the last, as LAPACK's trti2."""
    w = w.copy()
    n = w.shape[0]
    for j in range(n - 1, -1, -1):
        d = w[j, j]
        # a complex reciprocal as conj(d) / |d|^2 (inf - 0.7j gives NaN there, not NumPy's 0)
        w[j, j] = np.conj(d) / (d.real * d.real + d.imag * d.imag) if np.iscomplexobj(w) else 1 / d
        x = w[j + 1:, j].copy()
        t = w[j + 1:, j + 1:]
        for k in range(len(x) - 1, -1, -1):   # trmv: x = T x, a zero entry of x skipped
            if x[k] != 0:
                x[k + 1:] += x[k] * t[k + 1:, k]
                x[k] *= t[k, k]
        w[j + 1:, j] = x * -w[j, j]
    return w


def _lauu2_lower(w):
    """The lower triangle of W^H W for lower triangular W, row by row as LAPACK's lauu2 (gemv's beta
    scaling sets y to zero for beta 0, no 0 * inf)."""
    w = w.copy()
    n = w.shape[0]
    for i in range(n):
        d = w[i, i]
        if i == n - 1:
            w[i, :i + 1] *= d.real
            break
        d = d.real   # (zlauu2 reads the real part of the diagonal entry)
        w[i, i] = d * d + np.vdot(w[i + 1:, i], w[i + 1:, i]).real
        y = np.zeros_like(w[i, :i]) if d == 0 else w[i, :i] * d
        w[i, :i] = y + w[i + 1:, :i].T @ np.conj(w[i + 1:, i])
    return w


def _cholesky_inverse_node(upper):
    # torch's backward multiplies by the whole input, not its triangle: gL = -L (X (G + G^H) X) for U^H U,
    # -(X (G + G^H) X) L for L L^H, X the result
    def fwd(factor):
        x = _potri(factor, upper)
        return x, (factor, x)

    def bwd(saved, g):
        factor, x = saved
        common = _mm(x, _mm(ops.add(g, mH(g)), x))
        return ops.neg(_mm(factor, common) if upper else _mm(common, factor))
    return _node("CholeskyInverseBackward0", fwd, bwd)


_cholesky_inverse_nodes = {u: _cholesky_inverse_node(u) for u in (False, True)}


def _gram(factor, upper):
    """A = L L^H (U^H U) from a Cholesky factor: the triangle's values, the gradient to the whole factor."""
    tri = ops.triu(factor) if upper else ops.tril(factor)
    f = factor - ops.stop_gradient(factor - tri) if needs_grad(factor) else tri
    return _mm(mH(f), f) if upper else _mm(f, mH(f))


_same("det", det)
_same("inv", inverse, out=True)
_same("matmul", matmul, out=True)
