"""Regression tests against torch for the differential fuzzer's classes in scans, scatter/gather, sorting,
shape, view copies, random, creation and distance ops (issue 18, tenth batch, second part): gradients,
values, exception types and calls that raised where torch returns (and the reverse)."""
import warnings

import pytest

from harness import address_space_cap, check

warnings.filterwarnings("ignore", message="index_reduce\\(\\) is in beta")

_BACKWARD = "g = r if isinstance(r, T.Tensor) else r[0]; " \
            "(g * T.linspace(-1, 2, g.numel()).reshape(g.shape).to(g.dtype)).sum().backward()"


def _case(src):
    """A fuzzer case (statements separated by '; ', the last one's value or ``out``) as check's function."""
    def run(T):
        ns = {"T": T, "F": T.nn.functional, "nan": float("nan"), "inf": float("inf")}
        lines = src.replace("BACKWARD", _BACKWARD).split("; ")
        if not lines[-1].startswith("out = "):
            lines[-1] = "out = " + lines[-1]
        exec("\n".join(lines), ns)
        return ns["out"]
    return run


@pytest.mark.parametrize("src", [
    # cumprod's gradient is torch's formula: the reversed sum of grad * out over x, inf / -inf past overflow
    "x0 = T.tensor([0.9, -3.4028235e+38, -1.2], requires_grad=True); r = T.cumprod(x0, -1); BACKWARD; out = (r, x0.grad)",
    # ... and with zeros: the products around the first zero
    "x0 = T.tensor([1., 2, 0, 3, 0, 4], requires_grad=True); r = T.cumprod(x0, 0); BACKWARD; out = (r, x0.grad)",
    "x0 = T.tensor([[1.5, 0, 2, 0.5], [3, 0, 2, 2]], dtype=T.float64, requires_grad=True); r = T.cumprod(x0, 0); "
    "BACKWARD; out = (r, x0.grad)",
    "x0 = T.tensor([float('nan'), 1, 0, 2], requires_grad=True); r = x0.cumprod(0); BACKWARD; out = (r, x0.grad)",
    "x0 = T.tensor([1.1, 2.2, -0.7], dtype=T.bfloat16, requires_grad=True); r = T.cumprod(x0, 0); BACKWARD; "
    "out = (r, x0.grad)",
    "x0 = T.tensor(2.5, requires_grad=True); r = T.cumprod(x0, 0); BACKWARD; out = (r, x0.grad)",
    # scatter_reduce / index_reduce amax, amin: -inf beside the result, NaN in src or self, segments of inf
    "x0 = T.tensor([[1e+30, -inf, -0.47], [1.57, 1.3, 0.85], [-0.76, 0.63, 0.0], [nan, -0.59, 0.61], "
    "[-0.0, 1.22, -0.39]], requires_grad=True); x3 = T.tensor([[1.4, -0.4, -inf]], requires_grad=True); "
    "r = T.index_reduce(x0, 0, T.tensor([1]), x3, 'amax'); BACKWARD; out = (r, x0.grad, x3.grad)",
    "x0 = T.tensor([1., 2, 3, 4], requires_grad=True); x1 = T.tensor([nan, 5, 3], requires_grad=True); "
    "r = T.scatter_reduce(x0, 0, T.tensor([0, 0, 2]), x1, 'amax'); BACKWARD; out = (r, x0.grad, x1.grad)",
    "x0 = T.tensor([1., 2, 3, 4], requires_grad=True); x1 = T.tensor([-inf, 7, inf, nan], requires_grad=True); "
    "r = T.scatter_reduce(x0, 0, T.tensor([0, 0, 2, 3]), x1, 'amin', include_self=False); BACKWARD; "
    "out = (r, x0.grad, x1.grad)",
    "x0 = T.tensor([[1e+30, -inf], [1.57, 0.85], [nan, 0.61]], requires_grad=True); "
    "x1 = T.tensor([[1.4, -inf]], requires_grad=True); "
    "r = T.scatter_reduce(x0, 0, T.tensor([[1, 1]]), x1, 'amax', include_self=False); BACKWARD; "
    "out = (r, x0.grad, x1.grad)",
    "T.scatter_reduce(T.tensor([1., 2, 3]), 0, T.tensor([0, 0, 2]), T.tensor([-inf, -inf, inf]), 'amax', "
    "include_self=False)",
    # scatter_reduce mean of int64 divides exactly
    "T.scatter_reduce(T.tensor([-3074457345618258601, 5, 7]), 0, T.tensor([0, 0, 1]), "
    "T.tensor([-3074457345618258601, 4, 9]), 'mean')",
    # triplet loss with a distance in bfloat16: torch rounds the difference before the norm (no false tie)
    "x0 = T.tensor([[[1.203125, 0.8984375, 1.1015625, 1.3984375], [1.1015625, -0.5, -1.203125, -0.8984375]]], "
    "dtype=T.bfloat16, requires_grad=True); x1 = T.tensor([[[0.5, -1.703125, -1.6015625, 0.80078125], "
    "[-1.203125, -0.0, -1.203125, 0.10009765625]]], dtype=T.bfloat16, requires_grad=True); "
    "x2 = T.tensor([[[0.400390625, 0.69921875, 0.30078125, 0.80078125], [0.69921875, 0.30078125, 0.80078125, "
    "0.6015625]]], dtype=T.bfloat16, requires_grad=True); t0 = T.nn.PairwiseDistance(p=1.0); "
    "r = F.triplet_margin_with_distance_loss(x0, x1, x2, distance_function=t0, swap=True); BACKWARD; "
    "out = (r, x0.grad, x1.grad, x2.grad)",
    "F.pairwise_distance(T.tensor([[1.1015625, -0.5, -1.203125, -0.8984375]], dtype=T.bfloat16), "
    "T.tensor([[0.69921875, 0.30078125, 0.80078125, 0.6015625]], dtype=T.bfloat16), 1.0)",
    # cosine_similarity of 0-d operands, with gradients
    "x0 = T.tensor(-1.71, dtype=T.float64, requires_grad=True); x1 = T.tensor(0.16, dtype=T.float64, "
    "requires_grad=True); r = T.cosine_similarity(x0, x1, dim=-1); BACKWARD; out = (r, x0.grad, x1.grad)",
    "x0 = T.tensor(-1.71, requires_grad=True); x1 = T.tensor([0.16, 2.], requires_grad=True); "
    "r = T.cosine_similarity(x0, x1, dim=0); BACKWARD; out = (r, x0.grad, x1.grad)",
    # gather of bfloat16 with a smaller index (a crop of the input), backward twice
    "x0 = T.tensor([[-0.06, 0.45, -0.03, 1.07, -1.36], [1.58, 1.09, -1.19, 1.31, 1.03], "
    "[0.52, -1.62, -1.1, -0.07, 1.64]], dtype=T.bfloat16, requires_grad=True); "
    "idx = T.tensor([[1, 1, 2], [0, 2, 0]], dtype=T.int32); r = T.gather(x0, 0, idx); BACKWARD; "
    "r = T.gather(x0, 0, idx); BACKWARD; out = (r, x0.grad)",
    # Tensor.unfold of an empty tensor, and windows of size 0, with gradients
    "x0 = T.zeros((0, 4, 4), requires_grad=True); r = x0.unfold(-2, 3, 3); BACKWARD; out = (r, x0.grad)",
    "x0 = T.zeros((2, 4, 4), requires_grad=True); r = x0.unfold(-2, 0, 3); BACKWARD; out = (r, x0.grad)",
    # triu_/tril_ on an expanded receiver: a location becomes 0 when any of its copies is zeroed
    "x = T.tensor([[-0.6, -1.4, -1.8]]); out = (x.expand(3, 3).tril_(0), x)",
    "x = T.tensor([[1.], [2], [3]]); out = (x.expand(3, 3).tril_(1), x)",
    "x = T.tensor([[False]]); out = (x.expand(1, 3).triu_(1), x)",
    "x = T.tensor([[[1., 2], [3, 4]]]); out = (x.expand(2, 2, 2).triu_(1), x)",
    "x = T.tensor([[1., 2], [3, 4]]); out = (x.t().tril_(0), x)",
    # as_strided_scatter of an expanded input writes into a plain clone
    "T.as_strided_scatter(T.tensor([-0.2]).expand(8), T.tensor([0.20319161, 0.8325913, -0.836381]), (3,), (2,), 1)",
    "T.as_strided_scatter(T.arange(12.).reshape(3, 4)[1:], T.tensor([1., 2]), (2,), (2,), 6)",
    "T.as_strided_scatter(T.tensor([[True, True, False], [False, True, False]]).t(), T.tensor([True, False]), "
    "(2,), (5,))",
    "T.tensor([[nan, -0.66, 0.0, -1.03], [-1.6, -0.76, 0.3, -1.44], [1.12, -0.38, -1.13, 0.37]])"
    ".as_strided_scatter(T.tensor([1e+30, 0.452, -0.743]), (3,), (5,))",
    "x0 = T.tensor([[0.606, 0.313], [0.197, -1.444], [-0.681, nan], [inf, 0.487]], requires_grad=True); "
    "x1 = T.tensor([0.68], requires_grad=True); r = T.as_strided_scatter(x0, x1.expand(3), (3,), (3,)); BACKWARD; "
    "out = (r, x0.grad, x1.grad)",
    # take_along_dim without dim gathers, which takes int32 indices
    "T.take_along_dim(T.tensor([[1.6, 1.8], [-0.4, -0.7]]), T.tensor([3], dtype=T.int32))",
    # empty inputs reach no dtype dispatch
    "T.manual_seed(1234); out = T.bernoulli(T.zeros((0,), dtype=T.int64))",
    "T.manual_seed(1234); out = T.bernoulli(T.zeros((0,), dtype=T.int8), out=T.zeros(3))",
    "T.manual_seed(1234); out = T.zeros((0,), dtype=T.int64).bernoulli_(T.zeros(0, dtype=T.int64))",
    # full(out=) is out.fill_(value)
    "T.full((2,), complex(1.0, 0.0), out=T.zeros(0))",
    "T.full((2,), 3.5, out=T.zeros(0, dtype=T.int64))",
    "T.full((2,), True, out=T.zeros(0))",
    # 0-d tensors: movedim of nothing, flatten, take_along_dim of viewable layouts
    "T.moveaxis(T.tensor(0.2), (0,), (0,))",
    "T.flatten(T.tensor(0.3), -1, 0)",
    "T.tensor([[1.57, 0.88, 0.65], [1, 2, 3]])[1:, 1:].take_along_dim(T.tensor([[0, 1]]))",
    "T.tensor([[1.57, 0.88, 0.65]]).take_along_dim(T.tensor([[0, 1, 1, 2]]).t())",
    # searchsorted / bucketize into an int out=
    "T.searchsorted(T.tensor([1., 2]), 2.0, out=T.zeros(0, dtype=T.int32), out_int32=True)",
    "T.searchsorted(T.tensor([[1., 2]]), T.zeros((1, 0)))",
    "T.index_select(T.tensor(1.), 0, T.tensor(0))",
])
def test_returns_as_torch(src):
    check(_case(src))


