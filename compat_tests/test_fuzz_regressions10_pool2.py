"""Regression tests against torch for classes the differential fuzzer found in pooling, padding, convolution,
sampling and the ATen norm forms (issue 18, tenth batch, second part): int64 average pools, circular padding
with negative pads, the float64 statistics of batch_norm_update_stats, norm_except_dim's views, and the order
of torch's checks in its ATen kernels."""
import pytest

from harness import check

_ENV = {"nan": float("nan"), "inf": float("inf")}


def _run(src):
    def fn(T):
        ns = {"T": T, "F": T.nn.functional, **_ENV}
        lines = [s.strip() for s in src.split(";")]
        for line in lines[:-1]:
            exec(line, ns)
        return eval(lines[-1], ns)
    return fn


def _backward(src, inputs):
    """``src`` (a call of x0, x1...) weighted by a linspace and backpropagated: (result, input grads)."""
    return (f"r = {src}; g = r if isinstance(r, T.Tensor) else r[0]; "
            "(g * T.linspace(-1, 2, g.numel()).reshape(g.shape).to(g.dtype)).sum().backward(); "
            f"(r,) + tuple(x.grad for x in ({inputs},))")


@pytest.mark.parametrize("src", [
    # int64 average pools: int64 window sums (wrapping) divided with C's truncation (float64 lost digits)
    "F.avg_pool1d(T.tensor([[[9223372036854775807, 9223372036854775807, -7, 5, -9223372036854775808, 3]]]), 2)",
    "F.avg_pool1d(T.tensor([[[9223372036854775807, 9223372036854775807, -7, 5, -9223372036854775808, 3]]]), 3, 2, 1, "
    "True, False)",
    "F.avg_pool2d(T.tensor([[[9223372036854775807, 9223372036854775807, -7, 5, -9223372036854775808, 3]]]), (1, 2), "
    "divisor_override=3)",
    "F.avg_pool3d(T.tensor([9223372036854775807, 9223372036854775807, -7, 5, -9223372036854775808, 3])"
    ".reshape(1, 1, 1, 2, 3).expand(1, 1, 2, 2, 3), 2, 1, 1)",
    # lp pools: torch's int64 pow wraps around (MindSpore's Pow saturated)
    "F.lp_pool3d(T.tensor([9223372036854775807, -9223372036854775808, 3, -5, 2, 1, 0, 4] * 4).reshape(1, 2, 2, 2, 4), "
    "2, 2)",
    "F.lp_pool2d(T.tensor([[[[9223372036854775807, 2, -3, 3037000500]]]]), 2, (1, 2))",
    # ±inf norms pool torch's abs: a complex input's magnitudes
    "F.lp_pool2d(T.zeros((0, 1, 2, 4), dtype=T.complex64), inf, 2)",
    "F.lp_pool2d(T.tensor([[[[3 + 4j, 1j, -2, 0.5]]]], dtype=T.complex64), inf, (1, 2))",
    # circular padding that crops on the other side; empty constant pads
    "F.pad(T.arange(6.).reshape(1, 1, 6), (-3, -3), 'circular')",
    "F.pad(T.arange(12.).reshape(1, 1, 3, 4), (0, 0, -4, 1), 'circular')",
    "F.pad(T.arange(24.).reshape(1, 2, 3, 4), (-1, 2, 1, -1), 'circular')",
    "F.pad(T.zeros((3, 0, 1, 5), dtype=T.float64), (1, 2, 0, 3), value=2.5)",
    "F.pad(T.zeros((3, 0), dtype=T.int32), (1, 2), value=2.5)",
    "F.pad(T.zeros((3, 0), dtype=T.bfloat16), (1, 2, 0, 3), value=2.5)",
    "F.pad(T.zeros(1, 3, 3, 3), (-3, 0, 0, 0, 0, 0), 'reflect')",
    "F.pad(T.zeros(1, 2, 3, 3), (0, 0, -4, 1), 'replicate')",
    # batch_norm_update_stats: torch's contiguous float32 kernel sums in float64
    "T.batch_norm_update_stats(T.tensor([[[[1.09, -3.4028235e+38], [-0.0, 0.82], [-3.4028235e+38, 1.07]]]]), None, "
    "None, 0.3)",
    # running statistics longer than the channels: torch's kernel updates the first ones
    "m = T.zeros(5); v = T.ones(5); r = T.batch_norm_update_stats(T.arange(6.).reshape(2, 3), m, v, 0.1); (r, m, v)",
    "m = T.zeros(3); v = T.ones(3); r = T.native_batch_norm(T.tensor([[[-1.01]]]), T.tensor([1.89]), T.tensor([0.213]), "
    "m, v, True, 0.1, 1e-05); (r, m, v)",
    # native_batch_norm is the kernel: no check of the batch size, eps or the parameters' sizes
    "T.native_batch_norm(T.tensor([[-1.01]]), T.tensor([1.89]), T.tensor([0.213]), None, None, True, 0.1, 1e-05)",
    "T.native_batch_norm(T.zeros((3, 0, 3)), T.zeros((0,)), T.zeros((0,)), T.zeros(3), T.ones(3) * 2, False, 0.1, "
    "1e-05)",
    "T.native_dropout(T.zeros((0,), dtype=T.bool), 0.0, None)",
    "T.native_batch_norm(T.arange(6.).reshape(2, 3), None, None, None, None, True, 0.1, -1)",
    # norm_except_dim: torch's views (a 1-d input keeps its size)
    "T.norm_except_dim(T.tensor([0.535, -0.64]))",
    "T.norm_except_dim(T.zeros((0, 3)), 2, 1)",
    "T.norm_except_dim(T.arange(24.).reshape(2, 3, 4), 3, 1)",
    "T.norm_except_dim(T.arange(24.).reshape(2, 3, 4), 2, 2)",
    # fractional max pools of an empty batch
    "F.fractional_max_pool2d(T.ones(0, 3, 4, 5), 2, 3, _random_samples=T.rand(0, 3, 2))",
    "F.fractional_max_pool3d(T.ones(0, 3, 5, 5, 5), 2, 3, _random_samples=T.rand(0, 3, 3))",
    # an empty complex convolution is zeros
    "T.conv1d(T.zeros((0, 3), dtype=T.complex64), T.zeros((1, 0, 5), dtype=T.complex64).permute(2, 1, 0), None, 1, "
    "'same', 2)",
    "T.conv2d(T.zeros((0, 2, 3, 3), dtype=T.complex64), T.zeros((5, 2, 1, 1), dtype=T.complex64))",
])
def test_same_as_torch(src):
    check(_run(src))


