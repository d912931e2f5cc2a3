"""``mindspore.ops`` as the op families use it, with MindSpore 2.10's kernel defects guarded in one place.

Families import ``from . import _msops as ops`` instead of ``from mindspore import ops``: every name is
MindSpore's own function, except the few below, which are MindSpore's function behind a guard.

- **Kernels that write nothing for empty input.** The CPU reduce and matrix-product kernels skip their
  launch when an input has no elements ("the shape of input cannot contain zero") and hand back the
  output buffer uninitialised: the previous call's result leaks into the next (a sum over nothing gave
  7 after ``tensor([3., 4]).sum()``). torch defines those results: a sum over nothing is 0, a mean NaN,
  a product 1, ``any`` False, a matrix product with an empty inner dimension 0. The guards build them
  by hand, kept on the inputs' autograd graph as torch's are.
- **Softmax over an axis of size 1 poisons later backward passes.** After one Softmax backward whose
  axis has size 1, every later Softmax backward of the same rank and axis comes out wrong (measured: the
  gradient of ``softmax([.1, .2, .3]).sum()`` became ``[.21, .22, .23]`` instead of ~0). Such a
  softmax is 1 (or NaN) everywhere; it is composed from exp and a sum instead.
- **BroadcastTo to an empty shape** differentiates to an uninitialised sum over nothing; the guard
  links the (empty) result to its input with a zero gradient.
- **Kernels that refuse empty input**: Triu/Tril ("input matrix width should >= 1"), Tile, Digamma (also
  Lgamma's backward): answered by hand.
- **TensorScatterElements adds from several threads without atomics**: a scatter-add with repeated
  indices loses additions at random; ``tensor_scatter_elements(..., "add")`` goes through TensorScatterAdd.
- **Pad with a negative amount** returns zeros (or an earlier call's values) after its first call: negative
  amounts become a narrowing before the kernel.
- **Kernels that kill the process.** The CPU Eig kernel divides by the matrix size: an empty matrix
  (or batch) stops the process with SIGFPE. The guard returns torch's empty result without the call.
  (Conj, Real and Imag refuse empty complex input outright: "got empty inputs or outputs".)
"""
import builtins as _b

from mindspore import ops as _ms

globals().update({k: getattr(_ms, k) for k in dir(_ms) if not k.startswith("_")})

# after MindSpore's names (it has its own ``P``, ``range``, ``max``...), the ones this module uses
import numpy as _np            # noqa: E402
import mindspore as _mindspore  # noqa: E402
from .._runtime import read_host as _read_host  # noqa: E402
from .._runtime import CAPTURE as _CAPTURE  # noqa: E402
from . import _kernels as _kernels  # noqa: E402
from .. import _ms_private as _P  # noqa: E402

# one Complex primitive for every family that builds a complex tensor from its real and imaginary parts
complex_of_parts = _ms.Complex()
from .._tensor import host_view  # noqa: E402



_F_NAN = (_mindspore.float16, _mindspore.float32, _mindspore.float64, _mindspore.bfloat16, _mindspore.complex64, _mindspore.complex128)


def _linked(z, *inputs):
    """``z`` on the autograd graph of the (empty) ``inputs``: torch's result of an empty reduction or
    product is a function of them, so backward reaches them (with empty gradients) instead of failing
    with "does not require grad"."""
    if not _P.grad_enabled():
        return z
    return _on_link(z, _link_scalar(inputs, _link_dtype(z.dtype), False))


def _link_dtype(dtype):
    # (float32 for bfloat16 and the integer types: no bfloat16 ReduceSum on CPU)
    return dtype if dtype in _F_NAN and dtype != _mindspore.bfloat16 else _mindspore.float32


def _link_scalar(inputs, dt, nonempty):
    """A 0-d -0.0 of dtype ``dt`` on the graph of the empty ``inputs`` that need gradients (and, with
    ``nonempty``, of the others too, through _ZeroLink), or None where none does."""
    empty = [t.reshape(-1) for t in inputs if t.size == 0 and _P.requires_grad(t)]
    link = None
    if empty:
        # a sum over [nothing..., 0]: exactly 0, and differentiable with respect to every empty input
        link = _ms.sum(_ms.cat([e if e.dtype == dt else _ms.cast(e, dt) for e in empty] + [_ms.zeros(1, dt)]))
        link = _ms.neg(link)    # -0.0: z + (-0.0) is z exactly, a -0.0 in z included
    if nonempty:
        for t in inputs:
            if t.size and _P.requires_grad(t):
                zl = _ZeroLink.apply(t)
                zl = zl if zl.dtype == dt else _ms.cast(zl, dt)
                link = _ms.neg(zl) if link is None else _ms.add(link, zl)
    return link


