"""Independent, TransformedDistribution with AffineTransform (and ComposeTransform, inverses, caching), StudentT and
NegativeBinomial against torch: shapes, log_prob, cdf/icdf, moments, entropy, gradients, expand, validation errors.
transformers' time-series heads build exactly these (``AffineTransformed(Independent(StudentT(...), 1))``)."""
import numpy as np
import pytest

from harness import check, rand, positive
from test_autograd import check_message


def _leaf(T, a):
    return T.tensor(a, requires_grad=True)


def test_student_t_log_prob_moments_and_gradients():
    def fn(T):
        df = _leaf(T, np.array([0.7, 1.5, 3.0, 8.0], np.float32))
        loc, scale = _leaf(T, rand(4, seed=1)), _leaf(T, positive(4, seed=2))
        d = T.distributions.StudentT(df, loc, scale)
        value = T.tensor(rand(3, 4, seed=3))
        lp, ent = d.log_prob(value), d.entropy()
        (lp.sum() + ent.sum()).backward()
        return [lp, ent, d.mean, d.mode, d.variance, tuple(d.batch_shape), tuple(d.event_shape), df.grad, loc.grad,
                scale.grad, d.has_rsample, repr(d.support)]
    check(fn, rtol=1e-5, atol=1e-5)


def test_negative_binomial_log_prob_and_moments():
    def fn(T):
        total = T.tensor([0.0, 1.0, 2.5, 7.0])
        logits = _leaf(T, rand(4, seed=4))
        d = T.distributions.NegativeBinomial(total_count=total, logits=logits)
        value = T.tensor([[0.0, 1.0, 2.0, 5.0], [0.0, 0.0, 3.0, 1.0]])
        lp = d.log_prob(value)
        lp.sum().backward()
        p = T.distributions.NegativeBinomial(3.0, probs=T.tensor([0.2, 0.7]))
        return [lp, d.mean, d.variance, d.mode, logits.grad, d.probs, p.logits, p.log_prob(T.tensor([1.0, 4.0])),
                p.mean, tuple(p.param_shape), tuple(d.expand((2, 4)).batch_shape), repr(d.support)]
    check(fn, rtol=1e-5, atol=1e-5)
    check_message(lambda T: T.distributions.NegativeBinomial(2.0))
    check_message(lambda T: T.distributions.NegativeBinomial(2.0, probs=T.tensor([0.5]), logits=T.tensor([0.5])))


@pytest.mark.parametrize("event_dim", [0, 1])
def test_affine_transformed_independent_student_t(event_dim):
    """transformers' AffineTransformed(Independent(StudentT, 1), loc, scale): shapes, log_prob and gradients."""
    def fn(T):
        D = T.distributions
        df = T.tensor(positive(2, 3, seed=5)) + 2
        loc, scale = _leaf(T, rand(2, 3, seed=6)), _leaf(T, positive(2, 3, seed=7))
        base = D.StudentT(df, loc, scale)
        base = D.Independent(base, 1) if event_dim else base
        shift, mult = T.tensor(rand(3, seed=8)), T.tensor(positive(3, seed=9))
        d = D.TransformedDistribution(base, [D.AffineTransform(loc=shift, scale=mult, event_dim=event_dim)])
        value = T.tensor(rand(2, 3, seed=10))
        lp = d.log_prob(value)
        lp.sum().backward()
        return [lp, tuple(d.batch_shape), tuple(d.event_shape), loc.grad, scale.grad, d.has_rsample,
                repr(d.support), tuple(d.expand((4, 2) if event_dim else (4, 2, 3)).batch_shape)]
    check(fn, rtol=1e-5, atol=1e-5)


def test_transformed_normal_sample_cdf_icdf_and_negative_scale():
    def fn(T):
        D = T.distributions
        T.manual_seed(0)
        loc, scale = _leaf(T, rand(3, seed=11)), _leaf(T, positive(3, seed=12))
        aff = D.AffineTransform(loc=2.0, scale=-3.0)
        d = D.TransformedDistribution(D.Normal(loc, scale), aff)
        x = d.rsample((2,))
        v = T.tensor([0.1, 0.5, 0.9])
        out = [x, d.sample(), d.log_prob(x.detach()), d.cdf(T.tensor([1.0, 2.0, 3.0])), d.icdf(v), aff.sign,
               aff.inv(aff(T.tensor([1.0, -1.0]))), repr(aff), repr(aff.inv), aff.inv.inv is aff,
               aff.log_abs_det_jacobian(T.ones(2), T.ones(2)), aff == D.AffineTransform(2.0, -3.0),
               aff.inv == aff.inv, aff.bijective, aff.event_dim]
        x.sum().backward()
        return out + [loc.grad, scale.grad]
    check(fn, rtol=1e-5, atol=1e-6)


