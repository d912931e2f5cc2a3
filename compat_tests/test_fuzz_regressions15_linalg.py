"""Regression tests against torch for linalg classes the differential fuzzer found (issue 18, fifteenth batch,
seeds 9111-9112): the bfloat16 cross product and its gradient (each product and difference rounded to
bfloat16, torch's LinalgCrossBackward0), the half-precision addmm family (accumulated in float32, alpha and
beta applied before the one rounding; addbmm rounded after each batch), the in-place products' shape check
before the kernel's dtype dispatch (addmv_ of bool), solve_ex / inv_ex of an empty batch (MindSpore's
ReduceAny of an empty tensor reads an uninitialised buffer), and multigammaln of a complex input (torch's
arange of the offsets refuses the dtype, even for no element)."""


from harness import FUZZ_BACKWARD, cases_as_torch, messages_as_torch


_BACKWARD = FUZZ_BACKWARD

VALUES = [
    # cross of bfloat16 broadcast operands, backward twice: torch rounds each product and the difference
    "x0 = T.tensor([[0.10009765625, -0.80078125, -0.80078125], [-1.3984375, -0.80078125, -0.30078125], "
    "[0.10009765625, 0.5, -0.400390625], [-1.296875, 0.80078125, -1.3984375], [-0.10009765625, -1.296875, "
    "-1.1015625]], dtype=T.bfloat16, requires_grad=True); x1 = T.tensor([[0.51953125, 0.091796875, 1.171875]], "
    "dtype=T.bfloat16, requires_grad=True); r = T.cross(x0, x1, dim=-1); " + _BACKWARD + "; "
    "r = T.cross(x0, x1, dim=-1); " + _BACKWARD + "; out = (r, x0.grad, x1.grad, r.grad_fn.name())",
    "x0 = T.tensor([[0.10009765625, -0.80078125, -0.80078125], [-1.3984375, -0.80078125, -0.30078125], "
    "[-1.296875, 0.80078125, -1.3984375]], dtype=T.bfloat16, requires_grad=True); x1 = T.tensor([[0.51953125, "
    "0.091796875, 1.171875], [1.7, -2.3, 0.37], [-0.61, 1.33, 2.9]], dtype=T.bfloat16, requires_grad=True); "
    "r = T.linalg.cross(x0, x1); " + _BACKWARD + "; out = (r, x0.grad, x1.grad)",
    "T.cross(T.tensor([[0.10009765625, -0.80078125, -0.80078125], [-1.3984375, -0.80078125, -0.30078125], "
    "[-1.296875, 0.80078125, -1.3984375]], dtype=T.bfloat16), T.tensor([[0.51953125, 0.091796875, 1.171875]], "
    "dtype=T.bfloat16), dim=1)",
    # baddbmm of float16: the products accumulated in float32, alpha applied before the rounding (a sum past
    # the float16 limit scaled back into range stays finite)
    "T.tensor([-0.7001953125, -1.0], dtype=T.float16).baddbmm(T.tensor([[[1.4306640625, 1.7412109375, -0.0], "
    "[-1.591796875, nan, 0.337890625]], [[-1.376953125, -1.74609375, -1.2978515625], [1.033203125, "
    "-0.85009765625, -0.1689453125]], [[1.0703125, 1.2587890625, -65504.0], [0.94091796875, -0.869140625, "
    "0.7998046875]], [[-0.0, -0.298095703125, -65504.0], [-0.0, -0.9228515625, -0.053985595703125]]], "
    "dtype=T.float16), T.tensor([[[0.5, 0.7001953125], [-1.7998046875, -0.5], [1.2001953125, -inf]], "
    "[[1.099609375, -1.2998046875], [-1.7998046875, 0.199951171875], [0.0999755859375, -0.0]], [[0.0, -0.5], "
    "[-1.099609375, 1.099609375], [32752.0, -1.099609375]], [[-1.599609375, 0.0], [-1.0, 1.2001953125], "
    "[-0.0999755859375, 0.39990234375]]], dtype=T.float16), alpha=0.5)",
    "T.addmm(T.tensor([[1.0, -3.0], [0.5, 7.0]], dtype=T.float16), T.tensor([[300.0, 200.0, -1.5], [1.25, 2.5, "
    "3.75]], dtype=T.float16), T.tensor([[200.0, 1.5], [150.0, -2.5], [7.0, 0.1]], dtype=T.float16), beta=0.7, "
    "alpha=0.25)",
    "T.addmm(T.tensor([[1.0, -3.0], [0.5, 7.0]], dtype=T.bfloat16), T.tensor([[1.3, 2.7, -1.5], [1.25, 2.5, "
    "3.77]], dtype=T.bfloat16), T.tensor([[2.3, 1.5], [1.9, -2.5], [7.0, 0.1]], dtype=T.bfloat16), beta=0.7, "
    "alpha=0.3)",
    "T.addmv(T.tensor([1.0, -3.0], dtype=T.float16), T.tensor([[300.0, 200.0, -1.5], [1.25, 2.5, 3.75]], "
    "dtype=T.float16), T.tensor([200.0, 150.0, 7.0], dtype=T.float16), alpha=0.25)",
    # addbmm of half operands: torch adds the batches one addmm_ at a time
    "x0 = T.tensor([[0.3, -1.7], [2.5, 0.9]], dtype=T.float16, requires_grad=True); x1 = T.tensor([[[1.3, 2.7], "
    "[-1.5, 0.25]], [[2.5, 3.77], [0.1, -0.3]], [[1.1, -0.7], [3.3, 0.9]]], dtype=T.float16, requires_grad=True); "
    "x2 = T.tensor([[[2.3, 1.5], [1.9, -2.5]], [[7.0, 0.1], [-0.2, 1.6]], [[0.35, 2.9], [-1.2, 0.6]]], "
    "dtype=T.float16, requires_grad=True); r = T.addbmm(x0, x1, x2, beta=0.5); " + _BACKWARD +
    "; out = (r, x0.grad, x1.grad, x2.grad)",
    "T.addbmm(T.tensor([[0.3, -1.7], [2.5, 0.9]], dtype=T.bfloat16), T.tensor([[[1.3, 2.7], [-1.5, 0.25]], "
    "[[2.5, 3.77], [0.1, -0.3]], [[1.1, -0.7], [3.3, 0.9]]], dtype=T.bfloat16), T.tensor([[[2.3, 1.5], [1.9, "
    "-2.5]], [[7.0, 0.1], [-0.2, 1.6]], [[0.35, 2.9], [-1.2, 0.6]]], dtype=T.bfloat16), alpha=0.7)",
    # an empty batch after a reduction that leaves a set bool in MindSpore's buffers: ReduceAny of an empty
    # tensor reads uninitialised memory, which solve_ex took for a singular matrix
    "T.ones((64, 64), dtype=T.bool).any(); x0 = T.zeros((0, 0, 0), dtype=T.float64, requires_grad=True); "
    "x1 = T.zeros((0, 0, 1), dtype=T.float64, requires_grad=True); r = T.linalg.solve_ex(x0[::2], x1); "
    + _BACKWARD + "; out = (r, x0.grad, x1.grad)",
    "T.ones((64, 64), dtype=T.bool).any(); r = T.linalg.solve_ex(T.zeros((0, 2, 2)), T.zeros((0, 2))); "
    "out = (r, T.linalg.inv_ex(T.zeros((0, 3, 3))), T.linalg.inv(T.zeros((0, 3, 3))))",
]