@pytest.mark.parametrize("src", [
    # float64 convolutions stepped in a middle dim: MindSpore's StridedSliceGrad failed on the im2col slices
    _backward("T.conv3d(x0, x1, x2, stride=(1, 2, 1), padding=1)", "x0, x1, x2").replace(
        "r = ", "x0 = T.tensor([[[[[0.0], [-0.0]]]], [[[[0.9], [1.4]]]], [[[[-2.0], [-1.0]]]]], dtype=T.float64, "
        "requires_grad=True); x1 = T.tensor([[[[[-0.5]]]]], dtype=T.float64, requires_grad=True); "
        "x2 = T.tensor([0.25], dtype=T.float64, requires_grad=True); r = ", 1),
    _backward("T.conv2d(x0, x1, None, (2, 1))", "x0, x1").replace(
        "r = ", "x0 = T.arange(90, dtype=T.float64).reshape(2, 3, 5, 3).requires_grad_(); "
        "x1 = T.linspace(-1, 1, 6, dtype=T.float64).reshape(2, 3, 1, 1).requires_grad_(); r = ", 1),
    _backward("F.avg_pool2d(x0, (3, 1), (2, 1), (1, 0))", "x0").replace(
        "r = ", "x0 = T.arange(90, dtype=T.float64).reshape(2, 3, 5, 3).requires_grad_(); r = ", 1),
    # bfloat16 transposed convolutions with a bias (its gradient has no bfloat16 ReduceSum kernel)
    _backward("T.conv_transpose3d(x0, x1, x2, stride=2)", "x0, x1, x2").replace(
        "r = ", "x0 = T.linspace(-1, 1, 54, dtype=T.bfloat16).reshape(1, 2, 3, 3, 3).requires_grad_(); "
        "x1 = T.linspace(-1, 1, 16, dtype=T.bfloat16).reshape(2, 1, 2, 2, 2).requires_grad_(); "
        "x2 = T.tensor([0.5], dtype=T.bfloat16, requires_grad=True); r = ", 1),
    _backward("T.conv_transpose1d(x0, x1, x2, stride=2)", "x0, x1, x2").replace(
        "r = ", "x0 = T.linspace(-1, 1, 6, dtype=T.bfloat16).reshape(1, 2, 3).requires_grad_(); "
        "x1 = T.linspace(-1, 1, 4, dtype=T.bfloat16).reshape(2, 1, 2).requires_grad_(); "
        "x2 = T.tensor([0.5], dtype=T.bfloat16, requires_grad=True); r = ", 1),
    # fractional max pool of an empty batch, backward
    _backward("F.fractional_max_pool2d(x0, 2, 3)", "x0").replace(
        "r = ", "x0 = T.ones(0, 3, 4, 5, requires_grad=True); r = ", 1),
])
def test_grad_as_torch(src):
    check(_run(src))