def _on_link(z, link):
    """``z + link`` (``link`` 0-d): ``z`` on the link's graph."""
    if link is None:
        return z
    if not z.size:
        # an empty z holds no value: the link broadcast to its shape (an Add with an empty result makes
        # MindSpore's CPU kernel log a warning); BroadcastTo's backward hands the link an uninitialised
        # sum over nothing, which reaches only empty inputs (their gradient is empty) or _ZeroLink
        r = _ms.broadcast_to(link, tuple(z.shape))
        return r if r.dtype == z.dtype else _ms.cast(r, z.dtype)
    if z.dtype != link.dtype:   # (bfloat16: the add's backward sums over z's shape, in float32)
        return _ms.cast(_ms.add(_ms.cast(z, link.dtype), link), z.dtype)
    return _ms.add(z, link)


def _reduced_shape(shape, axis, keepdim):
    if axis is None or axis == () or axis == []:
        axes = set(_b.range(len(shape)))
    else:
        axes = {a % _b.max(len(shape), 1) for a in ((axis,) if isinstance(axis, int) else axis)}
    if keepdim:
        return tuple(1 if i in axes else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in axes)


def _filled(input, shape, value, dtype=None):
    dt = dtype or input.dtype
    z = _ms.full(shape, value, dtype=dt) if 0 not in shape else _ms.zeros(shape, dt)
    return _linked(z, input)


def sum(input, dim=None, keepdim=False, *, dtype=None):    # noqa: A001 - MindSpore's name
    if input.size == 0:
        if dtype is None and input.dtype not in _F_NAN:
            dtype = _mindspore.int64   # as the kernel's own result: integers and bools sum in int64
        return _filled(input, _reduced_shape(input.shape, dim, keepdim), 0, dtype)
    r = _ms.sum(input, dim, keepdim, dtype=dtype)
    return r if keepdim else _with_dims(r, input, dim, False)


def mean(input, axis=None, keep_dims=False):
    if input.size == 0:
        value = float("nan") if input.dtype in _F_NAN else 0
        return _filled(input, _reduced_shape(input.shape, axis, keep_dims), value)
    r = _ms.mean(input, axis, keep_dims)
    return r if keep_dims else _with_dims(r, input, axis, True)


def _with_dims(r, input, dim, is_mean):
    """A sum/mean without keepdim whose reduced dims its shapes leave ambiguous ((3, 3) -> (3,)) carries
    them to double backward, whose formula knows only the shapes (autograd/_higher_order.py)."""
    if dim is None or not _P.requires_grad(r) or isinstance(dim, (tuple, list)) and not dim:
        return r
    shape = tuple(input.shape)
    if not shape:
        return r
    axes = tuple(sorted(d % len(shape) for d in ((dim,) if isinstance(dim, int) else dim)))
    if not _ambiguous(shape, axes):
        return r
    from ..autograd._higher_order import own_backward
    return own_backward(r, _reduction_backward, shape, axes, r.size / input.size if is_mean else 1)


def _ambiguous(shape, axes):
    # another set of dims gives the same shape iff a reduced dim has the size of the nearest kept dim
    # on one side of it (with only reduced dims between them)
    for i in axes:
        for step in (-1, 1):
            j = i + step
            while 0 <= j < len(shape) and j in axes:
                j += step
            if 0 <= j < len(shape) and shape[j] == shape[i]:
                return True
    return False


def _reduction_backward(node, grad_outputs, shape, axes, scale):
    g = grad_outputs[0]
    if g is None:
        return (None,)
    kept = tuple(1 if i in axes else s for i, s in enumerate(shape))
    r = _ms.broadcast_to(g.reshape(kept), shape)
    return (r if scale == 1 else _ms.mul(r, scale),)


def prod(input, axis=None, keep_dims=False, dtype=None):
    if input.size == 0:
        return _filled(input, _reduced_shape(input.shape, axis, keep_dims), 1, dtype)
    return _ms.prod(input, axis, keep_dims, dtype)


def any(input, axis=None, keep_dims=False):    # noqa: A001
    if input.size == 0:
        return _ms.zeros(_reduced_shape(input.shape, axis, keep_dims), _mindspore.bool_)
    return _ms.any(input, axis, keep_dims)


