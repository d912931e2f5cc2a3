"""MultiheadAttention and the Transformer family beyond the layer list (module_db/transformer.py):
dropout drawn from torch's stream, torch's inference fast paths (eval + no grad, including
TransformerEncoder's nested-tensor path), forward-time errors, warnings and the causal-mask helper."""
import io
import warnings

import numpy as np
import pytest
import torch

import mstorch
from op_db.nn_attention import NOT_PORTABLE
from harness import assert_same, check, rand, run, Raised

TOL = dict(rtol=1e-5, atol=1e-5)
KPM = np.array([[False, False, True, True], [False, False, False, True]])


def _same_message(fn):
    ref, got = run(fn, torch), run(fn, mstorch)
    assert isinstance(ref, Raised), f"torch accepted it: {ref!r}"
    assert_same(ref, got)
    assert str(got.exc) == str(ref.exc), f"torch {ref.exc!r} vs mstorch {got.exc!r}"


def _encoder(T, norm_bias=0.0, **kw):
    T.manual_seed(0)
    layer = T.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, **kw)
    norm = T.nn.LayerNorm(8)
    with T.no_grad():
        norm.bias.fill_(norm_bias)
    return T.nn.TransformerEncoder(layer, 2, norm=norm)


@pytest.mark.parametrize("grad", [True, False])
def test_encoder_eval_paths(grad):
    """Without grad torch runs its nested-tensor path (0 at padded positions before the final norm);
    with grad its regular path. mstorch gives the same numbers in both cases."""
    def fn(T):
        enc = _encoder(T, norm_bias=0.5).eval()
        x = T.tensor(rand(2, 4, 8))
        with T.set_grad_enabled(grad):
            out = enc(x, src_key_padding_mask=T.tensor(KPM))
            not_left_aligned = enc(x, src_key_padding_mask=T.tensor(KPM[:, ::-1].copy()))
            with_mask = enc(x, mask=T.nn.Transformer.generate_square_subsequent_mask(4),
                            src_key_padding_mask=T.tensor(KPM))
            plain = enc(x)
        return out, not_left_aligned, with_mask, plain
    check(fn, **TOL)


def test_layer_and_mha_fast_paths_match():
    """torch's fused inference kernels (eval, no grad, batch_first) against mstorch's regular path."""
    def fn(T):
        T.manual_seed(0)
        layer = T.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, activation="gelu").eval()
        mha = T.nn.MultiheadAttention(8, 2, batch_first=True).eval()
        x = T.tensor(rand(2, 4, 8))
        kpm = T.tensor(KPM)
        with T.no_grad():
            a = layer(x, src_key_padding_mask=kpm)
            # a causal float mask: torch's fused layer returns NaN for float masks with other finite values
            # (its regular path does not; mstorch follows the regular path, docs/known-differences.md)
            b = layer(x, src_mask=T.nn.Transformer.generate_square_subsequent_mask(4))
            c, w = mha(x, x, x, key_padding_mask=kpm)
            d, w2 = mha(x, x, x, key_padding_mask=kpm, average_attn_weights=False)
        return a, b, c, w, d, w2
    check(fn, **TOL)


@pytest.mark.skipif(bool(NOT_PORTABLE), reason=NOT_PORTABLE)
def test_dropout_streams_match():
    """Attention-weight dropout, the layers' Dropout modules and the feed-forward dropout draw torch's
    masks with the same seed."""
    def fn(T):
        T.manual_seed(5)
        model = T.nn.Transformer(8, 2, 1, 1, 16, dropout=0.3)
        src = T.tensor(rand(5, 2, 8), requires_grad=True)
        tgt = T.tensor(rand(4, 2, 8, seed=1))
        out = model(src, tgt, tgt_mask=model.generate_square_subsequent_mask(4))
        out.sum().backward()
        mha = T.nn.MultiheadAttention(8, 2, dropout=0.5)
        q = T.tensor(rand(4, 2, 8, seed=2))
        o, w = mha(q, q, q)
        return out, src.grad, o, w
    check(fn, **TOL)


def test_generate_square_subsequent_mask():
    check(lambda T: (T.nn.Transformer.generate_square_subsequent_mask(4),
                     T.nn.Transformer.generate_square_subsequent_mask(3, dtype=T.float64)))


def test_is_causal_detection_and_hint():
    def fn(T):
        T.manual_seed(0)
        enc = T.nn.TransformerEncoder(T.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 1,
                                      enable_nested_tensor=False)
        x = T.tensor(rand(4, 2, 8))
        causal = T.nn.Transformer.generate_square_subsequent_mask(4)
        return enc(x, mask=causal), enc(x, mask=causal, is_causal=True), enc(x, mask=causal, is_causal=False)
    check(fn, **TOL)


def test_nested_tensor_warning_text():
    def warned(T):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            layer = T.nn.TransformerEncoderLayer(8, 2, 16, norm_first=True)
            enc = T.nn.TransformerEncoder(layer, 2)
        return [str(x.message) for x in w], enc.use_nested_tensor, enc.enable_nested_tensor
    assert warned(torch) == warned(mstorch)


