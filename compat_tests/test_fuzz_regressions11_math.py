"""Regression tests against torch for math classes the differential fuzzer found (issue 18, eleventh batch,
seed 9106): renorm's gradient and subnormal factors, addr's alpha * vec1 * vec2 order, cov of integer
observations, cross's fused multiply-add, zeta's poles at a NaN x, gammaincc's gradient beside a float32 a,
addmv's empty dtype, bilinear without out_features, complex lerp, and the raising backward passes (remainder of
a scalar, logaddexp of a bool operand, addcdiv by an integer tensor, pdist of half input), exception types
and orders (hypot and logaddexp2 of complex, trace of bool, cdist's batch broadcast)."""


from harness import FUZZ_BACKWARD, cases_as_torch


_BACKWARD = FUZZ_BACKWARD

VALUES = [
    # a bool input scaled by beta: torch converts the scalar to bool (0.5 is True)
    "x = T.tensor([False, False, True, False, True]); out = (x.addmv_(T.zeros((5, 0), dtype=T.bool), "
    "T.zeros((0,), dtype=T.bool), beta=0.5, alpha=-1.0), x)",
    "T.addmv(T.tensor([False, True]), T.zeros((2, 0), dtype=T.bool), T.zeros(0, dtype=T.bool), beta=0.25)",
    "T.addmv(T.tensor([False, True]), T.zeros((2, 0), dtype=T.bool), T.zeros(0, dtype=T.bool), beta=0.0)",
    # renorm: no NaN gradient from the subnormal-factor branch nor from g * maxnorm overflowing at a huge row
    "x0 = T.tensor([[1.452, 0.0, -0.091], [1.474, -0.701, -0.627]], requires_grad=True); "
    "r = T.renorm(x0, 1, 1, 0.5); " + _BACKWARD + "; out = (r, x0.grad)",
    "x0 = T.tensor([[1.673, -0.964, -0.575]], requires_grad=True); r = T.renorm(x0, 1, 1, 0.5); " + _BACKWARD +
    "; r = T.renorm(x0, 1, 1, 0.5); " + _BACKWARD + "; out = (r, x0.grad)",
    "x0 = T.tensor([[-3.3895313892515355e+38, 0.1943359375, -0.94921875], [1.3671875, -0.53125, "
    "0.0030059814453125]], dtype=T.bfloat16, requires_grad=True); r = T.renorm(x0, 2, 0, 100.0); " + _BACKWARD +
    "; out = (r, x0.grad)",
    "x0 = T.tensor([[1.452, 0.0, -0.091], [1.474, -0.701, -0.627]], dtype=T.float64, requires_grad=True); "
    "r = T.renorm(x0, 2, 0, 0.5); " + _BACKWARD + "; out = (r, x0.grad)",
    "x0 = T.tensor([[3.0e38, 1.0, -2.0], [0.3, -0.1, 0.2]], requires_grad=True); r = T.renorm(x0, 2, 0, 0.5); "
    + _BACKWARD + "; out = (r, x0.grad)",
    "T.renorm(T.tensor([[1.452, 0.0, -0.091], [1.474, -0.701, -0.627]]).to(T.bfloat16), 2, 0, 1.0)",
    # a complex row whose factor is subnormal is scaled as torch's, not flushed to 0
    "T.tensor([[[complex(3.4028234663852886e+38, 0.85), complex(0.3, 0.84)], [complex(0.8, 0.12), "
    "complex(0.7, 1.17)]], [[complex(1.61, -2.58), complex(-2.119, -0.41)], [complex(-0.84, -1.99), "
    "complex(-2.316, -2.06)]]]).renorm(1, 1, 0.5)",
    # addr: alpha * vec1 first, each product rounded (2 * -3.4e38 overflows)
    "T.addr(T.tensor([-1.81, -0.56, -1.33, -2.28])[::2], T.tensor([-3.4028235e+38, -0.76, inf]), "
    "T.tensor([-0.03, -1.78]), beta=0.5, alpha=2.0)",
    "T.addr(T.tensor([-0.260009765625, -0.04998779296875, -1.669921875, 65504.0], dtype=T.float16), "
    "T.tensor([65504.0, 2.80078125, -0.68994140625, -1.900390625, -0.0, -1.900390625], dtype=T.float16)[::2], "
    "T.tensor([-0.8701171875, 32752.0, -0.47998046875, -0.0], dtype=T.float16), beta=0.5, alpha=2.0)",
    "T.addr(T.tensor([[1, 2], [3, 4]]), T.tensor([1, 2]), T.tensor([True, False]), alpha=2)",
    "x1 = T.tensor([1.5, -2.0], requires_grad=True); r = T.addr(T.zeros(2, 3), x1, T.tensor([0.5, 1.0, -1.0]), "
    "alpha=3.0); " + _BACKWARD + "; out = (r, x1.grad)",
    # cov of integer observations: torch's sums promote with the weights (float16 weights: a float16 result)
    "T.tensor([[5, 1, 0, -4], [7, 4, 2, -1]], dtype=T.int32).cov(aweights=T.tensor([1., 2, 3, 1]).half())",
    "T.tensor([[5, 1, 0, -4], [7, 4, 2, -1]], dtype=T.int32).cov(fweights=T.tensor([1, 2, 3, 1]))",
    "T.tensor([[5, 1, 0, -4], [7, 4, 2, -1]], dtype=T.int32).cov()",
    # cross: torch's float32 kernel is fma(p, q, -(r * s)); a subnormal factor is not flushed
    "x0 = T.tensor([[-3.4028235e+38, 0.3], [0.0, -0.5], [-3.4028235e+38, 3.4028235e+38]], requires_grad=True); "
    "x1 = T.tensor([[-1.2, -0.67], [0.45, 0.27], [-inf, -0.12]], requires_grad=True); r = T.cross(x0, x1); "
    + _BACKWARD + "; out = (r, x0.grad, x1.grad)",
    "T.cross(T.tensor([[inf], [-1.2], [-1.6]]).expand(3, 4), T.tensor([[-0.997, -1e-45, nan], [3.4028235e+38, "
    "-0.843, 0.974], [0.621, -1.683, -1.305], [-0.919, -1.685, 1e-45]]).t())",
    "x0 = T.tensor([[-0.0, -0.2, 0.4], [-1.8, -1.7, -0.0], [inf, 0.8, -1.4], [1.2, 0.1, inf]], requires_grad=True); "
    "x1 = T.tensor([[-1.9], [-0.9], [-1.6], [1e-45]], requires_grad=True); r = T.cross(x0, x1.expand(4, 3), dim=1); "
    + _BACKWARD + "; out = (r, x0.grad, x1.grad)",
    "x0 = T.tensor([[1.5, -2.0, 0.25], [3.0, 0.5, -1.0]], dtype=T.float64, requires_grad=True); "
    "x1 = T.tensor([[0.5, 1.0, 2.0]], dtype=T.float64, requires_grad=True); r = T.linalg.cross(x0, x1); "
    + _BACKWARD + "; out = (r, x0.grad, x1.grad)",
    # zeta: Cephes tests x == 1 and x < 1 before the pole, so a NaN x at a pole of q is inf
    "T.special.zeta(T.tensor([[3.4, 4.4, 2.5], [4.4, nan, 3.0]]), T.tensor([[3.27, 3.64, 2.12], [2.62, 0.0, 0.0]]))",
    "T.special.zeta(T.tensor([nan, nan, nan, 1.0, 0.5, inf, 2.0, -inf]), "
    "T.tensor([-1.0, -1.5, 1.0, 0.0, -2.0, 0.0, -inf, 0.0]))",
    # addmv of an empty matrix keeps the input's dtype
    "T.addmv(T.zeros((0,), dtype=T.int16), T.zeros((0, 3), dtype=T.int16), T.tensor([-1, -32768, 0], dtype=T.int16))",
    # bilinear with no out_features
    "T.bilinear(T.tensor([[-1, 3], [0, 2]], dtype=T.int16), T.tensor([[2, 4], [3, -1]], dtype=T.int16), "
    "T.zeros((0, 2, 2), dtype=T.int16), T.tensor([2], dtype=T.int16)[1:])",
    "F.bilinear(T.tensor([[[0.5, -1.0, 0.25], [1.0, 2.0, -0.5]]]), T.tensor([[[1.0, 0.5, 0.0], [0.0, 1.0, 2.0]]]), "
    "T.zeros((0, 3, 3)))",
    "x0 = T.tensor([[0.5, -1.0, 0.25], [1.0, 2.0, -0.5]], requires_grad=True); "
    "r = F.bilinear(x0, T.tensor([[1.0, 0.5], [0.0, 1.0]]), T.zeros((0, 3, 2)), T.zeros(0)); r.sum().backward(); "
    "out = (r, x0.grad)",
    # lerp of complex tensors (with out=, with gradients)
    "T.lerp(T.tensor([complex(1, 1), complex(2, -1), complex(0, 0.5)]), T.tensor([complex(3, 0), complex(0, 1), "
    "complex(2, 0)]), T.tensor([complex(0.3, 0.1), complex(0, 0.7), complex(0.4, -0.3)]), "
    "out=T.zeros(0, dtype=T.complex64))",
    "x0 = T.tensor([complex(1, 1), complex(2, -1), complex(0, 0.5)], requires_grad=True); "
    "x2 = T.tensor([complex(0.3, 0.1), complex(0, 0.7), complex(0.4, -0.3)], requires_grad=True); "
    "r = T.lerp(x0, T.tensor([complex(3, 0), complex(0, 1), complex(2, 0)]), x2); r.abs().sum().backward(); "
    "out = (r, x0.grad, x2.grad)",
    # pdist's float32 gradient through its own recording
    "x0 = T.tensor([[0.5, -1.0], [1.5, 2.0], [-0.5, 0.25]], requires_grad=True); r = T.pdist(x0); "
    + _BACKWARD + "; out = (r, x0.grad)",
    "x0 = T.zeros(3, 0, requires_grad=True); r = T.pdist(x0); r.sum().backward(); out = (r, x0.grad)",
]

