"""torch.nn.functional.linear / bilinear."""
from . import _msops as ops

from . import _kernels as kernels
from ._helpers import dtype_of, wrap_dim
from ._registry import register
from .products import _mm

F = "nn.linear"


@register("linear", family=F, namespace="nn.functional")
def linear(input, weight, bias=None):
    if input.dtype != weight.dtype or bias is not None and input.ndim == 2 and bias.dtype != weight.dtype:
        _dtype_error(input, weight, bias)
    if input.shape[-1] != weight.shape[-1]:
        rows = 1
        for s in input.shape[:-1]:
            rows *= s
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{input.shape[-1]} and "
                           f"{weight.shape[-1]}x{weight.shape[0]})")
    if input.ndim == 2:
        return _MATMUL_T(input, weight) if bias is None else kernels.ACTIVE["linear"](input, weight, bias)
    lead = input.shape[:-1]
    flat = input.reshape(-1, input.shape[-1])
    out = _MATMUL_T(flat, weight) if bias is None else kernels.ACTIVE["linear"](flat, weight, bias)
    return out.reshape(tuple(lead) + (weight.shape[0],))


# classic primitives: their backward records completely (double backward is right)
def _linear_dense(x, w, b):
    """MindSpore's Dense kernel (2-D input with bias)."""
    return ops.dense(x, w, b)


def _linear_matmul(x, w, b):
    """MatMul with the weight transposed, then a broadcasting Add (not BiasAdd: its backward does not
    record for double backward)."""
    return ops.add(_MATMUL_T(x, w), b)


kernels.candidates("linear", dense=_linear_dense, matmul=_linear_matmul)
_MATMUL_T = ops.MatMul(transpose_b=True)


def _dtype_error(input, weight, bias):
    # the message of the torch kernel that meets the mismatch: addmm for 2-D input with bias, else matmul
    if bias is not None and input.ndim == 2:
        if bias.dtype != weight.dtype:
            raise RuntimeError(f"self and mat2 must have the same dtype, but got {_n(bias)} and {_n(weight)}")
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_n(input)} and {_n(weight)}")
    from .arithmetic import _c_name
    raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_c_name(dtype_of(input))} != "
                       f"{_c_name(dtype_of(weight))}")


def _n(t):
    from .._tensor import scalar_type_name
    return scalar_type_name(dtype_of(t))


def _bilinear_check(input1, input2, weight, bias):
    """torch's bilinear argument checks, in their order (a weight of too few dims fails reading its size)."""
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and {input2.ndim}")
    for i in range(input1.ndim - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: got {input1.shape[i]} "
                               f"and {input2.shape[i]}")
    for k, x, name in ((1, input1, "input1"), (2, input2, "input2")):
        wrap_dim(k, weight.ndim)
        if x.shape[-1] != weight.shape[k]:
            raise RuntimeError(f"bilinear(): {name} size does not match weight size: got {x.shape[-1]} but expected "
                               f"{weight.shape[k]}")
    if bias is not None and bias.shape[wrap_dim(0, bias.ndim)] != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias.shape[0]} but expected "
                           f"{weight.shape[0]}")
    if weight.ndim != 3:
        raise RuntimeError("number of dimensions must match")


@register("bilinear", family=F, namespace=("torch", "nn.functional"))
def bilinear(input1, input2, weight, bias=None):
    # out[..., o] = sum_ij x1[..., i] W[o, i, j] x2[..., j] + b[o]
    _bilinear_check(input1, input2, weight, bias)
    lead = input1.shape[:-1]
    x1 = input1.reshape(-1, input1.shape[-1])
    x2 = input2.reshape(-1, input2.shape[-1])
    o, i, j = weight.shape
    t = _mm(x1, weight.transpose(1, 0, 2).reshape(i, o * j)).reshape(-1, o, j)
    out = ops.sum(ops.mul(t, x2.reshape(-1, 1, j)), 2)
    if out.dtype != t.dtype:   # MindSpore's sum widens int32 to int64; torch keeps the input's dtype
        out = out.astype(t.dtype)
    if bias is not None:
        out = ops.add(out, bias)
    return out.reshape(tuple(lead) + (o,))
