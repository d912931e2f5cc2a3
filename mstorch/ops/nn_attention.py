"""torch.nn.functional.scaled_dot_product_attention and multi_head_attention_forward.

Both follow torch's *math* path (the reference its fused CPU kernels are tested against): scores
``(q * scale) @ k^T``, the mask added, a softmax whose fully masked rows are 0 (torch's
``_safe_softmax``), dropout from torch's stream (``F.dropout``), then ``@ v``. float16/bfloat16 compute in
float32 and round back, as torch's CPU math path does. ``multi_head_attention_forward`` mirrors torch's
Python function step by step (packed / separate in-projections, bias_k/v, zero attention, the two
output paths ``need_weights=True`` (softmax, may give NaN on fully masked rows, as torch) and
``need_weights=False`` (through SDPA)), with its AssertionError/RuntimeError texts.
"""
import math
import warnings

import numpy as np
import mindspore as ms
from . import _msops as ops

from ._helpers import dtype_of, cast
from ._registry import register
from ._views import infer_size
from .activation import softmax_kernel
from .products import _mm, check_baddbmm_dtypes
from .nn_linear import linear as _linear_op
from .nn_dropout import dropout as _dropout_op
from .._tensor import wrap
from .. import _ms_private as P
from .. import _dtype as D
from . import _host
from . import _kernels as kernels
from ..backends.cuda import sdp_backend_for as _sdp_backend_for

F = "nn.attention"
_FLOATS = (ms.float32, ms.float64, ms.float16, ms.bfloat16)
_LOW = (ms.float16, ms.bfloat16)
_NEG_INF = float("-inf")
_CAUSAL = {}


def _linear(x, w, b):
    return _linear_op(x, w, b)


def _dropout(x, p):
    # torch draws the attention-dropout mask with at::dropout; F.dropout reproduces that stream
    return _dropout_op(wrap(x), p, True)._ms


def _cname(t):
    from .._tensor import scalar_type_name
    return scalar_type_name(dtype_of(t))


def _cpp_name(t):
    from .random import _CPP_NAMES
    d = dtype_of(t)
    return _CPP_NAMES.get(d) or _COMPLEX_CPP_NAMES[d]


_COMPLEX_CPP_NAMES = {D.complex64: "c10::complex<float>", D.complex128: "c10::complex<double>"}


def _causal_mask(L, S, ms_dt):
    """Additive top-left causal mask (0 on and below the diagonal, -inf above), cached per shape."""
    key = (L, S, ms_dt)
    m = _CAUSAL.get(key)
    if m is None:
        np_dt = np.float64 if ms_dt == ms.float64 else np.float32
        arr = np.where(np.tril(np.ones((L, S), dtype=bool)), 0.0, -np.inf).astype(np_dt)
        m = ms.Tensor(arr)
        if len(_CAUSAL) < 256:
            _CAUSAL[key] = m
    return m


def _additive(mask, ms_dt, keep_true):
    """A bool mask as 0/-inf: ``keep_true`` means True attends (SDPA); otherwise True is masked (MHA)."""
    zero = ms.Tensor(0.0, ms_dt)
    ninf = ms.Tensor(_NEG_INF, ms_dt)
    return ops.select(mask, zero, ninf) if keep_true else ops.select(mask, ninf, zero)


def _safe_softmax(scores, dead):
    """torch's _safe_softmax: rows whose every score is -inf give 0 (and a 0 gradient), not NaN."""
    if dead is None:
        return softmax_kernel(scores, -1)
    zero = ms.Tensor(0.0, scores.dtype)
    p = softmax_kernel(ops.select(dead, zero, scores), -1)
    return ops.select(dead, zero, p)


def _softmax_nan_rows(scores):
    """torch's plain softmax when whole rows may be -inf: those rows are NaN. MindSpore's CPU softmax
    zeroes every row after the first all -inf one, so such rows never reach its kernel."""
    dead = ops.all(ops.equal(scores, _NEG_INF), -1, keep_dims=True)
    p = softmax_kernel(ops.select(dead, ms.Tensor(0.0, scores.dtype), scores), -1)
    return ops.select(dead, ms.Tensor(float("nan"), scores.dtype), p)


