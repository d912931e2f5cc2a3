"""The rest of torch.distributions against torch: Exponential, Laplace, Cauchy, LogNormal, HalfNormal, HalfCauchy,
Poisson, Geometric, Pareto, Weibull, Binomial, Multinomial, MixtureSameFamily; the transforms, biject_to /
transform_to and torch.binomial. Seeded samples equal torch's (torch's own samplers on its CPU stream); values,
shapes, gradients of rsample and log_prob, validation errors word for word."""
import numpy as np
import pytest

from harness import check, check_as_torch, rand, positive
from test_autograd import check_message
from test_distributions import _all_stats

EXACT = dict(rtol=0, atol=0)
CLOSE = dict(rtol=1e-5, atol=1e-6)   # samples through normal_ (2 ulp) or MindSpore's log1p/exp/pow (1 ulp)


def _t(T, a, dt="float32", grad=False):
    return T.tensor(np.asarray(a, dtype=dt), requires_grad=grad)


def _dists(T, dt="float32", grad=False, leaves=None):
    """One of each distribution, over a (2, 3) batch, parameters possibly requiring grad (appended to
    ``leaves``)."""
    D = T.distributions
    loc = _t(T, rand(2, 3, seed=1), dt, grad)
    scale = _t(T, positive(2, 3, seed=2), dt, grad)
    rate = _t(T, positive(2, 3, seed=3) * 2, dt, grad)
    probs = _t(T, positive(2, 3, seed=4) / 3, dt, grad)
    if leaves is not None:
        leaves.extend([loc, scale, rate, probs])
    return {
        "Exponential": D.Exponential(rate),
        "Laplace": D.Laplace(loc, scale),
        "Cauchy": D.Cauchy(loc, scale),
        "LogNormal": D.LogNormal(loc, scale),
        "HalfNormal": D.HalfNormal(scale),
        "HalfCauchy": D.HalfCauchy(scale),
        "Pareto": D.Pareto(scale, rate + 1),
        "Weibull": D.Weibull(scale, rate),
        "Poisson": D.Poisson(rate * 5),
        "Geometric": D.Geometric(probs),
        "Binomial": D.Binomial(_t(T, [[3, 10, 40], [0, 25, 7]], dt), probs),
        "ContinuousBernoulli": D.ContinuousBernoulli(_t(T, [[0.2, 0.4995, 0.9], [0.5, 0.01, 0.7]], dt, grad)),
        "InverseGamma": D.InverseGamma(rate + 1, scale),
        "Kumaraswamy": D.Kumaraswamy(scale, rate),
        "FisherSnedecor": D.FisherSnedecor(rate * 3, scale * 4),
        "GeneralizedPareto": D.GeneralizedPareto(loc, scale, _t(T, [[0.0, 0.3, -0.2], [0.6, 1e-9, -0.5]], dt)),
        "LogisticNormal": D.LogisticNormal(loc, scale),
    }


# samplers drawing gamma variates: no reparameterized gradient to the concentration (a known difference)
GAMMA_BASED = ("InverseGamma", "FisherSnedecor")
UNIT = ("ContinuousBernoulli", "Kumaraswamy")
CONTINUOUS = ["Exponential", "Laplace", "Cauchy", "LogNormal", "HalfNormal", "HalfCauchy", "Pareto", "Weibull",
              "ContinuousBernoulli", "InverseGamma", "Kumaraswamy", "FisherSnedecor", "GeneralizedPareto",
              "LogisticNormal"]
DISCRETE = ["Poisson", "Geometric", "Binomial"]


@pytest.mark.parametrize("name", CONTINUOUS + DISCRETE)
@pytest.mark.parametrize("seed", [0, 3])
def test_samples_on_torch_stream(name, seed):
    def fn(T):
        d = _dists(T)[name]
        T.manual_seed(seed)
        out = [d.sample(), d.sample((4,)), d.expand((5,) + tuple(d.batch_shape)).sample()]
        if d.has_rsample:
            out.append(d.rsample((2, 1)))
        return out, T.rand(3)   # the stream is left where torch leaves it
    check(fn, **CLOSE)
    if name in ("Exponential", "Cauchy", "Poisson", "Geometric", "Binomial", "FisherSnedecor"):   # no libm after the draw
        check(fn, **EXACT)


