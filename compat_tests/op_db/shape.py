"""Samples for the shape family (mstorch/ops/shape.py): views, joins, splits, flips, repeats, diagonals.
View semantics (writes through a view reaching its base) are tested in test_indexing.py."""
import numpy as np

from harness import rand
from .common import OpInfo, S, E, EType

A = rand(2, 3)
B = rand(2, 3, seed=1)
C = rand(4, 3, seed=2)
X = rand(2, 3, 4)
Q = rand(3, 3, seed=3)
V = rand(4, seed=4)
V3 = rand(3, seed=5)
Z = np.array(1.5, dtype=np.float32)
ONE = rand(1, 3, 1)
I = rand(2, 3, dtype="int64")
I32 = rand(2, 3, dtype="int32", seed=1)
BO = rand(2, 3, dtype="bool")
D64 = rand(2, 3, dtype="float64")
H = rand(2, 3, dtype="float16")
EMPTY = np.zeros((0,), np.float32)
E03 = np.zeros((0, 3), np.float32)
BF = lambda T: T.tensor([[1.5, -2.0, 3.25], [0.5, 4.0, -1.0]], dtype=T.bfloat16)   # noqa: E731
CPLX = lambda T: T.tensor([[1 + 2j, 3 - 1j, 0.5j], [2, -1j, 1 + 1j]])            # noqa: E731


def _view_call(T, x, *shape):
    return x.view(*shape)


