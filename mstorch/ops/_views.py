"""Views: results that torch says share memory with their input.

MindSpore returns strided views for many of these ops and they do share storage, so reading a view
after its base changed sees the change. Writing *into* one does not work on CPU: ``copy_`` into a
strided or offset view either fails ("unexpected kernel") or leaves the base unchanged. So mstorch
records on each view its base, a ``writeback(base_ms, view_value) -> new base value`` and a
``derive(base_ms) -> view`` function. An in-place op on a view (``x[0].zero_()``, ``x.t().add_(1)``,
``x.view(-1)[3] = 5``) writes the whole base, then re-derives the view from it: values and autograd
then follow torch (the view's history goes through the base, like torch's CopySlices).
"""
import contextlib
import math
import weakref

import mindspore as ms
from .._runtime import read_host
from . import _kernels as kernels
from . import _msops as ops
from mindspore.ops import auto_generate as _gen

from .. import _ms_private as P
from .. import _dtype as D
from .._tensor import Tensor, scalar_type_name, solid as is_solid, write_memory, broadcastable_to
from .._cast import cast, NP_BF16

_copy = _gen.copy   # Copy: a real copy for every dtype, but it has no gradient
_strided_slice = ops.StridedSlice()
_NEG_ZERO = {}


def make_view(base, new_ms, writeback, derive):
    """Wrap ``new_ms`` as a view of the mstorch Tensor ``base`` (on every op that returns a view: kept lean)."""
    v = _new(Tensor)
    v._ms = new_ms
    v._view = (base, writeback, derive)
    d = base.__dict__
    if "_inference" in d or "_layout_gen" in d:
        if d.get("_inference"):  # torch: a view is an inference tensor when its base is one (whatever the mode)
            v._inference = True
        gen = d.get("_layout_gen")
        if gen is not None:   # the base changed its layout in place before (shape_inplace.py)
            v._layout_gen_seen = gen
    return v


_new = object.__new__


def write_view(view, new):
    """``Tensor._write`` for a view: ``new`` (already of the view's shape and dtype) becomes its value."""
    base, writeback, derive = view._view[:3]
    gen = base.__dict__.get("_layout_gen")
    if gen is not None and view.__dict__.get("_layout_gen_seen") != gen:
        raise RuntimeError(
            "mstorch: this view was taken before an in-place shape op (t_, transpose_, squeeze_, unsqueeze_, "
            "resize_, as_strided_) changed its base's layout; writing through it is not supported")
    if len(view._view) > 3 and P.grad_enabled() and P.requires_grad(view._ms):
        i, fn = view._view[3]
        raise RuntimeError(
            f"Output {i} of {fn} is a view and is being modified inplace. This view is the output of a "
            "function that returns multiple views. Such functions do not allow the output views to be "
            "modified inplace. You should replace the inplace operation by an out-of-place one.")
    base._write(writeback(base._ms, new))
    view._ms = derive(base._ms)
    return view


def fresh(t):
    """A copy of ``t`` in its own storage (torch's clone); differentiable when ``t`` needs grad."""
    if P.requires_grad(t) and P.grad_enabled():
        # x + (-0.0) is exactly x for every float (and keeps -0.0), and has a gradient
        z = _NEG_ZERO.get(t.dtype)
        if z is None:
            z = _NEG_ZERO[t.dtype] = ms.Tensor(-0.0, t.dtype)
        return ops.add(t, z)
    return _copy(t)


def grad_source(t):
    """The base to compute a write-back from: a copy when gradients are recorded, because MindSpore
    checks that no view of the base saved for backward (Slice, Transpose...) changed, and the write-back
    is about to change the base in place."""
    if P.requires_grad(t) and P.grad_enabled():
        return fresh(t)
    return t


def solid(t):
    """``t`` itself when it has storage of its own that ``copy_`` can write, else a copy: the result of a
    non-view op must never be a MindSpore view (an in-place op on it would fail or write nowhere)."""
    return t if is_solid(t) else fresh(t)


