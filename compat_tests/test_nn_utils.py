"""torch.nn.utils against torch: gradient clipping, parameter vectors, RNN packing, weight and spectral
normalisation (hook and parametrization forms)."""
import warnings

import numpy as np
import pytest
import torch

import mstorch
from harness import check, check_grad, check_raises, rand, run, Raised


def same_message(fn):
    """Both libraries raise the same exception type with the same message."""
    ref, got = run(fn, torch), run(fn, mstorch)
    assert isinstance(ref, Raised) and isinstance(got, Raised), (ref, got)
    assert type(got.exc).__name__ == type(ref.exc).__name__ and str(got.exc) == str(ref.exc), (ref, got)


def _params(T, *shapes, grads=True, seed=0):
    ps = []
    for i, s in enumerate(shapes):
        p = T.nn.Parameter(T.tensor(rand(*s, seed=seed + i)))
        if grads:
            p.grad = T.tensor(rand(*s, seed=seed + 10 + i, low=-3, high=3))
        ps.append(p)
    return ps


# --- clip_grad ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, float("inf"), 0, -float("inf"), 0.5])
@pytest.mark.parametrize("max_norm", [0.5, 1e4])
def test_clip_grad_norm(norm_type, max_norm):
    def fn(T):
        ps = _params(T, (3, 4), (5,), (2, 1, 2))
        total = T.nn.utils.clip_grad_norm_(ps, max_norm, norm_type)
        return total, [p.grad for p in ps]
    check(fn)


def test_clip_grad_norm_forms():
    def fn(T):
        ps = _params(T, (3, 2), (4,))
        ps.append(T.nn.Parameter(T.ones(2)))            # no grad: skipped
        single = _params(T, (6,), seed=5)[0]
        t1 = T.nn.utils.clip_grad_norm_(iter(ps), 1.0, foreach=None)
        t2 = T.nn.utils.clip_grad_norm_(single, max_norm=0.1, norm_type=2)
        t3 = T.nn.utils.clip_grad_norm_([], 1.0)
        t4 = T.nn.utils.clip_grad_norm_([T.nn.Parameter(T.ones(2))], 1.0)
        return t1, t2, t3, t4, [p.grad for p in ps], single.grad
    check(fn)


def test_clip_grad_norm_mixed_dtypes_and_float64():
    def fn(T):
        a = T.nn.Parameter(T.tensor(rand(3, 3)).double())
        a.grad = T.tensor(rand(3, 3, seed=3)).double()
        b = T.nn.Parameter(T.tensor(rand(4)))
        b.grad = T.tensor(rand(4, seed=4))
        total = T.nn.utils.clip_grad_norm_([a, b], 0.3)
        return total, a.grad, b.grad
    check(fn)


def test_clip_grad_norm_nonfinite():
    def grads(T, bad):
        ps = _params(T, (3,), (2,))
        ps[1].grad = T.tensor([bad, 1.0])
        return ps

    check_raises(lambda T: T.nn.utils.clip_grad_norm_(grads(T, float("nan")), 1.0, error_if_nonfinite=True))
    check_raises(lambda T: T.nn.utils.clip_grad_norm_(grads(T, float("inf")), 1.0, error_if_nonfinite=True))

    def fn(T):
        ps = grads(T, float("inf"))
        return T.nn.utils.clip_grad_norm_(ps, 1.0), [p.grad for p in ps]
    check(fn)
    same_message(lambda T: T.nn.utils.clip_grad_norm_(grads(T, float("nan")), 1.0, error_if_nonfinite=True))


