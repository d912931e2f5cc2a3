"""torch.nn.functional.linear / bilinear."""
import math

import mindspore as ms
from . import _msops as ops

from . import _host
from . import _kernels as kernels
from ._helpers import dtype_of, wrap_dim
from .. import _ms_private as P
from ._registry import OPS, register
from .products import _mm, _scaled
from ._views import infer_size

F = "nn.linear"


@register("linear", family=F, namespace="nn.functional")
def linear(input, weight, bias=None):
    if input.ndim == 0 or weight.ndim == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are {input.ndim}D and "
                           f"{weight.ndim}D")
    if weight.ndim > 2:   # (torch transposes the weight first)
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {weight.ndim}D")
    # with a bias torch runs addmm (inputs of any rank flattened to 2-d), which compares the bias's dtype
    if input.dtype != weight.dtype or bias is not None and weight.ndim == 2 and bias.dtype != weight.dtype:
        if input.ndim >= 3 and weight.ndim == 2 and input.dtype != weight.dtype and (
                bias is None or not input.is_contiguous()):
            # torch takes addmm for a contiguous input only, else matmul(input, weight.t()): its checks (a batch
            # it cannot fold goes through bmm)
            OPS["matmul"].impl(input, weight.swapaxes(0, 1))
        _dtype_error(input, weight, bias)
    if weight.ndim == 1:   # torch: input @ weight (+ bias), a vector product over input's last dim
        # (a 2-D input, or a 1-D bias, takes torch's addmm route, which wants a matrix)
        if bias is not None and (input.ndim == 2 or bias.ndim == 1):
            raise RuntimeError("mat2 must be a matrix, got 1-D tensor")
        r = OPS["matmul"].impl(input, weight)
        if bias is None:
            return r
        full = infer_size(tuple(r.shape), tuple(bias.shape))   # (torch adds the bias in place)
        if full != tuple(r.shape):
            raise RuntimeError(f"output with shape {list(r.shape)} doesn't match the broadcast shape {list(full)}")
        return OPS["add"].impl(r, bias)
    if input.shape[-1] != weight.shape[-1]:
        rows = 1
        for s in input.shape[:-1]:
            rows *= s
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{input.shape[-1]} and "
                           f"{weight.shape[-1]}x{weight.shape[0]})")
    # torch's linear is addmm for a 2-d input, and for a contiguous one of more dims with a 1-d bias (the
    # leading dims folded into rows): addmm expands the bias first, before its kernel refuses bool; other
    # inputs take matmul, then add the bias to the product (its broadcast error names the product's dims)
    folded = input.ndim == 2 or bias is not None and bias.ndim == 1 and input.is_contiguous()
    if bias is not None and folded:
        _check_expand(bias, (math.prod(input.shape[:-1]), weight.shape[0]))
    if input.dtype == ms.bool_ and input.size and weight.size:   # (an empty product never reaches the kernel)
        raise NotImplementedError("\"addmm_impl_cpu_\" not implemented for 'Bool'")
    if bias is not None and not folded:
        infer_size(tuple(input.shape[:-1]) + (weight.shape[0],), tuple(bias.shape))
    if input.ndim == 2:
        return _linear2d(input, weight, bias)
    lead = input.shape[:-1]
    rows = 1
    for n in lead:
        rows *= n
    flat = input.reshape(rows, input.shape[-1])   # (not -1: ambiguous for an empty input)
    late = bias is not None and bias.ndim > 1   # (torch's matmul route adds it to the product, in place)
    out = _linear2d(flat, weight, None if late else bias, input.ndim < 3 or _gemm_route(input, bias))
    out = out.reshape(tuple(lead) + (weight.shape[0],))
    if late:
        full = infer_size(tuple(out.shape), tuple(bias.shape))
        if full != tuple(out.shape):
            raise RuntimeError(f"output with shape {list(out.shape)} doesn't match the broadcast shape {list(full)}")
        out = OPS["add"].impl(out, bias)
    return out


