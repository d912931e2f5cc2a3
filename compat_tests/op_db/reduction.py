"""Samples for the reduction family (mstorch/ops/reduction.py)."""
import numpy as np

from harness import rand
from .common import OpInfo, S, E, EType

X = rand(3, 4)
X3 = rand(2, 3, 4)
I = rand(3, 4, dtype="int32")
L = rand(3, 4, dtype="int64")
B = rand(3, 4, dtype="bool")
# ties on purpose: torch returns the first occurrence for max/min/argmax/argmin indices
TIES = np.array([[1., 3., 3., 0.], [2., 2., 1., 1.], [0., 0., 0., 0.]], np.float32)
NAN = np.array([[1., np.nan, 2.], [np.nan, np.nan, 3.]], np.float32)
V = rand(5)


def _dim_samples():
    return [S(X), S(X, 1), S(X, -1), S(X, 0, True), S(X3, (0, 2)), S(X3, [-1, 0], keepdim=True),
            S(X, dim=None), S(np.array(2.5, np.float32)), E(X, 2), E(X3, (0, 0))]


def _argminmax(name):
    return OpInfo(name, grad=False, samples=[
        S(X), S(X, 1), S(X, -2, True), S(X, dim=0, keepdim=True), S(TIES), S(TIES, 1), S(TIES, 0),
        S(I, 1), S(np.array(1.5, np.float32)), S(np.array(1.5, np.float32), 0), E(X, 2),
        E(np.zeros((0, 3), np.float32)), S(np.zeros((0, 3), np.float32), 1), S(NAN), S(NAN, 1), S(NAN, 0, True),
        E(B, 0)])


def _minmax(name):
    return OpInfo(name, samples=[
        S(X), S(X, 1), S(X, -1, True), S(X3, dim=1, keepdim=False), S(X, 0, keepdim=True),
        S(TIES, 1), S(TIES, 0), S(I), S(I, 0), S(B, 1), S(np.array(2.0, np.float32)), S(np.array(2.0, np.float32), 0),
        S(X, rand(3, 4, seed=1)), S(X, other=lambda T: T.tensor(rand(4, seed=2))),
        E(X, 2), E(np.zeros((0, 2), np.float32)), S(np.zeros((0, 2), np.float32), 1),
        E(np.zeros((0, 2), np.float32), 0)])


Z = rand(3, 5, seed=3)
Z[0, 1] = 0.0   # a zero: cumprod's gradient divides by nothing
Z[2, 3] = 0.0
Z[2, 4] = 0.0


def _var_samples():
    return [S(X), S(X, 1), S(X3, (0, 2)), S(X, 1, False, True), S(X, False), S(X, dim=0, correction=0),
            S(X, 1, correction=2.5), S(X, dim=None, keepdim=True), S(X.astype(np.float64), 0),
            S(np.ones((1, 3), np.float32), 0), E(I), E(X, 2), E(X, 1, unbiased=True, correction=1)]


def _cum_extreme(name):
    return OpInfo(name, samples=[
        S(X, 1), S(X, 0), S(X3, -1), S(I, 1), S(np.array([1., 3., 3., 2., 3.], np.float32), 0),
        S(np.array([[1., np.nan, 3., np.nan, 2.]], np.float32), 1), S(B, 1), S(np.array(2.0, np.float32), 0),
        S(np.zeros((0, 3), np.float32), 1), E(X, 2)])