def _check_sdpa(query, key, value, attn_mask, dropout_p, is_causal, enable_gqa):
    if not (query.dtype == key.dtype == value.dtype):
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{_cpp_name(query)} key.dtype: {_cpp_name(key)} and value.dtype: {_cpp_name(value)} instead.")
    if query.ndim < 2 or key.ndim < 2 or value.ndim < 2:
        raise RuntimeError(
            "Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
            f"{query.ndim} key.dim: {key.ndim} and value.dim: {value.ndim} instead.")
    if attn_mask is not None:
        if attn_mask.dtype not in (ms.bool_, ms.float32, query.dtype):
            raise RuntimeError(
                "Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: "
                f"{_cpp_name(attn_mask)} and  query.dtype: {_cpp_name(query)} instead.")
        if is_causal:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                               "is_causal=True")
    _sdp_backend_for(query, key, value, dropout_p)  # torch's backend switches (nn.attention.sdpa_kernel)
    if dropout_p > 1 and query.dtype not in (ms.complex64, ms.complex128):   # (complex: softmax refuses first)
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    if query.shape[-2] and value.size:   # (torch answers no query rows and an empty value before its products)
        if 0 in query.shape[:-2] or 0 in key.shape[:-2] or key.shape[-2] == 0 or query.shape[-1] == 0:
            _check_empty_products(query, key, value, attn_mask, is_causal, enable_gqa)
        if key.shape[-1] != query.shape[-1]:
            raise RuntimeError(
                f"Expected size for first two dimensions of batch2 tensor to be: "
                f"[{_batch(query)}, {query.shape[-1]}] but got: [{_batch(key)}, {key.shape[-1]}].")
        if value.shape[-2] != key.shape[-2]:
            raise RuntimeError(
                f"Expected size for first two dimensions of batch2 tensor to be: "
                f"[{_batch(query)}, {key.shape[-2]}] but got: [{_batch(value)}, {value.shape[-2]}].")
    if enable_gqa and query.ndim >= 3:
        hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
        empty = 0 in (query.shape[-2], key.shape[-2], value.shape[-1]) or 0 in query.shape[:-3]
        if hk and hv and not empty and (hq % hk or hq % hv):   # (no heads or no output: nothing checked, as torch)
            raise RuntimeError("Number of heads in key and value must divide the number of heads in ")


def _batch(t):
    n = 1
    for s in t.shape[:-2]:
        n *= s
    return n


@register("scaled_dot_product_attention", family=F, namespace="nn.functional")
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False,
                                 scale=None, enable_gqa=False):
    _check_sdpa(query, key, value, attn_mask, dropout_p, is_causal, enable_gqa)
    if query.shape[-2] == 0 or value.size == 0 or key.shape[-2] == 0 or 0 in query.shape[:-2] or \
            0 in key.shape[:-2]:
        # no scores or an empty output: torch returns before its kernels (nothing drawn; with no query rows or an
        # empty value nothing checked) zeros in query's batch shape (the rows of an empty key attend to nothing)
        # plus a link to the inputs, so a bool query gives int64 zeros (bool + an int scalar); MindSpore's
        # BatchMatMul refuses the empty operands
        shape = tuple(query.shape[:-2]) + (query.shape[-2], value.shape[-1])
        return ops.zeros_on(shape, ms.int64 if query.dtype == ms.bool_ else query.dtype, (query, key, value))
    if query.dtype not in _FLOATS:
        _refuse_dtype(query, key, value)
        return ops.zeros_on(tuple(query.shape[:-1]) + (value.shape[-1],), query.dtype, (query, key, value))
    return kernels.ACTIVE["sdpa"](query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)


def _check_empty_products(query, key, value, attn_mask, is_causal, enable_gqa):
    """The shape errors of torch's math path (scores = q @ k^T, the mask added in place, scores @ v: each
    product broadcasts the batch dims, then bmm checks the inner size) for operands whose scores or output
    are empty but computed: torch answers without them only for no query rows or an empty value."""
    qb, kb, vb = tuple(query.shape[:-2]), tuple(key.shape[:-2]), tuple(value.shape[:-2])
    if enable_gqa and query.ndim >= 3:   # (key and value heads repeated to the query's first)
        kb, vb = kb[:-1] + qb[-1:], vb[:-1] + qb[-1:]
    batch = infer_size(qb, kb)
    n = math.prod(batch)
    if key.shape[-1] != query.shape[-1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{n}, {query.shape[-1]}] "
                           f"but got: [{n}, {key.shape[-1]}].")
    scores = batch + (query.shape[-2], key.shape[-2])
    if attn_mask is not None and not is_causal:
        full = infer_size(scores, tuple(attn_mask.shape))
        if full != scores:
            raise RuntimeError(f"output with shape {list(scores)} doesn't match the broadcast shape {list(full)}")
    n = math.prod(infer_size(batch, vb))
    if value.shape[-2] != key.shape[-2]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{n}, {key.shape[-2]}] "
                           f"but got: [{n}, {value.shape[-2]}].")


