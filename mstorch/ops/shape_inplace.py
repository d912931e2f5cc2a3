"""In-place shape ops (``Tensor.t_``, ``transpose_``, ``squeeze_``, ``unsqueeze_``, ``resize_``,
``as_strided_``) and ``as_strided``: torch changes the tensor's own sizes and strides over the same
storage.

The receiver takes the value of the matching view and, when it is itself a view, the composed
writeback/derive functions, so in-place writes still reach its base (see ``_views``). ``as_strided`` and
``resize_`` address torch's storage: the contiguous tensor at the top of the receiver's view chain, when
MindSpore's view of it shares its memory (its strides and offset are then torch's). A tensor that is
not a view gets a hidden base holding its old storage, so a later ``resize_`` or ``as_strided_`` reads
the elements torch's storage still holds.
"""
import math

import numpy as np
import mindspore as ms
from . import _msops as ops

from .. import _ms_private as P
from .._tensor import Tensor, wrap
from ._registry import register
from ._views import make_view, scatter_positions, fresh, empty_from, shape_args
from . import shape as _shape

F = "shape"


def _new_layout(self):
    # views taken of ``self`` before now map its old layout: _views.write_view refuses writes through them
    self._layout_gen = self.__dict__.get("_layout_gen", 0) + 1


def _become(self, view):
    """Make ``self`` the view ``view`` of itself (or of its base), in place; returns ``self``."""
    self._check_inplace()
    _new_layout(self)
    t = self._ms
    if isinstance(t, ms.Parameter):
        # a Parameter (under no_grad: the leaf check passed) keeps its object; its data takes the new layout
        self._ms = P.replace_parameter_data(t, fresh(P.detach(view._ms)))
        return self
    base, writeback, derive = view._view[:3]
    if base is not self:
        self._view = view._view
    elif self._view is None:
        # the old value moves to a hidden base: ``self`` keeps torch's strides (a transposed view) and
        # in-place writes reach memory that MindSpore can copy into
        self._view = (wrap(t), writeback, derive)
    else:
        base0, wb0, dv0 = self._view[:3]
        self._view = (base0, lambda b, new: wb0(b, writeback(dv0(b), new)), lambda b: derive(dv0(b))) + self._view[3:]
    self._ms = view._ms
    return self


@register("t_", family=F, namespace="Tensor", raw=True)
def t_(self):
    if self._ms.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self._ms.ndim}D")
    return _become(self, _shape.t(self))


@register("transpose_", family=F, namespace="Tensor", raw=True, aliases=("swapaxes_", "swapdims_"))
def transpose_(self, dim0, dim1):
    return _become(self, _shape.transpose(self, dim0, dim1))


@register("squeeze_", family=F, namespace="Tensor", raw=True)
def squeeze_(self, dim=None):
    return _become(self, _shape.squeeze(self, dim))


@register("unsqueeze_", family=F, namespace="Tensor", raw=True)
def unsqueeze_(self, dim):
    return _become(self, _shape.unsqueeze(self, dim))


# --- storage-addressed ops ------------------------------------------------------------------------

def _storage(self):
    """(root, offset): the tensor whose contiguous memory is ``self``'s storage in torch's terms, and
    ``self``'s storage offset; None when MindSpore holds ``self`` in memory of its own."""
    root = storage_root(self)
    r = root._ms
    if not r.is_contiguous() or r.storage_offset():
        return None
    if root is self:
        return root, 0
    at = self.__dict__.get("_storage_at")
    if at is not None and self._view[0] is root:   # made by as_strided / resize_
        return root, at
    t = self._ms
    if t.size and t.untyped_storage().data_ptr() != r.untyped_storage().data_ptr():
        return None
    return root, t.storage_offset()


def _positions(size, stride, offset):
    idx = np.full((), offset, np.int64)
    for n, s in zip(size, stride):
        idx = idx[..., None] + np.arange(n, dtype=np.int64) * s
    return idx


def _gather(flat, pos, size):
    if 0 in size:
        return empty_from(flat, size)
    if flat.dtype == ms.bfloat16:   # no bfloat16 Gather on CPU; exact through float32
        return ops.gather(flat.astype(ms.float32), pos, 0).astype(ms.bfloat16)
    return ops.gather(flat, pos, 0)


def check_in_storage(size, stride, offset, storage, itemsize=None):
    """torch's error for a strided window reaching past the end of ``storage`` (a contiguous mindspore.Tensor,
    or its number of elements with ``itemsize``)."""
    flat_n, itemsize = (storage, itemsize) if itemsize is not None else (storage.size, storage.itemsize)
    needed = 0 if 0 in size else offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    if needed > flat_n:
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and itemsize "
            f"{itemsize} requiring a storage size of {needed * itemsize} are out of bounds for storage of size "
            f"{flat_n * itemsize}")


