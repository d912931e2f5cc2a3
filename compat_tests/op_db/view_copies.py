"""Samples for the *_copy twins of view ops (their views' own samples, re-run), the *_scatter ops,
split_with_sizes and triu/tril_indices (mstorch/ops/view_copies.py)."""
import numpy as np

from harness import rand
from .common import OpInfo, S, E

X = rand(3, 4)
X3 = rand(2, 3, 4)
V = rand(8)
C = (rand(3) + 1j * rand(3, seed=1)).astype(np.complex64)


def _t(a):
    return lambda T: T.tensor(a)


COPIES = {
    "alias": [S(X)], "detach": [S(X)], "t": [S(X), E(X3)],
    "as_strided": [S(X, (2, 2), (1, 2)), S(X, (3,), (2,), 1)],
    "diagonal": [S(X), S(X3, 1, 1, 2), E(X, 0, 0, 0)],
    "expand": [S(rand(1, 4), (3, 4)), S(rand(4), (2, 3, 4)), E(X, (2, 4))],
    "narrow": [S(X, 1, 1, 2), E(X, 0, 2, 3)],
    "permute": [S(X3, (2, 0, 1)), E(X3, (0, 1))],
    "select": [S(X, 1, 2), E(X, 0, 5)],
    "slice": [S(V, 0, 1, 7, 2), S(X, 1, None, 3), S(X, 0)],
    "split": [S(V, 3), S(X, 2, 1)],
    "split_with_sizes": [S(V, [3, 5]), E(V, [3, 4])],
    "squeeze": [S(rand(3, 1, 4)), S(rand(3, 1, 4), 1)],
    "transpose": [S(X3, 0, 2), E(X, 0, 3)],
    "unbind": [S(X), S(X3, 2)],
    "unfold": [S(V, 0, 3, 2), E(V, 0, 9, 1)],
    "unsqueeze": [S(X, 1), E(X, 4)],
    "view": [S(X, (2, 6)), S(X, (-1,)), S(X, lambda T: T.int32), E(X, 12), E(X, (5, 2))],
    "view_as_real": [S(_t(C)), E(X)],
    "view_as_complex": [S(rand(3, 2)), E(X)],
}

OPS = [OpInfo(f"{name}_copy", samples=samples, method=False, grad=name not in ("view_as_complex", "detach"))
       for name, samples in COPIES.items()]
OPS += [
    OpInfo("split_with_sizes", samples=[S(V, [3, 5]), S(X, [1, 3], 1), E(V, [3, 4])]),
    OpInfo("select_scatter", samples=[S(X, rand(4), 0, 1), S(X3, rand(2, 4), 1, -1),
                                      E(X, rand(3), 0, 0), E(X, 1., 0, 0)]),
    OpInfo("slice_scatter", samples=[S(V, rand(2), start=6), S(X, rand(3, 2), 1, 0, 4, 2), S(V, rand(8)),
                                     E(V, rand(2), step=0), E(V, rand(3), start=6)]),
    OpInfo("diagonal_scatter", samples=[S(X, rand(3)), S(X, rand(2), 2), S(X3, rand(2, 3), 0, 1, 2),
                                        E(X, rand(4))]),
    OpInfo("as_strided_scatter", samples=[
        S(X, rand(3), (3,), (5,)), S(X, rand(2, 2), (2, 2), (1, 4), 1), S(V, rand(3), (3,), (2,), 1),
        S(lambda T: T.tensor(rand(4, 4)), rand(2, 2), (2, 2), (1, 4)),
        S(lambda T: T.tensor(rand(4, 3))[1:], rand(2), (2,), (1,)),
        E(X, rand(2), (3,), (1,)), E(X, rand(3), (3,), (5,), 3), E(X, rand(3), (3,), (-1,))]),
    # a window reaching past a strided input's elements: values only (torch's derivative reads src's gradient
    # from a contiguous copy of the output's gradient, not through the input's strides)
    OpInfo("as_strided_scatter", grad=False, samples=[S(lambda T: T.tensor(rand(3, 3))[:, :2], rand(2), (2,), (1,), 1)]),
    OpInfo("triu_indices", grad=False, method=False, samples=[
        S(3, 4), S(3, 4, 1), S(4, 3, -1), S(0, 4), S(3, 3, dtype=lambda T: T.int32),
        E(-1, 4), E(3, -4), E(3, 4, dtype=lambda T: T.float32), E(3, 4, dtype=lambda T: T.int16)]),
    OpInfo("tril_indices", grad=False, method=False, samples=[
        S(3, 4), S(3, 4, 1), S(4, 3, -2), S(1, 1), E(-1, 4)]),
]
OPS += [
    OpInfo("detach", method=False, grad=False, samples=[S(X), S(lambda T: T.ones(2, requires_grad=True) * 2)]),
    OpInfo("get_device", grad=False, samples=[S(X), S(lambda T: T.tensor(1))]),
]