def test_scalar_parameters_samples():
    def fn(T):
        D = T.distributions
        T.manual_seed(7)
        ds = [D.Exponential(1.5), D.Laplace(0.5, 2.0), D.Cauchy(-1.0, 0.5), D.Poisson(3.0), D.Geometric(0.25),
              D.HalfNormal(2.0), D.LogNormal(0.0, 1.0), D.Pareto(1.0, 2.0), D.Weibull(1.0, 0.5),
              D.Binomial(20, T.tensor(0.7)), D.Binomial(1000, logits=T.tensor([-2.0, 3.0]))]
        return [(d.sample((3,)), tuple(d.batch_shape)) for d in ds]
    check(fn, **CLOSE)


def _value(T, name, dtype="float32", batch=4, d=None):
    if name == "GeneralizedPareto":   # inside the support whatever the concentration's sign
        return d.icdf(_t(T, positive(batch, 2, 3, seed=9) / 3.1, dtype)).detach()
    if name in DISCRETE:
        return _t(T, [[0, 1, 2], [0, 3, 1]], dtype)
    if name in UNIT:
        return _t(T, positive(batch, 2, 3, seed=9) / 3.1, dtype)
    if name == "LogisticNormal":
        v = positive(batch, 2, 4, seed=9)
        return _t(T, v / v.sum(-1, keepdims=True), dtype)
    return _t(T, positive(batch, 2, 3, seed=9) + 3.5, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", CONTINUOUS + DISCRETE)
def test_statistics(name, dtype):
    def fn(T):
        d = _dists(T, dtype)[name]
        value = _value(T, name, dtype, d=d)
        if name == "Binomial":   # entropy needs one total count
            d.entropy = T.distributions.Binomial(6, _t(T, [0.2, 0.5, 0.9], dtype)).entropy
        if name == "LogisticNormal":   # no moments in torch: the TransformedDistribution ones raise
            return {"log_prob": d.log_prob(value), "shapes": (tuple(d.batch_shape), tuple(d.event_shape)),
                    "support": repr(d.support), "loc": d.loc, "scale": d.scale, "repr": repr(d),
                    "expand": tuple(d.expand((3, 2)).batch_shape)}
        entropy = d.entropy
        try:
            entropy()
        except NotImplementedError:   # (Poisson, FisherSnedecor, LogisticNormal: none in torch either)
            d.entropy = lambda: "NotImplementedError"
            d.perplexity = lambda: None
        return _all_stats(T, d, value)
    if name == "GeneralizedPareto" and dtype == "float64":
        # torch compares the concentration with a float32 zero: float64 log_prob raises (so must ours)
        check_message(lambda T: _dists(T, dtype)[name].log_prob(_t(T, [1.0], dtype)))
        return
    tol = dict(rtol=1e-6, atol=1e-7) if dtype == "float64" else dict(rtol=1e-5, atol=1e-6)
    if name == "Kumaraswamy" and dtype == "float32":
        tol["atol"] = 5e-6   # its variance is E[x^2] - E[x]^2: float32 cancellation
    if name == "LogisticNormal" and dtype == "float32":
        tol["atol"] = 5e-5   # log_prob sums terms of size ~30 (the stick-breaking log|det J|) in float32
    check(fn, **tol)


@pytest.mark.parametrize("name", CONTINUOUS + DISCRETE)
def test_log_prob_and_rsample_gradients(name):
    def fn(T):
        T.manual_seed(1)
        leaves = []
        d = _dists(T, grad=True, leaves=leaves)[name]
        value = d.sample((2,)) if name in DISCRETE else _value(T, name, batch=2, d=d)
        loss = d.log_prob(value).sum()
        if d.has_rsample and name not in GAMMA_BASED:
            loss = loss + d.rsample((3,)).sum()
        if name not in ("Cauchy", "HalfCauchy", "Binomial", "LogisticNormal"):
            loss = loss + d.mean.sum()
        return loss, T.autograd.grad(loss, leaves, allow_unused=True)
    check(fn, rtol=1e-5, atol=1e-5)


def test_multinomial():
    def fn(T):
        D = T.distributions
        logits = _t(T, rand(2, 4, seed=5), grad=True)
        d = D.Multinomial(7, logits=logits)
        T.manual_seed(2)
        s = d.sample((3,))
        lp = d.log_prob(s)
        lp.sum().backward()
        p = D.Multinomial(5, probs=T.tensor([0.2, 0.0, 0.8]))
        value = T.tensor([[1.0, 0.0, 4.0], [0.0, 0.0, 5.0]])
        return [s, lp, logits.grad, d.mean, d.variance, d.entropy(), tuple(d.batch_shape), tuple(d.event_shape),
                p.sample((4,)), p.log_prob(value), repr(d.support), tuple(d.expand((3, 2)).sample().shape),
                tuple(d.param_shape), T.rand(2)]
    check(fn, rtol=1e-5, atol=1e-5)
    check_message(lambda T: T.distributions.Multinomial(T.tensor(3), probs=T.tensor([0.5, 0.5])))
    check_message(lambda T: T.distributions.Multinomial(3, probs=T.tensor([0.5, 0.5])).log_prob(T.tensor([4.0, 1.0])))


def test_mixture_same_family():
    def fn(T):
        D = T.distributions
        logits = _t(T, rand(2, 3, seed=5), grad=True)
        loc = _t(T, rand(2, 3, seed=6), grad=True)
        scale = _t(T, positive(2, 3, seed=7))
        gmm = D.MixtureSameFamily(D.Categorical(logits=logits), D.Normal(loc, scale))
        mv = D.MixtureSameFamily(D.Categorical(logits=logits),
                                 D.Independent(D.Normal(loc.unsqueeze(-1).expand(2, 3, 2), scale.unsqueeze(-1)), 1))
        T.manual_seed(4)
        x = _t(T, rand(4, 2, seed=8))
        lp = gmm.log_prob(x)
        (lp.sum() + gmm.mean.sum() + gmm.variance.sum() + mv.log_prob(x.unsqueeze(-1).expand(4, 2, 2)).sum()).backward()
        return [gmm.sample((3,)), mv.sample((2,)), lp, gmm.cdf(x), gmm.mean, gmm.variance, mv.mean, mv.variance,
                logits.grad, loc.grad, tuple(gmm.batch_shape), tuple(mv.event_shape), repr(gmm.support),
                tuple(gmm.expand((5, 2)).sample().shape), repr(gmm)]
    check(fn, rtol=1e-5, atol=1e-6)
    check_message(lambda T: T.distributions.MixtureSameFamily(T.distributions.Normal(0.0, 1.0),
                                                              T.distributions.Normal(T.zeros(2), 1.0)))
    check_message(lambda T: T.distributions.MixtureSameFamily(T.distributions.Categorical(T.ones(3)),
                                                              T.distributions.Normal(T.zeros(2), 1.0)))
    check_message(lambda T: T.distributions.MixtureSameFamily(T.distributions.Categorical(T.ones(2, 2)),
                                                              T.distributions.Normal(T.zeros(3, 2), 1.0)))
    check_message(lambda T: T.distributions.MixtureSameFamily(T.distributions.Categorical(T.ones(2)), "x"))


BAD = [
    lambda T, D: D.Exponential(-1.0),
    lambda T, D: D.Exponential(T.tensor([1.0, 0.0])),
    lambda T, D: D.Laplace(0.0, 0.0),
    lambda T, D: D.Cauchy(T.tensor([float("nan")]), 1.0),
    lambda T, D: D.LogNormal(0.0, -2.0),
    lambda T, D: D.HalfNormal(-1.0),
    lambda T, D: D.HalfCauchy(T.tensor([1.0, -1.0])),
    lambda T, D: D.Pareto(1.0, -1.0),
    lambda T, D: D.Weibull(-1.0, 1.0),
    lambda T, D: D.Poisson(-0.5),
    lambda T, D: D.Geometric(T.tensor([0.5, 0.0])),
    lambda T, D: D.Geometric(1.5),
    lambda T, D: D.Geometric(),
    lambda T, D: D.Geometric(0.5, 0.5),
    lambda T, D: D.Binomial(3),
    lambda T, D: D.Binomial(T.tensor([2.5]), T.tensor([0.5])),
    lambda T, D: D.Binomial(3, T.tensor([1.5])),
    lambda T, D: D.Exponential(1.0).log_prob(T.tensor([-1.0])),
    lambda T, D: D.HalfNormal(1.0).log_prob(T.tensor([-1.0])),
    lambda T, D: D.LogNormal(0.0, 1.0).log_prob(T.tensor([0.0])),
    lambda T, D: D.Pareto(1.0, 1.0).log_prob(T.tensor([0.5])),
    lambda T, D: D.Poisson(1.0).log_prob(T.tensor([1.5])),
    lambda T, D: D.Geometric(0.5).log_prob(T.tensor([-1.0])),
    lambda T, D: D.Binomial(3, T.tensor([0.5])).log_prob(T.tensor([4.0])),
    lambda T, D: D.Binomial(T.tensor([3.0, 4.0]), T.tensor([0.5, 0.5])).entropy(),
    lambda T, D: D.Binomial(T.tensor([3.0, 4.0]), T.tensor([0.5, 0.5])).enumerate_support(),
    lambda T, D: D.Laplace(T.zeros(3), 1.0).log_prob(T.ones(2)),
]


@pytest.mark.parametrize("k", range(len(BAD)))
def test_validation_messages(k):
    check_message(lambda T: BAD[k](T, T.distributions))


def test_validate_args_off():
    def fn(T):
        D = T.distributions
        return [D.Exponential(-1.0, validate_args=False).log_prob(T.tensor(0.5)),
                D.HalfNormal(1.0, validate_args=False).log_prob(T.tensor([-1.0, 1.0])),
                D.Poisson(2.0, validate_args=False).log_prob(T.tensor([1.5])),
                D.Geometric(T.tensor([0.5, 1.0]), validate_args=False).log_prob(T.tensor([0.0, 0.0]))]
    check(fn)


def test_binomial_op_on_torch_stream():
    def fn(T):
        T.manual_seed(3)
        rng = np.random.default_rng(0)
        out = []
        for dt in ("float32", "float64"):
            n = np.concatenate([rng.integers(0, 300, 30), [0, 1, 5, 1000, 10000, 3, 50]]).astype(dt)
            p = np.concatenate([rng.random(30), [0.5, 1.0, 0.0, 0.3, 0.97, 0.999, 0.02]]).astype(dt)
            out.append(T.binomial(T.tensor(n), T.tensor(p)))
            out.append(T.binomial(T.tensor(n[:3]).reshape(3, 1), T.tensor(p[:4])))
        g = T.Generator().manual_seed(5)
        out.append(T.binomial(T.full((6,), 30.0), T.full((6,), 0.4), generator=g))
        return out, T.rand(2)
    check(fn, **EXACT)
    check_message(lambda T: T.binomial(T.tensor([3]), T.tensor([0.5])))
    check_message(lambda T: T.binomial(T.tensor([3.0]), T.tensor([0.5], dtype=T.float64)))


# --- transforms and the constraint registry -----------------------------------------------------------------

def _transforms(T):
    D = T.distributions
    tr = D.transforms
    return {
        "abs": (tr.AbsTransform(), rand(2, 3, seed=1)),
        "power": (D.PowerTransform(T.tensor([0.5, 2.0, -1.5])), positive(2, 3, seed=2)),
        "tanh": (D.TanhTransform(), rand(2, 3, seed=3)),
        "softplus": (D.SoftplusTransform(), rand(2, 3, seed=4) * 4),
        "softmax": (D.SoftmaxTransform(), rand(2, 3, seed=5)),
        "stick": (D.StickBreakingTransform(), rand(2, 3, seed=6)),
        "lower_cholesky": (D.LowerCholeskyTransform(), rand(2, 3, 3, seed=7)),
        "positive_definite": (D.PositiveDefiniteTransform(), rand(2, 3, 3, seed=8)),
        "corr_cholesky": (D.CorrCholeskyTransform(), rand(2, 6, seed=9)),
        "reshape": (D.ReshapeTransform((2, 3), (3, 2)), rand(4, 2, 3, seed=10)),
        "independent": (D.IndependentTransform(D.ExpTransform(), 1), rand(2, 3, seed=11)),
        "cat": (D.CatTransform([D.ExpTransform(), D.TanhTransform(), D.AffineTransform(1.0, 2.0)], dim=1,
                               lengths=[1, 1, 1]), rand(2, 3, seed=12)),
        "stack": (D.StackTransform([D.ExpTransform(), D.SoftplusTransform()], dim=0), rand(2, 3, seed=13)),
        "cdf": (D.CumulativeDistributionTransform(D.Normal(T.tensor(0.5), T.tensor(2.0))), rand(2, 3, seed=14)),
    }


NAMES = ["abs", "power", "tanh", "softplus", "softmax", "stick", "lower_cholesky", "positive_definite",
         "corr_cholesky", "reshape", "independent", "cat", "stack", "cdf"]


@pytest.mark.parametrize("name", NAMES)
def test_transform(name):
    def fn(T):
        t, x = _transforms(T)[name]
        x = T.tensor(x, requires_grad=True)
        y = t(x)
        out = {"y": y, "x_back": t.inv(y), "repr": repr(t), "domain": repr(t.domain), "codomain": repr(t.codomain),
               "bijective": t.bijective, "event_dim": (t.domain.event_dim, t.codomain.event_dim),
               "shape": (tuple(t.forward_shape(x.shape)), tuple(t.inverse_shape(y.shape))),
               "eq": (t == t, t == T.distributions.ExpTransform()), "in_codomain": t.codomain.check(y)}
        try:
            sign = t.sign
            out["sign"] = sign if isinstance(sign, int) else sign.tolist()
        except NotImplementedError:
            out["sign"] = "NotImplementedError"
        try:
            ladj = t.log_abs_det_jacobian(x, y)
            out["ladj"] = ladj
            loss = y.sum() + ladj.sum()
        except NotImplementedError:
            out["ladj"] = "NotImplementedError"
            loss = y.sum()
        out["grad"] = T.autograd.grad(loss, x)[0]
        cached = t.with_cache(1)
        y2 = cached(x)
        out["cache"] = cached.inv(y2) is x
        return out
    # the positive-definite inverse goes through a Cholesky factorisation: its float32 rounding differs
    check(fn, **(dict(rtol=1e-4, atol=1e-4) if name == "positive_definite" else dict(rtol=1e-5, atol=1e-5)))


def test_transform_errors():
    D = lambda T: T.distributions  # noqa: E731
    check_message(lambda T: D(T).ReshapeTransform((2, 3), (4,)))
    check_message(lambda T: D(T).ReshapeTransform((2, 3), (3, 2)).forward_shape((4, 3, 2)))
    check_message(lambda T: D(T).ReshapeTransform((2, 3), (3, 2)).inverse_shape((2,)))
    check_message(lambda T: D(T).StickBreakingTransform().forward_shape(()))
    check_message(lambda T: D(T).CorrCholeskyTransform().forward_shape((4,)))
    check_message(lambda T: D(T).CorrCholeskyTransform().inverse_shape((3, 2)))
    check_message(lambda T: D(T).CatTransform([D(T).ExpTransform()], dim=0)(T.ones(2)))
    check_message(lambda T: D(T).StackTransform([D(T).ExpTransform()], dim=3)(T.ones(2)))
    check_message(lambda T: D(T).CatTransform([D(T).ExpTransform()], lengths=[1, 2]))
    check_message(lambda T: D(T).IndependentTransform(D(T).ExpTransform(), 2)(T.ones(2)))


def test_transformed_distributions_with_new_transforms():
    def fn(T):
        D = T.distributions
        loc = _t(T, rand(3, seed=1), grad=True)
        base = D.Normal(loc, T.ones(3))
        squashed = D.TransformedDistribution(base, [D.TanhTransform(), D.AffineTransform(0.0, 2.0)])
        simplex = D.TransformedDistribution(D.Independent(base, 1), D.StickBreakingTransform())
        T.manual_seed(0)
        s = squashed.rsample((4,))
        v = simplex.rsample((2,))
        lp = squashed.log_prob(s.detach() * 0.9) .sum() + simplex.log_prob(v.detach()).sum()
        lp.backward()
        return [s, v, lp, loc.grad, tuple(simplex.event_shape), repr(simplex.support)]
    check(fn, rtol=1e-5, atol=1e-5)


CONSTRAINTS = [
    lambda C, T: C.real, lambda C, T: C.positive, lambda C, T: C.nonnegative, lambda C, T: C.greater_than(1.5),
    lambda C, T: C.greater_than_eq(-1.0), lambda C, T: C.less_than(2.0), lambda C, T: C.unit_interval,
    lambda C, T: C.interval(-1.0, 3.0), lambda C, T: C.half_open_interval(0.0, 2.0), lambda C, T: C.simplex,
    lambda C, T: C.real_vector, lambda C, T: C.independent(C.positive, 1), lambda C, T: C.lower_cholesky,
    lambda C, T: C.positive_definite, lambda C, T: C.corr_cholesky,
    lambda C, T: C.cat([C.positive, C.real], dim=-1, lengths=[1, 2]),
    lambda C, T: C.stack([C.positive, C.unit_interval, C.real], dim=-1),
    lambda C, T: C.interval(T.zeros(3), T.tensor([1.0, 2.0, 3.0])),
]


@pytest.mark.parametrize("k", range(len(CONSTRAINTS)))
@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
def test_constraint_registry(registry, k):
    def fn(T):
        D = T.distributions
        c = CONSTRAINTS[k](D.constraints, T)
        t = getattr(D, registry)(c)
        n = 6 if c is D.constraints.corr_cholesky else 3
        x = T.tensor(rand(2, n, n, seed=k) if c in (D.constraints.lower_cholesky, D.constraints.positive_definite)
                     else rand(2, n, seed=k))
        y = t(x)
        return repr(t), y, c.check(y).all().item(), tuple(t.forward_shape(x.shape))
    check_as_torch(fn, rtol=1e-5, atol=1e-5)


def test_constraint_registry_errors_and_register():
    check_message(lambda T: T.distributions.biject_to(T.distributions.constraints.lower_cholesky))
    check_message(lambda T: T.distributions.transform_to(T.distributions.constraints.boolean))
    check_message(lambda T: T.distributions.constraint_registry.ConstraintRegistry().register(3, lambda c: c))

    def fn(T):
        C = T.distributions.constraints
        reg = T.distributions.constraint_registry.ConstraintRegistry()

        @reg.register(C.positive)
        def _to_positive(constraint):
            return T.distributions.SoftplusTransform()
        return repr(reg(C.positive)), repr(reg(C.greater_than(3.0)))
    check(fn)


# --- kl_divergence between the families ---------------------------------------------------------------------

def _kl_family(T):
    """One distribution per family over a batch of 3 (each several times where supports decide inf)."""
    D = T.distributions
    t = lambda a: T.tensor(np.asarray(a, np.float32))  # noqa: E731
    return {
        "Normal": D.Normal(t([0.1, -0.5, 0.3]), t([0.8, 1.5, 0.4])),
        "Uniform": D.Uniform(t([0.1, 0.2, 0.05]), t([0.7, 0.9, 0.5])),
        "Uniform_wide": D.Uniform(t([-1.0, 0.5, 1.2]), t([0.7, 2.0, 3.0])),
        "Exponential": D.Exponential(t([0.5, 1.5, 3.0])),
        "Gamma": D.Gamma(t([0.7, 2.0, 5.0]), t([1.2, 0.5, 2.0])),
        "Beta": D.Beta(t([0.7, 2.0, 5.0]), t([1.2, 0.5, 2.0])),
        "Laplace": D.Laplace(t([0.2, -0.4, 1.0]), t([0.6, 1.1, 2.0])),
        "Gumbel": D.Gumbel(t([0.2, -0.4, 1.0]), t([0.6, 1.1, 2.0])),
        "Pareto": D.Pareto(t([0.5, 1.0, 2.0]), t([0.8, 1.5, 3.5])),
        "Pareto_small": D.Pareto(t([0.3, 0.2, 0.1]), t([2.5, 3.0, 1.5])),
        "Cauchy": D.Cauchy(t([0.1, -0.5, 0.3]), t([0.8, 1.5, 0.4])),
        "HalfNormal": D.HalfNormal(t([0.8, 1.5, 0.4])),
        "LogNormal": D.LogNormal(t([0.1, -0.5, 0.3]), t([0.8, 1.5, 0.4])),
        "Poisson": D.Poisson(t([0.5, 2.0, 7.0])),
        "Bernoulli": D.Bernoulli(t([0.2, 0.5, 0.9])),
        "Geometric": D.Geometric(t([0.2, 0.5, 0.9])),
        "Binomial": D.Binomial(t([5.0, 6.0, 7.0]), t([0.2, 0.5, 0.9])),
        "Binomial_fewer": D.Binomial(t([5.0, 4.0, 7.0]), t([0.3, 0.4, 0.6])),
        "ContinuousBernoulli": D.ContinuousBernoulli(t([0.2, 0.4995, 0.9])),
        "Dirichlet": D.Dirichlet(t([[0.5, 1.0, 2.0], [3.0, 0.7, 1.1], [1.0, 1.0, 1.0]])),
        "Independent": D.Independent(D.Normal(t([[0.1, 0.2, 0.3]]), t([[1.0, 2.0, 0.5]])), 1),
        "Independent2": D.Independent(D.Normal(t([[0.0, 0.4, 0.3]]), t([[1.5, 1.0, 0.7]])), 1),
    }


KL_NAMES = list(_kl_family(__import__("torch")))


@pytest.mark.parametrize("p", KL_NAMES)
def test_kl_divergence_pairs(p):
    def fn(T):
        fam = _kl_family(T)
        out = {}
        for q in KL_NAMES:
            try:
                out[q] = T.distributions.kl_divergence(fam[p], fam[q])
            except (NotImplementedError, ValueError, RuntimeError) as exc:
                out[q] = type(exc).__name__
        return out
    check(fn, rtol=2e-5, atol=2e-5)


def test_kl_divergence_gradients():
    def fn(T):
        D = T.distributions
        a = _t(T, positive(3, seed=1) + 0.5, grad=True)
        b = _t(T, rand(3, seed=2), grad=True)
        pairs = [(D.Exponential(a), D.Gamma(a + 1, a)), (D.Laplace(b, a), D.Normal(b * 2, a)),
                 (D.Pareto(a, a + 3), D.Exponential(a)), (D.Poisson(a), D.Poisson(a * 2)),
                 (D.Cauchy(b, a), D.Cauchy(0.0, 1.0)), (D.Geometric(a / 4), D.Geometric(0.5))]
        total = sum(D.kl_divergence(p, q).sum() for p, q in pairs)
        return total, T.autograd.grad(total, [a, b])
    check(fn, rtol=1e-5, atol=1e-5)
    check_message(lambda T: T.distributions.kl_divergence(T.distributions.Binomial(3, T.tensor([0.5])),
                                                          T.distributions.Binomial(5, T.tensor([0.5]))))


def test_lowrank_multivariate_normal():
    def fn(T):
        D = T.distributions
        loc = _t(T, rand(2, 3, seed=1), grad=True)
        w = _t(T, rand(2, 3, 2, seed=2), grad=True)
        diag = _t(T, positive(3, seed=3) + 0.5, grad=True)
        d = D.LowRankMultivariateNormal(loc, w, diag)
        T.manual_seed(5)
        s = d.rsample((4,))
        value = _t(T, rand(4, 2, 3, seed=4))
        lp = d.log_prob(value)
        mvn = D.MultivariateNormal(_t(T, rand(3, seed=6)), scale_tril=_t(T, np.tril(rand(3, 3, seed=7)) + 3 * np.eye(3)))
        q = D.LowRankMultivariateNormal(_t(T, rand(3, seed=8)), _t(T, rand(3, 1, seed=9)), _t(T, positive(3, seed=10)))
        kls = [D.kl_divergence(d, q), D.kl_divergence(d, mvn), D.kl_divergence(mvn, d), D.kl_divergence(q, d)]
        loss = s.sum() + lp.sum() + d.entropy().sum() + sum(k.sum() for k in kls)
        grads = T.autograd.grad(loss, [loc, w, diag])
        return [s, lp, d.entropy(), d.mean, d.mode, d.variance, d.scale_tril, d.covariance_matrix, d.precision_matrix,
                kls, grads, tuple(d.batch_shape), tuple(d.event_shape), tuple(d.expand((5, 2)).sample().shape),
                repr(d.support), T.rand(2)]
    check(fn, rtol=2e-5, atol=2e-5)
    D = lambda T: T.distributions  # noqa: E731
    check_message(lambda T: D(T).LowRankMultivariateNormal(T.tensor(0.0), T.ones(1, 1), T.ones(1)))
    check_message(lambda T: D(T).LowRankMultivariateNormal(T.zeros(3), T.ones(3), T.ones(3)))
    check_message(lambda T: D(T).LowRankMultivariateNormal(T.zeros(3), T.ones(2, 1), T.ones(3)))
    check_message(lambda T: D(T).LowRankMultivariateNormal(T.zeros(3), T.ones(3, 1), T.ones(2)))
    check_message(lambda T: D(T).LowRankMultivariateNormal(T.zeros(2, 3), T.ones(4, 3, 1), T.ones(3)))
    check_message(lambda T: D(T).kl_divergence(D(T).LowRankMultivariateNormal(T.zeros(3), T.ones(3, 1), T.ones(3)),
                                               D(T).LowRankMultivariateNormal(T.zeros(2), T.ones(2, 1), T.ones(2))))
    check_message(lambda T: D(T).kl_divergence(D(T).MultivariateNormal(T.zeros(2), T.eye(2)),
                                               D(T).LowRankMultivariateNormal(T.zeros(3), T.ones(3, 1), T.ones(3))))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_von_mises(dtype):
    def fn(T):
        D = T.distributions
        loc = _t(T, rand(2, 3, seed=1), dtype, grad=True)
        kappa = _t(T, [[0.5, 2.0, 10.0], [1e-6, 4.0, 0.1]], dtype, grad=True)
        d = D.VonMises(loc, kappa)
        T.manual_seed(11)
        s = d.sample((5,))
        lp = d.log_prob(_t(T, rand(4, 2, 3, seed=2), dtype))
        grads = T.autograd.grad(lp.sum() + d.variance.sum(), [loc, kappa])
        return [s, lp, d.mean, d.mode, d.variance, grads, tuple(d.batch_shape), tuple(d.expand((4, 2, 3)).batch_shape),
                d.expand((4, 2, 3)).sample().shape, d.has_rsample, repr(d.support), T.rand(2)]
    # the sampler's cos/acos/log come from MindSpore (a few ulp from torch's): accept decisions agree here
    check(fn, rtol=1e-5, atol=1e-5)
    check_message(lambda T: T.distributions.VonMises(0.0, -1.0))


def test_lkj_cholesky():
    def fn(T):
        D = T.distributions
        conc = _t(T, [0.5, 1.0, 3.0], grad=True)
        d = D.LKJCholesky(4, conc)
        T.manual_seed(6)
        s = d.sample((2,))
        lp = d.log_prob(s)
        grad = T.autograd.grad(lp.sum(), conc)
        scalar = D.LKJCholesky(3, 2.0)
        return [s, lp, grad, tuple(d.batch_shape), tuple(d.event_shape), d.support.check(s),
                scalar.sample().shape, scalar.log_prob(scalar.sample((3,))), tuple(d.expand((2, 3)).sample().shape),
                repr(d.support), T.rand(2)]
    check(fn, rtol=1e-5, atol=1e-5)
    check_message(lambda T: T.distributions.LKJCholesky(1, 1.0))
    check_message(lambda T: T.distributions.LKJCholesky(3, -1.0))
    check_message(lambda T: T.distributions.LKJCholesky(3, 1.0).log_prob(T.ones(3, 3)))


@pytest.mark.parametrize("param", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_wishart(param):
    def fn(T):
        D = T.distributions
        a = rand(2, 3, 3, seed=1)
        tril = T.tensor(np.tril(a, -1) + np.eye(3) * (1.0 + positive(2, 3, seed=2))[..., None], requires_grad=True)
        mat = {"scale_tril": tril, "covariance_matrix": tril @ tril.mT,
               "precision_matrix": T.linalg.inv(tril @ tril.mT)}[param]
        df = T.tensor([4.0, 6.5])
        d = D.Wishart(df, **{param: mat})
        T.manual_seed(3)
        import warnings
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            s = d.sample((2,))   # (torch's rsample cannot be differentiated: it rewrites a saved mask in place)
        lp = d.log_prob(s)
        loss = lp.sum() + d.entropy().sum() + d.mean.sum()
        grad = T.autograd.grad(loss, tril)
        scalar = D.Wishart(5, covariance_matrix=T.eye(2))
        return [s, lp, d.entropy(), d.mean, d.mode, d.variance, d.scale_tril, d.covariance_matrix,
                d.precision_matrix, grad, [str(w.message) for w in caught], tuple(d.batch_shape),
                tuple(d.event_shape), scalar.sample().shape, tuple(d.expand((4, 2)).sample().shape),
                D.kl_divergence(d, D.Wishart(df + 1, **{param: mat})), T.rand(2)]
    check(fn, rtol=1e-4, atol=1e-4)
    check_message(lambda T: T.distributions.Wishart(1.0, covariance_matrix=T.eye(3)))
    check_message(lambda T: T.distributions.Wishart(4.0, T.eye(3), scale_tril=T.eye(3)))
    check_message(lambda T: T.distributions.Wishart(4.0, covariance_matrix=T.ones(3)))
