"""torch.nn.functional normalization: batch_norm, instance_norm, layer_norm, group_norm, rms_norm,
local_response_norm.

CPU kernels: ``mint.batch_norm`` / ``mint.layer_norm`` have none in MindSpore 2.10; the classic
``BatchNorm`` and ``LayerNorm`` primitives do, and are ~10x faster than a composition here, so float32
(and float16/bfloat16, computed in float32 as torch's CPU kernels do) go through them. The BatchNorm
*primitive* takes torch's momentum (new = (1 - m) * running + m * batch) and updates the running stats
in place with the unbiased batch variance, as torch; only the ``mindspore.nn.BatchNorm*d`` Cells use
momentum = 1 - torch's. float64 and arguments the primitives reject (eps outside (0, 1], momentum
outside [0, 1]) are composed from reductions.
"""
import math

import mindspore as ms
from . import _msops as ops
from mindspore.ops import operations as P

from .. import _dtype as D
from .. import _ms_private as _P
from .._tensor import wrap, scalar_type_name
from .._cast import cast
from ._helpers import graph_inputs, _node
from ._registry import register
from ._helpers import dtype_of, promote, scalar_tensor, wrap_dim, wrap_size_dim
from ..autograd._higher_order import record_own_backward, recompute_as, Recompute

F = "nn.norm"
_F32 = ms.float32
_LOW = (ms.float16, ms.bfloat16)
_FUSED = (ms.float32, ms.float16, ms.bfloat16)
_BN_PRIMS = {}
_LN_PRIMS = {}


_CONSTS = {}


def _const(shape, value):
    """Cached float32 ones/zeros standing in for an absent weight/bias (never written to)."""
    key = (tuple(shape), value)
    t = _CONSTS.get(key)
    if t is None:
        if len(_CONSTS) > 256:
            _CONSTS.clear()
        t = _CONSTS[key] = ops.fill(_F32, tuple(shape), value)
    return t


def _bn_prim(training, eps, momentum):
    key = (training, eps, momentum)
    prim = _BN_PRIMS.get(key)
    if prim is None:
        if len(_BN_PRIMS) > 256:      # momentum=None modules use a new factor every step
            _BN_PRIMS.clear()
        prim = _BN_PRIMS[key] = P.BatchNorm(is_training=training, epsilon=eps, momentum=momentum)
    return prim


def _ln_prim(axis, eps):
    key = (axis, eps)
    prim = _LN_PRIMS.get(key)
    if prim is None:
        prim = _LN_PRIMS[key] = P.LayerNorm(axis, axis, eps)
    return prim


def _not_float(x, kernel):
    if not D._FROM_MS[x.dtype].is_floating_point:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{scalar_type_name(D._FROM_MS[x.dtype])}\'')


def _f32(t):
    return t if t.dtype == _F32 else cast(t, _F32)


def _plus_eps(t, eps):
    """``t + eps`` in ``t``'s dtype: MindSpore rounds a Python float operand to float32 first, which moves a
    float64 result by ~1e-13 (1e-5 becomes 9.99999974e-06)."""
    return ops.add(t, scalar_tensor(eps, dtype_of(t)))


def _ms(t):
    return None if t is None else t._ms


def _size_str(shape):
    return f"torch.Size({list(shape)})"


# --- batch norm ------------------------------------------------------------------------------------

def _check_channels(name, t, c):
    if t is not None and t.size != c:
        raise RuntimeError(f"{name} should contain {c} elements not {t.size}")


def _batch_norm(x, weight, bias, rmean, rvar, training, momentum, eps, instance=False):
    """ATen's batch_norm on mstorch Tensors (running stats updated in place); returns mindspore.Tensor.
    ``instance``: instance_norm's call, whose running statistics torch takes in other dtypes."""
    xm = x._ms
    if xm.size == 0 and not D._FROM_MS[xm.dtype].is_floating_point:
        return _bn_empty(xm, weight, bias)
    c = xm.shape[1] if xm.ndim > 1 else 0
    w, b, rm, rv = _ms(weight), _ms(bias), _ms(rmean), _ms(rvar)
    _check_channels("running_mean", rm, c)
    _check_channels("running_var", rv, c)
    _check_channels("weight", w, c)
    _check_channels("bias", b, c)
    if not instance:
        refuse_strided_mean(xm, (w, b, rm, rv), training)
    if xm.ndim < 2 and (training or D._FROM_MS[xm.dtype].is_floating_point):
        # torch's kernel then asks for the input's size(1): before its dtype check when training
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)" if xm.ndim else
                         "Dimension specified as 1 but tensor has no dimensions")
    _not_float(xm, "batch_norm")   # (after the size checks, as torch's kernel dispatch)
    if not training and (rm is None or rv is None):
        raise RuntimeError("running_mean must be defined in evaluation mode")
    if not instance:
        _check_param_dtypes(xm, (w, b, rm, rv), xm.size > 0)
    else:   # (instance_norm: parameters of the input's dtype, or float32 ones beside a half input)
        first = next((t for t in (w, b, rm, rv) if t is not None), None)
        if first is not None and first.dtype != xm.dtype and D._FROM_MS[xm.dtype].is_floating_point:
            if xm.dtype not in (ms.float16, ms.bfloat16):
                raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
            if any(t is not None and t.dtype != ms.float32 for t in (w, b, rm, rv)):
                raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    update = training and rm is not None
    if c == 0 and xm.size == 0:   # no channels, no statistics (MindSpore's kernels fault on them)
        return ops._linked(ops.zeros(tuple(xm.shape), xm.dtype), xm)
    if xm.dtype in _FUSED and 0 < eps <= 1 and 0 <= momentum <= 1 and xm.ndim >= 2:
        return _bn_fused(xm, w, b, rmean, rvar, training, momentum, eps, update, c)
    return _bn_composed(xm, w, b, rmean, rvar, training, momentum, eps, update)


