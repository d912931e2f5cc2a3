"""Regression tests against torch for classes the differential fuzzer found in pooling, convolution and grid
sampling (issue 18, tenth batch): integer max pools, grid samplers on inf/NaN/huge grids, and the order of
torch's shape, emptiness and dtype checks."""
import pytest

from harness import check

NAN, INF = "float('nan')", "float('inf')"


@pytest.mark.parametrize("src", [
    # integer max pools: MindSpore's kernels start a window's maximum one above the dtype's minimum (2-d) or at 0 (3-d)
    "T.max_pool1d_with_indices(T.tensor([[[1, -4], [0, -4]], [[-1, -3], [3, -1]], [[-5, 0], [0, 0]], "
    "[[0, -32768], [5, 4]]], dtype=T.int16), 3, 2, 1, ceil_mode=True)",
    "F.max_pool3d_with_indices(-T.arange(1, 61, dtype=T.int32).reshape(1, 2, 3, 2, 5).flip(-1), 2)",
    "F.max_pool3d_with_indices((T.arange(60) % 7 - 5).reshape(1, 1, 3, 4, 5).to(T.int8), 2, 1, 1)",
    "F.max_pool2d(T.zeros(1, 2, 3, 4, dtype=T.uint8), 2, 1, 1, return_indices=True)",
    "F.max_pool2d(T.tensor([[[[-9223372036854775808, -9223372036854775807, 5], [0, -9223372036854775808, 1]]]]), "
    "2, 1, 1, return_indices=True)",
    "F.max_pool3d(T.tensor([-2147483648, -2147483647, 3, -1] * 6, dtype=T.int32).reshape(1, 2, 3, 2, 2), 2, 1, 1, "
    "ceil_mode=True, return_indices=True)",
    "F.max_pool1d(T.tensor([[[-128, -128, -127, 3, -128]]], dtype=T.int8), 2, 2, 1, 2, True, True)[0]",
    "T.max_pool3d(T.zeros((0, 1, 4, 3, 4), dtype=T.int8), 3, 2, 1, ceil_mode=True)",
    "F.max_pool2d(T.zeros((0, 2, 3, 4), dtype=T.int32), 2, return_indices=True)",
    # grid samplers: out-of-bounds corners read nothing (NaN/inf positions had no integer to gather at)
    "T.grid_sampler_3d(T.tensor([[[[[1.5, nan, -0.3], [-inf, 0.6, -1.7], [-0.7, 1.0, 3.4028235e+38]], [[inf, 0.4, 1.6], "
    "[0.8, 1.8, -1.3], [-1.7, -1.3, -1.0]], [[inf, 0.8, -inf], [1.5, 0.3, 1.7], [0.7, -0.8, 1e+30]]]]]), "
    "T.tensor([[[[[-3.4028235e+38, inf, -0.1], [0.0, -inf, -0.21]], [[0.63, 0.3, -0.74], [-0.82, 0.0, 0.16]]], "
    "[[[-0.53, 0.74, -0.27], [-0.0, -0.09, 0.13]], [[-inf, -0.38, -0.11], [-0.52, -0.02, -0.05]]]]]), 0, 0, False)",
    "T.grid_sampler_2d(T.tensor([[[[-1e-45, 1.27, 0.49], [-0.0, 0.0, 1e+30], [-0.16, 0.87, -1.84]]]]), "
    "T.tensor([[[[0.909, inf], [-0.886, -0.571]], [[-0.034, -inf], [0.916, nan]]]]), 0, 0, False)",
    "T.grid_sampler(T.tensor([[[[inf, inf, 3.4028235e+38], [-1.077, 0.014, 0.164], [-3.4028235e+38, -0.254, -1.716]]]]), "
    "T.tensor([[[[0.7, -0.8], [0.2, 0.0]], [[0.5, nan], [0.7, 0.5]]]]), 0, 0, False)",
    "F.grid_sample(T.tensor([[[[-1e-45, -0.0, -0.6], [-1.9, 1.7, -0.0], [-0.1, -0.1, 0.9], [-0.4, -1e-45, 1.4]], "
    "[[-0.5, 0.0, 1.5], [-0.6, -1.4, 0.8], [1.6, -0.0, 1.2], [-1e-45, -inf, 1.0]]]]), T.tensor([[[[-inf, 0.0], "
    "[nan, 1.15]], [[1.07, -0.22], [0.57, 1e-45]], [[0.84, -0.22], [-0.0, 0.67]]]]), 'bicubic', 'zeros', False)",
    # torch's 3-d kernel clips NaN to the far border (its 2-d one to 0)
    "T.grid_sampler_3d(T.arange(27.).reshape(1, 1, 3, 3, 3), T.tensor([[[[[nan, 0.2, 0.], [inf, nan, -0.3]]]]]), 0, 1, False)",
    "T.grid_sampler_3d(T.arange(27.).reshape(1, 1, 3, 3, 3), T.tensor([[[[[nan, 0.2, 0.], [-inf, 0.1, nan]]]]]), 1, 2, True)",
    # empty inputs torch answers
    "F.avg_pool2d(T.zeros((0, 3, 2, 1), dtype=T.float16), 3, 2, 1)",
    "F.lp_pool2d(T.zeros((0, 2, 1, 5)), 2.0, (3, 2), ceil_mode=True)",
    "F.lp_pool3d(T.zeros((0, 3, 3, 5, 3)), 2, (2, 3, 2), 1, True)",
    "T.conv_tbc(T.tensor([[[-0.6], [-0.5]]]), T.zeros((1, 1, 0)), T.tensor([1.75])[1:], 1)",
    "F.conv1d(T.tensor([[[9, 0, 8, 5, 0, 9], [0, 5, 10, 3, 10, 3]]], dtype=T.uint8), T.ones(3, 2, 3, dtype=T.uint8))",
])
def test_same_as_torch(src):
    check(lambda T: eval(src, {"T": T, "F": T.nn.functional, "nan": float("nan"), "inf": float("inf")}))


