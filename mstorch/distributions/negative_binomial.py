"""torch.distributions.NegativeBinomial: probabilities, moments, and samples drawn as torch's (a Poisson of a
Gamma-distributed rate, both on torch's stream)."""
from .. import _functions as fn
from .._size import Size
from ..nn import functional as F
from . import constraints
from .distribution import Distribution
from ..autograd.grad_mode import no_grad
from .gamma import Gamma
from .utils import BinaryParams, broadcast_all

__all__ = ["NegativeBinomial"]


class NegativeBinomial(BinaryParams, Distribution):
    """Mirrors torch.distributions.NegativeBinomial (failures before ``total_count`` successes, each success with
    probability ``1 - probs``): log_prob, mean, mode, variance; ``sample`` raises."""

    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0), "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.type_as(self.probs)
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.type_as(self.logits)
        self._param = self.probs if probs is not None else self.logits
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(NegativeBinomial, _instance)
        batch_shape = Size(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        self._expand_param(new, batch_shape)
        super(NegativeBinomial, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.total_count * fn.exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / fn.sigmoid(-self.logits)

    @property
    def _gamma(self):
        # (unvalidated: total_count may be zero)
        return Gamma(concentration=self.total_count, rate=fn.exp(-self.logits), validate_args=False)

    def sample(self, sample_shape=Size()):
        # a Poisson of a Gamma-distributed rate, both on torch's stream
        with no_grad():
            return fn.poisson(self._gamma.sample(sample_shape=sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_unnormalized = self.total_count * F.logsigmoid(-self.logits) + value * F.logsigmoid(self.logits)
        log_normalization = (-fn.lgamma(self.total_count + value) + fn.lgamma(1.0 + value)
                             + fn.lgamma(self.total_count))
        # no successes needed and none seen: probability 1 (lgamma(0) would give inf - inf)
        log_normalization = log_normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalized - log_normalization
