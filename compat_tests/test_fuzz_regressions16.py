"""Regression tests against torch for classes the differential fuzzer found (issue 18, seed 9113). linspace
(and histogramdd's bin edges) with end points near the float64 limit: the fused multiply-add's error-free
split overflowed to NaN (now the plain formula there, quietly, as torch's kernel). matrix_exp of a batch
whose matrices have very different norms. Each matrix is scaled by its own norm, as torch's;
a shared scaling (the batch's largest norm) took a small matrix beside one with an entry near the float
limit down by 2^-1000 and returned the identity (or lost it to rounding with an entry of 1e300)."""
from harness import FUZZ_BACKWARD, cases_as_torch, messages_as_torch

_BACKWARD = FUZZ_BACKWARD

VALUES = [
    "x0 = T.tensor([[[4.99, -7.61, -0.0], [-3.58, 7.42, -2.22], [-2.71, 0.0, 0.0]], [[-3.85, -0.81, -7.08], "
    "[-0.82, -0.51, -0.92], [-6.46, 2.12, 1.7976931348623157e+308]]], dtype=T.float64, requires_grad=True); "
    "r = T.matrix_exp(x0); " + _BACKWARD + "; out = (r, x0.grad)",
    "x0 = T.tensor([[[4.99, -7.61, -0.0], [-3.58, 7.42, -2.22], [-2.71, 0.0, 0.0]], [[-3.85, -0.81, -7.08], "
    "[-0.82, -0.51, -0.92], [-6.46, 2.12, 1e300]]], dtype=T.float64); out = T.linalg.matrix_exp(x0)[0]",
    "x0 = T.tensor([[[complex(0.5, 1.0), complex(-1.2, 0.1)], [complex(0.3, -0.4), complex(0.9, 0.2)]], "
    "[[complex(60.0, 1.0), complex(-3.0, 2.0)], [complex(2.0, 0.0), complex(35.0, -5.0)]]], dtype=T.complex128); "
    "out = T.matrix_exp(x0)",
]

# float32: torch computes in single precision (its own roundings, ~1e-6 relative of the largest entries)
FLOAT32 = [
    "x0 = T.tensor([[[0.5, -1.2], [0.3, 0.9]], [[40.0, -3.0], [2.0, 35.0]], [[1e-3, 0.0], [0.0, -2e-3]]], "
    "requires_grad=True); r = T.matrix_exp(x0); " + _BACKWARD + "; out = (r, x0.grad)",
]

RANGES = [
    "T.histogramdd(T.tensor([[-1.216, 1.523], [-1.61, -0.774], [1.7976931348623157e+308, -1.7976931348623157e+308], "
    "[1.177, 0.548]], dtype=T.float64), 2)",
    "T.linspace(-1.7976931348623157e308, 1.7976931348623157e308, 5, dtype=T.float64)",
    "T.linspace(-1e305, 1.5e305, 7, dtype=T.float64)",
    "T.linspace(-3e38, 3e38, 4)",
]

# min/max with other= where the broadcast is empty: MindSpore's Minimum/Maximum refuse an empty output
EMPTY = [
    "T.min(T.zeros((0, 1), dtype=T.bool), other=T.tensor([1.5, -0.6, 1.2, -1.8]))",
    "x1 = T.tensor([1.5, -0.6], requires_grad=True); r = T.max(T.zeros((0, 1)), other=x1); r.sum().backward(); "
    "out = (r, x1.grad)",
]

# linear / mm check orders (torch's addmm expands a 1-d bias over the folded rows before refusing bool;
# the matmul route adds a bias of more dims to the product of the input's shape)
MESSAGES = [
    "F.linear(T.ones(3, 2, 4, dtype=T.bool), T.ones(2, 4, dtype=T.bool), T.ones(3, dtype=T.bool))",
    "F.linear(T.ones(3, 2, 4), T.ones(2, 4), T.ones(3))",
    "F.linear(T.ones(2, 3, 2, 4), T.ones(2, 4), T.ones(3))",
    "F.linear(T.ones(3, 2, 4, dtype=T.bool), T.ones(2, 4, dtype=T.bool), T.ones(2, 2, dtype=T.bool))",
    "F.linear(T.ones(3, 2, 4).transpose(0, 1), T.ones(2, 4), T.ones(4, 1, 1, 2))",
    "F.linear(T.tensor([[False, True, True, False], [True, True, False, True]]), T.tensor([[False, False, True, "
    "True], [False, False, False, False], [False, False, False, False]])[1:], T.tensor([[False, False, False, "
    "True], [False, False, False, False]]))",
    "T.mm(T.tensor([[True], [True]]), T.tensor([[True], [False]]), out=T.zeros(0, dtype=T.bool))",
]
LINEAR = [
    "x0 = T.tensor([[[0.5, -1.2, 0.3, 2.0], [1.1, 0.2, -0.7, 0.4]], [[-0.3, 0.8, 1.5, -2.0], [0.9, -1.1, 0.6, 0.1]], "
    "[[1.3, 0.4, -0.2, 0.7], [-0.5, 0.6, 0.2, -1.4]]], requires_grad=True); x1 = T.tensor([[0.3, -0.2, 0.5, 1.0], "
    "[-0.4, 0.7, 0.1, -0.6]], requires_grad=True); x2 = T.tensor([[[0.5, -1.0]], [[2.0, 0.25]]], requires_grad=True); "
    "r = F.linear(x0.transpose(0, 1), x1, x2); " + _BACKWARD + "; out = (r, x0.grad, x1.grad, x2.grad)",
]

test_values = cases_as_torch(VALUES, rtol=1e-6, atol=1e-8)
test_messages = messages_as_torch(MESSAGES)
test_linear = cases_as_torch(LINEAR)
test_empty = cases_as_torch(EMPTY)
test_ranges = cases_as_torch(RANGES, rtol=0, atol=0)
test_float32 = cases_as_torch(FLOAT32, rtol=1e-4, atol=1e-6)
