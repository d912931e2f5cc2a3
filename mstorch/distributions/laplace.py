"""torch.distributions.Laplace: inverse-cdf samples of one ``uniform_(eps - 1, 1)`` draw, as torch."""
from .. import _functions as fn
from .._finfo import finfo
from .._size import Size
from . import constraints
from .distribution import Distribution
from .utils import _params_batch_shape, broadcast_all

__all__ = ["Laplace"]


class Laplace(Distribution):
    """Mirrors torch.distributions.Laplace(loc, scale)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(_params_batch_shape((loc, scale), self.loc), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Laplace, batch_shape, ("loc", "scale"), _instance)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return (2 ** 0.5) * self.scale

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        # the lower bound eps - 1 keeps log1p(-|u|) finite
        u = self.loc.new(shape).uniform_(finfo(self.loc.dtype).eps - 1, 1)
        return self.loc - self.scale * u.sign() * fn.log1p(-u.abs())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -fn.log(2 * self.scale) - fn.abs(value - self.loc) / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * fn.expm1(-(value - self.loc).abs() / self.scale)

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * term.sign() * fn.log1p(-2 * term.abs())

    def entropy(self):
        return 1 + fn.log(2 * self.scale)
