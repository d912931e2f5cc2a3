"""Regression tests against torch for nn classes the differential fuzzer found (fifteenth batch): the half triplet
margin loss rounded after each step (margin, margin + d_pos, the difference; MindSpore's CPU Sub and Minimum have
no bfloat16 kernel, which had sent the whole loss through float32), the float16 transposed convolution with torch's
roundings (column products rounded once, then added into the output in float16 one kernel offset after another;
its weight gradient accumulated image by image), embedding_bag's weight dtype and offsets checks before its
offset2bag for 2-D indices, scaled_dot_product_attention's shape errors for empty batches (it answers without them
only for no query rows or an empty value), and cross_entropy with class probabilities of an empty integer input
(no dtype check, -0 rows)."""


from harness import FUZZ_BACKWARD, cases_as_torch


_BACKWARD = FUZZ_BACKWARD

_TRIPLET = (
    "x0 = T.tensor([[-1.3515625, -0.02001953125, -1.390625, -0.10986328125, 0.390625], [-0.26953125, 0.330078125, "
    "1.3828125, 1.21875, 1.203125], [-0.5390625, -0.2197265625, -1.0, -0.94140625, 0.48046875]], dtype=T.{dt}, "
    "requires_grad=True); x1 = T.tensor([[-1.5390625, 1.7578125, -1.703125, -0.5390625, -1.4609375], [-1.3671875, "
    "-1.0, 1.203125, 0.359375, 1.6484375], [0.640625, 0.279296875, -0.1298828125, -0.1904296875, -0.16015625]], "
    "dtype=T.{dt}, requires_grad=True); x2 = T.tensor([[0.51171875, 0.359375, 0.306640625, 0.63671875, 0.56640625], "
    "[0.26953125, 0.515625, 0.921875, 0.25390625, 0.65625], [0.91796875, 0.26171875, 0.2392578125, 0.490234375, "
    "0.296875]], dtype=T.{dt}, requires_grad=True); r = F.triplet_margin_loss(x0, x1, x2, {args}); " + _BACKWARD
    + "; out = (r, x0.grad, x1.grad, x2.grad)")

