"""Regression tests against torch for loss and counting classes the differential fuzzer found (issue 18,
eleventh batch): histogramdd's order of checks (weight dtype, bin counts, dtype dispatch last), histc's
bin position rounded per step in bfloat16, binary_cross_entropy_with_logits with mixed dtypes
(log_sigmoid in input's dtype, each step written into target's dtype, torch's gradient formulas) and its
dtype check first, bool operands of l1_loss/mse_loss, and cross_entropy of a 0-d input."""


from harness import FUZZ_BACKWARD, cases_as_torch, check, run_case as _run


_BACKWARD = FUZZ_BACKWARD

_LOGITS = "T.tensor([[1.3952708, -1.2844163, -1.7825471, -0.55384624], [-0.8983963, 0.1200009, -0.77632433, " \
          "-0.7821026], [-1.5530349, -1.000404, 1.6705196, -0.9434126]])"
_TARGET = "T.tensor([[0.5, 0.4, 0.2, 0.8], [0.5, 0.5, 0.6, 0.3], [0.7, 0.7, 0.6, 0.4]], dtype=T.float64)"

VALUES = [
    # histc: bfloat16's bin position rounds at each step ((x - min) * bins / (max - min)), 3.640625 -> bin 71
    "T.histc(T.tensor([-2.484375, -2.46875, -2.953125, -1.1796875, 6.34375, 1.5625, 2.390625, -1.2265625, "
    "3.640625], dtype=T.bfloat16)[1:])",
    "T.histc(T.tensor([0.1, 0.7, 2.9, 3.3, 5.5], dtype=T.bfloat16), 37, -1.3, 6.1)",
    # histogramdd: tensor bins with range (ignored), an empty float16 input
    "T.histogramdd(T.tensor([[0.1, 0.2], [0.5, 0.9]], dtype=T.float64), (T.tensor([0.0, 1.0], dtype=T.float64), "
    "T.tensor([0.0, 0.5, 1.0], dtype=T.float64)), range=[0.0, 1.0])",
    "T.histogramdd(T.zeros((0, 2), dtype=T.float16), [2, 4])",
    # binary_cross_entropy_with_logits: log_sigmoid in input's dtype, the rest in target's
    "F.binary_cross_entropy_with_logits(" + _LOGITS + ".to(T.float16), " + _TARGET + ")",
    "F.binary_cross_entropy_with_logits(" + _LOGITS + ".to(T.bfloat16), " + _TARGET + ".float())",
    "F.binary_cross_entropy_with_logits(" + _LOGITS + ".to(T.float16), " + _TARGET + ", reduction='none')",
    # pos_weight - 1 in pos_weight's dtype (float16), a float64 weight written into target's float32
    "F.binary_cross_entropy_with_logits(" + _LOGITS + ", " + _TARGET + ".float(), "
    "weight=T.tensor([0.3, 1.7, 2.9, 0.11], dtype=T.float64), "
    "pos_weight=T.tensor([1.3, 0.7, 2.1, 0.9], dtype=T.float16), reduction='none')",
    "T.binary_cross_entropy_with_logits(" + _LOGITS + ".to(T.bfloat16), " + _TARGET + ", None, "
    "T.tensor([1.3, 0.7, 2.1, 0.9], dtype=T.float16), 2)",
    # gradients: torch's formulas (sigmoid(x) - t in input's dtype; -x * g for the target, not in place)
    "x0 = (" + _LOGITS + ").to(T.bfloat16).requires_grad_(); x1 = (" + _TARGET + ").requires_grad_(); "
    "r = F.binary_cross_entropy_with_logits(x0, x1, reduction='none'); " + _BACKWARD + "; "
    "out = (r, x0.grad, x1.grad)",
    "x0 = (" + _LOGITS + ").requires_grad_(); x1 = (" + _TARGET + ").requires_grad_(); "
    "r = F.binary_cross_entropy_with_logits(x0, x1, pos_weight=T.tensor([1.3, 0.7, 2.1, 0.9], dtype=T.float64)); "
    + _BACKWARD + "; out = (r, x0.grad, x1.grad)",
]

