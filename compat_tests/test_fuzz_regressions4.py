"""Regression tests against torch for the differential fuzzer's fourth batch (issue 18): the rare silent
classes fresh seeds still found, a crash, and wrong-exception classes (torch's type and message)."""
import math
import subprocess
import sys

import pytest

from harness import check

nan, inf = math.nan, math.inf


def _same_error(src):
    """Both raise the same type with the same message (the first line)."""
    ref, got = check(lambda T: eval(src, {"T": T, "F": T.nn.functional, "nan": nan, "inf": inf}),  # noqa: S307
                     raises=True)
    assert str(got.exc).split("\n")[0] == str(ref.exc).split("\n")[0]


def _grad_of(T, xs, fn):
    r = fn(T, *xs)
    (r * T.linspace(-1, 2, r.numel()).reshape(r.shape).to(r.dtype)).sum().backward()
    return (r.detach(),) + tuple(x.grad for x in xs)


# --- interpolation and adaptive pooling on empty dims ------------------------------------------------

def test_upsample_bilinear_empty_width_does_not_crash():
    # MindSpore's resize backward read out of bounds (SIGSEGV); torch refuses the empty spatial dim
    code = ("import mstorch as T\nx = T.zeros((1, 1, 2, 0), requires_grad=True)\ntry:\n"
            "    T.nn.functional.upsample_bilinear(x, (7, 9)).sum().backward()\nexcept RuntimeError:\n    pass\n")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=600).returncode == 0
    _same_error("F.upsample_bilinear(T.zeros((1, 1, 2, 0), requires_grad=True), (7, 9))")


@pytest.mark.parametrize("src", [
    "F.interpolate(T.zeros((1, 1, 2, 0)), size=[3, 3], mode='bilinear')",
    "F.interpolate(T.zeros((1, 1, 0, 0)), size=[3, 3], mode='nearest')",
    "F.interpolate(T.zeros((1, 1, 0)), size=[3], mode='linear')",
    "F.interpolate(T.zeros((1, 1, 2)), size=[0], mode='linear')",
    "F.interpolate(T.zeros((1, 1, 2, 0, 2)), size=[3, 3, 3], mode='trilinear')",
    "F.interpolate(T.zeros((1, 0, 2, 2)), size=[3, 3], mode='bicubic')",
    "F.interpolate(T.zeros((1, 0, 2, 2)), size=[3, 3], mode='bilinear', antialias=True)",
    "F.interpolate(T.zeros((1, 1, 2, 0), dtype=T.int32), size=[3, 3], mode='bilinear')",
    "F.interpolate(T.zeros((1, 1, 2, 0)), size=[3, 3], mode='area')",
    "F.adaptive_avg_pool2d(T.zeros((1, 2, 0)), 3)",
    "F.adaptive_avg_pool1d(T.zeros((2, 0)), 3)",
    "F.adaptive_avg_pool3d(T.zeros((1, 0, 2, 2, 2)), 3)",
    "F.adaptive_max_pool1d(T.zeros((0, 0, 3)), 4)",
    "F.adaptive_max_pool2d(T.zeros((1, 0, 2, 2)), 3)",
    "F.adaptive_max_pool3d(T.zeros((1, 2, 0, 2)), 3)",
])
def test_empty_resampling_refused_as_torch(src):
    _same_error(src)


@pytest.mark.parametrize("mode, shape", [("bicubic", (0, 1, 2, 2)), ("trilinear", (0, 1, 2, 2, 2)),
                                         ("nearest", (0, 2, 3)), ("area", (0, 1, 2, 2)),
                                         ("bilinear", (0, 1, 2, 2))])
def test_interpolate_empty_batch(mode, shape):
    check(lambda T: _grad_of(T, [T.zeros(shape, requires_grad=True)],
                             lambda T, x: T.nn.functional.interpolate(x, size=[3] * (len(shape) - 2), mode=mode)))


@pytest.mark.parametrize("fn, shape, size", [
    ("adaptive_avg_pool1d", (0, 1, 2), 3), ("adaptive_avg_pool2d", (0, 1, 2, 2), 3),
    ("adaptive_avg_pool3d", (0, 2, 2, 2), 3), ("adaptive_max_pool1d", (0, 1, 2), 3),
    ("adaptive_max_pool2d", (0, 2, 2), 3), ("adaptive_max_pool3d", (0, 1, 2, 2, 2), 3),
    ("adaptive_avg_pool2d", (0, 1, 2, 2), 0), ("adaptive_avg_pool1d", (1, 0, 2), 3),
])
def test_adaptive_pool_empty(fn, shape, size):
    def f(T):
        r = getattr(T.nn.functional, fn)(T.zeros(shape), size)
        return r, getattr(T.nn.functional, fn)(T.zeros(shape), size) * 1
    check(f)
    if shape[0] == 0 and size:
        check(lambda T: _grad_of(T, [T.zeros(shape, requires_grad=True)],
                                 lambda T, x: getattr(T.nn.functional, fn)(x, size)))