# half types, compared at the fuzzer's bfloat16 tolerance (torch's backward rounds each step in the half type)
HALF = [
    "x0 = T.tensor([[1.5, 0.25], [-0.5, 2.0]], dtype=T.float16, requires_grad=True); r = T.renorm(x0, 2, 1, 1.0); "
    + _BACKWARD + "; out = (r, x0.grad)",
    "x0 = T.tensor([[-3.3895313892515355e+38, 0.1943359375, -0.94921875], [1.3671875, -0.53125, "
    "0.0030059814453125]], dtype=T.bfloat16, requires_grad=True); r = T.renorm(x0, 2, 1, 0.5); " + _BACKWARD +
    "; out = (r, x0.grad)",
]

# compared to double precision: these differed at float32's precision in a float64 result
PRECISE = [
    "T.tensor([[5, 1, 0, -4, 2147483647, 0], [2147483647, 4, 2147483647, -1, -2147483648, -3], [1, -2147483648, "
    "2147483647, -2147483648, 1, 1]], dtype=T.int32).cov(correction=0, fweights=T.tensor([1, 2, 3, 1, 1, 2]), "
    "aweights=T.tensor([1.7964342832565308, 0.7307616472244263, 1.6603353023529053, 0.17922358214855194, "
    "0.3045476973056793, 1.2305989265441895], dtype=T.float64))",
    # gammaincc's gradient takes lgamma of a as given (float32 beside a float64 x; an integer a: float32); the
    # values themselves are MindSpore's kernel's, within ~1e-8 in float64 (docs/known-differences.md)
    "x1 = T.tensor([2.3, 0.0, 0.0], dtype=T.float64, requires_grad=True); t0 = T.tensor([0.5, 2.0, 3.0]); "
    "r = T.special.gammaincc(t0, x1); " + _BACKWARD + "; out = x1.grad",
    "x1 = T.tensor([2.3, 0.5, 1.0], dtype=T.float64, requires_grad=True); r = T.special.gammainc(T.tensor([1, 2, 3]), "
    "x1); r.sum().backward(); out = x1.grad",
    "x1 = T.tensor([2.3, 0.5, 1.0], dtype=T.float64, requires_grad=True); r = T.special.gammaincc("
    "T.tensor([0.5, 2.0, 3.0], dtype=T.float16), x1); r.sum().backward(); out = x1.grad",
    "x1 = T.tensor([2.3, 0.5, 1.0], dtype=T.float64, requires_grad=True); r = T.special.gammaincc("
    "T.tensor([0.5, 2.0, 3.0], dtype=T.float64), x1); r.sum().backward(); out = x1.grad",
]

