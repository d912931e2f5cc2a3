"""torch.distributions compared with torch: samples on torch's RNG stream (bit-identical for the
uniform-derived samplers, Normal to 2 ulp), log_prob/entropy/moments, shapes, rsample gradients,
kl_divergence, constraints and the validation errors word for word."""
import numpy as np
import pytest

from harness import check, rand, positive
from test_autograd import check_message

EXACT = dict(rtol=0, atol=0)
ULP2 = dict(rtol=2.5e-7, atol=1e-7)   # Normal draws through normal_: within 2 ulp of torch


def _probs(shape, seed):
    return positive(*shape, seed=seed)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("shape,sample_shape", [((5,), ()), ((5,), (7,)), ((2, 5), (3,)), ((2, 3, 4), (2, 2))])
def test_categorical_samples_on_torch_stream(seed, shape, sample_shape):
    def fn(T):
        T.manual_seed(seed)
        by_probs = T.distributions.Categorical(probs=T.tensor(_probs(shape, seed)))
        by_logits = T.distributions.Categorical(logits=T.tensor(rand(*shape, seed=seed)))
        one_hot = T.distributions.OneHotCategorical(probs=T.tensor(_probs(shape, seed)))
        return (by_probs.sample(sample_shape), by_logits.sample(sample_shape), one_hot.sample(sample_shape),
                T.rand(2))
    check(fn, **EXACT)


@pytest.mark.parametrize("seed", [0, 5])
@pytest.mark.parametrize("shape", [(), (4,), (2, 3)])
def test_bernoulli_uniform_normal_samples(seed, shape):
    def fn(T):
        T.manual_seed(seed)
        if shape:
            p, lo = T.tensor(_probs(shape, seed) / 3), T.tensor(rand(*shape, seed=seed))
            hi, scale = lo + T.tensor(_probs(shape, seed + 1)), T.tensor(_probs(shape, seed + 2))
        else:
            p, lo, hi, scale = 0.3, -1.0, 2.5, 0.7
        bern = T.distributions.Bernoulli(probs=p)
        bern_l = T.distributions.Bernoulli(logits=T.tensor(rand(*shape, seed=seed)))
        uni = T.distributions.Uniform(lo, hi)
        exact = (bern.sample(), bern.sample((3,)), bern_l.sample((2, 1)), uni.sample((2,)), uni.rsample(),
                 T.rand(2))
        norm = T.distributions.Normal(lo, scale)
        return exact, (norm.sample((3,)), norm.rsample((2,)), norm.sample())
    check(fn, **ULP2)
    check(lambda T: fn(T)[0], **EXACT)


def _all_stats(T, d, value):
    out = {"batch_shape": tuple(d.batch_shape), "event_shape": tuple(d.event_shape), "repr": repr(d),
           "log_prob": d.log_prob(value), "entropy": d.entropy(), "perplexity": d.perplexity(),
           "mean": d.mean, "variance": d.variance, "stddev": d.stddev,
           "support": repr(d.support), "has_rsample": d.has_rsample}
    for name in ("mode", "cdf", "icdf", "enumerate_support", "param_shape"):
        try:
            attr = getattr(d, name)
            if name == "cdf":
                attr = attr(value)
            elif name == "icdf":
                attr = attr(T.full(d.batch_shape, 0.3))
            elif name == "enumerate_support":
                attr = (attr(), attr(expand=False))
            out[name] = attr
        except NotImplementedError as exc:
            out[name] = str(exc).startswith("<class")
        except AttributeError:   # param_shape exists on some distributions only
            out[name] = "AttributeError"
    return out


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_statistics(dtype):
    def fn(T):
        dt = getattr(T, dtype)
        t = lambda a: T.tensor(a, dtype=dt)  # noqa: E731
        D = T.distributions
        res = []
        cat = D.Categorical(logits=t(rand(3, 4)))
        res.append(_all_stats(T, cat, T.tensor([[0, 3, 1], [2, 2, 0]]).T.reshape(3, 2)[:, 0]))
        res.append(_all_stats(T, D.Categorical(probs=t(_probs((4,), 1))), T.tensor([[0], [3]])))
        res.append(_all_stats(T, D.OneHotCategorical(logits=t(rand(2, 3))), t([[0, 1, 0], [1, 0, 0]])))
        res.append(_all_stats(T, D.Normal(t(rand(3)), t(_probs((3,), 2))), t(rand(2, 3, seed=4))))
        res.append(_all_stats(T, D.Normal(0.5, 2.0), T.tensor(1.5)))
        res.append(_all_stats(T, D.Bernoulli(probs=t([0.2, 0.5, 0.9])), t([1, 0, 1])))
        res.append(_all_stats(T, D.Bernoulli(logits=t(rand(2, 2))), t([[1, 0], [0, 0]])))
        res.append(_all_stats(T, D.Uniform(t([-1.0, 0.0]), t([2.0, 0.5])), t([0.0, 0.25])))
        res.append(_all_stats(T, D.Uniform(0.0, 3.0, validate_args=False), t([-1.0, 0.0, 1.0, 3.0])))
        return res
    # float32: exp(entropy) (perplexity) carries the entropy's summation-order ulps, ~1.5e-6 relative
    check(fn, **(dict(rtol=1e-6, atol=1e-7) if dtype == "float64" else dict(rtol=1e-5, atol=1e-6)))


