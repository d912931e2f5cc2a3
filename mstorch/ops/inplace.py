"""Method-only in-place basics: copy_, zero_, fill_ (they write through Tensor._write), and torch's top-level
forms of in-place methods (`torch.index_put_`, `torch.addmv_`)."""
import mindspore as ms
from . import _msops as ops

from .._tensor import Tensor
from ._registry import register

F = "inplace"


@register("copy_", family=F, namespace="Tensor", raw=True)
def copy_(self, src, non_blocking=False):
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'other' (position 1) must be Tensor, not {type(src).__name__}")
    s = src._ms
    if not _broadcastable(s.shape, self._ms.shape):
        raise RuntimeError(
            f"The size of tensor a ({self._ms.shape[-1] if self._ms.ndim else 1}) must match the size of tensor "
            f"b ({s.shape[-1] if s.ndim else 1}) at non-singleton dimension {max(self._ms.ndim - 1, 0)}")
    return self._write(s, check_cast=False)


def _broadcastable(src, dst):
    if len(src) > len(dst):
        return all(x == 1 for x in src[:len(src) - len(dst)]) and _broadcastable(src[len(src) - len(dst):], dst)
    return all(s == d or s == 1 for s, d in zip(reversed(src), reversed(dst)))


@register("zero_", family=F, raw=True)
def zero_(self):
    t = self._ms
    return self._write(ops.zeros(t.shape, t.dtype))


@register("fill_", family=F, raw=True)
def fill_(self, value):
    t = self._ms
    if isinstance(value, Tensor):
        if value._ms.ndim != 0:
            raise RuntimeError(
                f"fill_ only supports 0-dimension value tensor but got tensor with {value._ms.ndim} dimensions.")
        value = value.item()
    if isinstance(value, float) and t.dtype in (ms.int8, ms.int16, ms.int32, ms.int64, ms.uint8):
        value = int(value)
    if t.dtype == ms.bfloat16 and t.ndim:    # (no bfloat16 FillV2 on CPU)
        return self._write(ops.cast(ops.fill(ms.float32, t.shape, value), t.dtype))
    return self._write(ops.fill(t.dtype, t.shape, value) if t.ndim else ms.Tensor(value, t.dtype))


@register("fill", family=F, namespace="torch", raw=True)
def fill(input, value):
    return fill_(input.clone(), value)


# torch's top-level forms of in-place methods: the method itself (its checks, write-back and errors)
@register("index_put_", family=F, namespace="torch", raw=True)
def index_put_(input, indices, values, accumulate=False):
    return input.index_put_(indices, values, accumulate)


@register("addmv_", family=F, namespace="torch", raw=True)
def addmv_(input, mat, vec, *, beta=1, alpha=1):
    return input.addmv_(mat, vec, beta=beta, alpha=alpha)
