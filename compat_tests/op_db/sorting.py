"""Samples for the sorting family (mstorch/ops/sorting.py): sort, topk, order statistics, unique,
searchsorted.

Where torch's index choice among equal values is unspecified (topk, kthvalue, median, mode on large
inputs) the samples have no ties; sort samples with ties check torch's stable order."""
import numpy as np

from harness import rand
from .common import OpInfo, S, E, EType

X = rand(3, 5)
X3 = rand(2, 3, 4)
V = rand(7)
I = rand(3, 5, dtype="int64")
B = rand(3, 5, dtype="bool")
TIES = np.array([[2., 1., 2., 0., 1.], [3., 3., 3., 1., 1.], [0., 5., 0., 5., 0.]], np.float32)
ITIES = TIES.astype(np.int32)
NAN = np.array([[1., np.nan, 0., -np.inf, np.inf, np.nan], [2., 1., 0., -1., 5., 3.]], np.float32)
NAN2 = np.array([[1., np.nan, 3., 2.], [4., 2., 3., 1.], [np.nan, np.nan, 5., 6.]], np.float32)
EMPTY = np.zeros((0, 3), np.float32)
SCALAR = np.array(1.5, np.float32)


def _nan(a):
    """NaN-holding input without gradients (torch's gradient through NaN is not a contract)."""
    return lambda T: T.tensor(a)


PERM = np.array([[4, 0, 3, 1, 2], [9, 7, 8, 5, 6], [1, 2, 0, 4, 3]], np.int64)
# frequent values in each row: the mode is the smallest of the most frequent ones, at its last occurrence
MODE = np.array([[1, 2, 2, 1, 3], [5, 5, 4, 4, 0], [7, 7, 7, 1, 1]], np.int64)
SEQ = np.array([1., 2., 2., 3., 5., 8.], np.float32)
SEQ2 = np.array([[0., 1., 2., 3.], [1., 1., 4., 9.]], np.float32)