def _gemm_route(x, b):
    """Whether torch's linear of an input of 3+ dims ends in a 2-D gemm (addmm of a contiguous input, or
    matmul folding the leading dims into rows because that needs no copy) rather than in a batched
    product (its complex bmm does not scale by alpha)."""
    if b is not None and x.is_contiguous() and (x.ndim == 3 or b.ndim == 1):
        return True
    shape, strides = tuple(x.shape), tuple(x.stride())
    return x.size == 0 or all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(x.ndim - 2))


def _linear2d(x, w, b, gemm=True):
    if x.dtype in _COMPLEX and x.size and w.size:
        return _complex_linear(x, w, b, gemm)
    return kernels.ACTIVE["linear"](x, w, b)


def _complex_linear(x, w, b, gemm=True):
    """x w^T (+ b) for complex tensors as torch's BLAS computes it: the plain complex products (MindSpore's
    complex MatMul recovers infinities from NaN as C99's complex product does, torch's gemm does not), the
    product of a 2-D gemm (``gemm``; not a batched one) scaled by alpha = 1 + 0j and the bias by beta (or
    add_'s alpha) = 1 + 0j, so that an infinite part makes the other NaN."""
    xr, xi, wr, wi = ops.real(x), ops.imag(x), ops.real(w), ops.imag(w)
    re = ops.sub(_MATMUL_T(xr, wr), _MATMUL_T(xi, wi))
    im = ops.add(_MATMUL_T(xr, wi), _MATMUL_T(xi, wr))
    if not bool(ops.logical_and(ops.isfinite(re), ops.isfinite(im)).all()):
        # an overflow: torch sums whole complex terms (x_k w_k), so +inf in one and -inf in another part's
        # term is NaN where the separate real products of the parts may overflow to one infinity
        xr, xi, wr, wi = xr.expand_dims(1), xi.expand_dims(1), wr.expand_dims(0), wi.expand_dims(0)
        re = ops.sum(ops.sub(ops.mul(xr, wr), ops.mul(xi, wi)), 2)
        im = ops.sum(ops.add(ops.mul(xr, wi), ops.mul(xi, wr)), 2)
    out = ops.complex_of_parts(re, im)
    if gemm:
        out = _scaled(out, 1, always=True)
    return out if b is None else ops.add(out, _scaled(b, 1, always=True))


def _check_expand(bias, target):
    """torch's addmm expands the bias to the product's shape: its error where that cannot be done."""
    if bias.ndim > len(target):
        raise RuntimeError(f"expand(torch.FloatTensor{{{list(bias.shape)}}}, size={list(target)}): the number of sizes "
                           f"provided ({len(target)}) must be greater or equal to the number of dimensions in the "
                           f"tensor ({bias.ndim})")
    lead = len(target) - bias.ndim
    for i, size in enumerate(bias.shape):
        if size != 1 and size != target[lead + i]:
            raise RuntimeError(f"The expanded size of the tensor ({target[lead + i]}) must match the existing size "
                               f"({size}) at non-singleton dimension {lead + i}.  Target sizes: {list(target)}.  "
                               f"Tensor sizes: {list(bias.shape)}")


# classic primitives: their backward records completely (double backward is right)
def _linear_dense(x, w, b):
    """MindSpore's Dense kernel (2-D input with bias)."""
    return _MATMUL_T(x, w) if b is None else ops.dense(x, w, b)


def _linear_matmul(x, w, b):
    """MatMul with the weight transposed, then a broadcasting Add (not BiasAdd: its backward does not
    record for double backward)."""
    return _MATMUL_T(x, w) if b is None else ops.add(_MATMUL_T(x, w), b)


def _linear_host(x, w, b):
    """numpy's BLAS on the tensors' host memory (``_host``), bias added in place; a node of ours
    computes the three gradients the same way. float32/float64 only, else the MatMul candidate."""
    if not _host.usable(x, w, b):
        return _linear_matmul(x, w, b)
    if P.grad_enabled() and (P.requires_grad(x) or P.requires_grad(w) or b is not None and P.requires_grad(b)):
        node = _HostAddmm if b is not None else _HostMm
        # inputs in the order torch's engine accumulates their gradients (bias, weight, then the input's
        # graph), which MindSpore's engine follows: DDP builds its buckets from that arrival order
        out = node.apply(b, w, x) if b is not None else node.apply(w, x)
        P.set_function_of_output(out, node)   # grad_fn keeps its name after backward frees the node
        return out
    return _host_forward(x, w, b)