def test_compose_transform_and_cache():
    def fn(T):
        D = T.distributions
        a = D.AffineTransform(T.tensor([1.0, 2.0]), T.tensor([2.0, -0.5]), event_dim=1)
        b = D.AffineTransform(0.5, 4.0)
        c = D.ComposeTransform([a, b])
        x = T.tensor([[1.0, 2.0], [3.0, -1.0]])
        y = c(x)
        cached = D.AffineTransform(1.0, 2.0, cache_size=1)
        cy = cached(x)
        return [y, c.inv(y), c.log_abs_det_jacobian(x, y), c.domain.event_dim, c.codomain.event_dim, c.sign, repr(c),
                c.bijective, tuple(c.forward_shape((3, 2))), D.identity_transform(x), cached.inv(cy) is x,
                cached.with_cache(1) is cached, repr(D.identity_transform)]
    check(fn)
    check_message(lambda T: T.distributions.AffineTransform(0.0, 1.0, cache_size=2))
    check_message(lambda T: T.distributions.TransformedDistribution(T.distributions.Normal(0.0, 1.0), 3))


def test_independent():
    def fn(T):
        D = T.distributions
        T.manual_seed(1)
        n = D.Normal(T.tensor(rand(2, 3, seed=13)), T.tensor(positive(2, 3, seed=14)))
        ind = D.Independent(n, 1)
        value = T.tensor(rand(2, 3, seed=15))
        return [ind.log_prob(value), ind.entropy(), ind.sample((2,)), ind.rsample(), tuple(ind.batch_shape),
                tuple(ind.event_shape), ind.mean, ind.variance, ind.mode, repr(ind), repr(ind.support),
                tuple(ind.expand((4, 2)).batch_shape), D.Independent(n, 2).log_prob(value),
                D.Independent(n, 0).has_enumerate_support]
    check(fn)
    check_message(lambda T: T.distributions.Independent(T.distributions.Normal(T.zeros(2), T.ones(2)), 2))


def test_validation():
    check_message(lambda T: T.distributions.StudentT(T.tensor([-1.0])))
    check_message(lambda T: T.distributions.NegativeBinomial(T.tensor([-1.0]), logits=T.tensor([0.0])))
    check_message(lambda T: T.distributions.StudentT(T.tensor([2.0, 3.0])).log_prob(T.ones(3)))