def refuse_strided_mean(x, params, training):
    """torch's CPU training kernel takes the batch mean of a strided input (neither contiguous nor channels-last)
    with mean() unless the parameters are "mixed" (the first given, of ``params`` as mindspore Tensors, of
    another dtype): that refuses an integer or bool input before the kernel's dtype dispatch."""
    first = next((t for t in params if t is not None), None)
    if not training or x.size == 0 or (first is not None and first.dtype != x.dtype):
        return
    d = D._FROM_MS[x.dtype]
    if d.is_floating_point or d.is_complex or x.is_contiguous():
        return
    if x.ndim in (4, 5):   # (channels-last layouts count as contiguous there)
        order = (0, 2, 3, 1) if x.ndim == 4 else (0, 2, 3, 4, 1)
        if x.transpose(order).is_contiguous():
            return
    raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating point or "
                       f"complex dtype. Got: {scalar_type_name(d)}")


def check_param_dtypes(x, params, kernel=True):
    """torch's CPU batch norm dtypes (on mindspore Tensors): the first parameter given decides. Of another
    dtype than the input ("mixed"), every parameter must be float32 and the input float16/bfloat16; of the
    input's dtype, every other one must be too (the kernel reads them as the input's scalar type: not for an
    empty input, ``kernel=False``)."""
    first = next((t for t in params if t is not None), None)
    if first is None or not D._FROM_MS[x.dtype].is_floating_point:
        return
    if first.dtype != x.dtype:
        if any(t is not None and t.dtype != ms.float32 for t in params):
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
        if x.dtype not in (ms.float16, ms.bfloat16):
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
        return
    other = next((t for t in params if t is not None and t.dtype != x.dtype), None) if kernel else None
    if other is not None:
        raise RuntimeError(f"expected scalar type {scalar_type_name(D._FROM_MS[x.dtype])} but found "
                           f"{scalar_type_name(D._FROM_MS[other.dtype])}")


_check_param_dtypes = check_param_dtypes


def _first_elements(*params):
    # torch's batch norm of an empty input reads weight[0] and bias[0], whatever the dtype or mode
    for t in params:
        if t is not None and t._ms.size == 0:
            raise IndexError("select(): index 0 out of range for tensor of size [0] at dimension 0")


def _bn_empty(xm, weight, bias):
    """torch's batch norm of an empty integer or bool input, before any check or kernel (float ones take the
    kernel path, which native_batch_norm's statistics need): input.clone() * weight[0] + bias[0], promoted
    by those 0-d elements."""
    _first_elements(weight, bias)
    out = xm.copy()
    for t, op in ((weight, ops.mul), (bias, ops.add)):
        if t is not None:
            a, b, _ = promote(out, t._ms.reshape(-1)[0])
            out = op(a, b) if out.dtype != ms.bool_ or b.dtype != ms.bool_ else \
                (ops.logical_and(a, b) if op is ops.mul else ops.logical_or(a, b))
    return out


def _direct(buf):
    """The buffer's own memory when the kernel may update it in place."""
    t = buf._ms
    return t if buf._view is None and t.dtype == _F32 and t.is_contiguous() else None


