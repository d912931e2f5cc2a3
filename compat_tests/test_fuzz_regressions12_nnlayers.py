"""Regression tests against torch for layer classes the differential fuzzer found (issue 18, twelfth batch, seed
9108): scaled_dot_product_attention's early return (an empty output or no keys: zeros, bool as int64, the mask
unchecked), native_dropout of complex input (two complex products, the mask drawn as torch's, drawn at p = 0
and 1 too), complex rms_norm, native_batch_norm's evaluation of an empty 1-D input, the float16/bfloat16
softmax gradient on the rounded output, and the check orders of instance_norm (parameters repeated N times)
and native_group_norm (layout, mixed dtypes, dtype dispatch, element count). batch_norm_update_stats with
running statistics shorter than the channels: torch's kernel writes past their end (a heap corruption that
aborted the fuzzer's worker later, in mstorch's run); mstorch refuses it, checked here in a subprocess."""

import re
import subprocess
import sys

import pytest

from harness import FUZZ_BACKWARD, cases_as_torch, run_case as _run


_BACKWARD = FUZZ_BACKWARD

VALUES = [
    # sdpa: an empty output returns zeros before any kernel: the mask's shape and the batch are not checked,
    # nothing is drawn for the dropout
    "T.manual_seed(7); r = F.scaled_dot_product_attention(T.ones(3, 5, 2, 1, dtype=T.float64), "
    "T.ones(3, 5, 2, 1, dtype=T.float64), T.zeros((3, 5, 2, 0), dtype=T.float64), attn_mask=T.tensor([[False, "
    "True, False, False, False], [False, False, False, False, False], [False, True, True, False, True], [True, True, "
    "True, True, True]]), dropout_p=0.5); out = (r, T.rand(2))",
    "F.scaled_dot_product_attention(T.zeros(2, 2, 1), T.zeros(3, 2, 1), T.zeros(3, 2, 0))",
    "F.scaled_dot_product_attention(T.zeros(3, 2, 1, dtype=T.int32), T.zeros(3, 2, 1, dtype=T.int32), "
    "T.zeros(3, 2, 0, dtype=T.int32))",
    # a bool query gives int64 zeros (torch's zeros plus a link to the inputs)
    "F.scaled_dot_product_attention(T.tensor([[True], [True], [False], [True], [False]]), T.zeros((0, 1), "
    "dtype=T.bool), T.zeros((0, 3), dtype=T.bool))",
    "F.scaled_dot_product_attention(T.ones(0, 3, dtype=T.bool), T.ones(2, 3, dtype=T.bool), T.ones(2, 3, "
    "dtype=T.bool))",
    "F.scaled_dot_product_attention(T.ones(2, 3, dtype=T.bool), T.ones(2, 3, dtype=T.bool), T.ones(2, 0, "
    "dtype=T.bool))",
    "x0 = T.ones(2, 3, requires_grad=True); r = F.scaled_dot_product_attention(x0, x0, x0[:, :0]); "
    "r.sum().backward(); out = (r, x0.grad)",
    # native_dropout of complex input: input * mask (a complex 1) * scale (a complex number): an infinite
    # part gives NaN in both parts
    "T.view_as_real(T.native_dropout(T.tensor([complex(0.8, -0.2), complex(-inf, 0.42), complex(inf, -0.58)]), "
    "0.0, None)[0])",
    "r = T.native_dropout(T.tensor([complex(0.8, -0.2), complex(-inf, 0.42), complex(inf, -0.58)]), 0.0, True); "
    "out = (T.view_as_real(r[0]), r[1])",
    "T.manual_seed(0); r = T.native_dropout(T.tensor([complex(0.8, -0.2), complex(-inf, 0.42), complex(inf, -0.58), "
    "complex(1, 2), complex(-1, 0.5)]), 0.3, True); out = (T.view_as_real(r[0]), r[1], T.rand(2))",
    "T.manual_seed(0); r = T.native_dropout(T.tensor([complex(0.8, -0.2), complex(-inf, 0.42), 3, 4, 5, 6], "
    "dtype=T.complex128), 0.5, None); out = (T.view_as_real(r[0]), r[1], T.rand(2))",
    # native_dropout draws its mask at p = 0 and p = 1 too
    "T.manual_seed(0); r = T.native_dropout(T.ones(7), 0.0, True); out = (r, T.rand(3))",
    "T.manual_seed(0); r = T.native_dropout(T.ones(7), 1.0, None); out = (r, T.rand(3))",
    # complex rms_norm: x * rsqrt(mean(x ** 2) + eps) in complex arithmetic
    "F.rms_norm(T.tensor([[complex(1.863, -0.46), complex(-1.357, -1.41), complex(-0.141, 0.21)], "
    "[complex(-1.015, -0.15), complex(0.252, -0.23), complex(-0.775, 0.82)]]), [2, 3])",
    "F.rms_norm(T.tensor([[complex(1, 2), complex(-0.5, 0.3), complex(0.1, -1)], [complex(1e-3, 2), "
    "complex(-0.5, 0), complex(0, -0.0)]], dtype=T.complex128), [3], weight=T.tensor([1, 2, 3.], "
    "dtype=T.float64), eps=0.5)",
    "F.rms_norm(T.tensor([[complex(1, 2), complex(-0.5, 0.3), complex(0.1, -1)]]), [3], "
    "weight=T.tensor([complex(1, 1), 2, 3]))",
    "x0 = T.tensor([[complex(1, 2), complex(-0.5, 0.3), complex(0.1, -1)], [complex(1e-3, 2), complex(-0.5, 0), "
    "complex(0.2, -0.1)]], dtype=T.complex128, requires_grad=True); r = F.rms_norm(x0, [3]); "
    "r.abs().sum().backward(); out = (r, x0.grad)",
    # native_batch_norm evaluates an empty 1-D input without reading its channels
    "T.native_batch_norm(T.zeros((0,)), T.zeros((0,)), T.zeros((0,)), T.zeros(3), (T.ones(3) * 2), False, 0.1, "
    "1e-05)",
    "T.native_batch_norm(T.zeros((0,), dtype=T.float16), None, None, T.zeros(3), T.zeros(3), False, 0.1, 1e-05)",
    # float16/bfloat16 softmax: torch's gradient is taken on the rounded output
    "x0 = T.tensor([[4.0, 1.4, 2.7], [-0.1, 4.0, 1.9]], requires_grad=True); r = T.softmax(x0, 1, dtype=T.float16); "
    + _BACKWARD + "; out = (r, x0.grad)",
    "x0 = T.tensor([[4.0, 1.4, 2.7], [-0.1, 4.0, 1.9]], requires_grad=True); r = T.softmax(x0, 0, "
    "dtype=T.float16); " + _BACKWARD + "; out = (r, x0.grad)",
    "x0 = T.tensor([[4.0, 1.4, 2.7], [-0.1, 4.0, 1.9]], requires_grad=True); r = F.softmax(x0.bfloat16(), -1); "
    + _BACKWARD + "; out = (r, x0.grad)",
    # native_group_norm: a float16 input with float32 parameters is torch's mixed type
    "T.native_group_norm(T.ones(2, 4, 3, dtype=T.float16), T.ones(4), None, 2, 4, 3, 2, 1e-5)",
]