def owns_storage(t, base):
    """Whether MindSpore gave ``t`` storage of its own rather than a view of ``base``."""
    return t.untyped_storage().data_ptr() != base.untyped_storage().data_ptr()


# --- writeback / derive pairs -------------------------------------------------------------------

def reshape_pair(shape):
    def writeback(base_ms, new):
        return new.reshape(base_ms.shape)

    def derive(base_ms):
        return base_ms.reshape(shape)
    return writeback, derive


def permute_pair(perm):
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    inverse = tuple(inverse)

    def writeback(base_ms, new):
        return ops.transpose(new, inverse)

    def derive(base_ms):
        return ops.transpose(base_ms, perm)
    return writeback, derive


def empty_from(t, shape):
    """A zero-element tensor of ``shape`` that stays in ``t``'s autograd graph (MindSpore's slicing
    gradients fail on empty results; Slice's does not)."""
    flat = t.reshape(-1)
    if t.size:
        flat = ops.slice(flat, (0,), (0,))
    return flat.reshape(tuple(shape))


_FULL = slice(None)


class BasicIndex:
    """A basic index (ints, slices, None; Ellipsis already expanded) of a tensor of a known shape,
    read with StridedSlice (MindSpore's ``t[key]`` is far slower) and written back by
    concatenation around the box it selects."""
    __slots__ = ("begin", "size", "step", "end", "box", "out", "strided", "whole", "simple")

    def __init__(self, shape, key):
        begin, size, step, out = [], [], [], []
        d = 0
        for k in key:
            if k is None:
                out.append(1)
                continue
            n = shape[d]
            if type(k) is int:
                begin.append(k + n if k < 0 else k)
                size.append(1)
                step.append(1)
            else:
                a, b, st = k.indices(n)
                c = len(range(a, b, st))
                begin.append(min(a, n) if c else 0)
                size.append(c)
                step.append(st)
                out.append(c)
            d += 1
        for n in shape[d:]:
            begin.append(0)
            size.append(n)
            step.append(1)
            out.append(n)
        self.begin, self.size, self.step = tuple(begin), tuple(size), tuple(step)
        self.box = self.size
        self.out = tuple(out)
        self.strided = any(st != 1 for st, c in zip(step, size) if c > 1)
        self.end = tuple(b + (c - 1) * st + 1 for b, c, st in zip(begin, size, step))
        self.whole = self.size == tuple(shape)
        # ints and whole dims only (x[i], x[:, j]): MindSpore's own indexing makes that view fastest
        self.simple = key if all(type(k) is int or k == _FULL for k in key) else None

    def read(self, t):
        return self._read(t) if self.whole else bf16_selection(self._read, t, self.strided)

    def _read(self, t):
        if self.whole:
            return t.reshape(self.out)
        if 0 in self.size:   # (before MindSpore's indexing: its backward fails on an empty selection)
            return empty_from(t, self.out)
        if self.simple is not None:
            return t[self.simple]
        # StridedSlice, not Slice/Narrow: MindSpore's autograd tracks only the former as a view, and a view
        # whose base is later written in place must be one (Slice's backward then fails its version check)
        r = _strided_slice(t, self.begin, self.end, self.step)
        return r if r.shape == self.out else r.reshape(self.out)

    def write(self, base, new):
        """``base`` with the selected box replaced by ``new`` (the view's value)."""
        if 0 in self.size:
            return fresh(base)
        if self.whole:
            return new.reshape(base.shape)
        base = grad_source(base)
        if self.strided:
            positions = self.read(ops.arange(base.size, dtype=ms.int64).reshape(base.shape))
            return scatter_positions(base, positions, new)
        return _embed(base, new.reshape(self.box), self.begin, self.size, 0)


