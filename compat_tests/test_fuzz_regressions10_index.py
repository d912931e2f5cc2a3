"""Regression tests against torch for the differential fuzzer's classes in indexing, scatter/gather, sorting,
counting, scans, shape and random ops (issue 18, tenth batch): values, exception types and calls that raised
where torch returns (and the reverse)."""
import pytest

from harness import check, check_grad
import numpy as np


@pytest.mark.parametrize("src", [
    # topk of a 0-d tensor gives the value whether k is 0 or 1
    "T.topk(T.tensor(0.71), 0)",
    "T.tensor(0.156).topk(0)",
    # the median of an empty integer tensor is NaN converted to the dtype (x86: the minimum for int32/int64)
    "T.zeros((0,), dtype=T.int64).median()",
    "T.zeros((0,), dtype=T.int32).nanmedian()",
    "T.zeros((0,), dtype=T.int16).median()",
    # histogram bins of linspace edges: torch's linear estimate, an overflowing one included
    "T.histogramdd(T.tensor([[0.7, 0.4], [3.4028235e+38, -3.4028235e+38], [0.0, 1.7], [0.3, 0.0]]), [3, 3], "
    "weight=T.tensor([1.0, 2.0, 4.0, 8.0]))",
    "T.histogram(T.tensor([0.7, 3.4028235e+38, 0.0, 0.3]), 3)",
    "T.histogram(T.tensor([0.7, 3.4028235e+38, 0.0, 0.3], dtype=T.float64), 3)",
    "T.histogramdd(T.zeros((1, 0), dtype=T.float64), 2)",
    # where still takes a uint8 condition (deprecated in torch: read as != 0)
    "T.where(T.tensor([[0, 9, 9], [0, 4, 10]], dtype=T.uint8), T.tensor([[complex(-3.3, -1.97), complex(1.5, -4.29), "
    "complex(-4.3, -4.99)], [complex(-0.4, -2.01), complex(-4.2, 3.25), complex(1.6, 1.57)]]), 2.5)",
    # masked_fill_ on an expanded receiver: a location takes the value when any of its copies is masked
    "(x := T.tensor([[-2, -2, 2]]), x.expand(2, 3).masked_fill_(T.tensor([[False, True, False], [False, True, False]]), "
    "2.5), x)",
    "(x := T.tensor([[-2, -2, 2]]), x.expand(2, 3).masked_fill_(T.tensor([[False, True, False], [True, False, False]]), "
    "7), x)",
    # index_copy: nothing is checked in an empty self that stays empty; a 0-d source is one row
    "T.index_copy(T.zeros((0, 0)), 0, T.tensor([-5, 5, -5, 4])[1:], T.zeros((6, 0))[::2])",
    "T.zeros((2, 0), dtype=T.int64).index_copy_(0, T.tensor([0, 3]), T.zeros((2, 0), dtype=T.int64))",
    "T.zeros(2).index_copy_(0, T.tensor([1]), T.tensor(5.))",
    # unique_consecutive along a dim of an empty tensor that is the empty one
    "T.unique_consecutive(T.zeros((0, 2)), dim=0, return_inverse=True)",
    # scans of 0-d or empty tensors into a bool out= never reach the kernel
    "T.cumsum(T.tensor(False), 0, out=T.zeros(0, dtype=T.bool))",
    "T.cumsum(T.tensor(1.5), 0, out=T.zeros(0, dtype=T.bool))",
    "T.cumsum(T.tensor([], dtype=T.bool), 0, out=T.zeros(0, dtype=T.bool))",
    "T.cumprod(T.tensor(False), 0, out=T.zeros(0, dtype=T.bool))",
    # complex logcumsumexp: torch's scan of log(exp(a) + exp(b)), infinities and NaN included
    "T.logcumsumexp(T.tensor([[complex(1000.451, 1000.89), complex(1000.263, 1000.98), complex(1000.415, 1000.05)]]), 1)",
    "T.logcumsumexp(T.tensor([[complex(-float('inf'), 1), complex(-float('inf'), 0.98), complex(-1.4, 1.05)], "
    "[complex(1, float('nan')), complex(float('inf'), 0.98), complex(-1.4, 1.05)], [complex(float('inf'), 1), "
    "complex(float('inf'), 0.98), complex(-1.4, 1.05)]], dtype=T.complex128), 1)",
    # dim_order: an empty tensor is contiguous, but not channels-last unless its strides are
    "T.zeros((0, 6, 2, 1), dtype=T.uint8)[:, ::2].dim_order(ambiguity_check=[T.contiguous_format, T.channels_last])",
    "T.empty_strided((0, 3, 2, 1), (6, 2, 1, 1)).dim_order(ambiguity_check=[T.contiguous_format, T.channels_last])",
    # multinomial with no distribution to draw from returns an empty result
    "T.multinomial(T.zeros((0, 3)), 2, True)",
    "T.multinomial(T.zeros((0, 0)), 1, True)",
    # isin: a small transposed test set of another dtype flattens after its conversion
    "T.isin(T.tensor([[127, -128, -1], [0, 5, 5]], dtype=T.int8), T.tensor([[1, 2], [3, 4]])[:, :1])",
    "T.isin(T.tensor([[1, 2, 3], [0, 5, 5]], dtype=T.int8), T.arange(60, dtype=T.int8).reshape(6, 10).t())",
    # MindSpore's UniqueConsecutive opens an empty group before a leading NaN
    "T.unique(T.tensor([[float('nan')]], dtype=T.bfloat16), return_inverse=True, return_counts=True)",
    "T.unique(T.tensor([float('nan'), float('nan')]), return_inverse=True, return_counts=True)",
    "T.unique_consecutive(T.tensor([float('nan'), float('nan'), 1, 1, float('nan')]), return_inverse=True, "
    "return_counts=True)",
    # bfloat16 histograms (a sliced input, densities divided in the dtype as torch does)
    "T.histogram(T.tensor([2.125, 1.203125, 5.59375, -1.6015625, 4.90625], dtype=T.bfloat16)[1:], bins=4, "
    "range=(0.0, 3.0))",
    "T.histogramdd(T.tensor([[0.1, 0.5], [0.3, 0.2], [0.9, 0.9]], dtype=T.bfloat16), [2, 3], "
    "range=[0., 1., 0., 1.], density=True)",
    "T.histogramdd(T.zeros((0, 3), dtype=T.bfloat16)[::2], [2, 3, 2], range=[-1.0, 1.0, -2.0, 2.0, 0.0, 1.0], "
    "density=True)",
    # cummax/cummin answer an empty input before looking at dim
    "T.zeros((0,), dtype=T.bool).cummin(1)",
    # index_put: an empty result never checks the indices' range; bool and complex accumulation
    "T.index_put(T.zeros(2, 0), (T.tensor([2, 0]),), T.zeros(1, 0))",
    "T.tensor([[False, True, False], [True, True, False]]).index_put((T.tensor([1, 1]), T.tensor([2, 2])), "
    "T.tensor([True, False]), accumulate=True)",
    "T.tensor([1j, 2]).index_put((T.tensor([1, 1]),), T.tensor([1 + 1j, 2j]), accumulate=True)",
    # scatter_add with an empty index reads nothing of src (no shape check)
    "T.scatter_add(T.tensor([[1.5, -2.0], [0.5, 4.0]], dtype=T.bfloat16), 0, T.zeros((4, 0, 3, 3), "
    "dtype=T.int64), T.tensor([[1.5, -2.0], [0.5, 4.0]], dtype=T.bfloat16))",
    # flip of a 0-d tensor
    "T.tensor(-1).flip([-1])",
])
def test_returns_as_torch(src):
    check(lambda T: eval(src))


