"""torch.masked: reductions and normalizations over the elements a boolean ``mask`` keeps (strided tensors).

Each masked-out element is replaced by the operation's identity (0 for sum, 1 for prod, -inf for amax and
softmax, ...), broadcasting ``mask`` to the input's shape, and the ordinary op runs on the result, as
torch's strided path does; ``mean``/``var``/``std`` divide by the count of kept elements (NaN where none
is kept). The ``MaskedTensor`` type (a prototype in torch) is not provided: its names refuse by name.
"""
import math

from .. import _dtype as D
from ..ops._registry import unsupported

__all__ = ["amax", "amin", "argmax", "argmin", "cumprod", "cumsum", "log_softmax", "logaddexp", "logsumexp",
           "mean", "median", "norm", "normalize", "prod", "softmax", "softmin", "std", "sum", "var"]

_SMALL_INTS = (D.uint8, D.bool_, D.int8, D.int16, D.int32)


def _mt():
    import mstorch
    return mstorch


def _canonical_dim(dim, ndim):
    if dim == () or dim is None:
        return tuple(range(ndim))
    ndim = max(ndim, 1)
    dims = []
    for d in (dim,) if isinstance(dim, int) else dim:
        if d in dims:
            raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
        if d >= ndim or d < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {d})")
        dims.append(d % ndim)
    return tuple(sorted(dims))


def _input_mask(input, mask):
    T = _mt()
    if mask is None:
        raise ValueError("_input_mask requires explicit mask")
    if tuple(mask.shape) != tuple(input.shape):
        if mask.dim() > input.dim():
            raise IndexError("_input_mask expected broadcastable mask (got mask dimensionality higher than of the input)")
        mask = T.broadcast_to(mask.clone(), input.shape)
    return mask.to(dtype=T.bool)


def _identity(op, input, ord=2.0):
    T = _mt()
    dt = input.dtype
    if op in ("sum", "norm") and not (op == "norm" and ord == -math.inf):
        return T.tensor(0, dtype=dt)
    if op == "prod":
        return T.tensor(1, dtype=dt)
    if op == "norm":
        return T.tensor(math.inf, dtype=dt)
    if op in ("amax", "argmax", "logsumexp", "logaddexp"):
        if dt.is_floating_point or (op == "logsumexp" and dt.is_complex):
            return T.tensor(-math.inf, dtype=dt)
        if dt.is_signed or dt is D.uint8:
            return T.tensor(T.iinfo(dt).min, dtype=dt)
    if op in ("amin", "argmin"):
        if dt.is_floating_point:
            return T.tensor(math.inf, dtype=dt)
        if dt.is_signed or dt is D.uint8:
            return T.tensor(T.iinfo(dt).max, dtype=dt)
    if op == "median":
        return T.tensor(math.nan, dtype=dt if dt.is_floating_point else D.float32)
    raise NotImplementedError(f"identity of {op} on {dt} input")


def _combine(op, input, mask, ord=2.0):
    if mask is None:
        return input
    return _mt().where(_input_mask(input, mask), input, _identity(op, input, ord))


def _sum_dtype(input, dtype):
    if dtype is not None:
        return dtype
    return D.int64 if input.dtype in _SMALL_INTS else input.dtype


