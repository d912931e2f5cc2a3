"""Regression tests against torch for linalg classes the differential fuzzer found (fourteenth batch, seed 9111):
the regularized incomplete gamma at large a (Cephes' asymptotic series, SciPy's on the host: MindSpore's
kernels drift from a ~ 1e3 and give NaN at 1e30), einsum's int64 sums exact and wrapping, alpha/beta converted
to an integer result type with torch's overflow check (addmv, addmm, baddbmm), nanmean refusing complex input
whatever its dtype=, index_reduce's out-of-range message for a 0-d index, the exponential of a 1x1 float32
matrix in double (accurate near 80, finite up to 88.72; its gradient finite while g exp(a) is), and the double
backward of a half-precision prod through torch's result / input."""


from harness import FUZZ_BACKWARD, cases_as_torch


_BACKWARD = FUZZ_BACKWARD

VALUES = [
    # igamma / igammac at large a near x: torch's (Cephes') asymptotic series, not MindSpore's kernel
    "T.igammac(T.tensor([-0.0, 1e+30, 1.63]), T.tensor([1.0, 1e+30, 1.58]))",
    "T.igammac(T.tensor([1e3, 1e5, 1e7, 1e9], dtype=T.float64), T.tensor([1e3, 1.001e5, 1e7, 1.00003e9], "
    "dtype=T.float64))",
    "T.special.gammainc(T.tensor([1e3, 1e5, 1e7, 1e9], dtype=T.float64), T.tensor([1e3, 1.001e5, 1e7, 1.00003e9], "
    "dtype=T.float64))",
    "T.igamma(T.tensor([1e3, 1e5, 2e5]), T.tensor([1e3, 1e5, 2.001e5]))",
    "x1 = T.tensor([1e3, 1e5, 2.5], requires_grad=True); r = T.igamma(T.tensor([1e3, 1e5, 2.0]), x1); "
    + _BACKWARD + "; out = (r, x1.grad)",
    # einsum's int64 sums: exact, wrapping as torch's
    "T.einsum('ij->j', T.tensor([[-1], [-9223372036854775808], [0], [4]]))",
    "T.einsum('ij->', T.tensor([[-1], [-9223372036854775808], [0], [4]]))",
    "T.einsum('ij->i', T.tensor([[2 ** 60 + 1, 2 ** 62 + 3, 5]]))",
    # addmv with an int alpha of -1 (wraps for uint8, as torch's conversion allows)
    "T.addmv(T.tensor([3, 1], dtype=T.uint8), T.tensor([[2, 7, 0], [9, 3, 6]], dtype=T.uint8), "
    "T.tensor([10, 3, 0], dtype=T.uint8), beta=0, alpha=-1)",
    # the exponential of a 1x1 float32 matrix near overflow, and its gradient
    "x0 = T.tensor([[[80.0]], [[88.7]], [[1.5]]], requires_grad=True); r = T.linalg.matrix_exp(x0); "
    + _BACKWARD + "; out = (r, x0.grad)",
    "x0 = T.tensor([[89.0]], requires_grad=True); r = T.matrix_exp(x0); (r * -0.5).sum().backward(); "
    "out = (r, x0.grad)",
    "x0 = T.tensor([[100.0]], requires_grad=True); r = T.matrix_exp(x0); r.sum().backward(); out = (r, x0.grad)",
    "x0 = T.tensor([[1e30]], requires_grad=True); r = T.linalg.matrix_exp(x0); r.sum().backward(); "
    "out = (r, x0.grad)",
    "x0 = T.tensor([[-inf]], requires_grad=True); r = T.linalg.matrix_exp(x0); r.sum().backward(); "
    "out = (r, x0.grad)",
    # an empty solve_ex, differentiated twice into accumulated gradients (not reproduced at this commit)
    "x0 = T.zeros((0, 0, 0), dtype=T.float64, requires_grad=True); x1 = T.zeros((0, 0, 2), dtype=T.float64, "
    "requires_grad=True); r = T.linalg.solve_ex(x0, x1); g = r[0]; " + _BACKWARD + "; r = T.linalg.solve_ex(x0, x1); "
    "g = r[0]; " + _BACKWARD + "; out = (r, x0.grad, x1.grad)",
]

RAISES = [
    # alpha / beta converted to an integer result type: torch refuses what overflows it (-1.0, 300, -0.5)
    "T.addmv(T.tensor([3, 1], dtype=T.uint8), T.tensor([[2, 7, 0], [9, 3, 6]], dtype=T.uint8), T.tensor([10, 3, 0], "
    "dtype=T.uint8), beta=0.5, alpha=-1.0, out=T.zeros(0, dtype=T.uint8))",
    "T.addmv(T.tensor([1, 5, 1, 6], dtype=T.uint8)[::2], T.tensor([[2, 0], [9, 3]], dtype=T.uint8), "
    "T.tensor([5, 5], dtype=T.uint8), beta=0.5, alpha=-1.0)",
    "T.addmm(T.ones(2, dtype=T.int8), T.ones(2, 2, dtype=T.int8), T.ones(2, 2, dtype=T.int8), alpha=300)",
    "T.baddbmm(T.ones(2, dtype=T.uint8), T.ones(1, 2, 2, dtype=T.uint8), T.ones(1, 2, 2, dtype=T.uint8), beta=-0.5)",
    "T.addbmm(T.ones(2, dtype=T.int32), T.ones(1, 2, 2, dtype=T.int32), T.ones(1, 2, 2, dtype=T.int32), "
    "alpha=1e10)",
    # nanmean: torch's nansum refuses complex input, whatever dtype= asks for (and a complex dtype= of a
    # float input has no kernel)
    "T.tensor([[complex(1.1, -0.54), complex(0.3, -0.44)], [complex(1.0, -0.44), complex(-1.2, -0.44)]])"
    ".nanmean(1, dtype=T.float64)",
    "T.tensor([[1.0, 2.0], [3.0, nan]]).nanmean(1, dtype=T.complex128)",
    # index_reduce with a 0-d index out of range (include_self=False): index_fill_'s message
    "T.index_reduce(T.tensor(4, dtype=T.int32), -1, T.tensor(1), T.tensor(-3, dtype=T.int32), 'amin', "
    "include_self=False)",
]

# half-precision prod: the double backward through torch's result / input, each op in the half type
DOUBLE = [
    "x0 = T.tensor([[-0.918, -0.199, 1.3], [-0.316, 1.625, 0.7], [0.5, 2.5, -1.1], [1.195, 1.25, 0.3]], "
    "dtype=T.float16, requires_grad=True); r = T.prod(x0, 0); (g,) = T.autograd.grad((r * T.linspace(-1, 2, 3)"
    ".to(T.float16)).sum(), x0, create_graph=True); (g * g).sum().backward(); out = (r, g, x0.grad)",
    "x0 = T.tensor([[-0.918, -0.199, 1.3], [-0.316, 1.625, 0.7], [0.5, 2.5, -1.1], [1.195, 1.25, 0.3]], "
    "dtype=T.float16, requires_grad=True); r = T.prod(x0); (g,) = T.autograd.grad(r * 0.75, x0, "
    "create_graph=True); (g * g).sum().backward(); out = (r, g, x0.grad)",
]


test_values_as_torch = cases_as_torch(VALUES, rtol=1e-5, atol=1e-6)
test_raises_as_torch = cases_as_torch(RAISES, raises=True)
test_double_backward_as_torch = cases_as_torch(DOUBLE, rtol=1e-5, atol=1e-6)