def _bn_fused(xm, w, b, rmean, rvar, training, momentum, eps, update, c):
    dt = xm.dtype
    shape = xm.shape
    x4 = xm if xm.ndim <= 4 else xm.reshape(shape[0], c, -1, 1)
    if dt != _F32:
        x4 = cast(x4, _F32)
    w_in, b_in = w, b
    w = _const((c,), 1.0) if w is None else _f32(w)
    b = _const((c,), 0.0) if b is None else _f32(b)
    if rmean is None:   # batch statistics only: the kernel updates these scratch stats, then they are dropped
        rm, rv = ops.zeros(c, _F32), ops.ones(c, _F32)
    elif update:
        rm, rv = _direct(rmean), _direct(rvar)
        rm = _f32(rmean._ms).copy() if rm is None else rm
        rv = _f32(rvar._ms).copy() if rv is None else rv
    else:
        rm, rv = _f32(rmean._ms), _f32(rvar._ms)
    if training and dt in _LOW and _P.grad_enabled() and any(
            t is not None and _P.requires_grad(t) for t in (xm, w_in, b_in)) and all(
            t is None or t.dtype == dt for t in (w_in, b_in)):
        # (float32 parameters: torch keeps float32 statistics, the fused kernel's gradient below)
        out = _half_bn_node(float(eps), float(momentum), update)(xm, w if w_in is None else w_in,
                                                          b if b_in is None else b_in, rm, rv)
        _write_running(update, rmean, rvar, rm, rv)
        return out
    stats = None if training or not _P.requires_grad(x4) and not _P.requires_grad(w) and not _P.requires_grad(b) \
        else (rm.copy(), rv.copy())     # evaluation: the running stats as they are now
    xr, wr, br = x4, w, b
    x4, w, b = graph_inputs(x4, w, b)
    out = _bn_prim(training, float(eps), float(momentum))(x4, w, b, rm, rv)[0]
    # MindSpore's BatchNormGrad has no backward: double backward differentiates the composition
    recompute_as(out, _bn_recompute, xr, wr, br, stats, float(eps))
    _write_running(update, rmean, rvar, rm, rv)
    if dt != _F32:
        out = cast(out, dt)
    return out.reshape(shape) if out.shape != shape else out


def _write_running(update, rmean, rvar, rm, rv):
    """The running statistics the kernel updated, written back where they were float32 copies."""
    if update:
        if rm is not rmean._ms:
            rmean._write(rm)
        if rv is not rvar._ms:
            rvar._write(rv)


def _half_bn_node(eps, momentum, update):
    """Training-mode float16/bfloat16 batch norm (parameters of the input's dtype) with torch's backward: the
    float32 formula of its CPU kernel on the batch mean and 1 / std it saves, which are rounded to the input's
    dtype (float32 statistics move gradients that cancel by a half-precision ulp), and its forward on them too
    (the fused kernel runs only to update the running statistics ``rm`` / ``rv`` in place, with ``update``);
    the backward is in recorded ops."""
    node = _HALF_BN_NODES.get((eps, momentum, update))
    if node is None:
        if len(_HALF_BN_NODES) > 256:      # (momentum=None modules use a new factor every step)
            _HALF_BN_NODES.clear()

        def stats(x32, dt):
            # the batch mean and 1 / sqrt(biased variance + eps) in float32, rounded to dt (torch's saved ones)
            axes = (0,) + tuple(range(2, x32.ndim))
            mean = ops.mean(x32, axes, keep_dims=True)
            cen = ops.sub(x32, mean)
            invstd = ops.rsqrt(_plus_eps(ops.mean(ops.mul(cen, cen), axes, keep_dims=True), eps))
            return _f32(cast(mean, dt)), _f32(cast(invstd, dt)), axes, (1, -1) + (1,) * (x32.ndim - 2)

        def fwd(x, w, b, rm, rv):
            shape, c = x.shape, x.shape[1]
            if update:   # (the kernel for the running statistics' update, in place)
                x4 = _f32(x if x.ndim <= 4 else x.reshape(shape[0], c, -1, 1))
                _bn_prim(True, eps, momentum)(x4, _f32(w), _f32(b), rm, rv)
            # torch's kernel: y = x alpha + beta, alpha = invstd w, beta = b - mean alpha (float32, rounded stats)
            x32 = _f32(x)
            mean, invstd, _, pshape = stats(x32, x.dtype)
            alpha = ops.mul(invstd, _f32(w).reshape(pshape))
            beta = ops.sub(_f32(b).reshape(pshape), ops.mul(mean, alpha))
            return cast(ops.add(ops.mul(x32, alpha), beta), x.dtype), (x, w, b)

        def bwd(saved, g):
            # (the statistics computed here again from x: under create_graph their dependence on x is recorded)
            x, w, b = saved
            x32, g32 = _f32(x), _f32(g)
            n = x.size // x.shape[1]
            mean, invstd, axes, shape = stats(x32, x.dtype)
            cen = ops.sub(x32, mean)
            total = ops.sum(g32, axes, keepdim=True)
            dotp = ops.sum(ops.mul(cen, g32), axes, keepdim=True)
            # torch's kernel: dX = (dY - (X - mean) k - sum / N) invstd w, k = dotp invstd^2 / N
            k = ops.mul(ops.mul(ops.mul(dotp, invstd), invstd), 1.0 / n)
            gx = ops.sub(ops.sub(g32, ops.mul(cen, k)), ops.mul(total, 1.0 / n))
            gx = ops.mul(ops.mul(gx, invstd), _f32(w).reshape(shape))
            gw = ops.mul(dotp, invstd).reshape(-1)
            return cast(gx, x.dtype), cast(gw, w.dtype), cast(total.reshape(-1), b.dtype), None, None
        node = _HALF_BN_NODES[(eps, momentum, update)] = _node("NativeBatchNormBackward0", fwd, bwd)
    return node


