"""Seeded initial weights: the same seed gives torch's initial ``state_dict`` (issue 6).

Levels: bit-exact for everything torch derives from uniform bits (default init of Linear, Conv*, RNNs,
attention, xavier/kaiming uniform_...); at most 2 ulp for normal-based inits (normal_, trunc_normal_,
xavier/kaiming normal_, Embedding's default init); orthogonal_ within 1e-5. After every construction the
generator must sit at torch's stream position: ``rand(5)`` drawn next and the state bytes must match.
"""
import fnmatch
import warnings

import numpy as np
import pytest
import torch

import mstorch
from harness import to_np

SEEDS = (0, 1, 1234)


# --- comparison at the levels ------------------------------------------------------------

def _ulps(a, b, dtype):
    """|a - b| in units of the reference value's spacing in ``dtype`` (bfloat16: 8 significant bits)."""
    ref = a.astype(np.float64)
    if dtype in (torch.float32, torch.float64, torch.float16):
        spacing = np.spacing(np.abs(a)).astype(np.float64)
    else:  # bfloat16 arrives as float32 values
        spacing = np.spacing(np.abs(a).astype(np.float32)).astype(np.float64) * 2.0 ** 16
    return np.abs(b.astype(np.float64) - ref) / spacing


def assert_level(ref, got, level, name):
    assert tuple(got.shape) == tuple(ref.shape), f"{name}: shape {tuple(got.shape)}, torch {tuple(ref.shape)}"
    assert repr(got.dtype) == repr(ref.dtype), f"{name}: dtype {got.dtype}, torch {ref.dtype}"
    a, b = to_np(ref), to_np(got)
    if level == "exact" or not ref.dtype.is_floating_point:
        np.testing.assert_array_equal(b, a, err_msg=f"{name}: not bit-exact")
    elif level == "ulp":
        worst = _ulps(a, b, ref.dtype).max(initial=0.0)
        assert worst <= 2, f"{name}: {worst} ulp from torch (at most 2 allowed)"
    else:  # orthogonal_: torch factorises in the tensor's dtype with LAPACK
        np.testing.assert_allclose(b, a, rtol=0, atol=1e-5, err_msg=name)


def assert_same_stream():
    """The next draws and the generator bytes agree: construction consumed torch's stream exactly."""
    np.testing.assert_array_equal(to_np(mstorch.rand(5)), to_np(torch.rand(5)))
    np.testing.assert_array_equal(to_np(mstorch.get_rng_state()), to_np(torch.get_rng_state()))


def build_both(build, seed):
    models = []
    for T in (torch, mstorch):
        T.manual_seed(seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # nested-tensor advice from Transformer layers
            models.append(build(T))
    return models


def assert_same_state(ref_model, got_model, normal=()):
    """Keys in order, then every entry at its level (``normal``: fnmatch patterns of normal-based keys)."""
    ref, got = ref_model.state_dict(), got_model.state_dict()
    assert list(got) == list(ref)
    for key in ref:
        level = "ulp" if any(fnmatch.fnmatchcase(key, p) for p in normal) else "exact"
        assert_level(ref[key], got[key], level, key)


# --- the models ----------------------------------------------------------------------------------

def small_cnn(T):
    nn = T.nn
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(8, 4, 3), nn.Flatten(), nn.Linear(16, 10), nn.Dropout(0.25))


def recurrent(T):
    nn = T.nn
    return nn.ModuleDict(dict(
        lstm=nn.LSTM(6, 5, num_layers=2, bidirectional=True),
        proj=nn.LSTM(6, 5, num_layers=2, bidirectional=True, proj_size=3, batch_first=True),
        gru=nn.GRU(4, 3, num_layers=2, dropout=0.1),
        rnn=nn.RNN(4, 3, nonlinearity="relu", bias=False),
        cell=nn.ModuleList([nn.LSTMCell(3, 4), nn.GRUCell(3, 4, bias=False), nn.RNNCell(3, 4)])))


def transformer_encoder(T):
    nn = T.nn
    return nn.TransformerEncoder(nn.TransformerEncoderLayer(d_model=16, nhead=4, dim_feedforward=32),
                                 num_layers=2)


