"""torch.nn.functional losses and distances (mstorch/ops/nn_loss.py): every reduction, class weights,
ignore_index, label smoothing, K-dim inputs, legacy size_average/reduce, gradients of input and target,
and torch's exception types for bad targets."""
import numpy as np

from harness import rand, positive
from .common import OpInfo, S, E

X = rand(4, 5) * 2
T = np.array([0, 4, 2, 1], np.int64)
T_IGN = np.array([0, -100, 2, 3], np.int64)
T_IGN7 = np.array([7, 1, 7, 3], np.int64)
X4 = rand(2, 3, 2, 2, seed=1) * 2
T4 = np.array([[[0, 2], [1, 1]], [[2, 0], [-100, 1]]], np.int64)
X3 = rand(2, 3, 4, seed=2) * 2
T3 = np.array([[0, 2, 1, 1], [2, 0, 0, 1]], np.int64)
X1 = rand(5, seed=3)
PROB = np.abs(rand(4, 5, seed=4)) + 0.1
PROB /= PROB.sum(1, keepdims=True)
P01 = positive(3, 4, seed=5) / 3.1
T01 = np.abs(rand(3, 4, seed=6)) / 2.0
SIGN = np.sign(rand(3, 4, seed=7)).astype(np.float32)
Y = rand(3, 4, seed=8)
Z = rand(3, 4, seed=9)


_LP = rand(6, 3, 5, seed=10) * 2
_LP = _LP - np.log(np.exp(_LP).sum(-1, keepdims=True))
_TG = np.array([[1, 2, 3], [1, 1, 2], [4, 0, 0]], np.int64)

_XL = rand(4, 3, seed=11)
_WL = rand(5, 3, seed=12)
_BL = rand(5, seed=13)


def _w(a):
    """A weight tensor that does not require grad (torch forbids it for most losses)."""
    return lambda T_: T_.tensor(a)


W5 = _w(np.array([0.5, 1.0, 2.0, 0.25, 1.5], np.float32))
W3 = _w(np.array([1.0, 0.5, 2.0], np.float32))


def _lng(a):
    return lambda T_: T_.tensor(a)


def _red(*extra):
    """reduction='mean' | 'sum' | 'none' and the legacy arguments, for a loss called as f(x, y)."""
    return [S(*extra, reduction="sum"), S(*extra, reduction="none"), S(*extra, size_average=False),
            S(*extra, reduce=False), S(*extra, size_average=True, reduce=True), E(*extra, reduction="avg")]


def _half(name, *args, **kw):
    return OpInfo(name, samples=[S(lambda T_: T_.tensor(args[0]).to(T_.float16), *args[1:], **kw),
                                 S(lambda T_: T_.tensor(args[0]).to(T_.bfloat16), *args[1:], **kw)],
                  rtol=1e-2, atol=1e-2, grad=False)


CE = [
    S(X, T), S(X, T, reduction="sum"), S(X, T, reduction="none"), S(X, T, W5), S(X, T, weight=W5, reduction="none"),
    S(X, T_IGN), S(X, T_IGN, reduction="none"), S(X, T_IGN, W5), S(X, T_IGN7, ignore_index=7),
    S(X, T, label_smoothing=0.1), S(X, T_IGN, W5, label_smoothing=0.2), S(X, T_IGN, label_smoothing=0.3, reduction="sum"),
    S(X, T_IGN, W5, label_smoothing=0.25, reduction="none"), S(X, T, label_smoothing=-0.1),
    S(X4, T4), S(X4, T4, reduction="none"), S(X4, T4, W3, label_smoothing=0.1), S(X3, T3), S(X3, T3, reduction="none"),
    S(X1, _lng(np.array(3))), S(X1, _lng(np.array(3)), reduction="none"),
    S(X, PROB), S(X, PROB, reduction="none"), S(X, PROB, W5, reduction="sum"), S(X, PROB, label_smoothing=0.2),
    S(X4, np.abs(X4) / 4), S(X, _lng(T.astype(np.uint8))), S(X.astype(np.float64), T_IGN, label_smoothing=0.1),
    S(X.astype(np.float64), PROB.astype(np.float64)), S(X, PROB.astype(np.float64)),
    S(X, _lng(np.full(4, -100))), S(np.zeros((0, 5), np.float32), _lng(np.zeros(0, np.int64))),
    S(np.zeros((0, 5), np.float32), _lng(np.zeros(0, np.int64)), reduction="none"),
    S(X, T, size_average=False), S(X, T, reduce=False), S(X, T, None, True, -100, True),
    E(X, _lng(np.array([0, 5, 1, 1]))), E(X, _lng(np.array([0, -1, 1, 1]))), E(X, _lng(T.astype(np.int32))),
    E(X, _lng(T[:3].copy())), E(X, T, _w(np.ones(3, np.float32))), E(X, T, label_smoothing=1.5),
    E(X, PROB, ignore_index=1), E(X, _lng(T.astype(np.float32))), E(_lng(np.ones((4, 5), np.int64)), T),
    E(X3, _lng(np.zeros((2, 5), np.int64))), E(X4, _lng(np.zeros((2, 2, 3), np.int64))), E(X, T, reduction="foo"),
    E(X, _lng(T.reshape(2, 2))), E(X, T, weight=lambda T_: T_.ones(5, requires_grad=True)),
]