OPS = [
    OpInfo("sort", samples=[
        S(X), S(X, 0), S(X, 1, True), S(X3, -2), S(X, dim=0, descending=True), S(TIES), S(TIES, 0),
        S(TIES, descending=True), S(TIES, stable=True), E(TIES, 1, True, True), S(ITIES, 1), S(I, 0, True),
        S(B, 1), S(_nan(NAN)), S(_nan(NAN), descending=True), S(SCALAR), S(EMPTY, 0),
        S(X.astype(np.float64), 1), S(X.astype(np.float16), 1), E(X, 2)]),
    OpInfo("argsort", grad=False, samples=[
        S(X), S(X, 0), S(X, 1, True), S(TIES), S(TIES, descending=True), S(TIES, stable=True, dim=0),
        # too many positional arguments: torch's parser counts them differently in the function and method forms
        S(ITIES, 1, True), S(NAN), S(SCALAR), E(X, 3), EType(X, 0, True, True)]),
    OpInfo("msort", samples=[S(X), S(X3), S(TIES), S(V), S(_nan(NAN))]),
    OpInfo("topk", samples=[
        S(X, 2), S(X, 3, 0), S(X, 1, largest=False), S(X, 2, 1, False, True), S(X3, 2, -2), S(V, 7),
        S(I, 2), S(_nan(NAN), 2), S(_nan(NAN), 3, largest=False), S(X, 0), S(X, 1, sorted=False),
        S(SCALAR, 1), E(X, 6), E(X, -1), E(X, 1, 2)]),
    OpInfo("kthvalue", samples=[
        S(X, 2), S(X, 1, 0), S(X, 3, 0, True), S(X3, 2, -1), S(V, 7), S(PERM, 3), S(PERM, 2, 0), S(_nan(NAN), 6),
        S(SCALAR, 1), E(X, 0), E(X, 6), E(X, 1, 2)]),
    OpInfo("median", samples=[
        S(X), S(V), S(X, 1), S(X, 0, True), S(X3, -1), S(I, 1), S(TIES), S(_nan(NAN2)), S(_nan(NAN2), 1),
        S(np.zeros((0,), np.float32)), S(EMPTY, 1), S(SCALAR), S(SCALAR, 0), E(EMPTY, 0), E(X, 2)]),
    OpInfo("nanmedian", samples=[
        S(X), S(X, 1), S(X, 0, True), S(TIES), S(_nan(NAN2)), S(_nan(NAN2), 1), S(_nan(NAN2), 0),
        S(_nan(np.array([np.nan, np.nan], np.float32))), S(SCALAR), E(EMPTY, 0), E(X, 2)]),
    OpInfo("mode", samples=[
        S(MODE), S(MODE, 1, True), S(MODE.T.copy(), 0), S(X), S(X, 0), S(TIES.astype(np.int64)),
        S(np.array([[1., 2., 1.], [3., 3., 3.]], np.float32), 0), S(SCALAR), S(EMPTY, 1),
        S(np.array([[4.]], np.float32)), E(EMPTY, 0), E(X, 2)]),
    OpInfo("quantile", samples=[
        S(X, 0.3), S(X, 0.5, 1), S(X, 0.25, 0, True), S(X, lambda T: T.tensor([0., 0.4, 1.]), 1),
        S(X3, lambda T: T.tensor([0.1, 0.9]), -1, True), S(X, lambda T: T.tensor(0.7)), S(V, 1.0),
        S(X, 0.4, 1, interpolation="lower"), S(X, 0.4, 1, interpolation="higher"),
        S(X, 0.4, 1, interpolation="midpoint"), S(X, 0.375, 1, interpolation="nearest"),
        S(np.arange(5, dtype=np.float32), lambda T: T.tensor([0.125, 0.375]), interpolation="nearest"),
        S(X.astype(np.float64), 0.6, 0), S(_nan(NAN2), 0.5, 1), S(SCALAR, 0.5),
        E(I, 0.5), E(X, 1.5), E(X, lambda T: T.tensor([0.5], dtype=T.float64)), E(X, 0.5, interpolation="x"),
        E(np.zeros((0,), np.float32), 0.5), E(X, lambda T: T.tensor([[0.5]])), E(X, lambda T: T.tensor([1.5])),
        E(X, 0.5, 2)]),
    OpInfo("nanquantile", samples=[
        S(X, 0.3), S(X, 0.5, 1), S(_nan(NAN2), 0.5, 1), S(_nan(NAN2), lambda T: T.tensor([0.2, 0.8]), 0, True),
        S(_nan(NAN2), 0.3), S(_nan(NAN2), 0.4, 1, interpolation="lower"), E(I, 0.5), E(X, -0.1)]),
    OpInfo("unique", grad=False, samples=[
        S(I), S(I, return_inverse=True), S(I, return_counts=True), S(I, True, True, True), S(TIES, sorted=False),
        S(B, return_counts=True), S(NAN, return_inverse=True, return_counts=True), S(np.array(3, np.int64), True, True, True),
        S(EMPTY, return_inverse=True, return_counts=True),
        S(np.array([[1, 2], [1, 2], [0, 5], [1, 0]], np.int64), dim=0, return_inverse=True, return_counts=True),
        S(np.array([[1, 2, 1], [3, 0, 3]], np.int64), dim=1, return_inverse=True, return_counts=True),
        S(np.array([[[1., 2.]], [[1., 2.]], [[0., 2.]]], np.float32), dim=-3), E(I, dim=2),
        S(EMPTY, dim=0, return_inverse=True, return_counts=True), E(EMPTY, dim=1)]),
    OpInfo("unique_consecutive", grad=False, samples=[
        S(np.array([1, 1, 2, 2, 3, 1, 1, 2], np.int64)), S(I, return_inverse=True, return_counts=True),
        S(np.array([[1, 1], [1, 1], [2, 3], [1, 1]], np.int64), dim=0, return_inverse=True, return_counts=True),
        S(np.array([[1, 1, 2], [1, 1, 3]], np.float32), return_counts=True, dim=1), S(B, return_inverse=True),
        S(np.array(3, np.int64), return_inverse=True), S(EMPTY, return_inverse=True, return_counts=True), E(I, dim=3)]),
    OpInfo("searchsorted", grad=False, samples=[
        S(SEQ, X), S(SEQ, X, right=True), S(SEQ, X, side="right"), S(SEQ, np.array([2., 5.], np.float32), side="left"),
        S(SEQ, 2.0), S(SEQ, 2, right=True), S(SEQ, X, out_int32=True), S(SEQ2, np.array([[1., 2.5], [1., 10.]], np.float32)),
        S(np.array([1, 2, 3], np.int64), np.array([1.5, 2.], np.float32)),
        S(np.array([3., 1., 2.], np.float32), np.array([1.5, 2.5], np.float32), sorter=np.array([1, 2, 0], np.int64)),
        E(SEQ, X, side="left", right=True), E(SEQ, X, side="abc"), E(SEQ2, np.array([1., 2.], np.float32)),
        E(np.array(1., np.float32), X)]),
    OpInfo("bucketize", grad=False, samples=[
        S(X, SEQ), S(X, SEQ, right=True), S(X, SEQ, out_int32=True), S(2.0, SEQ), S(I, SEQ),
        E(X, SEQ2)]),
]