def _grad_case(src_x, src_g, mode, padding, align, view=False):
    def fn(T):
        x = T.tensor(eval(src_x, {"nan": float("nan"), "inf": float("inf")}), requires_grad=True)
        g = T.tensor(eval(src_g, {"nan": float("nan"), "inf": float("inf")}), requires_grad=True)
        r = T.grid_sampler(x.permute(3, 2, 1, 0) if view else x, g[1:] if view else g, mode, padding, align)
        (r * T.linspace(-1, 2, r.numel()).reshape(r.shape)).sum().backward()
        return r, x.grad, g.grad
    return fn


@pytest.mark.parametrize("case", [
    # the listed class: out-of-bounds corners add no NaN to the input's gradient
    ("[[[[nan]], [[nan]], [[-0.1]]], [[[0.0]], [[1.0]], [[3.4028235e+38]]], [[[3.4028235e+38]], [[0.4]], [[0.0]]]]",
     "[[[[-2.614, 2.1], [0.951, 1.395]], [[0.536, -2.707], [-1.267, 2.793]]], [[[-0.19, -0.0], [0.6, -0.87]], "
     "[[-0.29, inf], [0.73, 0.19]]]]", 0, 0, False, True),
    # torch's 3-d backward drops the gradient of a point whose coordinate clipped from NaN
    ("[[[[[0.8], [inf]]], [[[-0.09], [1.36]]]]]", "[[[[[0.99, 1e30, -0.49]], [[0.51, -0.19, -inf]]]]]", 1, 1, True),
    ("[[[[[-0.78, nan], [-1.05, 0.82]]], [[[0.46, 3.4e+38], [0.33, -inf]]]]]", "[[[[[-0.469, -inf, -0.33]]]]]", 0, 2,
     False),
    # 3-d zeros padding: a corner out of bounds passes no gradient to the grid either
    ("[[[[[-1.31, -0.46, -0.06], [1e30, -0.74, -0.82], [-0.09, -0.66, 1.12]]]]]", "[[[[[3.4e38, nan, -0.43]]]]]", 0,
     0, False),
    # a clipped coordinate's gradient is 0 times the incoming one (NaN stays NaN)
    ("[[[[inf], [-1.09]], [[0.29], [1.32]]]]", "[[[[1e10, 2.5]]]]", 0, 2, False),
    # reflection over a single pixel: the grid's gradient is zeros, not absent
    ("[[[[-0.499]], [[0.0213]]]]", "[[[[-0.66, 1.088], [-1.0, -0.942]], [[-0.5098, -0.1039], [-1.149, -0.2121]]]]", 1,
     2, True),
])
def test_grid_sampler_grad_as_torch(case):
    check(_grad_case(*case))


