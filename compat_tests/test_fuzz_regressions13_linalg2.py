"""Regression tests against torch for linalg classes the differential fuzzer found (issue 18, thirteenth batch,
seed 9109): prod's gradient for a half-precision product taken in order (torch's result / input: NaN where
the product is NaN), the gradient of a 0-d scalar beside a half tensor in mul/div (each op of torch's backward
rounded to the half type), addr's gradient scaled by alpha after the product's sum, the gradient of inverse /
inv_ex at extreme entries (torch's -inv^H g inv^H), solve of a matrix with an entry near the float limit
(LAPACK's elimination, no error), kron(out=) of a permuted operand (written through out, no view refused),
the empty bool einsum contraction and convolution (zeros before any kernel or dtype check), and trapezoid
over no samples (before the bool check) with torch's messages."""


from harness import FUZZ_BACKWARD, cases_as_torch


_BACKWARD = FUZZ_BACKWARD

VALUES = [
    # det of singular complex matrices: torch's first-order LU formula of A^H (MindSpore's gradient misses conjugates)
    "x0 = T.tensor([[1, 2j, 3], [2, 4j, 6], [1j, 1, 2]], dtype=T.complex128, requires_grad=True); "
    "d = T.linalg.det(x0); (d.real * 0.7 + d.imag * 1.3).backward(); out = (d, x0.grad)",
    "x0 = T.tensor([[[1, 2j], [2, 4j]], [[1 + 1j, 2], [3j, 4]]], dtype=T.complex128, requires_grad=True); "
    "d = T.det(x0); (d.real * 0.7 + d.imag * 1.3).sum().backward(); out = (d, x0.grad)",
    # prod of bfloat16/float16 in order: torch's grad * (result / input), NaN everywhere for a NaN product
    "x0 = T.tensor([[-0.91796875, -0.19921875], [-0.31640625, 1.625], [nan, nan], [1.1953125, 1.25], "
    "[-1.2734375, -0.95703125]], dtype=T.bfloat16, requires_grad=True); r = T.prod(x0, dim=0, keepdim=True); "
    + _BACKWARD + "; out = (r, x0.grad)",
    "x0 = T.tensor([[-0.918, -0.199], [-0.316, 1.625], [0.0, 2.5], [1.195, 1.25], [-1.273, -0.957]], "
    "dtype=T.bfloat16, requires_grad=True); r = T.prod(x0, dim=0); (r * T.tensor([1.5, -0.7], "
    "dtype=T.bfloat16)).sum().backward(); out = (r, x0.grad, r.grad_fn.name())",
    "x0 = T.tensor([[-0.918, -0.199], [-0.316, 1.625], [0.0, 2.5], [1.195, 0.0], [-1.273, -0.957]], "
    "dtype=T.float16, requires_grad=True); r = T.prod(x0); r.backward(); out = (r, x0.grad, r.grad_fn.name())",
    "x0 = T.tensor([[-0.918, -0.199], [-0.316, 1.625], [0.0, 2.5], [1.195, 3.0], [-1.273, -0.957]], "
    "dtype=T.float16, requires_grad=True); r = T.prod(x0); r.backward(); out = (r, x0.grad)",
    # a float32 0-d scalar beside a bfloat16 tensor: torch's -grad * ((a / s) / s), each op rounded
    "x0 = T.tensor([[1.0, -0.6015625, 0.69921875, -0.5], [-0.6015625, 0.30078125, 0.8984375, 0.400390625], "
    "[-0.10009765625, 0.6015625, -0.5, -1.1015625]], dtype=T.bfloat16, requires_grad=True); "
    "x1 = T.tensor(2.33, requires_grad=True); r = T.divide(x0, x1); " + _BACKWARD + "; out = (r, x0.grad, x1.grad)",
    "x0 = T.tensor([[1.0, -0.6015625, 0.69921875, -0.5], [-0.6015625, 0.30078125, 0.8984375, 0.400390625]], "
    "dtype=T.float16, requires_grad=True); x1 = T.tensor(0.0, dtype=T.float64, requires_grad=True); r = x0 / x1; "
    + _BACKWARD + "; out = (r, x0.grad, x1.grad, r.grad_fn.name())",
    # mul: the scalar's gradient sums grad * a rounded to the half type per element
    "x0 = T.tensor([[0.8984375, -0.6015625, 0.69921875, 1.3984375], [-0.80078125, 0.30078125, 0.8984375, 0.5], "
    "[1.1015625, 0.400390625, -0.1, 0.80078125], [0.400390625, 1.0, -0.30078125, -0.71]], dtype=T.bfloat16, "
    "requires_grad=True); x1 = T.tensor(-2.63, requires_grad=True); r = T.mul(x0, x1); "
    "(r * T.tensor([[0.37, -1.21, 0.93, 1.77], [-0.41, 1.13, 0.29, -1.9], [1.31, -0.77, 0.53, 0.11], "
    "[-1.49, 0.61, 1.03, -0.23]]).to(T.bfloat16)).sum().backward(); out = (r, x0.grad, x1.grad, r.grad_fn.name())",
    # addr: alpha multiplies the gradient after the product's sum (finite where alpha * vec1 overflows)
    "x0 = T.tensor([-0.023, -1.719, -1.292], requires_grad=True); x1 = T.tensor([-3.4028235e+38, -0.6], "
    "requires_grad=True); x2 = T.tensor([-inf, -0.0, nan], requires_grad=True); r = T.addr(x0, x1, x2, beta=0.5, "
    "alpha=2.0); " + _BACKWARD + "; out = (r, x0.grad, x1.grad, x2.grad)",
    "x1 = T.tensor([1+2j, -0.6j], requires_grad=True); x2 = T.tensor([-1.5, 3j, 2.0+1j], requires_grad=True); "
    "r = T.addr(T.zeros(2, 3, dtype=T.complex64), x1, x2, alpha=2-1j); (r * T.tensor([[1, 2j, 3], [1j, 1, -1]]))"
    ".sum().abs().backward(); out = (r, x1.grad, x2.grad)",
    "x1 = T.tensor([1.5, -0.6], dtype=T.bfloat16, requires_grad=True); x2 = T.tensor([-1.5, 3.3, 2.1], "
    "dtype=T.bfloat16, requires_grad=True); r = T.addr(T.zeros(2, 3, dtype=T.bfloat16), x1, x2, alpha=2); "
    "(r * T.tensor([[1, 2, 3], [1, 1, -1]])).sum().backward(); out = (r, x1.grad, x2.grad)",
    # inv_ex / inv at extreme entries: torch's -inv^H (g inv^H)
    "x0 = T.tensor([[[[2.493, 0.269], [-0.763, 2.49]], [[1e+30, 0.405], [4.871, -0.509]]], [[[1.083, 0.591], "
    "[-1.7976931348623157e+308, 1e+30]], [[1.621, 2.756], [5.895, 0.708]]]], dtype=T.float64, requires_grad=True); "
    "r = T.linalg.inv_ex(x0); " + _BACKWARD + "; out = (r, x0.grad)",
    "x0 = T.tensor([[[1.083, 0.591], [-1.7976931348623157e+308, 1e+30]], [[1.621, 2.756], [5.895, 0.708]]], "
    "dtype=T.float64, requires_grad=True); r = T.linalg.inv(x0); " + _BACKWARD + "; out = (r, x0.grad, "
    "r.grad_fn.name())",
    # solve of a matrix with an entry near the float limit: LAPACK's elimination carries on (inf results)
    "x0 = T.tensor([[[[4.85, 5.49], [1.17, 3.69]], [[-1.18, -0.0], [1.7976931348623157e+308, 5.84]]]], "
    "dtype=T.float64, requires_grad=True); x1 = T.tensor([[[[0.34], [0.81]], [[1.76], [1.66]]]], dtype=T.float64, "
    "requires_grad=True); r = T.linalg.solve_ex(x0, x1); " + _BACKWARD + "; out = (r, x0.grad, x1.grad)",
    "x0 = T.tensor([[[4.85, 5.49], [1.17, 3.69]], [[-1.18, -0.0], [3.4e38, 5.84]]]); x1 = T.tensor([[[0.34], "
    "[0.81]], [[1.76], [1.66]]]); out = (T.linalg.solve(x0, x1), T.linalg.solve_ex(x0.mT, x1))",
    # kron(out=): written through out, never the functional form's view of the product
    "T.kron(T.tensor([[-1.6098655, -1.4474733], [1.0449989, -0.67421377], [-1.0122482, -1.6680018]]).t(), "
    "T.tensor([-1.2789212, -1.922099, -0.1471259, 0.8997357]), out=T.zeros(0))",
    # einsum with an empty operand in a contraction: zeros in the second operand's dtype, bool included
    "T.einsum('ij,jk', T.zeros((0, 2), dtype=T.bool).t(), T.zeros((0, 2), dtype=T.bool))",
    "T.einsum('bij,bjk->bik', T.zeros((2, 3, 0), dtype=T.bool), T.zeros((2, 0, 2), dtype=T.bool))",
    "T.einsum('ij,jk', T.zeros((0, 2), dtype=T.bool), T.ones((2, 3), dtype=T.bool))",
    "T.einsum('ij,jk', T.zeros((3, 0), dtype=T.uint8), T.zeros((0, 2), dtype=T.int8))",
    "T.einsum('ij,jk->k', T.zeros((2, 0), dtype=T.int32), T.zeros((0, 2), dtype=T.bool))",
    "T.einsum('ij,jk', T.zeros((0, 2), dtype=T.float64), T.zeros((2, 2), dtype=T.float32))",
    # convolutions of an empty input: zeros before the kernel's dtype check
    "T.conv1d(T.zeros((0, 0, 2), dtype=T.bool), T.zeros((1, 0, 1), dtype=T.bool), T.tensor([True, False])[::2], "
    "padding=1)",
    "T.conv1d(T.zeros((2, 0, 2), dtype=T.bool), T.zeros((3, 0, 1), dtype=T.bool))",
    "T.conv2d(T.zeros((0, 1, 2, 2), dtype=T.bool), T.zeros((3, 1, 1, 1), dtype=T.bool))",
    "T.conv1d(T.zeros((0, 1, 2), dtype=T.int32), T.zeros((1, 1, 1), dtype=T.int32), dilation=2)",
    "T.conv_transpose1d(T.zeros((0, 1, 2), dtype=T.bool), T.zeros((1, 1, 1), dtype=T.bool))",
    "T.conv3d(T.zeros((0, 1, 2, 2, 2), dtype=T.bool), T.zeros((1, 1, 1, 1, 1), dtype=T.bool))",
    # trapezoid over no samples: zeros before the bool check (and before x's)
    "T.trapezoid(T.zeros((2, 0), dtype=T.bool)[1:])",
    "T.trapezoid(T.zeros((1, 0), dtype=T.bool), T.zeros(3))",
    "T.trapz(T.zeros((1, 0), dtype=T.bool), T.zeros(0))",
]