def test_interpolate_area_to_empty_size():
    check(lambda T: T.nn.functional.interpolate(T.ones(1, 1, 2, 2), size=[0, 2], mode="area"))


# --- dtypes and roundings ---------------------------------------------------------------------------

@pytest.mark.parametrize("dt_in, dt_t", [("bfloat16", "float32"), ("float32", "float64"), ("float16", "float32")])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_huber_and_hinge_keep_input_dtype(dt_in, dt_t, reduction):
    # torch writes the loss into a tensor like the input: the target's wider dtype does not promote it
    def f(T):
        x = T.tensor([[0.3, 0.2, -1.7], [2.5, 0.0, 1.1]], dtype=getattr(T, dt_in))
        y = T.tensor([[0.5, -1.0, 1.0], [1.0, -1.0, 1.0]], dtype=getattr(T, dt_t))
        return (T.nn.functional.huber_loss(x, y, reduction=reduction),
                T.nn.functional.hinge_embedding_loss(x, y, reduction=reduction))
    check(f, rtol=1e-2, atol=1e-3)


@pytest.mark.parametrize("a, b", [
    ("T.tensor([[1.5, -0.51, -0.51, 1.19]])", "T.tensor([[-0.81, -1.64, 0.93, -1.49]], dtype=T.float64)"),
    ("T.tensor([[1.5, -0.51, -0.51, 1.19], [0.3, 0.2, 0.1, 0.7]], dtype=T.float16)", "T.tensor(0.37)"),
    ("T.tensor([[1.5, -0.51, -0.51, 1.19], [0.3, 0.2, 0.1, 0.7]], dtype=T.bfloat16)", "T.tensor([[3, 4, 1, 2]])"),
    ("T.tensor([[1, 2, 3, 4]])", "T.tensor(2.5, dtype=T.float64)"),
])
def test_cosine_similarity_normalises_each_operand_in_its_dtype(a, b):
    # torch divides each operand by its own norm in its own dtype, then multiplies (which promotes)
    check(lambda T: T.cosine_similarity(eval(a, {"T": T}), eval(b, {"T": T}), 0), rtol=1e-6, atol=1e-7)  # noqa: S307


