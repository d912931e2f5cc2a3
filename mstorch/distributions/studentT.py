"""torch.distributions.StudentT: densities and moments; sampling raises (see ``GAMMA_REASON``)."""
import math

from .. import _functions as fn
from .._size import Size
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["StudentT"]

# torch draws Student-t (through Chi2) and negative-binomial samples from its Gamma sampler; mstorch reproduces
# torch's CPU random streams draw for draw, and has no reproduction of that sampler's rejection loop yet
GAMMA_REASON = ("it draws from a Gamma distribution, and mstorch has no reproduction of torch's Gamma sampler "
                "(torch._standard_gamma) on torch's random stream")


def refuse_sampling(api):
    return NotImplementedError(f"torch.distributions.{api} is not supported by mstorch: {GAMMA_REASON}")


class _Chi2(Distribution):
    """The part of torch's Chi2 a StudentT makes first: its check of ``df`` (so an invalid ``df`` is reported as
    torch reports it, by ``Chi2()``). Sampling it is what mstorch lacks."""

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        self._df = df
        super().__init__(df.size(), validate_args=validate_args)

    @property
    def df(self):
        return self._df


_Chi2.__name__ = _Chi2.__qualname__ = "Chi2"


class StudentT(Distribution):
    """Mirrors torch.distributions.StudentT (log_prob, mean, mode, variance, entropy); ``rsample``/``sample``
    raise."""

    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        _Chi2(self.df, validate_args=validate_args)
        super().__init__(self.df.size(), validate_args=validate_args)

    @property
    def mean(self):
        m = self.loc.clone()
        m[self.df <= 1] = math.nan     # no mean for df <= 1
        return m

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        df, m = self.df, self.df.clone()
        big = df > 2
        m[big] = self.scale[big].pow(2) * df[big] / (df[big] - 2)
        m[(df <= 2) & (df > 1)] = math.inf
        m[df <= 1] = math.nan
        return m

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(StudentT, _instance)
        batch_shape = Size(batch_shape)
        new.df, new.loc, new.scale = (t.expand(batch_shape) for t in (self.df, self.loc, self.scale))
        super(StudentT, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=Size()):
        raise refuse_sampling("StudentT.rsample")

    def sample(self, sample_shape=Size()):
        raise refuse_sampling("StudentT.sample")

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        log_norm = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi) + fn.lgamma(0.5 * self.df)
                    - fn.lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * fn.log1p(y ** 2.0 / self.df) - log_norm

    def entropy(self):
        lbeta = fn.lgamma(0.5 * self.df) + math.lgamma(0.5) - fn.lgamma(0.5 * (self.df + 1))
        return (self.scale.log() + 0.5 * (self.df + 1) * (fn.digamma(0.5 * (self.df + 1)) - fn.digamma(0.5 * self.df))
                + 0.5 * self.df.log() + lbeta)