_HALF_BN_NODES = {}


def _bn_recompute(x, w, b, stats, eps):
    shape = (1, -1) + (1,) * (x.ndim - 2)
    if stats is None:       # training: batch statistics (biased variance)
        axes = (0,) + tuple(range(2, x.ndim))
        cen = x - ops.mean(x, axes, keep_dims=True)
        out = cen * ops.rsqrt(ops.mean(cen * cen, axes, keep_dims=True) + eps)
    else:
        out = (x - stats[0].reshape(shape)) * ops.rsqrt(stats[1].reshape(shape) + eps)
    return out * w.reshape(shape) + b.reshape(shape)


def _bn_composed(xm, w, b, rmean, rvar, training, momentum, eps, update):
    shape = (1, -1) + (1,) * (xm.ndim - 2)
    if training:
        axes = (0,) + tuple(range(2, xm.ndim))
        mean = ops.mean(xm, axes, keep_dims=True)
        cen = ops.sub(xm, mean)
        var = ops.mean(ops.mul(cen, cen), axes, keep_dims=True)
        out = ops.mul(cen, ops.rsqrt(_plus_eps(var, eps)))
        if update:
            n = xm.size // xm.shape[1]
            m = _P.detach(mean).reshape(-1)
            v = _times(_P.detach(var).reshape(-1), n / (n - 1) if n > 1 else float("nan"))
            rmean._write(_moved(rmean._ms, m, momentum))
            rvar._write(_moved(rvar._ms, v, momentum))
    else:
        mean = cast(rmean._ms, xm.dtype).reshape(shape)
        out = ops.mul(ops.sub(xm, mean), ops.rsqrt(_plus_eps(cast(rvar._ms, xm.dtype).reshape(shape), eps)))
    if w is not None:
        out = ops.mul(out, w.reshape(shape))
    if b is not None:
        out = ops.add(out, b.reshape(shape))
    return out


def _times(t, f):
    """``t * f`` in ``t``'s dtype (a Python float operand would be rounded to float32 first)."""
    return ops.mul(t, scalar_tensor(f, dtype_of(t)))


def _moved(running, batch, momentum):
    """torch's running-statistic update ``(1 - momentum) * running + momentum * batch``, in ``running``'s dtype."""
    return cast(_times(running, 1 - momentum) + _times(cast(batch, running.dtype), momentum), running.dtype)


def _verify_batch_size(size):
    prod = size[0]
    for s in size[2:]:
        prod *= s
    if prod == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")


@register("batch_norm", family=F, namespace="nn.functional", raw=True)
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
               eps=1e-5):
    if training:
        _verify_batch_size(input.shape)
        if eps <= 0.0:
            raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    elif eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    if momentum is None:
        raise TypeError("batch_norm(): argument 'momentum' (position 7) must be float, not NoneType")
    if input._ms.size == 0:
        _first_elements(weight, bias)
    if input._ms.size == 0 and not input.is_floating_point():
        # (torch's batch_norm answers an empty input before any other check, integer dtypes included)
        return wrap(_bn_empty(input._ms, weight, bias))
    if not training:   # (torch.batch_norm's own check, before the sizes and the kernel's)
        for name, t in (("running_mean", running_mean), ("running_var", running_var)):
            if t is None:
                raise RuntimeError(f"{name} must be defined in evaluation mode")
    return wrap(_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps))


# --- instance norm: batch norm over (1, N*C, *) as torch computes it --------------------------------

