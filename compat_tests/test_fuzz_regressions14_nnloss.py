"""Regression tests against torch for nn loss / attention / embedding classes the differential fuzzer found
(issue 18, fourteenth batch): cross_entropy of a half input (torch's log_softmax of the half tensor itself,
its row sums kept in the half type), a scaled_dot_product_attention mask that would broadcast the scores
(torch adds it in place), gaussian_nll_loss's check of a negative subnormal var (MindSpore's threaded Less
flushes it on larger tensors), torch.embedding_bag's padding_idx read of weight.size(0) before its other
checks, embedding_bag's mean offsets checked before its fast path's, the complex dtype names of the
attention mask error, and complex class-probability targets and inputs of cross_entropy."""


from harness import FUZZ_BACKWARD, cases_as_torch


_BACKWARD = FUZZ_BACKWARD

_X16 = "T.tensor([[-2.158203125, 3.208984375, -2.44921875], [-1.728515625, -1.9453125, 0.388916015625]], "
_P = "T.tensor([[0.17, 0.215, 0.138], [0.095, 0.178, 0.307]]"

VALUES = [
    # cross_entropy of a half input: torch's half log_softmax (its row sums and their logs in the half type;
    # the half input's own gradient is log_softmax's, an ulp apart: not compared here)
    "x0 = " + _X16 + "dtype=T.float16, requires_grad=True); x1 = " + _P + ", dtype=T.float64, requires_grad=True); "
    "r = F.cross_entropy(x0, x1); " + _BACKWARD + "; r = F.cross_entropy(x0, x1); " + _BACKWARD
    + "; out = (r, x1.grad)",
    "x0 = " + _X16 + "dtype=T.float16); out = F.cross_entropy(x0, " + _P + ", dtype=T.float16), reduction='none')",
    "x0 = " + _X16 + "dtype=T.bfloat16); out = F.cross_entropy(x0, " + _P + ", dtype=T.float32), reduction='sum')",
    "x0 = " + _X16 + "dtype=T.float16); out = F.cross_entropy(x0, T.tensor([2, 0]), reduction='none')",
    "x0 = " + _X16 + "dtype=T.float16); out = F.cross_entropy(x0, T.tensor([2, 0]))",
    "x0 = " + _X16 + "dtype=T.float16); out = F.cross_entropy(x0, T.tensor([2, 0]), label_smoothing=0.3)",
    "x0 = " + _X16 + "dtype=T.bfloat16); out = F.cross_entropy(x0, T.tensor([2, -100]), reduction='sum')",
    # an empty batch of class probabilities: torch's -(logp * t).sum() (-0), its mean filled with NaN then negated
    "r = F.cross_entropy(T.zeros((0, 3)), T.zeros((0, 3)), reduction='sum'); out = (r, T.copysign(T.tensor(1.0), r))",
    "r = F.cross_entropy(T.zeros((0, 3), dtype=T.complex64), T.zeros((0, 3))); "
    "out = (r, T.copysign(T.tensor(1.0), r.imag))",
    # a mask that broadcasts to the scores' shape is added
    "F.scaled_dot_product_attention(T.ones(3, 1, 2, 3, dtype=T.float64), T.ones(3, 1, 1, 3, dtype=T.float64), "
    "T.ones(3, 1, 1, 5, dtype=T.float64), T.zeros(3, 1, 2, 1, dtype=T.float64))",
]

