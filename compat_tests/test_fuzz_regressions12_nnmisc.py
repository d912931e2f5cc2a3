"""Regression tests against torch for nn classes the differential fuzzer found (issue 18, twelfth batch,
nn misc): max pooling's index of a window holding NaN (torch's kernels take the window's last NaN, and the
gradient goes there), embedding_bag without bags (or with out-of-range indices its fast path never reads),
the order of binary_cross_entropy's checks (the kernel's dtype and range checks before its product with the
weight), gaussian_nll_loss of an infinite variance, label-smoothed cross_entropy of half logits (each step
rounded to the half type: a sum of log-probabilities overflows), cross_entropy / nll_loss of an ignored row
with an infinite log-probability, and soft_margin_loss's gradient of an integer target whose negation wraps
(a uint8 target's -1 is 255)."""

import pytest

import mstorch
import torch
from harness import FUZZ_BACKWARD, cases_as_torch, run_case as _run


_BACKWARD = FUZZ_BACKWARD

VALUES = [
    # max pooling: the last NaN of a window is its index, and gets the gradient
    "x0 = T.tensor([[1.79, -0.12, -2.44, 1.3, 1.07, 2.9, -3.0], [nan, nan, -1.036, -0.906, -0.695, 1.499, 0.0], "
    "[-1.543, -1.476, 0.687, -0.314, 1.535, 0.181, -1.433], [-0.078, 1.148, 1.264, -1.204, -0.095, -0.637, -1.423]], "
    "requires_grad=True); r = F.adaptive_max_pool1d(x0[1:], 3, return_indices=True); " + _BACKWARD +
    "; out = (r, x0.grad,)",
    "F.max_pool2d(T.tensor([[[[nan, 1.0, nan], [2.0, nan, inf]]]]), 2, 1, return_indices=True)",
    "F.max_pool1d(T.tensor([[nan, inf, nan, 1.0, nan]]), 3, 1, padding=1, return_indices=True)",
    "F.adaptive_max_pool2d(T.tensor([[[[nan, 1.0, nan], [2.0, nan, inf]]]]), 1, return_indices=True)",
    "F.max_pool3d(T.tensor([[[[[nan, 1.0], [nan, 2.0]], [[nan, 3.0], [1.0, 2.0]]]]]), 2, 1, return_indices=True)",
    "F.adaptive_max_pool3d(T.tensor([[[[[nan, 1.0], [nan, 2.0]], [[nan, 3.0], [1.0, 2.0]]]]]), 1, return_indices=True)",
    "F.max_pool2d(T.tensor([[[[nan, 1.0, nan], [2.0, nan, inf]]]], dtype=T.float16), 2, 1, padding=1, dilation=2, "
    "return_indices=True)",
    "x0 = T.tensor([[nan, 1.0, nan, 2.0], [2.0, nan, inf, 3.0]], requires_grad=True); r = F.max_pool1d(x0, 2, 1); "
    "r.sum().backward(); out = (r, x0.grad)",
    "x0 = T.tensor([[[[nan, 1.0, nan, 2.0], [2.0, nan, inf, 3.0]]]], dtype=T.float64, requires_grad=True); "
    "r = F.max_pool2d(x0, 2, 1, padding=1); r.sum().backward(); out = (r, x0.grad)",
    # embedding_bag: no bags, or out-of-range indices past the last offset, are never read by the fast path
    "F.embedding_bag(T.tensor([2, 9], dtype=T.int32), T.tensor([[1.83, -1.13], [0.24, -0.96]])[1:], "
    "T.zeros((0,), dtype=T.int32), mode='mean')",
    "F.embedding_bag(T.tensor([9, 0]), T.tensor([[0.24, -0.96], [1., 2.]]), T.tensor([0]), None, 2, False, 'mean', "
    "False, None, True)",
    "F.embedding_bag(T.tensor([0, 9]), T.tensor([[0.24, -0.96], [1., 2.]]), T.tensor([0, 1]), None, 2, False, 'sum', "
    "False, None, True)",
    "F.embedding_bag(T.tensor([0, 9, 1]), T.tensor([[0.24, -0.96], [1., 2.]]), T.tensor([0, 1, 1]), None, 2, False, "
    "'mean', False, None, True)",
    # gaussian_nll_loss: an infinite variance stays infinite (no inf - inf from the clamp)
    "x0 = T.tensor([0.5, -1.0, 2.0], requires_grad=True); v = T.tensor([1.0, inf, 0.5], requires_grad=True); "
    "r = F.gaussian_nll_loss(x0, T.tensor([0.0, 1.0, 1.5]), v); r.backward(); out = (r, x0.grad, v.grad)",
    "x0 = T.tensor([0.5, -1.0, 2.0], dtype=T.float64, requires_grad=True); v = T.tensor([1e-9, inf, nan], "
    "dtype=T.float64, requires_grad=True); r = F.gaussian_nll_loss(x0, T.tensor([0.0, 1.0, 1.5], dtype=T.float64), "
    "v, reduction='none'); r.sum().backward(); out = (r, x0.grad, v.grad)",
    "F.gaussian_nll_loss(T.tensor([0.5, -1.0, 2.0]), T.tensor([0.0, 1.0, 1.5]), T.tensor([1.0, inf, 0.5]), full=True, "
    "reduction='none')",
    # an ignored row reading an infinite log-probability is 0 (torch skips it; 0 * inf is NaN)
    "x0 = T.tensor([[-inf, 1.0, -2.0], [0.5, 2.0, 1.0]], requires_grad=True); "
    "r = F.cross_entropy(x0, T.tensor([-100, 2]), label_smoothing=0.1); r.backward(); out = (r, x0.grad)",
    "F.cross_entropy(T.tensor([[-inf, 1.0, -2.0], [0.5, 2.0, 1.0]]), T.tensor([-100, 2]), label_smoothing=0.1, "
    "reduction='none')",
    "x0 = T.tensor([[-inf, 1.0, -2.0], [0.5, 2.0, 1.0]], requires_grad=True); "
    "r = F.cross_entropy(x0, T.tensor([-100, 2]), T.tensor([0.5, 2.0, 1.0])); r.backward(); out = (r, x0.grad)",
    # soft_margin_loss: torch's backward negates an integer target in its own dtype (uint8: -1 is 255)
    "x0 = T.tensor([0.5, -1.0, 2.0], requires_grad=True); r = F.soft_margin_loss(x0, T.tensor([1, 0, 255], "
    "dtype=T.uint8)); r.backward(); out = (r, x0.grad)",
    "x0 = T.tensor([0.5, -1.0, 0.002], requires_grad=True); r = F.soft_margin_loss(x0, T.tensor([1, 0, 3], "
    "dtype=T.uint8), reduction='sum'); r.backward(); out = (r, x0.grad)",
    "x0 = T.tensor([0.5, -1.0, 0.002], dtype=T.float64, requires_grad=True); r = F.soft_margin_loss(x0, "
    "T.tensor([1, 0, 3], dtype=T.uint8), reduction='none'); r.sum().backward(); out = (r, x0.grad)",
    "x0 = T.tensor([0.5, -1.0, 2.0], requires_grad=True); r = F.soft_margin_loss(x0, T.tensor([1, 0, -128], "
    "dtype=T.int8), reduction='none'); r.sum().backward(); out = (r, x0.grad)",
    # (an integer target that does not wrap keeps the composed gradient, double backward included)
    "x0 = T.tensor([0.05, -1.0, 0.002], dtype=T.float64, requires_grad=True); r = F.soft_margin_loss(x0, "
    "T.tensor([1, 0, 2]), reduction='sum'); g, = T.autograd.grad(r, x0, create_graph=True); g.sum().backward(); "
    "out = (r, g, x0.grad)",
]