@register("instance_norm", family=F, namespace="nn.functional", raw=True)
def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    shape = tuple(input._ms.shape)
    if use_input_stats:
        prod = 1
        for s in shape[2:]:
            prod *= s
        if prod == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                             f"{_size_str(shape)}")
    elif running_mean is None or running_var is None:
        raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
    n, c = shape[0], shape[1]
    for t in (weight, bias, running_mean, running_var):   # (torch repeats each N times first)
        if t is not None and t._ms.ndim > 1:
            raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions "
                               "of tensor")
    if input._ms.size == 0:   # (MindSpore's batch norm faults on no channels): empty, on the input's graph
        if n == 0:   # torch repeats weight and bias N times: none left for its empty-input weight[0]
            _first_elements(*(t if t is None else wrap(t._ms[:0]) for t in (weight, bias)))
        _first_elements(weight, bias)
        return wrap(ops._linked(ops.zeros(shape, input._ms.dtype), input._ms))

    def rep(t):
        return None if t is None else wrap(ops.tile(t._ms, (n,)))
    rm, rv = rep(running_mean), rep(running_var)
    x = wrap(input._ms.reshape(1, n * c, -1))
    out = _batch_norm(x, rep(weight), rep(bias), rm, rv, use_input_stats, momentum, eps, instance=True)
    if use_input_stats and running_mean is not None:
        running_mean._write(ops.mean(rm._ms.reshape(n, c), 0))
        running_var._write(ops.mean(rv._ms.reshape(n, c), 0))
    return wrap(out.reshape(shape))


# --- layer norm / rms norm -----------------------------------------------------------------------

def _check_normalized(input, normalized_shape, weight, bias, star="*, "):
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    ns = tuple(int(s) for s in normalized_shape)
    if not ns:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least "
                           f"one element, but got normalized_shape = {list(ns)}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != ns:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                               f"{list(t.shape)} and normalized_shape = {list(ns)}")
    shape = tuple(input.shape)
    if star == "*" and len(shape) < len(ns):   # (rms_norm's own rank check)
        raise ValueError(f"Input tensor must have at least {len(ns)} dimensions, but got {len(shape)}")
    if len(shape) < len(ns) or shape[len(shape) - len(ns):] != ns:
        inner = ", ".join(str(s) for s in ns)
        raise RuntimeError(f"Given normalized_shape={list(ns)}, expected input with shape [{star}{inner}], but "
                           f"got input of size{list(shape)}")
    return ns


@register("layer_norm", family=F, namespace=("torch", "nn.functional"))
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    if isinstance(normalized_shape, int):
        raise TypeError("layer_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not int")
    ns = _check_normalized(input, normalized_shape, weight, bias)
    _not_float(input, "LayerNormKernelImpl")
    axis = input.ndim - len(ns)
    dt = input.dtype
    if dt in _LOW and 0 < eps and input.size and _P.grad_enabled() and all(
            t is None or t.dtype == dt for t in (weight, bias)) and any(
            t is not None and _P.requires_grad(t) for t in (input, weight, bias)):
        # (with float32 parameters torch keeps float32 statistics: the fused path below)
        w = _const(ns, 1.0) if weight is None else weight
        b = _const(ns, 0.0) if bias is None else bias
        return _half_layer_norm_node(axis, float(eps))(input, w, b)
    if dt in _FUSED and 0 < eps and input.size:
        w = _const(ns, 1.0) if weight is None else _f32(weight)
        b = _const(ns, 0.0) if bias is None else _f32(bias)
        x, w, b = graph_inputs(_f32(input), w, b)
        out = _ln_prim(axis, float(eps))(x, w, b)[0]
        if _P.requires_grad(out):
            # inputs keep their graph (no cycle: only outputs lead back to the node); the kernel saves them
            record_own_backward(out, _LAYER_NORM_RECOMPUTE, x, w, b, axis, float(eps))
        return out if dt == _F32 else cast(out, dt)
    axes = tuple(range(axis, input.ndim))
    mean = ops.mean(input, axes, keep_dims=True)
    # (ops' binary wrappers: a broadcasting bfloat16 product needing gradients runs in float32, as the
    # CPU ReduceSum its backward needs has no bfloat16 kernel)
    cen = ops.sub(input, mean)
    out = ops.mul(cen, ops.rsqrt(_plus_eps(ops.mean(ops.mul(cen, cen), axes, keep_dims=True), eps)))
    if weight is not None:
        out = ops.mul(out, weight)
    if bias is not None:
        out = ops.add(out, bias)
    return out


def _layer_norm_recompute(node, x, w, b, axis, eps):
    # for double backward: MindSpore's LayerNorm backward fails when recorded ("For LayerNormGrad, the
    # index 7 is out of range"), so that pass differentiates this composition instead
    axes = tuple(range(axis, x.ndim))
    cen = x - ops.mean(x, axes, keep_dims=True)
    return cen * ops.rsqrt(_plus_eps(ops.mean(cen * cen, axes, keep_dims=True), eps)) * w + b


_LAYER_NORM_RECOMPUTE = Recompute(_layer_norm_recompute)