RAISES = [
    # instance_norm repeats each parameter N times first: one of more than one dimension refuses
    "F.instance_norm(T.zeros((1, 0, 4)), None, None, T.zeros((1, 0, 4))[:, ::2], T.zeros((1, 0, 4)))",
    "F.instance_norm(T.ones((2, 3, 4)), T.ones(1, 3), T.ones(3))",
    "F.instance_norm(T.ones((2, 3, 4)), None, None, T.ones(3), T.ones(3, 1))",
    # native_group_norm: the layout before the dtype dispatch
    "T.native_group_norm(T.tensor([[[-32768, 4], [0, 4], [32767, -2], [-4, 1]], [[0, -32768], [0, -3], "
    "[0, -32768], [5, 3]], [[2, -1], [4, -2], [32767, 0], [0, 5]]], dtype=T.int16).permute(2, 1, 0), None, None, 2, "
    "4, 3, 2, 1e-05)",
    # ... then the mixed-dtype checks (a parameter of another dtype than the input: float32 ones for a
    # float16/bfloat16 input only)
    "T.native_group_norm(T.ones(2, 4, 3, dtype=T.float16), T.ones(4, dtype=T.float64), None, 2, 4, 3, 2, 1e-5)",
    "T.native_group_norm(T.ones(2, 4, 3), T.ones(4, dtype=T.float64), None, 2, 4, 3, 2, 1e-5)",
    "T.native_group_norm(T.ones(2, 4, 3, dtype=T.float64), T.ones(4), None, 2, 4, 3, 2, 1e-5)",
    "T.native_group_norm(T.ones(2, 4, 3, dtype=T.int16), T.ones(4), None, 2, 4, 3, 2, 1e-5)",
    "T.native_group_norm(T.ones(2, 4, 3), T.ones(4, dtype=T.int32), None, 2, 4, 3, 2, 1e-5)",
    "T.native_group_norm(T.ones(2, 4, 3, dtype=T.float16), T.ones(4), T.ones(4, dtype=T.float16), 2, 4, 3, 2, "
    "1e-5)",
    # ... and a second parameter of another dtype, read by the kernel
    "T.native_group_norm(T.ones(2, 4, 3, dtype=T.float16), T.ones(4, dtype=T.float16), T.ones(4), 2, 4, 3, 2, "
    "1e-5)",
    # complex native_dropout has no derivative
    "T.native_dropout(T.ones(2, dtype=T.complex64, requires_grad=True), 0.5, True)",
    "T.native_dropout(T.zeros(0, dtype=T.complex64, requires_grad=True), 0.5, False)",
]

