"""Regression tests against torch for nn classes the differential fuzzer found (issue 18, thirteenth batch, seed
9109): max pools whose window maximum is -inf or the dtype's lowest value (MindSpore's MaxPoolWithArgmaxV2 gives
the lowest finite value and a stale index there), cross_entropy's NaN gradient on ignored rows whose softmax is
NaN (the sparse fused kernel ran on the rows kept), cross_entropy with label smoothing and no classes, the packed
recurrent ops reading a stepped batch_sizes as torch's kernel does (its storage from the view's offset), the
float16/bfloat16 batch_norm gradient on the mean and 1 / std rounded to the input's dtype, and the exceptions of
torch.embedding_bag (offsets of 2-D indices), nn.functional.unfold (2-D inputs) and native_batch_norm (integer
input with running statistics, running statistics given by halves)."""


from harness import FUZZ_BACKWARD, cases_as_torch


_BACKWARD = FUZZ_BACKWARD

VALUES = [
    # max pools: a window of -inf (or the lowest finite value) only: torch's value and its first element's index
    "x0 = T.tensor([[[0.1, 0.0], [nan, 5e-324]], [[1e+30, 1.6], [0.7, -1.7976931348623157e+308]]], dtype=T.float64, "
    "requires_grad=True); r = T.max_pool1d_with_indices(x0, 3, 2, 1, ceil_mode=True); " + _BACKWARD +
    "; r = T.max_pool1d_with_indices(x0, 3, 2, 1, ceil_mode=True); " + _BACKWARD + "; out = (r, x0.grad)",
    "T.max_pool1d_with_indices(T.tensor([[[1.0, 1.6], [0.7, -inf]]]), 3, 2, 1, ceil_mode=True)",
    "T.max_pool1d_with_indices(T.tensor([[[1.0, 1.6], [-inf, -inf]]]), 2, 1, 0)",
    "F.max_pool2d(T.tensor([[[[1.0, 1.6]], [[-inf, -3.4028234663852886e+38]]]]), (1, 2), 1, 0, return_indices=True)",
    "F.max_pool2d(T.tensor([[[[1.0, 1.6]], [[-inf, -inf]]]]), (1, 2), 1, 0)",
    "F.max_pool1d(T.tensor([[[1.0, 1.6, -inf]], [[-inf, -inf, nan]]], dtype=T.float16), 2, 1, 0, return_indices=True)",
    "F.max_pool1d(T.tensor([[[1.0, 1.6, -inf]], [[-inf, -inf, 3]]]).to(T.bfloat16), 2, 1, 0, return_indices=True)",
    "x0 = T.tensor([[[-inf, -inf, -inf, 2.0], [-inf, 1.0, -inf, -inf]]], requires_grad=True); "
    "r = F.max_pool1d(x0, 2, 1, 1); r.sum().backward(); out = (r, x0.grad)",
    "x0 = T.tensor([[[[-inf, -inf], [5.0, -inf]], [[-inf, -inf], [-inf, -inf]]]], requires_grad=True); "
    "r = F.max_pool2d(x0, 2, 1, 1, return_indices=True); " + _BACKWARD + "; out = (r, x0.grad)",
    # cross_entropy: an ignored row whose softmax is NaN (a NaN, +inf, or only -inf) gets NaN gradients
    "x0 = T.tensor([[1.0, nan, 2.0], [0.5, 1.0, -1.0]], requires_grad=True); "
    "r = F.cross_entropy(x0, T.tensor([7, 1]), ignore_index=7); r.backward(); out = (r, x0.grad)",
    "x0 = T.tensor([[1.0, inf, 2.0], [0.5, 1.0, -1.0]], requires_grad=True); "
    "r = F.cross_entropy(x0, T.tensor([7, 1]), ignore_index=7, reduction='sum'); r.backward(); out = (r, x0.grad)",
    "x0 = T.tensor([[-inf, -inf, -inf], [0.5, 1.0, -1.0], [-inf, 0., 1]], requires_grad=True); "
    "r = F.cross_entropy(x0, T.tensor([7, 1, 7]), ignore_index=7); r.backward(); out = (r, x0.grad)",
    "x0 = T.tensor([[1.0, nan, 2.0], [0.5, 1.0, -1.0]]).repeat(1, 1500).requires_grad_(); "
    "r = F.cross_entropy(x0, T.tensor([7, 1]), ignore_index=7, label_smoothing=0.1); r.backward(); out = (r, x0.grad)",
    "x0 = T.tensor([[-1.5, 0.3, 1.1], [0.0, -0.3, 0.0], [1.8, nan, 1.3], [-0.4, 1.0, -0.9]], requires_grad=True); "
    "x1 = T.tensor([[-0.7, -1.5, 0.4], [-1.3, 0.9, -1.6], [0.2, 1.4, 0.7], [-1.5, -1.4, 0.5], [-0.2, -1.2, -1.8]], "
    "requires_grad=True); r = F.linear_cross_entropy(x0, x1, T.tensor([7, 1, 7, 3]), ignore_index=7); " + _BACKWARD +
    "; out = (r, x0.grad, x1.grad)",
    # cross_entropy with class probabilities and label smoothing, no classes: torch's ls / C is inf there
    "F.cross_entropy(T.zeros((1, 0)), T.zeros((2, 0))[1:], label_smoothing=0.2)",
    "F.cross_entropy(T.zeros((3, 0, 2)), T.zeros((3, 0, 2)), label_smoothing=0.2, reduction='none')",
    "F.cross_entropy(T.zeros((0,)), T.zeros((0,)), label_smoothing=0.2, reduction='none')",
    "F.cross_entropy(T.zeros((0,)), T.zeros((0,)), reduction='none')",
    "x = T.zeros((3, 0), requires_grad=True); r = F.cross_entropy(x, T.zeros((3, 0)), label_smoothing=0.2, "
    "reduction='sum'); r.backward(); out = (r, x.grad)",
    # packed recurrences: torch's kernel reads batch_sizes' storage from the view's offset, whatever its stride
    "T.rnn_relu(T.tensor([[1.2, 1.2, 0.5], [-1.4, -0.0, 0.1], [-0.8, -0.4, -1.2], [1.8, 0.6, -1.5], "
    "[0.7, -1.2, 1.3]]), "
    "T.tensor([2, 2, 1, -4, 1, -2])[::2], T.tensor([[[1.1108097, -1.0498351, 1.2971141, 1.8629968], [1.8904045, "
    "-0.186203, 0.43616986, 1.1021061]]]), [T.tensor([[-0.20533499, 0.030586755, -0.30847922], [-0.43209964, "
    "0.28698546, 0.15633352], [0.1375209, 0.0756029, -0.46093708], [-0.14218639, 0.44568318, -0.43995532]]), "
    "T.tensor([[-0.4024664, 0.26124972, -0.25306204, -0.36186832], [-0.16855344, -0.41700044, 0.17197709, "
    "0.3065938], [0.48274192, 0.13566074, -0.28407675, 0.04902743], [0.045559958, -0.26592392, -0.38627416, "
    "-0.00034073295]]), T.tensor([-0.27670893, 0.023163341, 0.050701458, -0.45439804]), T.tensor([-0.20533499, "
    "0.030586755, -0.30847922, -0.43209964])], True, 1, 0.0, True, False)",
    "T.manual_seed(0); out = T.gru(T.randn(5, 3), T.tensor([2, 2, 2, 1, 1, 9])[1::2], T.randn(1, 2, 4), "
    "[T.randn(12, 3), T.randn(12, 4), T.randn(12), T.randn(12)], True, 1, 0.0, False, False)",
]

