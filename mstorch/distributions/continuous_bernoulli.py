"""torch.distributions.ContinuousBernoulli: the density proportional to p^x (1-p)^(1-x) on [0, 1]; near p = 1/2
(inside ``lims``) its normaliser and moments use torch's Taylor expansions."""
import math

from .. import _functions as fn
from .._size import Size
from ..autograd.grad_mode import no_grad
from ..nn.functional import binary_cross_entropy_with_logits
from . import constraints
from .exp_family import ExponentialFamily
from .utils import _params_batch_shape, broadcast_all, clamp_probs, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ExponentialFamily):
    """Mirrors torch.distributions.ContinuousBernoulli(probs=None, logits=None, lims=(0.499, 0.501))."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
            if validate_args is not None and not self.arg_constraints["probs"].check(self.probs).all():
                raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(self.probs)
            self._param, given = self.probs, probs
        else:
            (self.logits,) = broadcast_all(logits)
            self._param, given = self.logits, logits
        self._lims = lims
        super().__init__(_params_batch_shape((given,), self._param), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        new._lims = self._lims
        names = [n for n in ("probs", "logits") if n in self.__dict__]
        new = self._expand_params(ContinuousBernoulli, batch_shape, names, new)
        new._param = getattr(new, names[-1])
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    def _outside_unstable_region(self):
        return fn.max(fn.le(self.probs, self._lims[0]), fn.gt(self.probs, self._lims[1]))

    def _cut_probs(self):
        return fn.where(self._outside_unstable_region(), self.probs, self._lims[0] * fn.ones_like(self.probs))

    def _cont_bern_log_norm(self):
        cut = self._cut_probs()
        below_half = fn.where(fn.le(cut, 0.5), cut, fn.zeros_like(cut))
        above_half = fn.where(fn.ge(cut, 0.5), cut, fn.ones_like(cut))
        log_norm = fn.log(fn.abs(fn.log1p(-cut) - fn.log(cut))) - fn.where(
            fn.le(cut, 0.5), fn.log1p(-2.0 * below_half), fn.log(2.0 * above_half - 1.0))
        x = fn.pow(self.probs - 0.5, 2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return fn.where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        cut = self._cut_probs()
        mus = cut / (2.0 * cut - 1.0) + 1.0 / (fn.log1p(-cut) - fn.log(cut))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * fn.pow(x, 2)) * x
        return fn.where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self):
        return fn.sqrt(self.variance)

    @property
    def variance(self):
        cut = self._cut_probs()
        variances = (cut * (cut - 1.0) / fn.pow(1.0 - 2.0 * cut, 2)
                     + 1.0 / fn.pow(fn.log1p(-cut) - fn.log(cut), 2))
        x = fn.pow(self.probs - 0.5, 2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return fn.where(self._outside_unstable_region(), variances, taylor)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self):
        return self._param.size()

    def sample(self, sample_shape=Size()):
        u = fn.rand(self._extended_shape(sample_shape), dtype=self.probs.dtype, device=self.probs.device)
        with no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape=Size()):
        u = fn.rand(self._extended_shape(sample_shape), dtype=self.probs.dtype, device=self.probs.device)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none") + self._cont_bern_log_norm()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        cut = self._cut_probs()
        cdfs = (fn.pow(cut, value) * fn.pow(1.0 - cut, 1.0 - value) + cut - 1.0) / (2.0 * cut - 1.0)
        unbounded = fn.where(self._outside_unstable_region(), cdfs, value)
        return fn.where(fn.le(value, 0.0), fn.zeros_like(value),
                        fn.where(fn.ge(value, 1.0), fn.ones_like(value), unbounded))

    def icdf(self, value):
        cut = self._cut_probs()
        return fn.where(self._outside_unstable_region(),
                        (fn.log1p(-cut + value * (2.0 * cut - 1.0)) - fn.log1p(-cut)) / (fn.log(cut) - fn.log1p(-cut)),
                        value)

    def entropy(self):
        log_probs0 = fn.log1p(-self.probs)
        log_probs1 = fn.log(self.probs)
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        outside = fn.max(fn.le(x, self._lims[0] - 0.5), fn.gt(x, self._lims[1] - 0.5))
        cut_nat_params = fn.where(outside, x, (self._lims[0] - 0.5) * fn.ones_like(x))
        log_norm = fn.log(fn.abs(fn.expm1(cut_nat_params))) - fn.log(fn.abs(cut_nat_params))
        taylor = 0.5 * x + fn.pow(x, 2) / 24.0 - fn.pow(x, 4) / 2880.0
        return fn.where(outside, log_norm, taylor)