def test_clip_grad_norm_empty_generator_warns():
    for T in (torch, mstorch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            T.nn.utils.clip_grad_norm_((p for p in []), 1.0)
        assert any("empty generator" in str(x.message) for x in w), T


def test_get_total_norm_and_clip_grads_with_norm():
    def fn(T):
        ps = _params(T, (3, 4), (2,))
        total = T.nn.utils.get_total_norm([p.grad for p in ps], 3.0)
        T.nn.utils.clip_grads_with_norm_(ps, 0.7, total)
        t_inf = T.nn.utils.get_total_norm(ps[0].grad, float("inf"))
        return total, t_inf, T.nn.utils.get_total_norm([]), [p.grad for p in ps]
    check(fn)


def test_clip_grad_norm_after_backward():
    def fn(T):
        T.manual_seed(0)
        m = T.nn.Sequential(T.nn.Linear(4, 8), T.nn.Tanh(), T.nn.Linear(8, 2))
        x = T.tensor(rand(5, 4))
        m(x).pow(2).sum().backward()
        total = T.nn.utils.clip_grad_norm_(m.parameters(), 0.25)
        return total, [p.grad for p in m.parameters()]
    check(fn)


def test_clip_grad_value():
    def fn(T):
        ps = _params(T, (3, 4), (5,))
        ps[1].grad[2] = float("nan")
        r = T.nn.utils.clip_grad_value_(ps, 1.2)
        single = _params(T, (4,), seed=7)[0]
        T.nn.utils.clip_grad_value_(single, clip_value=0.5, foreach=None)
        return r, [p.grad for p in ps], single.grad
    check(fn)


def test_parameters_vector_round_trip():
    def fn(T):
        ps = _params(T, (3, 2), (4,), (1, 2, 2), grads=False)
        vec = T.nn.utils.parameters_to_vector(ps)
        T.nn.utils.vector_to_parameters(vec * 2 + 1, ps)
        return vec, list(ps), [p.requires_grad for p in ps]
    check(fn)
    check_grad(lambda T, a, b: T.nn.utils.parameters_to_vector([a, b]), [rand(2, 3), rand(4)])
    same_message(lambda T: T.nn.utils.vector_to_parameters([1.0, 2.0], _params(T, (2,))))
    same_message(lambda T: T.nn.utils.vector_to_parameters(np.zeros(2), _params(T, (2,))))


# --- rnn utils -------------------------------------------------------------------------------------------

def _seqs(T, lengths, feat=(3,)):
    return [T.tensor(rand(n, *feat, seed=n)) for n in lengths]


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("side", ["right", "left"])
def test_pad_sequence(batch_first, side):
    check_grad(lambda T, a, b, c: T.nn.utils.rnn.pad_sequence([a, b, c], batch_first, -1.5, side),
               [rand(3, 2), rand(5, 2), rand(1, 2)])
    check(lambda T: T.nn.utils.rnn.pad_sequence(_seqs(T, [2, 4], ()), batch_first=batch_first, padding_side=side))
    check(lambda T: T.nn.utils.rnn.pad_sequence(T.tensor(rand(3, 2)), batch_first))


def test_pad_sequence_errors():
    check_raises(lambda T: T.nn.utils.rnn.pad_sequence([]))
    check_raises(lambda T: T.nn.utils.rnn.pad_sequence(5))
    check_raises(lambda T: T.nn.utils.rnn.pad_sequence(_seqs(T, [2]), padding_side="middle"))
    check_raises(lambda T: T.nn.utils.rnn.pad_sequence([T.zeros(2, 3), T.zeros(3, 4)]))


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("enforce_sorted,lengths", [(True, [5, 3, 3, 1]), (False, [2, 5, 1, 3]),
                                                    (False, [3, 3, 1, 3])])
def test_pack_pad_round_trip(batch_first, enforce_sorted, lengths):
    shape = (4, 5, 2) if batch_first else (5, 4, 2)

    def fn(T, x):
        packed = T.nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first, enforce_sorted)
        data = packed.data * 2
        packed2 = T.nn.utils.rnn.PackedSequence(data, packed.batch_sizes, packed.sorted_indices,
                                                packed.unsorted_indices)
        out, lens = T.nn.utils.rnn.pad_packed_sequence(packed2, batch_first, padding_value=-1.0, total_length=6)
        return packed, out, lens, type(packed).__name__, packed.is_cuda
    check_grad(fn, [rand(*shape)])


def test_pack_sequence_and_unpack():
    def fn(T):
        seqs = _seqs(T, [4, 2, 3])
        packed = T.nn.utils.rnn.pack_sequence(seqs, enforce_sorted=False)
        out = T.nn.utils.rnn.unpack_sequence(packed)
        padded, lens = T.nn.utils.rnn.pad_packed_sequence(packed, batch_first=True)
        return packed, out, T.nn.utils.rnn.unpad_sequence(padded, lens, batch_first=True), lens
    check(fn)
    check(lambda T: T.nn.utils.rnn.pack_sequence(_seqs(T, [4, 2, 1], ())))
    check(lambda T: T.nn.utils.rnn.pack_padded_sequence(T.tensor(rand(3, 2, 2)), T.tensor([3, 2])).to(T.float64))
    check(lambda T: T.nn.utils.rnn.invert_permutation(T.tensor([2, 0, 3, 1])))


