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
"""
import builtins as _b

from mindspore import ops as _ms

globals().update({k: getattr(_ms, k) for k in dir(_ms) if not k.startswith("_")})

# after MindSpore's names (it has its own ``P``, ``range``, ``max``...), the ones this module uses
import numpy as _np            # noqa: E402
import mindspore as _mindspore  # noqa: E402
from .. import _ms_private as _P  # noqa: E402



_F_NAN = (_mindspore.float16, _mindspore.float32, _mindspore.float64, _mindspore.bfloat16, _mindspore.complex64, _mindspore.complex128)


def _linked(z, *inputs):
    """``z`` on the autograd graph of the (empty) ``inputs``: torch's result of an empty reduction or
    product is a function of them, so backward reaches them (with empty gradients) instead of failing
    with "does not require grad"."""
    if not _P.grad_enabled():
        return z
    empty = [t.reshape(-1) for t in inputs if t.size == 0 and _P.requires_grad(t)]
    if not empty:
        return z
    # a sum over [nothing..., 0]: exactly 0, and differentiable with respect to every empty input
    link = _ms.sum(_ms.cat(empty + [_ms.zeros(1, z.dtype if z.dtype in _F_NAN else _mindspore.float32)]))
    return _ms.add(z, _ms.cast(link, z.dtype))


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
        return _filled(input, _reduced_shape(input.shape, dim, keepdim), 0, dtype)
    return _ms.sum(input, dim, keepdim, dtype=dtype)


def mean(input, axis=None, keep_dims=False):
    if input.size == 0:
        value = float("nan") if input.dtype in _F_NAN else 0
        return _filled(input, _reduced_shape(input.shape, axis, keep_dims), value)
    return _ms.mean(input, axis, keep_dims)


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
    """A matrix product whose inner dimension is empty: zeros of the product's shape."""
    return _linked(_ms.zeros(shape, a.dtype), a, b)


def _product_shape(a_shape, b_shape, ta=False, tb=False):
    a = _np.empty(a_shape, _np.bool_)    # no elements: the shapes are all that is computed
    b = _np.empty(b_shape, _np.bool_)
    return _np.matmul(a.swapaxes(-1, -2) if ta else a, b.swapaxes(-1, -2) if tb else b).shape


def matmul(input, other):
    if input.size == 0 and other.size == 0:
        return _empty_product(input, other, _product_shape(input.shape, other.shape))
    return _ms.matmul(input, other)


def bmm(input, mat2):
    if input.size == 0 and mat2.size == 0:
        return _empty_product(input, mat2, _product_shape(input.shape, mat2.shape))
    return _ms.bmm(input, mat2)


def dense(input, weight, bias=None):
    if input.size == 0 and weight.size == 0:
        out = _empty_product(input, weight, _product_shape(input.shape, weight.shape, tb=True))
        return out if bias is None else _ms.add(out, bias)
    return _ms.dense(input, weight, bias)


class MatMul:
    """``ops.MatMul(transpose_a, transpose_b)``: the classic primitive, guarded for empty operands."""

    def __init__(self, transpose_a=False, transpose_b=False):
        self._prim = _ms.MatMul(transpose_a, transpose_b)
        self._t = (transpose_a, transpose_b)

    def __call__(self, a, b):
        if a.size == 0 and b.size == 0:
            return _empty_product(a, b, _product_shape(a.shape, b.shape, *self._t))
        return self._prim(a, b)


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