# half types, compared at the fuzzer's tolerances (torch rounds each step in the half type)
HALF = [
    "x0 = T.tensor([[65504.0, 1.0, -2.0], [0.5, 65504.0, 65504.0]], dtype=T.float16, requires_grad=True); "
    "r = F.cross_entropy(x0, T.tensor([0, 2]), label_smoothing=0.1); r.backward(); out = (r, x0.grad)",
    "x0 = T.tensor([[65504.0, 1.0, -2.0], [0.5, 65504.0, 65504.0]], dtype=T.float16, requires_grad=True); "
    "r = F.cross_entropy(x0, T.tensor([0, 2]), label_smoothing=0.1, reduction='none'); r.sum().backward(); "
    "out = (r, x0.grad)",
    "x0 = T.tensor([[65504.0, 1.0, -2.0], [0.5, 65504.0, 65504.0]], dtype=T.float16, requires_grad=True); "
    "r = F.cross_entropy(x0, T.tensor([0, 2]), label_smoothing=0.1, reduction='sum'); r.backward(); out = (r, x0.grad)",
    "x0 = T.tensor([[65504.0, 1.0, -2.0], [0.5, 65504.0, 65504.0]], dtype=T.float16, requires_grad=True); "
    "r = F.cross_entropy(x0, T.tensor([0, 2]), T.tensor([0.5, 2.0, 1.0], dtype=T.float16), label_smoothing=0.1); "
    "r.backward(); out = (r, x0.grad)",
    "x0 = T.tensor([[65504.0, 1.0, -2.0], [0.5, 65504.0, 65504.0], [1.0, 2.0, 3.0]], dtype=T.float16, "
    "requires_grad=True); r = F.cross_entropy(x0, T.tensor([0, -100, 1]), label_smoothing=0.3); r.backward(); "
    "out = (r, x0.grad)",
    "x0 = T.tensor([[1.0, 1.0, -2.0], [0.5, 3.0, 4.0]], dtype=T.float16, requires_grad=True); "
    "r = F.cross_entropy(x0, T.tensor([0, 2]), label_smoothing=0.1); r.backward(); out = (r, x0.grad)",
    "x0 = T.tensor([[3.0e38, 1.0, -2.0], [0.5, 3.0e38, 3.0e38]], dtype=T.bfloat16, requires_grad=True); "
    "r = F.cross_entropy(x0, T.tensor([0, 2]), label_smoothing=0.1); r.backward(); out = (r, x0.grad)",
    "x0 = T.tensor([[nan, 1.0, nan], [2.0, nan, inf]], dtype=T.bfloat16, requires_grad=True); "
    "r = F.adaptive_max_pool1d(x0, 2); r.sum().backward(); out = (r, x0.grad)",
    "x0 = T.tensor([0.5, -1.0, 0.002], dtype=T.float16, requires_grad=True); r = F.soft_margin_loss(x0, "
    "T.tensor([1, 0, 3], dtype=T.uint8), reduction='none'); r.sum().backward(); out = (r, x0.grad)",
]

