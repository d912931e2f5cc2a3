"""Shape ops: view/reshape/permute/transpose/squeeze/unsqueeze/flatten/expand, cat/stack/split...

The ops torch documents as views are ``raw`` and return views (``_views.make_view``) so in-place
writes through them reach the base.
"""
import mindspore as ms
from mindspore import ops

from .._tensor import Tensor, wrap
from ._helpers import wrap_dim, size_args, promote, result_type, cast, dtype_of
from ._registry import register
from ._views import make_view, reshape_back, permute_back

F = "shape"


def _infer_shape(shape, numel, name="view"):
    shape = list(shape)
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    for s in shape:
        if s < -1:
            raise RuntimeError(f"invalid shape dimension {s}")
    known = 1
    for i, s in enumerate(shape):
        if i not in neg:
            known *= s
    if neg:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape[neg[0]] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return tuple(shape)


def _shape_args(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    out = []
    for s in shape:
        if isinstance(s, Tensor):
            s = int(s)
        elif not isinstance(s, int) or isinstance(s, bool):
            raise TypeError(f"view(): argument 'size' must be tuple of ints, but found element of type "
                            f"{type(s).__name__}")
        out.append(s)
    return out


@register("view", family=F, function=False, raw=True)
def view(self, *shape, dtype=None):
    if shape and isinstance(shape[0], type(self.dtype)):
        dtype = shape[0]
        shape = ()
    if dtype is not None:
        if dtype.itemsize != self.dtype.itemsize:
            raise RuntimeError("mstorch: Tensor.view(dtype) with a different element size is not supported")
        return wrap(ms.Tensor(self._ms.asnumpy().view(dtype._np)))
    shape = _infer_shape(_shape_args(shape), self._ms.size)
    if not self._ms.is_contiguous():
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one dimension spans "
            "across two contiguous subspaces). Use .reshape(...) instead.")
    return make_view(self, self._ms.reshape(shape), reshape_back)


@register("reshape", family=F, raw=True)
def reshape(input, *shape):
    shape = _infer_shape(_shape_args(shape), input._ms.size)
    return make_view(input, input._ms.reshape(shape), reshape_back)


@register("view_as", family=F, function=False, raw=True)
def view_as(self, other):
    return view(self, tuple(other._ms.shape))


@register("reshape_as", family=F, function=False, raw=True)
def reshape_as(self, other):
    return reshape(self, tuple(other._ms.shape))


@register("permute", family=F, raw=True)
def permute(input, *dims):
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = dims[0]
    n = input._ms.ndim
    if len(dims) != n:
        raise RuntimeError(
            f"permute(sparse_coo): number of dimensions in the tensor input does not match the length of "
            f"the desired ordering of dimensions i.e. input.dim() = {n} is not equal to len(dims) = {len(dims)}")
    perm = tuple(wrap_dim(d, n) for d in dims)
    if len(set(perm)) != n:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return make_view(input, ops.transpose(input._ms, perm), permute_back(perm))


@register("transpose", family=F, raw=True, aliases=("swapaxes", "swapdims"))
def transpose(input, dim0, dim1):
    n = input._ms.ndim
    d0, d1 = wrap_dim(dim0, n), wrap_dim(dim1, n)
    perm = list(range(n))
    perm[d0], perm[d1] = perm[d1], perm[d0]
    if n == 0:
        return make_view(input, input._ms, reshape_back)
    return make_view(input, ops.transpose(input._ms, tuple(perm)), permute_back(perm))


@register("t", family=F, raw=True)
def t(input):
    n = input._ms.ndim
    if n > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {n}D")
    if n < 2:
        return make_view(input, input._ms, reshape_back)
    return transpose(input, 0, 1)


@register("unsqueeze", family=F, raw=True)
def unsqueeze(input, dim):
    d = wrap_dim(dim, input._ms.ndim + 1)
    return make_view(input, ops.expand_dims(input._ms, d), reshape_back)


