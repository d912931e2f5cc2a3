"""torch.cond in eager mode: evaluate the predicate and call the branch it picks.

torch compiles both branches (through dynamo) and checks that their outputs agree in metadata; mstorch has no
graph compiler, so only the chosen branch runs and such mismatches go unreported (docs/known-differences.md).
The argument checks and their messages are torch's."""
from ._tensor import Tensor
from .utils import _pytree as pytree


def cond(pred, true_fn, false_fn, operands=()):
    if isinstance(pred, (bool, int, float)):
        return true_fn(*operands) if pred else false_fn(*operands)
    if not isinstance(pred, Tensor):
        raise RuntimeError(f"Expected pred to be bool or tensor, but got {pred}.")
    if pred.numel() != 1:
        raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
    if not callable(true_fn) or not callable(false_fn):
        raise RuntimeError("Expect both branches to be callable.")
    if not isinstance(operands, (tuple, list)) or pytree.tree_any(lambda t: not isinstance(t, Tensor), operands):
        raise RuntimeError("Expect operands to be a tuple of possibly nested dict/list/tuple that only "
                           f"consists of tensor leaves, but got {operands}.")
    return true_fn(*operands) if bool(pred) else false_fn(*operands)
