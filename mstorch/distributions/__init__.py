"""torch.distributions: the common subset (Bernoulli, Categorical, Normal, OneHotCategorical, Uniform,
MultivariateNormal, Independent, TransformedDistribution with AffineTransform, SigmoidTransform and ExpTransform,
RelaxedBernoulli, RelaxedOneHotCategorical, Gumbel, StudentT and
NegativeBinomial, Gamma, Dirichlet, Beta, kl_divergence,
constraints). Samplers draw from mstorch.random, which reproduces torch's CPU streams (Gamma, Dirichlet and Beta
Chi2, StudentT and NegativeBinomial through torch's own gamma sampler, value for value; gamma samples carry no
gradient to the concentration).

Distributions torch has and mstorch does not (Binomial, Cauchy, most transforms...)
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
from .multivariate_normal import MultivariateNormal
from . import multivariate_normal  # noqa: F401
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .uniform import Uniform
from .independent import Independent
from .negative_binomial import NegativeBinomial
from .studentT import StudentT
from .transforms import AffineTransform, ComposeTransform, SigmoidTransform, Transform, identity_transform
from .transformed_distribution import TransformedDistribution
from . import transforms  # noqa: F401
from .relaxed_bernoulli import RelaxedBernoulli
from .relaxed_categorical import ExpRelaxedCategorical, RelaxedOneHotCategorical  # noqa: F401
from . import relaxed_categorical  # noqa: F401
from .gumbel import Gumbel
from .dirichlet import Dirichlet
from .beta import Beta
from .gamma import Gamma
from .chi2 import Chi2
from . import beta, chi2, dirichlet, gamma  # noqa: F401
from . import gumbel  # noqa: F401
from .transforms import ExpTransform
from .wishart import Wishart  # noqa: F401  (constructing it raises)

__all__ = ["AffineTransform", "Bernoulli", "Beta", "Chi2", "Dirichlet", "Gamma", "Categorical", "ComposeTransform", "Distribution", "ExpTransform", "ExponentialFamily", "Gumbel",
           "Independent", "MultivariateNormal", "NegativeBinomial", "Normal", "OneHotCategorical", "OneHotCategoricalStraightThrough",
           "RelaxedBernoulli", "RelaxedOneHotCategorical", "SigmoidTransform", "StudentT", "Transform", "TransformedDistribution", "Uniform", "Wishart",
           "constraints", "identity_transform", "kl_divergence", "register_kl"]

_NOT_PROVIDED = frozenset("""AbsTransform Binomial CatTransform Cauchy ContinuousBernoulli
CorrCholeskyTransform CumulativeDistributionTransform Exponential
FisherSnedecor GeneralizedPareto Geometric HalfCauchy HalfNormal
IndependentTransform InverseGamma Kumaraswamy LKJCholesky Laplace LogNormal
LogisticNormal LowRankMultivariateNormal LowerCholeskyTransform MixtureSameFamily
Multinomial Pareto Poisson PositiveDefiniteTransform PowerTransform
ReshapeTransform SoftmaxTransform SoftplusTransform
StackTransform StickBreakingTransform TanhTransform VonMises Weibull biject_to
transform_to""".split())


def __getattr__(name):
    if name in _NOT_PROVIDED:
        raise AttributeError(f"mstorch does not provide torch.distributions.{name} (mstorch.distributions has "
                             f"{', '.join(__all__)})")
    raise AttributeError(f"module 'mstorch.distributions' has no attribute '{name}'")