RAISES = [
    # remainder(Scalar, Tensor) has no derivative
    "x1 = T.tensor([[-3.080078125, 1.2900390625, -0.449951171875], [1.6904296875, 0.04998779296875, 1.330078125]], "
    "dtype=T.float16, requires_grad=True); r = T.remainder(5, x1); " + _BACKWARD + "; out = (r, x1.grad)",
    # logaddexp/logaddexp2's derivatives subtract the operands: a bool one refuses
    "x0 = T.tensor([[-1.83, -0.53], [-1.19, -1.01], [-1.15, -0.89]], requires_grad=True); "
    "r = T.logaddexp2(x0, T.tensor([[False], [True], [False]]).expand(3, 2)); " + _BACKWARD + "; out = (r, x0.grad)",
    "x0 = T.tensor([-1.83, 0.5], requires_grad=True); r = T.logaddexp(T.tensor([False, True]), x0); "
    "r.sum().backward(); out = (r, x0.grad)",
    # out= refuses the complex result type before the kernel refuses complex
    "T.logaddexp2(T.tensor([[True, True, False], [True, False, False]]), T.tensor([[complex(-0.379, 1.98), "
    "complex(2.849, 1.73), complex(-2.463, -1.11)], [complex(0.1, -0.96), complex(0.0, -0.02), complex(-0.4, -0.93)], "
    "[complex(1.4, 1.15), complex(0.9, 1.44), complex(1.6, 1.29)]])[1:], out=T.zeros(0, dtype=T.bool))",
    "T.logaddexp2(T.tensor([True]), T.tensor([complex(1, 1)]), out=T.zeros(0))",
    # addcdiv's derivative for tensor1 forms value / tensor2 in tensor2's integer dtype
    "x1 = T.tensor([[[1.2, 1.8], [-0.2, 1.8]], [[-3.1, -3.0], [2.8, 3.8]], [[3.2, 2.1], [-0.7, -3.1]]], "
    "dtype=T.float64, requires_grad=True); r = T.addcdiv(T.tensor([[[-2, 3, -2], [1, 1, -3]], [[-3, -3, -4], "
    "[-3, -4, -2]]], dtype=T.int8), x1.permute(2, 1, 0), T.tensor([[[-5, 0, -4], [-2, 4, 2]], [[3, 1, -4], "
    "[2, -5, 4]]], dtype=T.int8)); " + _BACKWARD + "; out = (r, x1.grad)",
    "x1 = T.tensor([1.0, 2.0], requires_grad=True); r = T.addcdiv(T.tensor([1.0, 2.0]), x1, T.tensor([True, False])); "
    "r.sum().backward(); out = (r, x1.grad)",
    # hypot has no complex kernel, not even for an empty result
    "T.zeros((3, 0, 2), dtype=T.complex64).hypot(T.zeros((3, 0, 2), dtype=T.complex64))",
    # pdist's backward has no half kernel, not even for an empty result
    "x0 = T.tensor([[-0.0]], dtype=T.float16, requires_grad=True); r = T.pdist(x0, p=inf); " + _BACKWARD +
    "; out = (r, x0.grad)",
    "x0 = T.zeros(3, 0, dtype=T.bfloat16, requires_grad=True); r = T.pdist(x0); r.sum().backward(); "
    "out = (r, x0.grad)",
    # trace: the dtype before the rank
    "T.tensor([[[False, False, False], [True, True, False], [True, False, True]], [[True, True, False], "
    "[True, False, True], [True, True, True]]])[1:].trace()",
    # cdist: the batch broadcast before the half kernel's refusal
    "T.cdist(T.zeros(4, 1, 4, dtype=T.bfloat16), T.zeros(5, 2, 4, dtype=T.bfloat16))",
]


test_values_as_torch = cases_as_torch(VALUES, rtol=1e-5, atol=1e-6)
test_half_as_torch = cases_as_torch(HALF, rtol=2e-2, atol=1e-2)


test_double_precision_as_torch = cases_as_torch(PRECISE, rtol=1e-10, atol=0)
test_raises_as_torch = cases_as_torch(RAISES, raises=True)
