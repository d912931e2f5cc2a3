"""``create_graph=True``: make MindSpore record a gradient graph that second-order gradients can trust.

Measured on MindSpore 2.10 (CPU): while a backward pass records itself, a view that one backward
formula makes (reshape, transpose, expand_dims... of the incoming gradient or of a saved input) loses
its autograd edge when another backward formula consumes it. Ops run from Python, hooks included,
consume views correctly. So before a backward pass that records itself, ``prepare`` walks the graph
and gives every node a post hook (removed when the pass ends):

- nodes whose formula is verified against torch (``_RECORDED``, compat_tests/test_double_backward.py)
  get a hook that hands their gradients on as new, non-view tensors (``_deview``);
- sum/mean, repeat/tile, Slice and Unstack, whose formulas consume a view internally (or have no backward),
  get their gradient from our own differentiable formula of the incoming gradient and the shapes
  (``_reduction_backward``, ``_tile_backward``, ``_slice_backward``, ``_unstack_backward``);
- nodes of mstorch ops that carry our own differentiable backward (``record_own_backward`` /
  ``own_backward``: softmax, GatherD, amax/max/prod/sort, index_add, masked_select, the fused
  cross_entropy, det, solvers...) get it, and those recomputed in recorded ops (``Recompute`` /
  ``recompute_as``: layer/batch/group norm, pooling, resizing, padding, conv3d, elu...) are replaced by
  the recomputation for the pass;
- edges that carry an integer or bool output (indices, masks) are not followed: no gradient flows there;
- anything else is refused with ``NotImplementedError`` naming the op, never a silently wrong (or
  zero) second derivative. First-order backward never walks and never runs these hooks.
"""
import functools
import itertools
import math
import weakref

import mindspore
import numpy as np
from mindspore import ops as _ops

from .._runtime import read_host
from .. import _ms_private as P

# backward formulas that record completely once their results are handed on as non-views (verified by
# the gradgradcheck sweep of compat_tests/test_double_backward.py, float64, against torch)
_RECORDED = frozenset((
    "Abs", "ACos", "Acosh", "Add", "AddExt", "Adds", "Asin", "Asinh", "Atan", "Atan2", "Atanh",
    "BatchMatMul", "BesselI0", "BesselI0e", "BesselI1", "BesselI1e", "BroadcastTo", "BroadcastToView",
    "BiasAdd", "Cast", "ClampScalar", "ClampTensor", "Col2Im", "Concat", "Contiguous", "Conv2D",
    "Conv2DBackpropInput", "Cos", "Cosh", "CumSum", "Dense", "Diagonal", "Digamma", "Div", "DivMod", "Divs",
    "Erf", "Erfc", "Exp", "ExpandDims", "ExpandDimsView", "Expm1", "FloorMod", "Gather", "Igamma", "Igammac", "Im2Col", "InplaceCopy", "Lgamma", "Log",
    "Log1p", "MatMul", "MatrixInverse", "Maximum", "Minimum", "Mul", "Muls", "Neg", "PadV3",
    "Polygamma", "Pow", "PowTensorScalar", "ReLU", "RealDiv", "Reciprocal", "Reshape", "ReverseV2",
    "Rsqrt", "Select", "SelectView", "SiLU", "Sigmoid", "Sign", "Sin", "Sinh", "Softplus", "Softsign",
    "Split", "Sqrt", "Square", "Squeeze", "Stack", "StridedSlice", "Sub", "SubExt", "Tan", "Tanh",
    "TensorScatterElements", "TensorScatterUpdate", "TopK", "Transpose", "TransposeView",
    "TransposeExtView", "Tril", "Triu", "Trunc", "UnsortedSegmentSum", "View", "ZerosLike", "Zeta",
    # complex parts (torch.fft samples and CASES)
    "Real", "Imag", "Conj", "Complex",
    # kernels of first-order gradients, differentiated again by MAML's second inner step and by hvp
    # (verified against torch in compat_tests/test_double_backward.py)
    "ReluGrad", "TanhGrad", "SigmoidGrad", "ZerosLikeExt",
    # zero gradients
    "Equal", "NotEqual", "Greater", "GreaterEqual", "Less", "LessEqual", "IsInf", "IsNan", "LogicalAnd",
    "LogicalNot", "LogicalOr", "OnesLike", "Floor", "Ceil", "Round",
))
_REDUCTIONS = {"SumExt": False, "ReduceSum": False, "MeanExt": True, "ReduceMean": True}
# mstorch's own autograd Functions whose backward is written in differentiable ops (verified)
_OWN_FUNCTIONS = frozenset(("LinalgCholeskyBackward0", "LinalgCholeskyExBackward0", "LinalgLuFactorExBackward0",
                            "LinalgDetBackward0", "LinalgSlogdetBackward0", "NativeLayerNormBackward0", "NativeBatchNormBackward0",
                            "NativeGroupNormBackward0",
                            "LinalgEighBackward0", "LinalgPinvBackward0",
                            "LinalgQrBackward0", "LinalgSolveExBackward0", "FmodBackward0", "RemainderBackward0",
                            "CumsumBackward0", "XlogyBackward0", "SpecialXlog1PyBackward0",
                            "AddmmBackward0", "MmBackward0", "GeluBackward0",
                            "ScaledDotProductAttentionBackward0", "_BF16Read",
                            "LinalgSvdBackward0", "CholeskyInverseBackward0", "CholeskySolveBackward0", "IgammaBackward0",
                            "IgammacBackward0", "NextafterBackward0", "DivBackward0", "Atan2Backward0",
                            "PowBackward1", "ErfinvBackward0", "LogitBackward0",
                            "SpecialEntrBackward0", "SpecialNdtriBackward0", "SpecialErfcxBackward0",
                            "SpecialLogNdtrBackward0", "SpecialI1Backward0",
                            "LinalgVectorNormBackward0", "HypotBackward0", "PolygammaBackward0", "LogsumexpBackward0",
                            "VarBackward0", "CumprodBackward0", "LinalgCrossBackward0",
                            "ProdBackward0", "ProdBackward1", "LgammaBackward0", "MulBackward0", "AddrBackward0", "LinalgInvExBackward0",
                            "_ZeroLink",
                            # verified in compat_tests/test_double_backward_own_nodes.py
                            "AddcdivBackward0", "AddmvBackward0", "AsStridedScatterBackward0",
                            "BinaryCrossEntropyBackward0", "BinaryCrossEntropyWithLogitsBackward0", "CdistBackward0",
                            "EuclideanDistBackward0", "FloorDivideBackward0", "LinalgLdlFactorExBackward0",
                            "LinalgMatrixExpBackward0", "Logaddexp2Backward0", "LogaddexpBackward0", "PdistBackward0",
                            "SoftMarginLossBackward0", "SoftMarginLossBackwardBackward0",
                            "ConvolutionBackward0"))   # (the host convolutions: compat_tests/test_host_conv.py)
