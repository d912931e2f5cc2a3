"""Samples for the counting family (mstorch/ops/counting.py): histc, histogram, bincount, isin."""
import numpy as np

from harness import rand
from .common import OpInfo, S, E

H = np.array([1., 2., 1., 4., 7.5, 2.625, -3., 0.1], np.float32)
H2 = H.reshape(2, 4)
RND = rand(40)
SAME = np.array([2., 2.], np.float32)
EMPTY = np.zeros((0,), np.float32)
NANS = np.array([0., 1., np.nan], np.float32)
EDGES = np.array([0., 1., 3., 8.], np.float32)
W = np.array([.5, 1., 2., 3., 1., 1., 2., .25], np.float32)
IDX = np.array([0, 3, 3, 1, 7], np.int64)
IW = np.array([.5, 1., 2., 3., .25], np.float32)


def _t(a, dtype=None):
    return lambda T: T.tensor(a, dtype=None if dtype is None else getattr(T, dtype))


OPS = [
    OpInfo("histc", grad=False, samples=[
        S(H), S(H, bins=4), S(H, bins=4, min=0, max=3), S(H2, 3), S(RND, 7), S(SAME, 4), S(EMPTY, 4),
        S(NANS, 3, 0, 1), S(_t(H, "float64"), 5), S(_t(H, "float16"), 3), S(_t(H, "bfloat16"), 3),
        S(H, 4, -1, 1),
        E(_t([1, 2]), 4), E(H, 0), E(H, 4, 3, 1), E(NANS, 3), E(H, 3, float("nan")),
        E(_t([1., float("inf")]), 4)]),
    OpInfo("histogramdd", grad=False, method=False, samples=[
        S(rand(20, 2), 3), S(rand(20, 2), [2, 4], weight=rand(20, seed=1, low=0.0, high=1.0)),
        S(rand(20, 3), [2, 3, 2], range=[-1., 1., -2., 2., 0., 1.], density=True), S(rand(4, 5, 2), 3),
        S(rand(20, 2, dtype="float64"), 2), S(rand(10, 2), lambda T: [T.tensor([-2., 0., 2.]), T.tensor([-1., 1.])]),
        S(np.array([[0., 1.], [1., 0.], [2., 0.], [2., 2.]], np.float32), [3, 3], weight=_t([1., 2., 4., 8.])),
        E(rand(20, 2), [2, 3, 4]), E(rand(20, 2), 2, range=[0., 1.]), E(rand(20, 2), [2, 0]),
        E(rand(20, 2), 2, weight=rand(19)), E(rand(20, 2), 2, range=[1., 0., 0., 1.]),
        E(_t([[1, 2]]), 2)]),
    OpInfo("histogram", grad=False, samples=[
        S(H, 4), S(H, bins=4, range=(0., 3.)), S(H, 4, density=True), S(H, _t(EDGES), weight=W),
        S(H, _t(EDGES), density=True), S(_t(H, "float64"), 3), S(H2, 2), S(SAME, 4), S(EMPTY, 4),
        S(RND, 6, weight=rand(40), density=True),
        E(_t([1, 2]), 3), E(H, 3, range=(3., 1.)), E(H, _t(EDGES, "float64")), E(H, 0),
        E(_t(H, "float16"), 2), E(_t([1., float("inf")]), 4), E(H, 4, weight=W[:4]),
        E(H, 4, weight=_t(W, "float64")), E(H, _t([[0., 1.]]))]),
    OpInfo("bincount", grad=False, samples=[
        S(IDX), S(IDX, minlength=10), S(IDX, IW), S(IDX, _t(IW, "float64")), S(IDX, _t([1, 1, 2, 3, 4])),
        S(IDX, _t(IW, "float16")), S(_t([], "int64")), S(_t([], "int64"), IW, minlength=3), S(_t([0, 1, 1], "uint8")), S(_t([2, 0], "int32"), minlength=1),
        E(_t([0, -3])), E(_t([[0, 3]])), E(_t([0., 3.])), E(IDX, IW[:2]), E(IDX, minlength=-1),
        E(_t([True, False]))]),
    OpInfo("isin", grad=False, method=False, samples=[
        S(_t([1, 2, 3, 4]), _t([2, 4, 9])), S(_t([[1, 2], [3, 4]]), _t([2, 4.5])), S(H, 2.), S(2, H),
        S(_t([1, 2, 3]), _t([2]), invert=True), S(_t([1, 2, 3]), _t([2, 3]), assume_unique=True),
        S(NANS, _t([np.nan, 1.])), S(_t([1, 2]), _t([2.], "float16")), S(_t([1, 2]), _t([2.], "bfloat16")),
        S(_t([1, 255], "uint8"), -1), S(_t([1, 2], "uint8"), 1.5), S(H, H2, invert=True),
        E(2, 3), E(_t([True, False]), _t([True])), E(_t([1 + 1j]), _t([1 + 1j]))]),
]
