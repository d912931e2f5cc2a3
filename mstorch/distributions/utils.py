"""torch.distributions.utils: broadcasting of parameters, probs <-> logits, lazy_property."""
from functools import update_wrapper

from .. import _dtype as D
from .. import _functions as fn
from .._finfo import finfo
from .._size import Size
from .._tensor import Tensor
from ..autograd.grad_mode import enable_grad
from ..nn import functional as F

euler_constant = 0.57721566490153286060

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits", "lazy_property",
           "tril_matrix_to_vec", "vec_to_tril_matrix"]

_Number = (int, float, bool)


def broadcast_all(*values):
    """Mirrors torch.distributions.utils.broadcast_all: numbers become tensors of the first tensor's
    dtype (else the default dtype), then everything is broadcast together."""
    if not all(isinstance(v, (Tensor,) + _Number) for v in values):
        raise ValueError("Input arguments must all be instances of Number, torch.Tensor or objects "
                         "implementing __torch_function__.")
    if not all(isinstance(v, Tensor) for v in values):
        dtype = next((v.dtype for v in values if isinstance(v, Tensor)), D.get_default_dtype())
        values = [v if isinstance(v, Tensor) else fn.tensor(v, dtype=dtype) for v in values]
    return fn.broadcast_tensors(*values)


def _params_batch_shape(given, first):
    """The batch shape torch gives a distribution built from the parameters ``given``: empty when all were
    numbers, else the broadcast shape (``first``, one of the broadcast tensors)."""
    return Size() if all(isinstance(v, _Number) for v in given) else first.size()


def _standard_normal(shape, dtype, device):
    return fn.empty(shape, dtype=dtype, device=device).normal_()


def _sum_rightmost(value, dim):
    if dim == 0:
        return value
    return value.reshape(value.shape[:-dim] + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary=False):
    if is_binary:
        return fn.sigmoid(logits)
    return F.softmax(logits, dim=-1)


def clamp_probs(probs):
    eps = finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return fn.log(ps_clamped) - fn.log1p(-ps_clamped)
    return fn.log(ps_clamped)


def _tril_mask(n, diag, device):
    arange = fn.arange(n, device=device)
    return arange < arange.view(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat, diag=0):
    """Mirrors torch.distributions.utils.tril_matrix_to_vec: the lower triangle (from diagonal ``diag``) read
    row by row."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag, mat.device)]


def vec_to_tril_matrix(vec, diag=0):
    """Mirrors torch.distributions.utils.vec_to_tril_matrix, the inverse of ``tril_matrix_to_vec``."""
    # n solves n(n+1)/2 + diag terms = len(vec) for the triangle below diagonal ``diag``
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(n) - n > finfo(vec.dtype).eps:
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be expressed as "
                         "the lower triangular part of a square D x D matrix.")
    n = round(n)
    mat = vec.new_zeros(vec.shape[:-1] + (n, n))
    mat[..., _tril_mask(n, diag, vec.device)] = vec
    return mat


class lazy_property:
    """Mirrors torch.distributions.utils.lazy_property: computed once (with grad enabled), then cached
    as an instance attribute."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    def __init__(self, wrapped):
        property.__init__(self, wrapped)


class BinaryProbsLogits:
    """A success probability or its logit: the one given is stored, the other derived when first read
    (Geometric; BinaryParams adds the ``_param`` bookkeeping)."""

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)


class BinaryParams(BinaryProbsLogits):
    """The parameter of a distribution given by a success probability or its logit (Bernoulli, NegativeBinomial,
    LogitRelaxedBernoulli, Binomial): the one given is stored (and is ``_param``), the other derived when first
    read."""

    @property
    def param_shape(self):
        return self._param.size()

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    def _expand_param(self, new, batch_shape):
        """``expand``'s part: the stored parameter(s) expanded onto ``new``."""
        for name in ("probs", "logits"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(batch_shape))
                new._param = getattr(new, name)