class _BF16Read(P.FunctionBase):
    """A basic index of a bfloat16 tensor that needs gradients: MindSpore's CPU StridedSliceGrad has no
    bfloat16 kernel, so the backward scatters the gradient into zeros itself (exact through float32).
    Stepped slices of any dtype take it too: StridedSliceGrad fails ("input memory out of bounds") on a
    stepped middle dimension between whole ones (``x[:, ::2]`` of a (2, 4, 3) tensor)."""

    @staticmethod
    def forward(node, t, read):
        node.read, node.shape = read, t.shape
        return read(t)

    @staticmethod
    def backward(node, grad):
        shape = node.shape
        positions = node.read(ops.arange(math.prod(shape), dtype=ms.int64).reshape(shape))
        return scatter_positions(ops.zeros(shape, grad.dtype), positions, grad), None


def bf16_selection(read, t, strided=False):
    """``read(t)`` (a selection of t's elements: slice, diagonal) with a backward that works for
    bfloat16 tensors (and, ``strided``, stepped slices) that need gradients; ``read(t)`` itself elsewhere."""
    if (strided or t.dtype == ms.bfloat16) and P.requires_grad(t) and P.grad_enabled():
        return _BF16Read.apply(t, read)
    return read(t)


def scatter_positions(t, positions, values):
    """``t`` with the elements at flat ``positions`` replaced by ``values`` (of the same shape)."""
    flat = t.reshape(-1)
    if positions.size:
        idx, vals = positions.reshape(-1, 1), values.reshape(-1)
        if flat.dtype == ms.bfloat16:   # no bfloat16 TensorScatterUpdate on CPU; exact through float32
            flat = ops.tensor_scatter_update(cast(flat, ms.float32), idx, cast(vals, ms.float32))
            flat = cast(flat, ms.bfloat16)
        else:
            flat = ops.tensor_scatter_update(flat, idx, vals)
    return flat.reshape(t.shape)


def _embed(base, new, begin, size, d):
    nd = len(begin)
    while d < nd and begin[d] == 0 and size[d] == base.shape[d]:
        d += 1
    if d == nd:
        return new
    b, c, n = begin[d], size[d], base.shape[d]
    region = base
    if c != n:
        rb = [0] * nd
        rs = list(base.shape)
        rb[d], rs[d] = b, c
        region = ops.slice(base, tuple(rb), tuple(rs))
    inner = _embed(region, new, begin, size, d + 1) if d + 1 < nd else new
    parts = []
    if b:
        rs = list(base.shape)
        rs[d] = b
        parts.append(ops.slice(base, (0,) * nd, tuple(rs)))
    parts.append(inner)
    if b + c < n:
        rb = [0] * nd
        rs = list(base.shape)
        rb[d], rs[d] = b + c, n - b - c
        parts.append(ops.slice(base, tuple(rb), tuple(rs)))
    return ops.concat(parts, d) if len(parts) > 1 else inner


def index_view(base, key, multi=None):
    """The view ``base[key]`` for a basic key (ints, slices, None; no Ellipsis). ``multi``: (output
    number, torch's backward name) for the pieces of split/chunk/unbind, which torch forbids writing
    into while recording gradients."""
    plan = BasicIndex(base._ms.shape, key)
    v = make_view(base, plan.read(base._ms), plan.write, plan.read)
    if multi is not None:
        v._view += (multi,)
    return v


def _overlap_error():
    raise RuntimeError(
        "unsupported operation: more than one element of the written-to tensor refers to a single memory "
        "location. Please clone() the tensor before performing the operation.")


def check_no_overlap(t):
    """torch's error for writing into a tensor whose elements share memory (an expanded view): its
    TensorIterator checks this before it looks for a kernel of the dtype."""
    if t.numel() and any(st == 0 and n > 1 for n, st in zip(t.shape, t.stride())):   # (nothing empty overlaps)
        _overlap_error()


# set while an op that torch lets write repeated elements writes back (threshold_, a real conj_physical_):
# elementwise and idempotent, so every copy of an element gets the same value
_REPEATED_WRITES = [False]


@contextlib.contextmanager
def repeated_writes():
    _REPEATED_WRITES[0] = True
    try:
        yield
    finally:
        _REPEATED_WRITES[0] = False