@register("squeeze", family=F, raw=True)
def squeeze(input, dim=None):
    shape = input._ms.shape
    n = len(shape)
    if dim is None:
        new = tuple(s for s in shape if s != 1)
    else:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        dims = {wrap_dim(d, n) for d in dims}
        new = tuple(s for i, s in enumerate(shape) if not (i in dims and s == 1))
    return make_view(input, input._ms.reshape(new), reshape_back)


@register("flatten", family=F, raw=True)
def flatten(input, start_dim=0, end_dim=-1):
    shape = input._ms.shape
    n = len(shape)
    if n == 0:
        return make_view(input, input._ms.reshape((1,)), reshape_back)
    s, e = wrap_dim(start_dim, n), wrap_dim(end_dim, n)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    mid = 1
    for x in shape[s:e + 1]:
        mid *= x
    return make_view(input, input._ms.reshape(tuple(shape[:s]) + (mid,) + tuple(shape[e + 1:])), reshape_back)


@register("clone", family=F, out=False)
def clone(input, *, memory_format=None):
    return ops.identity(input)


@register("expand", family=F, function=False, raw=True)
def expand(self, *sizes):
    sizes = _shape_args(sizes)
    shape = self._ms.shape
    if len(sizes) < len(shape):
        raise RuntimeError(
            f"expand(torch.FloatTensor{{{list(shape)}}}, size={sizes}): the number of sizes provided "
            f"({len(sizes)}) must be greater or equal to the number of dimensions in the tensor ({len(shape)})")
    lead = len(sizes) - len(shape)
    target = []
    for i, s in enumerate(sizes):
        if i < lead:
            if s < 0:
                raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a leading, non-existing dimension {i}")
            target.append(s)
        else:
            cur = shape[i - lead]
            if s == -1:
                target.append(cur)
            elif cur != 1 and cur != s:
                raise RuntimeError(
                    f"The expanded size of the tensor ({s}) must match the existing size ({cur}) at "
                    f"non-singleton dimension {i}.  Target sizes: {sizes}.  Tensor sizes: {list(shape)}")
            else:
                target.append(s)
    return wrap(ops.broadcast_to(self._ms, tuple(target)))


@register("expand_as", family=F, function=False, raw=True)
def expand_as(self, other):
    return expand(self, tuple(other._ms.shape))


@register("broadcast_to", family=F, raw=True)
def broadcast_to(input, size):
    return expand(input, tuple(size))


def _seq_promote(tensors, name):
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        f"{type(tensors).__name__}")
    if not tensors:
        raise RuntimeError(f"{name}(): expected a non-empty list of Tensors")
    first = tensors[0].dtype
    if all(t.dtype == first for t in tensors):
        return list(tensors)
    rt = result_type(*tensors)
    return [cast(t, rt._ms) for t in tensors]


@register("cat", family=F, method=False, out=True, aliases=("concat", "concatenate"))
def cat(tensors, dim=0):
    tensors = _seq_promote(tensors, "cat")
    nonempty = [t for t in tensors if not (t.ndim == 1 and t.shape[0] == 0)]
    if not nonempty:
        return tensors[0]
    n = nonempty[0].ndim
    if n == 0:
        raise RuntimeError("zero-dimensional tensor (at position 0) cannot be concatenated")
    d = wrap_dim(dim, n)
    ref = nonempty[0].shape
    for i, t in enumerate(nonempty):
        if t.ndim != n:
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {n} and {t.ndim}")
        for k in range(n):
            if k != d and t.shape[k] != ref[k]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size {ref[k]} but got "
                    f"size {t.shape[k]} for tensor number {i} in the list.")
    if len(nonempty) == 1:
        return ops.identity(nonempty[0])
    return ops.concat(nonempty, d)


@register("stack", family=F, method=False, out=True)
def stack(tensors, dim=0):
    tensors = _seq_promote(tensors, "stack")
    ref = tensors[0].shape
    for i, t in enumerate(tensors):
        if t.shape != ref:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(ref)} at entry 0 and "
                f"{list(t.shape)} at entry {i}")
    d = wrap_dim(dim, len(ref) + 1)
    return ops.stack(tensors, d)