def _half_layer_norm_node(axis, eps):
    """float16/bfloat16 layer norm with torch's backward: the float32 formula of its CPU kernel on the mean and
    1 / std it saves, which are rounded to the input's dtype (float32 statistics move gradients that cancel by
    a half-precision ulp). Its backward is in recorded ops (double backward)."""
    node = _HALF_LN_NODES.get((axis, eps))
    if node is None:
        def fwd(x, w, b):
            return cast(_ln_prim(axis, eps)(_f32(x), _f32(w), _f32(b))[0], x.dtype), (x, w, b)

        def bwd(saved, g):
            # (the statistics computed here again from x: under create_graph their dependence on x is recorded)
            x, w, b = saved
            x32, g32 = _f32(x), _f32(g)
            axes = tuple(range(axis, x.ndim))
            mean = ops.mean(x32, axes, keep_dims=True)
            cen = ops.sub(x32, mean)
            rstd = ops.rsqrt(_plus_eps(ops.mean(ops.mul(cen, cen), axes, keep_dims=True), eps))
            mean, rstd = _f32(cast(mean, x.dtype)), _f32(cast(rstd, x.dtype))
            lead = tuple(range(axis))
            gw = ops.mul(g32, _f32(w))
            scale = 1.0 / math.prod(x.shape[axis:])
            ds = ops.sum(ops.mul(gw, x32), axes, keepdim=True)
            db = ops.sum(gw, axes, keepdim=True)
            # torch's kernel: dX = rstd dY w + b' X + c', b' = (db mean - ds) rstd^3 / N, c' = -b' mean - db rstd / N
            bb = ops.mul(ops.mul(ops.sub(ops.mul(db, mean), ds), ops.mul(ops.mul(rstd, rstd), rstd)), scale)
            cc = ops.sub(ops.neg(ops.mul(bb, mean)), ops.mul(ops.mul(db, rstd), scale))
            gx = ops.add(ops.add(ops.mul(rstd, gw), ops.mul(bb, x32)), cc)
            gwt = ops.sum(ops.mul(g32, ops.mul(ops.sub(x32, mean), rstd)), lead) if lead else \
                ops.mul(g32, ops.mul(ops.sub(x32, mean), rstd))
            gb = ops.sum(g32, lead) if lead else g32
            return cast(gx, x.dtype), cast(gwt, w.dtype), cast(gb, b.dtype)
        node = _HALF_LN_NODES[(axis, eps)] = _node("NativeLayerNormBackward0", fwd, bwd)
    return node


_HALF_LN_NODES = {}


@register("rms_norm", family=F, namespace=("torch", "nn.functional"))
def rms_norm(input, normalized_shape, weight=None, eps=None):
    ns = _check_normalized(input, normalized_shape, weight, None, star="*")
    if input.dtype in (ms.complex64, ms.complex128):
        return _complex_rms_norm(input, ns, weight, eps)
    _not_float(input, "rms_norm")
    dt = input.dtype
    x = _f32(input) if dt in _LOW else input
    if eps is None:
        eps = _EPS[x.dtype]     # the epsilon of the dtype torch computes in
    axes = tuple(range(input.ndim - len(ns), input.ndim))
    r = ops.rsqrt(_plus_eps(ops.mean(ops.mul(x, x), axes, keep_dims=True), eps))
    out = ops.mul(x, r)
    if out.dtype != dt:
        out = cast(out, dt)
    # (ops.mul: a bfloat16 weight broadcast needing gradients multiplies in float32, its backward's
    # ReduceSum having no bfloat16 kernel)
    return out if weight is None else ops.mul(out, weight)


def _complex_rms_norm(input, ns, weight, eps):
    """torch's composition on complex input, x * rsqrt(mean(x ** 2) + eps) in complex arithmetic (the square,
    not |x| ** 2; eps of the real dtype), through mstorch's ops (complex products and their gradients)."""
    from ._registry import PUBLIC
    x = wrap(input)
    if eps is None:
        eps = _EPS[input.dtype]
    axes = tuple(range(input.ndim - len(ns), input.ndim))
    out = x * PUBLIC["rsqrt"]((x * x).mean(axes, keepdim=True) + eps)
    return (out if weight is None else out * wrap(weight))._ms


_EPS = {ms.float32: 1.1920928955078125e-07, ms.float64: 2.220446049250313e-16,
        ms.complex64: 1.1920928955078125e-07, ms.complex128: 2.220446049250313e-16}


# --- group norm ------------------------------------------------------------------------------------