def test_pack_errors():
    x = rand(4, 3, 2)
    for lengths in ([2, 3, 1], [2, 3], [3, 0, 0], lambda T: T.tensor([[3, 2, 1]])):
        check_raises(lambda T: T.nn.utils.rnn.pack_padded_sequence(
            T.tensor(x), lengths(T) if callable(lengths) else lengths))
    check(lambda T: T.nn.utils.rnn.pack_padded_sequence(T.tensor(x), T.tensor([3.0, 2.0, 1.0])))
    packed = lambda T: T.nn.utils.rnn.pack_padded_sequence(T.tensor(x), [3, 2, 1])  # noqa: E731
    check_raises(lambda T: T.nn.utils.rnn.pad_packed_sequence(packed(T), total_length=2))
    check_raises(lambda T: T.nn.utils.rnn.pack_sequence([]))
    same_message(lambda T: T.nn.utils.rnn.pack_padded_sequence(T.tensor(x), [1, 3, 2]))
    same_message(lambda T: T.nn.utils.rnn.pack_padded_sequence(T.tensor(x), [3, 2]))
    same_message(lambda T: T.nn.utils.rnn.pack_padded_sequence(T.tensor(x), [3, 0, 0]))


# --- weight norm / spectral norm ---------------------------------------------------------------------

def _grads_after(T, m, x):
    out = m(x)
    (out * T.tensor(rand(*out.shape, seed=9))).sum().backward()
    return out, [(n, p.grad) for n, p in m.named_parameters()]


@pytest.mark.parametrize("dim", [0, 1, None, -1])
def test_weight_norm_hook(dim):
    def fn(T):
        T.manual_seed(0)
        m = T.nn.Linear(3, 4)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            T.nn.utils.weight_norm(m, dim=dim)
        sd = {k: v for k, v in m.state_dict().items()}
        res = _grads_after(T, m, T.tensor(rand(2, 3)))
        T.nn.utils.remove_weight_norm(m)
        return sd, res, [n for n, _ in m.named_parameters()], m.weight
    check(fn)


