"""torch.distributions: the common subset (Bernoulli, Categorical, Normal, OneHotCategorical, Uniform,
kl_divergence, constraints). Samplers draw from mstorch.random, which reproduces torch's CPU streams.

Distributions torch has and mstorch does not (Beta, Gamma, Dirichlet, MultivariateNormal, transforms...)
raise an AttributeError naming them when accessed (``from torch.distributions import Gamma`` is an
ImportError, as for any missing name).
"""
from . import constraints
from .bernoulli import Bernoulli
from .categorical import Categorical
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .kl import kl_divergence, register_kl
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .uniform import Uniform
from .relaxed_bernoulli import RelaxedBernoulli  # noqa: F401  (constructing it raises)
from .wishart import Wishart  # noqa: F401  (constructing it raises)

__all__ = ["Bernoulli", "Categorical", "Distribution", "ExponentialFamily", "Normal", "OneHotCategorical",
           "OneHotCategoricalStraightThrough", "RelaxedBernoulli", "Uniform", "Wishart", "constraints", "kl_divergence", "register_kl"]

_NOT_PROVIDED = frozenset("""AbsTransform AffineTransform Beta Binomial CatTransform Cauchy Chi2 ComposeTransform
ContinuousBernoulli CorrCholeskyTransform CumulativeDistributionTransform Dirichlet ExpTransform Exponential
FisherSnedecor Gamma GeneralizedPareto Geometric Gumbel HalfCauchy HalfNormal Independent IndependentTransform
InverseGamma Kumaraswamy LKJCholesky Laplace LogNormal LogisticNormal LowRankMultivariateNormal
LowerCholeskyTransform MixtureSameFamily Multinomial MultivariateNormal NegativeBinomial Pareto Poisson
PositiveDefiniteTransform PowerTransform RelaxedOneHotCategorical ReshapeTransform
SigmoidTransform SoftmaxTransform SoftplusTransform StackTransform StickBreakingTransform StudentT TanhTransform
Transform TransformedDistribution VonMises Weibull biject_to identity_transform transform_to
transforms""".split())


def __getattr__(name):
    if name in _NOT_PROVIDED:
        raise AttributeError(f"mstorch does not provide torch.distributions.{name} (mstorch.distributions has "
                             f"{', '.join(__all__)})")
    raise AttributeError(f"module 'mstorch.distributions' has no attribute '{name}'")