@pytest.mark.parametrize("src", [
    # the inf norm over an empty dim has no identity
    "x0 = T.zeros((1, 4, 4, 0), requires_grad=True); x1 = T.zeros((1, 4, 4, 0), requires_grad=True); "
    "r = T.pairwise_distance(x0, x1, inf)",
    "T.pairwise_distance(T.zeros(3, 0), T.zeros(3, 0), -inf)",
    # full(out=) of a complex value into a real out
    "T.full((2,), complex(0.0, 1.0), out=T.zeros(0))",
    # 0-d dims are checked as a 1-d tensor's
    "T.flatten(T.tensor(0.3), -2, -1)",
    "T.flatten(T.tensor(0.3), 1, 0)",
    "T.moveaxis(T.tensor(0.2), (0, 1), (2, 0))",
    "T.moveaxis(T.tensor(0.2), (0, -1), (0, 0))",
    # take_along_dim without dim views self and indices as 1-d
    "T.take_along_dim(T.tensor([[-1.69, 1.11, -0.24, 0.89], [-0.16, -0.16, 0.31, -0.05], "
    "[1.9, 0.15, 0.004, -1.7]])[::2], T.tensor([2, 2, 1]))",
    "T.tensor([[1.57, 0.88, 0.65]]).expand(4, 3).take_along_dim(T.tensor([3, 1, 1, 6]))",
    "T.take_along_dim(T.tensor([[1.6, 1.8], [-0.4, -0.7]]), T.tensor([3], dtype=T.int16))",
    "T.take_along_dim(T.tensor([[1.6, 1.8], [-0.4, -0.7]]), T.tensor([[1], [0]], dtype=T.int32), 1)",
    # index_select's checks before out='s dtype, out='s dtype before the index range
    "T.index_select(T.tensor([[1., 2], [2, 3]]), 0, T.tensor([1, 5]), out=T.zeros(0, dtype=T.int64))",
    "T.index_select(T.tensor(1.), 0, T.tensor([1, 0]))",
    "T.index_select(T.tensor(1.), 0, T.tensor([1, 0]), out=T.zeros(0, dtype=T.int64))",
    # searchsorted: out='s dtype before the kernel's
    "T.searchsorted(T.tensor([complex(2.7, 4.39), complex(7.4, 4.1)]), 2.0, out=T.zeros(0, dtype=T.complex64))",
    "T.searchsorted(T.tensor([1., 2]), 2.0, out=T.zeros(0, dtype=T.complex64), out_int32=True)",
    "T.bucketize(T.tensor([1.]), T.tensor([1., 2]), out=T.zeros(0))",
    "T.searchsorted(T.tensor([[1., 2]]), T.zeros((2, 0)))",
    # median with dim of bool/complex: torch's dim= kernel refuses it, a 0-d input included
    "T.zeros((2, 0), dtype=T.complex64).median(0)",
    "T.zeros((), dtype=T.bool).median(0)",
])
def test_raises_as_torch(src):
    check(_case(src), raises=True)


@pytest.mark.parametrize("src", [
    "T.repeat_interleave(T.tensor([2147483647] * 600, dtype=T.int32))",
    "T.repeat_interleave(T.tensor([1., 2]), T.tensor([2, 2 ** 40]))",
])
def test_allocation_error_as_torch(src):
    """The allocation error before the host result is built (it was killed for memory): terabytes, refused
    by both under an address-space cap, so the outcome does not hang on the machine's overcommit policy."""
    with address_space_cap():
        check(_case(src), raises=True)
