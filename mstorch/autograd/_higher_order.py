"""Guard for ``create_graph=True``: refuse graphs whose second-order gradients MindSpore gets wrong.

Measured on MindSpore 2.10 (CPU): while a backward pass records itself (create_graph), a view that a
backward formula creates (reshape, transpose, expand_dims of the incoming gradient or of a saved
input) loses its autograd edge as soon as another op consumes it. Second-order gradients through
those formulas are then silently wrong: matmul loses the edge to the other operand, sum/mean over a
dim and reshape/transpose lose the edge to the incoming gradient. Python-level backward code
(custom Functions) records correctly.

A lost edge is harmless when the tensor behind it is a constant: the incoming gradient at the root
(a grad_output that does not require grad) and what flows from it through ops that are linear in
the incoming gradient. So ``(x ** 3).sum()`` and ``loss.mean()`` are fine, while a matmul of two
tensors that both require grad is not. The walk below allows only formulas verified against torch
(compat_tests/test_autograd.py) and raises for everything else.
"""
from .. import _ms_private as P

# backward formulas verified to record completely, whatever flows into them
_SAFE = frozenset((
    "Mul", "Muls", "Add", "Adds", "Sub", "Div", "Divs", "Exp", "Log", "Tanh", "Sigmoid", "Pow",
    "PowTensorScalar", "Maximum", "Minimum", "StridedSlice", "SelectView", "Concat", "Stack", "Neg",
    "Abs", "Square", "Select", "Sin", "Cos", "Contiguous",
    # the classic MatMul and Dense primitives record their backward completely (measured)
    "MatMul", "Dense",
    # comparisons: zero gradients
    "Greater", "GreaterEqual", "Less", "LessEqual", "Equal", "NotEqual",
))
# formulas linear in the incoming gradient with constant coefficients: a constant gradient in gives
# constant gradients out
_LINEAR = frozenset(("Add", "Adds", "Sub", "Neg", "Muls", "Contiguous", "StridedSlice", "SelectView",
                     "Concat", "Stack"))
# formulas that only reshape/reduce/broadcast the incoming gradient through views: right only
# while that gradient is a constant
_VIEW_OF_GRAD = frozenset((
    "SumExt", "ReduceSum", "MeanExt", "ReduceMean", "Reshape", "View", "Transpose", "TransposeView",
    "TransposeExtView", "ExpandDims", "ExpandDimsView", "Squeeze", "BroadcastTo", "BroadcastToView",
))
# formulas that view one operand to compute the other's gradient: right unless both need grad
_MATMUL = frozenset(("MatMulExt", "BatchMatMul", "BatchMatMulExt", "Mm", "Bmm"))


def check_create_graph(outputs, grads):
    """``outputs``: mindspore tensors; ``grads``: their grad_outputs (``()`` means implicit ones)."""
    stack = []
    for i, t in enumerate(outputs):
        node = P.grad_node(t) if not P.is_leaf(t) else None
        if node is not None:
            constant = not grads or not P.requires_grad(grads[i])
            stack.append((node, constant))
    seen = {}
    while stack:
        node, constant = stack.pop()
        key = id(node)
        if key in seen and (seen[key] or not constant):
            continue          # already walked with a gradient at least as constant
        seen[key] = constant
        if P.is_custom_node(node):
            name, child_constant = None, False
        else:
            name = node.name()
            if name.startswith("input_"):
                continue
            child_constant = _classify(node, name, constant)
        for child, _ in node.next_functions:
            if child is not None:
                stack.append((child, child_constant))


_REDUCTIONS = frozenset(("SumExt", "ReduceSum", "MeanExt", "ReduceMean"))


def _classify(node, name, constant):
    if name in _REDUCTIONS and _keeps_dims(node):
        return constant       # with keepdim the gradient is broadcast without a view: verified
    if name in _VIEW_OF_GRAD:
        if not constant:
            _refuse(name)
        return True
    if name in _MATMUL:
        # both operands need grad, or the incoming gradient itself is recorded (a 1-D @ 2-D product
        # then returns a gradient without a graph: second order silently zero, measured)
        if not constant or sum(child is not None for child, _ in node.next_functions) > 1:
            _refuse(name)
        return constant
    if name not in _SAFE:
        _refuse(name)
    return constant and name in _LINEAR


def _refuse(name):
    raise NotImplementedError(
        f"torch.autograd.grad / backward with create_graph=True through MindSpore's {name} backward is "
        "not supported: MindSpore 2.10 does not record that backward formula completely, so "
        "second-order gradients through it would be wrong (see docs/known-differences.md). First-order "
        "gradients are unaffected.")


def _keeps_dims(node):
    child, nr = node.next_functions[0]
    if child is None or P.is_custom_node(child):
        return False
    return len(P.node_output_shapes(node)[0]) == len(P.node_output_shapes(child)[nr])
