"""The ``*_copy`` twins of the view ops (``permute_copy``, ``select_copy``...: the view's values in memory of
their own), the ``*_scatter`` ops (``input`` with ``src`` written where the view would look), and the
few index-set creation ops: ``triu_indices``, ``tril_indices``.

A copy is the view op followed by a clone, and a scatter is a clone of ``input`` written through the view
op, so each takes its view's checks, errors and gradients (through mstorch's view write-back) as they
are.
"""
import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, wrap
from . import _msops as _ms_ops
from ._helpers import _node, wrap_dim
from ._registry import PUBLIC, register
from .creation import _contiguous_strides
from .shape_inplace import _check_strided_args, _positions, check_in_storage, storage_root

F = "view_copy"



def _slice(input, dim=0, start=None, end=None, step=1):
    """torch's aten::slice (Tensor[dim, start:end:step]) as a view."""
    if input.dim() == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    dim = wrap_dim(dim, input.dim())
    return input[(slice(None),) * dim + (slice(start, end, step),)]


# view op -> how it is called on the mstorch Tensor (positional arguments after ``input``)
_VIEWS = {
    "alias": lambda x: x.view_as(x),
    "as_strided": lambda x, *a, **k: x.as_strided(*a, **k),
    "detach": lambda x: x.detach(),
    "diagonal": lambda x, *a, **k: x.diagonal(*a, **k),
    "expand": lambda x, size, *, implicit=False: x.expand(size),
    "narrow": lambda x, *a, **k: x.narrow(*a, **k),
    "permute": lambda x, dims: x.permute(dims),
    "select": lambda x, *a, **k: x.select(*a, **k),
    "slice": _slice,
    "split": lambda x, *a, **k: x.split(*a, **k),
    "split_with_sizes": lambda x, split_sizes, dim=0: x.split(list(split_sizes), dim),
    "squeeze": lambda x, *a, **k: x.squeeze(*a, **k),
    "t": lambda x: x.t(),
    "transpose": lambda x, *a, **k: x.transpose(*a, **k),
    "unbind": lambda x, *a, **k: x.unbind(*a, **k),
    "unfold": lambda x, *a, **k: x.unfold(*a, **k),
    "unsqueeze": lambda x, *a, **k: x.unsqueeze(*a, **k),
    "view": lambda x, size: x.view(size) if isinstance(size, D.dtype) else x.reshape(_sizes("view_copy", x, size)),
    "view_as_real": lambda x: PUBLIC["view_as_real"](x),
    "view_as_complex": lambda x: PUBLIC["view_as_complex"](x),
}


def _sizes(name, x, size):
    if isinstance(size, int) or not isinstance(size, (tuple, list)):
        from ._argerr import invalid_args
        raise invalid_args(name, (x, size), signatures=("Tensor input, torch.dtype dtype, *, Tensor out = None",
                                                        "Tensor input, SymInt[] size, *, Tensor out = None"))
    return tuple(size)


def _clone(out):
    if isinstance(out, (tuple, list)):
        return [o.clone() for o in out]
    return out.clone()


def _narrow_copy_dim(input, dim):
    # torch's narrow_copy checks a non-negative dim against the rank itself (a negative one wraps as usual)
    if isinstance(dim, int) and input.dim() and dim >= input.dim():
        raise RuntimeError("Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, but got false.  "
                           "(Could this error message be improved?  If so, please report an enhancement request "
                           "to PyTorch.)")


def _register_copy(view_name, view):
    def copy_op(input, *args, **kwargs):
        if view_name == "narrow":
            _narrow_copy_dim(input, args[0] if args else kwargs.get("dim"))
        return _clone(view(input, *args, **kwargs))
    copy_op.__name__ = copy_op.__qualname__ = f"{view_name}_copy"
    copy_op.__doc__ = f"torch.{view_name}_copy: torch.{view_name}'s result in memory of its own."
    # the list-returning copies take a list as out= in torch; not offered here
    # (of the copies, torch has only narrow_copy as a Tensor method too)
    namespace = ("torch", "Tensor") if view_name == "narrow" else "torch"
    register(f"{view_name}_copy", family=F, namespace=namespace, raw=True,
             out=view_name not in ("split", "split_with_sizes", "unbind"))(copy_op)


for _name, _view in _VIEWS.items():
    _register_copy(_name, _view)


@register("split_with_sizes", family=F, raw=True, aliases=("unsafe_split_with_sizes",))
def split_with_sizes(input, split_sizes, dim=0):
    return _VIEWS["split_with_sizes"](input, split_sizes, dim)


# --- scatters -------------------------------------------------------------------------------------