def storage_root(self):
    """The tensor at the root of ``self``'s chain of views (its memory is ``self``'s storage in torch's terms)."""
    while self._view is not None:
        self = self._view[0]
    return self


def _strided_view(root, size, stride, offset, within=None):
    """The view of ``root``'s storage with torch's sizes, strides and storage offset; ``within`` (the storage
    positions of the tensor it is taken of) limits where its gradient reaches."""
    check_in_storage(size, stride, offset, root._ms)
    at = _positions(size, stride, offset)
    pos = ms.Tensor(at)
    # torch differentiates as_strided as a function of its input alone: elements read outside the input's
    # own positions get no gradient (as_strided_backward's storage of the input geometry)
    outside = None
    if within is not None and P.requires_grad(root._ms):
        inside = np.isin(at, within)
        outside = None if inside.all() else ms.Tensor(inside)

    def derive(base_ms):
        flat = base_ms.reshape(-1)
        out = _gather(flat, pos, size)
        return out if outside is None else ops.where(outside, out, _gather(P.detach(flat), pos, size))

    def writeback(base_ms, new):
        return scatter_positions(base_ms, pos, new) if pos.size else fresh(base_ms)
    v = make_view(root, derive(root._ms), writeback, derive)
    v._storage_at, v._storage_pos = offset, at
    return v