OPS = [
    OpInfo("sum", samples=_dim_samples() + [
        S(I), S(I, 1), S(L, 0, True), S(B), S(B, 1), S(X, 1, dtype=lambda T: T.float64),
        S(I, dtype=lambda T: T.float32), S(I, 0, dtype=lambda T: T.int32), S(np.zeros((0, 3), np.float32)),
        S(np.zeros((0, 3), np.float32), 1)]),
    OpInfo("nansum", samples=[
        S(NAN), S(NAN, 1), S(NAN, 0, True), S(X), S(I, 1), S(B), S(NAN, dtype=lambda T: T.float64)]),
    OpInfo("mean", samples=_dim_samples() + [
        S(X, 1, dtype=lambda T: T.float64), S(I, dtype=lambda T: T.float32), E(I), E(I, 0), E(B)]),
    OpInfo("prod", samples=[
        S(X), S(X, 1), S(X, -1, True), S(X3, 1), S(X, dim=0, keepdim=True), S(I), S(I, 1), S(B), S(B, 0),
        S(X, 1, dtype=lambda T: T.float64), S(np.array(3.0, np.float32)), S(np.array(3.0, np.float32), 0),
        E(X, 2), E(X, (0, 1))]),
    _minmax("max"), _minmax("min"),
    OpInfo("amax", samples=[
        S(X), S(X, 1), S(X, -1, True), S(X3, (0, 2)), S(X3, [2, 0], keepdim=True), S(I, 0), S(B, 1),
        S(X, dim=()), S(np.array(2.0, np.float32)), E(X, 2), E(X3, (1, 1)), E(np.zeros((0, 2), np.float32))]),
    OpInfo("amin", samples=[
        S(X), S(X, 1), S(X, -1, True), S(X3, (0, 2)), S(X3, [2, 0], keepdim=True), S(I, 0), S(B, 1),
        S(X, dim=()), S(np.array(2.0, np.float32)), E(X, 2), E(X3, (1, 1)), E(np.zeros((0, 2), np.float32))]),
    _argminmax("argmax"), _argminmax("argmin"),
    OpInfo("all", grad=False, samples=[
        S(B), S(B, 1), S(B, -1, True), S(X), S(I, 0), S(np.zeros((0, 3), np.float32)),
        S(X3, (0, 2)), S(np.array([[1., 0.], [2., 3.]], np.float32), 1), S(np.uint8([[1, 0], [2, 3]]), 0),
        E(B, 2)]),
    OpInfo("any", grad=False, samples=[
        S(B), S(B, 1), S(B, -1, True), S(X), S(I, 0), S(np.zeros((0, 3), np.float32)),
        S(X3, (0, 2)), S(np.array([[1., 0.], [0., 0.]], np.float32), 1), S(np.uint8([[1, 0], [0, 0]]), 0),
        E(B, 2)]),
    OpInfo("nanmean", samples=[
        S(lambda T: T.tensor(NAN)), S(NAN, 1), S(lambda T: T.tensor(NAN), 0, True), S(X, (0, 1)), S(X, 1, dtype=lambda T: T.float64), E(I)]),
    OpInfo("count_nonzero", grad=False, samples=[
        S(np.array([[0., 1., 2.], [0., 0., 3.]], np.float32)), S(np.array([[0., 1., 2.], [0., 0., 3.]], np.float32), 1),
        S(I, (0, 1)), S(B, 0), S(np.zeros((0, 3), np.float32), 0), E(X, 2)]),
    OpInfo("aminmax", samples=[
        S(X), S(X, dim=1), S(X, dim=-1, keepdim=True), S(X, keepdim=True), S(I, dim=0), S(B, dim=1),
        S(np.array(2.0, np.float32)), S(lambda T: T.tensor(NAN), dim=1), E(np.zeros((0, 2), np.float32)),
        E(np.zeros((0, 2), np.float32), dim=0), E(X, dim=2)]),
    OpInfo("var", samples=_var_samples()),
    OpInfo("std", samples=_var_samples()),
    OpInfo("var_mean", method=False, samples=[S(X), S(X, 1, False, True), S(X3, (0, 2), correction=0), E(I)]),
    OpInfo("std_mean", method=False, samples=[S(X), S(X, 1, keepdim=True), S(X, True), S(X3, (0, 2), correction=2),
                                              E(X, 2)]),
    OpInfo("dist", samples=[
        S(X, X[::-1].copy()), S(X, X[0], 3), S(X, X[:, :1], 0.5), S(X, X.astype(np.float64), float("inf")), S(X, X, 1),
        S(X, X[0], 1.5), S(X + 1j * X[::-1], 1j * X), S((X + 1j * X).astype(np.complex128), 1j * X[0], 1), E(I, I), E(X, X[:1, :2]), EType(X, 1.0)]),
    OpInfo("norm", samples=[
        S(X), S(X, 2), S(X, 1), S(X, 3, 1), S(X, float("inf")), S(X, -float("inf"), 0), S(X, 0),
        S(X, 2, 1, True), S(X, "fro"), S(X3, "fro", (0, 2)), S(X3, 2, (0, 1), keepdim=True), S(X, p=1.5, dim=0),
        S(X, dtype=lambda T: T.float64), S(np.zeros((2, 3), np.float32)), S(np.zeros((2, 3), np.float32), 2, 1),
        S(X, "nuc"), S(X3, "nuc", (0, 2), True), S(X + 1j * X[::-1]), S(X - 2j * X, 3, 1), S(np.zeros((0, 3), np.float32), 2, 1),
        S(np.zeros((0, 3), np.float32)), S(np.zeros((0, 3), np.float32), 1, 0), E(X3, "nuc"), E(I), E(X, "abc"), E(X3, "fro", (0, 1, 2)), E(X, 2, 2)],
        rtol=1e-4, atol=1e-5),
    OpInfo("logsumexp", samples=[
        S(X, 1), S(X, 0, True), S(X3, (0, 2)), S(I, 1), S(np.array([[0., -np.inf], [-np.inf, -np.inf]], np.float32), 1),
        S(np.array([[1000., 1001.], [-1000., np.inf]], np.float32), 1), S(np.zeros((0, 2), np.float32), 0),
        E(X, 2)], rtol=1e-4, atol=1e-5),
    OpInfo("cumsum", samples=[
        S(X, 1), S(X, 0), S(X3, -1), S(I, 1), S(L, 1), S(B, 0), S(B, 0, dtype=lambda T: T.int64),
        S(I, 1, dtype=lambda T: T.float32), S(X.astype(np.float64), 1, dtype=lambda T: T.float64),
        S(I, 0, dtype=lambda T: T.int32), S(np.array(2.0, np.float32), 0), S(np.zeros((0, 3), np.float32), 0),
        E(X, 2)]),
    OpInfo("cumprod", samples=[
        S(X, 1), S(X, 0), S(Z, 1), S(Z, 0), S(X3, -1), S(I, 1), S(B, 0), S(B, 0, dtype=lambda T: T.int64),
        S(I, 1, dtype=lambda T: T.float64), S(np.array(2.0, np.float32), 0), S(np.zeros((0, 3), np.float32), 0),
        E(X, 2)]),
    OpInfo("cumsum_", function=False, grad=False, samples=[
        S(X, 1), S(I, 0), S(X, 0, dtype=lambda T: T.float32), S(np.array(2.0, np.float32), 0),
        E(X, 1, dtype=lambda T: T.float64), E(B, 0), E(X, 2)]),
    OpInfo("cumprod_", function=False, grad=False, samples=[
        S(X, 1), S(Z, 0), S(I, 1), E(I, 1, dtype=lambda T: T.int64), E(B, 0)]),
    _cum_extreme("cummax"), _cum_extreme("cummin"),
    OpInfo("logcumsumexp", samples=[
        S(X, 1), S(X, 0), S(X3, -1), S(np.array([[1000., 1001., -np.inf]], np.float32), 1), E(X, 2)],
        rtol=1e-4, atol=1e-5),
    OpInfo("diff", samples=[
        S(X), S(X, 2), S(X, 1, 0), S(X3, 1, -2), S(X, 4), S(X, 0), S(I, 1, 1), S(B),
        S(X, 1, 1, lambda T: T.ones(3, 2), lambda T: T.zeros(3, 1)), S(X, append=lambda T: T.ones(3, 1, dtype=T.float64)),
        E(np.array(1.0, np.float32)), E(X, -1), E(X, 1, 1, lambda T: T.ones(3))]),
]
