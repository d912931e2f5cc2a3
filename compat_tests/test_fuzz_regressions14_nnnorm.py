"""Regression tests against torch for nn/norm classes the differential fuzzer found (fourteenth batch):
adaptive_avg_pool2d to size 1 of an empty complex input (torch's mean over nothing, NaN + NaNj), gelu's
gradient at huge inputs (torch's formula: the autodiff of x * Phi(x) met inf * 0), as_strided of a view
(no gradient for elements read outside the input's own positions), float16/bfloat16 group_norm's gradient
(torch's kernel formula on its mean and 1 / std rounded to the input's dtype), batch_norm's errors for
integer inputs (torch's mean() of a strided input, its eval-mode running-stats check), and backward raising
for empty operands (logaddexp of a bool beside an empty tensor, native_batch_norm of an empty 1-d input)."""


from harness import FUZZ_BACKWARD, cases_as_torch


_BACKWARD = FUZZ_BACKWARD

VALUES = [
    # adaptive_avg_pool2d to ones is torch.mean: (nan, nan) over no elements, complex division otherwise
    "F.adaptive_avg_pool2d(T.zeros((1, 3, 3, 0), dtype=T.complex64).expand(3, 3, 3, 0), 1)",
    # (the parts apart: a complex comparison takes NaN + 0j for NaN + NaNj)
    "r = F.adaptive_avg_pool2d(T.zeros((1, 3, 3, 0), dtype=T.complex64).expand(3, 3, 3, 0), 1); "
    "out = (r.real, r.imag)",
    "r = F.adaptive_avg_pool1d(T.zeros((2, 0), dtype=T.complex128), 1); out = (r.real, r.imag)",
    "x0 = T.tensor([[[1+2j, 2+0j], [3j, 4]], [[0.5j, -1], [2, 1-1j]]], dtype=T.complex64, requires_grad=T"
    "rue); r = F.adaptive_avg_pool2d(x0, 1); r.abs().sum().backward(); out = (r, x0.grad)",
    # gelu's gradient by torch's formula: 1 at 1.8e308 (not inf * 0), in every float dtype
    "x0 = T.tensor([[-1.44, 0.38, 0.92], [-0.68, -inf, -3.09], [-4.8, 1.7976931348623157e+308, -2.54]], d"
    "type=T.float64, requires_grad=True); r = F.gelu(x0[1:]); g = r if isinstance(r, T.Tensor) else r[0];"
    " (g * T.linspace(-1, 2, g.numel()).reshape(g.shape).to(g.dtype)).sum().backward(); out = (r, x0.grad"
    ",)",
    "x0 = T.tensor([[-1.44, 0.38, 0.92], [-0.68, -3.09, 1e30], [-4.8, 3e38, -50.0]], dtype=T.float32, req"
    "uires_grad=True); r = F.gelu(x0); "
    + _BACKWARD +
    "; out = (r, x0.grad)",
    "x0 = T.tensor([[-1.44, 0.38, 0.92], [-0.68, -3.09, 6e4], [-4.8, 3e4, -50.0]], dtype=T.float16, requi"
    "res_grad=True); r = F.gelu(x0); "
    + _BACKWARD +
    "; out = (r, x0.grad)",
    "x0 = T.tensor([[-1.44, 0.38, 0.92], [-0.68, -3.09, 1e30], [-4.8, 3e38, -50.0]], dtype=T.bfloat16, re"
    "quires_grad=True); r = F.gelu(x0); "
    + _BACKWARD +
    "; out = (r, x0.grad)",
    # as_strided of a view: elements read outside the view's own positions get no gradient
    "x0 = T.tensor([[[2.28, 2.26, 2.39], [-0.96, 1.22, -1.29]], [[-1.29, -1.61, -1.77], [0.29, -0.74, 0.2"
    "7]]], dtype=T.float64, requires_grad=True); r = T.as_strided(x0[1:], (2, 2), (1, 2), 1); g = r if is"
    "instance(r, T.Tensor) else r[0]; (g * T.linspace(-1, 2, g.numel()).reshape(g.shape).to(g.dtype)).sum"
    "().backward(); out = (r, x0.grad,)",
    "x0 = T.arange(12., requires_grad=True); r = T.as_strided(x0[2:8], (2, 3), (1, 2), 0); "
    + _BACKWARD +
    "; out = (r, x0.grad)",
    "x0 = T.arange(12., requires_grad=True).reshape(3, 4); r = T.as_strided(x0.t(), (3, 3), (1, 3), 2); "
    + _BACKWARD +
    "; out = (r, x0.grad)",
    "x0 = T.arange(12., requires_grad=True); v = T.as_strided(x0, (3,), (2,), 1); r = T.as_strided(v, (3,"
    "), (1,), 2); "
    + _BACKWARD +
    "; out = (r, x0.grad)",
    # half group norm: torch's backward on its saved (rounded) mean and 1 / std
    "x0 = T.tensor([[[0.734375, -1.296875, 0.09814453125], [-1.84375, 1.03125, -1.6328125], [0.45703125, "
    "-0.9453125, -1.9453125], [0.05908203125, 1.109375, 1.3046875]], [[-1.8671875, -1.125, -1.078125], [-"
    "1.15625, 0.142578125, 0.326171875], [1.6171875, 0.047119140625, 1.6484375], [-0.07421875, -0.6679687"
    "5, -0.482421875]]], dtype=T.bfloat16, requires_grad=True); x1 = T.tensor([-0.69921875, -0.3203125, -"
    "0.5703125, -0.98828125], dtype=T.bfloat16, requires_grad=True); x2 = T.tensor([-0.10009765625, 0.699"
    "21875, -1.1015625, 0.80078125], dtype=T.bfloat16, requires_grad=True); r = T.native_group_norm(x0, x"
    "1, x2, 2, 4, 3, 4, 1e-05); g = r if isinstance(r, T.Tensor) else r[0]; (g * T.linspace(-1, 2, g.nume"
    "l()).reshape(g.shape).to(g.dtype)).sum().backward(); r = T.native_group_norm(x0, x1, x2, 2, 4, 3, 4,"
    " 1e-05); g = r if isinstance(r, T.Tensor) else r[0]; (g * T.linspace(-1, 2, g.numel()).reshape(g.sha"
    "pe).to(g.dtype)).sum().backward(); out = (r, x0.grad, x1.grad, x2.grad,)",
    "x0 = T.tensor([[[0.53515625], [-0.240966796875]], [[0.39306640625], [0.48193359375]], [[0.4479980468"
    "75], [-1.373046875]], [[0.79296875], [1.5830078125]], [[0.1939697265625], [1.7744140625]]], dtype=T."
    "float16, requires_grad=True); r = T.group_norm(x0, 1); g = r if isinstance(r, T.Tensor) else r[0]; ("
    "g * T.linspace(-1, 2, g.numel()).reshape(g.shape).to(g.dtype)).sum().backward(); out = (r, x0.grad,)",
    "T.manual_seed(0); x0 = T.randn(3, 6, 4, 5).to(T.float16).requires_grad_(); w = T.randn(6).to(T.float"
    "16).requires_grad_(); b = T.randn(6).to(T.float16).requires_grad_(); r = F.group_norm(x0, 3, w, b); "
    + _BACKWARD +
    "; out = (r, x0.grad, w.grad, b.grad)",
    "T.manual_seed(0); x0 = T.randn(2, 4, 3).to(T.float16).requires_grad_(); w = T.randn(4).requires_grad"
    "_(); r = F.group_norm(x0, 2, w); "
    + _BACKWARD +
    "; out = (r, x0.grad, w.grad)",
    "T.manual_seed(0); x0 = T.randn(3, 6, 4, 5).to(T.bfloat16).requires_grad_(); w = T.randn(6).to(T.bflo"
    "at16).requires_grad_(); b = T.randn(6).to(T.bfloat16).requires_grad_(); r = F.group_norm(x0, 3, w, b"
    "); "
    + _BACKWARD +
    "; out = (r, x0.grad, w.grad, b.grad)",
    "T.manual_seed(0); x0 = T.randn(2, 4, 3).to(T.bfloat16).requires_grad_(); w = T.randn(4).requires_gra"
    "d_(); r = F.group_norm(x0, 2, w); "
    + _BACKWARD +
    "; out = (r, x0.grad, w.grad)",
]