def all(input, axis=None, keep_dims=False):    # noqa: A001
    if input.size == 0:
        return _ms.ones(_reduced_shape(input.shape, axis, keep_dims), _mindspore.bool_)
    return _ms.all(input, axis, keep_dims)


def _empty_product(a, b, shape):
    """A matrix product with an empty operand: zeros of the product's shape (an empty inner dimension)
    or an empty result. Either way the gradient of each operand is zero: MindSpore's own backward would
    multiply over the empty dimension and hand back an uninitialised buffer for the non-empty operand."""
    return zeros_on(shape, a.dtype, (a, b))


def zeros_on(shape, dtype, inputs):
    """Zeros of ``shape`` on the autograd graph of ``inputs`` with a zero gradient to each: the value of
    an op whose result is empty (or whose inputs are), where MindSpore's backward kernels refuse empty
    tensors or sum over nothing into an uninitialised buffer. (A non-empty input beside an empty result
    is linked through _ZeroLink: its gradient is zero whatever arrives.)"""
    z = _ms.zeros(shape, dtype)
    if not _P.grad_enabled():
        return z
    return _on_link(z, _link_scalar(inputs, _link_dtype(dtype), True))


class _ZeroLink(_P.FunctionBase):
    """A 0-d zero on ``t``'s autograd graph whose gradient to ``t`` is zeros, whatever arrives: added to
    an empty result, MindSpore's Add backward hands the scalar a sum over nothing, an uninitialised
    buffer (NaN in some runs), which a chain of its own ops (t * 0, summed) would pass on."""

    @staticmethod
    def forward(node, t):
        node.shape, node.dtype = tuple(t.shape), t.dtype
        return _ms.zeros((), _mindspore.float32 if t.dtype == _mindspore.bfloat16 else t.dtype)

    @staticmethod
    def backward(node, grad):
        return _ms.zeros(node.shape, node.dtype)


def _product_shape(a_shape, b_shape, ta=False, tb=False):
    """The product's shape, or None where the shapes do not fit (MindSpore's call then raises)."""
    a = _np.empty(a_shape, _np.bool_)    # no elements: the shapes are all that is computed
    b = _np.empty(b_shape, _np.bool_)
    try:
        return _np.matmul(a.swapaxes(-1, -2) if ta else a, b.swapaxes(-1, -2) if tb else b).shape
    except ValueError:
        return None


def _guarded_product(a, b, call, ta=False, tb=False):
    shape = _product_shape(a.shape, b.shape, ta, tb) if a.size == 0 or b.size == 0 else None
    return call(a, b) if shape is None else _empty_product(a, b, shape)


def matmul(input, other):
    return _guarded_product(input, other, _ms.matmul)


def bmm(input, mat2):
    return _guarded_product(input, mat2, _ms.bmm)


def dense(input, weight, bias=None):
    out = _guarded_product(input, weight, _ms.dense, tb=True)
    return out if bias is None else _ms.add(out, bias)


class MatMul:
    """``ops.MatMul(transpose_a, transpose_b)``: the classic primitive, guarded for empty operands."""

    def __init__(self, transpose_a=False, transpose_b=False):
        self._prim = _ms.MatMul(transpose_a, transpose_b)
        self._t = (transpose_a, transpose_b)

    def __call__(self, a, b):
        return _guarded_product(a, b, self._prim, *self._t)


def broadcast_to(input, shape):
    """``ops.broadcast_to``; a non-empty tensor broadcast to an empty shape (a size-1 dim to 0) has a zero
    gradient, where MindSpore's BroadcastTo backward hands back an uninitialised sum over nothing; a
    bfloat16 one that needs gradients broadcasts in float32 (its backward sums, and the CPU ReduceSum has
    no bfloat16 kernel; the casts are exact)."""
    if _P.grad_enabled() and _P.requires_grad(input):
        if input.size:
            nd = len(shape) - input.ndim
            full = tuple(input.shape[i - nd] if s == -1 and i >= nd else s for i, s in enumerate(shape))
            if 0 in full:
                return _empty_product(input, input, full)
        if input.dtype == _mindspore.bfloat16:
            return _ms.cast(_ms.broadcast_to(_ms.cast(input, _mindspore.float32), shape), input.dtype)
    return _ms.broadcast_to(input, shape)