@pytest.mark.parametrize("src", [
    "F.lp_pool3d(T.zeros((3, 0, 0, 5, 0), dtype=T.uint8), 2, 2)",
    "F.avg_pool3d(T.tensor([[[[[0], [0]]], [[[5], [2]]], [[[0], [255]]], [[[1], [4]]]]], dtype=T.uint8), 2, 1, 1, "
    "divisor_override=3)",
    "F.avg_pool3d(T.tensor([[[[-1.73]], [[1.48]], [[1.96]]]]).expand(1, 3, 1, 3), 2, 1, 1, divisor_override=3)",
    "F.lp_pool1d(T.tensor([[[-2], [0]], [[5], [-1]]], dtype=T.int16), 1, 3)",
    "F.adaptive_avg_pool2d(T.ones(2, 3, 7, 6, dtype=T.int8), 1)",
    "F.adaptive_avg_pool3d(T.ones(2, 3, 7, 6, 2, dtype=T.int32), 1)",
    "T.nn.functional.max_pool3d(T.ones(3, 3, 1, 3, dtype=T.complex64), (2, 3, 2), return_indices=True)",
    "F.max_unpool2d(T.tensor([0.173, 1.62, 0.158, -2.98])[::2], T.tensor([[[0, 3], [9, 15]]]), 2, "
    "output_size=(1, 2, 4, 4))",
    "F.conv_transpose2d(T.zeros((3, 0, 0)), T.zeros((3, 0, 3, 3)))",
    "T.conv_tbc(T.zeros((3, 2, 0), dtype=T.bool), T.zeros((2, 0, 3), dtype=T.bool), T.tensor([True, False, True]))",
    "T.conv2d(T.zeros((0, 3, 1, 1), dtype=T.bool).expand(0, 3, 0, 1), T.zeros((3, 3, 0, 0), dtype=T.bool))",
    "T.conv2d(T.zeros((0, 3, 3, 5)), T.zeros((3, 3, 0, 0)))",
    "F.conv1d(T.tensor([[[9, 0, 8, 5, 0, 9], [0, 5, 10, 3, 10, 3]]], dtype=T.uint8), T.ones(3, 2, 3, dtype=T.uint8), "
    "padding='valid', dilation=2)",
    "T.conv3d(T.ones(1, 2, 4, 5, 4, dtype=T.int8), T.ones(3, 2, 2, 2, 2, dtype=T.int8), None, 1, (1, 0, 1), (2, 1, 1))",
    "T.convolution(T.zeros((3, 3, 0), dtype=T.int16), T.ones(3, 4, 4, dtype=T.int16), T.ones(4, dtype=T.int16), [2], "
    "[1], [1], True, [1], 1)",
    "T.convolution(T.zeros((1, 3, 1)).expand(1, 3, 0), T.ones(3, 4, 4, dtype=T.float64).float(), None, [2], [1], [1], "
    "True, [1], 1)",
])
def test_raises_as_torch(src):
    check(lambda T: eval(src, {"T": T, "F": T.nn.functional}), raises=True)