def test_gamma_based_samples_on_torch_stream():
    """StudentT (a normal, then a Chi2) and NegativeBinomial (a Poisson of a Gamma rate) sample through torch's gamma
    sampler: the same values for the same seed, and StudentT's rsample differentiates in loc and scale."""
    def fn(T):
        loc, scale = _leaf(T, rand(3, seed=10)), _leaf(T, positive(3, seed=11))
        d = T.distributions.StudentT(T.tensor([0.7, 3.0, 12.0]), loc, scale)
        T.manual_seed(7)
        s = d.rsample((4,))
        s.sum().backward()
        nb = T.distributions.NegativeBinomial(T.tensor([0.0, 2.0, 9.5]), logits=T.tensor([0.3, -1.0, 0.5]))
        T.manual_seed(8)
        chi = T.distributions.Chi2(T.tensor([1.0, 4.0]))
        return [s, loc.grad, scale.grad, d.sample((2,)), nb.sample((3,)), chi.sample((2,)), chi.df, chi.mean,
                chi.log_prob(T.tensor([0.5, 3.0])), repr(chi), tuple(d.expand((2, 3)).rsample().shape)]
    check(fn, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("param", ["logits", "probs"])
def test_relaxed_bernoulli_samples_on_torch_stream(param):
    """peft's Poly router: ``RelaxedBernoulli(temperature=1.0, logits=...).rsample()``: torch.rand's draws, the same
    values and gradients."""
    def fn(T):
        D = T.distributions
        T.manual_seed(3)
        p = _leaf(T, rand(2, 3, seed=16) if param == "logits" else positive(2, 3, seed=16) / 3)
        temp = T.tensor(0.7)
        d = D.RelaxedBernoulli(temperature=temp, **{param: p})
        x = d.rsample((2,))
        lp = d.log_prob(x.detach())
        (x.sum() + lp.sum()).backward()
        base = D.relaxed_bernoulli.LogitRelaxedBernoulli(temp, **{param: p.detach()})
        return [x, lp, p.grad, d.sample(), d.probs, d.logits, d.temperature, tuple(d.batch_shape), repr(d.support),
                base.rsample(), base.log_prob(T.zeros(2, 3)), tuple(d.expand((4, 2, 3)).batch_shape),
                tuple(base.param_shape), D.RelaxedBernoulli(T.tensor(1.0), logits=0.3).rsample()]
    # logits made from probs go through MindSpore's log/log1p (a few ulp from torch's, docs/known-differences.md)
    check(fn, rtol=1e-5, atol=1e-5)
    check_message(lambda T: T.distributions.RelaxedBernoulli(T.tensor(1.0)))


def test_sigmoid_transform():
    def fn(T):
        D = T.distributions
        s = D.SigmoidTransform()
        x = T.tensor([-100.0, -2.0, 0.0, 3.0, 100.0])
        y = s(x)
        return [y, s.inv(y), s.log_abs_det_jacobian(x, y), s.sign, s == D.SigmoidTransform(), repr(s),
                repr(s.codomain), s.inv(T.tensor([0.0, 1.0]))]
    check(fn)


def test_gumbel_samples_log_prob_moments():
    def fn(T):
        loc, scale = _leaf(T, rand(3, seed=5)), _leaf(T, positive(3, seed=6))
        d = T.distributions.Gumbel(loc, scale)
        T.manual_seed(3)
        s = d.rsample((2,))
        lp, ent = d.log_prob(s.detach()), d.entropy()
        (s.sum() + lp.sum() + ent.sum()).backward()
        T.manual_seed(4)
        g = T.distributions.gumbel.Gumbel(0.0, 1.0)
        e = d.expand((4, 3))
        return [s, lp, ent, d.mean, d.mode, d.stddev, d.variance, loc.grad, scale.grad, g.sample((5,)),
                g.log_prob(T.tensor([0.5, -1.0])), tuple(e.batch_shape), e.log_prob(T.zeros(4, 3)),
                repr(d.support), d.has_rsample]
    check(fn, rtol=1e-5, atol=1e-5)


def test_exp_transform():
    def fn(T):
        t = T.distributions.ExpTransform()
        x = T.tensor(rand(4, seed=7))
        y = t(x)
        base = T.distributions.Normal(T.zeros(2), T.ones(2))
        ln = T.distributions.TransformedDistribution(base, [T.distributions.ExpTransform()])
        T.manual_seed(0)
        return [y, t.inv(y), t.log_abs_det_jacobian(x, y), t.sign, t == T.distributions.ExpTransform(), t.bijective,
                ln.sample((3,)), ln.log_prob(T.tensor([0.5, 2.0])), repr(t.codomain)]
    check(fn, rtol=1e-5, atol=1e-6)


def test_relaxed_one_hot_categorical():
    def fn(T):
        # (float64: a float32 sample's sum can miss 1 by just over the simplex check's 1e-6 after an ulp of
        # kernel rounding, in either library)
        logits = _leaf(T, rand(2, 4, seed=8).astype(np.float64))
        temp = T.tensor([0.5], dtype=T.float64)
        d = T.distributions.RelaxedOneHotCategorical(temp, logits=logits)
        T.manual_seed(5)
        s = d.rsample((3,))
        lp = d.log_prob(s.detach())
        (s.pow(2).sum() + lp.sum()).backward()
        p = T.distributions.RelaxedOneHotCategorical(T.tensor(2.0), probs=T.tensor([0.1, 0.2, 0.7]))
        T.manual_seed(6)
        b = T.distributions.relaxed_categorical.ExpRelaxedCategorical(T.tensor(1.5), logits=T.tensor(rand(3, seed=9)))
        x = b.rsample((2,))
        return [s, lp, logits.grad, d.probs, tuple(d.batch_shape), tuple(d.event_shape), p.sample((2,)), p.logits,
                x, b.log_prob(x), tuple(d.expand((5, 2)).batch_shape), d.temperature, repr(d.support)]
    check(fn, rtol=1e-5, atol=1e-5)
