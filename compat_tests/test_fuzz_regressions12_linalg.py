"""Regression tests against torch for linalg classes the differential fuzzer found (issue 18, twelfth batch,
seed 9108): complex linear's alpha/beta scaling (1-D input with a bias, 2-D addmm, batched matmul), dot and
vdot's rounded products, addmv's empty-matrix shortcut (no NaN from vec, torch's backward errors), the
gradient of inv_ex at a singular matrix, matrix_exp of a lone complex matrix with a NaN norm, and the
refused backward of an empty half-precision Cholesky factor."""


from harness import FUZZ_BACKWARD, cases_as_torch


_BACKWARD = FUZZ_BACKWARD

_X = ("x = T.tensor([[complex(0.0, 0.89), complex(-0.15, 0.91), complex(3.4028234663852886e+38, 1.0)], "
      "[complex(1.38, -1.33), complex(inf, -0.74), complex(0.78, -1.09)], [complex(-3.4028234663852886e+38, -0.24), "
      "complex(3.4028234663852886e+38, 1.78), complex(0.0, 1.54)], [complex(-0.95, 0.41), complex(-1.01, -0.09), "
      "complex(0.91, -1.95)]]); w = T.tensor([[complex(-1.037, 0.92), complex(-0.0, -1.65), complex(nan, -1.21)], "
      "[complex(-0.546, 1.5), complex(0.608, 1.41), complex(-1.023, -0.97)], [complex(0.393, -1.62), "
      "complex(-3.4028234663852886e+38, -0.35), complex(-0.599, -1.64)]]); b = T.tensor([1 + 1j, complex(inf, 1), -2j]); ")

VALUES = [
    # complex linear: torch's addmm scales the product by alpha = 1 + 0j and the bias by beta = 1 + 0j (an
    # infinite part makes the other NaN); a batched (bmm) product is not scaled
    "F.linear(T.tensor([complex(-3.4028234663852886e+38, -0.26), complex(0.1, -0.18), complex(-0.8, 0.57), "
    "complex(inf, 0.45), complex(-0.6, -0.06)]), T.tensor([[complex(0.219, 1.12), complex(0.0, 1.55), "
    "complex(3.4028234663852886e+38, 0.79), complex(0.0, 0.43), complex(-1e-45, -0.45)], [complex(-0.206, 0.06), "
    "complex(-3.4028234663852886e+38, 0.11), complex(-3.4028234663852886e+38, -1.61), complex(0.301, 0.55), "
    "complex(-0.383, -1.0)]]), T.tensor([complex(1.7, 0.31), complex(0.2, 0.43)]))",
    _X + "out = F.linear(x, w, b)",
    _X + "out = F.linear(x[0], w, b)",
    _X + "out = F.linear(x[3], w)",
    _X + "out = F.linear(x.reshape(2, 2, 3), w, b[None])",
    _X + "out = F.linear(x.reshape(2, 2, 3).transpose(0, 1), w)",
    _X + "out = F.linear(x.reshape(2, 2, 3).transpose(0, 1), w, b)",
    _X + "out = F.linear(x.reshape(1, 2, 2, 3).transpose(1, 2), w, b)",
    # dot/vdot: each product rounded to float before the sum (inf - inf is NaN)
    "T.vdot(T.tensor([1e+30]).expand(4), T.tensor([-3.4028235e+38, 1e+30, 0.26, 0.81]))",
    "T.dot(T.tensor([0.0, -3.4028235e+38, 0.72, -1.38]), T.tensor([1.3, -0.65, -1.16, -0.0, 3.4028235e+38])[1:], "
    "out=T.zeros(0))",
    "x0 = T.tensor([1.5, -2.0, 0.25], requires_grad=True); x1 = T.tensor([0.5, 1.0, 4.0], requires_grad=True); "
    "r = T.dot(x0, x1); " + _BACKWARD + "; out = (r, x0.grad, x1.grad)",
    "x0 = T.tensor([1.5, -2.0, 0.25], dtype=T.float64, requires_grad=True); r = T.vdot(x0, x0); " + _BACKWARD +
    "; out = (r, x0.grad)",
    # addmv of an empty matrix: the input scaled by beta, vec's NaN does not reach the result
    "x0 = T.tensor([-2.8, 2.523], dtype=T.float64, requires_grad=True); x1 = T.zeros((0, 5), dtype=T.float64); "
    "x2 = T.tensor([nan, -0.83, -1.06, -0.0, 1.08], dtype=T.float64); r = T.addmv(x0[1:], x1, x2, beta=2); "
    + _BACKWARD + "; out = (r, x0.grad)",
    "x0 = T.ones(3, dtype=T.float64, requires_grad=True); x1 = T.ones((3, 0), dtype=T.float64, requires_grad=True); "
    "x2 = T.zeros(0, dtype=T.float64, requires_grad=True); r = T.addmv(x0, x1, x2, beta=2); " + _BACKWARD +
    "; out = (r, x0.grad, x1.grad, x2.grad)",
    "x1 = T.ones((1, 0), dtype=T.float64, requires_grad=True); x2 = T.zeros(0, dtype=T.float64, requires_grad=True); "
    "r = T.addmv(T.ones(1, dtype=T.float64), x1, x2); r.sum().backward(); out = (r, x1.grad, x2.grad)",
    # inv_ex of a singular matrix: on the graph, with torch's -inv^H g inv^H
    "x0 = T.tensor([[[-2.351]], [[-0.0]]], dtype=T.float64, requires_grad=True); r = T.linalg.inv_ex(x0[1:]); "
    + _BACKWARD + "; r = T.linalg.inv_ex(x0[1:]); " + _BACKWARD + "; out = (r, x0.grad)",
    "x0 = T.tensor([[[1., 2.], [2., 4.]], [[1., 0.], [0., 2.]]], dtype=T.float64, requires_grad=True); "
    "r = T.linalg.inv_ex(x0); " + _BACKWARD + "; out = (r, x0.grad)",
    # matrix_exp: a lone complex matrix with a NaN 1-norm is NaN + 0j (its gradient too); batched: NaN + NaN j
    "T.matrix_exp(T.tensor([[complex(-4.112, -9.26), complex(3.48, -6.44), complex(-8.014, 6.27)], [complex(nan, -2.84), "
    "complex(5.88, -5.8), complex(1e-45, -6.28)], [complex(0.745, -3.13), complex(-6.334, -2.23), "
    "complex(-9.014, -1.72)]]))",
    "x0 = T.tensor([[complex(nan, 1), 1j], [2, 3]], dtype=T.complex128, requires_grad=True); "
    "r = T.linalg.matrix_exp(x0); (r * T.tensor([[1 + 2j, 3], [-1j, 2]], dtype=T.complex128)).sum().real.backward(); "
    "out = (r, x0.grad)",
    "T.linalg.matrix_exp(T.tensor([[[complex(1, 1), 1j], [2, 3]], [[complex(nan, 1), 1j], [2, 3]]]))",
    "T.linalg.matrix_exp(T.tensor([[complex(1, 1), 1j], [2, complex(inf, 0)]]))",
]