def _triangle(fn):
    def run(input, diagonal=0):
        if input.size == 0:   # the CPU Triu/Tril refuse a matrix without rows or columns
            return _linked(_ms.zeros(tuple(input.shape), input.dtype), input)
        if input.dtype in (_mindspore.complex64, _mindspore.complex128):   # (no complex kernel: by parts)
            return complex_of_parts(fn(_ms.real(input), diagonal), fn(_ms.imag(input), diagonal))
        return fn(input, diagonal)
    run.__name__ = fn.__name__
    run.__doc__ = f"mindspore.ops.{fn.__name__}, with empty input answered without the kernel, complex by parts."
    return run


tril = _triangle(_ms.tril)
triu = _triangle(_ms.triu)


def _softmax_size1(x, axis):
    e = _ms.exp(_ms.sub(x, _ms.stop_gradient(x)))    # 1, or NaN where x is NaN or infinite
    return _ms.div(e, _ms.sum(e, axis, True))


class Softmax:
    """``ops.Softmax(axis)``, composed where the axis has size 1 (see the module docstring)."""

    def __init__(self, axis=-1):
        self._prim = _ms.Softmax(axis)
        self._axis = axis

    def __call__(self, x):
        if x.ndim and x.shape[self._axis] == 1:
            return _softmax_size1(x, self._axis)
        return self._prim(x)


def softmax(input, axis=-1, *, dtype=None):
    if dtype is not None:
        input = _ms.cast(input, dtype)
    if input.ndim and input.shape[axis] == 1:
        return _softmax_size1(input, axis)
    return _ms.softmax(input, axis)


def log1p_unit(e):
    """log1p(e) for e in [0, 1] as 2 atanh(e / (e + 2)), exact there: MindSpore's Log1p is log(1 + e),
    which loses every digit of a tiny e. (An addition of ours, not a MindSpore name.)"""
    r = _ms.mul(_ms.atanh(_ms.div(e, _ms.add(e, 2.0))), 2.0)
    # (a 0-d float16 beside a Python float computes in float32: round back once)
    return r if r.dtype == e.dtype else _ms.cast(r, e.dtype)


def _softplus_f64(z):
    # max(z, 0) + log1p(exp(-|z|)), the two halves selected by ``where`` on clamped inputs so that
    # neither branch overflows (nor makes a NaN gradient); at 0 the gradient is torch's 1/2
    pos = _ms.greater(z, 0)
    zero = _ms.zeros((), z.dtype)
    zp, zn = _ms.where(pos, z, zero), _ms.where(pos, zero, z)
    return _ms.where(pos, _ms.add(zp, log1p_unit(_ms.exp(_ms.neg(zp)))), log1p_unit(_ms.exp(zn)))


class Softplus:
    """``ops.Softplus()``. MindSpore's CPU kernel computes float64 in float32 (errors ~1e-7); float64 is
    composed from exp and log1p, which are exact."""

    def __init__(self):
        self._prim = _ms.Softplus()

    def __call__(self, x):
        if x.dtype == _mindspore.float64:
            return _softplus_f64(x)
        r = self._prim(x)
        if _kernels.HOST_WORKAROUNDS and not _CAPTURE[0] and not _has_nan(x):
            return r
        nan = _ms.isnan(x)
        if _P.requires_grad(x) and _P.grad_enabled():
            # NaN with torch's NaN gradient there (a bare x would pass the incoming gradient through):
            # x times a constant that is NaN at the NaN positions and 1 elsewhere
            x = _ms.mul(x, _ms.where(nan, _P.detach(x), _ms.ones_like(x)))
        return _ms.where(nan, x, r)


def softplus(input, beta=1, threshold=20):
    if input.dtype == _mindspore.float64:
        z = input if beta == 1 else _ms.mul(input, beta)
        sp = _softplus_f64(z)
        sp = sp if beta == 1 else _ms.div(sp, beta)
        return _ms.where(_ms.greater(z, threshold), input, sp)
    return _ms.softplus(input, beta, threshold)


# --- Python float operands of float64 tensors ------------------------------------------------------
# MindSpore converts a Python float combined with a float64 tensor to float32 first: ops.mul(x, 0.1)
# is off by 1.5e-9 relative, ops.pow(x, 1 / 3.5) by 2e-8, a comparison with 0.1 compares with
# 0.10000000149. Every implementation that writes a float literal into a float64 computation (lp_pool's
# exponent, a loss's margin, rad2deg's constant...) went through float32 there. These wrappers make such
# a float a float64 tensor first; other dtypes are unchanged.

_F64, _F32, _BF16 = _mindspore.float64, _mindspore.float32, _mindspore.bfloat16
_MsTensor = _mindspore.Tensor


def _as_f64(v):
    return _MsTensor(v, _F64)