RAISES = [
    # binary_cross_entropy: the kernel's dtype check, then its range checks, before the weight's product
    "F.binary_cross_entropy(T.tensor([[complex(0.8, 0.59)]]), T.tensor([[complex(0.2, 0.83)]]), "
    "T.tensor([[1.0], [2.0], [0.5]]), reduction='none')",
    "F.binary_cross_entropy(T.tensor([[1.5]]), T.tensor([[0.5]]), T.ones(3, 1))",
    "F.binary_cross_entropy(T.tensor([[0.5]]), T.tensor([[1.5]]), T.ones(3, 1))",
    "F.binary_cross_entropy(T.tensor([[0.5]]), T.tensor([[0.5]]), T.ones(1, 1) * 1j)",
    "F.binary_cross_entropy(T.tensor([[0.5]]), T.tensor([[0.5]]), T.ones(3, 1) * 1j)",
    "F.binary_cross_entropy(T.tensor([1, 0, 0]), T.tensor([1, 0, 0]), T.ones(3, 1))",
    "F.binary_cross_entropy(T.tensor([0.5, 0.5, 0.5]), T.tensor([0.5, 0.5, 0.5]), T.ones(2))",
    # a bool target: torch's backward refuses to negate it
    "x0 = T.tensor([0.5, -1.0, 2.0], requires_grad=True); r = F.soft_margin_loss(x0, T.tensor([True, False, True])); "
    "r.backward(); out = (r, x0.grad)",
]


# torch.embedding_bag's offset2bag without bags: all -1 (torch's cumsum of a -1 at position 0)
ATEN = [
    "T.embedding_bag(T.tensor([[-1.8, 1.4], [0.9, 0.3]]), T.tensor([1]).expand(2), T.zeros((0,), dtype=T.int64), "
    "False, 1)",
    "T.embedding_bag(T.tensor([[-1.8, 1.4], [0.9, 0.3]]), T.tensor([1, 0, 1]), T.tensor([0]), False, 1, False, None, "
    "True)",
]


test_aten_embedding_bag_as_torch = cases_as_torch(ATEN)
test_values_as_torch = cases_as_torch(VALUES, rtol=1e-5, atol=1e-6)


test_half_as_torch = cases_as_torch(HALF, rtol=2e-2, atol=1e-2)
test_raises_as_torch = cases_as_torch(RAISES, raises=True)


@pytest.mark.parametrize("src", RAISES)
def test_messages_as_torch(src):
    msgs = []
    for T in (torch, mstorch):
        with pytest.raises(Exception) as info:
            _run(T, src)
        msgs.append(str(info.value).split("\n")[0])
    assert msgs[0] == msgs[1]