RAISES = [
    # a mask broadcasting the scores to a larger shape: torch's in-place add refuses it
    "F.scaled_dot_product_attention(T.tensor([[[[1.101, 0.298, -0.831], [1.61, -1.717, -0.296]]], [[[1.919, 1.061, "
    "-0.586], [1.558, -0.512, 0.153]]], [[[-0.609, 1.462, 1.571], [0.338, 1.654, -0.506]]]], dtype=T.float64), "
    "T.tensor([[[[-1.129, 0.603, 0.085]]], [[[-0.946, 0.885, -0.696]]], [[[0.261, -1.482, -0.075]]]], "
    "dtype=T.float64), T.tensor([[[[-0.581, -1.811, -0.179, 1.904, 1.437]]], [[[1.957, -1.965, 0.622, -1.483, "
    "-1.614]]], [[[-1.146, 0.948, -0.0, -1.227, -0.739]]]], dtype=T.float64), T.tensor([[[[-1.1], [0.9]], [[-1.8], "
    "[-1.4]], [[0.6], [-0.1]]], [[[-0.4], [-0.7]], [[1.0], [-1.4]], [[-0.2], [-1.1]]], [[[0.8], [-0.3]], [[-0.8], "
    "[-1.9]], [[0.7], [-1.3]]]], dtype=T.float64))",
    "F.scaled_dot_product_attention(T.ones(3, 1, 2, 3), T.ones(3, 1, 1, 3), T.ones(3, 1, 1, 5), "
    "T.ones(2, 2, 1, dtype=T.bool))",
    "F.scaled_dot_product_attention(T.ones(1, 2, 3), T.ones(4, 3), T.ones(4, 5), T.zeros(3, 2, 4))",
    # a negative subnormal var: on the host (MindSpore's threaded Less flushes it to 0 on larger tensors)
    # (the calls before it on growing sizes leave MindSpore's threads flushing: the case then fails without the fix)
    "v = T.zeros(1000000); v[-1] = -1e-45; w = [F.gaussian_nll_loss(T.zeros(n), T.zeros(n), v[-n:].abs()) for n in "
    "(10, 1000, 100000, 1000000)]; out = F.gaussian_nll_loss(T.zeros(1000000), T.zeros(1000000), v)",
    "F.gaussian_nll_loss(T.tensor([[[-0.47, -0.9], [-0.85, -0.7], [0.0, -1.37]], [[-0.21, -1.53], [0.76, 0.66], "
    "[-1.17, -1.17]], [[1.67, nan], [-1.26, 3.4028235e+38], [0.87, 0.78]], [[-1.61, -inf], [inf, -0.34], [0.42, "
    "1.26]]]).permute(2, 1, 0), T.tensor([[[-1.57, -0.0, -1.2, nan], [-0.27, 0.65, -0.49, 0.69], [-0.22, -1.59, "
    "1.5, -0.62]], [[3.4028235e+38, 0.38, -1.74, -1.7], [-0.04, -0.57, inf, 1e-45], [inf, 1e-45, nan, 1.43]]]), "
    "T.tensor([[[0.0, 0.0, 0.0, 0.0], [0.0, 3.4028235e+38, 0.0, 3.4028235e+38], [1e+30, -1e-45, 1e+30, 0.0]], "
    "[[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1e+30, 0.0], [0.0, 3.4028235e+38, inf, 0.0]]]), reduction='none')",
    # torch.embedding_bag reads weight.size(0) for any padding_idx, and checks it, before anything else
    "T.embedding_bag(T.tensor(1.42), T.tensor(1), T.tensor(5), False, 2, False, None, True, 4)",
    "T.embedding_bag(T.tensor(1.42), T.tensor([1]), T.tensor([0]), False, 0, False, None, True, 0)",
    "T.embedding_bag(T.tensor([1.42]), T.tensor(1), T.tensor(5), False, 2, False, None, True, 4)",
    "T.embedding_bag(T.tensor([1.42]), T.tensor([1]), T.tensor([0]), False, 5, False, None, True, 4)",
    # a mean's offsets out of range: torch's offset2bag index_add_ before the fast path's last-offset check
    "x1 = T.tensor([[1.0, -0.39, 0.0, 1.78], [1.36, -1.52, 2.0, 0.34], [-1.24, -1.73, -0.69, 0.84], [-6e-08, "
    "-0.99, 1.58, -1.71], [-1.1, -0.0, -1.44, -0.08], [0.79, 0.98, nan, 1.32], [3.0, 0.0, 0.72, 1.77], [-0.89, "
    "0.03, 0.11, -1.29], [-0.0, -0.44, -1.33, inf], [0.01, -1.4, -1.53, 1.64]], dtype=T.float16, "
    "requires_grad=True); out = F.embedding_bag(T.tensor([1]).expand(6), x1, T.tensor([0, 3, 5, 3, "
    "9223372036854775807, -1, 2, -5])[::2], mode='mean', include_last_offset=True)",
    "F.embedding_bag(T.tensor([1]).expand(6), T.ones(10, 3), T.tensor([0, 5, -1, 2]), mode='mean', "
    "include_last_offset=True)",
    # a float64 mask beside a complex query: torch's message names c10::complex<float>
    "F.scaled_dot_product_attention(T.ones(1, 2, 3, dtype=T.complex64), T.ones(1, 2, 3, dtype=T.complex64), "
    "T.ones(1, 2, 3, dtype=T.complex64), attn_mask=T.zeros(2, 2, dtype=T.float64))",
    "F.scaled_dot_product_attention(T.ones(1, 2, 3, dtype=T.complex128), T.ones(1, 2, 3, dtype=T.complex128), "
    "T.ones(1, 2, 3, dtype=T.complex128), attn_mask=T.zeros(2, 2, dtype=T.float16))",
    # complex class probabilities: torch wants a real floating target; a complex input has no log_softmax
    "F.cross_entropy(T.zeros((1, 1, 0, 1), dtype=T.complex64), T.zeros((1, 1, 0, 1), dtype=T.complex64), "
    "label_smoothing=0.2)",
    "F.cross_entropy(T.zeros((2, 3)), T.zeros((2, 3), dtype=T.complex128))",
    "F.cross_entropy(T.zeros((2, 3), dtype=T.complex64), T.zeros((2, 3)))",
    "F.cross_entropy(T.zeros((0, 3), dtype=T.complex64, requires_grad=True), T.zeros((0, 3)))",
]

test_values_as_torch = cases_as_torch(VALUES, rtol=1e-5, atol=1e-6)
test_raises_as_torch = cases_as_torch(RAISES, raises=True)