def _broadcast_bf16_grad(input, other):
    # a broadcasting op's backward sums the gradient over the broadcast dims, and MindSpore's CPU
    # ReduceSum has no bfloat16 kernel: such an op runs in float32 (exact: torch's CPU computes bfloat16
    # arithmetic in float32 and rounds once, as the cast back does)
    return (isinstance(input, _MsTensor) and isinstance(other, _MsTensor) and input.dtype == _BF16
            and other.dtype == _BF16 and input.shape != other.shape and _P.grad_enabled()
            and (_P.requires_grad(input) or _P.requires_grad(other)))


def _binary_f64(fn):
    def run(input, other, *args, **kwargs):
        if type(other) is float and isinstance(input, _MsTensor) and input.dtype == _F64:
            other = _as_f64(other)
        elif type(input) is float and isinstance(other, _MsTensor) and other.dtype == _F64:
            input = _as_f64(input)
        elif _broadcast_bf16_grad(input, other):
            r = fn(_ms.cast(input, _F32), _ms.cast(other, _F32), *args, **kwargs)
            return _ms.cast(r, _BF16) if r.dtype == _F32 else r
        return fn(input, other, *args, **kwargs)
    run.__name__ = fn.__name__
    run.__doc__ = f"mindspore.ops.{fn.__name__}, a Python float operand of a float64 tensor kept in float64."
    return run


for _name in ("add", "sub", "mul", "div", "pow", "maximum", "minimum", "fmod", "remainder", "floor_div",
              "atan2", "xlogy", "copysign", "hypot", "greater", "greater_equal", "less", "less_equal",
              "gt", "ge", "lt", "le", "equal", "eq", "ne", "not_equal", "isclose", "lerp", "true_divide"):
    if hasattr(_ms, _name):
        globals()[_name] = _binary_f64(getattr(_ms, _name))


def _bound(v, x):
    return _as_f64(v) if type(v) is float and x.dtype == _F64 else v


def clamp(input, min=None, max=None):    # noqa: A002 - MindSpore's names
    return _ms.clamp(input, _bound(min, input), _bound(max, input))


clip = clamp


def where(condition, input, other):
    if type(input) is float and isinstance(other, _MsTensor) and other.dtype == _F64:
        input = _as_f64(input)
    if type(other) is float and isinstance(input, _MsTensor) and input.dtype == _F64:
        other = _as_f64(other)
    if _bf16_needs_grad(input) or _bf16_needs_grad(other):   # (no bfloat16 Select in its backward)
        r = _ms.where(condition, _ms.cast(input, _F32) if isinstance(input, _MsTensor) else input,
                      _ms.cast(other, _F32) if isinstance(other, _MsTensor) else other)
        return _ms.cast(r, _BF16)
    return _ms.where(condition, input, other)


def _bf16_needs_grad(t):
    return isinstance(t, _MsTensor) and t.dtype is _BF16 and _P.grad_enabled() and _P.requires_grad(t)


# --- NaN dropped ----------------------------------------------------------------------------------
# MindSpore's CPU Maximum/Minimum compute ``a > b ? a : b``, so a NaN first operand is lost
# (maximum(nan, 0) is 0, maximum(0, nan) NaN); ReLU, clamp, HardTanh and Softplus lose NaN inputs
# likewise (Softplus(NaN) is +inf). torch propagates NaN through all of them. Where the first operand
# holds a NaN (a host look, zero-copy on CPU) the result takes it back.

_NAN_TYPES = (_mindspore.float16, _mindspore.float32, _mindspore.float64)


def _has_nan(t):
    # host_view: a zero-copy array over CPU memory (asnumpy() parses a format string per call). x . x (BLAS:
    # ~4x faster than a sum) is NaN exactly when an element is (its terms are >= 0: no inf - inf); a half
    # array's sum is NaN when an element is (inf - inf only sends the call down the exact where() path)
    if not (isinstance(t, _MsTensor) and t.dtype in _NAN_TYPES and t.size > 0):
        return False
    a = host_view(t, flat=True)
    return bool(_np.isnan(a.dot(a) if a.ndim == 1 and a.dtype != _np.float16 else a.sum()))


