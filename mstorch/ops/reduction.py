"""Reductions: sum, mean, prod, max/min (with indices), argmax/argmin, std/var, norm, all/any..."""
import collections

import mindspore as ms
from mindspore import ops

from .. import _dtype as D
from ._helpers import wrap_dims, wrap_dim, dtype_of, ms_dtype
from ._registry import register

F = "reduction"


def return_type(name, fields):
    """torch.return_types.<name>: a namedtuple of (values, indices) and friends."""
    t = collections.namedtuple(name, fields)
    t.__module__ = "torch.return_types"
    t.__repr__ = lambda self: (f"torch.return_types.{name}(\n" +
                               ",\n".join(f"{f}={getattr(self, f)!r}" for f in fields) + ")")
    return t


max_rt = return_type("max", ("values", "indices"))
min_rt = return_type("min", ("values", "indices"))


def _axes(input, dim):
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return ()
    return wrap_dims(dim, input.ndim)


def _sum_dtype(input, dtype):
    if dtype is not None:
        return input.astype(dtype._ms)
    if dtype_of(input)._cat < D._FLOAT:   # torch sums integers and bools in int64
        return input.astype(ms.int64)
    return input


@register("sum", family=F, out=True)
def sum(input, dim=None, keepdim=False, *, dtype=None):
    x = _sum_dtype(input, dtype)
    return ops.sum(x, _axes(input, dim), keepdim)


@register("nansum", family=F, out=True)
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    x = _sum_dtype(input, dtype)
    if dtype_of(x)._cat >= D._FLOAT:
        x = ops.where(ops.isnan(x), ops.zeros((), x.dtype), x)
    return ops.sum(x, _axes(input, dim), keepdim)


@register("mean", family=F, out=True)
def mean(input, dim=None, keepdim=False, *, dtype=None):
    if dtype is not None:
        input = input.astype(dtype._ms)
    elif dtype_of(input)._cat < D._FLOAT:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or complex "
            f"dtype. Got: {_name(input)}")
    return ops.mean(input, _axes(input, dim), keepdim)


def _name(t):
    from .._tensor import scalar_type_name
    return scalar_type_name(dtype_of(t))


@register("prod", family=F, out=True)
def prod(input, dim=None, keepdim=False, *, dtype=None):
    x = _sum_dtype(input, dtype)
    if dim is None:
        return ops.prod(x.reshape(-1), 0, False) if x.ndim else x.copy()
    return ops.prod(x, wrap_dim(dim, input.ndim), keepdim)


def _minmax(name, reduce_fn, arg_fn, binary_fn, rt):
    def impl(input, dim=None, keepdim=False, *, other=None):
        if isinstance(dim, ms.Tensor):      # torch.max(a, b) is maximum
            return binary_fn(input, dim)
        if dim is None:
            if input.size == 0:
                raise RuntimeError(
                    f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
                    "reduction dim with the 'dim' argument.")
            return reduce_fn(input, (), False)
        d = wrap_dim(dim, input.ndim)
        if input.ndim == 0:
            return rt(input.copy(), ops.zeros((), ms.int64))
        idx = arg_fn(input, d, keepdim)
        values = reduce_fn(input, (d,), keepdim)
        return rt(values, idx.astype(ms.int64))
    impl.__name__ = name
    register(name, family=F, out=True)(impl)


_minmax("max", lambda x, a, k: ops.amax(x, a, k), lambda x, d, k: ops.argmax(x, d, k), ops.maximum, max_rt)
_minmax("min", lambda x, a, k: ops.amin(x, a, k), lambda x, d, k: ops.argmin(x, d, k), ops.minimum, min_rt)


@register("amax", family=F, out=True)
def amax(input, dim=(), keepdim=False):
    return ops.amax(input, _axes(input, dim), keepdim)


@register("amin", family=F, out=True)
def amin(input, dim=(), keepdim=False):
    return ops.amin(input, _axes(input, dim), keepdim)


@register("argmax", family=F, out=True)
def argmax(input, dim=None, keepdim=False):
    if dim is None:
        return ops.argmax(input.reshape(-1), 0, False).astype(ms.int64)
    return ops.argmax(input, wrap_dim(dim, input.ndim), keepdim).astype(ms.int64)


@register("argmin", family=F, out=True)
def argmin(input, dim=None, keepdim=False):
    if dim is None:
        return ops.argmin(input.reshape(-1), 0, False).astype(ms.int64)
    return ops.argmin(input, wrap_dim(dim, input.ndim), keepdim).astype(ms.int64)


@register("all", family=F, out=True)
def all(input, dim=None, keepdim=False):
    return ops.all(input.astype(ms.bool_), _axes(input, dim), keepdim)


@register("any", family=F, out=True)
def any(input, dim=None, keepdim=False):
    return ops.any(input.astype(ms.bool_), _axes(input, dim), keepdim)
