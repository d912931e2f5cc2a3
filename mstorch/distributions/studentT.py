"""torch.distributions.StudentT: densities, moments, and samples drawn as torch draws them (a standard normal,
then a Chi2 through torch's gamma sampler), so seeded samples are torch's."""
import math

from .. import _functions as fn
from .._size import Size
from . import constraints
from .distribution import Distribution
from .chi2 import Chi2
from .utils import _standard_normal, broadcast_all

__all__ = ["StudentT"]

class StudentT(Distribution):
    """Mirrors torch.distributions.StudentT."""

    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
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
        new._chi2 = self._chi2.expand(batch_shape)
        super(StudentT, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=Size()):
        # X ~ Normal(0, 1), Z ~ Chi2(df): X / sqrt(Z / df), in torch's draw order
        shape = self._extended_shape(sample_shape)
        x = _standard_normal(shape, dtype=self.df.dtype, device=self.df.device)
        z = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * (x * fn.rsqrt(z / self.df))

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
