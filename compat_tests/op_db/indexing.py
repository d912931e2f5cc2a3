"""Samples for the indexing family (mstorch/ops/indexing.py): masked_fill/where, gather/scatter,
index_*, masked_select/scatter, nonzero/argwhere, take. Subscripts (x[...] and x[...] = v) are tested
in test_indexing.py."""
import numpy as np

from harness import rand
from .common import OpInfo, S, E, EType

A = rand(2, 3)
B = rand(2, 3, seed=1)
X = rand(3, 4)
SRC = rand(2, 4, seed=2)
V = rand(5, seed=3)
Z = np.array(1.5, dtype=np.float32)
I = rand(2, 3, dtype="int64")
D64 = rand(2, 3, dtype="float64")
MASK = np.array([[True, False, True], [False, False, True]])
ROWMASK = np.array([True, False, True])
XMASK = np.array([[True, False, True, True], [False, False, False, False], [True, True, False, True]])
IDX = np.array([[0, 2, 1, 0], [2, 1, 0, 1]])              # into dim 0 of X (distinct per column)
IDX1 = np.array([[3, 0], [1, 2], [0, 3]])                  # into dim 1 of X (distinct per row)
DUP = np.array([[0, 0, 1, 0], [0, 2, 1, 0]])               # repeats: for the reductions
IV = np.array([2, 0])
IV32 = np.array([2, 0], dtype=np.int32)
EMPTY_I = np.zeros((0,), np.int64)
BF = lambda T: T.tensor([[1.5, -2.0, 3.25, 0.5], [0.5, 4.0, -1.0, 2.0], [1, 2, 3, 4]], dtype=T.bfloat16)  # noqa
CPLX = lambda T: T.tensor([[1 + 2j, 3 - 1j, 0.5j, 2], [2, -1j, 1 + 1j, 0], [1, 1, 1, 1j]])           # noqa
TX = np.array([1.0, 5.0, 2.0, 0.5], np.float32)          # ties for amax/amin
TI = np.array([1, 1, 0, 2, 3, 3])
TS = np.array([5.0, 5.0, 0.5, 2.0, 0.5, 0.5], np.float32)
TRUE = lambda T: T.tensor(True)   # noqa: E731
ZV = lambda T: T.tensor(-4.0)     # noqa: E731
IPUT = lambda T: (T.tensor([1, 0]), T.tensor([2, 0]))      # noqa: E731
IPUT_DUP = lambda T: (T.tensor([1, 1]), T.tensor([0, 0]))  # noqa: E731
BF_V = lambda T: T.tensor([0.5, 2.0], dtype=T.bfloat16)   # noqa: E731


def _scatter_value(T, x, d, idx, v):
    return T.scatter(x, d, idx, value=v)


