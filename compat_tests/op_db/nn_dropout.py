"""Dropout family. Every call seeds both generators first and returns, with the output, a draw made
after it: masks and the generator's position afterwards must equal torch's (mask values exactly;
outputs to rounding)."""
import numpy as np

from harness import rand
from .common import OpInfo, S, E


def seeded(fn):
    def call(T, *args, **kwargs):
        T.manual_seed(2024)
        out = fn(T, *args, **kwargs)
        return out, T.rand(2)
    return call


def functional(name):
    return seeded(lambda T, *a, **k: getattr(T.nn.functional, name)(*a, **k))


def toplevel(name):
    return seeded(lambda T, *a, **k: getattr(T, name)(*a, **k))


def inplace(name):
    def fn(T, x, *a, **k):
        y = x * 1                      # a non-leaf: in-place on a leaf that requires grad is an error
        r = getattr(T.nn.functional, name)(y, *a, inplace=True, **k)
        return r, y, r is y
    return seeded(fn)


def same_object(name):
    def fn(T, x, *a, **k):
        return getattr(T.nn.functional, name)(x, *a, **k) is x
    return fn


_x = rand(6, 7)
_x4 = rand(2, 4, 3, 2)
HALF = lambda T: T.tensor(_x).half()          # noqa: E731
BF16 = lambda T: T.tensor(_x).to(T.bfloat16)  # noqa: E731
LONG = lambda T: T.ones(3, 4, dtype=T.int64)  # noqa: E731

DROPOUT = [S(_x), S(_x, 0.2), S(_x, 0.9, True), S(rand(40), 0.5), S(_x.astype(np.float64), 0.3), S(HALF, 0.3),
           S(BF16, 0.3), S(_x, 1.0), S(_x, 0.0), S(_x, 0.5, False), S(rand(0, 3), 0.5),
           E(_x, 1.5), E(_x, -0.1), E(LONG, 0.5)]
ALPHA = [S(_x, 0.3, True), S(_x, 0.3), S(_x.astype(np.float64), 0.6, True), S(HALF, 0.4, True), S(_x, 1.0, True),
         E(_x, 2.0, True)]
FEATURE_ALPHA = [S(_x4, 0.3, True), S(rand(3, 5), 0.5, True), S(_x4, 0.3, False), E(rand(5), 0.5, True),
                 E(_x4, -1.0, True)]
D1 = [S(rand(2, 5, 3), 0.4), S(rand(5, 3), 0.4), S(rand(5, 3), 0.4, False), E(rand(5), 0.5), E(rand(1, 2, 3, 4), 0.5),
      E(rand(2, 3), 3.0)]
D2 = [S(_x4, 0.4), S(rand(2, 5, 3), 0.3), E(_x4, 1.1)]
D3 = [S(rand(2, 3, 2, 2, 2), 0.4), S(rand(4, 2, 2, 2), 0.6), S(rand(3, 2, 2), 0.5), E(_x4, -0.5)]

OPS = [
    OpInfo("dropout", DROPOUT, call=functional("dropout")),
    OpInfo("dropout", [S(_x, 0.4, True), S(_x, 0.4, False), S(_x, 0.4, train=True)], call=toplevel("dropout")),
    # a 0-d input stays 0-d (tools/fuzz.py)
    OpInfo("dropout", [S(np.array(-1.39, np.float32), 0.5), S(np.array(2.0), 0.3)], call=functional("dropout")),
    OpInfo("dropout", [S(_x, 0.3), S(HALF, 0.5), S(_x, 1.0)], call=inplace("dropout"), grad=False),
    OpInfo("dropout", [S(_x, 0.5, False), S(_x, 0.0)], call=same_object("dropout"), grad=False),
    OpInfo("alpha_dropout", ALPHA, call=functional("alpha_dropout")),
    OpInfo("alpha_dropout", [S(_x, 0.3, True)], call=toplevel("alpha_dropout")),
    OpInfo("alpha_dropout", [S(_x, 0.3, True)], call=inplace("alpha_dropout"), grad=False),
    OpInfo("alpha_dropout", [S(_x, 0.5)], call=same_object("alpha_dropout"), grad=False),
    OpInfo("feature_alpha_dropout", FEATURE_ALPHA, call=functional("feature_alpha_dropout")),
    OpInfo("feature_alpha_dropout", [S(_x4, 0.3, True)], call=toplevel("feature_alpha_dropout")),
    OpInfo("feature_dropout", [S(_x4, 0.3, True), S(rand(3, 4), 0.5, False), E(rand(4), 0.5, True)],
           call=toplevel("feature_dropout")),
    OpInfo("dropout1d", D1, call=functional("dropout1d")),
    OpInfo("dropout1d", [S(rand(5, 3), 0.4), S(rand(2, 5, 3), 0.4)], call=inplace("dropout1d"), grad=False),
    OpInfo("dropout2d", D2, call=functional("dropout2d")),
    OpInfo("dropout2d", [S(_x4, 0.4)], call=inplace("dropout2d"), grad=False),
    OpInfo("dropout3d", D3, call=functional("dropout3d")),
    OpInfo("dropout3d", [S(rand(4, 2, 2, 2), 0.4)], call=inplace("dropout3d"), grad=False),
]