def _keep_nan(fn, masked=False):
    """``masked``: torch's backward passes the gradient only where the input is inside the bounds
    (clamp, hardtanh), which a NaN is not: its gradient is 0 (relu masks where the input is <= 0 instead)."""
    kernels_only = _keep_nan_kernels(fn, masked)
    if not _kernels.HOST_WORKAROUNDS:
        return kernels_only

    def run(x, *args, **kwargs):
        if _CAPTURE[0]:   # torch.compile is recording a graph: no branch on the values
            return kernels_only(x, *args, **kwargs)
        nan = _has_nan(x)   # (before the launch: a host read after it would wait for this op's own kernel)
        r = fn(x, *args, **kwargs)
        if nan:
            return _ms.where(_ms.isnan(x), _P.detach(x) if masked and _P.requires_grad(x) else x, r)
        return r
    run.__name__ = getattr(fn, "__name__", "op")
    run.__doc__ = f"mindspore.ops.{run.__name__}, with NaN in the first operand propagated as torch does."
    return run


def _keep_nan_kernels(fn, masked=False):
    # the device path: no host look; the NaNs are put back by one more kernel wherever x is floating
    def run(x, *args, **kwargs):
        r = fn(x, *args, **kwargs)
        if isinstance(x, _MsTensor) and x.dtype in _NAN_TYPES:
            return _ms.where(_ms.isnan(x), _P.detach(x) if masked and _P.requires_grad(x) else x, r)
        return r
    run.__name__ = getattr(fn, "__name__", "op")
    run.__doc__ = f"mindspore.ops.{run.__name__}, with NaN in the first operand propagated as torch does."
    return run


maximum = _keep_nan(_binary_f64(_ms.maximum))
minimum = _keep_nan(_binary_f64(_ms.minimum))
clamp = _keep_nan(clamp, masked=True)
clip = clamp
relu = _keep_nan(_ms.relu)
hardtanh = _keep_nan(_ms.hardtanh, masked=True)
_softplus_any = softplus
softplus = _keep_nan(_softplus_any)


class _KeepNanPrim:
    def __init__(self, prim):
        self._prim = prim

    def __call__(self, x, *args):
        return _keep_nan(self._prim)(x, *args)


def ReLU():    # noqa: N802 - MindSpore's name
    return _KeepNanPrim(_ms.ReLU())


# --- digamma in float64 ---------------------------------------------------------------------------
# MindSpore's CPU Digamma is float32-accurate for float64 (1e-6 relative off at 1e4). float64 follows
# the algorithm of torch's CPU kernel (Cephes): reflection for x < 0, the recurrence psi(x) = psi(x + 1)
# - 1 / x up to x >= 10, then the asymptotic series; poles give NaN, +-0 gives -+inf.

_PSI_SERIES = (8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,
               -4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,
               8.33333333333333333333E-2)


def _digamma_f64(x):
    f = lambda v: _MsTensor(v, _F64)    # noqa: E731
    neg = _ms.less(x, f(0.0))
    w = _ms.where(neg, _ms.sub(f(1.0), x), x)
    result = _ms.zeros_like(w)
    for _ in _b.range(10):              # w < 10 needs at most 10 steps for w > 0
        small = _ms.logical_and(_ms.less(w, f(10.0)), _ms.greater(w, f(0.0)))
        step = _ms.where(small, w, f(1.0))
        result = _ms.where(small, _ms.sub(result, _ms.div(f(1.0), step)), result)
        w = _ms.where(small, _ms.add(w, f(1.0)), w)
    z = _ms.div(f(1.0), _ms.mul(w, w))
    poly = f(_PSI_SERIES[0])
    for c in _PSI_SERIES[1:]:
        poly = _ms.add(_ms.mul(poly, z), f(c))
    y = _ms.where(_ms.less(w, f(1e17)), _ms.mul(z, poly), f(0.0))
    psi = _ms.sub(_ms.sub(_ms.add(result, _ms.log(w)), _ms.div(f(0.5), w)), y)
    # the reflection's cotangent only where it is used (elsewhere pi / tan(0) would make a NaN gradient),
    # as cos / sin: 1 / tan loses the second derivative to cancellation where tan is huge (x = -0.5)
    q = _ms.where(neg, _ms.sub(x, _ms.trunc(x)), f(0.5))
    pq = _ms.mul(f(3.141592653589793), q)
    reflected = _ms.sub(psi, _ms.div(_ms.mul(f(3.141592653589793), _ms.cos(pq)), _ms.sin(pq)))
    psi = _ms.where(neg, reflected, psi)
    psi = _ms.where(_ms.logical_and(neg, _ms.equal(q, f(0.0))), f(float("nan")), psi)
    if not _kernels.HOST_WORKAROUNDS:   # the device path: the zero's sign from CopySign (exact on devices)
        return _ms.where(_ms.equal(x, f(0.0)), _ms.neg(_ms.copysign(f(float("inf")), x)), psi)
    host = _read_host(x)
    if not (host == 0).any():
        return psi
    # psi(+-0) = -+inf; the sign of a zero read on the host (MindSpore's CopySign drops it)
    pole = _MsTensor(_np.where(_np.signbit(host), _np.inf, -_np.inf))
    return _ms.where(_ms.equal(x, f(0.0)), pole, psi)


