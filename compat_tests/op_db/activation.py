"""Samples for the activation family (mstorch/ops/activation.py): the torch.<name> activations."""
import numpy as np

from harness import rand
from .common import OpInfo, S, E

inf, nan = float("inf"), float("nan")
A = rand(2, 3) * 3
X3 = rand(2, 3, 4, seed=1) * 3
X4 = rand(2, 3, 2, 2, seed=2) * 3
D64 = rand(2, 3, dtype="float64", seed=3) * 3
H = rand(2, 3, dtype="float16", seed=4)
I = rand(2, 3, dtype="int64")
U8 = rand(2, 3, dtype="uint8", low=3, high=5)
BO = rand(2, 3, dtype="bool")
EMPTY = np.zeros((0, 3), dtype=np.float32)
BIG = np.array([[1e4, 0.0, -1e4], [88.0, 89.0, 90.0]], dtype=np.float32)
MASKED = np.array([[0.0, -inf, 1.0], [-inf, -inf, 2.0], [3.0, 1.0, -inf]], dtype=np.float32)
W3 = np.array([0.25, -0.1, 0.5], dtype=np.float32)


# rows that MindSpore's float32 Softmax/LogSoftmax kernels get wrong: NaN, +inf, all -inf (after which its
# Softmax writes nothing more), next to ordinary and partly masked rows
BAD = np.array([[0.0, -inf, 1.0], [nan, 0.0, 1.0], [1.0, inf, 3.0], [-inf, -inf, -inf], [1.0, 2.0, 3.0],
                [inf, inf, 0.0], [nan, nan, nan], [4.0, -1.0, 6.0]], dtype=np.float32)
LONG = rand(5, 37, seed=5) * 4
LONG[1] = -inf                       # an all -inf row, then rows the kernel would leave unwritten
LONG3 = rand(2, 3, 19, seed=6) * 4
LONG3[0, :, 4] = -inf                # an all -inf slice along dim 1
WIDE = rand(3, 300, seed=7) * 8


def _softmax_samples():
    return [
        S(A, 1), S(A, 0), S(A, -1), S(X3, 1), S(X3, -1), S(X4, 2), S(D64, 1), S(D64, 0), S(BIG, 1), S(BIG, 0),
        S(MASKED, 1), S(np.array(2.5, np.float32), 0), S(EMPTY, 1), S(A, 1, dtype=lambda T: T.float64),
        S(I, 1, dtype=lambda T: T.float32), S(A, dim=1), S(BAD, 1), S(BAD, 0), S(BAD.T.copy(), 0),
        S(LONG, 1), S(LONG, 0), S(LONG3, 1), S(LONG3, 2), S(WIDE, 1), S(BAD.astype(np.float64), 1),
        S(np.array(nan, np.float32), 0), S(np.array(-inf, np.float32), 0),
        E(I, 1), E(I, 0), E(A, 2), E(A, -3), E(A, None), E(A, 1.0),
    ]