NLL = [
    S(X, T), S(X, T, reduction="sum"), S(X, T, reduction="none"), S(X, T, W5), S(X, T_IGN, W5, reduction="none"),
    S(X, T_IGN), S(X, T_IGN7, ignore_index=7, reduction="sum"), S(X4, T4), S(X4, T4, W3, reduction="none"),
    S(X3, T3, reduction="sum"), S(X1, _lng(np.array(1))), S(X.astype(np.float64), T_IGN),
    S(X, _lng(np.full(4, -100))), S(X, T, size_average=False),
    E(X, _lng(np.array([0, 5, 1, 1]))), E(X, _lng(T.astype(np.float32))), E(X, _lng(T[:2].copy())),
    E(X, T, _w(np.ones(2, np.float32))), E(_lng(np.ones((4, 5), np.int64)), T), E(X, _lng(T.reshape(2, 2))),
]

BCE = [S(P01, T01), *_red(P01, T01), S(P01, T01, _w(np.array([1.0, 2.0, 0.5, 0.25], np.float32))),
       S(P01, T01, _w(np.array([[1.0], [2.0], [0.5]], np.float32)), reduction="none"),
       S(np.array([0.0, 1.0, 1e-30, 0.5], np.float32), np.array([0.3, 0.6, 1.0, 0.0], np.float32)),
       S(P01.astype(np.float64), T01.astype(np.float64)),
       E(P01 * 3, T01), E(P01, T01[0].copy()), E(P01, _lng(np.ones((3, 4), np.int64))), E(P01, T01.astype(np.float64)),
       E(np.array([np.nan], np.float32), np.array([0.5], np.float32))]

BCEL = [S(Y, T01), *_red(Y, T01), S(Y, T01, _w(np.array([1.0, 2.0, 0.5, 0.25], np.float32))),
        S(Y, T01, pos_weight=_w(np.array([1.0, 3.0, 0.5, 2.0], np.float32)), reduction="none"),
        S(Y, T01, _w(np.array([[2.0], [1.0], [0.5]], np.float32)), pos_weight=_w(np.full(4, 2.0, np.float32))),
        S(Y * 30, T01), S(Y.astype(np.float64), T01.astype(np.float64), reduction="sum"),
        S(Y, T01.astype(np.float64)),
        S(Y.astype(np.float64), T01), E(Y, T01[0].copy()), E(Y, _lng(np.ones((3, 4), np.int64))),
        E(Y, T01, weight=lambda T_: T_.ones(4, requires_grad=True))]

REG = [S(Y, Z), *_red(Y, Z), S(Y.astype(np.float64), Z), S(Y, Z[0].copy())]


def _regression(name, *extra_samples, kernel_errors=True):
    samples = REG + list(extra_samples)
    if kernel_errors:
        samples.append(E(_lng(np.ones((2, 2), np.int64)), _lng(np.ones((2, 2), np.int64))))
    samples.append(E(Y, Z[:2].copy()))
    return OpInfo(name, samples=samples)


_IY = np.array([[-4, 0, 3, 5], [2, -1, 0, 7]])
_ISIGN = np.array([[-1, 1, -1, 2], [1, 1, -1, -1]])

