"""torch.distributions.Dirichlet: samples from torch._sample_dirichlet (torch's gamma sampler on its CPU
stream, so seeded samples are torch's). The implicit reparameterized gradient of the samples is not
implemented: ``rsample`` from a concentration that requires grad raises (see docs/known-differences.md)."""
from .. import _functions as fn
from .._size import Size
from ..nn import functional as F
from . import constraints
from .exp_family import ExponentialFamily

__all__ = ["Dirichlet"]


class Dirichlet(ExponentialFamily):
    """Mirrors torch.distributions.Dirichlet(concentration)."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape + self.event_shape)
        super(Dirichlet, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        return fn._sample_dirichlet(self.concentration.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        a = self.concentration
        return fn.xlogy(a - 1.0, value).sum(-1) + fn.lgamma(a.sum(-1)) - fn.lgamma(a).sum(-1)

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self):
        am1 = (self.concentration - 1).clamp(min=0.0)
        mode = am1 / am1.sum(-1, True)
        # all concentrations below 1: the mass piles at a vertex (torch picks the argmax of the NaN-free mode)
        mask = (self.concentration < 1).all(dim=-1)
        mode[mask] = F.one_hot(mode[mask].argmax(dim=-1), am1.shape[-1]).to(mode)
        return mode

    @property
    def variance(self):
        a0 = self.concentration.sum(-1, True)
        return self.concentration * (a0 - self.concentration) / (a0.pow(2) * (a0 + 1))

    def entropy(self):
        a = self.concentration
        k = a.size(-1)
        a0 = a.sum(-1)
        return fn.lgamma(a).sum(-1) - fn.lgamma(a0) - (k - a0) * fn.digamma(a0) - ((a - 1.0) * fn.digamma(a)).sum(-1)

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - fn.lgamma(x.sum(-1))