@register("nn.functional.group_norm", family=F, namespace="nn.functional")
def f_group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    if input.ndim < 2:   # (F.group_norm checks the rank and the batch in Python)
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.ndim}")
    shape = tuple(input.shape)
    _verify_batch_size([shape[0] * shape[1] // num_groups, num_groups] + list(shape[2:]))
    return group_norm(input, num_groups, weight, bias, eps)


@register("group_norm", family=F, namespace="torch")
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    shape = tuple(input.shape)
    wrap_size_dim(0, input.ndim)   # (torch.group_norm reads size(0) and size(1) first)
    wrap_dim(1, input.ndim)
    c = shape[1]
    if c % num_groups:
        raise RuntimeError("Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(shape)} and num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.ndim != 1 or t.size != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {list(t.shape)} and input of shape {list(shape)}")
    _not_float(input, "group_norm")
    dt = input.dtype
    if dt in _LOW and input.size and _P.grad_enabled() and all(
            t is None or t.dtype == dt for t in (weight, bias)) and any(
            t is not None and _P.requires_grad(t) for t in (input, weight, bias)):
        # (with float32 parameters torch keeps float32 statistics: the fused path below)
        w = _const((c,), 1.0) if weight is None else weight
        b = _const((c,), 0.0) if bias is None else bias
        out = _half_group_norm_node(num_groups, float(eps))(input.reshape(shape[0], c, -1), w, b)
        return out.reshape(shape)
    x = _f32(input) if dt in _LOW else input
    x3 = x.reshape(shape[0], c, -1) if input.ndim != 3 else x
    w = ops.ones(c, x.dtype) if weight is None else cast(weight, x.dtype)
    b = ops.zeros(c, x.dtype) if bias is None else cast(bias, x.dtype)
    if x3.size == 0:   # the kernel refuses empty input; the affine parameters' gradients are zeros
        out = ops.add(ops._empty_product(x3, w, x3.shape), ops._empty_product(b, b, x3.shape))
    elif x.dtype == ms.float64:
        # the kernel takes eps as a float32 attribute (1e-5 -> 9.99999974e-06), which moves float64 values and
        # gradients by ~1e-12 relative (far more where a gradient cancels): composed from float64 reductions
        out = _group_norm_recompute(x3, num_groups, w, b, float(eps))
    else:
        out = ops.group_norm(x3, num_groups, w, b, float(eps))
        # MindSpore's GroupNormGrad has no backward: double backward differentiates the composition
        recompute_as(out, _group_norm_recompute, x3, num_groups, w, b, float(eps))
    out = out.reshape(shape) if input.ndim != 3 else out
    return out if out.dtype == dt else cast(out, dt)


def _group_norm_recompute(x, groups, w, b, eps):
    n, c = x.shape[:2]
    xg = x.reshape(n, groups, -1)
    cen = xg - ops.mean(xg, -1, keep_dims=True)
    out = (cen * ops.rsqrt(_plus_eps(ops.mean(cen * cen, -1, keep_dims=True), eps))).reshape(x.shape)
    return out * w.reshape(1, c, 1) + b.reshape(1, c, 1)


def _half_group_norm_node(groups, eps):
    """float16/bfloat16 group norm (parameters of the input's dtype) with torch's backward: the float32 formula
    of its CPU kernel on the mean and 1 / std it saves, which are rounded to the input's dtype (float32
    statistics move gradients that cancel by far more than a half-precision ulp). Its backward is in recorded
    ops (double backward)."""
    node = _HALF_GN_NODES.get((groups, eps))
    if node is None:
        if len(_HALF_GN_NODES) > 256:
            _HALF_GN_NODES.clear()

        def fwd(x, w, b):   # (torch's forward normalizes with its float32 statistics, before rounding them)
            return cast(ops.group_norm(_f32(x), groups, _f32(w), _f32(b), eps), x.dtype), (x, w, b)

        def bwd(saved, g):
            # (the statistics computed here again from x: under create_graph their dependence on x is recorded)
            x, w, b = saved
            n, c = x.shape[:2]
            grouped = (n, groups, c // groups, -1)
            x32, g32 = _f32(x).reshape(grouped), _f32(g).reshape(grouped)
            mean = ops.mean(x32, (2, 3), keep_dims=True)
            cen = ops.sub(x32, mean)
            rstd = ops.rsqrt(_plus_eps(ops.mean(ops.mul(cen, cen), (2, 3), keep_dims=True), eps))
            mean, rstd = _f32(cast(mean, x.dtype)), _f32(cast(rstd, x.dtype))
            w32 = _f32(w).reshape(1, groups, -1, 1)
            ds = ops.sum(ops.mul(g32, x32), 3, keepdim=True)
            db = ops.sum(g32, 3, keepdim=True)
            dsg = ops.sum(ops.mul(ds, w32), 2, keepdim=True)
            dbg = ops.sum(ops.mul(db, w32), 2, keepdim=True)
            scale = 1.0 / (x.size // (n * groups))
            # torch's kernel: dX = rstd w dY + c2 X + c3, c2 = (dbg mean - dsg) rstd^3 / M, c3 = -c2 mean - dbg rstd / M
            c2 = ops.mul(ops.mul(ops.sub(ops.mul(dbg, mean), dsg), ops.mul(ops.mul(rstd, rstd), rstd)), scale)
            c3 = ops.sub(ops.neg(ops.mul(c2, mean)), ops.mul(ops.mul(dbg, rstd), scale))
            gx = ops.add(ops.add(ops.mul(ops.mul(rstd, w32), g32), ops.mul(c2, x32)), c3)
            gw = ops.sum(ops.mul(ops.sub(ds, ops.mul(db, mean)), rstd), 0).reshape(-1)
            gb = ops.sum(db, 0).reshape(-1)
            return cast(gx.reshape(x.shape), x.dtype), cast(gw, w.dtype), cast(gb, b.dtype)
        node = _HALF_GN_NODES[(groups, eps)] = _node("NativeGroupNormBackward0", fwd, bwd)
    return node


_HALF_GN_NODES = {}


# --- local response norm ---------------------------------------------------------------------------

def _lrn_views(shape, strides):
    """Whether torch's local_response_norm can view ``input * input`` as (N, 1, C, H, -1) for a 5-d or
    larger input: the product keeps the input's stride order (TensorIterator sorts the dims by stride,
    fastest first, ties kept in order), so a permuted input whose trailing dims are not laid out in order
    makes that view fail before the dtype is checked."""
    nd = len(shape)
    perm = list(range(nd - 1, -1, -1))   # perm[0]: the fastest-moving dim
    for i in range(1, nd):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            a, b = perm[d0], perm[d1]
            sa, sb = strides[a], strides[b]
            if sa == 0 or sb == 0 or sa == sb and shape[a] <= shape[b]:
                continue    # (no order between them: look further back)
            if sa < sb:
                break
            perm[d0], perm[d1] = perm[d1], perm[d0]
            d1 = d0
    out, step = [0] * nd, 1
    for d in perm:
        out[d], step = step, step * shape[d]
    dims = [d for d in range(3, nd) if shape[d] != 1]
    return all(out[d] == out[e] * shape[e] for d, e in zip(dims, dims[1:]))


@register("local_response_norm", family=F, namespace="nn.functional")
def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    dim = input.ndim
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {dim} "
                         "dimensions)")
    if input.size == 0:
        return input
    if dim > 4 and not _lrn_views(tuple(input.shape), tuple(input.stride())):
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one dimension "
                           "spans across two contiguous subspaces). Use .reshape(...) instead.")
    if dim > 3 and input.dtype not in (ms.float32, ms.float64, ms.int64):
        # torch pools a 4-d or larger input with avg_pool3d, whose CPU kernel has fewer dtypes
        raise NotImplementedError(
            f'"avg_pool3d_out_frame" not implemented for \'{scalar_type_name(D._FROM_MS[input.dtype])}\'')
    sq = input * input
    c = input.shape[1]
    front, back = size // 2, (size - 1) // 2
    pads = []
    if front:
        pads.append(ops.zeros((input.shape[0], front) + tuple(input.shape[2:]), sq.dtype))
    pads.append(sq)
    if back:
        pads.append(ops.zeros((input.shape[0], back) + tuple(input.shape[2:]), sq.dtype))
    padded = ops.concat(pads, 1) if len(pads) > 1 else sq
    if padded.dtype in _LOW:
        # torch's avg_pool sums float16/bfloat16 windows in float32 and rounds the mean once
        padded = padded.astype(_F32)
    total = padded[:, 0:c]
    for j in range(1, size):
        total = total + padded[:, j:j + c]
    if total.dtype == ms.int64:
        # torch's avg_pool of int64 divides the window's sum by the window size in integers (truncating)
        avg = ops.div(total, size, rounding_mode="trunc")
    else:
        avg = (total / size).astype(sq.dtype)
    if avg.dtype == ms.float64:
        # MindSpore rounds a Python float operand of a float64 tensor to float32 (0.1 -> 0.10000000149)
        f64 = D._FROM_MS[ms.float64]
        alpha, k, beta = (scalar_tensor(float(v), f64) for v in (alpha, k, beta))
    base = avg * alpha + k
    if base.dtype == ms.bfloat16:
        # no bfloat16 Pow kernel: raise in float32 and round once, as torch's bfloat16 pow does (a float32
        # rerun of the whole op would skip torch's roundings of the steps before)
        div = ops.pow(base.astype(_F32), beta).astype(ms.bfloat16)
    else:
        div = ops.pow(base, beta)
    return input / div
