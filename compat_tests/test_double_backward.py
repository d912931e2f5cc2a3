"""Second-order gradients (``create_graph=True``) against torch: a WGAN-GP step on a CNN critic, a MAML
step on an MLP, Hessian-vector products of a small transformer loss, and a gradgradcheck-style sweep
of every op in the table with float samples (float64). Ops mstorch cannot differentiate twice must
raise NotImplementedError naming the op, never return a wrong (or zero) second derivative; they are
listed in REFUSED below (none at present) and in docs/known-differences.md."""
import numpy as np
import pytest
import torch

import mstorch
from harness import check, run, Raised, rand
from op_db import ALL, E
import test_ops

RNG = np.random.RandomState(7)


def _params(T, arrays):
    return [T.tensor(a, requires_grad=True) for a in arrays]


# --- WGAN-GP on a small CNN critic --------------------------------------------------------------------

CRITIC = [RNG.randn(4, 2, 3, 3).astype("float32") * 0.3, RNG.randn(4).astype("float32") * 0.1,
          RNG.randn(6, 4, 3, 3).astype("float32") * 0.2, RNG.randn(6).astype("float32") * 0.1,
          RNG.randn(1, 6 * 2 * 2).astype("float32") * 0.3, RNG.randn(1).astype("float32") * 0.1]
REAL, FAKE = RNG.randn(3, 2, 6, 6).astype("float32"), RNG.randn(3, 2, 6, 6).astype("float32")
EPS = np.array([0.2, 0.5, 0.9], dtype="float32").reshape(3, 1, 1, 1)


def test_wgan_gp_cnn_critic():
    def fn(T):
        F = T.nn.functional
        w1, b1, w2, b2, w3, b3 = ps = _params(T, CRITIC)

        def critic(x):
            h = F.leaky_relu(F.conv2d(x, w1, b1, padding=1), 0.2)
            h = F.leaky_relu(F.conv2d(h, w2, b2, stride=2), 0.2)
            return F.linear(h.view(h.shape[0], -1), w3, b3)

        real, fake, e = T.tensor(REAL), T.tensor(FAKE), T.tensor(EPS)
        xhat = (e * real + (1 - e) * fake).requires_grad_(True)
        out = critic(xhat)
        (g,) = T.autograd.grad(out, xhat, grad_outputs=T.ones_like(out), create_graph=True)
        penalty = ((g.view(g.shape[0], -1).norm(2, dim=1) - 1) ** 2).mean()
        loss = critic(fake).mean() - critic(real).mean() + 10 * penalty
        loss.backward()
        return loss, g, [p.grad for p in ps]
    check(fn, rtol=1e-4, atol=1e-5)


# --- MAML on an MLP ---------------------------------------------------------------------------------

MLP = [RNG.randn(16, 1).astype("float32") * 0.8, RNG.randn(16).astype("float32") * 0.3,
       RNG.randn(16, 16).astype("float32") * 0.3, RNG.randn(16).astype("float32") * 0.1,
       RNG.randn(1, 16).astype("float32") * 0.3, RNG.randn(1).astype("float32") * 0.1]
XS, XQ = RNG.uniform(-5, 5, (10, 1)).astype("float32"), RNG.uniform(-5, 5, (10, 1)).astype("float32")
YS, YQ = (2 * np.sin(XS + 0.5)).astype("float32"), (2 * np.sin(XQ + 0.5)).astype("float32")


@pytest.mark.parametrize("act", ["relu", "tanh"])
def test_maml_step_on_an_mlp(act):
    def fn(T):
        F = T.nn.functional
        theta = _params(T, MLP)

        def net(x, p):
            h = getattr(T, act)(F.linear(x, p[0], p[1]))
            h = getattr(T, act)(F.linear(h, p[2], p[3]))
            return F.linear(h, p[4], p[5])

        fast = theta
        for _ in range(2):      # two inner SGD steps, differentiated through
            inner = F.mse_loss(net(T.tensor(XS), fast), T.tensor(YS))
            grads = T.autograd.grad(inner, fast, create_graph=True)
            fast = [p - 0.01 * g for p, g in zip(fast, grads)]
        outer = F.mse_loss(net(T.tensor(XQ), fast), T.tensor(YQ))
        outer.backward()
        return outer, [p.grad for p in theta]
    check(fn, rtol=1e-4, atol=1e-5)


CLASSES = RNG.randint(0, 3, 10)


def test_maml_step_classification_with_cross_entropy():
    # float32 cross_entropy runs MindSpore's fused kernel, whose recorded backward hands back a constant:
    # mstorch's own backward takes over while create_graph is on
    def fn(T):
        F = T.nn.functional
        w1, b1, w2, b2 = theta = _params(T, [MLP[0], MLP[1], MLP[4].repeat(3, 0), MLP[5].repeat(3)])
        x, y = T.tensor(XS), T.tensor(CLASSES)
        net = lambda p: F.linear(T.tanh(F.linear(x, p[0], p[1])), p[2], p[3])  # noqa: E731
        grads = T.autograd.grad(F.cross_entropy(net(theta), y), theta, create_graph=True)
        fast = [p - 0.1 * g for p, g in zip(theta, grads)]
        outer = F.cross_entropy(net(fast), y, label_smoothing=0.1)
        outer.backward()
        return outer, [p.grad for p in theta]
    check(fn, rtol=1e-4, atol=1e-5)


# --- Hessian-vector products of a small transformer loss ---------------------------------------------

