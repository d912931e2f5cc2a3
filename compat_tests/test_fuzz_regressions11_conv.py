"""Regression tests against torch for convolution / pooling / padding / sampling classes the differential
fuzzer found (issue 18, eleventh batch): empty convolutions (torch's empty path and its check order),
conv1d with one output step and a bias gradient, conv_tbc's result size and bool refusals, constant padding
that crops the whole input, adaptive average pooling to ones (a mean, complex inputs included), unfold's
shape check before its dtype check, antialiased half interpolation, and 2-d grid sampling far outside."""


from harness import FUZZ_BACKWARD, cases_as_torch


_BACKWARD = FUZZ_BACKWARD

VALUES = [
    # constant padding whose negative pad crops the whole input: all padding, a zero gradient
    "T.constant_pad_nd(T.tensor([[1.47]]), (-1, 1))",
    "x0 = T.tensor([[1.2861328125]], dtype=T.float16, requires_grad=True); r = T.constant_pad_nd(x0, (-1, 1)); "
    + _BACKWARD + "; out = (r, x0.grad)",
    "x0 = T.tensor([[1.46, 2.0], [3.0, 4.0]], requires_grad=True); r = T.constant_pad_nd(x0, (-2, 1, 1, -1), 2.5); "
    + _BACKWARD + "; out = (r, x0.grad)",
    "x0 = T.tensor([[1.5, 2.0], [3.0, 4.0]], dtype=T.bfloat16, requires_grad=True); r = F.pad(x0, (-2, 0)); "
    "r.sum().backward(); out = (r, x0.grad)",
    "F.pad(T.tensor([[True, False]]), (-2, 1), value=1)",
    # empty convolutions: zero input channels answer through torch's empty path, kernel empty or not
    "T.conv2d(T.zeros((2, 0, 2, 4)), T.zeros((2, 0, 0, 2)).permute(3, 2, 1, 0), None, (1, 2), (2, 1), (2, 1))",
    "T.conv2d(T.zeros((2, 0, 2, 4)), T.zeros((2, 0, 0, 2)))",
    "x0 = T.zeros((3, 0, 5, 1), dtype=T.bfloat16, requires_grad=True); x1 = T.zeros((3, 0, 0, 6), dtype=T.bfloat16, "
    "requires_grad=True); r = T.conv2d(x0, x1[:, :, :, ::2], None, (1, 2), (2, 1), (2, 1)); " + _BACKWARD
    + "; out = (r, x0.grad, x1.grad)",
    "T.conv3d(T.zeros((0, 0, 0, 3, 1), dtype=T.float64).expand(0, 0, 0, 3, 0), T.zeros((4, 0, 2, 0, 2), "
    "dtype=T.float64)[:, :, :, ::2], T.tensor([0.6, -1.56, 0.31, -1.14], dtype=T.float64), stride=2, padding=1, "
    "groups=2)",
    "T.conv1d(T.zeros((2, 0, 4)), T.zeros((2, 0, 0)))",
    # conv1d with a single output step and a bias that needs its gradient (MindSpore's BiasAddGrad refuses it)
    "x0 = T.tensor([[[-0.5, 0.75, -1.5]], [[0.25, -1.0, 0.5]]], dtype=T.float16, requires_grad=True); "
    "x1 = T.tensor([[[1.5, -0.25, -2.0, -1.25, -1.75]], [[0.25, 0.5, 0.0, -0.5, -1.5]]], dtype=T.float16, "
    "requires_grad=True); x2 = T.tensor([0.5, -0.75], dtype=T.float16, requires_grad=True); "
    "r = T.conv1d(x0, x1, x2, padding=1); " + _BACKWARD + "; out = (r, x0.grad, x1.grad, x2.grad)",
    "x0 = T.tensor([[[-0.6, 0.7, -1.7, 0.3], [0.25, -0.9, 0.5, 1.0]]], requires_grad=True); "
    "x1 = T.tensor([[[1.5, -0.2]], [[0.27, 0.5]], [[-1.0, 2.0]], [[0.3, 0.1]]], requires_grad=True); "
    "x2 = T.tensor([0.5, -0.7, 0.1, 0.2], requires_grad=True); r = T.conv1d(x0, x1, x2, stride=3, groups=2); "
    + _BACKWARD + "; out = (r, x0.grad, x1.grad, x2.grad)",
    "x0 = T.tensor([[[1.0, 0.1, 0.419, 0.0], [1.205, -3.4, 3.4, -0.209], [-1.467, -0.31, 0.5, 1.286]], "
    "[[-0.073, -1.8, 1.39, 1.716], [0.778, -0.257, 0.424, -0.151], [1.12, 0.835, -0.0, 0.323]]], "
    "requires_grad=True); x1 = T.tensor([[[-1.0], [0.4], [0.44], [0.39]], [[1.54], [0.12], [0.7], [-3.4]], "
    "[[1.67], [3.4], [-1.79], [-1.75]], [[-0.58], [-0.65], [-1.98], [0.99]]], requires_grad=True); "
    "x2 = T.tensor([1.0], requires_grad=True); r = T.conv_tbc(x0, x1, x2, 1); " + _BACKWARD
    + "; out = (r, x0.grad, x1.grad, x2.grad)",
    # conv_tbc: no output steps, no batch, no input steps (the bias alone), bool where no product runs
    "T.conv_tbc(T.ones((2, 3, 4)), T.ones((3, 4, 2)), T.ones(2))",
    "T.conv_tbc(T.ones((2, 3, 4)), T.ones((3, 4, 0)), T.zeros(0), 1)",
    "T.conv_tbc(T.ones((0, 2, 5)), T.ones((1, 5, 4)), T.tensor([1.0, 2, 3, 4]), 1)",
    "T.conv_tbc(T.ones((3, 0, 5), dtype=T.bool), T.ones((2, 5, 4), dtype=T.bool), T.ones(4, dtype=T.bool))",
    "T.conv_tbc(T.ones((0, 2, 5), dtype=T.bool), T.ones((1, 5, 4), dtype=T.bool), T.tensor([True, False, True, "
    "False]), 1)",
    "T.conv_tbc(T.ones((3, 2, 5), dtype=T.bool), T.ones((3, 5, 0), dtype=T.bool), T.ones(0, dtype=T.bool))",
    "T.conv_tbc(T.ones((3, 2, 5), dtype=T.bool), T.ones((4, 5, 4), dtype=T.bool), T.ones(4, dtype=T.bool))",
    # adaptive average pooling to ones is a mean over the pooled dims: any rank, complex inputs too
    "F.adaptive_avg_pool2d(T.tensor([[1.0, 2.5, -3.0], [0.5, 4.0, 2.0]]), 1)",
    "F.adaptive_avg_pool2d(T.arange(120.0).reshape(2, 3, 4, 5, 1), 1)",
    "F.adaptive_avg_pool3d(T.arange(60.0).reshape(3, 4, 5), 1)",
    "x0 = T.tensor([[[complex(1.9, 1.1), complex(-0.9, 1.7), complex(-1.9, -1.6)], [complex(1.4, 1.1), "
    "complex(1.2, 1.9), complex(1.0, 1.5)]]], requires_grad=True); r = F.adaptive_avg_pool2d(x0, (1, 1)); "
    "r.abs().sum().backward(); out = (r, x0.grad)",
    "F.adaptive_avg_pool1d(T.tensor([[complex(1.0, 2.0), complex(-3.0, 0.5)]]), 1)",
    "F.adaptive_avg_pool3d(T.tensor([[[[complex(1.0, 2.0), complex(-3.0, 0.5)]]]], dtype=T.complex128), 1)",
    "F.adaptive_avg_pool2d(T.zeros((3, 0, 2), dtype=T.complex64), 1)",
    # 2-d grid sampling: the coordinate is unnormalized as (x + 1) * size / 2 - 0.5 (no overflow far outside)
    "x0 = T.tensor([[[[1.6, -1.4], [1e+30, 1.5]], [[0.7, 1.0], [1.5, 1.5]]], [[[-inf, 0.9], [-0.0, 0.6]], "
    "[[0.9, 0.0], [-0.1, -0.6]]]], requires_grad=True); x1 = T.tensor([[[[-0.0, 0.2], [0.9, -0.7]], "
    "[[0.1, -0.3], [0.5, -0.0]]], [[[-3.4028235e+38, 0.4], [-0.8, 0.6]], [[-0.6, -0.3], [-0.2, -0.4]]]], "
    "requires_grad=True); r = T.grid_sampler(x0, x1, 0, 0, False); " + _BACKWARD + "; out = (r, x0.grad, x1.grad)",
    "T.grid_sampler(T.tensor([[[[1.0, -inf], [2.0, 3.0]]]]), T.tensor([[[[3.0e38, 0.5], [0.3, -0.7]]]]), 0, 0, True)",
]