def test_weight_norm_hook_conv_and_errors():
    def fn(T):
        T.manual_seed(1)
        m = T.nn.Conv1d(2, 3, 2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            T.nn.utils.weight_norm(m, "weight", dim=2)
            try:
                T.nn.utils.weight_norm(m)
            except RuntimeError as exc:
                err = str(exc)
        return m.weight_g, _grads_after(T, m, T.tensor(rand(1, 2, 5))), err
    check(fn)
    check_raises(lambda T: T.nn.utils.remove_weight_norm(T.nn.Linear(2, 2)))
    with pytest.warns(FutureWarning):
        mstorch.nn.utils.weight_norm(mstorch.nn.Linear(2, 2))


def test_spectral_norm_hook():
    def fn(T):
        T.manual_seed(0)
        m = T.nn.Linear(5, 3)
        T.nn.utils.spectral_norm(m, n_power_iterations=2)
        x = T.tensor(rand(2, 5))
        outs = [m(x), m(x)]
        sd = dict(m.state_dict())
        res = _grads_after(T, m, x)
        m.eval()
        outs.append(m(x))
        T.nn.utils.remove_spectral_norm(m)
        return outs, sd, res, m.weight, list(m.state_dict())
    check(fn, rtol=1e-5, atol=1e-5)

    def conv(T):
        T.manual_seed(3)
        m = T.nn.utils.spectral_norm(T.nn.ConvTranspose1d(2, 3, 2))
        return m(T.tensor(rand(1, 2, 4))), m.weight_u, m.weight_v
    check(conv, rtol=1e-5, atol=1e-5)
    check_raises(lambda T: T.nn.utils.spectral_norm(T.nn.Linear(2, 2), n_power_iterations=0))
    check_raises(lambda T: T.nn.utils.remove_spectral_norm(T.nn.Linear(2, 2)))


def test_spectral_norm_state_dict_round_trip():
    def fn(T):
        T.manual_seed(0)
        a = T.nn.utils.spectral_norm(T.nn.Linear(4, 3))
        a(T.tensor(rand(2, 4)))
        T.manual_seed(5)
        b = T.nn.utils.spectral_norm(T.nn.Linear(4, 3))
        b.load_state_dict(a.state_dict())
        b.eval()
        return b(T.tensor(rand(2, 4))), a.state_dict()._metadata[""]
    check(fn, rtol=1e-5, atol=1e-5)


def test_parametrizations_weight_norm():
    def fn(T):
        T.manual_seed(0)
        m = T.nn.utils.parametrizations.weight_norm(T.nn.Linear(3, 4))
        sd = dict(m.state_dict())
        info = (repr(m), type(m).__name__, T.nn.utils.parametrize.is_parametrized(m),
                T.nn.utils.parametrize.is_parametrized(m, "bias"),
                T.nn.utils.parametrize.type_before_parametrizations(m).__name__)
        res = _grads_after(T, m, T.tensor(rand(2, 3)))
        w = m.weight
        T.nn.utils.parametrize.remove_parametrizations(m, "weight")
        return sd, info, res, w, type(m).__name__, list(m.state_dict()), m.weight
    check(fn)

    def legacy(T):
        # a checkpoint of the hook form loads into the parametrization form
        T.manual_seed(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            old = T.nn.utils.weight_norm(T.nn.Linear(3, 2))
        new = T.nn.utils.parametrizations.weight_norm(T.nn.Linear(3, 2))
        new.load_state_dict(old.state_dict())
        return new.weight
    check(legacy)


def test_parametrizations_spectral_norm():
    def fn(T):
        T.manual_seed(0)
        m = T.nn.utils.parametrizations.spectral_norm(T.nn.Linear(5, 3))
        x = T.tensor(rand(2, 5))
        outs = [m(x)]
        res = _grads_after(T, m, x)
        m.eval()
        outs.append(m(x))
        return outs, res, dict(m.state_dict()), repr(m)
    check(fn, rtol=1e-5, atol=1e-5)
    check_raises(lambda T: T.nn.utils.parametrizations.spectral_norm(T.nn.Linear(2, 2), dim=3))
    check_raises(lambda T: T.nn.utils.parametrizations.spectral_norm(T.nn.Linear(2, 2), "nope"))


def test_register_custom_parametrization():
    def fn(T):
        class Symmetric(T.nn.Module):
            def forward(self, X):
                return X.triu() + X.triu(1).transpose(-1, -2)

            def right_inverse(self, A):   # assigning .weight needs it on every link of the chain
                return A.triu()

        class Scale(T.nn.Module):
            def forward(self, X):
                return X * 2

            def right_inverse(self, X):
                return X / 2

        T.manual_seed(0)
        m = T.nn.Linear(3, 3)
        P = T.nn.utils.parametrize
        P.register_parametrization(m, "weight", Symmetric())
        P.register_parametrization(m, "weight", Scale())
        sym = m.weight
        m.weight = T.tensor(rand(3, 3))             # right_inverse of the chain
        with P.cached():
            same = m.weight is m.weight
        res = _grads_after(T, m, T.tensor(rand(2, 3)))
        keys = list(m.state_dict())
        P.remove_parametrizations(m, "weight", leave_parametrized=False)
        return sym, same, res, keys, m.weight, type(m).__name__
    check(fn)

    def bad(T):
        class Shrink(T.nn.Module):
            def forward(self, X):
                return X[:1]
        return T.nn.utils.parametrize.register_parametrization(T.nn.Linear(2, 2), "weight", Shrink())
    check_raises(bad)
    check_raises(lambda T: T.nn.utils.parametrize.register_parametrization(T.nn.Linear(2, 2), "nope",
                                                                           T.nn.Identity()))
    check_raises(lambda T: T.nn.utils.parametrize.remove_parametrizations(T.nn.Linear(2, 2), "weight"))


def test_embedding_sparse_gradients_refused():
    """torch can return sparse gradients; MindSpore cannot, so mstorch refuses instead of returning dense ones."""
    w = mstorch.nn.Parameter(mstorch.randn(5, 2))
    with pytest.raises(NotImplementedError, match="sparse=True"):
        mstorch.nn.functional.embedding(mstorch.tensor([1, 2]), w, sparse=True)
    with pytest.raises(NotImplementedError, match="sparse=True"):
        mstorch.nn.functional.embedding_bag(mstorch.tensor([1, 2]), w, mstorch.tensor([0]), sparse=True)
    assert isinstance(torch.nn.functional.embedding(torch.tensor([1, 2]), torch.randn(5, 2), sparse=True),
                      torch.Tensor)


def test_batchnorm_momentum_translation():
    """translated default: torch's momentum weighs the new batch (MindSpore's nn.BatchNorm*d the old value)."""
    def fn(T):
        m = T.nn.BatchNorm1d(2, momentum=0.25)
        m(T.tensor(rand(6, 2)))
        return m.running_mean, m.running_var, m.momentum, m.num_batches_tracked
    check(fn)


def test_batchnorm_single_value_error_message():
    same_message(lambda T: T.nn.BatchNorm1d(3)(T.ones(1, 3)))
    same_message(lambda T: T.nn.BatchNorm2d(3)(T.ones(1, 3, 1, 1)))
    same_message(lambda T: T.nn.InstanceNorm1d(3)(T.ones(2, 3, 1)))
    check_raises(lambda T: T.nn.BatchNorm2d(3)(T.ones(2, 3)))


def test_batchnorm_old_checkpoint_without_num_batches_tracked():
    def fn(T):
        a = T.nn.BatchNorm1d(2)
        sd = a.state_dict()
        del sd["num_batches_tracked"]
        sd._metadata[""]["version"] = 1
        b = T.nn.BatchNorm1d(2)
        b.num_batches_tracked += 4
        return str(b.load_state_dict(sd)), b.num_batches_tracked
    check(fn)


def test_embedding_from_pretrained():
    def fn(T):
        w = lambda: T.tensor(rand(5, 3))   # noqa: E731  (one each: a Parameter shares its tensor in torch)
        e = T.nn.Embedding.from_pretrained(w())
        e2 = T.nn.Embedding.from_pretrained(w(), freeze=False, padding_idx=1, max_norm=2.0)
        b = T.nn.EmbeddingBag.from_pretrained(w(), mode="sum")
        b2 = T.nn.EmbeddingBag.from_pretrained(w(), freeze=False, padding_idx=-1)
        idx = T.tensor([[0, 1, 4], [1, 1, 2]])
        flags = [m.weight.requires_grad for m in (e, e2, b, b2)]
        return e(idx), e2(idx), b(idx), b2(idx), flags, [repr(m) for m in (e, e2, b, b2)], e2.weight
    check(fn)
    check_raises(lambda T: T.nn.Embedding.from_pretrained(T.zeros(3)))
    check_raises(lambda T: T.nn.EmbeddingBag.from_pretrained(T.zeros(2, 2, 2)))


def test_whole_model_with_norm_dropout_embedding_loads_in_torch():
    """mstorch.save of whole layers (buffers after a training step included) is read by torch.load."""
    import io
    mstorch.manual_seed(0)
    m = mstorch.nn.Sequential(mstorch.nn.Embedding(10, 4, padding_idx=0), mstorch.nn.LayerNorm(4),
                              mstorch.nn.Dropout(0.2))
    n = mstorch.nn.Sequential(mstorch.nn.BatchNorm2d(2), mstorch.nn.InstanceNorm2d(2, affine=True),
                              mstorch.nn.GroupNorm(1, 2))
    x = rand(4, 2, 3, 3)
    n(mstorch.tensor(x))
    buf = io.BytesIO()
    mstorch.save([m, n], buf)
    buf.seek(0)
    tm, tn = torch.load(buf, weights_only=False)
    for a in (m, n, tm, tn):
        a.eval()
    idx = np.array([[1, 0, 3]])
    np.testing.assert_allclose(m(mstorch.tensor(idx)).detach().numpy(), tm(torch.tensor(idx)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(n(mstorch.tensor(x)).detach().numpy(), tn(torch.tensor(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-5)
    assert int(tn[0].num_batches_tracked) == 1 and repr(tn) == repr(n)


# --- fusion ------------------------------------------------------------------------------------------

def _trained_bn(T, bn):
    bn.train()
    bn(T.tensor(rand(4, bn.num_features, 3, 3, seed=7)) if isinstance(bn, T.nn.BatchNorm2d)
       else T.tensor(rand(6, bn.num_features, seed=7)))
    return bn.eval()


@pytest.mark.parametrize("transpose", [False, True])
def test_fuse_conv_bn_eval(transpose):
    def fn(T):
        T.manual_seed(0)
        conv = (T.nn.ConvTranspose2d(3, 4, 3) if transpose else T.nn.Conv2d(3, 4, 3)).eval()
        bn = _trained_bn(T, T.nn.BatchNorm2d(4))
        fused = T.nn.utils.fusion.fuse_conv_bn_eval(conv, bn, transpose=transpose)
        x = T.tensor(rand(2, 3, 6, 6, seed=3))
        return [fused(x), bn(conv(x)), type(fused.weight).__name__, fused.weight.requires_grad]
    check(fn, rtol=1e-5, atol=1e-5)


def test_fuse_linear_bn_eval_and_errors():
    def fn(T):
        T.manual_seed(0)
        lin = T.nn.Linear(3, 4).eval()
        bn = _trained_bn(T, T.nn.BatchNorm1d(4))
        fused = T.nn.utils.fuse_linear_bn_eval(lin, bn)
        x = T.tensor(rand(5, 3, seed=3))
        return [fused(x), bn(lin(x))]
    check(fn, rtol=1e-5, atol=1e-5)
    check_raises(lambda T: T.nn.utils.fusion.fuse_conv_bn_eval(T.nn.Conv2d(1, 1, 1), T.nn.BatchNorm2d(1)))
