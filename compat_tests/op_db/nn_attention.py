"""torch.nn.functional.scaled_dot_product_attention and multi_head_attention_forward.

Tolerance: MindSpore's CPU exp (inside softmax) is ~5e-7 off float64 where torch's is ~1e-7, so outputs
near zero differ by up to ~1.5e-6 absolute: atol 1e-5 (docs/known-differences.md)."""
import numpy as np

from harness import rand
from .common import OpInfo, S, E

TOL = dict(rtol=1e-5, atol=1e-5)


def torch_dropout_is_portable():
    """torch's dropout masks come from bernoulli_(1 - p): on Intel CPUs its MKL build draws them from MKL's
    stream, which mstorch does not reproduce (docs/known-differences.md); elsewhere they match exactly."""
    import torch
    torch.manual_seed(0)
    torch.empty(100).bernoulli_(0.5)
    return int(np.frombuffer(torch.get_rng_state().numpy().tobytes()[16:24], np.uint64)[0]) == 200


NOT_PORTABLE = "" if torch_dropout_is_portable() else "torch draws dropout masks from MKL's stream on this CPU"
q4, k4, v4 = rand(2, 3, 4, 8), rand(2, 3, 5, 8, seed=1), rand(2, 3, 5, 6, seed=2)
_bool_mask = rand(4, 5, dtype=bool)
_bool_mask[1] = False                      # a fully masked row: 0 output and 0 gradient, as torch
_float_mask = rand(4, 5, seed=3)
_float_mask[2] = -np.inf


def _seeded_sdpa(T, *args, **kw):
    T.manual_seed(7)
    return T.nn.functional.scaled_dot_product_attention(*args, **kw)


E_, H_ = 6, 2     # embed dim, heads
_w = dict(in_w=rand(3 * E_, E_, seed=10, low=-0.5, high=0.5), in_b=rand(3 * E_, seed=11, low=-0.5, high=0.5),
          out_w=rand(E_, E_, seed=12, low=-0.5, high=0.5), out_b=rand(E_, seed=13, low=-0.5, high=0.5))


def _mha(self_attn=False, seed=None, **kw):
    """multi_head_attention_forward(query, key, value, in_w, in_b, out_w, out_b, ...) with the fixed
    embed_dim/num_heads; ``self_attn`` passes one tensor as query, key and value (torch's packed path).
    NumPy keyword arguments arrive as tensors (without grad)."""
    def call(T, q, k, v, in_w, in_b, out_w, out_b, *rest, **more):
        if self_attn:
            k = v = q
        if seed is not None:
            T.manual_seed(seed)
        opts = dict(kw, **more)
        bias_k, bias_v = opts.pop("bias_k", None), opts.pop("bias_v", None)
        add_zero = opts.pop("add_zero_attn", False)
        dropout_p = opts.pop("dropout_p", 0.0)
        return T.nn.functional.multi_head_attention_forward(
            q, k, v, E_, H_, in_w, in_b, bias_k, bias_v, add_zero, dropout_p, out_w, out_b, *rest, **opts)
    return call


def _mha_sample(L=4, S_=5, N=2, **kw):
    shape_q = (L, N, E_) if N else (L, E_)
    shape_k = (S_, N, E_) if N else (S_, E_)
    return S(rand(*shape_q), rand(*shape_k, seed=1), rand(*shape_k, seed=2), _w["in_w"], _w["in_b"], _w["out_w"],
             _w["out_b"], **kw)


_kpm = np.array([[False, False, True, False, True], [False, True, False, False, False]])
_kpm_self = _kpm[:, :4]
_mha_bool = rand(4, 5, dtype=bool)
_mha_bool[:, 0] = False                    # True masks in MHA: keep one key per row
_mha_bool_dead = _mha_bool.copy()
_mha_bool_dead[2] = True
_causal = np.triu(np.full((4, 4), -np.inf, dtype=np.float32), 1)