def test_expand_and_param_shape():
    def fn(T):
        D = T.distributions
        out = []
        for d in (D.Categorical(logits=T.tensor(rand(4))), D.Normal(T.tensor(0.0), T.tensor(1.0)),
                  D.Bernoulli(probs=T.tensor(0.25)), D.Uniform(T.tensor(0.0), T.tensor(2.0)),
                  D.OneHotCategorical(probs=T.tensor(_probs((3,), 0)))):
            e = d.expand((2, 3))
            T.manual_seed(1)
            out.append((type(e).__name__, tuple(e.batch_shape), tuple(e.event_shape), e.sample(), e.mean
                        if not isinstance(e, D.Categorical) else e.probs, e._validate_args))
        return out
    check(fn, rtol=1e-5, atol=1e-7)   # probs from logits: MindSpore's softmax is a few ulp from torch's


@pytest.mark.parametrize("seed", [0, 2])
def test_rsample_and_log_prob_gradients(seed):
    def fn(T):
        T.manual_seed(seed)
        loc = T.tensor(rand(3, seed=seed), requires_grad=True)
        scale = T.tensor(_probs((3,), seed), requires_grad=True)
        lo = T.tensor(rand(3, seed=seed + 1), requires_grad=True)
        hi = T.tensor(rand(3, seed=seed + 1) + 2, requires_grad=True)
        logits = T.tensor(rand(2, 4, seed=seed), requires_grad=True)
        probs = T.tensor(_probs((3,), seed) / 4, requires_grad=True)
        D = T.distributions
        n, u = D.Normal(loc, scale), D.Uniform(lo, hi)
        c, b = D.Categorical(logits=logits), D.Bernoulli(probs=probs)
        st = D.OneHotCategoricalStraightThrough(logits=logits)
        loss = (n.rsample((4,)).pow(2).sum() + u.rsample((2,)).sum() + n.log_prob(T.ones(3)).sum()
                + n.entropy().sum() + u.log_prob(lo.detach() + 1).sum() + u.entropy().sum()
                + c.log_prob(c.sample((5,))).sum() + c.entropy().sum() + b.log_prob(b.sample()).sum()
                + b.entropy().sum() + (st.rsample() * T.arange(4.0)).sum())
        loss.backward()
        return loss, loc.grad, scale.grad, lo.grad, hi.grad, logits.grad, probs.grad
    check(fn, rtol=1e-5, atol=1e-6)


def test_kl_divergence():
    def fn(T):
        D, kl = T.distributions, T.distributions.kl_divergence
        loc = T.tensor(rand(3), requires_grad=True)
        logits = T.tensor(rand(2, 4), requires_grad=True)
        n1, n2 = D.Normal(loc, T.tensor(_probs((3,), 1))), D.Normal(0.2, 1.5)
        c1, c2 = D.Categorical(logits=logits), D.Categorical(probs=T.tensor([0.5, 0.0, 0.25, 0.25]))
        c0 = D.Categorical(probs=T.tensor([0.0, 0.5, 0.5, 0.0]))
        b1, b2 = D.Bernoulli(probs=T.tensor([0.0, 0.3, 1.0, 0.6])), D.Bernoulli(logits=T.tensor([0.5, -1, 2, 0]))
        b3 = D.Bernoulli(probs=T.tensor([0.0, 1.0, 0.5, 0.5]))
        u1, u2 = D.Uniform(T.tensor([0.0, -1.0]), T.tensor([1.0, 1.0])), D.Uniform(-0.5, 1.5)
        o1, o2 = D.OneHotCategorical(logits=logits), D.OneHotCategorical(probs=T.tensor([0.1, 0.2, 0.3, 0.4]))
        vals = [kl(n1, n2), kl(n2, n1), kl(c1, c2), kl(c0, c2), kl(c2, c0), kl(b1, b2), kl(b2, b3), kl(b1, b3),
                kl(u1, u2), kl(u2, u1), kl(u1, D.Normal(0.0, 2.0)),
                kl(D.Normal(0.0, 2.0), u1), kl(o1, o2)]
        (vals[0].sum() + vals[2].sum() + vals[-1].sum()).backward()
        return vals, loc.grad, logits.grad
    # MindSpore's softplus/sigmoid/log1p are a few ulp from torch's; KL terms cancel, so absolute 1e-6
    check(fn, rtol=1e-6, atol=1e-6)
    check_message(lambda T: T.distributions.kl_divergence(T.distributions.Normal(0.0, 1.0),
                                                          T.distributions.Bernoulli(0.5)))
    check_message(lambda T: T.distributions.kl_divergence(T.distributions.Categorical(T.ones(2)),
                                                          T.distributions.Normal(0.0, 1.0)))