def _empty_of(input, shape):
    return _linked(_ms.zeros(tuple(shape), input.dtype), input)


def digamma(input):
    if input.size == 0:   # the kernel refuses empty input ("the input must have value")
        return _empty_of(input, input.shape)
    if input.dtype == _F64:
        return _digamma_f64(input)
    return _ms.digamma(input)


# --- GatherD: MindSpore's backward fails when it is recorded ("The pointer[value] is null") ----------

def gather_elements(input, dim, index):
    """MindSpore's GatherD, with torch's backward in recorded ops for double backward (a scatter-add
    into zeros at the gathered positions)."""
    from ..autograd._higher_order import own_backward
    return own_backward(_ms.gather_elements(input, dim, index), _gather_backward, tuple(input.shape), dim, index)


def _gather_backward(node, grad_outputs, shape, dim, index):
    g = grad_outputs[0]
    if g is None:
        return (None,)
    return (tensor_scatter_elements(_ms.zeros(shape, g.dtype), index, g, dim, "add"),)


# --- TensorScatterElements(reduction="add"): a data race -------------------------------------------------

def flat_positions(shape, dim, index):
    """The flat (row-major) position in a tensor of ``shape`` that each element of ``index`` addresses
    along ``dim`` (torch's scatter/gather addressing: the other coordinates are the element's own)."""
    strides = [1] * len(shape)
    for k in _b.range(len(shape) - 2, -1, -1):
        strides[k] = strides[k + 1] * shape[k + 1]
    pos = _ms.mul(_ms.cast(index, _mindspore.int64), strides[dim])
    for k in _b.range(len(shape)):
        if k != dim and index.shape[k] > 1:
            along = [1] * len(shape)
            along[k] = index.shape[k]
            step = _ms.arange(index.shape[k], dtype=_mindspore.int64) * strides[k]
            pos = _ms.add(pos, step.reshape(along))
    return pos.reshape(-1)


def tensor_scatter_elements(input_x, indices, updates, axis=0, reduction="none"):
    """MindSpore's TensorScatterElements, its ``"add"`` through TensorScatterAdd on flat positions. The
    CPU kernel of the former splits the updates among threads that add with a plain ``+=``: repeated
    indices lose additions at random (measured: 27 of 200 runs of 100000 updates into 2 places came out
    short; the op_db scatter(reduce="add") test failed now and then). TensorScatterAdd's CPU kernel is
    race-free (0 wrong of 60 runs per dtype and shape, up to 100000 updates into 2 places)."""
    if reduction != "add":
        return _ms.tensor_scatter_elements(input_x, indices, updates, axis, reduction)
    shape = tuple(input_x.shape)
    if indices.size == 0:
        return _ms.add(input_x, _ms.zeros(shape, input_x.dtype))
    pos = flat_positions(shape, axis % len(shape), indices).reshape(-1, 1)
    flat, vals = input_x.reshape(-1), updates.reshape(-1)
    if input_x.dtype == _mindspore.bool_:     # (no bool TensorScatterAdd: a count, nonzero is True)
        counts = _ms.tensor_scatter_add(_ms.cast(flat, _mindspore.int32), pos, _ms.cast(vals, _mindspore.int32))
        return _ms.cast(counts, _mindspore.bool_).reshape(shape)
    from ..autograd._higher_order import own_backward
    out = own_backward(_ms.tensor_scatter_add(flat, pos, vals), tensor_scatter_add_backward, pos)
    return out.reshape(shape)


def tensor_scatter_add_backward(node, grad_outputs, indices):
    """Torch's gradients of a scatter-add in recorded ops, for double backward (MindSpore's TensorScatterAdd
    backward is not recorded completely): the gradient itself for the input, its rows at the indices
    (``indices`` of shape (n, 1)) for the updates."""
    g = grad_outputs[0]
    if g is None:
        return (None,)
    return (g, None, _ms.gather(g, indices.reshape(-1), 0))


# --- Pad with a negative amount: a stale kernel state ---------------------------------------------------