def expand_pair(pre, shape, expanded):
    """expand/broadcast_to (``pre``: the base's shape with leading 1s): writing is only defined when no
    element is repeated, as in torch."""
    def writeback(base_ms, new):
        if 0 in shape:      # no element: nothing repeats (torch writes) and nothing changes
            return fresh(base_ms)
        if expanded:
            if not _REPEATED_WRITES[0]:
                _overlap_error()
            for d, (p, n) in enumerate(zip(pre, shape)):   # the copies hold one value: keep the first
                if p == 1 and n > 1:
                    new = ops.narrow(new, d, 0, 1)
        return new.reshape(base_ms.shape)

    def derive(base_ms):
        return ops.broadcast_to(base_ms.reshape(pre), shape)
    return writeback, derive


def bitcast(ms_t, dtype):
    """``ms_t``'s bytes read as ``dtype`` (no gradient, as in torch): a NumPy view of the host memory on
    CPU, MindSpore's own view (a device kernel, no host read) on the device path."""
    if kernels.HOST_WORKAROUNDS:   # (bfloat16: MindSpore's own NumPy bfloat16, bit for bit)
        return ms.Tensor(read_host(ms_t).view(NP_BF16 if dtype is D.bfloat16 else dtype._np))
    return ms_t.view(dtype._ms)


def dtype_pair(src, dst):
    """view(dtype): the same bytes read as another dtype."""
    def writeback(base_ms, new):
        return bitcast(new, src)

    def derive(base_ms):
        return bitcast(base_ms, dst)
    return writeback, derive


def diagonal_pair(offset, d1, d2):
    def derive(base_ms):
        return bf16_selection(read, base_ms)

    def read(base_ms):
        # a strided slice of the two dims flattened (MindSpore's Diagonal is no autograd view; see read)
        shape = base_ms.shape
        n1, n2 = shape[d1], shape[d2]
        n = max(0, min(n1 - max(-offset, 0), n2 - max(offset, 0)))
        rest = [s for k, s in enumerate(shape) if k not in (d1, d2)]
        if n == 0:
            return empty_from(base_ms, rest + [0])
        moved = base_ms if (d1, d2) == (len(shape) - 2, len(shape) - 1) else ops.movedim(base_ms, (d1, d2), (-2, -1))
        flat = moved.reshape(tuple(rest) + (n1 * n2,))
        start = max(offset, 0) + max(-offset, 0) * n2
        k = len(rest)
        return ops.strided_slice(flat, (0,) * k + (start,), tuple(rest) + (start + (n - 1) * (n2 + 1) + 1,),
                                 (1,) * k + (n2 + 1,))

    def writeback(base_ms, new):
        # the diagonal's flat positions in the base, read the same way as its values
        positions = read(ops.arange(base_ms.size, dtype=ms.int64).reshape(base_ms.shape))
        return scatter_positions(grad_source(base_ms), positions, new)
    return writeback, derive



# --- shapes of views ---------------------------------------------------------------------------

def infer_shape(shape, numel):
    shape = list(shape)
    infer = -1
    known = 1
    for i, s in enumerate(shape):
        if s == -1:
            if infer >= 0:
                raise RuntimeError("only one dimension can be inferred")
            infer = i
        elif s < 0:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {shape}")
        else:
            known *= s
    if infer >= 0:
        if known == 0:
            if numel == 0:
                raise RuntimeError(
                    f"cannot reshape tensor of 0 elements into shape {shape} because the unspecified "
                    f"dimension size -1 can be any value and is ambiguous")
            raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
        if numel % known:
            raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
        shape[infer] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
    return tuple(shape)