RAISES = [
    # batch_norm of integer inputs: mean() of a strided one (parameters not mixed), the eval-mode check first
    "T.nn.functional.batch_norm(T.tensor([[-1, 0, -5, 1], [-1, 1, 4, 0], [3, 3, 1, 1]], dtype=T.int8)[:, "
    "::2], None, None, None, None, True)",
    "T.nn.functional.batch_norm(T.tensor([[-1, 0, -5, 1], [-1, 1, 4, 0]], dtype=T.int8).t(), None, None, "
    "None, None, True)",
    "T.nn.functional.batch_norm(T.tensor([[-1, 0, -5, 1], [-1, 1, 4, 0]], dtype=T.int64)[:, ::2], None, N"
    "one, T.ones(2, dtype=T.int64), T.ones(2), True)",
    "T.nn.functional.batch_norm(T.tensor([[-1, 0, -5, 1], [-1, 1, 4, 0]], dtype=T.bool)[:, ::2], None, No"
    "ne, T.ones(2), None, True)",
    "T.nn.functional.batch_norm(T.tensor([-1, 0, -5, 1], dtype=T.int8)[::2], None, None, None, None, True"
    ")",
    "T.nn.functional.batch_norm(T.zeros((2, 3, 2, 2), dtype=T.int8).permute(0, 2, 1, 3), None, None, None"
    ", None, True)",
    "T.nn.functional.batch_norm(T.zeros((2, 3, 2, 2), dtype=T.int8).to(memory_format=T.channels_last), No"
    "ne, None, None, None, True)",
    "T.nn.functional.batch_norm(T.tensor([[-1, 0, -5, 1], [-1, 1, 4, 0]], dtype=T.int8), None, None, T.on"
    "es(3), None, False)",
    "T.nn.functional.batch_norm(T.tensor([-1.0, 0.0, -5.0, 1.0]), None, None, None, None, False)",
    "T.nn.functional.batch_norm(T.zeros((2, 3)), T.zeros(3), None, None, None, False)",
    "T.native_batch_norm(T.tensor([[-1, 0, -5, 1], [-1, 1, 4, 0]], dtype=T.int8)[:, ::2], T.ones(2), None"
    ", None, None, True, 0.1, 1e-5)",
    "T.native_batch_norm(T.tensor([[-1, 0, -5, 1], [-1, 1, 4, 0]], dtype=T.int8)[:, ::2], T.ones(2, dtype"
    "=T.int8), None, T.zeros(2), T.ones(2), True, 0.1, 1e-5)",
    "T.native_batch_norm(T.tensor([-1, 0, -5, 1], dtype=T.int8)[::2], None, None, None, None, True, 0.1, "
    "1e-5)",
    # backward raises for empty operands too: logaddexp's bool subtraction, native_batch_norm's size(1)
    "x1 = T.zeros((0, 3), dtype=T.float64, requires_grad=True); r = T.logaddexp(T.zeros((0, 1), dtype=T.b"
    "ool).expand(0, 3), x1); g = r if isinstance(r, T.Tensor) else r[0]; (g * T.linspace(-1, 2, g.numel()"
    ").reshape(g.shape).to(g.dtype)).sum().backward(); out = (r, x1.grad,)",
    "x1 = T.zeros((0, 3), dtype=T.float64, requires_grad=True); r = T.logaddexp2(x1, T.zeros((0, 1), dtyp"
    "e=T.bool)); r.sum().backward(); out = (r, x1.grad)",
    "x0 = T.zeros((0,), dtype=T.float64, requires_grad=True); x1 = T.zeros((0,), dtype=T.float64, require"
    "s_grad=True); x2 = T.zeros((0,), dtype=T.float64, requires_grad=True); t0 = T.zeros(3); t1 = T.ones("
    "3); r = T.native_batch_norm(x0[::2], x1, x2, t0, (t1 * 2), False, 0.1, 1e-05); g = r if isinstance(r"
    ", T.Tensor) else r[0]; (g * T.linspace(-1, 2, g.numel()).reshape(g.shape).to(g.dtype)).sum().backwar"
    "d(); t0 = T.zeros(3); t1 = T.ones(3); r = T.native_batch_norm(x0[::2], x1, x2, t0, (t1 * 2), False, "
    "0.1, 1e-05); g = r if isinstance(r, T.Tensor) else r[0]; (g * T.linspace(-1, 2, g.numel()).reshape(g"
    ".shape).to(g.dtype)).sum().backward(); out = (r, x0.grad, x1.grad, x2.grad,)",
    "x0 = T.zeros((0,), dtype=T.float64); w = T.zeros((0,), dtype=T.float64, requires_grad=True); r = T.n"
    "ative_batch_norm(x0, w, None, None, None, False, 0.1, 1e-05); r[0].sum().backward(); out = (r, w.gra"
    "d)",
]