def transformer(T):
    nn = T.nn
    return nn.Transformer(d_model=16, nhead=2, num_encoder_layers=1, num_decoder_layers=2,
                          dim_feedforward=24)


def mixed(T):
    nn = T.nn
    return nn.ModuleDict(dict(
        emb=nn.Embedding(10, 4, padding_idx=2), bil=nn.Bilinear(3, 4, 5), ct=nn.ConvTranspose2d(3, 4, 3),
        mha=nn.MultiheadAttention(8, 2, kdim=5, vdim=6), ln=nn.LayerNorm(6), pr=nn.PReLU(3),
        bag=nn.EmbeddingBag(7, 3, mode="sum")))


def more_layers(T):
    nn = T.nn
    return nn.ModuleDict(dict(
        c1=nn.Conv1d(4, 6, 3, groups=2, bias=False), c3=nn.Conv3d(2, 3, (1, 2, 3), padding=1,
                                                                   padding_mode="circular"),
        t1=nn.ConvTranspose1d(4, 6, 3, groups=2), t3=nn.ConvTranspose3d(2, 3, 2, bias=False),
        lin=nn.Linear(5, 3, bias=False), bil=nn.Bilinear(2, 3, 4, bias=False),
        gn=nn.GroupNorm(2, 4), inorm=nn.InstanceNorm2d(3, affine=True, track_running_stats=True),
        bn1=nn.BatchNorm1d(3, affine=False), bn3=nn.BatchNorm3d(3, momentum=None),
        ln=nn.LayerNorm([2, 3], bias=False), ln0=nn.LayerNorm(3, elementwise_affine=False), rms=nn.RMSNorm(4),
        gru=nn.GRU(3, 4, num_layers=3, bidirectional=True), lstm=nn.LSTM(3, 4, batch_first=True, bias=False),
        kv=nn.MultiheadAttention(8, 2, add_bias_kv=True, add_zero_attn=True),
        nob=nn.MultiheadAttention(8, 4, bias=False, batch_first=True),
        kd=nn.MultiheadAttention(8, 2, kdim=3, vdim=3, add_bias_kv=True),
        dec=nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, norm_first=True, bias=False), 2,
                                  norm=nn.LayerNorm(8)),
        emb=nn.Embedding(6, 3, max_norm=1.0), neg=nn.Embedding(6, 3, padding_idx=-1),
        bag=nn.EmbeddingBag(6, 3, padding_idx=0, mode="max"), pr=nn.PReLU(init=0.1)))


def factory_dtypes(T):
    nn = T.nn
    return nn.ModuleDict(dict(
        lin=nn.Linear(3, 4, dtype=T.float64), conv=nn.Conv2d(2, 3, 2, dtype=T.float16),
        bf=nn.Linear(3, 4, dtype=T.bfloat16), emb=nn.Embedding(5, 3, dtype=T.float64),
        emb16=nn.Embedding(5, 3, dtype=T.float16), lstm=nn.LSTM(3, 4, dtype=T.float64),
        mha=nn.MultiheadAttention(4, 2, dtype=T.float64), bil=nn.Bilinear(2, 3, 4, dtype=T.float64)))


MODELS = {
    "cnn": (small_cnn, ()),
    "recurrent": (recurrent, ()),
    "transformer_encoder": (transformer_encoder, ()),
    "transformer": (transformer, ()),
    "mixed": (mixed, ("emb.weight", "bag.weight")),
    "more_layers": (more_layers, ("emb.weight", "neg.weight", "bag.weight")),
    "factory_dtypes": (factory_dtypes, ("emb.weight", "emb16.weight")),
}


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", list(MODELS))
def test_initial_state_dict(name, seed):
    build, normal = MODELS[name]
    ref, got = build_both(build, seed)
    assert_same_state(ref, got, normal)
    assert_same_stream()


def test_cnn_forward_and_dropout_stream():
    ref, got = build_both(small_cnn, 7)
    x = np.random.default_rng(0).standard_normal((2, 3, 8, 8)).astype(np.float32)
    outs = [m(T.tensor(x)) for m, T in ((ref, torch), (got, mstorch))]   # train mode: dropout draws
    np.testing.assert_allclose(to_np(outs[1]), to_np(outs[0]), rtol=1e-5, atol=1e-5)
    assert_same_stream()