@pytest.mark.parametrize("src", [
    # circular pads wider than what the other side's negative pad leaves: torch's self-overlapping copy
    "F.pad(T.arange(6.).reshape(1, 1, 6), (-4, 3), 'circular')",
    "F.pad(T.arange(6.).reshape(1, 1, 6), (3, -4), 'circular')",
    "F.pad(T.zeros(1, 2, 3), (-4, 0), 'circular')",
    # reflect / replicate: shape checks before the dtype's, torch's argument numbers and output checks
    "F.pad(T.tensor([[[False, False, False]], [[False, True, False]], [[True, False, True]]]), (1, 1, 2, 0), 'reflect')",
    "F.pad(T.zeros(1, 3, 3, 3), (1, 1, 1, 1, 3, 0), 'reflect')",
    "F.pad(T.zeros(1, 2, 3, 3), (-3, 0, -3, 0), 'replicate')",
    "F.pad(T.zeros(1, 2, 3, 3, 3), (0, 0, 0, 0, -4, 0), 'reflect')",
    "F.pad(T.zeros(1, 3, 3, 3), (-1, -2), 'reflect')",
    # lp pools with an infinite norm take torch's abs (none for bool)
    "F.lp_pool2d(T.zeros((0, 1, 2, 4), dtype=T.bool), inf, 2)",
    "F.lp_pool2d(T.tensor([1, 5, 3, 4], dtype=T.int16)[::2], 2, 3, 2)",
    # native_dropout scales an integer or bool input by a float in place; its p goes to bernoulli_ as 1 - p
    "T.native_dropout(T.tensor([1, 1]), 0.0, True)",
    "T.native_dropout(T.tensor([True, False]), 0.0, True)",
    "T.native_dropout(T.tensor([1., 1]), 1.5, True)",
    # the mixed-dtype checks of torch's CPU batch norms come before the rank's
    "T.batch_norm_update_stats(T.tensor(-1.113, dtype=T.float64), T.zeros(3), T.ones(3), 0.1)",
    "T.batch_norm_update_stats(T.zeros((2, 3)), T.ones(3, dtype=T.float64), None, 0.1)",
    "T.batch_norm_update_stats(T.zeros((2, 3), dtype=T.float16), T.ones(3), T.ones(3, dtype=T.float16), 0.1)",
    "T.native_batch_norm(T.tensor([-2147483648, -1, 3], dtype=T.int32), T.tensor([0, -3, -2147483648], dtype=T.int32), "
    "T.tensor([-2, 2, 5], dtype=T.int32), T.zeros(3), (T.ones(3) * 2), False, 0.1, 1e-05)",
    "T.native_batch_norm(T.tensor([3.], dtype=T.float64), T.ones(1), None, None, None, False, 0.1, 1e-05)",
    "T.native_batch_norm(T.zeros((2, 3), dtype=T.float16), T.ones(3, dtype=T.float64), None, None, None, True, 0.1, "
    "1e-05)",
    # norm_except_dim's view of an empty tensor
    "T.norm_except_dim(T.zeros((0, 0)))",
    "T.norm_except_dim(T.zeros((3, 0)), 2, 1)",
    # grid samplers: torch's common checks (sizes read by index) before the rank's
    "T.grid_sampler_2d(T.tensor(4), T.tensor(-3), 0, 0, False)",
    "T.grid_sampler_3d(T.tensor(1.3), T.tensor(0.4), 0, 0, False)",
    "T.grid_sampler_2d(T.zeros(1, 1, 2, 2), T.tensor(-3.), 0, 0, False)",
    "T.grid_sampler_3d(T.tensor([4.]), T.tensor([-3.]), 0, 0, False)",
    "F.grid_sample(T.zeros((0, 1, 3, 5, 3), dtype=T.complex64), T.zeros((0, 1, 1, 3, 3), dtype=T.complex64), "
    "'bilinear', 'reflection', False)",
    # affine grids: torch's linspace has no bool kernel, its 0-d base grid no half one
    "T.affine_grid_generator(T.tensor([True, True, True, False]), [2, 3, 4, 5], True)",
    "F.affine_grid(T.ones(1, 2, 3, dtype=T.float16), [1, 1, 1, 3], True)",
    "F.affine_grid(T.ones(2, 2, 3, dtype=T.bfloat16), [1, 1, 2, 1], True)",
    # fractional max pools: torch's checks of the random samples, in its order
    "F.fractional_max_pool2d(T.ones(1, 4, 5), 2, 3, _random_samples=T.rand(1, 3, 2))",
    "F.fractional_max_pool2d(T.ones(2, 3, 4, 5), 2, 3, _random_samples=T.rand(1, 4, 3))",
    "F.fractional_max_pool2d(T.ones(2, 3, 4, 5), 2, 3, _random_samples=T.rand(2, 3))",
    "F.fractional_max_pool2d(T.ones(2, 0, 4, 5), 2, 3)",
    "F.fractional_max_pool3d(T.ones(2, 3, 5, 5, 5), 2, 3, _random_samples=T.rand(2, 4, 3))",
])
def test_raises_as_torch(src):
    check(_run(src), raises=True)