def shape_args(shape, name="view"):
    if len(shape) == 1 and type(shape[0]) is int:   # x.view(-1): on the per-op path
        return shape
    if not shape:
        raise TypeError(f'{name}() missing 1 required positional arguments: "shape"')
    arg = "shape" if name == "reshape" else "size"
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    elif len(shape) == 1 and not _is_index(shape[0]):
        if name == "view":   # view(dtype) is its other signature
            from ._argerr import invalid_args
            raise invalid_args("view", shape, signatures=("torch.dtype dtype", "tuple of ints size"))
        raise TypeError(f"{name}(): argument '{arg}' (position 1) must be tuple of ints, not "
                        f"{type(shape[0]).__name__}")
    out = []
    for i, s in enumerate(shape):
        if type(s) is not int:
            if not _is_index(s):
                raise TypeError(f"{name}(): argument '{arg}' failed to unpack the object at pos {i + 1} with error "
                                f"\"type must be tuple of ints,but got {type(s).__name__}\"")
            s = s.__index__()
        out.append(s)
    return out


def _is_index(s):
    return type(s) is int or isinstance(s, Tensor) or hasattr(s, "__index__") and not isinstance(s, bool)


def reshape_view(input, shape):
    return make_view(input, input._ms.reshape(shape), *reshape_pair(shape))


def expand_view(input, sizes, name="expand"):
    shape = tuple(input._ms.shape)
    if len(sizes) < len(shape):
        raise RuntimeError(
            f"{name}(torch.{_legacy(input)}{{{list(shape)}}}, size={list(sizes)}): the number of sizes "
            f"provided ({len(sizes)}) must be greater or equal to the number of dimensions in the tensor "
            f"({len(shape)})")
    lead = len(sizes) - len(shape)
    pre = (1,) * lead + shape
    target = []
    for i, s in enumerate(sizes):
        cur = pre[i]
        if i < lead:
            if s < 0:
                raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a leading, "
                                   f"non-existing dimension {i}")
            target.append(s)
        elif s == -1:
            target.append(cur)
        elif cur != s and cur != 1 or s < -1:
            raise RuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size ({cur}) at "
                f"non-singleton dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: {list(shape)}")
        else:
            target.append(s)
    target = tuple(target)
    expanded = target != pre
    if not expanded and not lead:
        return reshape_view(input, shape)
    base = input._ms.reshape(pre) if lead else input._ms
    if base.dtype == ms.bfloat16 and P.requires_grad(base) and P.grad_enabled():
        return make_view(input, _BF16Expand.apply(base, target), *expand_pair(pre, target, expanded))
    return make_view(input, ops.broadcast_to(base, target), *expand_pair(pre, target, expanded))


class _BF16Expand(P.FunctionBase):
    """broadcast_to of a bfloat16 tensor that needs gradients: MindSpore's BroadcastTo backward sums with
    a ReduceSum that has no bfloat16 CPU kernel; this one sums in float32 (torch accumulates bfloat16
    sums in float32 as well) and rounds once."""

    @staticmethod
    def forward(node, t, target):
        node.axes = tuple(i for i, (a, b) in enumerate(zip(t.shape, target)) if a == 1 and b != 1)
        return ops.broadcast_to(t, target)

    @staticmethod
    def backward(node, grad):
        if not node.axes:
            return grad, None
        return cast(ops.sum(cast(grad, ms.float32), node.axes, True), ms.bfloat16), None


def _legacy(t):
    return scalar_type_name(t.dtype) + "Tensor"


def infer_size(a, b):
    """torch's infer_size: the broadcast of two shapes; the first mismatch from the right is reported."""
    na, nb = len(a), len(b)
    n = max(na, nb)
    out = [0] * n
    for i in range(n - 1, -1, -1):
        k = n - 1 - i
        sa = a[na - 1 - k] if k < na else 1
        sb = b[nb - 1 - k] if k < nb else 1
        if sa != sb and sa != 1 and sb != 1:
            raise RuntimeError(
                f"The size of tensor a ({sa}) must match the size of tensor b ({sb}) at non-singleton dimension {i}")
        out[i] = sb if sa == 1 else sa
    return tuple(out)


def broadcast_shape(shapes):
    """The broadcast of several shapes, folded left to right as torch's TensorIterator does."""
    out = tuple(shapes[0])
    for s in shapes[1:]:
        out = infer_size(out, tuple(s))
    return out