D, HEADS, SEQ = 8, 2, 5
TRANSFORMER = [RNG.randn(3 * D, D).astype("float32") * 0.3, RNG.randn(3 * D).astype("float32") * 0.1,
               RNG.randn(D, D).astype("float32") * 0.3, RNG.randn(D).astype("float32") * 0.1,
               1 + RNG.randn(D).astype("float32") * 0.1, RNG.randn(D).astype("float32") * 0.1,
               RNG.randn(4, D).astype("float32") * 0.3]
TOKENS = RNG.randn(2, SEQ, D).astype("float32")
V = [RNG.randn(*a.shape).astype("float32") for a in TRANSFORMER]


def _transformer_loss(T, x, w_qkv, b_qkv, w_o, b_o, ln_w, ln_b, w_head):
    F = T.nn.functional
    n, s, d = x.shape
    q, k, v = F.linear(x, w_qkv, b_qkv).split(d, dim=-1)
    dh = d // HEADS
    q, k, v = (t.reshape(n, s, HEADS, dh).transpose(1, 2) for t in (q, k, v))
    scores = T.bmm(q.reshape(n * HEADS, s, dh), k.reshape(n * HEADS, s, dh).transpose(1, 2)) / dh ** 0.5
    attn = scores.softmax(-1).view(n, HEADS, s, s)
    ctx = (attn @ v).transpose(1, 2).reshape(n, s, d)
    h = F.layer_norm(x + F.linear(ctx, w_o, b_o), (d,), ln_w, ln_b)
    logits = F.gelu(h) @ w_head.t()
    return (logits ** 2).sum(-1).mean() + logits.mean(dim=(0, 1)).sum()


def test_hvp_of_a_transformer_loss():
    def fn(T):
        x = T.tensor(TOKENS)
        params = tuple(T.tensor(a) for a in TRANSFORMER)
        loss, hv = T.autograd.functional.hvp(lambda *p: _transformer_loss(T, x, *p), params,
                                             tuple(T.tensor(a) for a in V))
        return loss, hv
    check(fn, rtol=1e-4, atol=1e-5)


def test_manual_double_backward_hvp_of_a_transformer_loss():
    def fn(T):
        params = _params(T, TRANSFORMER)
        loss = _transformer_loss(T, T.tensor(TOKENS), *params)
        grads = T.autograd.grad(loss, params, create_graph=True)
        dot = sum((g * T.tensor(v)).sum() for g, v in zip(grads, V))
        return grads, T.autograd.grad(dot, params)
    check(fn, rtol=1e-4, atol=1e-5)


# --- gradient penalties through the recurrent layers (composed recurrences; float32 LSTM: the kernel,
# recomputed composed while the backward pass records itself) ----------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kind,kw", [("LSTM", {}), ("LSTM", {"proj_size": 3}), ("GRU", {}), ("RNN", {}),
                                     ("RNN", {"nonlinearity": "relu"})], ids=["lstm", "lstm_proj", "gru", "rnn",
                                                                              "rnn_relu"])
def test_recurrent_layer_gradient_penalty(kind, kw, dtype):
    def fn(T):
        rng = np.random.RandomState(3)
        m = getattr(T.nn, kind)(3, 4, num_layers=2, bidirectional=True, batch_first=True, **kw).to(getattr(T, dtype))
        with T.no_grad():
            for p in m.parameters():
                p.copy_(T.tensor(rng.randn(*p.shape) * 0.5))
        x = T.tensor(rng.randn(2, 5, 3), dtype=getattr(T, dtype), requires_grad=True)
        out, h = m(x)
        h, c = h if kind == "LSTM" else (h, h)
        y = (out ** 2).sum() + h.tanh().sum() + (c * c).sum()
        (g,) = T.autograd.grad(y, x, create_graph=True)
        penalty = (g ** 2).sum()
        penalty.backward()
        return penalty, g, [p.grad for p in m.parameters()], x.grad
    check(fn, rtol=1e-4 if dtype == "float32" else 1e-6, atol=1e-4 if dtype == "float32" else 1e-8)


def test_packed_lstm_gradient_penalty():
    def fn(T):
        rng = np.random.RandomState(4)
        m = T.nn.LSTM(3, 4)
        with T.no_grad():
            for p in m.parameters():
                p.copy_(T.tensor(rng.randn(*p.shape).astype("float32") * 0.5))
        x = T.tensor(rng.randn(5, 3, 3).astype("float32"), requires_grad=True)
        out, (h, c) = m(T.nn.utils.rnn.pack_padded_sequence(x, [5, 3, 2]))
        (g,) = T.autograd.grad(out.data, x, grad_outputs=T.ones_like(out.data), create_graph=True)
        penalty = (g ** 2).sum() + (c ** 2).sum()
        penalty.backward()
        return penalty, g, [p.grad for p in m.parameters()], x.grad
    check(fn, rtol=1e-4, atol=1e-5)


def test_double_backward_through_module_parameters():
    # a Parameter's leaf node is named after it ("weight"), not "input_N": it is a leaf all the same
    def fn(T):
        rng = np.random.RandomState(5)
        m = T.nn.Linear(3, 4).double()
        with T.no_grad():
            for p in m.parameters():
                p.copy_(T.tensor(rng.randn(*p.shape)))
        x = T.tensor(rng.randn(5, 3), requires_grad=True)
        (g,) = T.autograd.grad(m(x).tanh().sum(), x, create_graph=True)
        return T.autograd.grad((g ** 2).sum(), list(m.parameters()) + [x])
    check(fn)