OPS = [
    OpInfo("masked_fill", [S(A, MASK, 2.5), S(A, ROWMASK, -1), S(A, MASK, ZV), S(I, MASK, 7), S(I, MASK, 2.5),
                           S(A, TRUE, 0.0), S(D64, MASK, ZV), S(BF, XMASK, 1.0), S(CPLX, XMASK, 1j),
                           S(Z, TRUE, 3.0), S(I, MASK, lambda T: T.tensor(2.5)),
                           E(A, MASK.astype(np.uint8), 1.0), E(A, MASK, lambda T: T.tensor([1.0])),
                           E(A, np.ones((3, 3), bool), 1.0)]),
    OpInfo("masked_fill_", [S(A, MASK, 2.5), S(I, MASK, 7), S(BF, XMASK, 1.0), S(A, ROWMASK, ZV),
                            E(A, MASK.astype(np.uint8), 1.0), E(A, np.ones((3, 3), bool), 1.0)], grad=False),
    OpInfo("where", [S(MASK, A, B), S(MASK, A, 0.0), S(MASK, 1.0, 0), S(MASK, 1, 0), S(MASK, I, 2.5),
                     S(MASK, I, A), S(ROWMASK, A, V[:1].copy()), S(MASK, D64, A), S(TRUE, Z, A),
                     S(MASK), S(ROWMASK), S(np.array(True)), S(np.zeros((2, 0), bool)),
                     E(A, A, B), E(MASK, A, X)]),
    OpInfo("Tensor.where", [S(MASK, A, B), S(MASK, A, 2.0), S(MASK, I, A), S(MASK, A, rand(3, seed=4)), E(MASK, A, rand(3, 2)),
                            E(I, A, B)],
           call=lambda T, c, x, y: x.where(c, y)),
    OpInfo("Tensor.where", [S(MASK, A, -1.5)], call=lambda T, c, x, y: x.where(c, other=y)),
    OpInfo("gather", [S(X, 0, IDX), S(X, 1, IDX1), S(X, -1, IDX1[:, :1].copy()), S(X, 0, IDX[:1, :2].copy()),
                      S(Z, 0, np.array(0)), S(X, 1, np.zeros((3, 0), np.int64)), S(BF, 0, IDX),
                      S(CPLX, 1, IDX1), S(I, 1, np.array([[2, 0], [1, 1]])),
                      S(X, 0, IDX.astype(np.int32)), E(X, 0, np.array([[3]])), E(X, 0, np.array([[-1]])),
                      E(X, 0, np.array([0])), E(X, 1, np.zeros((4, 1), np.int64)), E(X, 2, IDX)]),
    OpInfo("scatter", [S(X, 0, IDX, SRC), S(X, 1, IDX1, rand(3, 2, seed=4)), S(X, 0, IDX, 2.5),
                       S(I, 1, np.array([[2, 0], [1, 1]]), 9),
                       S(BF, 0, IDX, 1.0), S(CPLX, 1, IDX1, 1.0), S(X, 0, IDX.astype(np.int32), 1.0),
                       E(X, 0, IDX, SRC, reduce="max"), E(X, 0, np.array([[3]]), 1.0), E(X, 0, IDX, SRC[:1]),
                       E(X, 0, IDX.astype(np.float32), 1.0)]),
    # torch has no gradient for these (src larger than index, reduce= with src): compare values only
    OpInfo("scatter", [S(X, 0, IDX[:1, :2].copy(), SRC), S(X, 0, EMPTY_I[None], SRC),
                       S(X, 0, IDX, SRC, reduce="add"), S(X, 0, DUP, SRC, reduce="add"),
                       S(X, 0, DUP, SRC, reduce="multiply"), S(X, 0, IDX, 2.0, reduce="add")], grad=False),
    OpInfo("scatter", [S(X, 0, IDX, 2.5), S(X, 1, IDX1, -1.0)], call=_scatter_value),
    OpInfo("scatter_add", [S(X, 0, EMPTY_I[None], SRC), S(X, 0, DUP[:1, :2].copy(), SRC)], grad=False),
    OpInfo("scatter_add", [S(X, 0, IDX, SRC), S(X, 0, DUP, SRC), S(X, 1, IDX1, rand(3, 2, seed=4)),
                           E(I, 0, DUP[:, :3].copy(), I), S(I, 0, DUP[:, :3] % 2, I), S(BF, 0, DUP, BF),
                           E(X, 0, np.array([[3]]), SRC), E(X, 0, IDX, SRC[:1, :2].copy())]),
    OpInfo("scatter_reduce", [S(X, 0, DUP, SRC, "sum"), S(X, 0, DUP, SRC, "sum", include_self=False),
                              S(X, 0, DUP, SRC, "prod"), S(X, 0, DUP, SRC, "prod", include_self=False),
                              S(X, 0, DUP, SRC, "mean"), S(X, 0, DUP, SRC, "mean", include_self=False),
                              S(X, 0, IDX, SRC * 5, "amax"), S(X, 0, IDX, SRC * 5, "amin", include_self=False),
                              S(X, 0, IDX, SRC * 5, "amax", include_self=False), S(X, 0, IDX, SRC * 5, "amin"),
                              S(X, 1, IDX1, rand(3, 2, seed=4), "sum"),
                              E(I, 0, DUP[:, :3].copy(), I, "mean"), E(I, 0, DUP[:, :3].copy(), I, "amax"),
                              S(I, 0, DUP[:, :3] % 2, I, "mean"), S(I, 0, DUP[:, :3] % 2, I, "amax"),
                              E(X, 0, DUP, SRC, "foo"), E(X, 0, np.array([[3]]), SRC, "sum")]),
    # ties: torch spreads the gradient evenly over the elements equal to the max/min
    OpInfo("scatter_reduce", [S(TX, 0, TI, TS, "amax"), S(TX, 0, TI, TS, "amax", include_self=False),
                              S(TX, 0, TI, TS, "amin"), S(TX, 0, TI, TS, "amin", include_self=False)]),
    # torch accepts "max"/"min" here but has no gradient for them
    OpInfo("scatter_reduce", [S(X, 0, IDX, SRC * 5, "max"), S(X, 0, IDX, SRC * 5, "min")], grad=False),
    OpInfo("index_select", [S(X, 0, IV), S(X, 1, np.array([3, 3, 0])), S(X, -1, IV32), S(X, 0, np.array(1)),
                            S(X, 0, EMPTY_I), S(BF, 1, IV), S(CPLX, 0, IV), S(I, 1, IV),
                            E(X, 0, np.array([3])), E(X, 0, np.array([-1])), E(X, 0, np.array([[0]])),
                            E(X, 0, np.array([0.0])), E(X, 2, IV)]),
    OpInfo("index_add", [S(X, 0, IV, SRC), S(X, 1, np.array([1, 1]), rand(3, 2, seed=4)),
                         S(X, 0, IV32, SRC, alpha=2.0), S(I, 0, np.array([1, 1]), I[:2]),
                         S(X, 0, EMPTY_I, SRC[:0]), E(BF, 0, IV, BF), E(CPLX, 1, IV, CPLX),
                         S(BF, 0, np.array([2, 0, 0]), BF), S(CPLX, 1, np.array([3, 0, 1, 1]), CPLX),
                         E(X, 0, IV, SRC[:1]), E(X, 0, IV, rand(2, 3)), E(X, 0, np.array([3, 0]), SRC)]),
    OpInfo("index_copy", [S(X, 0, IV, SRC), S(X, 1, np.array([3, 1]), rand(3, 2, seed=4)),
                          S(X, 0, EMPTY_I, SRC[:0]), S(I, 1, np.array([0]), I[:, :1].copy()), E(BF, 0, IV, BF),
                          S(BF, 0, np.array([2, 0, 1]), BF),
                          E(X, 0, IV32, SRC), E(X, 0, IV, SRC[:1]), E(X, 0, np.array([-1, 0]), SRC),
                          E(X, 0, IV, SRC.astype(np.float64))]),
    OpInfo("index_fill", [S(X, 0, IV, 2.5), S(X, 1, np.array([-1, 0]), -1.0), S(X, 1, IV, ZV), E(I, 0, IV, 7),
                          S(I, 0, np.array([1]), 7),
                          S(X, 0, EMPTY_I, 1.0), S(BF, 1, IV, 0.5), S(CPLX, 0, IV, 1j),
                          E(X, 0, IV32, 1.0), E(X, 1, np.array([4]), 1.0), E(X, 0, np.array([[0]]), 1.0),
                          E(X, 0, IV, lambda T: T.tensor([1.0]))]),
    OpInfo("masked_select", [S(A, MASK), S(A, ROWMASK), S(X, XMASK), S(I, MASK), S(A, np.zeros((2, 3), bool)),
                             S(ROWMASK.astype(np.float32), np.array([[True], [False]])), S(BF, XMASK),
                             S(CPLX, XMASK), E(A, MASK.astype(np.uint8)), E(A, np.ones(4, bool))]),
    OpInfo("index_put", [S(A, IPUT, V[:2]), S(A, IPUT_DUP, V[:2], accumulate=True), S(A, IPUT_DUP, V[:1]),
                         S(A, lambda T: (T.tensor(MASK),), Z), S(X, lambda T: (T.tensor([2, 0]),), SRC[:1]),
                         S(A, lambda T: [T.tensor(ROWMASK[:2])], V[:3], accumulate=True),
                         S(BF, lambda T: (T.tensor([0, 2]), T.tensor([1, 1])), BF_V, accumulate=True),
                         S(I, IPUT, I[0, :2].copy()), E(A, IPUT, D64[0, :2].copy()),
                         E(A, lambda T: (T.tensor([0]),) * 3, V[:1]),
                         # torch's argument messages name the calling form (index_put / index_put_, position
                         # 2 or 3); mstorch gives the in-place form's
                         EType(A, IPUT, 1.0), EType(A, lambda T: T.tensor([0]), V[:1])]),
    OpInfo("masked_scatter", [S(A, MASK, V), S(A, ROWMASK, rand(2, 4, seed=5)), S(X, XMASK, rand(3, 4, seed=6)),
                              S(I, MASK, rand(2, 3, dtype="int64", seed=3)), S(A, np.zeros((2, 3), bool), V),
                              E(A, MASK, V[:2].copy()), E(A, MASK.astype(np.uint8), V), E(A, MASK, I)]),
    OpInfo("nonzero", [S(A), S(MASK), S(I), S(Z), S(np.array(0.0)), S(np.zeros((2, 0))), S(BF), S(CPLX),
                       S(MASK, as_tuple=True), S(Z, as_tuple=True), S(np.array(0), as_tuple=True)]),
    OpInfo("argwhere", [S(MASK), S(I), S(Z), S(np.zeros((0, 3)))]),
    OpInfo("take", [S(X, np.array([0, 5, 11])), S(X, np.array([[-1, -12], [3, 3]])), S(Z, np.array(0)),
                    S(X, EMPTY_I), S(BF, np.array([1, 2])), E(X, np.array([12])), E(X, np.array([-13])),
                    E(X, IV32)]),
    OpInfo("take_along_dim", [S(X, IDX1, 1), S(X, IDX, 0), S(X, np.array([[0], [1], [2]]), 1),
                              S(X, np.array([[2, 0, 1, 1]]), 0), S(X, np.array([0, 5, 11])),
                              S(X, np.array([[1]]), -1),
                              E(X, np.array([0, 1]), 0), E(X, IV32, 0), E(X, np.array([[0, 1]]), 0)]),
]