def sum(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    dtype = _sum_dtype(input, dtype)
    return _mt().sum(_combine("sum", input, mask), _canonical_dim(dim, input.ndim), bool(keepdim), dtype=dtype)


def prod(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    result = _combine("prod", input, mask).to(dtype=_sum_dtype(input, dtype))
    for d in reversed(_canonical_dim(dim, input.ndim)):
        result = result.prod(dim=d, keepdim=bool(keepdim))
    return result


def cumsum(input, dim, *, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dim(dim, input.ndim)[0]
    return _mt().cumsum(_combine("sum", input, mask), d, dtype=dtype).to(dtype=dtype)


def cumprod(input, dim, *, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dim(dim, input.ndim)[0]
    return _mt().cumprod(_combine("prod", input, mask), d, dtype=dtype).to(dtype=dtype)


def amax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    x = _combine("amax", input, mask)
    return _mt().amax(x, _canonical_dim(dim, x.ndim), bool(keepdim)).to(dtype=dtype)


def amin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    x = _combine("amin", input, mask)
    return _mt().amin(x, _canonical_dim(dim, x.ndim), bool(keepdim)).to(dtype=dtype)


def argmax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    return _mt().argmax(_combine("argmax", input, mask), dim, bool(keepdim)).to(dtype=dtype)


def argmin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    return _mt().argmin(_combine("argmin", input, mask), dim, bool(keepdim)).to(dtype=dtype)


def mean(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    T = _mt()
    source = "Optional"
    if dtype is None:
        dtype, source = input.dtype, "Input"
    if not (dtype.is_floating_point or dtype.is_complex):
        raise ValueError(f"mean(): Could not infer output dtype. {source} dtype must be either a floating point or "
                         f"complex dtype. Got: {dtype}")
    if mask is None:
        count = sum(T.ones(input.shape, dtype=T.int64), dim, keepdim=keepdim)
        total = sum(input, dim, keepdim=keepdim, dtype=dtype)
    else:
        inmask = _input_mask(input, mask)
        count = inmask.sum(dim=dim, keepdim=bool(keepdim))
        total = sum(input, dim, keepdim=keepdim, dtype=dtype, mask=inmask)
    return total / count


def median(input, dim=-1, *, keepdim=False, dtype=None, mask=None):
    T = _mt()
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dim(dim, input.ndim)[0]
    is_float = input.dtype.is_floating_point
    if not is_float:
        input = input.to(dtype=T.float)
    output = T.nanmedian(_combine("median", input, mask), d, keepdim).values
    if is_float:
        return output
    if not T.isnan(output).any():
        return output.to(dtype=dtype)
    raise ValueError("masked median expects no fully masked out rows if dtype is not floating point")


def logsumexp(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    return _mt().logsumexp(_combine("logsumexp", input, mask), _canonical_dim(dim, input.ndim),
                           keepdim=keepdim).to(dtype=dtype)


def logaddexp(input, other, *, dtype=None, input_mask=None, other_mask=None):
    dtype = input.dtype if dtype is None else dtype
    return _mt().logaddexp(_combine("logaddexp", input, input_mask),
                           _combine("logaddexp", other, other_mask)).to(dtype=dtype)


def norm(input, ord=2.0, dim=None, *, keepdim=False, dtype=None, mask=None):
    T = _mt()
    dtype = input.dtype if dtype is None else dtype
    if mask is not None and ord == -math.inf and not input.dtype.is_floating_point:
        raise AssertionError(f"input must be floating point, got {input.dtype}")
    return T.linalg.vector_norm(_combine("norm", input, mask, ord), ord, _canonical_dim(dim, input.ndim),
                                bool(keepdim), dtype=dtype)


def _std_var(input, dim, unbiased, correction_opt, keepdim, dtype, mask, take_sqrt):
    T = _mt()
    if unbiased is not None and correction_opt is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    correction = 1.0
    if unbiased is not None:
        correction = 1.0 if unbiased else 0.0
    if correction_opt is not None:
        correction = float(correction_opt)
    if dtype is None:
        dtype = input.dtype
        if not (dtype.is_floating_point or dtype.is_complex):
            dtype = T.float32
    compute = dtype if (dtype.is_floating_point or dtype.is_complex) else T.float32
    if mask is None:
        count = sum(T.ones(input.shape, dtype=T.int64), dim, keepdim=True)
        sample_total = sum(input, dim, keepdim=True, dtype=dtype)
    else:
        inmask = _input_mask(input, mask)
        count = inmask.sum(dim=dim, keepdim=True)
        sample_total = sum(input, dim, keepdim=True, dtype=dtype, mask=inmask)
    x = T.subtract(input, T.divide(sample_total, count))
    total = sum(x * x.conj(), dim, keepdim=keepdim, dtype=compute, mask=None if mask is None else inmask)
    if not keepdim:
        count = count.reshape(total.shape)
    if correction != 0:
        count = count.to(compute.to_real() if compute.is_complex else compute)
        count = T.subtract(count, correction)
        count = T.maximum(count, count.new_zeros([]))
    output = T.divide(total, count).to(dtype=dtype)
    return T.sqrt(output) if take_sqrt else output


def var(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None):
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, False)


def std(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None):
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, True)


def _normalization(fn, identity_op):
    def op(input, dim, *, dtype=None, mask=None):
        dtype = input.dtype if dtype is None else dtype
        d = _canonical_dim(dim, input.ndim)[0]
        return getattr(_mt().nn.functional, fn)(_combine(identity_op, input, mask), d, dtype=dtype)
    op.__name__ = op.__qualname__ = fn
    op.__doc__ = f"torch.masked.{fn}: masked-out elements take no part (filled with {identity_op}'s identity)."
    return op


softmax = _normalization("softmax", "amax")
log_softmax = _normalization("log_softmax", "amax")
softmin = _normalization("softmin", "amin")


def normalize(input, ord, dim, *, eps=1e-12, dtype=None, mask=None):
    T = _mt()
    dtype = input.dtype if dtype is None else dtype
    nrm = norm(input, ord, dim, keepdim=True, dtype=dtype, mask=mask)
    return T.divide(_combine("sum", input, mask), T.maximum(nrm, nrm.new_full([], eps)))


_MASKED_TENSOR = ("MaskedTensor is a prototype in torch (torch.masked.maskedtensor) built on "
                  "__torch_dispatch__, which mstorch's Tensor does not have; the masked reductions take mask=")
for _name in ("MaskedTensor", "masked_tensor", "as_masked_tensor", "is_masked_tensor"):
    unsupported(f"masked.{_name}", _MASKED_TENSOR)


def __getattr__(name):
    from .._namespace import missing_getattr
    return missing_getattr(__name__)(name)