def _refuse_dtype(query, key, value):
    """torch's math path takes any dtype until a kernel runs on a non-empty operand: the scores' matmul
    (no integer kernel) or their softmax (no complex one). An empty output is never computed."""
    if query.dtype in (ms.complex64, ms.complex128):
        raise NotImplementedError(f"\"softmax_lastdim_kernel_impl\" not implemented for '{_cname(query)}'")
    raise RuntimeError(f"expected scalar type Float but found {_cname(query)}")


def _sdpa_native(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa):
    out_dt = query.dtype
    if out_dt in _LOW:
        query, key, value = (cast(t, ms.float32) for t in (query, key, value))
    dt = query.dtype
    if enable_gqa and query.ndim >= 3:
        hq = query.shape[-3]
        if key.shape[-3] != hq:
            key = ops.repeat_interleave(key, hq // key.shape[-3], key.ndim - 3)
        if value.shape[-3] != hq:
            value = ops.repeat_interleave(value, hq // value.shape[-3], value.ndim - 3)
    L, S, E = query.shape[-2], key.shape[-2], query.shape[-1]
    s = (1.0 / math.sqrt(E) if E else math.inf) if scale is None else float(scale)
    scores = _mm(ops.mul(query, ms.Tensor(s, dt)), ops.swapaxes(key, -2, -1))
    if is_causal:
        scores = ops.add(scores, _causal_mask(L, S, dt))
    elif attn_mask is not None:
        _check_mask_into(attn_mask, scores)
        if attn_mask.dtype == ms.bool_:
            attn_mask = _additive(attn_mask, dt, keep_true=True)
        else:
            attn_mask = attn_mask if attn_mask.dtype == dt else cast(attn_mask, dt)
        scores = ops.add(scores, attn_mask)
    # torch's math path always takes _safe_softmax: a row of -inf scores (masked, or from infinite
    # inputs) attends to nothing
    p = _safe_softmax(scores, ops.all(ops.equal(scores, _NEG_INF), -1, keep_dims=True))
    if dropout_p > 0:
        p = _dropout(p, dropout_p)
    out = _mm(p, value)
    return out if out_dt == dt else cast(out, out_dt)


def _check_mask_into(attn_mask, scores):
    """torch's math path adds the mask to the scores in place: a mask that broadcasts them to a larger shape
    is refused with that op's error (a mask that does not broadcast at all fails in the add, as torch's)."""
    shape, mshape = tuple(scores.shape), tuple(attn_mask.shape)
    try:
        full = np.broadcast_shapes(shape, mshape)
    except ValueError:
        return
    if tuple(full) != shape:
        raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape {list(full)}")


def _sdpa_host(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa):
    """numpy on the tensors' host memory (``_host``) for the unmasked and causal cases without dropout:
    the heads are read in place as strided views (MindSpore's CPU copy of a transposed head costs 5-15 ms)
    and the batched products run on numpy's BLAS. The gradient is the math path's, in numpy too (in
    recorded ops under create_graph). Anything else takes the native composition."""
    if (attn_mask is not None or dropout_p > 0 or enable_gqa or query.ndim < 2 or not _host.usable(query, key, value)
            or not query.shape[:-2] == key.shape[:-2] == value.shape[:-2] or 0 in query.shape or 0 in key.shape):
        return _sdpa_native(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)
    E = query.shape[-1]
    s = 1.0 / math.sqrt(E) if scale is None else float(scale)
    if P.grad_enabled() and (P.requires_grad(query) or P.requires_grad(key) or P.requires_grad(value)):
        out = _HostSdpa.apply(query, key, value, is_causal, s)
        P.set_function_of_output(out, _HostSdpa)
        return out
    return _host.tensor(_sdpa_np(query, key, value, is_causal, s)[0], query.dtype)


def _sdpa_np(query, key, value, is_causal, s):
    q, k, v = _host.array(query), _host.array(key), _host.array(value)
    with _host.kernel("ScaledDotProductAttention"):
        scores = (q * q.dtype.type(s)) @ np.swapaxes(k, -1, -2)
        if is_causal:
            scores += _causal_mask_np(q.shape[-2], k.shape[-2], q.dtype)
        top = scores.max(-1, keepdims=True)
        dead = top == -np.inf   # (NaN propagates through max: only rows of -inf scores)
        if dead.any():   # torch's _safe_softmax: such a row attends to nothing (0, not NaN)
            top[dead] = 0
        scores -= top
        p = np.exp(scores, out=scores)
        total = p.sum(-1, keepdims=True)
        if dead.any():
            total[dead] = 1
        p /= total
        return p @ v, p


_CAUSAL_NP = {}


def _causal_mask_np(L, S, dt):
    m = _CAUSAL_NP.get((L, S, dt))
    if m is None:
        m = np.where(np.tril(np.ones((L, S), dtype=bool)), 0.0, -np.inf).astype(dt)
        if len(_CAUSAL_NP) < 256:
            _CAUSAL_NP[(L, S, dt)] = m
    return m


class _HostSdpa(P.FunctionBase):
    @staticmethod
    def forward(node, query, key, value, is_causal, s):
        out, p = _sdpa_np(query, key, value, is_causal, s)
        node.save_for_backward(query, key, value)
        node.probs, node.is_causal, node.scale = p, is_causal, s
        return _host.tensor(out, query.dtype)

    @staticmethod
    def backward(node, g):
        query, key, value = node.saved_tensors
        need = node.needs_input_grad
        s = node.scale
        if P.grad_enabled():
            return _sdpa_grads_recorded(query, key, value, g, node.is_causal, s, need)
        p = node.probs
        q, k, v, gh = (_host.array(t) for t in (query, key, value, g))
        dt = query.dtype
        with _host.kernel("ScaledDotProductAttentionGrad"):
            dv = np.swapaxes(p, -1, -2) @ gh if need[2] else None
            dp = gh @ np.swapaxes(v, -1, -2)
            ds = p * (dp - (dp * p).sum(-1, keepdims=True))
            ds *= ds.dtype.type(s)
            dq = ds @ k if need[0] else None
            dk = np.swapaxes(ds, -1, -2) @ q if need[1] else None
        return tuple(None if a is None else _host.tensor(a, dt) for a in (dq, dk, dv)) + (None, None)


def _sdpa_grads_recorded(query, key, value, g, is_causal, s, need):
    """The same gradients in recorded MindSpore ops (create_graph: they differentiate again)."""
    dt = query.dtype
    scores = _mm(ops.mul(query, ms.Tensor(s, dt)), ops.swapaxes(key, -2, -1))
    if is_causal:
        scores = ops.add(scores, _causal_mask(query.shape[-2], key.shape[-2], dt))
    p = _safe_softmax(scores, ops.all(ops.equal(scores, _NEG_INF), -1, keep_dims=True))
    dv = _mm(ops.swapaxes(p, -2, -1), g) if need[2] else None
    dp = _mm(g, ops.swapaxes(value, -2, -1))
    ds = ops.mul(ops.mul(p, ops.sub(dp, ops.sum(ops.mul(dp, p), -1, True))), ms.Tensor(s, dt))
    dq = _mm(ds, key) if need[0] else None
    dk = _mm(ops.swapaxes(ds, -2, -1), query) if need[1] else None
    return dq, dk, dv, None, None


_HostSdpa.__name__ = "ScaledDotProductAttentionBackward0"   # mstorch's name: torch's depends on its kernel
kernels.candidates("sdpa", native=_sdpa_native, host=_sdpa_host)


# --- multi_head_attention_forward ---------------------------------------------------------------------

def _is_float(t):
    return t.dtype in _FLOATS


def canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """torch.nn.functional._canonical_mask over mindspore tensors: bool masks become 0/-inf."""
    if mask is None:
        return None
    if mask.dtype != ms.bool_ and not _is_float(mask):
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for "
                      "both instead.", stacklevel=3)
    if mask.dtype == ms.bool_:
        if target_type not in _FLOATING and target_type != ms.bool_:
            # torch fills -inf into a mask of the (integer) query's dtype: its overflow check
            raise RuntimeError(f"value cannot be converted to type {_C_INT[target_type]} without overflow")
        mask = _additive(mask, target_type, keep_true=False)
    return mask


_FLOATING = (ms.float16, ms.bfloat16, ms.float32, ms.float64, ms.complex64, ms.complex128)
_C_INT = {ms.uint8: "uint8_t", ms.int8: "int8_t", ms.int16: "int16_t", ms.int32: "int32_t", ms.int64: "int64_t",
          ms.uint16: "uint16_t", ms.uint32: "uint32_t", ms.uint64: "uint64_t"}


def _shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    if query.ndim == 3:
        if key.ndim != 3 or value.ndim != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                                 f"{key.ndim}-D and {value.ndim}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.ndim != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                                 f"found {key_padding_mask.ndim}-D tensor instead")
        if attn_mask is not None and attn_mask.ndim not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                                 f"found {attn_mask.ndim}-D tensor instead")
        return True
    if query.ndim == 2:
        if key.ndim != 2 or value.ndim != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                                 f"{key.ndim}-D and {value.ndim}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.ndim != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D "
                                 f"but found {key_padding_mask.ndim}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.ndim not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or "
                                     f"3-D but found {attn_mask.ndim}-D tensor instead")
            if attn_mask.ndim == 3:
                expected = (num_heads, query.shape[0], key.shape[0])
                if tuple(attn_mask.shape) != expected:
                    raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                         f"{_size(attn_mask.shape)}")
        return False
    raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.ndim}-D "
                         "query tensor")