OPS = [
    OpInfo("relu", samples=[S(A), S(D64), S(H), S(I), S(U8), S(X4), S(EMPTY), S(np.array(-1.5, np.float32)), E(BO)]),
    OpInfo("relu_", samples=[S(A), S(I), E(BO), E(2.0)], grad=False),
    OpInfo("selu", samples=[S(A), S(D64), S(X3), S(np.array([-1e-6, 1e-6, -30.0, 0.0], np.float32)), E(I)]),
    OpInfo("selu", samples=[S(H)], rtol=2e-3, atol=2e-3),
    OpInfo("selu_", samples=[S(A), S(D64), E(I)], grad=False),
    OpInfo("celu", samples=[S(A), S(A, 0.5), S(A, alpha=2.0), S(D64, 1.5), S(np.array([-1e-6, -20.0], np.float32)),
                            E(I), E(A, 0.0)]),
    OpInfo("celu_", samples=[S(A), S(A, 0.5), E(I)], grad=False),
    OpInfo("threshold", samples=[S(A, 0.5, -1.0), S(A, 1, 20), S(I, 1, 20), S(I, 1.5, 20.5), S(D64, 0.0, 0.0),
                                 S(H, 0.1, 2.0), E(BO, 0, 1)]),
    OpInfo("threshold_", samples=[S(A, 0.5, -1.0), S(I, 1, 20)], grad=False),
    OpInfo("hardshrink", samples=[S(A), S(A, 1.5), S(A, lambd=0.1), S(D64, 2.0), S(H), S(A, -1.0), E(I)]),
    OpInfo("prelu", samples=[
        S(A, np.array([0.25], np.float32)), S(A, W3), S(X3, W3), S(X4, W3), S(np.array([-1.0, 2.0], np.float32),
        np.array([0.3], np.float32)), S(np.array(-1.5, np.float32), np.array([0.25], np.float32)),
        S(D64, W3.astype(np.float64)), E(A, W3[:2].copy()), E(A, W3.reshape(3, 1)),
        E(np.array([-1.0, 2.0], np.float32), W3[:2].copy()), E(I, np.array([1])), E(A, 0.25),
    ]),
    # float32: within 1 ulp of torch (MindSpore's exp is ~5e-6 relative off, which the sums average out);
    # the kernels' own errors (softmax 8e-6 relative, log_softmax 4e-6 absolute) fail these tolerances
    OpInfo("softmax", samples=_softmax_samples(), rtol=2e-6, atol=5e-7),
    OpInfo("log_softmax", samples=_softmax_samples(), rtol=1e-6, atol=1e-6),
    # half types compute in float32 and round once (torch rounds some intermediates on non-last dims and
    # its last-dim log_softmax keeps the row sums in the half type, which mstorch follows): 1 half ulp
    OpInfo("softmax", samples=[S(H, 1), S(H, 0), S(LONG.astype(np.float16), 1), S(A, 1, dtype=lambda T: T.float16)],
           rtol=1e-3, atol=1e-4, grad=False),
    OpInfo("log_softmax", samples=[S(H, 1), S(H, 0), S(LONG.astype(np.float16), 1)], rtol=1e-3, atol=1e-4,
           grad=False),
    # their gradients: torch's backward reads the float16 output, mstorch's the float32 one before rounding
    OpInfo("softmax", samples=[S(H, 1), S(A, 1, dtype=lambda T: T.float16)], rtol=2e-3, atol=2e-3),
    OpInfo("log_softmax", samples=[S(H, 1), S(H, 0)], rtol=2e-3, atol=2e-3),
]


def _bf16(arr):
    return lambda T: T.tensor(arr).to(T.bfloat16)


OPS += [
    OpInfo("softmax", samples=[S(_bf16(A), 1), S(_bf16(X3), 0), S(_bf16(LONG), 1), S(A, 1, dtype=lambda T: T.bfloat16)],
           grad=False, rtol=8e-3, atol=1e-3),
    OpInfo("log_softmax", samples=[S(_bf16(A), 1), S(_bf16(X3), 0), S(_bf16(LONG), 1)], grad=False, rtol=8e-3,
           atol=1e-3),
    OpInfo("relu", samples=[S(_bf16(A))], grad=False, rtol=0, atol=0),
    OpInfo("selu", samples=[S(_bf16(A))], grad=False, rtol=2 ** -7, atol=0),
    OpInfo("celu", samples=[S(_bf16(A), 0.5)], grad=False, rtol=2 ** -7, atol=0),
    OpInfo("threshold", samples=[S(_bf16(A), 0.5, -1.0)], grad=False, rtol=0, atol=0),
    OpInfo("hardshrink", samples=[S(_bf16(A))], grad=False, rtol=0, atol=0),
    OpInfo("prelu", samples=[S(_bf16(A), _bf16(W3))], grad=False, rtol=2 ** -7, atol=0),
]