def test_mask_type_warning_text():
    def warned(T):
        mha = T.nn.MultiheadAttention(4, 2)
        q = T.tensor(rand(3, 1, 4))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            mha(q, q, q, key_padding_mask=T.tensor([[True, False, False]]), attn_mask=T.zeros(3, 3))
        return [str(x.message) for x in w]
    assert warned(torch) == warned(mstorch)


def test_activation_attributes():
    def fn(T):
        a = T.nn.TransformerEncoderLayer(8, 2, 16)
        b = T.nn.TransformerEncoderLayer(8, 2, 16, activation="gelu")
        c = T.nn.TransformerEncoderLayer(8, 2, 16, activation=T.nn.GELU())
        d = T.nn.TransformerEncoderLayer(8, 2, 16, activation=T.tanh)
        return (a.activation is T.nn.functional.relu, b.activation is T.nn.functional.gelu,
                [m.activation_relu_or_gelu for m in (a, b, c, d)], repr(c))
    check(fn)


def test_whole_model_checkpoints_cross_load():
    """torch.save(model) in one library, torch.load in the other: the activation function (F.relu) and
    out_proj's NonDynamicallyQuantizableLinear are named as torch names them."""
    x = rand(5, 2, 8)
    for src, dst in ((mstorch, torch), (torch, mstorch)):
        src.manual_seed(0)
        # (torch pickles F.gelu as torch._C._nn.gelu, a path mstorch.load does not map yet: relu here)
        m = src.nn.Transformer(8, 2, 1, 1, 16, norm_first=True).eval()
        buf = io.BytesIO()
        src.save(m, buf)
        back = dst.load(io.BytesIO(buf.getvalue()), weights_only=False).eval()
        assert repr(back) == repr(m)
        assert back.encoder.layers[0].activation is dst.nn.functional.relu
        a = m(src.tensor(x), src.tensor(x[:4]))
        b = back(dst.tensor(x), dst.tensor(x[:4]))
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-5, atol=1e-5)


FORWARD_ERRORS = {
    "batch": lambda T: T.nn.Transformer(8, 2, 1, 1, 16)(T.zeros(5, 2, 8), T.zeros(4, 3, 8)),
    "batch-first": lambda T: T.nn.Transformer(8, 2, 1, 1, 16, batch_first=True)(T.zeros(2, 5, 8), T.zeros(3, 4, 8)),
    "d_model": lambda T: T.nn.Transformer(8, 2, 1, 1, 16)(T.zeros(5, 2, 8), T.zeros(4, 2, 6)),
    "need-mask-for-causal": lambda T: T.nn.MultiheadAttention(4, 2)(T.zeros(3, 1, 4), T.zeros(3, 1, 4),
                                                                   T.zeros(3, 1, 4), is_causal=True),
    "2d-mask": lambda T: T.nn.MultiheadAttention(4, 2)(T.zeros(3, 1, 4), T.zeros(5, 1, 4), T.zeros(5, 1, 4),
                                                      attn_mask=T.zeros(3, 4)),
    "3d-mask": lambda T: T.nn.MultiheadAttention(4, 2)(T.zeros(3, 1, 4), T.zeros(5, 1, 4), T.zeros(5, 1, 4),
                                                      attn_mask=T.zeros(3, 3, 5)),
    "mask-dtype": lambda T: T.nn.MultiheadAttention(4, 2)(T.zeros(3, 1, 4), T.zeros(5, 1, 4), T.zeros(5, 1, 4),
                                                         key_padding_mask=T.zeros(1, 5, dtype=T.int64)),
    "kpm-shape": lambda T: T.nn.MultiheadAttention(4, 2)(T.zeros(3, 1, 4), T.zeros(5, 1, 4), T.zeros(5, 1, 4),
                                                        key_padding_mask=T.zeros(1, 4, dtype=T.bool)),
    "kv-shape": lambda T: T.nn.MultiheadAttention(4, 2)(T.zeros(3, 1, 4), T.zeros(5, 1, 4), T.zeros(4, 1, 4)),
    "embed": lambda T: T.nn.MultiheadAttention(4, 2)(T.zeros(3, 1, 6), T.zeros(5, 1, 6), T.zeros(5, 1, 6)),
    "unbatched-kv": lambda T: T.nn.MultiheadAttention(4, 2)(T.zeros(3, 4), T.zeros(5, 1, 4), T.zeros(5, 1, 4)),
    "1d-query": lambda T: T.nn.MultiheadAttention(4, 2)(T.zeros(4), T.zeros(4), T.zeros(4)),
    "kdim": lambda T: T.nn.MultiheadAttention(4, 2, kdim=3)(T.zeros(3, 1, 4), T.zeros(5, 1, 4), T.zeros(5, 1, 4)),
}


@pytest.mark.parametrize("name", list(FORWARD_ERRORS))
def test_forward_errors(name):
    _same_message(FORWARD_ERRORS[name])