OPS = [
    OpInfo("cross_entropy", samples=CE),
    OpInfo("nll_loss", samples=NLL),
    # (options= and the module: compat_tests/test_api16_batch.py)
    OpInfo("linear_cross_entropy", samples=[
        S(_XL, _WL, _lng(T)), S(_XL, _WL, _lng(T_IGN), reduction="sum", linear_bias=_BL),
        S(_XL, _WL, _lng(T), weight=W5, reduction="none", label_smoothing=0.1), S(_XL, _WL, PROB),
        S(_XL, _WL, _lng(T_IGN7), ignore_index=7), S(_XL[0], _WL, _lng(np.array(2))),
        E(_XL, _WL, PROB, ignore_index=1), E(_XL, _WL[:, :2], _lng(T)), E(X4, _WL, _lng(T))]),
    OpInfo("binary_cross_entropy", samples=BCE),
    OpInfo("binary_cross_entropy_with_logits", samples=BCEL),
    _regression("l1_loss", S(Y, Z, weight=_w(np.abs(Z) + 0.5)), S(Y, Z, reduction="none", weight=_w(np.abs(Z))),
                S(_lng(np.ones((2, 2), np.int64)), _lng(np.zeros((2, 2), np.int64)), reduction="sum"),
                E(Y, Z, weight=_w(np.ones(4, np.float32))), kernel_errors=False),
    _regression("mse_loss", S(Y, Z, weight=_w(np.abs(Z) + 0.5)), S(Y, Z, reduction="sum", weight=_w(np.abs(Z)))),
    _regression("smooth_l1_loss", S(Y, Z, beta=0.5), S(Y, Z, reduction="none", beta=2.0), S(Y, Z, beta=0.0),
                S(np.array([0.0, 0.5, 1.0, 1.5], np.float32), np.zeros(4, np.float32), beta=1.0, reduction="none"),
                E(Y, Z, beta=-1.0)),
    OpInfo("huber_loss", samples=[S(Y, Z), S(Y, Z, "sum"), S(Y, Z, reduction="none", delta=0.3), S(Y, Z, delta=2.0),
                                  S(np.array([0.0, 0.5, 1.0, 1.5], np.float32), np.zeros(4, np.float32), "none", 1.0),
                                  S(Y, Z, weight=_w(np.abs(Z))), E(Y, Z, "avg"),
                                  E(Y, Z, weight=_w(np.ones(4, np.float32)))]),
    OpInfo("kl_div", samples=[S(Y, T01), S(Y, T01, reduction="batchmean"), S(Y, T01, reduction="sum"),
                              S(Y, T01, reduction="none"), S(Y, Z, log_target=True), S(Y, Z, reduction="batchmean", log_target=True),
                              # zeros in the target: torch's target gradient there is NaN (0/0), mstorch's 0
                              S(Y, _w(np.array([[0.0, 0.5, 0.2, 0.3]] * 3, np.float32))), S(Y, T01, size_average=False),
                              S(np.array(0.5, np.float32), np.array(0.3, np.float32), reduction="batchmean"),
                              E(Y, T01, reduction="avg")],
           # a float32 sum of 12 terms of size ~1 that cancel to ~0.02: summation-order ulps, ~1.4e-6
           atol=5e-6),
    OpInfo("poisson_nll_loss", samples=[S(Y, np.abs(Z) * 3), S(np.abs(Y) + 0.1, np.abs(Z) * 3, False),
                                        S(Y, np.array([[0.0, 0.5, 2.0, 3.0]] * 3, np.float32), full=True),
                                        S(Y, np.abs(Z) * 3, full=True, reduction="none"),
                                        S(np.abs(Y) + 0.1, np.abs(Z) * 3, False, True, reduction="sum"),
                                        S(Y, np.abs(Z) * 3, size_average=False), E(Y, Z, reduction="foo")]),
    OpInfo("gaussian_nll_loss", samples=[S(Y, Z, np.abs(T01) + 0.1), S(Y, Z, np.abs(T01[:, :1]) + 0.1, reduction="sum"),
                                         S(Y, Z, np.abs(T01[:, 0]) + 0.1, full=True), S(Y, Z, 0.5),
                                         S(Y, Z, np.abs(T01) * 1e-8, reduction="none"),
                                         S(Y, Z, np.abs(T01) + 0.1, eps=0.3, reduction="none"),
                                         E(Y, Z, -1.0), E(Y, Z, T01 - 1), E(Y, Z, np.abs(T01[:2]) + 1),
                                         E(Y, Z, np.abs(T01) + 0.1, reduction="avg")]),
    OpInfo("margin_ranking_loss", samples=[S(Y[0], Z[0], SIGN[0]), S(Y, Z, SIGN, 0.5, reduction="none"),
                                           S(Y, Z, SIGN, margin=-0.2, reduction="sum"), S(Y[0], Z[0], SIGN[0], size_average=False),
                                           E(Y, Z[0], SIGN), E(Y, Z, SIGN[:2])]),
    OpInfo("hinge_embedding_loss", samples=[S(Y, SIGN), S(Y, SIGN, 0.5, reduction="none"), S(Y, SIGN, margin=2.0, reduction="sum"),
                                            S(Y, np.array([1.0, -1.0, 0.0, 2.0], np.float32)),
                                            # integer input keeps its dtype, the margin truncated (tools/fuzz.py)
                                            S(_IY, _ISIGN, margin=2.5, reduction="none"), S(_IY, _ISIGN, -1.5, reduction="sum"),
                                            E(_IY.astype(np.int16), _ISIGN)]),
    # torch has no derivative for soft_margin_loss's target
    OpInfo("soft_margin_loss", samples=[s.rejects("grad") for s in [S(Y, SIGN), *_red(Y, SIGN), S(Y.astype(np.float64), SIGN)]]),
    OpInfo("multilabel_soft_margin_loss", samples=[S(Y, T01), E(Y, SIGN > 0), S(Y, T01, _w(np.array([1.0, 2.0, 0.5, 0.1], np.float32))),
                                                   S(Y, T01, reduction="none"), S(Y, T01, reduction="sum"),
                                                   S(Y[0], T01[0]), S(Y, T01, size_average=False), E(Y, T01, reduction="x")]),
    OpInfo("cosine_embedding_loss", samples=[S(Y, Z, SIGN[:, 0]), S(Y, Z, SIGN[:, 1], 0.3, reduction="none"),
                                             S(Y[0], Z[0], _lng(np.array(-1.0, np.float32)), margin=0.1),
                                             S(Y, Z, SIGN[:, 2], -0.2, reduction="sum"),
                                             E(Y, Z, SIGN), E(Y[0], Z[0], SIGN[:, 0]), E(Y, Z, _lng(np.array(1.0, np.float32)))]),
    OpInfo("multi_margin_loss", samples=[S(X, T), S(X, T, 2), S(X, T, margin=0.5, reduction="none"),
                                         S(X, T, 1, 1.0, W5), S(X, T, p=2, weight=W5, reduction="sum"), S(X1, _lng(np.array([2]))),
                                         S(np.zeros((2, 3), np.float32), np.array([0, 2], np.int64)),
                                         E(X, T, 3), E(X, _lng(np.array([0, 5, 1, 1]))), E(X, T[:2].copy()),
                                         E(X, T, weight=_w(np.ones((5, 1), np.float32)))]),
    OpInfo("multilabel_margin_loss", samples=[
        S(X, _lng(np.array([[3, 0, -1, 1, 2], [1, 2, 3, 4, 0], [0, -1, 2, 1, 1], [4, 4, -1, 0, 0]]))),
        S(X, _lng(np.array([[3, 0, -1, 1, 2], [-1, 2, 3, 4, 0], [0, 1, 2, 3, 4], [2, 2, -1, 0, 0]])), reduction="none"),
        S(X1, _lng(np.array([4, 1, -1, 0, 0]))), S(X, _lng(np.full((4, 5), -1)), reduction="sum"),
        E(X, _lng(np.zeros((4, 4), np.int64))), E(X, _lng(np.full((4, 5), 5)))]),
    OpInfo("triplet_margin_loss", samples=[S(Y, Z, T01), S(Y, Z, T01, 0.5, 1, reduction="none"), S(Y, Z, T01, swap=True),
                                           S(Y, Z, T01, p=3.0, eps=1e-3, reduction="sum"), S(Y[0], Z[0], T01[0]),
                                           E(Y, Z, T01, margin=0.0), E(Y, Z[0], T01)]),
    OpInfo("pairwise_distance", samples=[S(Y, Z), S(Y, Z, 1.0), S(Y, Z, 3, 1e-3, True), S(Y, Z[0]), S(Y[0], Z[0]),
                                         S(Y, Z, float("inf")), S(Y, Z, 0), S(rand(2, 3, 4), rand(2, 3, 4, seed=3)),
                                         E(Y, Z[:2])]),
    # complex inputs give a real distance (tools/fuzz.py)
    OpInfo("pairwise_distance", samples=[S(Y.astype(np.complex64) * (1 + 2j), Z.astype(np.complex64)),
                                         S(np.array(0.5 + 1j, np.complex64), np.array(0.5 + 3j, np.complex64))], grad=False),
    OpInfo("cosine_similarity", samples=[S(Y, Z), S(Y, Z, 0), S(Y, Z[0], dim=-1), S(rand(2, 3, 4), rand(2, 3, 4, seed=3), 2),
                                         S(Y, np.zeros((3, 4), np.float32)), S(Y, Z, eps=10.0),
                                         S(Y.astype(np.float64), Z), S(Y, _lng(np.ones((3, 4), np.int64))),
                                         E(_lng(np.ones((3, 4), np.int64)), _lng(np.ones((3, 4), np.int64))), E(Y, Z, 2)]),
    OpInfo("ctc_loss", samples=[
        S(_LP, _TG, np.array([6, 5, 4]), np.array([3, 2, 1])), S(_LP, _TG, np.array([6, 5, 4]), np.array([3, 3, 1]), reduction="sum"),
        S(_LP, _TG, np.array([6, 3, 2]), np.array([3, 3, 1]), reduction="none", zero_infinity=True),
        S(_LP, np.array([1, 2, 3, 1, 1, 4]), (6, 4, 6), (3, 2, 1)), S(_LP, _TG, np.array([6, 5, 4]), np.array([0, 2, 1]), blank=4),
        S(_LP[:, 0], _TG[0], np.array(6), np.array(3), reduction="none"), S(_LP.astype(np.float64), _TG.astype(np.float32), (6, 6, 6), (3, 3, 1)),
        S(_LP, _TG, np.array([6, 2, 4]), np.array([3, 3, 1]), reduction="none", zero_infinity=True),
        E(_LP, _TG, np.array([7, 5, 4]), np.array([3, 2, 1])), E(_LP, _TG, np.array([6, 5, 4]), np.array([4, 2, 1])),
        E(_LP, _TG, np.array([6, 5, 4]), np.array([-1, 2, 1])), E(_LP, _TG, np.array([6, 5]), np.array([3, 2, 1])),
        E(_LP, _TG, (6, 5, 4), (3, 2, 1), blank=5), E(_LP, _TG, (6, 5, 4), (3, 2, 1), reduction="x"),
        E(lambda T_: T_.tensor(_LP).half(), _TG, (6, 5, 4), (3, 2, 1))]),
    OpInfo("triplet_margin_with_distance_loss", samples=[
        S(Y, Z, T01), S(Y, Z, T01, margin=0.5, swap=True, reduction="none"),
        S(Y, Z, T01, distance_function=lambda T_: (lambda a, b: 1 - T_.nn.functional.cosine_similarity(a, b)),
          reduction="sum"),
        S(Y, Z, T01, distance_function=lambda T_: T_.nn.PairwiseDistance(p=1.0), swap=True),
        E(Y, Z, T01, margin=0.0), E(Y, Z, T01, reduction="x"), E(Y, Z[0], T01)]),
    _half("cross_entropy", X, T), _half("nll_loss", X, T), _half("binary_cross_entropy_with_logits", Y, T01),
    _half("mse_loss", Y, Z), _half("smooth_l1_loss", Y, Z), _half("soft_margin_loss", Y, SIGN),
    _half("cosine_similarity", Y, Z),
    OpInfo("multi_margin_loss", samples=[E(lambda T_: T_.tensor(X).half(), T), E(lambda T_: T_.tensor(X).bfloat16(), T)]),
    # torch's huber backward refuses a float32 target with a float64 input; the forward promotes
    OpInfo("huber_loss", samples=[S(Y.astype(np.float64), Z)], grad=False),
]