def _host_forward(x, w, b):
    with _host.kernel("MatMul"):
        y = _host.array(x) @ _host.array(w).T
        if b is not None:
            y += _host.array(b)
    return _host.tensor(y, x.dtype)


def _host_backward(node, g, bias):
    """(grad x, grad w[, grad b]) of ``y = x w^T (+ b)``; ``needs_input_grad`` is in the node's input order
    ((b,) w, x)."""
    x, w = node.saved_tensors
    need_b, need_w, need_x = node.needs_input_grad if bias else (False, *node.needs_input_grad)
    if P.grad_enabled():
        # create_graph: the gradients are built from recorded MindSpore ops, so they differentiate again
        grads = (_MATMUL(g, w) if need_x else None, _MATMUL_TA(g, x) if need_w else None,
                 ops.sum(g, 0) if need_b else None)
    else:
        gh = _host.array(g)
        dt = g.dtype
        with _host.kernel("MatMulGrad"):
            grads = (_host.tensor(gh @ _host.array(w), dt) if need_x else None,
                     _host.tensor(gh.T @ _host.array(x), dt) if need_w else None,
                     _host.tensor(gh.sum(0), dt) if need_b else None)
    return grads if bias else grads[:2]


class _HostAddmm(P.FunctionBase):
    """grad_fn named as torch's node for a 2-D linear with bias."""

    @staticmethod
    def forward(node, b, w, x):
        node.save_for_backward(x, w)
        return _host_forward(x, w, b)

    @staticmethod
    def backward(node, g):
        gx, gw, gb = _host_backward(node, g, True)
        return gb, gw, gx


class _HostMm(P.FunctionBase):
    @staticmethod
    def forward(node, w, x):
        node.save_for_backward(x, w)
        return _host_forward(x, w, None)

    @staticmethod
    def backward(node, g):
        gx, gw = _host_backward(node, g, False)
        return gw, gx


_HostAddmm.__name__ = "AddmmBackward0"
_HostMm.__name__ = "MmBackward0"

kernels.candidates("linear", dense=_linear_dense, matmul=_linear_matmul, host_blas=_linear_host)
_MATMUL_T = ops.MatMul(transpose_b=True)
_COMPLEX = (ms.complex64, ms.complex128)
_MATMUL_TA = ops.MatMul(transpose_a=True)
_MATMUL = ops.MatMul()


def _dtype_error(input, weight, bias):
    # the message of the torch kernel that meets the mismatch: addmm with a bias, else matmul
    if bias is not None and weight.ndim == 2:
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
    for x in (input1, input2):
        if x.shape[-1] == 0:   # (torch flattens each input with reshape(-1, size(-1)): ambiguous there)
            raise RuntimeError("cannot reshape tensor of 0 elements into shape [-1, 0] because the unspecified "
                               "dimension size -1 can be any value and is ambiguous")
    lead = input1.shape[:-1]
    x1 = input1.reshape(-1, input1.shape[-1])
    x2 = input2.reshape(-1, input2.shape[-1])
    o, i, j = weight.shape
    # (explicit row counts: a reshape(-1, 0, j) of no out_features is ambiguous)
    t = _mm(x1, weight.transpose(1, 0, 2).reshape(i, o * j)).reshape(x1.shape[0], o, j)
    out = ops.sum(ops.mul(t, x2.reshape(-1, 1, j)), 2)
    if out.dtype != t.dtype:   # MindSpore's sum widens int32 to int64; torch keeps the input's dtype
        out = out.astype(t.dtype)
    if bias is not None:
        out = ops.add(out, bias)
    return out.reshape(tuple(lead) + (o,))