# --- det / slogdet / logdet of singular matrices ------------------------------------------------------
#
# torch's det backward takes an SVD formula where |det A| < 100 eps when a graph of the gradient is
# requested (differentiable at singular matrices); slogdet/logdet solve A^H X = g I there, which raises.

SINGULAR = {
    "rank1_2x2": [[1.0, 2.0], [2.0, 4.0]],
    "rank2_3x3": [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]],
    "rank1_3x3": [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [-1.0, -2.0, -3.0]],
    "random_rank2_3x3": np.random.RandomState(0).randn(3, 2) @ np.random.RandomState(1).randn(2, 3),
    "random_rank1_3x3": np.random.RandomState(2).randn(3, 1) @ np.random.RandomState(3).randn(1, 3),
    "diag_2_2_0": np.diag([2.0, 2.0, 0.0]),   # repeated singular values: torch's second derivative is NaN
    "zero_2x2": np.zeros((2, 2)),
    "batch_mixed": [[[1.0, 2.0], [2.0, 4.0]], [[2.0, 1.0], [0.5, 3.0]], [[0.0, 1.0], [0.0, 3.0]]],
    "batch_random_rank3_4x4": np.random.RandomState(5).randn(2, 4, 3) @ np.random.RandomState(6).randn(2, 3, 4),
}

# torch's second derivative is NaN where its SVD has equal singular values (two exact zeros: rank n - 2);
# which rank-deficient matrices get exact zeros depends on the SVD kernel (docs/known-differences.md)
SINGULAR_DIFFERS = {("rank1_3x3", "float32"): "LAPACK's float32 SVD has two exactly zero singular values here "
                                             "(torch: NaN), MindSpore's two different tiny ones (finite)"}