def crop_negative(x, padding):
    """``x`` narrowed by the negative amounts of a pad tuple (last dim first, as torch's), and the tuple with
    those amounts made 0."""
    for i in _b.range(len(padding) // 2):
        lo, hi = _b.min(padding[2 * i], 0), _b.min(padding[2 * i + 1], 0)
        if lo or hi:
            dim = x.ndim - 1 - i
            x = _ms.narrow(x, dim, -lo, x.shape[dim] + lo + hi)
    return x, tuple(_b.max(p, 0) for p in padding)


def pad(input_x, padding, mode="constant", value=None):
    """MindSpore's pad, negative amounts (constant mode) applied as a narrowing first. Its CPU kernel given
    a negative pad returns zeros, or parts of an earlier call's result, on every call after the first with
    the same shapes (measured: the composed float64 transposed convolution, which crops by a negative pad,
    gave three different results for three identical calls)."""
    if mode == "constant" and _b.any(p < 0 for p in padding):
        input_x, padding = crop_negative(input_x, padding)
        if not _b.any(padding):
            return _ms.add(input_x, _ms.zeros((), input_x.dtype)) if input_x.dtype != _mindspore.bool_ else \
                _ms.logical_or(input_x, _ms.zeros((), _mindspore.bool_))
    return _ms.pad(input_x, padding, mode, value)


# --- kernels that crash the process ------------------------------------------------------------------

_COMPLEX_OF = {_mindspore.float32: _mindspore.complex64, _mindspore.float64: _mindspore.complex128}


def lgamma(input):
    if input.size == 0:   # (its backward is Digamma, which refuses empty input)
        return _empty_of(input, input.shape)
    return _ms.lgamma(input)


def tile(input, dims):
    dims = tuple(dims)
    lead = (1,) * (len(dims) - input.ndim)
    shape = tuple(s * m for s, m in zip(lead + tuple(input.shape), (1,) * (input.ndim - len(dims)) + dims))
    if 0 in shape:   # the CPU Tile refuses an empty input or result ("fast stride can not be equal to 0")
        return _empty_product(input, input, shape)
    return _ms.tile(input, dims)


def _eig_empty(input):
    dt = _COMPLEX_OF.get(input.dtype, input.dtype)
    return _ms.zeros(tuple(input.shape[:-1]), dt), _ms.zeros(tuple(input.shape), dt)


def eig(input):
    if input.size == 0:     # the Eig kernel divides by the matrix size (SIGFPE)
        return _eig_empty(input)
    return _ms.eig(input)


def eigvals(input):
    if input.size == 0:
        return _eig_empty(input)[0]
    return _ms.eigvals(input)


_REAL_OF = {_mindspore.complex64: _mindspore.float32, _mindspore.complex128: _mindspore.float64}


def _empty_part(fn, real_result):
    def run(input):
        if input.size == 0 and input.dtype in _REAL_OF:
            return _linked(_ms.zeros(tuple(input.shape), _REAL_OF[input.dtype] if real_result else input.dtype),
                           input)
        return fn(input)
    run.__name__ = fn.__name__
    run.__doc__ = f"mindspore.ops.{fn.__name__}, with empty complex input answered without the kernel."
    return run


conj = _empty_part(_ms.conj, False)
real = _empty_part(_ms.real, True)
imag = _empty_part(_ms.imag, True)


# --- bfloat16 selections whose backward has no bfloat16 kernel --------------------------------------
# Slice, StridedSlice, Diagonal and Unstack run on bfloat16, but their CPU backward kernels (SliceGrad,
# StridedSliceGrad, FillV2, Stack) do not: backward raised a TypeError. Where a bfloat16 input needs
# gradients they select in float32 (exact: data movement only) and cast back.

def _bf16_grad_in_f32(fn):
    def run(input, *args, **kwargs):
        if input.dtype is _BF16 and _P.grad_enabled() and _P.requires_grad(input):
            r = fn(_ms.cast(input, _F32), *args, **kwargs)
            if isinstance(r, (tuple, list)):
                return type(r)(_ms.cast(x, _BF16) for x in r)
            return _ms.cast(r, _BF16)
        return fn(input, *args, **kwargs)
    run.__name__ = fn.__name__
    run.__doc__ = f"mindspore.ops.{fn.__name__}, differentiable on bfloat16 input (through float32)."
    return run


for _name in ("slice", "narrow", "strided_slice", "diagonal", "unstack", "unbind"):
    if hasattr(_ms, _name):
        globals()[_name] = _bf16_grad_in_f32(getattr(_ms, _name))