# the torch API behind MindSpore kernels that are refused, for the message
_TORCH_API = {
    "ReduceMax": "amax/max(dim)", "ReduceMin": "amin/min(dim)", "ProdExt": "prod", "Softmax": "softmax",
    "GatherD": "gather (median/mode/quantile/grid_sample)", "Sort": "sort",
    "MaxPoolWithArgmaxV2": "max_pool", "MaxPool3DWithArgmax": "max_pool3d", "Elu": "elu",
    "HSigmoid": "hardswish/hardsigmoid", "GroupNorm": "group_norm", "MatrixDeterminant": "det",
    "LogMatrixDeterminant": "slogdet/logdet", "Svd": "svd", "MatrixTriangularSolve": "solve_triangular",
    "SmoothL1Loss": "smooth_l1_loss", "Erfinv": "erfinv",
    "MaskedSelect": "masked_select", "TensorScatterAdd": "index_add", "Cummax": "cummax/cummin",
    "AdaptiveAvgPool2D": "adaptive_avg_pool", "AdaptiveAvgPool3D": "adaptive_avg_pool3d",
    "AdaptiveMaxPool2D": "adaptive_max_pool", "AdaptiveMaxPool3D": "adaptive_max_pool3d",
    "ResizeNearestNeighborV2": "interpolate(mode='nearest')", "ResizeBilinearV2": "interpolate(mode='bilinear')",
    "MatMulExt": "matmul", "FFT": "fft", "SoftmaxCrossEntropyWithLogits": "cross_entropy",
    "BatchNorm": "batch_norm", "Conv3D": "conv3d", "AvgPool3D": "avg_pool", "ArgMaxWithValue": "max(dim)",
    "ArgMinWithValue": "min(dim)", "SoftShrink": "softshrink", "Imag": "complex tensors",
}


