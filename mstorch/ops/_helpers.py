"""Cross-cutting helpers for op implementations (they work on mindspore.Tensors and Python scalars).

Type promotion, dim normalisation, dtype arguments: written once here and used by every family.
"""
import threading

import mindspore as ms

from .._runtime import read_host
from .. import _dtype as D
from .. import _ms_private as _P

MsTensor = ms.Tensor
_FROM_MS = D._FROM_MS
_FROM_MS_ID = D._FROM_MS_ID
_SCALARS = (bool, int, float, complex)


def dtype_of(t):
    return _FROM_MS[t.dtype]


def ms_dtype(d):
    """torch dtype (or None) -> mindspore dtype (or None)."""
    return None if d is None else d._ms


from .._cast import cast  # noqa: E402,F401  (fast dtype conversion; see _cast.py)


def result_type(*operands):
    """torch.result_type over mindspore tensors and Python scalars."""
    dims, zeros, scalars = [], [], []
    for o in operands:
        if isinstance(o, MsTensor):
            (dims if o.ndim else zeros).append(_FROM_MS[o.dtype])
        elif isinstance(o, _SCALARS):
            scalars.append(o)
        elif isinstance(o, (list, tuple)):
            raise TypeError(f"unsupported operand type {type(o).__name__}")
    return D.result_type_parts(dims, zeros, scalars)


def promote(a, b):
    """Cast two operands (tensors or scalars) to torch's common dtype; returns (a, b, torch dtype)."""
    if type(a) is MsTensor and type(b) is MsTensor or isinstance(a, MsTensor) and isinstance(b, MsTensor):
        da = a.dtype
        if da is b.dtype:      # MindSpore dtypes are singletons: `is` is ~4x cheaper than ==
            return a, b, _FROM_MS_ID[id(da)]
    rt = result_type(a, b)
    return to_operand(a, rt), to_operand(b, rt), rt


def to_operand(x, rt):
    if isinstance(x, MsTensor):
        return x if x.dtype == rt._ms else cast(x, rt._ms)
    if isinstance(x, _SCALARS):
        return scalar_tensor(x, rt)
    raise TypeError(f"unsupported operand type: {type(x).__name__}")


_SCALAR_CACHE = {}


def scalar_tensor(x, rt):
    """A 0-dim tensor for a Python scalar, cached: MindSpore ops broadcast it at no copy cost."""
    if type(x) is float and x == 0:   # -0.0 == 0.0 as a dict key: never let one stand for the other
        return MsTensor(x, rt._ms)
    key = (type(x), x, rt)
    try:
        return _SCALAR_CACHE[key]
    except KeyError:
        pass
    except TypeError:
        return MsTensor(x, rt._ms)
    t = MsTensor(x, rt._ms)
    if len(_SCALAR_CACHE) < 4096:
        _SCALAR_CACHE[key] = t
    return t


def as_tensor(x, like_dtype=None):
    if isinstance(x, MsTensor):
        return x
    rt = like_dtype or D.scalar_dtype(x)
    return scalar_tensor(x, rt)


def wrap_dim(dim, ndim):
    n = ndim if ndim > 0 else 1
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim + n if dim < 0 else dim


def wrap_size_dim(dim, ndim):
    """torch's check of ``t.size(dim)`` (which an op reads before its own rank check): unlike ops, a 0-d
    tensor has no dim 0 there."""
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return wrap_dim(dim, ndim)


def wrap_dims(dims, ndim):
    if dims is None:
        return None
    if isinstance(dims, int):
        return (wrap_dim(dims, ndim),)
    out = tuple(wrap_dim(d, ndim) for d in dims)
    if len(set(out)) != len(out):
        raise RuntimeError(f"dim {out[0]} appears multiple times in the list of dims")
    return out


def size_args(size):
    """torch's ``*size`` convention: f(2, 3), f((2, 3)), f([2, 3]), f(torch.Size([2, 3]))."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    out = []
    for s in size:
        if isinstance(s, MsTensor):
            s = int(read_host(s))
        if not isinstance(s, int) or isinstance(s, bool):
            if hasattr(s, "__index__"):
                s = s.__index__()
            else:
                raise TypeError(
                    f"expected a sequence of integers or a single integer, got '{type(s).__name__}'")
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(size)}")
        out.append(s)
    return tuple(out)


def float_result(t):
    """Integer and bool inputs of float-valued functions (sqrt, exp, mean...) compute in the default dtype."""
    if _FROM_MS[t.dtype]._cat < D._FLOAT:
        return cast(t, D.get_default_dtype()._ms)
    return t


def _scalar_name(t):
    from .._tensor import scalar_type_name
    return scalar_type_name(_FROM_MS[t.dtype])


def graph_inputs(*tensors):
    """The tensors, those that would be constants of the backward graph aliased as graph parameters
    (``_ms_private.graph_input``: MindSpore's backward kernels format constants as text and recompile
    every step). Only while recording and when some input requires grad: otherwise nothing is recorded.
    The common call (every input on the graph already) costs a few attribute reads."""
    const = [t is not None and _P.is_graph_constant(t) for t in tensors]
    if not any(const) or all(c or t is None for c, t in zip(const, tensors)) or not _P.grad_enabled():
        return tensors
    return tuple(_P.graph_input(t) if c else t for c, t in zip(const, tensors))


def _node(name, fwd, bwd):
    """An autograd node of ours: ``fwd(*tensors) -> (outputs, saved)``, ``bwd(saved, *grads) -> grads``."""
    def forward(node, *args):
        outs, saved = fwd(*args)
        node.save_for_backward(*saved)
        return outs

    def backward(node, *grads):
        r = bwd(node.saved_tensors, *grads)
        return r if isinstance(r, tuple) else (r,)
    cls = type(name, (_P.FunctionBase,), {"forward": staticmethod(forward), "backward": staticmethod(backward)})

    def apply(*args):
        out = cls.apply(*args)
        for o in out if isinstance(out, tuple) else (out,):
            _P.set_function_of_output(o, cls)   # grad_fn keeps its name after backward frees the node
        return out
    return apply


# set by ops/_bind.py while it runs an op with grad mode off because every input that needs a gradient is
# empty (the results are linked to those inputs afterwards): per thread, as grad mode is
EMPTY_RECORDING = threading.local()


def records():
    """Whether autograd records the op running now: grad mode is on, or the op runs unrecorded only
    because every input that needs a gradient is empty (an op that refuses a gradient to an argument
    still refuses it there, as torch does)."""
    return _P.grad_enabled() or getattr(EMPTY_RECORDING, "on", False)


def iteration_order(shape, *strides):
    """The dims of ``shape``, fastest first, in the order torch's TensorIterator (reorder_dimensions) gives
    operands of these strides: an insertion sort on the first operand whose strides (neither 0) differ.
    It decides the memory order of torch's results and the order its kernels visit elements in."""
    def should_swap(d0, d1):
        for st in strides:
            s0, s1 = st[d0], st[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return -1 if s0 < s1 else 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    perm = list(range(len(shape) - 1, -1, -1))
    for i in range(1, len(perm)):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return perm