# the empty results above without backward; create_graph through the new nodes (torch differentiates half
# group_norm with another formula there, rounded per op: only that it records is compared)
DOUBLE = [
    "x1 = T.zeros((0, 3), dtype=T.float64, requires_grad=True); r = T.logaddexp(x1, T.zeros((0, 3), dtype"
    "=T.bool)); out = (r, r.requires_grad)",
    "x0 = T.zeros((0,), dtype=T.float64); w = T.zeros((0,), dtype=T.float64, requires_grad=True); r = T.n"
    "ative_batch_norm(x0, w, None, None, None, False, 0.1, 1e-05); out = (r, r[0].requires_grad)",
    "x0 = T.tensor([-1.44, 0.38, 0.92, -3.0, 5.0], dtype=T.float64, requires_grad=True); r = F.gelu(x0); "
    "(g,) = T.autograd.grad(r.sum(), x0, create_graph=True); (h,) = T.autograd.grad((g * g).sum(), x0); o"
    "ut = (r, g, h)",
    "T.manual_seed(0); x0 = T.randn(2, 4, 3).to(T.float16).requires_grad_(); r = F.group_norm(x0, 2); (g,"
    ") = T.autograd.grad((r * T.linspace(-1, 2, r.numel()).reshape(r.shape).to(r.dtype)).sum(), x0, creat"
    "e_graph=True); out = (r, tuple(g.shape), g.requires_grad)",
]


test_values_as_torch = cases_as_torch(VALUES, rtol=1e-5, atol=1e-6)
test_raises_as_torch = cases_as_torch(RAISES, raises=True)
test_recording_as_torch = cases_as_torch(DOUBLE, rtol=1e-5, atol=1e-6)
