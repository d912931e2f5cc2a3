"""Indexing and index assignment, plus gather/scatter/index_select/masked_fill/where and friends."""
import mindspore as ms
from mindspore import ops

from .. import _dtype as D
from .._tensor import Tensor, wrap
from ._helpers import wrap_dim, dtype_of, to_operand, promote, result_type
from ._registry import register
from ._views import make_view, index_back

F = "indexing"
_BASIC = (int, slice, type(None), type(Ellipsis))


def _convert_index(index, shape):
    """mstorch index -> MindSpore index, validating what torch validates."""
    if not isinstance(index, tuple):
        index = (index,)
    out = []
    basic = True
    dim = 0
    for item in index:
        if isinstance(item, Tensor):
            basic = False
            t = item._ms
            if t.dtype not in (ms.bool_, ms.uint8) and dtype_of(t)._cat != D._INT:
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            out.append(t.astype(ms.bool_) if t.dtype == ms.uint8 else t)
            dim += t.ndim if t.dtype == ms.bool_ else 1
        elif isinstance(item, bool):
            basic = False
            out.append(item)
        elif isinstance(item, int):
            if dim < len(shape):
                size = shape[dim]
                if not -size <= item < size:
                    raise IndexError(
                        f"index {item} is out of bounds for dimension {dim} with size {size}")
            elif item is not None:
                raise IndexError(f"too many indices for tensor of dimension {len(shape)}")
            out.append(item)
            dim += 1
        elif isinstance(item, slice):
            if item.step is not None and _as_int(item.step) <= 0:
                raise ValueError("step must be greater than zero")
            out.append(slice(_as_int(item.start), _as_int(item.stop), _as_int(item.step)))
            dim += 1
        elif item is None or item is Ellipsis:
            out.append(item)
            if item is Ellipsis:
                dim = len(shape) - sum(1 for x in index[index.index(item) + 1:] if x is not None)
        elif isinstance(item, (list, tuple)):
            basic = False
            out.append(ms.Tensor(item) if item else ms.Tensor([], ms.int64))
            dim += 1
        elif hasattr(item, "__index__"):
            out.append(item.__index__())
            dim += 1
        else:
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
                "indices (got " + type(item).__name__ + ")")
    return tuple(out), basic


def _as_int(x):
    if isinstance(x, Tensor):
        return int(x)
    return x


def getitem(self, index):
    idx, basic = _convert_index(index, self._ms.shape)
    key = idx[0] if len(idx) == 1 else idx
    try:
        r = self._ms[key]
    except (ValueError, TypeError, RuntimeError) as exc:
        raise IndexError(str(exc).split("\n")[0]) from None
    if basic:
        return make_view(self, r, index_back(key))
    return wrap(r)


def setitem(self, index, value):
    self._check_inplace()
    idx, basic = _convert_index(index, self._ms.shape)
    key = idx[0] if len(idx) == 1 else idx
    t = self._ms
    if isinstance(value, Tensor):
        v = value._ms
        if v.dtype != t.dtype:
            v = v.astype(t.dtype)
    elif isinstance(value, (bool, int, float, complex)):
        v = ms.Tensor(value, t.dtype)
    else:
        from .creation import tensor
        v = tensor(value, dtype=D._FROM_MS[t.dtype])._ms
    try:
        t[key] = v
    except (ValueError, TypeError, RuntimeError) as exc:
        raise RuntimeError(str(exc).split("\n")[0]) from None
    view = self._view
    if view is not None:
        base, writeback = view
        base._write(writeback(base._ms, t))


@register("masked_fill", family=F, inplace="masked_fill_")
def masked_fill(input, mask, value):
    if mask.dtype != ms.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {dtype_of(mask)}")
    if isinstance(value, ms.Tensor):
        if value.ndim != 0:
            raise RuntimeError(
                f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{value.ndim} dimension(s).")
        v = value.astype(input.dtype)
    else:
        v = ms.Tensor(value, input.dtype)
    return ops.masked_fill(input, mask, v)


@register("where", family=F, out=True)
def where(condition, input=None, other=None):
    if input is None and other is None:
        return tuple(i for i in ops.nonzero(condition).astype(ms.int64).T) if condition.ndim else (
            ops.nonzero(condition.reshape(1)).reshape(-1),)
    a, b, rt = promote(input, other)
    if condition.dtype != ms.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype {dtype_of(condition)}")
    return ops.where(condition, a, b)