RAISES = [
    # histogramdd: the weight's dtype, the bins' count and range before the kernel's dtype
    "T.histogramdd(T.tensor([[1.09, 1.95], [0.18, 0.57], [1.66, 0.92], [0.64, 1.84]], dtype=T.float64), [3, 3], "
    "weight=T.tensor([1.0, 2.0, 4.0, 8.0]))",
    "T.histogramdd(T.tensor([[-2, 0, 32767, -1, 0], [3, 2, -2, -4, 3]], dtype=T.int16), [2, 3, 2], "
    "range=[-1.0, 1.0, -2.0, 2.0, 0.0, 1.0], density=True)",
    "T.histogramdd(T.zeros((1, 0), dtype=T.complex64), [2, 4], weight=T.ones(20, dtype=T.float64))",
    "T.histogramdd(T.zeros((1, 0), dtype=T.complex64), [], weight=T.ones(20, dtype=T.float64))",
    "T.histogramdd(T.zeros((3, 2), dtype=T.int32), [2, 4], range=[0.0, 1.0, 0.0, 1.0], weight=T.ones(4, dtype=T.int32))",
    "T.histogramdd(T.zeros((3, 2), dtype=T.int32), [2, 4], range=[0.0, 1.0, 0.0, 1.0], weight=T.ones(3, dtype=T.int32))",
    "T.histogramdd(T.zeros((3, 2), dtype=T.int32), [2, 0], range=[0.0, 1.0, 0.0, 1.0])",
    "T.histogramdd(T.zeros((3, 2), dtype=T.int32), [2, -1], range=[0.0, 1.0, 0.0, 1e10])",
    "T.histogramdd(T.zeros((3, 2), dtype=T.int32), [2, 2], range=[0.0, 1e10, 0.0, 1.0])",
    "T.histogramdd(T.zeros((3, 2), dtype=T.int32), [-2, 2], range=[0.0, 1.0, 0.0, 1.0])",
    "T.histogramdd(T.zeros((3, 2)).bool(), [0, 2], range=[0.0, 1.0, 0.0, 1.0])",
    "T.histogramdd(T.zeros((3, 2)), [2, 2, 2], range=[1.0, 0.0, 0.0, 1.0])",
    "T.histogramdd(T.zeros((3, 2), dtype=T.float64), [0, 2])",
    "T.histogramdd(T.zeros((3, 2), dtype=T.float64), [0, -1])",
    "T.histogramdd(T.zeros((3, 2), dtype=T.float64), [T.tensor([0.0, 1.0], dtype=T.float64)] * 3)",
    "T.histogramdd(T.zeros((3, 2), dtype=T.float64), [T.tensor([[0.0, 1.0]], dtype=T.float64), T.tensor([0.0, 1.0])])",
    "T.histogramdd(T.zeros((3, 2), dtype=T.float64), [T.tensor([0.0, 1.0], dtype=T.float64), "
    "T.tensor([0.0], dtype=T.float64)])",
    "T.histogramdd(T.zeros((3, 2), dtype=T.float64), [2, T.tensor([0.0], dtype=T.float64)])",
    "T.histogramdd(T.zeros((3, 2), dtype=T.float64), [T.tensor([0.0, 1.0], dtype=T.float64), 2])",
    # binary_cross_entropy_with_logits: log_sigmoid's dtype check before the weights' shapes
    "F.binary_cross_entropy_with_logits(T.zeros((0, 1), dtype=T.complex64), T.zeros((0, 1), dtype=T.complex64), "
    "T.tensor([1.0, 2.0, 0.5, 0.25]))",
    "F.binary_cross_entropy_with_logits(T.tensor([[-5], [2], [5]], dtype=T.int32), T.tensor([[4], [1], [4]], "
    "dtype=T.int32), T.tensor([[2.0], [1.0], [0.5]]), pos_weight=T.tensor([2.0, 2.0, 2.0, 2.0]))",
    "T.binary_cross_entropy_with_logits(T.tensor([False]), T.tensor([False]), T.tensor([0.97, 0.59, 0.97]), None, 1)",
    # l1_loss / mse_loss: torch's input - target refuses bool before anything else
    "F.l1_loss(T.tensor([[True], [False], [False]]), T.tensor([[False], [True], [False]]), reduction='sum')",
    "F.l1_loss(T.tensor([[True], [False]]), T.tensor([[False], [True]]))",
    "F.l1_loss(T.tensor([[True], [False]]), T.tensor([[1], [0]]), reduction='none')",
    "F.mse_loss(T.tensor([[False, True], [True, True]]), T.tensor([[True, False], [True, False]]), "
    "weight=T.ones(2, 2))",
    "F.mse_loss(T.tensor([[False, True], [True, True]]), T.ones(2, 2), weight=T.ones(2, 2), reduction='none')",
    # cross_entropy: a 0-d input with class targets (log_softmax over dim 1)
    "F.cross_entropy(T.tensor(-1.4, dtype=T.float64), T.tensor([-100, -100, -100, -100]))",
    "F.cross_entropy(T.tensor(-1.4, dtype=T.float64), T.tensor([0.5], dtype=T.float64))",
    "F.cross_entropy(T.tensor(-1.4, dtype=T.float64), T.tensor([1]), label_smoothing=2.0)",
]


test_values_as_torch = cases_as_torch(VALUES, rtol=1e-5, atol=1e-6)
test_raises_as_torch = cases_as_torch(RAISES, raises=True)


def test_soft_margin_loss_empty_target_requiring_grad():
    """torch refuses a target that requires grad, empty tensors included (an op whose inputs needing
    gradients are all empty runs with grad mode off: ops/_helpers.records() still answers True there)."""
    for src in ("x0 = T.zeros((0, 2), requires_grad=True); x1 = T.zeros((0, 2), requires_grad=True); "
                "r = F.soft_margin_loss(x0, x1); out = r",
                "x0 = T.zeros((0,), dtype=T.float16, requires_grad=True); x1 = T.zeros((0,), dtype=T.float16, "
                "requires_grad=True); r = F.soft_margin_loss(x0, x1, reduction='sum'); out = r"):
        check(lambda T: _run(T, src), raises=True)