RAISES = [
    # an empty convolution with input channels multiplies by the empty weight's first element
    "T.conv2d(T.zeros((0, 1, 2, 4)), T.zeros((2, 1, 0, 2)))",
    "T.conv1d(T.zeros((0, 1, 4)), T.zeros((2, 1, 0)))",
    # only the batch or the channels may be empty: checked before the empty weight is read
    "T.convolution(T.zeros((2, 1, 4, 0)), T.zeros((2, 1, 4, 0)), None, [1], [0], [1], False, [0], 1)",
    "T.conv2d(T.zeros((2, 1, 4, 0)), T.zeros((2, 1, 4, 0)), None, 1, 1)",
    # conv_tbc creates its result first: a negative number of steps
    "T.conv_tbc(T.zeros((0, 3, 4), dtype=T.bfloat16), T.zeros((3, 4, 0), dtype=T.bfloat16), "
    "T.tensor([0.2099609375], dtype=T.bfloat16)[1:])",
    "T.conv_tbc(T.zeros((1, 3, 4)), T.zeros((3, 4, 2)), T.zeros(2))",
    "T.conv_tbc(T.ones((3, 2, 5), dtype=T.bool), T.ones((5, 5, 4), dtype=T.bool), T.ones(4, dtype=T.bool))",
    # bool conv_tbc: no kernel for the products; over no input channels a failing cast
    "T.conv_tbc(T.ones((3, 2, 5), dtype=T.bool), T.ones((2, 5, 4), dtype=T.bool), T.ones(4, dtype=T.bool))",
    "T.conv_tbc(T.ones((3, 2, 0), dtype=T.bool), T.ones((2, 0, 4), dtype=T.bool), T.ones(4, dtype=T.bool))",
    # adaptive average pooling to ones: the mean's dtype check, then its dims
    "x0 = T.zeros((0,), requires_grad=True); r = F.adaptive_avg_pool2d(x0, 1); " + _BACKWARD + "; out = (r, x0.grad)",
    "F.adaptive_avg_pool3d(T.ones((3, 4)), 1)",
    "F.adaptive_avg_pool2d(T.zeros(()), 1)",
    "F.adaptive_avg_pool2d(T.ones((3,), dtype=T.int32), 1)",
    "F.adaptive_avg_pool1d(T.ones((3, 4, 5, 6)), 1)",
    "F.adaptive_avg_pool2d(T.zeros((3,)), 2)",
    # other sizes: no complex kernel (the 1-d pool is the 2-d one)
    "F.adaptive_avg_pool1d(T.ones((1, 2, 3), dtype=T.complex64), 2)",
    "F.adaptive_avg_pool2d(T.ones((1, 2, 3), dtype=T.complex128), 2)",
    # unfold checks the sliding blocks' shape before its dtype
    "T.nn.functional.unfold(T.tensor([[[[0]], [[4]]]], dtype=T.int32), 2, padding=(0, 1))",
    # antialiased resizing has no float16 / bfloat16 kernel, even for an empty batch
    "x0 = T.zeros((0, 2, 2, 1), dtype=T.bfloat16, requires_grad=True); r = F.interpolate(x0, (4, 3), mode='lanczos', "
    "antialias=True); " + _BACKWARD + "; out = (r, x0.grad)",
    "F.interpolate(T.ones((1, 2, 2, 1), dtype=T.float16), (4, 3), mode='bicubic', antialias=True)",
    "F.interpolate(T.ones((1, 2, 2, 1), dtype=T.bfloat16), (4, 3), mode='bilinear', antialias=True)",
]


test_values_as_torch = cases_as_torch(VALUES, rtol=1e-5, atol=1e-6)
test_raises_as_torch = cases_as_torch(RAISES, raises=True)