RAISES = [
    "T.einsum('ij,jk', T.ones((3, 2), dtype=T.bool), T.ones((2, 3), dtype=T.bool))",
    "T.einsum('ij,jk', T.zeros((3, 2), dtype=T.float64), T.zeros((2, 2), dtype=T.float32))",
    "T.conv1d(T.ones((1, 1, 2), dtype=T.bool), T.ones((1, 1, 1), dtype=T.bool))",
    "T.kron(T.tensor([[-1.6098655, -1.4474733], [1.0449989, -0.67421377], [-1.0122482, -1.6680018]]).t(), "
    "T.tensor([-1.2789212, -1.922099, -0.1471259, 0.8997357]))",
    "T.cumulative_trapezoid(T.zeros((1, 0), dtype=T.bool))",
]


# create_graph through the new nodes (their backward is made of recorded ops)
DOUBLE = [
    "x0 = T.tensor([[1.0, -0.6015625, 0.69921875], [-0.6015625, 0.30078125, 0.8984375]], dtype=T.bfloat16, "
    "requires_grad=True); x1 = T.tensor(2.33, requires_grad=True); r = T.mul(x0, x1); (g0, g1) = "
    "T.autograd.grad((r * T.linspace(-1, 2, 6).reshape(2, 3).to(T.bfloat16)).sum(), (x0, x1), "
    "create_graph=True); (g0.sum() + g1).backward(); out = (r, g0, g1, x0.grad, x1.grad)",
    "x0 = T.tensor([[1.0, -0.6015625, 0.69921875], [-0.6015625, 0.30078125, 0.8984375]], dtype=T.bfloat16, "
    "requires_grad=True); x1 = T.tensor(2.33, requires_grad=True); r = T.div(x0, x1); (g0, g1) = "
    "T.autograd.grad((r * T.linspace(-1, 2, 6).reshape(2, 3).to(T.bfloat16)).sum(), (x0, x1), "
    "create_graph=True); (g0.sum() + g1).backward(); out = (r, g0, g1, x0.grad, x1.grad)",
    "x0 = T.tensor([[-0.023, -1.719, -1.292]], dtype=T.float64, requires_grad=True); x1 = T.tensor([-3.4, -0.6], "
    "dtype=T.float64, requires_grad=True); x2 = T.tensor([-1.5, -0.0, 2.0], dtype=T.float64, requires_grad=True); "
    "r = T.addr(x0, x1, x2, beta=0.5, alpha=-1.5); (g0, g1, g2) = T.autograd.grad((r * r).sum(), (x0, x1, x2), "
    "create_graph=True); (g1.sum() + (g2 * g2).sum()).backward(); out = (r, g1, g2, x1.grad, x2.grad)",
    "x0 = T.tensor([[[1.083, 0.591], [-1.7976931348623157e+308, 1e+30]], [[1.621, 2.756], [5.895, 0.708]]], "
    "dtype=T.float64, requires_grad=True); r = T.linalg.inv(x0); (g,) = T.autograd.grad((r * r).sum(), x0, "
    "create_graph=True); g.sum().backward(); out = (r, g, x0.grad)",
    "x0 = T.tensor([[[1., 2.], [2., 4.]], [[1., 0.], [0., 2.]]], dtype=T.float64, requires_grad=True); "
    "r = T.linalg.inv_ex(x0)[0]; (g,) = T.autograd.grad((r * T.tensor([[1., 2.], [3., 4.]], "
    "dtype=T.float64)).sum(), x0, create_graph=True); g.sum().backward(); out = (r, g, x0.grad)",
]


test_values_as_torch = cases_as_torch(VALUES, rtol=1e-5, atol=1e-6)
test_raises_as_torch = cases_as_torch(RAISES, raises=True)
test_double_backward_as_torch = cases_as_torch(DOUBLE, rtol=1e-5, atol=1e-6)