def test_multilabel_soft_margin_loss_half_rounds_each_step():
    def f(T):
        x = T.tensor([[0.578125, -1.640625, 1.46875, -1.65625], [1.03125, -0.25, 0.7109375, 0.349609375]],
                     dtype=T.bfloat16)
        y = T.tensor([[0.69140625, 0.25, 0.259765625, 0.62109375], [0.390625, 0.66015625, 0.30078125, 0.859375]],
                     dtype=T.bfloat16)
        return T.nn.functional.multilabel_soft_margin_loss(x, y, T.tensor([1.0, 2.0, 0.5, 0.1]))
    check(f, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("decimals", [2, -2])
def test_round_decimals_half_scales_in_float32(dtype, decimals):
    # -65504 * 100 overflows float16: torch scales in float32 and rounds once
    check(lambda T: _grad_of(T, [T.tensor([0.8999, -65504.0, 1.2345, 3e4], dtype=getattr(T, dtype),
                                          requires_grad=True)],
                             lambda T, x: T.round(x, decimals=decimals)))


@pytest.mark.parametrize("src", [
    "T.tensor([0, 1, 9223372036854775807, -5, -9223372036854775808])",
    "T.tensor([-128, 127, -3, 0], dtype=T.int8)",
    "T.tensor([255, 0, 3], dtype=T.uint8)",
    "T.tensor([-32768, 32767, 4], dtype=T.int16)",
])
def test_softsign_integer_wraps_as_torch(src):
    # torch's x / (x.abs() + 1): abs and + 1 in the integer dtype, which wrap
    check(lambda T: T.nn.functional.softsign(eval(src, {"T": T})))   # noqa: S307


# --- gradients at NaN ----------------------------------------------------------------------------------

@pytest.mark.parametrize("fn", [lambda T, x: T.clamp(x, 0.0), lambda T, x: T.clamp(x, 0.0, 0.1),
                                lambda T, x: x.clamp_max(0.1), lambda T, x: T.nn.functional.hardtanh(x),
                                lambda T, x: T.relu(x),
                                lambda T, x: T.nn.functional.hinge_embedding_loss(
                                    x, T.tensor([0.5, -0.3, -1.0]), 0.5, reduction="none")])
def test_gradient_at_nan_as_torch(fn):
    # torch's clamp passes the gradient only where min <= x <= max, which NaN is not (relu: where x > 0 fails)
    check(lambda T: _grad_of(T, [T.tensor([0.3, nan, -0.2], requires_grad=True)], fn))


# --- bfloat16 through kernels MindSpore's CPU build lacks ------------------------------------------------

@pytest.mark.parametrize("src", [
    "T.diag_embed(T.tensor([[-0.5546875, -0.8046875, -0.0]], dtype=T.bfloat16).expand(2, 3), 1)",
    "T.logsumexp(T.tensor([[110.5, -0.0, 504.0], [-3.3895313892515355e+38, 716.0, 322.0]], dtype=T.bfloat16), 1)",
    "T.fill(T.tensor([[-0.66015625, 0.1298828125, 1.4296875]], dtype=T.bfloat16), 1.5)",
    "T.nn.functional.margin_ranking_loss(T.tensor([[-0.78, 0.28, -1.6]], dtype=T.bfloat16), "
    "T.tensor([[-1.74, -0.25, -1.0]], dtype=T.bfloat16), T.tensor([[1.0, -1.0, 1.0]], dtype=T.bfloat16))",
    "T.special.logsumexp(T.zeros((3, 0), dtype=T.bfloat16), 1)",
    "T.nn.functional.local_response_norm(T.ones(1, 3, 4, dtype=T.bfloat16), 2)",
    "T.nn.functional.l1_loss(T.zeros((0, 4), dtype=T.bfloat16), T.tensor([-0.98, -0.46, -1.57, -0.83], dtype=T.bfloat16))",
    "T.nn.functional.multilabel_soft_margin_loss(T.tensor([[-0.66, 0.12], [-0.42, -0.94]], dtype=T.bfloat16), "
    "T.tensor([[0.53, 0.92], [0.26, 0.28]], dtype=T.bfloat16), size_average=False)",
])
def test_bfloat16_runs_in_float32_where_mindspore_lacks_the_kernel(src):
    check(lambda T: eval(src, {"T": T}), rtol=1e-2, atol=1e-2)   # noqa: S307


def test_bfloat16_fallback_keeps_gradients():
    check(lambda T: _grad_of(T, [T.tensor([[0.5, 1.1, -1.5], [-0.2, 1.7, 0.6]], dtype=T.bfloat16, requires_grad=True)],
                             lambda T, x: T.logsumexp(x, 0, True)), rtol=1e-2, atol=1e-2)


# --- complex functions without a MindSpore kernel ---------------------------------------------------------

@pytest.mark.parametrize("fn", ["expm1", "log1p", "special.expm1", "special.log1p"])
def test_complex_expm1_log1p(fn):
    vals = [complex(1.6, 0.63), complex(-1.1, -0.26), complex(1e-6, 1e-7), complex(0, 0), complex(-0.3, 0.2),
            complex(1.74, 1.08), complex(nan, 1)]

    def f(T):
        mod = T.special if fn.startswith("special.") else T
        return getattr(mod, fn.split(".")[-1])(T.tensor(vals))
    check(f, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("inplace", [False, True])
def test_nan_to_num_complex(inplace):
    def f(T):
        x = T.tensor([complex(nan, -0.75), complex(inf, 0.36), complex(1, -inf)])
        return (x.nan_to_num_(1.0, 2.0, -2.0), x) if inplace else T.nan_to_num(x, 1.0, 2.0, -2.0)
    check(f)


# --- argument checks in torch's order ---------------------------------------------------------------------

@pytest.mark.parametrize("src", [
    "T.bilinear(T.ones(2, 3), T.ones(2, 3), T.ones(4, 3))",
    "T.bilinear(T.ones(2, 3), T.ones(2, 3, 1), T.ones(4, 3, 3))",
    "T.bilinear(T.ones(2, 3), T.ones(3, 3), T.ones(4, 3, 3))",
    "T.bilinear(T.ones(2, 3), T.ones(2, 3), T.ones(4, 2, 3))",
    "T.bilinear(T.ones(2, 3), T.ones(2, 3), T.ones(4, 3, 2))",
    "T.bilinear(T.ones(2, 3), T.ones(2, 3), T.ones(4, 3, 3), T.ones(2, 4))",
    "T.bilinear(T.ones(2, 3), T.ones(2, 3), T.ones(4, 3, 3, 1))",
])
def test_bilinear_checks(src):
    _same_error(src)


@pytest.mark.parametrize("src", [
    "T.polar(T.ones(2, dtype=T.float16), T.ones(2, dtype=T.float16))",
    "T.polar(T.zeros((5, 0), dtype=T.float16), T.zeros((5, 0), dtype=T.float16))",
    "F.cross_entropy(T.tensor([[32767, -3, 4, 32767, -4]], dtype=T.int16), T.zeros((0,), dtype=T.int64))",
    "F.cross_entropy(T.ones(3, 2, dtype=T.complex64), T.tensor([-100, -100, -100, -100]))",
])
def test_dtype_checked_first_as_torch(src):
    _same_error(src)