@pytest.mark.parametrize("src", [
    # index_copy: torch's order of checks (ranks, dtypes, slice shapes, index count, then ranges)
    "T.index_copy(T.tensor([[[0.29, -0.131, 0.239, 0.435], [-1.68, -0.768, -0.985, 1.892], [-1.216, -0.076, -0.189, "
    "1.106]]]), 0, T.tensor([2, 2]), T.tensor([[[-1.6, -1.1, -0.1, -0.0], [1.2, -1.2, -0.9, -1.2]]]))",
    "T.zeros((2, 0), dtype=T.int64).index_copy_(1, T.tensor([0, 0]), T.tensor([[-2, -4], [-5, -2]]))",
    "T.zeros((0,), dtype=T.int64).index_copy_(0, T.tensor([0, 3]), T.zeros((2,), dtype=T.int64))",
    "T.zeros((3, 1, 4, 0), dtype=T.complex64).index_copy(0, T.zeros((3, 1, 4, 0), dtype=T.uint8), "
    "T.zeros((6, 1, 4, 0), dtype=T.complex64)[::2])",
    "T.zeros((2,), dtype=T.int64).index_copy_(0, T.tensor([0, 3]), T.zeros((), dtype=T.int64))",
    "T.zeros((2, 3), dtype=T.int64).index_copy_(0, T.tensor(3), T.zeros((), dtype=T.int64))",
    "T.zeros((2, 3), dtype=T.int64).index_copy_(0, T.tensor([1], dtype=T.int32), T.zeros((1, 3, 1), dtype=T.int64))",
    # index_add: torch's scatter path (first/last dim, alpha 1, int64 index) or its own loop
    "T.index_add(T.tensor([[0.400390625], [0.84375]], dtype=T.bfloat16)[1:], 1, T.tensor([1, -1, 1, 0], "
    "dtype=T.int32)[::2], T.tensor([[-0.0830078125, -1.7421875]], dtype=T.bfloat16))",
    "T.index_add(T.zeros(2, 3), 1, T.tensor([1, 5]), T.zeros(2, 2))",
    "T.index_add(T.zeros(2, 3, 4), 1, T.tensor([1, 5]), T.zeros(2, 2, 4))",
    "T.index_add(T.zeros(2, 3), 1, T.tensor([1, 5]), T.zeros(2, 2), alpha=2)",
    # index_put / indexing: an indexed dim of size 0 fails before the value's shape and dtype
    "T.index_put(T.zeros((10, 0))[::2], (T.tensor([1, 1]), T.tensor([0, 0])), T.tensor([1.805, -2.472, 1.668, 1.431, "
    "1.648, -0.967, 1.546, 2.051, 1.74, -0.252])[::2], accumulate=True)",
    "T.zeros(2, 0)[:, T.tensor([0])]",
    "T.index_put(T.zeros((5, 1)), (T.tensor([1, 1]), T.tensor([0, 0])), T.zeros(5, dtype=T.float64), accumulate=True)",
    # bucketize of a number has no out= overload
    "T.bucketize(2.0, T.tensor([1.532, 5.048, 5.211]), out=T.zeros(0))",
    # unique along a dim: a 0-d input has none; an empty input must be empty along that dim only
    "T.tensor(0, dtype=T.int32).unique(dim=0, return_inverse=True, return_counts=True)",
    "T.tensor(0, dtype=T.int32).unique_consecutive(dim=0)",
    "T.unique_consecutive(T.zeros((0, 1)), return_counts=True, dim=1)",
    "T.unique_consecutive(T.zeros((0, 0)), dim=1)",
    "T.unique(T.zeros((0, 0)), dim=0)",
    # repeat_interleave: the repeats' dtype is checked before its rank; with an input, after its rank and size
    "T.repeat_interleave(T.tensor([[2, 0, 0]], dtype=T.uint8))",
    "T.repeat_interleave(T.tensor([0], dtype=T.uint8))",
    "T.repeat_interleave(T.tensor([1., 2]), T.tensor([[2, 1]], dtype=T.uint8))",
    "T.repeat_interleave(T.tensor([1., 2]), T.tensor([2], dtype=T.int16))",
    "T.repeat_interleave(T.tensor([1., 2]), T.tensor([-2, 1], dtype=T.int16))",
    # histc: the data's range, its checks and the edges' conversion to the dtype come before the kernel's dtype
    "T.tensor([32767], dtype=T.int16).histc(4)",
    "T.tensor([65504], dtype=T.float16).histc(4)",
    "T.tensor([3], dtype=T.int32).histc(4, 0, 4e9)",
    "T.tensor([3], dtype=T.complex64).histc(4)",
    "T.tensor([3], dtype=T.bool).histc(4, 0, 1)",
    # random: complex ranges, empty distributions, binomial's order of checks
    "T.randint_like(T.zeros(2, dtype=T.complex64), -3, 3)",
    "T.randint_like(T.zeros(2, dtype=T.complex64), 3, 1)",
    "T.zeros(2, dtype=T.complex64).random_(1, None)",
    "T.zeros(2, dtype=T.complex128).random_(-(1 << 63), None)",
    "T.multinomial(T.zeros((5, 0)), 4, True)",
    "T.multinomial(T.zeros((5, 0)), 1, True)",
    "T.binomial(T.tensor([[19.75, 17.0, 22.375, 20.5]], dtype=T.bfloat16), T.zeros((0,), dtype=T.bfloat16))",
    "T.binomial(T.ones(2, dtype=T.float32), T.ones(2, dtype=T.int64))",
    # scans of a bool dtype that reach the kernel
    "T.cumsum(T.tensor([False, True]), 0, out=T.zeros(0, dtype=T.bool))",
    # isin's small-test kernel flattens a transposed or expanded test set with view(-1)
    "T.isin(T.tensor([[127, -128, -1], [0, 5, 5]], dtype=T.int8), T.tensor([[-128, -4], [4, 0], [3, -4]], "
    "dtype=T.int8).t(), invert=True)",
    "T.isin(T.tensor([[1, 2, 3], [0, 5, 5]]), T.tensor([1, 2, 3]).expand(2, 3))",
    "T.isin(5, T.tensor([[-128, -4], [4, 0], [3, -4]], dtype=T.int8).t())",
    # masked_fill_ broadcasts the receiver with the mask (the receiver named first)
    "T.zeros(1, 3).masked_fill_(T.ones(1, 4).bool(), 1.)",
    # histogramdd: the bins' dtype is compared before the kernel's dtype; count bins take the data's range
    "T.histogramdd(T.tensor([[True, True]]), [T.tensor([-2.0, 0.0, 2.0]), T.tensor([-1.0, 1.0])])",
    "T.histogramdd(T.tensor([[0.1, 0.5], [0.3, 0.2]], dtype=T.bfloat16), [2, 3])",
    # searchsorted's sorter: int64, of the boundaries' shape
    "T.searchsorted(T.tensor([5, -4, 4, 0, 0]), T.tensor([-3]).expand(2), sorter=T.tensor([1, 2, 0]))",
    "T.searchsorted(T.tensor([5, -4, 4, 0, 0]), T.tensor([-3]), sorter=T.tensor([1, 2, 0, 3, 4]).int())",
    "T.topk(T.tensor(True), 1)",
    # median(dim) writes a (values, indices) pair: one out tensor is refused before the dim is looked at
    "T.median(T.tensor([1]), 1, out=T.zeros(0, dtype=T.int64))",
    # index_put expands the value as it is (no leading 1 dropped)
    "T.index_put(T.tensor([[5e-324, -0.64]], dtype=T.float64), (T.tensor([1, 1]), T.tensor([0, 0])), "
    "T.tensor([[5e-324], [3.]], dtype=T.float64).t())",
    # repeat_interleave's count sum wraps around int64
    "T.repeat_interleave(T.tensor([9223372036854775807, -3, 0, -1, 1, -5])[::2])",
])
def test_raises_as_torch(src):
    check(lambda T: eval(src), raises=True)