# float16/bfloat16 batch norm in training: the input's gradient is torch's float32 formula on the batch mean and
# 1 / std rounded to the input's dtype (float32 statistics moved gradients that cancel by an ulp of the half dtype)
HALF_BATCH_NORM = [
    "x0 = T.tensor([[0.320068359375], [0.08001708984375]], dtype=T.float16, requires_grad=True); "
    "r = F.batch_norm(x0, None, None, None, None, True); " + _BACKWARD + "; out = (r, x0.grad)",
    "T.manual_seed(0); x0 = T.randn(4, 3, 5).half().requires_grad_(); w = T.randn(3).half().requires_grad_(); "
    "b = T.randn(3).half().requires_grad_(); rm = T.zeros(3).half(); rv = T.ones(3).half(); "
    "r = F.batch_norm(x0, rm, rv, w, b, True, 0.3); " + _BACKWARD + "; out = (r, x0.grad, w.grad, b.grad, rm, rv)",
    "T.manual_seed(0); x0 = T.randn(4, 3, 5, 2).bfloat16().requires_grad_(); "
    "w = T.randn(3).bfloat16().requires_grad_(); "
    "r = F.batch_norm(x0, None, None, w, None, True); " + _BACKWARD + "; out = (r, x0.grad, w.grad)",
    "T.manual_seed(0); x0 = T.randn(2, 3, 2, 2, 3).half().requires_grad_(); r = F.batch_norm(x0, None, None, None, "
    "None, True); " + _BACKWARD + "; out = (r, x0.grad)",
    "T.manual_seed(0); x0 = T.randn(16, 3).half().requires_grad_(); m = T.nn.BatchNorm1d(3, momentum=None).half(); "
    "r = m(x0); " + _BACKWARD + "; r = m(x0); out = (r, x0.grad, m.weight.grad, m.running_mean, m.running_var)",
    "T.manual_seed(0); x0 = T.randn(16, 3).half().requires_grad_(); r = T.native_batch_norm(x0, None, None, None, "
    "None, True, 0.1, 1e-5); " + _BACKWARD + "; out = (r, x0.grad)",
    # (float32 parameters: torch keeps float32 statistics, the fused kernel's gradient)
    "T.manual_seed(0); x0 = T.randn(16, 3).half().requires_grad_(); w = T.randn(3).requires_grad_(); "
    "r = F.batch_norm(x0, None, None, w, None, True); " + _BACKWARD + "; out = (r, x0.grad, w.grad)",
]