def _scatter(name, input, src, view):
    """``input`` with ``src`` where ``view`` looks: a ``where`` over the view's positions (found by
    applying ``view`` to the element numbers), so both gradients are torch's, also when ``src`` covers
    all of ``input`` (its gradient is then zeros, not missing)."""
    if not isinstance(src, Tensor):
        raise TypeError(f"{name}(): argument 'src' (position 2) must be Tensor, not {type(src).__name__}")
    n = input.numel()
    positions = view(PUBLIC["arange"](n).reshape(input.shape))
    if tuple(positions.shape) != tuple(src.shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {list(positions.shape)}")
    flat = positions.reshape(-1)
    chosen = PUBLIC["zeros"](n, dtype=D.bool_).index_put((flat,), PUBLIC["ones"]((), dtype=D.bool_))
    placed = PUBLIC["zeros"](n, dtype=input.dtype).index_put((flat,), src.to(input.dtype).reshape(-1))
    return PUBLIC["where"](chosen.reshape(input.shape), placed.reshape(input.shape), input)


@register("select_scatter", family=F, raw=True)   # (torch has no out= form)
def select_scatter(input, src, dim, index):
    return _scatter("select_scatter", input, src, lambda t: t.select(dim, index))


@register("slice_scatter", family=F, raw=True, out=True)
def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    return _scatter("slice_scatter", input, src, lambda t: _slice(t, dim, start, end, step))


@register("diagonal_scatter", family=F, raw=True)   # (torch has no out= form)
def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    return _scatter("diagonal_scatter", input, src, lambda t: t.diagonal(offset, dim1, dim2))


# --- triangle index sets --------------------------------------------------------------------------

def _tri_indices(name, row, col, offset, dtype, device, upper):
    dtype = D.int64 if dtype is None else dtype
    if dtype not in (D.int64, D.int32):
        raise NotImplementedError(f"\"{name}\" not implemented for '{D.scalar_type_name(dtype)}'")
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    i, j = np.triu_indices(row, offset, col) if upper else np.tril_indices(row, offset, col)
    return PUBLIC["tensor"](np.stack([i, j]).reshape(2, -1).astype(dtype._np), dtype=dtype, device=device)


@register("triu_indices", family=F, namespace="torch", raw=True)
def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None, pin_memory=False):
    return _tri_indices("triu_indices", row, col, offset, dtype, device, True)


@register("tril_indices", family=F, namespace="torch", raw=True)
def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None, pin_memory=False):
    return _tri_indices("tril_indices", row, col, offset, dtype, device, False)


# --- function forms of Tensor methods ---------------------------------------------------------------

@register("detach", family=F, namespace="torch", raw=True)
def detach(input):
    return input.detach()


@register("get_device", family=F, raw=True)
def get_device(input):
    """-1 for a CPU tensor, else the device index, as torch."""
    dev = input.device
    return -1 if dev.type == "cpu" else (dev.index or 0)


@register("as_strided_scatter", family=F, raw=True)   # (torch has no out= form here)
def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """``input`` (its values, sizes and strides) with ``src`` written to the storage slots that
    ``input.as_strided(size, stride, storage_offset)`` would look at, as torch's clone of the whole storage
    (a plain clone for an input with repeated elements) followed by a strided write; slots outside ``input``'s own elements are not seen. The write is a
    ``where`` over ``input``'s elements."""
    if not isinstance(src, Tensor):
        raise TypeError(f"as_strided_scatter(): argument 'src' (position 2) must be Tensor, not {type(src).__name__}")
    size, stride = _check_strided_args(size, stride, storage_offset)
    shape, strides = tuple(input.shape), input.stride()
    if any(st == 0 and n > 1 for n, st in zip(shape, strides)):
        # an input with repeated elements (expanded): torch's plain clone, contiguous in a storage of its own
        strides, start = _contiguous_strides(shape), 0
        check_in_storage(size, stride, storage_offset or 0, input.numel(), input.element_size())
        offset = storage_offset or 0
    else:
        start = input.storage_offset()
        offset = start if storage_offset is None else storage_offset
        root = storage_root(input)._ms
        check_in_storage(size, stride, offset, root if root.is_contiguous() else root.contiguous())
    if size != tuple(src.shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {list(size)}")
    mine = _positions(shape, strides, start)
    theirs = _positions(size, stride, offset).reshape(-1)
    slot_to_src = np.full(max(int(mine.max(initial=-1)), int(theirs.max(initial=-1))) + 1, -1, np.int64)
    slot_to_src[theirs] = np.arange(theirs.size)          # (overlapping windows: the last write wins, as torch)
    which = slot_to_src[mine]
    if not (which >= 0).any():
        return input.clone()
    chosen = PUBLIC["tensor"](which >= 0)
    placed = src.to(input.dtype).reshape(-1)[PUBLIC["tensor"](np.maximum(which, 0))]
    fixed = input.detach()
    if not input.requires_grad:
        return PUBLIC["where"](chosen, placed, fixed)
    # torch's derivative formula hands ``input`` the gradient at the written slots and zeros elsewhere
    # (the reverse of a scatter's); a term of value 0 carries it: input less its detached self (recorded
    # for double backward), or, where input holds inf/NaN (inf - inf is NaN), a node of ours
    if bool(PUBLIC["isfinite"](fixed).all()):
        carrier = input - fixed
    else:
        carrier = wrap(_ZERO_PASS(input._ms))
    return PUBLIC["where"](chosen, placed + carrier, fixed)


# zeros whose gradient is the incoming one (as_strided_scatter's gradient carrier)
_ZERO_PASS = _node("AsStridedScatterBackward0", lambda x: (_ms_ops.zeros_like(x), ()), lambda saved, g: g)

