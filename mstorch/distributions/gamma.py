"""torch.distributions.Gamma(concentration, rate): samples from torch._standard_gamma (torch's sampler on its
CPU stream) divided by the rate, so seeded samples are torch's. Gradients reach ``rate``; the implicit
gradient with respect to ``concentration`` is not implemented (rsample then raises)."""
from .. import _functions as fn
from .. import special
from .._finfo import finfo
from .._size import Size
from . import constraints
from .exp_family import ExponentialFamily
from .utils import _Number, broadcast_all

__all__ = ["Gamma"]


class Gamma(ExponentialFamily):
    """Mirrors torch.distributions.Gamma(concentration, rate)."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        if isinstance(concentration, _Number) and isinstance(rate, _Number):
            batch_shape = Size()
        else:
            batch_shape = self.concentration.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Gamma, _instance)
        batch_shape = Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        super(Gamma, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        value = fn._standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        # torch clamps the values at the dtype's smallest normal outside the graph: add the difference
        # as a constant, which leaves the gradient with respect to the rate as it is
        raw = value.detach()
        return value + (raw.clamp(min=finfo(value.dtype).tiny) - raw)

    def log_prob(self, value):
        value = fn.as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        return (fn.xlogy(self.concentration, self.rate) + fn.xlogy(self.concentration - 1, value)
                - self.rate * value - fn.lgamma(self.concentration))

    def entropy(self):
        a = self.concentration
        return a - fn.log(self.rate) + fn.lgamma(a) + (1.0 - a) * fn.digamma(a)

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return fn.lgamma(x + 1) + (x + 1) * fn.log(-y.reciprocal())

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return special.gammainc(self.concentration, self.rate * value)