def test_topk_0d_k0_grad():
    check_grad(lambda T, x: T.topk(x, 0)[0] * 2, [np.array(0.71, np.float32)])


def test_flip_0d_grad():
    check_grad(lambda T, x: T.flip(x, (0,)) * 3, [np.array(0.66, np.float32)])


def test_cumsum_bfloat16_to_float64_grad():
    def fn(T):
        x = T.tensor([[1.75, float("nan"), 0.828125], [0.73828125, 0.06, 0.42]], dtype=T.bfloat16, requires_grad=True)
        r = T.cumsum(x, 1, dtype=T.float64)
        (r * T.linspace(-1, 2, 6, dtype=T.float64).reshape(2, 3)).sum().backward()
        return r, x.grad
    check(fn)


def test_binomial_infinite_and_nan_probability():
    # an infinite count gives NaN, a non-positive or NaN-free zero probability 0 (the same generator stream)
    def fn(T):
        T.manual_seed(1234)
        return T.binomial(T.tensor([[-0.0, 20.769, float("inf"), 8.587], [7.014, 16.862, 13.035, 1e+30]],
                                   dtype=T.float64),
                          T.tensor([[-5e-324, -float("inf"), 0.4, 0.0], [0.1, 0.9, 0.4, 0.5]], dtype=T.float64))
    check(fn)


def test_sample_dirichlet_tiny_negative_concentration():
    def fn(T):
        T.manual_seed(4)
        return T._sample_dirichlet(T.tensor([[0.76, 0.95, -1e-45], [1.65, 1.44, 1.76]]))
    check(fn)