def _weights(T, t, scale=1.0):
    return T.tensor(np.arange(1.0, t.numel() + 1).reshape(tuple(t.shape)) * scale, dtype=t.dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("op", ["det", "linalg.det"])
@pytest.mark.parametrize("name", list(SINGULAR))
def test_det_of_a_singular_matrix_double_backward(name, op, dtype):
    if (name, dtype) in SINGULAR_DIFFERS:
        pytest.skip(SINGULAR_DIFFERS[name, dtype])
    def fn(T):
        x = T.tensor(np.asarray(SINGULAR[name]), dtype=getattr(T, dtype), requires_grad=True)
        y = T.det(x) if op == "det" else T.linalg.det(x)
        (g,) = T.autograd.grad((y * _weights(T, y)).sum(), x, create_graph=True)
        (h,) = T.autograd.grad((g * _weights(T, g, 1 / 7)).sum(), x)
        return y, g, h
    # (rank n - 2: the first derivative is 0 up to the SVD's rounding)
    check(fn, rtol=1e-7 if dtype == "float64" else 1e-4, atol=1e-11 if dtype == "float64" else 2e-5)


@pytest.mark.parametrize("op", ["slogdet", "linalg.slogdet", "logdet"])
@pytest.mark.parametrize("name", ["rank1_2x2", "rank2_3x3", "zero_2x2", "batch_mixed"])
def test_slogdet_of_a_singular_matrix_double_backward_raises(name, op):
    # log|det A| is -inf there: torch's formula solves A^H X = g I and raises LinAlgError (the batch element
    # in its message), as mstorch does
    def fn(T):
        x = T.tensor(np.asarray(SINGULAR[name]), dtype=T.float64, requires_grad=True)
        y = T.logdet(x) if op == "logdet" else (T.slogdet(x) if op == "slogdet" else T.linalg.slogdet(x))[1]
        return T.autograd.grad(y.sum(), x, create_graph=True)
    ref, got = check(fn, raises=True)
    assert str(got.exc) == str(ref.exc)


def test_first_order_gradient_after_a_double_backward_through_a_singular_det():
    # the same graph still gives torch's first-order gradient (its LU formula, not the SVD one)
    def fn(T):
        x = T.tensor([[1.0, 2.0], [2.0, 4.0]], requires_grad=True)
        y = T.det(x) + x.sum(1).pow(2).sum()
        (g,) = T.autograd.grad(y, x, create_graph=True)
        return g, T.autograd.grad(y, x)
    check(fn)


# --- det / slogdet / logdet of complex (invertible) matrices ------------------------------------------
#
# torch's formulas in recorded ops, their complex products from real and imaginary parts: det's
# (g conj(det A)) inv(A)^H, slogdet's g inv(A)^H with g = g_logabsdet - i Im(conj(g_sign) sign)

_COMPLEX_A = (np.random.RandomState(7).randn(2, 3, 3) + 1j * np.random.RandomState(8).randn(2, 3, 3))
_COMPLEX_LOSSES = {
    "det_abs2": lambda T, A: (T.det(A).abs() ** 2).sum(),
    "linalg_det_re_im": lambda T, A: (T.linalg.det(A).real + 0.3 * T.linalg.det(A).imag).sum(),
    "slogdet_logabsdet": lambda T, A: (T.slogdet(A)[1] ** 2).sum(),
    "linalg_slogdet_sign": lambda T, A: (2 * T.linalg.slogdet(A)[0].real + T.linalg.slogdet(A)[0].imag).sum(),
    "slogdet_both": lambda T, A: (T.linalg.slogdet(A)[0].imag * T.linalg.slogdet(A)[1]).sum(),
    "logdet": lambda T, A: (T.logdet(A).real + 0.5 * T.logdet(A).imag).sum(),
}


@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
@pytest.mark.parametrize("loss", list(_COMPLEX_LOSSES))
def test_complex_det_double_backward(loss, dtype):
    def fn(T):
        a = T.tensor(_COMPLEX_A, dtype=getattr(T, dtype), requires_grad=True)
        (g,) = T.autograd.grad(_COMPLEX_LOSSES[loss](T, a), a, create_graph=True)
        (h,) = T.autograd.grad((g.real ** 2).sum() + 0.3 * g.imag.sum(), a)
        return g, h
    check(fn, rtol=1e-9 if dtype == "complex128" else 1e-4, atol=1e-12 if dtype == "complex128" else 1e-5)


@pytest.mark.parametrize("loss", list(_COMPLEX_LOSSES))
def test_complex_det_first_order_gradient(loss):
    # (MindSpore's own gradients miss the conjugates of det's, and ignore slogdet's sign)
    def fn(T):
        a = T.tensor(_COMPLEX_A, dtype=T.complex128, requires_grad=True)
        return T.autograd.grad(_COMPLEX_LOSSES[loss](T, a), a)
    check(fn, rtol=1e-9, atol=1e-12)


def _unitary(rng, n):
    q, _ = np.linalg.qr(rng.randn(n, n) + 1j * rng.randn(n, n))
    return q


# nearly singular complex matrices (|det| < 100 eps from small singular values): torch's SVD formula, whose
# second derivative passes through the complex SVD backward's phase term (over the singular values). Their
# smallest singular values are well above rounding, so both libraries agree (at an exactly singular complex
# matrix both answers are rounding noise over noise: docs/known-differences.md)
_RNG = np.random.RandomState(11)
_NEARLY_SINGULAR_COMPLEX = {
    "4x4_small_singular_values": _unitary(_RNG, 4) @ np.diag([1.0, 0.8, 1e-5, 1e-10]) @ _unitary(_RNG, 4),
    "batch_mixed": np.stack([_unitary(_RNG, 4) @ np.diag(s) @ _unitary(_RNG, 4)
                             for s in ([1.0, 0.5, 1e-6, 1e-9], [1.0, 2.0, 0.5, 0.3])]),
    "3x3_two_small": _unitary(_RNG, 3) @ np.diag([2.0, 1e-6, 1e-9]) @ _unitary(_RNG, 3),
    # equal singular values (two exact zeros, or a repeated one): NaN second derivatives in both
    "diag_2_2_0": np.diag([2.0, 2.0, 0.0]).astype(complex),
    "diag_i_1_0": np.diag([1j, 1.0, 0.0]),
    "zero_2x2": np.zeros((2, 2), complex),
}


@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
@pytest.mark.parametrize("name", list(_NEARLY_SINGULAR_COMPLEX))
def test_det_of_a_nearly_singular_complex_matrix_double_backward(name, dtype):
    a = _NEARLY_SINGULAR_COMPLEX[name]
    w = np.random.RandomState(12).randn(*a.shape) + 1j * np.random.RandomState(13).randn(*a.shape)

    def fn(T):
        x = T.tensor(a, dtype=getattr(T, dtype), requires_grad=True)
        d = T.linalg.det(x)
        (g,) = T.autograd.grad((d.real + 2 * d.imag).sum(), x, create_graph=True)
        (h,) = T.autograd.grad((g * T.tensor(w, dtype=x.dtype)).real.sum() + (g.imag ** 2).sum(), x)
        return d, g, h
    check(fn, rtol=1e-6 if dtype == "complex128" else 2e-3, atol=1e-9 if dtype == "complex128" else 1e-4)


# --- gradgradcheck-style sweep over the op table -----------------------------------------------------
#
# For the first float sample of every op: d/d(inputs, w) of grad(out, inputs, w, create_graph=True) . v,
# in float64, on both libraries. Ops torch itself cannot differentiate twice are skipped.

REFUSED = {}   # op -> why mstorch refuses its double backward (NotImplementedError naming the kernel)
SKIP = {"special.log_ndtr": "far in the tail torch's second derivative overflows to -inf, mstorch's does not",
        "_grouped_mm": "torch's kernel takes no float64 (the sweep's dtype); its float32 gradients are in test_ops",
        "grouped_mm": "torch's kernel takes no float64 (the sweep's dtype); its float32 gradients are in test_ops",
        "_softmax_backward_data": "its sample names float32 as the input dtype, which a float64 sweep contradicts"}
SKIP.update({name: "its sample's _random_samples are float32, which must match the input's dtype: a float64 sweep "
                   "contradicts them (the pooling is a gather; its gradients are in test_ops)"
             for name in ("fractional_max_pool2d", "fractional_max_pool2d_with_indices", "fractional_max_pool3d",
                          "fractional_max_pool3d_with_indices")})


def _float_arg(a):
    return (isinstance(a, np.ndarray) and a.dtype.kind == "f") or (
        isinstance(a, list) and a and isinstance(a[0], np.ndarray) and a[0].dtype.kind == "f")


def _first_float_samples():
    seen = set()
    for info in ALL:
        if info.skip or not info.grad or info.name in seen:
            continue
        for s in info.samples:
            if not isinstance(s, E) and any(_float_arg(a) for a in s.args):
                seen.add(info.name)
                yield pytest.param(info, s, id=info.name)
                break


def _to64(a):
    if isinstance(a, np.ndarray) and a.dtype.kind == "f":
        return a.astype(np.float64)
    if isinstance(a, list) and a and all(isinstance(x, np.ndarray) for x in a):
        return [_to64(x) for x in a]
    return a


def _gradgrad(info, sample):
    def fn(T):
        args, leaves, _ = test_ops._materialize([_to64(a) for a in sample.args], T, True)
        out = test_ops._call(info, T, args, test_ops._kw(sample.kwargs, T), test_ops._forms(info)[0])
        outs = [o for o in (out if isinstance(out, (tuple, list)) else (out,))
                if getattr(o, "requires_grad", False) and o.dtype.is_floating_point]
        # torch hands back a constant where the second derivative is zero (sign, round): zeros, as mstorch's
        return _second_order(T, leaves, outs) if outs else None
    return fn


@pytest.mark.parametrize("info,sample", list(_first_float_samples()))
def test_gradgrad(info, sample):
    if info.name in SKIP:
        pytest.skip(SKIP[info.name])
    fn = _gradgrad(info, sample)
    ref = run(fn, torch)
    if isinstance(ref, Raised):
        # only torch's own refusal to differentiate twice skips (a broken sample must fail, not skip)
        assert "deriv" in str(ref.exc) or "differentiable" in str(ref.exc), ref
        pytest.skip(f"torch does not differentiate {info.name} twice: {ref.exc}")
    if info.name in REFUSED:
        got = run(fn, mstorch)
        assert isinstance(got, Raised) and isinstance(got.exc, NotImplementedError), (
            f"{info.name} is listed as refused ({REFUSED[info.name]}) but mstorch gave {got!r}")
        return
    check(fn, rtol=1e-5, atol=1e-7)


# --- kernels that float64 samples do not reach (float32 kernels) and modes beyond the first sample ----
#
# Each case: (arrays, fn(T, *tensors) -> output); every float array is a leaf. Both float32 and float64.

def _second_order(T, leaves, outs, seed=1):
    """grad(outs, leaves, w, create_graph=True), then d/d(leaves, w) of grad . v."""
    outs = [o for o in (outs if isinstance(outs, (tuple, list)) else (outs,))
            if getattr(o, "requires_grad", False) and (o.dtype.is_floating_point or o.dtype.is_complex)]
    rng = np.random.RandomState(seed)
    ws = [T.tensor(rng.standard_normal(tuple(o.shape))).to(o.dtype).requires_grad_() for o in outs]
    grads = T.autograd.grad(outs, leaves, grad_outputs=ws, create_graph=True, allow_unused=True)
    total = None
    for g in grads:
        if g is not None and g.requires_grad:
            term = (g * T.tensor(rng.standard_normal(tuple(g.shape))).to(g.dtype)).sum()
            if term.is_complex():
                term = term.real + term.imag
            total = term if total is None else total + term
    second = [None] * len(leaves + ws) if total is None else T.autograd.grad(total, leaves + ws, allow_unused=True)
    return ([None if g is None else g.detach().clone() for g in grads],
            [T.zeros_like(x) if g is None else g.clone() for g, x in zip(second, leaves + ws)])


def _parts(z):
    return z.real ** 2, z.imag.tanh()


def _abs2(z):
    return z.real ** 2 + z.imag ** 2


def _pos(*shape, seed=0):
    return rand(*shape, seed=seed, low=0.1, high=0.9)


_X4, _X5, _X3 = rand(2, 3, 5, 6, seed=3), rand(2, 2, 4, 5, 4, seed=4), rand(2, 3, 7, seed=5)
_F = lambda T: T.nn.functional  # noqa: E731
CASES = {
    "max_pool2d": ([_X4], lambda T, x: _F(T).max_pool2d(x, 2, 1, 1)),
    "max_pool3d": ([_X5], lambda T, x: _F(T).max_pool3d(x, 2)),
    "max_pool1d_ceil": ([_X3], lambda T, x: _F(T).max_pool1d(x, 2, ceil_mode=True)),
    "avg_pool1d": ([_X3], lambda T, x: _F(T).avg_pool1d(x, 3, 2, 1)),
    "avg_pool2d": ([_X4], lambda T, x: _F(T).avg_pool2d(x, 3, 2, 1, count_include_pad=False)),
    "avg_pool3d": ([_X5], lambda T, x: _F(T).avg_pool3d(x, 2, ceil_mode=True)),
    "adaptive_avg_pool2d": ([_X4], lambda T, x: _F(T).adaptive_avg_pool2d(x, (3, 4))),
    "adaptive_avg_pool3d": ([_X5], lambda T, x: _F(T).adaptive_avg_pool3d(x, (3, 2, 3))),
    "adaptive_max_pool2d": ([_X4], lambda T, x: _F(T).adaptive_max_pool2d(x, (2, 4))),
    "max_unpool2d": ([_X4], lambda T, x: _F(T).max_unpool2d(*_F(T).max_pool2d(x * x, 2, return_indices=True), 2)),
    "interpolate_nearest": ([_X4], lambda T, x: _F(T).interpolate(x, size=(7, 9))),
    "interpolate_nearest_scale": ([_X4], lambda T, x: _F(T).interpolate(x, scale_factor=1.7)),
    "interpolate_bilinear": ([_X4], lambda T, x: _F(T).interpolate(x, size=(8, 4), mode="bilinear")),
    "interpolate_bilinear_ac": ([_X4], lambda T, x: _F(T).interpolate(x, size=(8, 9), mode="bilinear",
                                                                      align_corners=True)),
    "interpolate_bicubic": ([_X4], lambda T, x: _F(T).interpolate(x, scale_factor=2, mode="bicubic")),
    "interpolate_linear": ([_X3], lambda T, x: _F(T).interpolate(x, size=11, mode="linear")),
    "interpolate_trilinear": ([_X5], lambda T, x: _F(T).interpolate(x, size=(3, 6, 5), mode="trilinear")),
    "interpolate_area": ([_X4], lambda T, x: _F(T).interpolate(x, size=(3, 4), mode="area")),
    "grid_sample": ([_X4, rand(2, 3, 4, 2, seed=6, low=-1.1, high=1.1)],
                    lambda T, x, g: _F(T).grid_sample(x, g, align_corners=False)),
    "pad_reflect": ([_X4], lambda T, x: _F(T).pad(x, (2, 1, 1, 3), mode="reflect")),
    "pad_replicate": ([_X4], lambda T, x: _F(T).pad(x, (2, 1, 1, 3), mode="replicate")),
    "pad_circular": ([_X4], lambda T, x: _F(T).pad(x, (2, 1, 1, 3), mode="circular")),
    "pad_reflect_3d": ([_X5], lambda T, x: _F(T).pad(x, (1, 1, 2, 1, 1, 2), mode="reflect")),
    "pad_replicate_1d": ([_X3], lambda T, x: _F(T).pad(x, (2, 3), mode="replicate")),
    "elu": ([_X4], lambda T, x: _F(T).elu(x, 0.7)),
    "elu_alpha1": ([_X3], lambda T, x: _F(T).elu(x)),
    "selu": ([_X3], lambda T, x: _F(T).selu(x)),
    "celu": ([_X3], lambda T, x: _F(T).celu(x, 1.3)),
    "hardswish": ([_X4 * 2], lambda T, x: _F(T).hardswish(x)),
    "softshrink": ([_X4], lambda T, x: _F(T).softshrink(x, 0.7) ** 2),
    "erfinv": ([rand(3, 4, seed=8, low=-0.99, high=0.99)], lambda T, x: T.erfinv(x) ** 2),
    "batch_norm_train": ([_X4, rand(3, seed=9), rand(3, seed=10)],
                         lambda T, x, w, b: _F(T).batch_norm(x, None, None, w, b, training=True) ** 2),
    "batch_norm_train_2d": ([rand(5, 3, seed=11), rand(3, seed=9), rand(3, seed=10)],
                            lambda T, x, w, b: _F(T).batch_norm(x, None, None, w, b, training=True) ** 2),
    "batch_norm_eval": ([_X4, rand(3, seed=9), rand(3, seed=10)],
                        lambda T, x, w, b: _F(T).batch_norm(x, T.tensor(_pos(3)).to(x.dtype),
                                                            T.tensor(_pos(3, seed=1)).to(x.dtype), w, b) ** 2),
    "instance_norm": ([_X4], lambda T, x: _F(T).instance_norm(x) ** 2),
    "group_norm": ([rand(2, 3, 5, 6, seed=12), rand(3, seed=9), rand(3, seed=10)],
                   lambda T, x, w, b: _F(T).group_norm(x, 3, w, b) ** 2),
    "group_norm_groups": ([rand(2, 4, 5, seed=13), rand(4, seed=9), rand(4, seed=10)],
                          lambda T, x, w, b: _F(T).group_norm(x, 2, w, b) ** 2),
    "smooth_l1_loss": ([_X4, rand(2, 3, 5, 6, seed=14)], lambda T, x, y: _F(T).smooth_l1_loss(x, y, beta=0.8)),
    "smooth_l1_loss_none": ([_X3], lambda T, x: _F(T).smooth_l1_loss(x, T.tensor(_X3[::-1].copy()).to(x.dtype),
                                                                    reduction="none") ** 2),
    "binary_cross_entropy": ([_pos(4, 5)], lambda T, x: _F(T).binary_cross_entropy(
        x, T.tensor(_pos(4, 5, seed=1)).to(x.dtype))),
    "binary_cross_entropy_both": ([_pos(4, 5), _pos(4, 5, seed=2)],
                                  lambda T, x, y: _F(T).binary_cross_entropy(x, y, reduction="sum")),
    "amax_dims": ([_X4], lambda T, x: x.amax((1, 3)) ** 2),
    "amin_keepdim_ties": ([np.array([[1., 3., 3.], [2., 2., -1.]], "float32")],
                          lambda T, x: x.amin(0, keepdim=True).exp()),
    "max_ties": ([np.array([[1., 3., 3.], [2., 3., -1.]], "float32")], lambda T, x: x.max() ** 2),
    "min_all": ([_X4], lambda T, x: x.min().exp()),
    "max_dim": ([np.array([[1., 3., 3.], [2., 2., -1.]], "float32")], lambda T, x: x.max(1).values ** 2),
    "min_dim_keepdim": ([_X4], lambda T, x: x.min(2, keepdim=True)[0].exp()),
    "prod_dim": ([_X4], lambda T, x: x.prod(2)),
    "prod_dim_keepdim": ([_X3], lambda T, x: x.prod(-1, keepdim=True)),
    "prod_zeros": ([np.array([[1., 0., 3., 2.], [0., 2., 0., 1.], [2., 3., .5, 1.]], "float32")],
                   lambda T, x: x.prod(1)),
    "prod_all": ([rand(3, 4, seed=15, low=0.5, high=1.5)], lambda T, x: x.prod()),
    "prod_all_zero": ([np.array([[1., 0., 3.], [1.5, 2., .5]], "float32")], lambda T, x: x.prod()),
    "sort": ([_X3], lambda T, x: x.sort(-1, descending=True).values ** 2),
    "topk": ([_X3], lambda T, x: x.topk(3, 1).values ** 2),
    "kthvalue": ([_X4], lambda T, x: x.kthvalue(2, 1).values ** 2),
    "median_dim": ([_X4], lambda T, x: x.median(-1).values ** 2),
    "cummax": ([_X3], lambda T, x: x.cummax(-1).values ** 2),
    "quantile": ([_X4], lambda T, x: x.quantile(0.3, dim=-1) ** 2),
    "index_add": ([_X4, rand(2, 3, 5, 2, seed=16)],
                  lambda T, x, s: x.index_add(3, T.tensor([4, 1]), s, alpha=1.5) ** 2),
    "masked_select": ([_X4], lambda T, x: x.masked_select(T.tensor(_X4 > 0.3)) ** 2),
    "masked_select_broadcast": ([rand(3, 1, seed=17)], lambda T, x: x.masked_select(T.tensor(_X3[0] > 0)) ** 2),
    # sums over dims the shapes leave ambiguous, with a gradient that cannot tell them apart either
    "sum_square_dim0_zero_grad": ([rand(3, 3, seed=18)], lambda T, x: (x * 0).sum(0).pow(2).sum() + x.sum(1).exp()),
    "sum_square_dims": ([rand(3, 3, 3, seed=19)], lambda T, x: x.sum((0, 2)) * x.mean(1).sum(0)),
    "mean_square_dim1": ([rand(4, 4, seed=20)], lambda T, x: x.mean(1) ** 3 + x.sum(0)),
    "conv3d": ([_X5, rand(3, 2, 2, 3, 2, seed=21), rand(3, seed=22)],
               lambda T, x, w, b: _F(T).conv3d(x, w, b, stride=(1, 2, 1), padding=1) ** 2),
    "conv3d_groups": ([_X5, rand(4, 1, 2, 2, 2, seed=23)],
                      lambda T, x, w: _F(T).conv3d(x, w, groups=2, dilation=(1, 2, 1)).tanh()),
    "conv2d": ([_X4, rand(2, 3, 3, 2, seed=24), rand(2, seed=25)],
               lambda T, x, w, b: _F(T).conv2d(x, w, b, padding=(1, 0)) ** 2),
    "conv1d": ([_X3, rand(4, 3, 3, seed=26)], lambda T, x, w: _F(T).conv1d(x, w, stride=2).tanh()),
    "linalg_solve": ([rand(3, 3, seed=27) + 3 * np.eye(3, dtype="float32"), rand(3, 2, seed=28)],
                     lambda T, A, B: T.linalg.solve(A, B) ** 2),
    "linalg_solve_right_vector": ([rand(2, 3, 3, seed=29) + 3 * np.eye(3, dtype="float32"), rand(3, seed=30)],
                                  lambda T, A, b: T.linalg.solve(A, b).tanh()),
    "linalg_solve_left_false": ([rand(3, 3, seed=31) + 3 * np.eye(3, dtype="float32"), rand(2, 3, seed=32)],
                                lambda T, A, B: T.linalg.solve(A, B, left=False) ** 2),
    "solve_triangular": ([rand(3, 3, seed=33) + 3 * np.eye(3, dtype="float32"), rand(3, 2, seed=34)],
                         lambda T, A, B: T.linalg.solve_triangular(A, B, upper=True) ** 2),
    "solve_triangular_right_unit": ([rand(2, 3, 3, seed=35), rand(2, 2, 3, seed=36)],
                                    lambda T, A, B: T.linalg.solve_triangular(A, B, upper=False, left=False,
                                                                              unitriangular=True) ** 2),
    "det": ([rand(2, 3, 3, seed=37)], lambda T, A: T.det(A) ** 2),
    "slogdet": ([rand(3, 3, seed=38) + 2 * np.eye(3, dtype="float32")], lambda T, A: T.linalg.slogdet(A)[1] ** 2),
    "logdet": ([rand(3, 3, seed=39) + 3 * np.eye(3, dtype="float32")], lambda T, A: T.logdet(A).exp()),
    # the SVD family on real matrices (torch's svd_backward), wide and tall, and vander with a zero entry
    "svd_wide": ([rand(2, 3, 5, seed=61)], lambda T, A: [t ** 2 for t in T.linalg.svd(A, full_matrices=False)]),
    "svd_tall_abs_u": ([rand(5, 3, seed=62)], lambda T, A: T.linalg.svd(A).U[:, :3].abs()),
    "svdvals_nuclear_tall": ([rand(6, 4, seed=63)], lambda T, A: T.linalg.matrix_norm(A, "nuc") ** 2),
    "svd_legacy_v": ([rand(4, 4, seed=64)], lambda T, A: (T.svd(A).V[:, 0] * T.svd(A).U[:, 0]).sum() ** 2),
    "cond": ([rand(3, 5, seed=65)], lambda T, A: T.linalg.cond(A)),
    "lstsq_tall": ([rand(5, 3, seed=66), rand(5, 2, seed=67)], lambda T, A, B: T.linalg.lstsq(A, B).solution ** 2),
    "vander_zero": ([np.array([0.5, 0.0, -1.5, 2.0], "float32")], lambda T, x: T.linalg.vander(x, N=5)),
    # complex matrices (torch's svd_backward with the phase term), through gauge-invariant functions
    "svd_complex_abs_u": ([rand(4, 3, seed=68), rand(4, 3, seed=69)],
                          lambda T, x, y: _abs2(T.linalg.svd(T.complex(x, y), full_matrices=False).U) ** 2),
    "svd_complex_wide_vh": ([rand(2, 4, seed=70), rand(2, 4, seed=71)],
                            lambda T, x, y: _abs2(T.linalg.svd(T.complex(x, y), full_matrices=False).Vh) ** 2),
    "svd_complex_batched_s": ([rand(2, 3, 3, seed=72), rand(2, 3, 3, seed=73)],
                              lambda T, x, y: T.linalg.svd(T.complex(x, y)).S ** 3),
    "svd_complex_projector": ([rand(3, 3, seed=74), rand(3, 3, seed=75)], lambda T, x, y: _abs2(
        (lambda r: r.U[:, :2] @ r.Vh[:2])(T.linalg.svd(T.complex(x ** 2, y))))),
    "svdvals_complex": ([rand(3, 4, seed=76), rand(3, 4, seed=77)],
                        lambda T, x, y: T.linalg.svdvals(T.complex(x, y)).exp()),
    "pinv_complex": ([rand(4, 3, seed=78), rand(4, 3, seed=79)], lambda T, x, y: _parts(T.linalg.pinv(T.complex(x, y)))),
    "lstsq_complex": ([rand(4, 3, seed=80), rand(4, 3, seed=81)], lambda T, x, y: _parts(
        T.linalg.lstsq(T.complex(x, y), T.complex(x[:, :2] * 0 + 1, x[:, :2] * 0)).solution)),
    "cond_complex": ([rand(3, 3, seed=82), rand(3, 3, seed=83)], lambda T, x, y: T.linalg.cond(T.complex(x, y))),
    "nuclear_spectral_complex": ([rand(3, 5, seed=84), rand(3, 5, seed=85)], lambda T, x, y: (
        T.linalg.matrix_norm(T.complex(x, y), "nuc") ** 2, T.linalg.matrix_norm(T.complex(x, y), 2) ** 2)),
    # stepped slices (their own backward node) and the FFT family: complex inputs, cropped and padded lengths,
    # odd and even c2r lengths, norms
    "slice_stepped_middle": ([rand(2, 4, 3, seed=40)], lambda T, x: x[:, ::2].tanh()),
    "slice_stepped_two_dims": ([rand(5, 6, seed=41)], lambda T, x: x[1::3, ::2] ** 3),
    "fft_complex_padded": ([rand(3, 5, seed=42), rand(3, 5, seed=43)],
                           lambda T, x, y: _parts(T.fft.fft(T.complex(x ** 2, y.sin()), n=7, norm="ortho"))),
    "fft_cropped": ([rand(6, 3, seed=44)], lambda T, x: _parts(T.fft.fft(x.tanh(), n=4, dim=0, norm="forward"))),
    "ifft_complex": ([rand(5, seed=45), rand(5, seed=46)], lambda T, x, y: _parts(T.fft.ifft(T.complex(x.exp(), y)))),
    "rfft_odd_cropped": ([rand(2, 8, seed=47)], lambda T, x: _parts(T.fft.rfft(x ** 2, n=5, norm="forward"))),
    "irfft_odd_padded": ([rand(2, 4, seed=48), rand(2, 4, seed=49)],
                         lambda T, x, y: T.fft.irfft(T.complex(x, y.tanh()), n=9) ** 2),
    "irfft_even_cropped": ([rand(6, seed=50), rand(6, seed=51)],
                           lambda T, x, y: T.fft.irfft(T.complex(x ** 2, y), n=4, norm="ortho") ** 2),
    "hfft": ([rand(4, seed=52), rand(4, seed=53)], lambda T, x, y: T.fft.hfft(T.complex(x.exp(), y ** 2), n=7).exp()),
    "ihfft": ([rand(7, seed=54)], lambda T, x: _parts(T.fft.ihfft(x ** 3, norm="ortho"))),
    "fftn_3d": ([rand(2, 3, 4, seed=55)], lambda T, x: _parts(T.fft.fftn(x.sin(), s=(3, 2), dim=(0, 2)))),
    "rfftn_3d": ([rand(2, 3, 4, seed=56)], lambda T, x: _parts(T.fft.rfftn(x ** 2, s=(2, 5, 3), norm="ortho"))),
    "irfftn": ([rand(3, 4, seed=57), rand(3, 4, seed=58)],
               lambda T, x, y: T.fft.irfftn(T.complex(x.tanh(), y ** 3), s=(4, 6)) ** 2),
    "hfft2": ([rand(3, 3, seed=59), rand(3, 3, seed=60)],
              lambda T, x, y: T.fft.hfft2(T.complex(x, y.exp()), s=(3, 5), norm="forward") ** 2),
}
CASE_TOL = {"float32": (1e-4, 1e-5), "float64": (1e-5, 1e-7)}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_gradgrad_case(name, dtype):
    arrays, op = CASES[name]

    def fn(T):
        leaves = [T.tensor(a.astype(dtype), requires_grad=True) for a in arrays]
        return _second_order(T, leaves, op(T, *leaves))
    rtol, atol = CASE_TOL[dtype]
    check(fn, rtol=rtol, atol=atol)


def test_refused_list_names_table_ops():
    names = {info.name for info in ALL}
    assert not sorted(set(REFUSED) - names)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_abs_double_backward(dtype):
    # MindSpore's ComplexAbs backward is not recorded: torch's g * sgn(z) (0 at z = 0) in recorded ops
    def fn(T):
        z = T.tensor([1 + 2j, -0.5 + 0.3j, 0j, 3 - 4j], dtype=getattr(T, dtype), requires_grad=True)
        g, = T.autograd.grad((z.abs() ** 3).sum() + z.abs()[2], z, create_graph=True)
        gg, = T.autograd.grad((g.real ** 2 + g.imag).sum(), z)
        z.grad = None
        z.abs().sum().backward()
        return g, gg, z.grad
    check(fn, rtol=1e-5, atol=1e-6)