BAD = [
    lambda T, D: D.Normal(0.0, -1.0),
    lambda T, D: D.Normal(T.tensor([0.0, float("nan")]), 1.0),
    lambda T, D: D.Normal(T.zeros(2), T.tensor([[1.0, 0.0]])),
    lambda T, D: D.Categorical(T.tensor([-0.3, 0.7])),
    lambda T, D: D.Categorical(T.tensor(0.5)),
    lambda T, D: D.Categorical(logits=T.tensor(1.0)),
    lambda T, D: D.Categorical(T.ones(2), T.ones(2)),
    lambda T, D: D.Categorical(logits=T.tensor([0.0, float("nan")])),
    lambda T, D: D.Bernoulli(),
    lambda T, D: D.Bernoulli(1.5),
    lambda T, D: D.Bernoulli(T.tensor([[0.1, -0.2]])),
    lambda T, D: D.Uniform(1.0, 0.0),
    lambda T, D: D.Uniform(T.zeros(3), T.tensor([1.0, 0.0, 2.0])),
    lambda T, D: D.OneHotCategorical(T.tensor([[0.5, -0.5]])),
    lambda T, D: D.Normal("a", 1.0),
    lambda T, D: D.Normal(0.0, 1.0).log_prob(1.0),
    lambda T, D: D.Normal(T.zeros(3), 1.0).log_prob(T.ones(2)),
    lambda T, D: D.Bernoulli(0.5).log_prob(T.tensor([0.5])),
    lambda T, D: D.Categorical(T.ones(3)).log_prob(T.tensor([3])),
    lambda T, D: D.Categorical(T.ones(3)).log_prob(T.tensor([1.5])),
    lambda T, D: D.Uniform(0.0, 1.0).log_prob(T.tensor([2.0])),
    lambda T, D: D.OneHotCategorical(T.ones(3)).log_prob(T.tensor([1.0, 1.0, 0.0])),
    lambda T, D: D.OneHotCategorical(T.ones(3)).log_prob(T.tensor([1.0, 0.0])),
    lambda T, D: D.Categorical(T.ones(3)).mode.sum() + D.Normal(0.0, 1.0).enumerate_support(),
    lambda T, D: D.Distribution().mean,
]


@pytest.mark.parametrize("k", range(len(BAD)))
def test_validation_messages(k):
    check_message(lambda T: BAD[k](T, T.distributions))


def test_validate_args_off():
    def fn(T):
        D = T.distributions
        out = [D.Normal(0.0, -1.0, validate_args=False).log_prob(T.tensor(0.5)),
               D.Bernoulli(0.5, validate_args=False).log_prob(T.tensor([0.5])),
               D.Uniform(0.0, 1.0, validate_args=False).log_prob(T.tensor([2.0, 0.5]))]
        D.Distribution.set_default_validate_args(False)
        try:
            out.append(D.Categorical(T.tensor([-1.0, 3.0])).probs)
        finally:
            D.Distribution.set_default_validate_args(True)
        return out
    check(fn, **EXACT)


def test_constraints():
    def fn(T):
        C = T.distributions.constraints
        x = T.tensor([[0.0, 1.0, 0.5], [-1.0, float("nan"), 2.0]])
        onehot = T.tensor([[0.0, 1.0, 0.0], [1.0, 1.0, 0.0]])
        simplex = T.tensor([[0.2, 0.3, 0.5], [0.5, 0.6, -0.1]])
        cs = [C.real, C.positive, C.nonnegative, C.unit_interval, C.boolean, C.nonnegative_integer,
              C.positive_integer, C.real_vector, C.simplex, C.one_hot, C.greater_than(0.5),
              C.greater_than_eq(0.5), C.less_than(1.0), C.interval(-1.0, 0.5), C.half_open_interval(0.0, 1.0),
              C.integer_interval(0, 1), C.independent(C.positive, 1)]
        out = [(repr(c), c.is_discrete, c.event_dim, c.check(x), c.check(onehot), c.check(simplex)) for c in cs]
        out.append((C.is_dependent(C.dependent), C.is_dependent(C.real),
                    C.is_dependent(T.distributions.Uniform.support), repr(C.dependent)))
        return out
    check(fn, **EXACT)
    check_message(lambda T: T.distributions.constraints.dependent.check(T.ones(1)))
    check_message(lambda T: T.distributions.constraints.dependent.event_dim)


def test_sample_n_warns_and_shapes():
    import warnings

    def fn(T):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            T.manual_seed(0)
            s = T.distributions.Categorical(T.ones(3)).sample_n(4)
        return s, [(w.category.__name__, str(w.message)) for w in caught]
    check(fn, **EXACT)


def test_float64_samples():
    def fn(T):
        T.manual_seed(3)
        p = T.tensor(np.array([0.1, 0.6, 0.3]))
        D = T.distributions
        return (D.Categorical(p).sample((4,)), D.Bernoulli(p).sample((2,)), D.Uniform(p, p + 1).sample(),
                D.OneHotCategorical(p).sample())
    check(fn, **EXACT)


def test_every_public_name_is_present():
    import mstorch
    import torch
    missing = [n for n in torch.distributions.__all__ if not hasattr(mstorch.distributions, n)]
    assert missing == []
    assert sorted(mstorch.distributions.__all__) == sorted(torch.distributions.__all__)