def _check_strided_args(size, stride, storage_offset):
    size, stride = list(size), list(stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: {stride}")
    if any(n < 0 for n in size):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={size} and strides={stride}")
    if storage_offset is not None and storage_offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {storage_offset}")
    return tuple(size), tuple(stride)


def _no_storage(name):
    raise RuntimeError(f"mstorch: Tensor.{name} on this view is not supported (MindSpore holds it in memory of "
                       "its own, so torch's storage layout is unknown); call .contiguous() first")


@register("as_strided", family=F, raw=True)
def as_strided(input, size, stride, storage_offset=None):
    return _as_strided(input, size, stride, storage_offset, True)


def _as_strided(input, size, stride, storage_offset, own_gradient):
    """``own_gradient``: the gradient reaches only the input's own positions (torch's AsStridedBackward0)."""
    size, stride = _check_strided_args(size, stride, storage_offset)
    where = _storage(input)
    if where is None:
        _no_storage("as_strided")
    root, offset = where
    within = None
    if root is not input and own_gradient:
        # (an as_strided / resize_ view holds its positions: MindSpore's is a copy)
        within = input.__dict__.get("_storage_pos") if input._view[0] is root else None
        within = _positions(input._ms.shape, input.stride(), offset) if within is None else within
    return _strided_view(root, size, stride, offset if storage_offset is None else storage_offset, within)


def _hidden_root(self):
    """A tensor that is not a view: its storage moves to a hidden base that ``self`` becomes a view of."""
    return wrap(self._ms)


@register("as_strided_", family=F, raw=True)
def as_strided_(input, size, stride, storage_offset=None):
    size, stride = _check_strided_args(size, stride, storage_offset)
    input._check_inplace()
    where = _storage(input)
    if where is None:
        _no_storage("as_strided_")
    root, offset = where
    if root is input:
        root = _hidden_root(input)
    view = _strided_view(root, size, stride, offset if storage_offset is None else storage_offset)
    _new_layout(input)
    if isinstance(input._ms, ms.Parameter):
        input._ms = P.replace_parameter_data(input._ms, fresh(P.detach(view._ms)))
        return input
    input._ms, input._view, input._storage_at, input._storage_pos = (view._ms, view._view, view._storage_at,
                                                                     view._storage_pos)
    return input


@register("resize_", family=F, namespace="Tensor", raw=True)
def resize_(self, *sizes, memory_format=None):
    if P.requires_grad(self._ms):
        raise RuntimeError("cannot resize variables that require grad")
    shape = tuple(shape_args(sizes, "resize_"))
    if any(s < 0 for s in shape):
        raise RuntimeError("numel: integer multiplication overflow")
    if shape == tuple(self._ms.shape):
        return self
    n = math.prod(shape)
    where = _storage(self)
    if where is None:
        _no_storage("resize_")
    root, offset = where
    if root is self:
        root = _hidden_root(self)
    if offset + n > root._ms.size:
        # the storage grows (new elements hold zeros; torch leaves them uninitialised): a new hidden base
        flat = root._ms.reshape(-1)
        grown = ops.concat([flat, ops.zeros((offset + n - flat.size,), flat.dtype)]) if flat.size else \
            ops.zeros((offset + n,), flat.dtype)
        root = wrap(grown)
    contiguous = tuple(math.prod(shape[i + 1:]) for i in range(len(shape)))
    view = _strided_view(root, shape, contiguous, offset)
    _new_layout(self)
    if isinstance(self._ms, ms.Parameter):
        self._ms = P.replace_parameter_data(self._ms, fresh(view._ms))
        return self
    self._ms, self._view, self._storage_at, self._storage_pos = (view._ms, view._view, view._storage_at,
                                                                 view._storage_pos)
    return self


@register("resize_as_", family=F, raw=True)
def resize_as_(input, the_template, *, memory_format=None):
    if not isinstance(the_template, Tensor):
        raise TypeError(f"resize_as_(): argument 'the_template' (position 2) must be Tensor, not "
                        f"{type(the_template).__name__}")
    return resize_(input, tuple(the_template._ms.shape))


@register("slice_inverse", family=F, raw=True)
def slice_inverse(input, src, dim=0, start=None, end=None, step=1):
    """The inverse of a slice view (``input`` being ``src[start:end:step]`` along ``dim``): a view of
    ``input``'s storage with ``src``'s sizes, strides and offset, as torch's functionalization uses it."""
    # (its gradient is the whole incoming one: SliceInverseBackward0 is no as_strided backward)
    return _as_strided(input, src.shape, src.stride(), src.storage_offset(), False)


def _stride_order(shape, strides, a, b):
    """torch's comparison of dims ``a`` and ``b`` for the memory order (1: ``a`` is inner, -1: outer, 0: tie)."""
    sa, sb = strides[a], strides[b]
    if sa == 0 or sb == 0:
        return 0
    if sa == sb:
        return 0 if shape[b] >= shape[a] else 1
    return -1 if sb > sa else 1


def _dense_in_order(shape, strides, order):
    """torch's is_contiguous(memory_format=...) test: the dims in ``order`` (innermost first), size-1 dims
    skipped, each stride the product of the sizes inside it."""
    expected = 1
    for d in order:
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


_FORMAT_ORDERS = {"channels_last": (4, (1, 3, 2, 0)), "channels_last_3d": (5, (1, 4, 3, 2, 0))}


def _in_format(shape, strides, fmt):
    name, n = getattr(fmt, "_name", None), len(shape)
    if name == "contiguous_format":
        return 0 in shape or _dense_in_order(shape, strides, reversed(range(n)))
    if name not in _FORMAT_ORDERS or _FORMAT_ORDERS[name][0] != n:
        return False
    # (only the contiguous format counts any empty tensor as dense: torch's channels-last test walks the strides)
    return _dense_in_order(shape, strides, _FORMAT_ORDERS[name][1])


@register("dim_order", family=F, namespace="Tensor", raw=True)
def dim_order(self, *, ambiguity_check=False):
    """The dims from outermost to innermost in memory (torch's elementwise output permutation); with
    ``ambiguity_check`` (True, or a list of memory formats) a layout that maps to several orders raises."""
    from .._layout import memory_format as _memory_format, channels_last, contiguous_format
    if not isinstance(ambiguity_check, bool):
        if not isinstance(ambiguity_check, list) or not all(isinstance(m, _memory_format) for m in ambiguity_check):
            raise TypeError("The ambiguity_check argument must be a bool or a list of memory formats.")
    shape, strides, n = tuple(self.shape), self.stride(), self.dim()
    formats = ambiguity_check if isinstance(ambiguity_check, list) else []
    several = any(x == y for x, y in zip(strides, strides[1:])) or 1 in shape
    if (ambiguity_check is not False and several
            and sum(_in_format(shape, strides, m) for m in formats) != 1):
        raise RuntimeError("The tensor does not have unique dim order, or cannot map to exact one of the given "
                           "memory formats.")
    if n <= 1:
        return tuple(range(n))
    contiguous = _in_format(shape, strides, contiguous_format)
    last = _in_format(shape, strides, channels_last)
    if contiguous and not last:
        return tuple(range(n))
    if last and not contiguous:
        return (0, *range(2, n), 1)
    perm = list(reversed(range(n)))       # sorted back to front (innermost first), then reversed
    for i in range(1, n):
        d1 = i
        for d0 in reversed(range(i)):
            c = _stride_order(shape, strides, perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    if ambiguity_check and any(_stride_order(shape, strides, a, b) != -1 for a, b in zip(perm, perm[1:])):
        raise RuntimeError("The tensor does not have unique dim order.")
    return tuple(reversed(perm))