def prepare(outputs):
    """Hook the graph behind ``outputs`` (mindspore tensors) for one recording backward pass. Returns
    the handles to remove afterwards and the outputs to run backward from (an output made by a node
    that is recomputed for double backward is replaced by its recomputation)."""
    handles, subs = [], {}
    try:
        outputs = tuple(_output_or_substitute(t, subs) for t in outputs)
        stack = [P.grad_node(t) for t in outputs if _has_node(t)]
        seen = set()
        while stack:
            node = stack.pop()
            key = P.node_id(node)
            if key in seen:
                continue
            seen.add(key)
            hook = _hook_for(node)
            if hook is not None:
                handles.append(node.register_hook(hook))
            for i, (child, nr) in enumerate(node.next_functions):
                if child is None or not _differentiable_edge(child, nr):
                    continue
                sub = _substitute(child, subs)
                if sub is not None:     # point the edge at the recomputation until the pass ends
                    sub = _output_of(sub, nr, child)
                    P.set_next_edge(node, i, (P.grad_node(sub), 0))
                    handles.append(_EdgeRestore(node, i, child, nr))
                    child = P.grad_node(sub)
                stack.append(child)
    except BaseException:
        remove(handles)
        raise
    return handles, outputs


def _differentiable_edge(child, nr):
    # an integer or bool output (argmax, the indices of sort/cummax, a mask) carries no gradient: the
    # node behind it is not differentiated through that edge, so it needs no hook and is not refused
    return P.is_custom_node(child) or P.node_output_dtype(child, nr) in _GRAD_DTYPES


_GRAD_DTYPES = frozenset((mindspore.float16, mindspore.float32, mindspore.float64, mindspore.bfloat16,
                          mindspore.complex64, mindspore.complex128))


def _has_node(t):
    return not P.is_leaf(t) and P.grad_node(t) is not None


def _output_or_substitute(t, subs):
    sub = _substitute(P.grad_node(t), subs) if _has_node(t) else None
    # (of a node with several outputs, mstorch hands out output 0 only: the others are consumed inside)
    return t if sub is None else _output_of(sub, 0, None)


def _output_of(sub, nr, child):
    """Output ``nr`` of a recomputation: one tensor, or a tuple for a node with several outputs (each
    the output 0 of its own node)."""
    if isinstance(sub, tuple):
        return sub[nr]
    if nr != 0:
        _refuse(child.name(), None)
    return sub


class _EdgeRestore:
    def __init__(self, node, index, child, nr):
        self.args = (node, index, (child, nr))

    def remove(self):
        P.set_next_edge(*self.args)


def remove(handles):
    for h in handles:
        h.remove()


def _hook_for(node):
    if P.is_custom_node(node):
        # a custom Function's Python backward records itself; mstorch's own nodes (no torch-style
        # Function behind them) are allowed where their backward is verified
        kind = type(node)
        if getattr(kind, "_user", None) is None and kind.__module__.startswith("mstorch.") \
                and kind.__name__ not in _OWN_FUNCTIONS:
            _refuse(kind.__name__, None)
        return None
    if P.is_leaf_node(node):
        return None          # a leaf: its own hook hands on a fresh gradient (hooks.py)
    name = node.name()
    own = _OWN.get(P.node_id(node))
    anchor = None if own is None else own()
    if anchor is not None:
        return _own_hook(node, anchor)
    if name in _RECORDED:
        return _deview
    if name in _REDUCTIONS:
        return functools.partial(_reduction_backward, _REDUCTIONS[name])
    if name == "Tile":
        return _tile_backward
    if name == "Slice":
        return _slice_backward
    if name == "Unstack":
        return _unstack_backward
    _refuse(name, _TORCH_API.get(name))


def _deview(grad_inputs, grad_outputs):
    # a new tensor (not a view) for each gradient: the next formula then keeps its edge
    return tuple(None if g is None else _fresh(g) for g in grad_inputs)


_ZERO = {t: mindspore.Tensor(0, t) for t in (mindspore.complex64, mindspore.complex128)}


def _fresh(g):
    # MindSpore's Mul has no gradient for complex tensors: complex gradients get a complex zero added
    zero = _ZERO.get(getattr(g, "dtype", None))     # (a Python number passes through Mul)
    return _ops.mul(g, 1) if zero is None else _ops.add(g, zero)


def _reduction_backward(is_mean, grad_inputs, grad_outputs):
    """sum/mean over dims: the incoming gradient broadcast back to the input's shape (/ count)."""
    g, go = grad_inputs[0], grad_outputs[0]
    if g is None or go is None:
        return None
    in_shape, out_shape = tuple(g.shape), tuple(go.shape)
    keep = _kept_shape(in_shape, out_shape, g, go, is_mean)
    scale = math.prod(out_shape) / math.prod(in_shape) if is_mean and math.prod(in_shape) else 1
    r = _ops.broadcast_to(go.reshape(keep), in_shape)
    return (_ops.mul(r, scale),) + tuple(grad_inputs[1:])