RAISES = [
    # addmv's empty-matrix result is shaped as the input: torch's backward fails where that is not mat's rows
    "x0 = T.tensor([-2.8, 2.523], dtype=T.float64, requires_grad=True); x1 = T.zeros((0, 5), dtype=T.float64, "
    "requires_grad=True); x2 = T.tensor([nan, -0.83, -1.06, -0.0, 1.08], dtype=T.float64, requires_grad=True); "
    "r = T.addmv(x0[1:], x1, x2); " + _BACKWARD + "; out = (r, x0.grad, x1.grad, x2.grad)",
    "x1 = T.ones((0, 5), dtype=T.float64, requires_grad=True); r = T.addmv(T.ones(1, dtype=T.float64), x1, "
    "T.ones(5, dtype=T.float64)); r.sum().backward(); out = (r, x1.grad)",
    "x1 = T.ones((0, 5), dtype=T.float64, requires_grad=True); r = T.addmv(T.ones((), dtype=T.float64), x1, "
    "T.ones(5, dtype=T.float64)); r.sum().backward(); out = (r, x1.grad)",
    "x2 = T.zeros(0, dtype=T.float64, requires_grad=True); r = T.addmv(T.ones(1, dtype=T.float64), "
    "T.ones((3, 0), dtype=T.float64), x2); r.sum().backward(); out = (r, x2.grad)",
    # an empty half-precision Cholesky factor: the forward needs no kernel, the backward's triangular solve has none
    "x0 = T.zeros((0, 1, 2), dtype=T.float16, requires_grad=True); r = T.linalg.cholesky_ex(x0[:, :, ::2]); "
    + _BACKWARD + "; out = (r, x0.grad)",
    "x0 = T.zeros((2, 0, 0), dtype=T.bfloat16, requires_grad=True); r = T.linalg.cholesky(x0, upper=True); "
    "r.sum().backward(); out = (r, x0.grad)",
    "x0 = T.zeros((0, 1, 1), dtype=T.float16, requires_grad=True); r = T.linalg.cholesky_ex(x0, upper=True); "
    + _BACKWARD + "; out = (r, x0.grad)",
    "x0 = T.zeros((2, 0, 0), dtype=T.float16, requires_grad=True); r = T.cholesky(x0); r.sum().backward(); "
    "out = (r, x0.grad)",
]


test_values_as_torch = cases_as_torch(VALUES, rtol=1e-5, atol=1e-6)
test_raises_as_torch = cases_as_torch(RAISES, raises=True)
