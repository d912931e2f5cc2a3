"""torch.distributions.Geometric: the number of failures before the first success; samples by inversion of one
``uniform_(tiny, 1)`` draw, as torch."""
from .._finfo import finfo
from .._size import Size
from ..autograd.grad_mode import no_grad
from ..nn.functional import binary_cross_entropy_with_logits
from .. import _functions as fn
from . import constraints
from .distribution import Distribution
from .utils import BinaryProbsLogits, _params_batch_shape, broadcast_all

__all__ = ["Geometric"]


class Geometric(BinaryProbsLogits, Distribution):
    """Mirrors torch.distributions.Geometric(probs=None, logits=None): probs in (0, 1]."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
        else:
            (self.logits,) = broadcast_all(logits)
        given, param = (probs, self.probs) if probs is not None else (logits, self.logits)
        super().__init__(_params_batch_shape((given,), param), validate_args=validate_args)
        if self._validate_args and probs is not None:
            # the unit interval admits 0; a geometric law needs p > 0 (torch's extra check)
            value = self.probs
            valid = value > 0
            if not valid.all():
                raise ValueError(f"Expected parameter probs ({type(value).__name__} of shape {tuple(value.shape)}) "
                                 f"of distribution {repr(self)} to be positive but found invalid values:\n"
                                 f"{value.data[~valid]}")

    def expand(self, batch_shape, _instance=None):
        names = [n for n in ("probs", "logits") if n in self.__dict__]
        return self._expand_params(Geometric, batch_shape, names, _instance)

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return fn.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        with no_grad():
            u = self.probs.new(shape).uniform_(finfo(self.probs.dtype).tiny, 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = probs.clone()
        # a sure success: no failures has probability 1 (0 * log(0) taken as 0)
        probs[(probs == 1) & (value == 0)] = 0
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none") / self.probs