_CONV_T2D = (
    "T.conv_transpose2d(T.tensor([[[[-0.1500244140625, -0.7900390625, 1.83984375], [-1.1103515625, -1.8203125, "
    "-0.85986328125], [-0.219970703125, -0.990234375, -1.1103515625], [0.389892578125, -0.72998046875, "
    "0.1500244140625]], [[-1.1103515625, 1.08984375, 0.91015625], [-0.60009765625, -1.3701171875, -1.8701171875], "
    "[0.89013671875, -0.7900390625, 1.23046875], [0.89013671875, -1.490234375, 1.509765625]], [[-0.56005859375, "
    "-0.7998046875, -0.77978515625], [-1.669921875, 0.75, -1.330078125], [0.389892578125, 0.919921875, "
    "0.27001953125], [0.75, -0.9599609375, -0.3798828125]], [[-1.5400390625, -1.6904296875, -1.4404296875], "
    "[-1.9501953125, -1.5703125, 0.409912109375], [-0.260009765625, -0.93017578125, 0.029998779296875], "
    "[1.4697265625, 0.43994140625, 0.040008544921875]]], [[[-0.029998779296875, -0.1300048828125, -1.1201171875], "
    "[0.18994140625, -0.27001953125, 1.8203125], [1.8896484375, 1.76953125, -1.66015625], [-1.7802734375, "
    "1.6103515625, -1.9599609375]], [[-1.080078125, 1.669921875, -0.39990234375], [-0.919921875, -1.2900390625, "
    "-1.7900390625], [1.6796875, 0.31005859375, 1.0703125], [-1.349609375, -1.73046875, 1.6201171875]], "
    "[[-1.1904296875, -0.25, -0.60009765625], [-0.1300048828125, -1.419921875, -0.43994140625], [-1.509765625, "
    "0.68017578125, 1.6298828125], [-1.5302734375, 0.2900390625, -1.400390625]], [[-1.8701171875, -1.099609375, "
    "1.8896484375], [-0.89990234375, -1.509765625, 0.0200042724609375], [0.1800537109375, -1.509765625, "
    "-1.01953125], [0.8701171875, -0.199951171875, -1.9697265625]]]], dtype=T.float16), T.tensor([[[[0.344970703125, "
    "1.216796875, -0.9140625], [-0.2359619140625, 0.8837890625, -0.18798828125], [-1.1748046875, -1.2685546875, "
    "-0.65185546875]], [[-0.08599853515625, -0.35302734375, -0.67822265625], [0.51220703125, -0.347900390625, "
    "-1.9658203125], [1.1494140625, 0.218994140625, -1.33984375]], [[-0.040008544921875, 1.74609375, "
    "-1.2744140625], [0.6259765625, -1.0244140625, -0.59423828125], [0.51611328125, 1.818359375, 1.556640625]]], "
    "[[[1.2333984375, 0.98583984375, 0.488037109375], [0.705078125, -1.68359375, 0.85205078125], [-1.7578125, "
    "-0.2099609375, 0.7490234375]], [[-0.98876953125, -0.77392578125, -0.509765625], [0.376953125, -0.7099609375, "
    "1.498046875], [0.04901123046875, -0.1949462890625, -1.9638671875]], [[1.4296875, -0.64892578125, "
    "0.5517578125], [1.095703125, 0.95703125, 1.4970703125], [-0.06597900390625, -0.9482421875, -1.6787109375]]], "
    "[[[0.9912109375, 0.240966796875, -1.1259765625], [-0.406982421875, -1.390625, -1.19921875], [-1.9111328125, "
    "1.7470703125, 0.0689697265625]], [[-0.880859375, 1.015625, -1.9697265625], [-0.489013671875, 1.591796875, "
    "0.14697265625], [1.1103515625, -0.2939453125, -1.3076171875]], [[-0.96923828125, -1.927734375, "
    "-0.445068359375], [-0.93505859375, 0.94580078125, -0.7919921875], [-0.055999755859375, -1.767578125, "
    "-1.875]]], [[[0.1390380859375, 0.2958984375, -0.01800537109375], [0.68212890625, -0.7119140625, "
    "-1.3466796875], [0.81396484375, -0.3359375, -1.6142578125]], [[1.3251953125, 0.63818359375, -1.326171875], "
    "[0.320068359375, 0.52294921875, -0.39892578125], [0.451904296875, 1.4931640625, 0.50390625]], "
    "[[-1.576171875, -0.22900390625, 1.318359375], [1.232421875, 0.451904296875, -1.650390625], [1.447265625, "
    "-1.9443359375, 1.3154296875]]]], dtype=T.float16), T.tensor([0.56005859375, 0.35009765625, 0.449951171875, "
    "-0.1600341796875, -1.8095703125, -1.2998046875], dtype=T.float16), stride=2, padding=1, output_padding=1, "
    "groups=2)")


def _conv_t(n, args):
    """A float16 transposed convolution of ``n`` spatial dims with its gradients (seeded inputs, rounded to
    float16, of magnitudes whose sums cancel)."""
    sp = ", ".join(["4"] * n)
    ks = ", ".join(["3"] * n)
    return (f"g = T.Generator().manual_seed(7); x0 = (T.randn(2, 4, {sp}, generator=g) * 1.5).to(T.float16)"
            f".requires_grad_(); x1 = T.randn(4, 3, {ks}, generator=g).to(T.float16).requires_grad_(); "
            f"x2 = T.randn(6, generator=g).to(T.float16).requires_grad_(); "
            f"r = F.conv_transpose{n}d(x0, x1, x2, {args}); " + _BACKWARD + "; out = (r, x0.grad, x1.grad, x2.grad)")