def test_reset_parameters_and_custom_init():
    """Re-running each layer's reset_parameters, then a typical ``apply`` init, in module order."""
    def reinit(T):
        nn = T.nn

        def custom(m):
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                nn.init.trunc_normal_(m.weight, std=0.02)
            elif isinstance(m, nn.Embedding):
                nn.init.xavier_uniform_(m.weight)
        model = nn.ModuleDict(dict(cnn=small_cnn(T), mix=mixed(T), rec=recurrent(T)))
        for m in model.modules():
            if hasattr(m, "reset_parameters") and m is not model:
                m.reset_parameters()
        return model.apply(custom)
    ref, got = build_both(reinit, 3)
    assert_same_state(ref, got, normal=("cnn.0.weight", "cnn.4.weight", "cnn.6.weight", "mix.bag.weight",
                                        "mix.mha.out_proj.weight"))
    assert_same_stream()


def test_float64_default_dtype():
    def build(T):
        old = T.get_default_dtype()
        T.set_default_dtype(T.float64)
        try:
            model = T.nn.ModuleDict(dict(cnn=small_cnn(T), mix=mixed(T), enc=transformer_encoder(T),
                                         lstm=T.nn.LSTM(3, 4, proj_size=2)))
            model.sample = T.rand(3)                       # a float64 draw under the float64 default
        finally:
            T.set_default_dtype(old)
        return model
    ref, got = build_both(build, 1234)
    assert ref.state_dict()["cnn.0.weight"].dtype == torch.float64
    assert_same_state(ref, got, normal=("mix.emb.weight", "mix.bag.weight"))
    assert_level(ref.sample, got.sample, "exact", "rand under float64")
    assert_same_stream()


# --- nn.init functions in sequence, global and explicit generators interleaved --------------------

def init_sequence(T, g):
    """(name, tensor, level) for a run of nn.init calls; ``g`` is passed to every other call."""
    I = T.nn.init
    out = []

    def step(name, shape, fn, level, dtype=None, **kw):
        w = T.empty(*shape, dtype=dtype)
        fn(w, **kw)
        out.append((name, w, level))
    step("xavier_normal_", (6, 5), I.xavier_normal_, "ulp", gain=2.0, generator=g)
    step("kaiming_normal_", (4, 3, 3, 3), I.kaiming_normal_, "ulp", mode="fan_out", nonlinearity="relu")
    step("trunc_normal_", (7, 9), I.trunc_normal_, "ulp", std=0.02, generator=g)
    # a narrow window: torch switches to uniform proposals accepted by a log-density test
    step("trunc_normal_ narrow", (3, 5), I.trunc_normal_, "ulp", mean=0.5, a=0.0, b=0.2)
    step("trunc_normal_ rejecting", (20, 3), I.trunc_normal_, "ulp", a=-0.5, b=0.5, generator=g)
    step("orthogonal_ wide", (5, 8), I.orthogonal_, "ortho", gain=1.5)
    step("orthogonal_ tall", (8, 3, 2), I.orthogonal_, "ortho", generator=g)
    # sparse_ takes its permutations from the global generator even when given `generator`
    step("sparse_", (10, 4), I.sparse_, "ulp", sparsity=0.3, std=0.1, generator=g)
    step("sparse_ global", (6, 3), I.sparse_, "ulp", sparsity=0.5)
    step("normal_", (33,), I.normal_, "ulp", mean=1.0, std=3.0, generator=g)
    step("normal_ small", (5,), I.normal_, "ulp")
    step("uniform_", (3, 4), I.uniform_, "exact", a=-2, b=5, generator=g)
    step("dirac_", (4, 2, 3, 3), I.dirac_, "exact", groups=2)
    step("eye_", (3, 5), I.eye_, "exact")
    step("xavier_uniform_ f64", (6, 7), I.xavier_uniform_, "exact", dtype=T.float64)
    step("kaiming_uniform_ f64", (6, 7), I.kaiming_uniform_, "exact", dtype=T.float64, a=0.3, generator=g)
    step("normal_ f64", (17,), I.normal_, "ulp", dtype=T.float64, generator=g)
    step("kaiming_uniform_", (3, 2, 2), I.kaiming_uniform_, "exact", nonlinearity="tanh")
    step("constant_", (3, 4), I.constant_, "exact", val=0.3)
    out.append(("rand(generator)", T.rand(3, generator=g), "exact"))
    return out


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("explicit", [False, True], ids=["global", "explicit_generator"])
def test_init_functions_in_sequence(seed, explicit):
    runs, gens = [], []
    for T in (torch, mstorch):
        T.manual_seed(seed)
        g = T.Generator().manual_seed(seed + 7) if explicit else None
        runs.append(init_sequence(T, g))
        gens.append(g)
    for (name, ref, level), (_, got, _) in zip(*runs, strict=True):
        assert_level(ref, got, level, name)
    if explicit:
        np.testing.assert_array_equal(to_np(gens[1].get_state()), to_np(gens[0].get_state()))
    assert_same_stream()