def _size(shape):
    from .._size import Size
    return Size(tuple(shape))


def _in_projection_packed(q, k, v, w, b):
    E = q.shape[-1]
    if k is v:
        if q is k:
            proj = _linear(q, w, b)
            return ops.split(proj, E, -1)
        w_q, w_kv = ops.split(w, [E, 2 * E], 0)
        b_q, b_kv = (None, None) if b is None else ops.split(b, [E, 2 * E], 0)
        kv = _linear(k, w_kv, b_kv)
        return (_linear(q, w_q, b_q),) + tuple(ops.split(kv, E, -1))
    w_q, w_k, w_v = ops.split(w, w.shape[0] // 3, 0)
    b_q, b_k, b_v = (None,) * 3 if b is None else ops.split(b, b.shape[0] // 3, 0)
    return _linear(q, w_q, b_q), _linear(k, w_k, b_k), _linear(v, w_v, b_v)


def _in_projection(q, k, v, w_q, w_k, w_v, b_q, b_k, b_v):
    Eq, Ek, Ev = q.shape[-1], k.shape[-1], v.shape[-1]
    for what, w, want in (("query", w_q, (Eq, Eq)), ("key", w_k, (Eq, Ek)), ("value", w_v, (Eq, Ev))):
        if tuple(w.shape) != want:
            raise AssertionError(f"expecting {what} weights shape of {want}, but got {_size(w.shape)}")
    for what, b in (("query", b_q), ("key", b_k), ("value", b_v)):
        if b is not None and tuple(b.shape) != (Eq,):
            raise AssertionError(f"expecting {what} bias shape of {(Eq,)}, but got {_size(b.shape)}")
    return _linear(q, w_q, b_q), _linear(k, w_k, b_k), _linear(v, w_v, b_v)


def _pad_last(t):
    """F.pad(t, (0, 1)): one zero column at the end of the last dimension."""
    return ops.concat((t, ops.zeros(tuple(t.shape[:-1]) + (1,), t.dtype)), -1)


@register("multi_head_attention_forward", family=F, namespace="nn.functional")
def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    is_batched = _shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = (ops.expand_dims(t, 1) for t in (query, key, value))
        if key_padding_mask is not None:
            key_padding_mask = ops.expand_dims(key_padding_mask, 0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = canonical_mask(key_padding_mask, "key_padding_mask",
                                      None if attn_mask is None else attn_mask.dtype, "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None   # the hint alone drives SDPA's causal masking
    else:
        attn_mask = canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {_size(key.shape[:2])} do not match value's "
                                 f"{_size(value.shape[:2])}")
    elif tuple(key.shape) != tuple(value.shape):
        raise AssertionError(f"key shape {_size(key.shape)} does not match value shape {_size(value.shape)}")

    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is None")
        b_q, b_k, b_v = (None,) * 3 if in_proj_bias is None else ops.split(in_proj_bias, embed_dim, 0)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight, b_q, b_k, b_v)

    if attn_mask is not None:
        if attn_mask.ndim == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {_size(attn_mask.shape)}, but should be "
                                   f"{(tgt_len, src_len)}.")
            attn_mask = ops.expand_dims(attn_mask, 0)
        elif attn_mask.ndim == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {_size(attn_mask.shape)}, but should be "
                                   f"{(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.ndim} is not supported")

    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = ops.concat((k, ops.tile(bias_k, (1, bsz, 1))), 0)
        v = ops.concat((v, ops.tile(bias_v, (1, bsz, 1))), 0)
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")

    q = ops.swapaxes(q.reshape(tgt_len, bsz * num_heads, head_dim), 0, 1)
    if static_k is None:
        k = ops.swapaxes(k.reshape(k.shape[0], bsz * num_heads, head_dim), 0, 1)
    else:
        _check_static(static_k, "k", bsz * num_heads, head_dim)
        k = static_k
    if static_v is None:
        v = ops.swapaxes(v.reshape(v.shape[0], bsz * num_heads, head_dim), 0, 1)
    else:
        _check_static(static_v, "v", bsz * num_heads, head_dim)
        v = static_v

    if add_zero_attn:
        k = ops.concat((k, ops.zeros((bsz * num_heads, 1, head_dim), k.dtype)), 1)
        v = ops.concat((v, ops.zeros((bsz * num_heads, 1, head_dim), v.dtype)), 1)
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    src_len = k.shape[1]

    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                                 f"{key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        key_padding_mask = ops.broadcast_to(key_padding_mask.reshape(bsz, 1, 1, src_len),
                                            (bsz, num_heads, 1, src_len)).reshape(bsz * num_heads, 1, src_len)
        attn_mask = key_padding_mask if attn_mask is None else ops.add(attn_mask, key_padding_mask)

    if not training:
        dropout_p = 0.0

    if need_weights:
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        # (torch's q * python float: an integer or bool q becomes float32)
        sdt = q.dtype if _is_float(q) or q.dtype in (ms.complex64, ms.complex128) else ms.float32
        q_scaled = ops.mul(q if sdt == q.dtype else cast(q, sdt), ms.Tensor(math.sqrt(1.0 / float(head_dim)), sdt))
        kt = ops.swapaxes(k, -2, -1)
        if attn_mask is not None:   # torch: baddbmm(attn_mask, q_scaled, kt)
            check_baddbmm_dtypes(attn_mask, q_scaled, kt)
        if kt.dtype != q_scaled.dtype:
            raise RuntimeError(f"expected scalar type {_cname(q_scaled)} but found {_cname(kt)}")
        if attn_mask is not None:
            weights = _softmax_nan_rows(ops.add(ops.bmm(q_scaled, kt), attn_mask))
        else:
            weights = softmax_kernel(ops.bmm(q_scaled, kt), -1)
        if dropout_p > 0.0:
            weights = _dropout(weights, dropout_p)
        out = ops.bmm(weights, v)
        out = ops.swapaxes(out, 0, 1).reshape(tgt_len * bsz, embed_dim)
        out = _linear(out, out_proj_weight, out_proj_bias)
        out = out.reshape(tgt_len, bsz, out.shape[1])
        weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = ops.mean(weights, 1)
        if not is_batched:
            out = ops.squeeze(out, 1)
            weights = ops.squeeze(weights, 0)
        return out, weights

    if attn_mask is not None:
        if attn_mask.shape[0] == 1 and attn_mask.ndim == 3:
            attn_mask = ops.expand_dims(attn_mask, 0)
        else:
            attn_mask = attn_mask.reshape(bsz, num_heads, -1, src_len)
    q = q.reshape(bsz, num_heads, tgt_len, head_dim)
    k = k.reshape(bsz, num_heads, src_len, head_dim)
    v = v.reshape(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = ops.transpose(out, (2, 0, 1, 3)).reshape(bsz * tgt_len, embed_dim)
    out = _linear(out, out_proj_weight, out_proj_bias)
    out = out.reshape(tgt_len, bsz, out.shape[1])
    if not is_batched:
        out = ops.squeeze(out, 1)
    return out, None


def _check_static(t, name, bh, head_dim):
    if t.shape[0] != bh:
        raise AssertionError(f"expecting static_{name}.size(0) of {bh}, but got {t.shape[0]}")
    if t.shape[2] != head_dim:
        raise AssertionError(f"expecting static_{name}.size(2) of {head_dim}, but got {t.shape[2]}")
