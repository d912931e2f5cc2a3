"""torch.distributions.GeneralizedPareto(loc, scale, concentration): inverse-cdf samples of ``torch.rand``."""
import math

from .. import _functions as fn
from .._size import Size
from . import constraints
from .distribution import Distribution
from .utils import _params_batch_shape, broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """Mirrors torch.distributions.GeneralizedPareto; a concentration of 0 is the exponential limit."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive, "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        super().__init__(_params_batch_shape((loc, scale, concentration), self.loc), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(GeneralizedPareto, batch_shape, ("loc", "scale", "concentration"), _instance)

    def rsample(self, sample_shape=Size()):
        u = fn.rand(self._extended_shape(sample_shape), dtype=self.loc.dtype, device=self.loc.device)
        return self.icdf(u)

    def _safe_concentration(self, zero):
        """(concentration == 0 within isclose, the concentration with those entries set to 1)."""
        eq_zero = fn.isclose(self.concentration, zero)
        return eq_zero, fn.where(eq_zero, fn.ones_like(self.concentration), self.concentration)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe_conc = self._safe_concentration(fn.tensor(0.0))
        y = 1 / safe_conc + fn.ones_like(z)
        where_nonzero = fn.where(y == 0, y, y * fn.log1p(safe_conc * z))
        return -self.scale.log() - fn.where(eq_zero, z, where_nonzero)

    def log_survival_function(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe_conc = self._safe_concentration(fn.tensor(0.0))
        return fn.where(eq_zero, -z, -fn.log1p(safe_conc * z) / safe_conc)

    def log_cdf(self, value):
        return fn.log1p(-fn.exp(self.log_survival_function(value)))

    def cdf(self, value):
        return fn.exp(self.log_cdf(value))

    def icdf(self, value):
        eq_zero, safe_conc = self._safe_concentration(fn.zeros_like(self.concentration))
        logu = fn.log1p(-value)
        where_nonzero = self.loc + self.scale / safe_conc * fn.expm1(-safe_conc * logu)
        return fn.where(eq_zero, self.loc - self.scale * logu, where_nonzero)

    def _z(self, x):
        return (x - self.loc) / self.scale

    @property
    def mean(self):
        valid = self.concentration < 1
        safe_conc = fn.where(valid, self.concentration, 0.5)
        return fn.where(valid, self.loc + self.scale / (1 - safe_conc), math.nan)

    @property
    def variance(self):
        valid = self.concentration < 0.5
        safe_conc = fn.where(valid, self.concentration, 0.25)
        return fn.where(valid, self.scale ** 2 / ((1 - safe_conc) ** 2 * (1 - 2 * safe_conc)), math.nan)

    def entropy(self):
        return fn.broadcast_to(fn.log(self.scale) + self.concentration + 1, self._batch_shape)

    @property
    def mode(self):
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        upper = fn.where(self.concentration < 0, self.loc - self.scale / self.concentration, math.inf)
        return constraints.interval(self.loc, upper)