def test_init_on_transposed_views():
    """torch fills a non-contiguous tensor in memory order, and normal_ then draws one sample at a time."""
    results = []
    for T in (torch, mstorch):
        T.manual_seed(0)
        w = T.zeros(4, 6)
        T.nn.init.uniform_(w.t())
        v = T.zeros(8, 6)
        T.nn.init.normal_(v.t())
        results.append((w, v))
    for ref, got in zip(*results):
        assert_level(ref, got, "ulp", "init through a transposed view")
    assert_same_stream()


# --- nn.init's errors, warnings and gains ---------------------------------------------------------

INIT_ERRORS = {
    "xavier_1d": lambda T: T.nn.init.xavier_uniform_(T.empty(3)),
    "kaiming_mode": lambda T: T.nn.init.kaiming_normal_(T.empty(3, 3), mode="fan_avg"),
    "kaiming_nonlinearity": lambda T: T.nn.init.kaiming_uniform_(T.empty(3, 3), nonlinearity="gelu"),
    "gain_slope_bool": lambda T: T.nn.init.calculate_gain("leaky_relu", True),
    "gain_slope_str": lambda T: T.nn.init.calculate_gain("leaky_relu", "0.1"),
    "orthogonal_1d": lambda T: T.nn.init.orthogonal_(T.empty(3)),
    "sparse_3d": lambda T: T.nn.init.sparse_(T.empty(2, 2, 2), 0.1),
    "dirac_2d": lambda T: T.nn.init.dirac_(T.empty(3, 3)),
    "dirac_groups": lambda T: T.nn.init.dirac_(T.empty(3, 2, 2), groups=2),
    "eye_3d": lambda T: T.nn.init.eye_(T.empty(2, 2, 2)),
    "uniform_bounds": lambda T: T.nn.init.uniform_(T.empty(2), 2.0, 1.0),
    "normal_std": lambda T: T.nn.init.normal_(T.empty(2), std=-1.0),
    # torch has no half QR on the CPU; it raises after drawing the normal matrix
    "orthogonal_half": lambda T: T.nn.init.orthogonal_(T.empty(3, 4, dtype=T.float16)),
    "orthogonal_bfloat16": lambda T: T.nn.init.orthogonal_(T.empty(5, 2, dtype=T.bfloat16)),
}


@pytest.mark.parametrize("case", list(INIT_ERRORS))
def test_init_errors(case):
    raised = []
    for T in (torch, mstorch):
        T.manual_seed(0)
        with pytest.raises(Exception) as info:
            INIT_ERRORS[case](T)
        raised.append(info.value)
    ref, got = raised
    assert type(got) is type(ref) and str(got) == str(ref), f"{got!r}, torch {ref!r}"
    assert_same_stream()


def test_init_warnings_and_gains():
    seen = []
    for T in (torch, mstorch):
        I = T.nn.init
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            I.kaiming_uniform_(T.empty(0, 3))
            I.kaiming_normal_(T.empty(3, 0))
            I.trunc_normal_(T.empty(2), mean=5.0, std=1.0, a=-1.0, b=1.0)
            I.uniform(T.empty(2))
        gains = [I.calculate_gain(n) for n in ("linear", "conv_transpose3d", "sigmoid", "tanh", "relu",
                                                "leaky_relu", "selu")]
        gains += [I.calculate_gain("leaky_relu", 0.2), I.calculate_gain("leaky_relu", 3)]
        seen.append(([(w.category, str(w.message)) for w in caught], gains))
    assert seen[1] == seen[0]
