"""Matrix products: matmul, mm, bmm, mv, dot, outer, addmm, einsum..."""
import mindspore as ms
from mindspore import ops

from .. import _dtype as D
from ._helpers import promote, dtype_of, _scalar_name
from ._registry import register

F = "linalg"


def _check_same(a, b, name):
    if a.dtype != b.dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {_scalar_name(a).lower()} != "
            f"{_scalar_name(b).lower()}" if name != "dot" else
            f"dot : expected both vectors to have same dtype, but found {_scalar_name(a)} and {_scalar_name(b)}")


@register("matmul", family=F, out=True)
def matmul(input, other):
    if input.ndim == 0 or other.ndim == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {input.ndim}D and {other.ndim}D")
    _check_same(input, other, "matmul")
    k1 = input.shape[-1]
    k2 = other.shape[-2] if other.ndim > 1 else other.shape[0]
    if k1 != k2:
        if input.ndim <= 2 and other.ndim <= 2:
            a = input.shape if input.ndim == 2 else (1, input.shape[0])
            b = other.shape if other.ndim == 2 else (other.shape[0], 1)
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied ({a[0]}x{a[1]} and {b[0]}x{b[1]})")
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{input.shape[0]}, {k1}] but "
            f"got: [{other.shape[0]}, {k2}].")
    return ops.matmul(input, other)


@register("mm", family=F, out=True)
def mm(input, mat2):
    if input.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    return matmul(input, mat2)


@register("bmm", family=F, out=True)
def bmm(input, mat2):
    if input.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if input.shape[0] != mat2.shape[0] or input.shape[2] != mat2.shape[1]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{input.shape[0]}, "
            f"{input.shape[2]}] but got: [{mat2.shape[0]}, {mat2.shape[1]}].")
    _check_same(input, mat2, "bmm")
    return ops.bmm(input, mat2)