RAISES = [
    # torch.embedding_bag of 2-D indices: 0-d offsets fail offsets.size(0), offsets of 2 or more dims fail
    # make_offset2bag's index_add_ (mean, sum off the float fast path), after the padding_idx range check
    "T.embedding_bag(T.zeros((0, 3)), T.zeros((0, 3), dtype=T.int64), T.zeros((0, 3), dtype=T.int64), False, 1)",
    "T.embedding_bag(T.zeros((4, 3), dtype=T.float64), T.zeros((2, 3), dtype=T.int32), T.zeros((2, 3), "
    "dtype=T.int32), False, 0)",
    "T.embedding_bag(T.zeros((4, 3)), T.zeros((2, 3), dtype=T.int32), T.zeros((2, 3), dtype=T.int64), False, 0, False, "
    "None, False, 1)",
    "T.embedding_bag(T.zeros((0, 3)), T.zeros((2, 3), dtype=T.int64), T.zeros((2, 3), dtype=T.int64), False, 1, False, "
    "None, False, 1)",
    "T.embedding_bag(T.zeros((4, 3)), T.zeros((2, 3), dtype=T.int64), T.zeros((), dtype=T.int64), False, 2)",
    # unfold of a 2-d input: size(1) != 0 && size(2) != 0 read in that order
    "x0 = T.zeros((3, 0), requires_grad=True); r = F.unfold(x0, 2); " + _BACKWARD + "; out = (r, x0.grad)",
    "F.unfold(T.zeros((3, 4)), 2)",
    "F.unfold(T.zeros((0, 3)), 2)",
    "F.unfold(T.zeros(()), 2)",
    # native_batch_norm: an integer input is refused by mean() only without running statistics
    "T.native_batch_norm(T.tensor([[[True, True, False, False], [False, False, False, True], [True, False, True, "
    "False]], [[True, True, True, False], [False, True, False, False], [False, False, True, False]]])"
    ".permute(2, 1, 0), "
    "None, None, T.zeros(3), T.ones(3), True, 0.3, 0.001)",
    "T.native_batch_norm(T.ones(4, 3, 2, dtype=T.int32).permute(2, 1, 0), None, None, T.zeros(3), T.ones(3), True, "
    "0.3, 1e-3)",
    "T.native_batch_norm(T.tensor([[[4]]], dtype=T.int16).expand(1, 1, 3), None, None, None, None, True, 0.1, 1e-05)",
    # running statistics given by halves: torch's ValueError before the dtype dispatch
    "T.native_batch_norm(T.ones(4, 3, 2), None, None, T.zeros(3), None, True, 0.3, 1e-3)",
    "T.native_batch_norm(T.ones(4, 3, 2), None, None, None, T.zeros(3), False, 0.3, 1e-3)",
    "T.native_batch_norm(T.ones(4, 3, 2, dtype=T.int32), None, None, T.zeros(3), None, False, 0.3, 1e-3)",
]


# the half batch norm node's backward is in recorded ops (double backward)
HALF_BATCH_NORM_DOUBLE = [
    "T.manual_seed(0); x0 = T.randn(8, 3).half().requires_grad_(); w = T.randn(3).half().requires_grad_(); "
    "r = F.batch_norm(x0, None, None, w, None, True); gx, = T.autograd.grad((r * r * T.linspace(-1, 2, 24)"
    ".reshape(8, 3).half()).sum(), x0, create_graph=True); (gx * gx).sum().backward(); out = (gx, x0.grad, w.grad)",
]

test_values_as_torch = cases_as_torch(VALUES, rtol=1e-5, atol=1e-6)
test_half_batch_norm_as_torch = cases_as_torch(HALF_BATCH_NORM, rtol=1e-3, atol=1e-3)
test_half_batch_norm_double_as_torch = cases_as_torch(HALF_BATCH_NORM_DOUBLE, rtol=2e-2, atol=1e-2)   # (half ulps)
test_raises_as_torch = cases_as_torch(RAISES, raises=True)