# --- Tensor members owned here (installed on Tensor by mstorch/_install.py) ---------------------------------

def write(self, new, check_cast=True):
    """Make ``new`` (a mindspore.Tensor) the value of this tensor in place, as torch's ``*_`` ops do.

    ``check_cast=False`` is copy_'s contract: any dtype converts."""
    try:
        return _write_checked(self, new, check_cast)
    except BaseException:
        # a failed MindSpore kernel switches op recording off for every later op: every in-place
        # op, setitem and out= passes here, so none leaves autograd off for the process
        P.enable_recording()
        raise


def _write_checked(self, new, check_cast):
    self._check_inplace()
    t = self._ms
    if new.dtype != t.dtype:
        src, dst = D._FROM_MS[new.dtype], D._FROM_MS[t.dtype]
        if check_cast and not D.can_cast(src, dst):
            raise RuntimeError(
                f"result type {D.SCALAR_TYPE_NAMES[src]} can't be cast to the desired output type "
                f"{D.SCALAR_TYPE_NAMES[dst]}")
        new = cast(new, t.dtype)
    if new.shape != t.shape:
        if not broadcastable_to(new.shape, t.shape):
            raise RuntimeError(
                f"output with shape {list(t.shape)} doesn't match the broadcast shape {list(new.shape)}")
        new = new.broadcast_to(t.shape)
    if self._view is not None:
        # copy_ into a MindSpore view fails on CPU: a view writes its base, then re-reads itself
        return write_view(self, new)
    if is_solid(t):
        if new.is_contiguous() and not is_solid(new):
            # a contiguous part of a bigger storage (a split piece): MindSpore's CPU copy_ reads the
            # whole storage (failing when the piece starts it, warning otherwise); copy the piece out
            new = fresh(new)
        t.copy_(new)
    elif P.requires_grad(t) and P.grad_enabled():
        # an alias of other memory with a history to record: no producer makes one (views carry
        # _view); keep autograd right, as a tensor of its own
        self._ms = fresh(new)
    else:   # an alias of other memory (a detached view, a strided .grad): write where it lies
        write_memory(t, new)
    return self


# in-place ops whose backward reads their result (torch saves it, with the version the op left): torch's
# node label in the error a later in-place change of the receiver gives at backward
SAVES_RESULT = {"relu_": "Relu", "sigmoid_": "Sigmoid", "tanh_": "Tanh", "exp_": "Exp", "exp2_": "Exp2",
                "expm1_": "Expm1", "sqrt_": "Sqrt", "rsqrt_": "Rsqrt", "reciprocal_": "Reciprocal", "elu_": "Elu1",
                "celu_": "Celu1", "selu_": "Elu1", "leaky_relu_": "LeakyRelu1", "rrelu_": "RreluWithNoise1"}


def guard_result(self, result, label):
    """After the in-place op ``label`` wrote ``result`` (a mindspore.Tensor) into ``self``: its backward
    reads that result, which torch saves as the receiver itself, so a later in-place change of the receiver
    fails that backward with torch's version error. mstorch's node saved ``result``, a tensor of its own
    (the gradient would silently use the old values): a hook on that node compares the receiver's version
    at backward with the one the op left."""
    if not (P.grad_enabled() and P.requires_grad(result)) or P.is_leaf(result):
        return
    t = self._ms
    expected, shape, legacy = t._version, list(t.shape), _legacy(self)
    receiver = weakref.ref(t)   # (the node outlives nothing it keeps: no cycle through the receiver)

    def check(grad_inputs, grad_outputs):
        r = receiver()
        if r is not None and r._version != expected:
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an inplace operation: "
                f"[torch.{legacy} {shape}], which is output 0 of {label}, is at version {r._version}; expected "
                f"version {expected} instead. Hint: enable anomaly detection to find the operation that failed to "
                "compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).")
    P.grad_node(result).register_hook(check)


TENSOR_MEMBERS = {"_write": write}