OPS = [
    OpInfo("view", [S(A, 6), S(A, -1), S(A, 3, 2), S(A, (3, -1)), S(A, [1, 6]), S(X, 2, -1, 2), S(Z, 1),
                    S(Z, -1), S(Z, ()), S(E03, -1, 3), S(I, 6), S(BO, 3, 2), S(ONE, 3),
                    S(A, lambda T: T.int32), S(I, lambda T: T.float64), S(A, lambda T: T.int16),
                    E(A, 4), E(A, -1, -1), E(A, 2, -2), E(A, 1.5), E(np.zeros((0,), np.float32), -1, 0),
                    E(lambda T: T.tensor(X).transpose(0, 1), -1)]),
    OpInfo("reshape", [S(A, (6,)), S(A, (3, -1)), S(X, (4, 6)), S(Z, (1, 1)), S(I, [-1]),
                       S(lambda T: T.tensor(X).transpose(0, 2), (-1,)), S(lambda T: T.tensor(X)[:, 1], (4, 2)),
                       E(A, (4, 2)), E(A, (-1, -1))]),
    OpInfo("reshape", [S(A, 6), S(A, 3, -1), E(Z), E(A, 4)], function=False),
    OpInfo("_shape_as_tensor", [S(A), S(X), S(Z), S(EMPTY), S(I), E([1])]),
    OpInfo("_reshape_from_tensor", [S(X, np.array([4, 6])), S(A, np.array([-1])), S(Z, np.array([1, 1])),
                                    E(X, np.array([4, 5])), E(X, [4, 6])]),
    OpInfo("view_as", [S(A, C[:3, :2].copy()), S(X, np.zeros((6, 4), np.float32)), E(A, C)]),
    OpInfo("reshape_as", [S(A, C[:3, :2].copy()), S(lambda T: T.tensor(X).transpose(0, 2), np.zeros((24,))),
                          E(A, C)]),
    OpInfo("permute", [S(X, (2, 0, 1)), S(X, [1, 2, 0]), S(X, (-1, 0, 1)), S(A, (1, 0)), S(Z, ()), S(I, (1, 0)),
                       E(X, (0, 1)), E(X, (0, 0, 1)), E(X, (0, 1, 3))]),
    OpInfo("permute", [S(X, 1, 2, 0), S(A, 1, 0), E(A, 0, 0)], function=False),
    OpInfo("transpose", [S(X, 0, 2), S(X, -1, 1), S(A, 1, 1), S(Z, 0, -1), S(BO, 0, 1), E(A, 0, 2)]),
    OpInfo("transpose", [S(X, 0, 2), E(A, 0, 2)], call=lambda T, x, a, b: T.swapaxes(x, a, b)),
    OpInfo("transpose", [S(X, 1, 2)], call=lambda T, x, a, b: x.swapdims(a, b)),
    OpInfo("t", [S(A), S(V), S(Z), S(I), E(X)]),
    OpInfo("unsqueeze", [S(A, 0), S(A, 2), S(A, -1), S(A, -3), S(Z, 0), E(A, 3), E(A, -4)]),
    OpInfo("squeeze", [S(ONE), S(ONE, 0), S(ONE, 1), S(ONE, (0, 2)), S(ONE, -1), S(Z), S(Z, 0), S(A, 0),
                       S(A), E(ONE, 3), E(ONE, (0, 5))]),
    OpInfo("flatten", [S(X), S(X, 1), S(X, 0, 1), S(X, -2, -1), S(Z), S(A, 1, 1), E(X, 2, 1), E(X, 0, 3)]),
    OpInfo("unflatten", [S(A, 1, (3, 1)), S(X, 2, (2, 2)), S(X, -1, (-1, 2)), S(A, 0, [2]),
                         E(A, 1, (2, 2)), E(A, 1, (-1, -1)), E(A, 2, (3, 1))]),
    OpInfo("clone", [S(A), S(I), S(BO), S(Z), S(BF), S(CPLX), S(E03)]),
    OpInfo("expand", [S(A, 4, 2, 3), S(A, -1, 3), S(ONE, 2, 3, 4), S(ONE, (2, -1, 3)), S(Z, 2, 2),
                      S(I, 2, 2, 3), E(A, 3), E(A, 3, 3), E(A, -1, 2, 3), E(A, 4, 3, 3)]),
    OpInfo("expand_as", [S(ONE, X[:, :, :1].copy()), S(V3, A), E(A, V3)]),
    OpInfo("broadcast_to", [S(ONE, (2, 3, 5)), S(V3, (2, 3)), S(A, (2, -1)), E(A, (3, 3)), E(A, (3,))]),
    OpInfo("broadcast_tensors", [S(A, V3), E(ONE, A, Z), S(ONE, A[:, None], Z), S(A), E(A, C)]),
    OpInfo("cat", [S([A, B]), S([A, B], 1), S([A, C], 0), S([A, B], -1), S([A, B, A]),
                   S([A, I]), S([I, BO]), S([A, D64]), S([H, A]), S([A, EMPTY]), S([EMPTY, EMPTY]),
                   S([E03, A]), S([A]), S(lambda T: [BF(T), BF(T)]), S(lambda T: [BF(T), BF(T)], 1),
                   S(lambda T: [BF(T), T.tensor(A)]),
                   E([A, C], 1), E([A, X]), E([Z, Z]), E([]), E([A, B], 2)]),
    OpInfo("cat", [S([A, B], 1), E([A, C], 1)], call=lambda T, ts, *a: T.concat(ts, *a)),
    OpInfo("cat", [S([A, B], 1)], call=lambda T, ts, *a: T.concatenate(ts, *a)),
    OpInfo("cat", [S([A, B])], call=lambda T, ts: T.cat(ts, out=T.zeros(1)), grad=False),
    OpInfo("stack", [S([A, B]), S([A, B], 1), S([A, B], 2), S([A, B], -1), S([Z, Z]), S([A, I]), S([V3]),
                     S(lambda T: [BF(T), BF(T)]), S(lambda T: [BF(T), BF(T)], 2), S(lambda T: [BF(T)], -1),
                     S(lambda T: [BF(T), T.tensor(A)]), E([A, C]), E([]), E([A, B], 3)]),
    # bfloat16 (no CPU Stack kernel): exact, and differentiable back to the float32 inputs
    OpInfo("stack", [S(A, B, 0), S(A, B, 1), S(V3, V3, -1)],
           call=lambda T, a, b, d: T.stack([a.bfloat16(), b.bfloat16()], d).float()),
    OpInfo("cat", [S(A, B, 0), S(A, B, 1)], call=lambda T, a, b, d: T.cat([a.bfloat16(), b.bfloat16()], d).float()),
    OpInfo("hstack", [S([A, B]), S([V3, V]), S([Z, V3]), S([X, X]), E([])]),
    OpInfo("vstack", [S([A, B]), S([V3, V3]), S([Z, Z]), S([A, V3]), E([A, V])]),
    OpInfo("vstack", [S([A, B])], call=lambda T, ts: T.row_stack(ts)),
    OpInfo("dstack", [S([A, B]), S([V3, V3]), S([Z, Z]), S([X, X])]),
    OpInfo("column_stack", [S([V3, V3]), S([A.T.copy(), V3]), S([Z, Z]), E([V3, V])]),
    OpInfo("atleast_1d", [S(Z), S(A), S(Z, A)], method=False),
    OpInfo("atleast_1d", [S([Z, V3])], call=lambda T, ts: T.atleast_1d(ts)),
    OpInfo("atleast_2d", [S(Z), S(V3), S(X), S(Z, V3)], method=False),
    OpInfo("atleast_3d", [S(Z), S(V3), S(A), S(X), S(V3, A)], method=False),
    OpInfo("split", [S(C, 2), S(C, 3), S(C, 1, 1), S(C, [1, 3]), S(C, [1, 1, 2], 0), S(X, 2, -1),
                     S(EMPTY, 2), S(C, (4, 0)),
                     E(C, 0), E(C, -1), E(C, [1, 1]), E(C, 2, 2)]),
    OpInfo("unsafe_split", [S(C, 2), S(C, 3, 1), E(C, [1, 3]), E(Z, 1), E(C, -1)]),
    OpInfo("chunk", [S(C, 2), S(C, 3), S(C, 5), S(C, 2, 1), S(V, 3), S(EMPTY, 3), S(E03, 2),
                     E(C, 0), E(Z, 1)]),
    OpInfo("unbind", [S(A), S(A, 1), S(X, -1), E(A, 2), E(Z)]),
    OpInfo("narrow", [S(C, 0, 1, 2), S(C, 1, -2, 2), S(C, -1, 0, 0), S(C, 0, 4, 0),
                      S(C, 0, lambda T: T.tensor(1), 2),
                      E(C, 0, 5, 0), E(C, 0, 2, 3), E(C, 0, -5, 1), E(C, 0, 1, -1), E(Z, 0, 0, 1)]),
    OpInfo("select", [S(A, 0, 1), S(A, 1, -1), S(X, 2, 3), S(V, 0, 0), E(A, 0, 2), E(A, 2, 0), E(Z, 0, 0)]),
    OpInfo("tensor_split", [S(C, 3), S(C, 2, 1), S(C, [1, 3]), S(C, (1, -1), 1), S(C, [3, 1]), S(V, 5),
                            S(C, lambda T: T.tensor([1, 2])), S(C, lambda T: T.tensor(2), 1),
                            E(C, 0), E(Z, 2), E(C, lambda T: T.tensor([1.0])),
                            E(C, lambda T: T.tensor([[1]]))]),
    OpInfo("hsplit", [S(C, 3), S(C, [1, 2]), S(V, 2), E(C, 2), E(Z, 1)]),
    OpInfo("vsplit", [S(C, 2), S(C, [1]), E(V, 2), E(C, 3)]),
    OpInfo("dsplit", [S(X, 2), S(X, [1, 3]), E(A, 1), E(X, 3)]),
    OpInfo("movedim", [S(X, 0, 2), S(X, -1, 0), S(X, (0, 1), (2, 0)), S(A, 1, 0), S(Z, 0, 0),
                       E(X, (0, 1), (0,)), E(X, (0, 0), (1, 2)), E(X, 0, 3)]),
    OpInfo("movedim", [S(X, 0, -1)], call=lambda T, x, a, b: T.moveaxis(x, a, b)),
    OpInfo("repeat", [S(A, 2, 1), S(A, (1, 2)), S(A, 2, 1, 2), S(V3, 2), S(Z, 2, 3), S(A, 0, 1), S(I, 2, 2),
                      S(BO, 1, 2), S(BF, 2, 1), E(A, 2), E(A, -1, 2)]),
    OpInfo("tile", [S(A, (2,)), S(A, (2, 1)), S(A, (2, 1, 2)), S(Z, (3,)), S(I, [2])]),
    OpInfo("repeat_interleave", [S(A, 2), S(A, 2, 0), S(A, 3, 1), S(A, lambda T: T.tensor([1, 0, 2]), 1),
                                 S(A, lambda T: T.tensor([2]), 0), S(Z, 3), S(I, 2, -1), S(BO, 2, 1),
                                 S(A, lambda T: T.tensor([1, 2]), 0, output_size=3),
                                 E(A, -1), E(A, lambda T: T.tensor([1, 2]), 1),
                                 E(A, lambda T: T.tensor([1, -1]), 0)]),
    OpInfo("repeat_interleave", [S(np.array([1, 0, 3]))], method=False, grad=False),
    OpInfo("flip", [S(X, (0,)), S(X, (0, 2)), S(X, [-1]), S(A, ()), S(I, (0, 1)), S(BO, (1,)),
                    S(BF, (0,)), S(CPLX, (1,)), S(E03, (0,)), E(A, (0, 0)), E(A, (2,))]),
    OpInfo("flip", [S(X, 1), S(X, 0, 2), E(A, 0, 0)], function=False),
    OpInfo("fliplr", [S(A), S(X), S(I), E(V)]),
    OpInfo("flipud", [S(A), S(V), S(BO), E(Z)]),
    OpInfo("roll", [S(V, 1), S(V, -1), S(A, 1), S(A, 2, 1), S(A, (1, -1), (0, 1)), S(X, 5, -1), S(A, 0, 0),
                    S(I, 1, 0), S(BF, 1, 1), E(A, (1, 2), 0), E(A, 1, (0, 1)), E(A, 1, 2)]),
    OpInfo("rot90", [S(A), S(A, 2), S(A, 3), S(A, -1), S(A, 4), S(X, 1, (1, 2)), S(X, 1, (2, 0)), S(I, 1),
                     E(V), E(A, 1, (0, 0)), E(X, 1, (0, 1, 2))]),
    OpInfo("triu", [S(Q), S(Q, 1), S(Q, -1), S(A, 1), S(X, 0), S(I), S(BO, 1), S(BF), S(CPLX, 1), S(Q, 5),
                    E(V)]),
    OpInfo("tril", [S(Q), S(Q, 1), S(Q, -2), S(A.T.copy()), S(X, -1), S(I), S(BO), S(BF, -1), S(CPLX),
                    E(V)]),
    OpInfo("triu_", [S(Q), S(Q, 1), S(X, 0), S(I), S(BF, -1), E(V)], grad=False),
    OpInfo("tril_", [S(Q), S(Q, -2), S(X, -1), S(BO), S(CPLX), E(V)], grad=False),
    OpInfo("diag", [S(V3), S(V3, 1), S(V3, -2), S(Q), S(Q, 1), S(A, -1), S(A, 5), S(I), S(BO), S(CPLX),
                    E(X)]),
    OpInfo("diagonal", [S(Q), S(Q, 1), S(Q, -1), S(A, 1), S(X, 0, 0, 2), S(X, -1, 2, 1), S(X, 0, -1, 0),
                        S(I, 0), E(X, 0, 1, 1), E(V)]),
    OpInfo("diag_embed", [S(V3), S(A), S(A, 1), S(A, -1, 0, 2), S(A, 0, 1, 0), S(I), S(BO), E(A, 0, 0, 0)]),
    OpInfo("meshgrid", [S(V3, V, indexing="ij"), S(V3, V, indexing="xy"), S(V3, V, V3, indexing="xy"),
                        # torch prints the offending tensor with its C++ printer
                        S(Z, V3, indexing="ij"), S(V, indexing="xy"), EType(A, V, indexing="ij"),
                        E(V3, np.arange(3), indexing="ij"), E(V3, V, indexing="yx")], method=False),
    OpInfo("meshgrid", [S([V3, V])], call=lambda T, ts: T.meshgrid(ts, indexing="ij")),
    OpInfo("cartesian_prod", [S(V3, V), S(V3), S(V3, V, V3), S(np.arange(3), np.arange(2)), E(A, V)],
           method=False),
]

# Tensor.unfold: sliding windows (a view: the in-place write through it is in test_complex_views.py)
OPS.append(OpInfo("unfold", function=False, samples=[
    S(rand(10), 0, 3, 2), S(X, 2, 2, 1), S(X, -2, 3, 3), S(X, 0, 1, 1), S(rand(10), 0, 0, 1),
    S(lambda T: T.tensor(1.5), 0, 1, 1), S(lambda T: T.arange(12).reshape(3, 4), 1, 2, 2),
    E(rand(10), 0, 11, 2), E(rand(10), 0, 3, 0), E(rand(10), 1, 3, 1), E(rand(10), 0, -1, 1),
    E(lambda T: T.tensor(1.5), 0, 2, 1)]))