def _tile_backward(grad_inputs, grad_outputs):
    """repeat/tile: the incoming gradient summed over the copies (MindSpore's formula reduces a view)."""
    g, go = grad_inputs[0], grad_outputs[0]
    if g is None or go is None:
        return None
    out_shape = tuple(go.shape)
    in_shape = (1,) * (len(out_shape) - g.ndim) + tuple(g.shape)
    if 0 in out_shape:
        return None
    split = []
    for n, s in zip(out_shape, in_shape):
        split += [n // s, s]
    summed = _ops.sum(go.reshape(tuple(split)), tuple(range(0, len(split), 2)))
    return (summed.reshape(tuple(g.shape)),) + tuple(grad_inputs[1:])


def _slice_backward(grad_inputs, grad_outputs):
    """narrow/slicing by MindSpore's Slice (whose gradient kernel has no backward): the incoming gradient
    padded with zeros. The offsets are not in the graph; MindSpore's own gradient values give them, and
    a pass where more than one offset reproduces them (a zero gradient) is refused."""
    g, go = grad_inputs[0], grad_outputs[0]
    if g is None or go is None:
        return None
    in_shape, out_shape = tuple(g.shape), tuple(go.shape)
    want, part = read_host(g), read_host(go)
    if part.size == 0:
        return (_ops.zeros_like(g),) + tuple(grad_inputs[1:])    # an empty slice: no gradient anywhere
    matching = []
    for begin in itertools.product(*(range(i - o + 1) for i, o in zip(in_shape, out_shape))):
        region = tuple(slice(b, b + o) for b, o in zip(begin, out_shape))
        placed = np.zeros_like(want)
        placed[region] = part
        if np.array_equal(placed, want, equal_nan=True):
            matching.append(begin)
            if len(matching) > 1:
                break
    if len(matching) != 1:
        _refuse("Slice", "narrow/slicing (the offset of the slice cannot be recovered)")
    pads = []
    for b, i, o in reversed(tuple(zip(matching[0], in_shape, out_shape))):
        pads += [b, i - o - b]
    return (_ops.pad(go, tuple(pads)),) + tuple(grad_inputs[1:])


def _unstack_backward(grad_inputs, grad_outputs):
    """unbind (MindSpore's Unstack, whose formula is not recorded): the incoming gradients stacked,
    zeros for pieces that got none. The axis is found from the shapes; where several axes fit
    ((3, 3) unbound), from MindSpore's own gradient values, which only the right axis reproduces."""
    g = grad_inputs[0]
    given = [go for go in grad_outputs if go is not None]
    if g is None or not given:
        return None
    in_shape, n = tuple(g.shape), len(grad_outputs)
    pieces = tuple(_ops.zeros_like(given[0]) if go is None else go for go in grad_outputs)
    out_shape = tuple(given[0].shape)
    axes = [a for a in range(len(in_shape)) if in_shape[a] == n and in_shape[:a] + in_shape[a + 1:] == out_shape]
    if len(axes) > 1:
        want = read_host(g)
        axes = [a for a in axes if np.array_equal(np.stack([read_host(p) for p in pieces], a), want, equal_nan=True)]
    if len(axes) != 1:
        _refuse("Unstack", "unbind (the axis cannot be recovered)")
    return (_ops.stack(pieces, axes[0]),) + tuple(grad_inputs[1:])


def _kept_shape(in_shape, out_shape, g, go, is_mean):
    """The reduction's output shape with keepdim=True. Dims reduced without keepdim are found from
    the shapes; when several dims could have been reduced ((3, 3) -> (3,)), from MindSpore's own
    gradient values, which only the right choice reproduces (refused if more than one does)."""
    if len(in_shape) == len(out_shape):
        return out_shape
    n_reduced = len(in_shape) - len(out_shape)
    candidates = []
    for dims in itertools.combinations(range(len(in_shape)), n_reduced):
        if tuple(s for i, s in enumerate(in_shape) if i not in dims) == out_shape:
            candidates.append(tuple(1 if i in dims else s for i, s in enumerate(in_shape)))
    if len(candidates) == 1:
        return candidates[0]
    want = read_host(g)
    gv = read_host(go)
    scale = (math.prod(out_shape) / math.prod(in_shape)) if is_mean else 1
    matching = [k for k in candidates
                if np.allclose(np.broadcast_to(gv.reshape(k), in_shape) * scale, want, rtol=1e-6, atol=0)]
    if len(matching) != 1:
        raise NotImplementedError(
            f"torch.autograd.grad / backward with create_graph=True through sum/mean over a dim of a tensor "
            f"of shape {list(in_shape)} (to {list(out_shape)}) is not supported: mstorch cannot tell which dim "
            "was reduced. Pass keepdim=True to that reduction (docs/known-differences.md).")
    return matching[0]


# --- our own differentiable backward for nodes of mstorch ops -----------------------------------------

_OWN = {}       # backward node id -> weak reference to the anchor that carries our own backward


class Recompute:
    """For record_own_backward: ``fn(node, *saved)`` recomputes the node's output (a tuple: its outputs)
    in recorded ops from its saved inputs; while a backward pass records itself, the graph uses that recomputation instead
    of the node (for kernels whose MindSpore backward fails when it is recorded)."""

    def __init__(self, fn):
        self.fn = fn


def _substitute(node, subs):
    if node is None or P.is_custom_node(node):
        return None
    key = P.node_id(node)
    if key in subs:
        return subs[key]
    own = _OWN.get(key)
    anchor = None if own is None else own()
    if anchor is None or not isinstance(anchor.args[0], Recompute):
        return None
    recompute, saved = anchor.args
    subs[key] = out = recompute.fn(node, *saved)
    return out


def record_own_backward(output, backward, *saved):
    """Give the MindSpore node that made ``output`` our own backward, used instead of MindSpore's
    formula only while a backward pass records itself: ``backward(node, grad_outputs, *saved) ->
    grad_inputs`` in recorded ops. ``backward`` a string (the torch API) marks the node first-order
    only: refused by name; a ``Recompute`` replaces the node by a recomputation of its output.

    ``saved`` lives as long as the node, on a hook that does nothing (the anchor). Inputs of the node may
    keep their graph; an output must be saved detached (``P.detach``: with its graph it would make a
    reference cycle through the C++ node), and ``P.reattach(t, node, nr)`` gives the formula its graph."""
    node = P.grad_node(output)
    anchor = functools.partial(_anchor, backward, saved)
    node.register_hook(anchor)
    key = P.node_id(node)
    _OWN[key] = weakref.ref(anchor, lambda _, key=key: _OWN.pop(key, None))


_RECOMPUTES = {}


def recompute_as(output, fn, *saved):
    """``output`` (returned), whose node is replaced by ``fn(*saved)`` (recorded, differentiable ops of
    the node's inputs with their graph, and constants) while a backward pass records itself. For kernels
    whose MindSpore gradient kernel has no backward; first-order passes still run the kernel's own
    formula, and pay only for keeping ``saved`` (nothing when ``output`` does not require grad)."""
    if P.requires_grad(output) and not P.is_leaf(output):
        r = _RECOMPUTES.get(fn)
        if r is None:
            r = _RECOMPUTES[fn] = Recompute(lambda node, *args: fn(*args))
        record_own_backward(output, r, *saved)
    return output


def own_backward(output, backward, *saved):
    """``output`` (returned), given our own ``backward(node, grad_outputs, *saved)`` for double backward
    when it requires grad (see record_own_backward)."""
    if P.requires_grad(output) and not P.is_leaf(output):
        record_own_backward(output, backward, *saved)
    return output


def _anchor(backward, saved, grad_inputs, grad_outputs):
    return None


def _own_hook(node, anchor):
    backward, saved = anchor.args
    if isinstance(backward, str):
        _refuse(node.name(), backward)
    if isinstance(backward, Recompute):
        return None         # the graph goes through the recomputation instead (prepare)
    return functools.partial(_run_own, node, backward, saved)


def _run_own(node, backward, saved, grad_inputs, grad_outputs):
    res = tuple(backward(node, grad_outputs, *saved))
    res += (None,) * (len(grad_inputs) - len(res))
    return tuple(None if g is None or r is None else _fresh(r) for g, r in zip(grad_inputs, res))


def _refuse(kernel, torch_name):
    what = f"{torch_name} (MindSpore's {kernel})" if torch_name else f"MindSpore's {kernel}"
    raise NotImplementedError(
        f"torch.autograd.grad / backward with create_graph=True through the backward of {what} is not "
        "supported: MindSpore 2.10 does not record that backward formula completely, so second-order "
        "gradients through it would be wrong (see docs/known-differences.md). First-order gradients are "
        "unaffected.")
