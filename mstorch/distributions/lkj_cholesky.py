"""torch.distributions.LKJCholesky: Cholesky factors of LKJ-distributed correlation matrices, sampled by the
onion method (a Beta draw per row for its squared off-diagonal norm, a normal direction), in torch's draw
order: the Beta samples first, then ``randn``."""
import math

from .. import _functions as fn
from .._finfo import finfo
from .._size import Size
from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """Mirrors torch.distributions.LKJCholesky(dim, concentration=1.0)."""

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        # row i's squared norm off the diagonal is Beta(i / 2, concentration + (dim - 2 - i) / 2)
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = fn.arange(self.dim - 1, dtype=self.concentration.dtype, device=self.concentration.device)
        offset = fn.cat([offset.new_zeros((1,)), offset])
        self._beta = Beta(offset + 0.5, marginal_conc.unsqueeze(-1) - 0.5 * offset)
        super().__init__(self.concentration.size(), Size((dim, dim)), validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(batch_shape + (self.dim,))
        super(LKJCholesky, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=Size()):
        y = self._beta.sample(sample_shape).unsqueeze(-1)
        u_normal = fn.randn(self._extended_shape(sample_shape), dtype=y.dtype, device=y.device).tril(-1)
        u_hypersphere = u_normal / u_normal.norm(dim=-1, keepdim=True)
        # the first row has no off-diagonal part (0 / 0 above): zero it
        first_row = fn.arange(self.dim, device=y.device).unsqueeze(-1) == 0
        u_hypersphere = fn.where(first_row, fn.zeros_like(u_hypersphere), u_hypersphere)
        w = fn.sqrt(y) * u_hypersphere
        diag_elems = fn.clamp(1 - fn.sum(w ** 2, dim=-1), min=finfo(w.dtype).tiny).sqrt()
        return w + fn.diag_embed(diag_elems)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diag_elems = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = fn.arange(2, self.dim + 1, device=self.concentration.device)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized_log_pdf = fn.sum(order * diag_elems.log(), dim=-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        normalize_term = 0.5 * dm1 * math.log(math.pi) + fn.mvlgamma(alpha - 0.5, dm1) - fn.lgamma(alpha) * dm1
        return unnormalized_log_pdf - normalize_term