VALUES = [
    # bfloat16 / float16 triplet margin loss: each step rounded (the bfloat16 Sub had sent it all through float32)
    _TRIPLET.format(dt="bfloat16", args="0.5, 1, reduction='none'"),
    _TRIPLET.format(dt="bfloat16", args="0.3, 1, swap=True, reduction='none'"),
    _TRIPLET.format(dt="float16", args="0.3, 1, swap=True, reduction='sum'"),
    _TRIPLET.format(dt="bfloat16", args="1.1, 2, reduction='none'").replace(_BACKWARD + "; ", "").replace(
        ", x0.grad, x1.grad, x2.grad", ""),
    # float16 transposed convolutions: torch's column products rounded, then added offset by offset in float16
    _CONV_T2D,
    _conv_t(1, "stride=2, padding=1, output_padding=1, groups=2"),
    _conv_t(2, "stride=2, padding=1, output_padding=1, groups=2"),
    _conv_t(2, "stride=1, dilation=2, groups=2"),
    _conv_t(3, "stride=2, padding=1, groups=2"),
    # class-probability cross_entropy of an empty integer input: no dtype check before the empty answer
    "x1 = T.zeros((0, 0, 3), dtype=T.bfloat16, requires_grad=True); r = F.cross_entropy(T.zeros((3, 0, 0), "
    "dtype=T.int8).permute(2, 1, 0), x1, reduction='none'); " + _BACKWARD + "; out = (r, x1.grad)",
    "x1 = T.zeros((2, 0), requires_grad=True); r = F.cross_entropy(T.zeros((2, 0), dtype=T.bool), x1, "
    "reduction='none', label_smoothing=0.2); " + _BACKWARD + "; out = (r, x1.grad)",
    "F.cross_entropy(T.zeros((2, 0)), T.zeros((2, 0)), reduction='none')",
    # scaled_dot_product_attention answers without checks only for no query rows or an empty value
    "F.scaled_dot_product_attention(T.zeros((2, 0, 5)), T.zeros((3, 1, 4)), T.zeros((3, 1, 5)))",
    "F.scaled_dot_product_attention(T.zeros((2, 3, 5)), T.zeros((3, 1, 5)), T.zeros((0, 1, 5)))",
    "F.scaled_dot_product_attention(T.zeros((2, 3, 5)), T.zeros((2, 1, 5)), T.zeros((2, 0, 5)), "
    "attn_mask=T.zeros(7, 7))",
]

RAISES = [
    # torch.embedding_bag of 2-D indices: check_arguments (weight dtype, offsets[0], offsets[-1]) first
    "T.embedding_bag(T.tensor([[-4, 1], [1, 4], [-4, -1], [2, 5]], dtype=T.int16), T.tensor([[2, 4], [3, 3], "
    "[1, 5], [2, 1]]), T.tensor([[2, 3], [2, 4], [0, 5], [5, 3]]))",
    "T.embedding_bag(T.zeros(4, 2, dtype=T.float64), T.tensor([[2, 4], [3, 3]]), T.tensor([[105, -3]]))",
    "T.embedding_bag(T.zeros(4, 2, dtype=T.float64), T.tensor([[2, 4], [3, 3]]), T.tensor([[0, 9], [0, 1]]))",
    # scaled_dot_product_attention: an empty batch still goes through the products' shape checks
    "F.scaled_dot_product_attention(T.zeros((0, 3, 5)), T.tensor([[[-0.976, -2.675, 2.048, 1.072, 1.203]], "
    "[[-0.678, 1.926, 0.321, 0.149, -0.305]], [[0.049, 1.174, 0.591, 1.214, -0.921]], [[0.134, 0.506, -0.154, "
    "-0.777, 0.112]]])[1:], T.tensor([[[0.642, 1.038, 1.717, -1.859, 1.265]], [[-1.487, -1.544, -1.834, -0.649, "
    "-1.172]], [[1.031, -1.562, -0.7, 1.939, 1.549]]]))",
    "F.scaled_dot_product_attention(T.zeros((2, 3, 5)), T.zeros((0, 1, 5)), T.zeros((2, 1, 5)))",
    "F.scaled_dot_product_attention(T.zeros((0, 3, 5)), T.zeros((3, 1, 4)), T.zeros((3, 1, 5)))",
    "F.scaled_dot_product_attention(T.zeros((2, 3, 0)), T.zeros((3, 1, 0)), T.zeros((3, 1, 5)))",
    "F.scaled_dot_product_attention(T.zeros((2, 3, 5)), T.zeros((2, 0, 5)), T.zeros((2, 1, 5)))",
]


test_values_as_torch = cases_as_torch(VALUES, rtol=1e-5, atol=1e-6)
test_raises_as_torch = cases_as_torch(RAISES, raises=True)