MESSAGES = [
    ("F.instance_norm(T.zeros((1, 0, 4)), None, None, T.zeros((1, 0, 4))[:, ::2], T.zeros((1, 0, 4)))",
     "Number of dimensions of repeat dims"),
    ("T.native_group_norm(T.ones(3, 4, 2, dtype=T.int16).permute(2, 1, 0), None, None, 2, 4, 3, 2, 1e-05)",
     "Expected X.is_contiguous(memory_format)"),
    ("T.native_group_norm(T.ones(2, 4, 3, dtype=T.float64), T.ones(4), None, 2, 4, 3, 2, 1e-5)",
     "all inputs must share same datatype"),
    ("T.native_group_norm(T.ones(2, 4, 3), T.ones(4, dtype=T.float64), None, 2, 4, 3, 2, 1e-5)",
     "expect parameter to have scalar type of Float"),
]


# float16/bfloat16 layer norm: the input's gradient is torch's float32 formula on the mean and 1 / std rounded to
# the input's dtype (float32 statistics moved gradients that cancel by an ulp of the half dtype)
HALF_LAYER_NORM = [
    "x0 = T.tensor([[[1.1875, -0.8203125, -0.51171875], [1.5390625, -0.06005859375, -0.76171875]], "
    "[[-0.2197265625, 1.4375, -1.1328125], [1.2265625, 0.890625, 0.5703125]]], dtype=T.bfloat16, requires_grad=True); "
    "r = T.native_layer_norm(x0, [3], None, None, 1e-05); " + FUZZ_BACKWARD + "; out = (r, x0.grad)",
] + [
    f"T.manual_seed(3); x0 = T.randn({shape}).to(T.{dt}).requires_grad_(); w = T.randn({shape[-1]}).to(T.{dt}); "
    f"r = F.layer_norm(x0, ({shape[-1]},), w, w * 0.5); " + FUZZ_BACKWARD + "; out = (r, x0.grad)"
    for dt in ("bfloat16", "float16") for shape in ((4, 8), (2, 3, 16), (64, 32))
]

test_values_as_torch = cases_as_torch(VALUES, rtol=1e-5, atol=1e-6)
test_half_layer_norm_as_torch = cases_as_torch(HALF_LAYER_NORM, rtol=1e-3, atol=0)   # (under an ulp)
test_raises_as_torch = cases_as_torch(RAISES, raises=True)


@pytest.mark.parametrize("src,text", MESSAGES)
def test_messages_as_torch(src, text):
    import mstorch
    import torch
    for T in (torch, mstorch):
        with pytest.raises(RuntimeError, match=re.escape(text)):
            _run(T, src)


def test_batch_norm_update_stats_short_running_stats_refused_in_a_subprocess():
    # torch's kernel writes the 5 channels' statistics into 3 elements (a heap corruption, no result to
    # match): mstorch must raise, and the process must live on
    code = (
        "import mstorch as T\n"
        "x = T.tensor([[[-1.0, 0.7, -1.9, 1.4], [0.5, 1.2, 1.3, -1.4], [-0.4, -0.1, 1.3, 1.3], "
        "[-0.6, 1.5, -1.9, 1.1], [1.4, -1.0, 0.7, 0.9]]] * 2, dtype=T.float64)\n"
        "for stats in ((T.zeros(3, dtype=T.float64), None), (None, T.ones(3, dtype=T.float64)),\n"
        "              (T.zeros(3, dtype=T.float64), T.ones(3, dtype=T.float64))):\n"
        "    for _ in range(20):\n"
        "        try:\n"
        "            T.batch_norm_update_stats(x, stats[0], stats[1], 0.5)\n"
        "        except RuntimeError as e:\n"
        "            assert 'elements for 5 channels' in str(e), e\n"
        "        else:\n"
        "            raise AssertionError('no error')\n"
        "rm, rv = T.zeros(7, dtype=T.float64), T.ones(7, dtype=T.float64)\n"
        "T.batch_norm_update_stats(x, rm, rv, 0.5)\n"
        "print('ok', rm[5:].tolist(), rv[5:].tolist())\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "ok [0.0, 0.0] [1.0, 1.0]" in p.stdout
