"""Each row of docs/translated-defaults.md: the default torch has where MindSpore's differs, checked
against real torch (attributes, shapes, values, gradients, warnings). The last test keeps the table and
the tests in step: every row names a test function that exists."""
import math
import pathlib
import re
import warnings

import numpy as np
import pytest

from harness import check, check_grad, rand

DOC = pathlib.Path(__file__).resolve().parent.parent / "docs" / "translated-defaults.md"


def fill(T, m, scale=1.0):
    """Deterministic parameters, independent of either random generator."""
    with T.no_grad():
        for i, p in enumerate(m.parameters()):
            v = np.linspace(-1.0, 1.0, p.numel(), dtype=np.float32).reshape(tuple(p.shape)) * scale * (i + 1) / 4
            p.copy_(T.tensor(v))
    return m


def seeded(T, build, seed=0):
    T.manual_seed(seed)
    return build(T)


def warned(fn):
    """fn's result and the warnings it emitted, as (category, message) pairs."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = fn()
    return out, [(c.category.__name__, str(c.message)) for c in w]


def fn_name(f):
    return getattr(f, "__name__", repr(f))


# --- convolution and pooling ---------------------------------------------------------------------

def test_conv_padding_default():
    def fn(T):
        m = fill(T, T.nn.Conv2d(1, 2, 3))
        x = T.tensor(rand(1, 1, 5, 6))
        return m.padding, m.padding_mode, m.stride, m.dilation, m.groups, m(x), \
            T.nn.functional.conv2d(x, m.weight).shape, T.nn.Conv1d(1, 1, 2).padding
    check(fn)


def test_conv_padding_same_and_modes():
    def fn(T):
        x = T.tensor(rand(1, 1, 6))
        same = fill(T, T.nn.Conv1d(1, 1, 4, padding="same"))   # asymmetric: the extra zero goes right
        refl = fill(T, T.nn.Conv1d(1, 1, 3, padding=1, padding_mode="reflect"))
        circ = fill(T, T.nn.Conv1d(1, 1, 3, padding=2, padding_mode="circular"))
        return same(x), refl(x), circ(x), same.padding
    check(fn)


def test_conv_bias_default():
    def fn(T):
        mods = [T.nn.Conv1d(1, 1, 1), T.nn.Conv2d(1, 1, 1), T.nn.Conv3d(1, 1, 1), T.nn.ConvTranspose2d(1, 1, 1)]
        return [list(m.state_dict()) for m in mods]
    check(fn)


def test_conv_weight_layout():
    def fn(T):
        return (T.nn.Conv1d(4, 6, 3, groups=2).weight.shape, T.nn.Conv2d(4, 6, (2, 3), groups=2).weight.shape,
                T.nn.Conv3d(2, 3, 2).weight.shape, T.nn.ConvTranspose1d(4, 6, 3, groups=2).weight.shape,
                T.nn.ConvTranspose2d(4, 6, (2, 3), groups=2).weight.shape)
    check(fn)


def test_conv_transpose_weight_layout_in_forward():
    def fn(T):
        m = fill(T, T.nn.ConvTranspose1d(2, 3, 2, stride=2))
        return m(T.tensor(rand(1, 2, 3)))
    check(fn)


def test_conv_and_linear_init():
    # kaiming_uniform_(a=sqrt(5)) on the weight, U(-1/sqrt(fan_in), 1/sqrt(fan_in)) on the bias, drawn
    # from torch's generator in torch's order: identical values for the same seed
    def fn(T):
        conv = seeded(T, lambda T: T.nn.Conv2d(3, 4, 3))
        lin = seeded(T, lambda T: T.nn.Linear(6, 5))
        convt = seeded(T, lambda T: T.nn.ConvTranspose2d(3, 4, 2))
        fan_in = 3 * 9
        return (conv.weight, conv.bias, lin.weight, lin.bias, convt.weight, convt.bias,
                bool(conv.weight.abs().max() <= 1 / math.sqrt(fan_in)),
                bool(lin.bias.abs().max() <= 1 / math.sqrt(6)))
    check(fn)


def test_init_function_defaults():
    def fn(T):
        init = T.nn.init
        out = []
        for f in (init.kaiming_uniform_, init.kaiming_normal_, init.xavier_uniform_, init.xavier_normal_,
                  init.uniform_, init.normal_, init.trunc_normal_, init.orthogonal_):
            T.manual_seed(0)
            out.append(f(T.empty(4, 3)))
        return out, init.calculate_gain("leaky_relu"), init.calculate_gain("tanh"), init.calculate_gain("selu")
    check(fn, rtol=1e-5, atol=1e-6)


def test_linear_weight_layout():
    def fn(T):
        m = fill(T, T.nn.Linear(3, 5))
        x = T.tensor(rand(2, 3))
        return m.weight.shape, m.bias.shape, m(x), x @ m.weight.T + m.bias, list(m.state_dict())
    check(fn)


def test_pool_stride_default():
    def fn(T):
        mp, ap = T.nn.MaxPool2d(2), T.nn.AvgPool2d(3)
        x = T.tensor(rand(1, 1, 7, 7))
        return mp.stride, ap.stride, mp(x), ap(x), T.nn.functional.max_pool1d(x[0], 2).shape
    check(fn)


def test_pool_padding_and_ceil_mode_defaults():
    def fn(T):
        mp, ap = T.nn.MaxPool2d(3), T.nn.AvgPool2d(3)
        x = T.tensor(rand(1, 1, 8, 8))
        return (mp.padding, mp.dilation, mp.ceil_mode, mp.return_indices, ap.padding, ap.ceil_mode,
                ap.count_include_pad, ap.divisor_override, mp(x).shape,
                T.nn.MaxPool2d(3, ceil_mode=True)(x).shape, T.nn.AvgPool2d(3, padding=1)(x))
    check(fn)


def test_max_pool_indices_int64():
    def fn(T):
        x = T.tensor(rand(1, 2, 5, 5))
        out, idx = T.nn.functional.max_pool2d(x, 2, return_indices=True)
        out3, idx3 = T.nn.functional.adaptive_max_pool3d(x[None], 2, return_indices=True)
        return out, idx, idx.dtype, out3, idx3, idx3.dtype
    check(fn)


def test_adaptive_pool_bins():
    # torch's bins: start = floor(i * in / out), end = ceil((i + 1) * in / out); overlapping for 5 -> 3
    def fn(T):
        x = T.tensor(rand(1, 2, 5, 7))
        return (T.nn.AdaptiveAvgPool2d(3)(x), T.nn.AdaptiveMaxPool2d((3, None))(x), T.nn.AdaptiveAvgPool1d(4)(x[0]),
                T.nn.AdaptiveMaxPool2d(2).return_indices, T.nn.AdaptiveAvgPool2d((None, 2))(x).shape)
    check(fn)


# --- resampling ----------------------------------------------------------------------------------

def test_upsample_defaults():
    def fn(T):
        up = T.nn.Upsample(scale_factor=2)
        bl = T.nn.Upsample(scale_factor=2, mode="bilinear")
        x = T.tensor(rand(1, 1, 3, 3))
        return up.mode, up.align_corners, bl.align_corners, up(x), bl(x), \
            T.nn.functional.interpolate(x, size=(5, 4)), T.nn.UpsamplingBilinear2d(scale_factor=2)(x)
    check(fn)


def test_interpolate_scale_factor_coordinates():
    def fn(T):
        x = T.tensor(rand(1, 1, 4, 5))
        f = T.nn.functional.interpolate
        return (f(x, scale_factor=1.7, mode="bilinear"), f(x, scale_factor=1.7, mode="nearest"),
                f(x, scale_factor=1.7, mode="bilinear", recompute_scale_factor=True))
    check(fn)


def test_interpolate_bicubic_coefficient():
    def fn(T):
        x = T.tensor(rand(1, 1, 4, 4))
        return T.nn.functional.interpolate(x, size=(7, 6), mode="bicubic")
    check(fn, rtol=1e-4, atol=1e-5)


def test_grid_sample_align_corners_default():
    def fn(T):
        F = T.nn.functional
        theta = T.tensor([[[0.9, 0.1, 0.05], [-0.2, 1.1, 0.0]]])
        grid, w1 = warned(lambda: F.affine_grid(theta, [1, 1, 3, 4]))
        x = T.tensor(rand(1, 1, 3, 4))
        out, w2 = warned(lambda: F.grid_sample(x, grid))
        return grid, out, w1, w2, F.grid_sample(x, grid, align_corners=False)
    check(fn)


# --- normalisation -------------------------------------------------------------------------------

def test_batchnorm_momentum_default():
    # torch: running = (1 - 0.1) * running + 0.1 * batch; MindSpore's nn.BatchNorm2d default 0.9 weighs
    # the old value
    def fn(T):
        m = T.nn.BatchNorm1d(2)
        x = T.tensor(rand(6, 2))
        m(x)
        m(x * 2)
        return m.momentum, m.running_mean, m.running_var, m.num_batches_tracked
    check(fn)


def test_batchnorm_momentum_none_cumulative():
    def fn(T):
        m = T.nn.BatchNorm1d(2, momentum=None)
        for k in range(3):
            m(T.tensor(rand(5, 2, seed=k)))
        return m.running_mean, m.running_var, m.num_batches_tracked
    check(fn)


def test_batchnorm_unbiased_running_var():
    def fn(T):
        m = T.nn.BatchNorm2d(2, momentum=1.0)
        x = T.tensor(rand(2, 2, 2, 2))
        y = m(x)
        return y, m.running_var, x.var(dim=(0, 2, 3), unbiased=True)
    check(fn)


def test_batchnorm_buffers_and_eps():
    def fn(T):
        m = T.nn.BatchNorm2d(3)
        return (m.eps, m.affine, m.track_running_stats, list(m.state_dict()), m.num_batches_tracked.dtype,
                m.running_mean, m.running_var, m.weight, m.bias, m._version)
    check(fn)


def test_layernorm_defaults():
    def fn(T):
        m = fill(T, T.nn.LayerNorm(4))
        x = T.tensor(rand(2, 3, 4))
        return m.normalized_shape, m.eps, m.elementwise_affine, list(m.state_dict()), m(x), \
            T.nn.LayerNorm((3, 4))(x), T.nn.functional.layer_norm(x, (4,))
    check(fn, atol=1e-5)


def test_group_and_instance_norm_defaults():
    def fn(T):
        gn, inn = T.nn.GroupNorm(2, 4), T.nn.InstanceNorm2d(4)
        x = T.tensor(rand(2, 4, 3, 3))
        return (gn.eps, gn.affine, list(gn.state_dict()), inn.eps, inn.affine, inn.track_running_stats,
                inn.momentum, list(inn.state_dict()), gn(x), inn(x))
    check(fn, atol=1e-5)


# --- dropout, embedding, mode --------------------------------------------------------------------

def test_dropout_p_default():
    def fn(T):
        m = T.nn.Dropout()
        T.manual_seed(0)
        y = m(T.ones(64))
        m.eval()
        return m.p, m.inplace, y, sorted(set(y.tolist())), m(T.ones(4)), T.nn.functional.dropout(T.ones(3), 0.0)
    check(fn)


def test_embedding_init_normal():
    def fn(T):
        e = seeded(T, lambda T: T.nn.Embedding(10, 4))
        p = seeded(T, lambda T: T.nn.Embedding(6, 3, padding_idx=2))
        return e.weight, p.weight, p.padding_idx, e.max_norm, e.scale_grad_by_freq, e.sparse
    check(fn, rtol=1e-6, atol=1e-7)


def test_train_mode_default():
    # torch modules start in training mode (MindSpore Cells in inference mode: set_train(False))
    def fn(T):
        bn, drop = T.nn.BatchNorm1d(2), T.nn.Dropout(0.5)
        seq = T.nn.Sequential(bn, drop)
        x = T.tensor(rand(4, 2))
        y = bn(x)
        return T.nn.Module().training, seq.training, bn.training, drop.training, y, bn.running_mean, \
            bn.num_batches_tracked
    check(fn)


# --- recurrent -----------------------------------------------------------------------------------

def test_rnn_parameters_and_layout_defaults():
    def fn(T):
        lstm = T.nn.LSTM(3, 4, num_layers=2, bidirectional=True)
        gru = T.nn.GRU(3, 4)
        proj = T.nn.LSTM(3, 4, proj_size=2)
        return ([(n, p.shape) for n, p in lstm.named_parameters()], [(n, p.shape) for n, p in gru.named_parameters()],
                [(n, p.shape) for n, p in proj.named_parameters()], lstm.batch_first, lstm.bias, lstm.dropout,
                gru.nonlinearity if hasattr(gru, "nonlinearity") else None, T.nn.RNN(2, 2).nonlinearity)
    check(fn)


@pytest.mark.parametrize("cls", ["LSTM", "GRU", "RNN"])
def test_rnn_gate_order(cls):
    # same numbers in the same parameters give the same outputs only if the gates are read in torch's order
    def fn(T, x):
        m = fill(T, getattr(T.nn, cls)(3, 4), scale=0.7)
        out, h = m(x)
        return (out,) + (h if isinstance(h, tuple) else (h,))
    check_grad(fn, [rand(5, 2, 3)], atol=1e-5)


def test_rnn_init_uniform():
    def fn(T):
        lstm = seeded(T, lambda T: T.nn.LSTM(3, 4))
        gru = seeded(T, lambda T: T.nn.GRU(2, 5))
        return list(lstm.parameters()) + list(gru.parameters()), \
            bool(max(p.abs().max() for p in lstm.parameters()) <= 0.5)
    check(fn)


# --- attention and transformer -------------------------------------------------------------------

def test_multihead_attention_defaults():
    def fn(T):
        m = seeded(T, lambda T: T.nn.MultiheadAttention(4, 2))
        kv = T.nn.MultiheadAttention(4, 2, kdim=3, vdim=5)
        q = T.tensor(rand(3, 2, 4))
        out, w = m(q, q, q)
        return ([(n, p.shape) for n, p in m.named_parameters()], [n for n, _ in kv.named_parameters()],
                m.batch_first, m.dropout, m.add_zero_attn, m.bias_k, m._qkv_same_embed_dim, kv._qkv_same_embed_dim,
                type(m.out_proj).__name__, m.in_proj_weight, m.in_proj_bias, m.out_proj.bias, out.shape, w.shape,
                repr(m))
    check(fn)


def test_multihead_attention_returns_averaged_weights():
    def fn(T):
        m = fill(T, T.nn.MultiheadAttention(4, 2), scale=0.5)
        q, k = T.tensor(rand(3, 2, 4)), T.tensor(rand(5, 2, 4, seed=1))
        out, w = m(q, k, k)
        _, per_head = m(q, k, k, average_attn_weights=False)
        return out, w, per_head, m(q, k, k, need_weights=False)[1]
    check(fn, atol=1e-5)


def test_transformer_encoder_layer_defaults():
    def fn(T):
        m = T.nn.TransformerEncoderLayer(8, 2)
        d = T.nn.TransformerDecoderLayer(8, 2)
        t = T.nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1)
        return (m.linear1.out_features, m.dropout.p, m.dropout1.p, fn_name(m.activation), m.norm_first,
                m.norm1.eps, m.self_attn.batch_first, m.linear1.bias is not None, m.activation_relu_or_gelu,
                d.linear1.out_features, fn_name(d.activation), d.norm_first, t.d_model, t.nhead,
                t.batch_first, t.encoder.layers[0].linear1.out_features, type(t.encoder.norm).__name__,
                t.encoder.layers[0].dropout.p, T.nn.Transformer(d_model=8, nhead=2).encoder.num_layers)
    check(fn)


def test_transformer_activation_strings():
    def fn(T):
        g = T.nn.TransformerEncoderLayer(8, 2, activation="gelu")
        c = T.nn.TransformerEncoderLayer(8, 2, activation=T.nn.functional.silu)
        return fn_name(g.activation), g.activation_relu_or_gelu, fn_name(c.activation), c.activation_relu_or_gelu
    check(fn)


def test_transformer_encoder_defaults():
    def fn(T):
        enc, w = warned(lambda: T.nn.TransformerEncoder(T.nn.TransformerEncoderLayer(8, 2, batch_first=True), 2))
        _, w2 = warned(lambda: T.nn.TransformerEncoder(T.nn.TransformerEncoderLayer(8, 2), 1))
        return enc.enable_nested_tensor, enc.mask_check, enc.num_layers, enc.norm, w, w2
    check(fn)


def test_square_subsequent_mask_default():
    check(lambda T: T.nn.Transformer.generate_square_subsequent_mask(4))


# --- activations ---------------------------------------------------------------------------------

_KINKS = np.array([-3.0, -1.0, 0.0, 1.0, 3.0, 6.0, 7.0], dtype=np.float32)


def test_leaky_relu_slope_default():
    check(lambda T: T.nn.LeakyReLU().negative_slope)
    check_grad(lambda T, x: T.nn.LeakyReLU()(x), [_KINKS])


def test_gelu_approximate_default():
    check(lambda T: T.nn.GELU().approximate)
    check_grad(lambda T, x: T.nn.GELU()(x), [_KINKS], atol=1e-6)


def test_softmax_implicit_dim():
    def fn(T):
        x = T.tensor(rand(2, 3, 4))
        outs = []
        for cls in (T.nn.Softmax, T.nn.LogSoftmax, T.nn.Softmin):
            y, w = warned(lambda: cls()(x))
            outs.append((cls().dim, y, w))
        return outs
    check(fn, atol=1e-6)


def test_relu6_hardtanh_gradient_at_limits():
    check_grad(lambda T, x: (T.nn.ReLU6()(x), T.nn.Hardtanh()(x), T.nn.Hardtanh(-3.0, 3.0)(x)),
               [np.array([-3.0, -1.0, 0.0, 1.0, 3.0, 6.0], dtype=np.float32)])


def test_hardswish_gradient_at_three():
    check_grad(lambda T, x: T.nn.Hardswish()(x), [np.array([-4.0, -3.0, 0.0, 3.0, 4.0], dtype=np.float32)])


# --- losses --------------------------------------------------------------------------------------

def test_bce_log_clamp():
    def fn(T, p):
        t = T.tensor([0.0, 1.0, 1.0, 0.0])
        return T.nn.BCELoss(reduction="none")(p, t), T.nn.BCELoss()(p, t)
    check_grad(fn, [np.array([0.0, 0.0, 1.0, 0.3], dtype=np.float32)])


def test_smooth_l1_defaults():
    def fn(T, a):
        m = T.nn.SmoothL1Loss()
        return m.reduction, m.beta, m(a, T.zeros(4))
    check_grad(fn, [np.array([-2.0, -0.5, 0.25, 3.0], dtype=np.float32)])


def test_cross_entropy_defaults():
    def fn(T, logits):
        m = T.nn.CrossEntropyLoss()
        w = T.nn.CrossEntropyLoss(weight=T.tensor([1.0, 2.0, 0.5]))
        target = T.tensor([0, 2, -100, 1])
        return (m.reduction, m.ignore_index, m.label_smoothing, list(w.state_dict()), m(logits, target),
                w(logits, target), T.nn.functional.cross_entropy(logits, target))
    check_grad(fn, [rand(4, 3)])


def test_nll_and_mse_reduction_defaults():
    def fn(T, a):
        return (T.nn.NLLLoss().reduction, T.nn.NLLLoss().ignore_index, T.nn.MSELoss().reduction,
                T.nn.L1Loss()(a, T.zeros(4)), T.nn.MSELoss()(a, T.ones(4)))
    check_grad(fn, [rand(4)])


def test_legacy_size_average_reduce():
    def fn(T):
        m, w = warned(lambda: T.nn.MSELoss(size_average=False))
        n, w2 = warned(lambda: T.nn.L1Loss(reduce=False))
        return m.reduction, w, n.reduction, w2
    check(fn)


# --- tensors: dtypes, devices, random streams ----------------------------------------------------

def test_default_dtypes_and_device():
    def fn(T):
        return (T.get_default_dtype(), T.tensor([1.0]).dtype, T.tensor([1]).dtype, T.tensor(True).dtype,
                T.ones(1).dtype, T.arange(3).dtype, T.arange(3.0).dtype, T.zeros(1).device, T.nn.Linear(1, 1).weight.dtype,
                T.tensor(np.zeros(2)).dtype, T.full((1,), 2).dtype)
    check(fn)


def test_manual_seed_streams():
    def fn(T):
        T.manual_seed(42)
        return T.rand(3), T.randn(3), T.randint(0, 10, (4,)), T.randperm(5)
    check(fn, atol=1e-6)


# --- the table -----------------------------------------------------------------------------------

def _table_rows():
    rows = []
    lines = DOC.read_text().splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("| API"))
    cols = [c.strip() for c in lines[header].strip("|").split("|")]
    for line in lines[header + 2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows.append(dict(zip(cols, cells)))
    return cols, rows


def test_every_table_row_names_an_existing_test():
    cols, rows = _table_rows()
    assert cols[-1] == "Tested by"
    assert len(rows) >= 40
    here = pathlib.Path(__file__).resolve().parent
    for row in rows:
        refs = re.findall(r"`([\w/]+\.py)::(\w+)", row["Tested by"])
        assert refs, f"row {row['API']!r} names no test function"
        for path, func in refs:
            src = (here / pathlib.Path(path).name).read_text()
            assert re.search(rf"^def {func}\(", src, re.M), f"{path}::{func} (row {row['API']!r}) does not exist"
