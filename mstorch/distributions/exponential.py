"""torch.distributions.Exponential: samples from ``exponential_()`` (torch's CPU stream) divided by the rate."""
from .. import _functions as fn
from .._size import Size
from . import constraints
from .exp_family import ExponentialFamily
from .utils import _params_batch_shape, broadcast_all

__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    """Mirrors torch.distributions.Exponential(rate)."""

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(_params_batch_shape((rate,), self.rate), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Exponential, batch_shape, ("rate",), _instance)

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return fn.zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=Size()):
        return self.rate.new(self._extended_shape(sample_shape)).exponential_() / self.rate

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 1 - fn.exp(-self.rate * value)

    def icdf(self, value):
        return -fn.log1p(-value) / self.rate

    def entropy(self):
        return 1.0 - fn.log(self.rate)

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -fn.log(-x)