RAISES = [
    # in-place products whose result is larger than the receiver: torch's shape check comes before the
    # kernel's refusal of bool
    "x = T.tensor([False, True]); out = (x[1:].addmv_(T.tensor([[True, True, True], [False, False, True]]), "
    "T.tensor([True, False, False])), x)",
    "T.zeros(2, 1, dtype=T.bool).addmm_(T.ones(2, 3, dtype=T.bool), T.ones(3, 2, dtype=T.bool))",
    "T.zeros(1, 2, 1, dtype=T.bool).baddbmm_(T.ones(1, 2, 3, dtype=T.bool), T.ones(1, 3, 2, dtype=T.bool))",
    # multigammaln / mvlgamma of complex input: torch's arange of the offsets in that dtype
    "T.special.multigammaln(T.zeros((0,), dtype=T.complex64), 3)",
    "T.mvlgamma(T.ones((2,), dtype=T.complex128), 2)",
]


test_values_as_torch = cases_as_torch(VALUES, rtol=1e-5, atol=1e-6)
test_raises_as_torch = cases_as_torch(RAISES, raises=True)


test_messages_as_torch = messages_as_torch([
    lambda T: T.tensor([False, True])[1:].addmv_(T.tensor([[True, True, True], [False, False, True]]),
                                                  T.tensor([True, False, False])),
    lambda T: T.zeros(2, 1, dtype=T.bool).addmm_(T.ones(2, 3, dtype=T.bool), T.ones(3, 2, dtype=T.bool)),
    lambda T: T.special.multigammaln(T.zeros((0,), dtype=T.complex64), 3),
    lambda T: T.mvlgamma(T.ones((2,), dtype=T.complex128), 2),
])