OPS = [
    OpInfo("scaled_dot_product_attention", method=False, **TOL, samples=[
        S(q4, k4, v4),
        S(q4, k4, v4, is_causal=True),
        S(rand(1, 2, 5, 8), rand(1, 2, 3, 8), rand(1, 2, 3, 4), is_causal=True),    # L > S: top-left causal
        S(q4, k4, v4, scale=0.3),
        S(q4, k4, v4, attn_mask=_bool_mask),
        S(q4, k4, v4, _float_mask),
        S(q4, k4, v4, rand(2, 1, 4, 5, seed=4)),                                     # broadcast float mask
        S(rand(2, 6, 4, 8), k4, v4, enable_gqa=True),
        S(q4[0, 0], k4[0, 0], v4[0, 0]),                                              # 2-D
        S(q4[0], k4[:1, 0], v4[:1, 0]),                                               # broadcast batch
        S(lambda T: T.tensor(q4, dtype=T.float64), lambda T: T.tensor(k4, dtype=T.float64),
          lambda T: T.tensor(v4, dtype=T.float64), attn_mask=_float_mask),
        S(lambda T: T.tensor(q4, dtype=T.float16), lambda T: T.tensor(k4, dtype=T.float16),
          lambda T: T.tensor(v4, dtype=T.float16)),
        S(lambda T: T.tensor(q4, dtype=T.bfloat16), lambda T: T.tensor(k4, dtype=T.bfloat16),
          lambda T: T.tensor(v4, dtype=T.bfloat16), attn_mask=_bool_mask),
        E(q4, k4, v4, attn_mask=_bool_mask, is_causal=True),
        E(q4, k4[..., :7], v4),
        E(q4, k4, v4[..., :4, :]),
        E(q4, k4, lambda T: T.tensor(v4, dtype=T.float64)),
        E(q4, k4, v4, attn_mask=np.zeros((4, 5), dtype=np.int64)),
        E(q4, k4, v4, attn_mask=np.zeros((4, 5), dtype=np.float16)),
        E(q4[0, 0, 0], k4[0, 0, 0], v4[0, 0, 0]),
        E(q4, k4[:, :2], v4[:, :2], enable_gqa=True),
        E(q4, k4, v4, dropout_p=1.5),
    ]),
    OpInfo("scaled_dot_product_attention", method=False, call=_seeded_sdpa, skip=NOT_PORTABLE, **TOL, samples=[
        S(q4, k4, v4, dropout_p=0.4),                         # the mask comes from torch's dropout stream
        S(q4, k4, v4, attn_mask=_bool_mask, dropout_p=0.5),
    ]),
    OpInfo("multi_head_attention_forward", method=False, call=_mha(), **TOL, samples=[
        _mha_sample(),
        _mha_sample(need_weights=False),
        _mha_sample(average_attn_weights=False, key_padding_mask=_kpm),
        _mha_sample(attn_mask=_mha_bool, key_padding_mask=_kpm.astype(np.float32) * -1e4),
        _mha_sample(attn_mask=rand(2 * H_, 4, 5, seed=5), need_weights=False),
        _mha_sample(bias_k=rand(1, 1, E_, seed=6), bias_v=rand(1, 1, E_, seed=7), key_padding_mask=_kpm),
        _mha_sample(add_zero_attn=True, attn_mask=rand(4, 5, seed=8), need_weights=False),
        _mha_sample(N=0, key_padding_mask=_kpm[0]),                                  # unbatched
        _mha_sample(N=0, attn_mask=rand(H_, 4, 5, seed=9)),
        _mha_sample(training=False, dropout_p=0.5),
        _mha_sample(static_k=rand(2 * H_, 3, E_ // H_, seed=14), static_v=rand(2 * H_, 3, E_ // H_, seed=15)),
        _mha_sample(use_separate_proj_weight=True, q_proj_weight=rand(E_, E_, seed=16),
                    k_proj_weight=rand(E_, E_, seed=17), v_proj_weight=rand(E_, E_, seed=18)),
        E(rand(4, 2, E_), rand(5, 2, E_), rand(5, E_), _w["in_w"], _w["in_b"], _w["out_w"], _w["out_b"]),
        E(*_mha_sample().args, attn_mask=rand(3, 5, seed=5)),
        E(*_mha_sample().args, attn_mask=rand(3, 4, 5, seed=5)),
        E(*_mha_sample().args, key_padding_mask=_kpm[:, :3]),
        E(*_mha_sample().args, is_causal=True),
        E(*_mha_sample().args, bias_k=rand(1, 1, E_, seed=6)),
        E(*_mha_sample().args, key_padding_mask=np.zeros((2, 5), dtype=np.int64)),
        E(*_mha_sample(L=4, S_=5, N=2).args[:2], rand(4, 2, E_), *_mha_sample().args[3:]),
    ]),
    # fully masked rows: NaN with need_weights=True (plain softmax), 0 without (SDPA), as torch; the NaN
    # gradients torch then spreads everywhere are not compared
    OpInfo("multi_head_attention_forward", method=False, call=_mha(), grad=False, **TOL, samples=[
        _mha_sample(attn_mask=_mha_bool_dead),
        _mha_sample(attn_mask=_mha_bool_dead, need_weights=False),
    ]),
    OpInfo("multi_head_attention_forward", method=False, call=_mha(self_attn=True), **TOL, samples=[
        _mha_sample(L=4, S_=4),
        _mha_sample(L=4, S_=4, attn_mask=_causal, is_causal=True, need_weights=False),
        _mha_sample(L=4, S_=4, attn_mask=_causal, is_causal=True, key_padding_mask=_kpm_self),
        _mha_sample(L=4, S_=4, key_padding_mask=_kpm_self, need_weights=False),
    ]),
    OpInfo("multi_head_attention_forward", method=False, call=_mha(self_attn=True, seed=3), skip=NOT_PORTABLE,
           **TOL, samples=[
        _mha_sample(L=4, S_=4, dropout_p=0.3),
        _mha_sample(L=4, S_=4, dropout_p=0.3, need_weights=False, key_padding_mask=_kpm_self),
    ]),
]
