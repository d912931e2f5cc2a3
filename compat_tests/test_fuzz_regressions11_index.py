"""Regression tests against torch for the differential fuzzer's classes in reductions, sorting, scatter/gather
and shape ops (issue 18, eleventh batch, indexing part): out= overloads checked before the op (sum's dim=None,
max/min's tuple out, all/any's bool result, take's dtype), checks in torch's order (dims before complex
refusals, overlap before index ranges), empty inputs that reach no kernel, and triu_/tril_ on expanded
receivers."""
import warnings

import pytest

from harness import check, run_case

warnings.filterwarnings("ignore", message="index_reduce\\(\\) is in beta")


def _case(src):
    return lambda T: run_case(T, src)


@pytest.mark.parametrize("src", [
    # sum(out=) takes dim=None (all dims), by keyword or position, keepdim too
    "T.sum(T.tensor([[-1.44], [0.61], [0.44]]).expand(3, 4), dim=None, out=T.zeros(0))",
    "T.sum(T.tensor([[1.5], [-0.10009765625]], dtype=T.bfloat16), dim=None, out=T.zeros(0, dtype=T.bfloat16))",
    "T.sum(T.tensor([[1., 2], [3, 4]]), None, True, out=T.zeros(0))",
    "T.sum(T.tensor([[1, 2], [3, 4]]), dim=None, keepdim=True, out=T.zeros(0, dtype=T.int64))",
    # an empty bfloat16 reduction's result is made without a bfloat16 fill kernel
    "T.sum(T.zeros((3, 1, 0), dtype=T.bfloat16).expand(3, 2, 0), (0, 2), out=T.zeros(0, dtype=T.bfloat16))",
    "T.sum(T.zeros((3, 0), dtype=T.bfloat16), 1, dtype=T.bfloat16)",
    "T.prod(T.zeros((3, 0), dtype=T.bfloat16), 1, dtype=T.bfloat16)",
    "T.nansum(T.zeros((2, 0), dtype=T.bfloat16), 1, dtype=T.bfloat16)",
    # amax/amin of an empty complex input (the dims checked) return before torch's dtype dispatch
    "T.amax(T.zeros((0, 3), dtype=T.complex64)[::2], -1, True)",
    "T.amin(T.zeros((0, 3), dtype=T.complex64), 1)",
    # all/any write a bool result into a uint8 out=
    "T.any(T.tensor([1.5, 0]), 0, out=T.zeros(0, dtype=T.uint8))",
    "T.all(T.tensor([[True, False]]), out=T.zeros(0, dtype=T.uint8))",
    "T.all(T.tensor([[1.], [0]]), 1, out=T.zeros(0, dtype=T.bool))",
    # take with a matching out=
    "T.take(T.tensor([[1.5, -2.0], [0.5, 4.0]], dtype=T.bfloat16), T.tensor([3, -4]), out=T.zeros(0, dtype=T.bfloat16))",
    # triu_/tril_ of an expanded receiver torch writes in place: up to 3 dims, or batches laid out as matrices
    "x = T.tensor([[[1., 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]]); out = (x.expand(2, 1, 3, 4).triu_(0), x)",
    "x = T.tensor([[[[1., 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]]]); out = (x.expand(2, 1, 1, 3, 4).tril_(-1), x)",
    "x = T.tensor([[1.], [2], [3]]); out = (x.expand(2, 3, 4).tril_(0), x)",
    # an empty expanded receiver is left alone
    "x = T.zeros((1, 2, 0, 1)); out = (x.expand(1, 2, 0, 4).triu_(0), x)",
])
def test_returns_as_torch(src):
    check(_case(src))


@pytest.mark.parametrize("src", [
    # max/min over a dim (positional or dim=) write a pair: a Tensor out= is refused first
    "T.max(T.tensor([[[complex(-1.9, -0.88), complex(1.0, 1.28)], [complex(-1.8, 0.96), complex(-1.4, -0.74)]]]), "
    "dim=1, keepdim=False, out=T.zeros(0, dtype=T.complex64))",
    "T.min(T.tensor([[1., 2]]), dim=5, out=T.zeros(0))",
    "T.max(T.zeros((2, 0)), dim=1, out=T.zeros(0))",
    # sum(out=) needs a dim argument; prod's and median's dim is an int
    "T.sum(T.tensor([[1., 2]]), out=T.zeros(0))",
    "T.prod(T.tensor([[1., 2]]), dim=None, out=T.zeros(0))",
    "T.prod(T.tensor([[1., 2]]), None, out=T.zeros(0))",
    "T.median(T.tensor([[1., 2]]), None, out=(T.zeros(0), T.zeros(0, dtype=T.int64)))",
    # index_reduce of an empty self and an empty source: the index range's IndexError
    "T.index_reduce(T.tensor([[-0.436]])[1:], 1, T.tensor([1]), T.zeros((0, 1)), 'mean', include_self=False, "
    "out=T.zeros(0))",
    "T.index_reduce(T.zeros((0, 1)), 1, T.tensor([1]), T.zeros((0, 1)), 'amax', include_self=False)",
    # ... and a non-empty source: torch's storage error filling the excluded slices
    "T.index_reduce(T.zeros((0, 1)), 0, T.tensor([1]), T.zeros((1, 1)), 'mean', include_self=False)",
    # take: out='s dtype before the index range, the index's dtype before out='s
    "T.take(T.tensor([[1.5, -2.0, 3.25, 0.5], [0.5, 4.0, -1.0, 2.0], [1, 2, 3, 4]], dtype=T.bfloat16), "
    "T.tensor([4, 1, 9223372036854775807])[1:], out=T.zeros(0, dtype=T.int64))",
    "T.take(T.tensor([1., 2]), T.tensor([0]), out=T.zeros(0, dtype=T.float64))",
    "T.take(T.tensor([1., 2]), T.tensor([5], dtype=T.int32), out=T.zeros(0, dtype=T.int64))",
    # triu_/tril_ of an expanded 4-d receiver whose batches are not whole matrices: torch's copy-back refuses it
    "T.tensor([[[[inf], [1.1], [inf]], [[-1.1], [-3.4028235e+38], [nan]]]]).expand(1, 2, 3, 4).triu_(0)",
    "T.ones(2, 1, 3, 4).expand(2, 2, 3, 4).tril_(0)",
    "T.ones(2, 1, 1, 3, 4).expand(2, 3, 1, 3, 4).triu_(1)",
    # all/any(out=): a result that is neither bool nor uint8 is refused before the dims are checked
    "T.any(T.tensor(-1.71), (0, 2), out=T.zeros(0))",
    "T.all(T.tensor(2.424), 1, out=T.zeros(0))",
    "T.all(T.tensor([[1.]]), out=T.zeros(0, dtype=T.int64))",
    "T.any(T.tensor([1], dtype=T.uint8), 0, out=T.zeros(0))",
    # put_ on an expanded receiver: the overlap before the index range (not for put, which copies)
    "x = T.tensor([-1e-45]); out = (x.expand(3).put_(T.tensor([-1, -9223372036854775808, -3, 5])[1:], "
    "T.tensor([0.0, 0.392, -3.4028235e+38])), x)",
    "T.put(T.tensor([1.]).expand(3), T.tensor([7]), T.tensor([1.]))",
    "T.tensor([1.]).expand(3).put_(T.tensor([1]), T.tensor([1., 2]))",
    "T.zeros(0).put_(T.tensor([1]), T.tensor([5.]))",
    # sort/argsort/topk/nansum/nanmean: the dims (and topk's k) before the complex or bool refusal
    "T.tensor([complex(inf, 0.01), complex(-0.42, -0.81), complex(1.26, -0.98), complex(1.18, 1.12)]).argsort(1, True)",
    "T.sort(T.zeros(0, dtype=T.complex64), stable=True, dim=3)",
    "T.sort(T.tensor([1j, 2]))",
    "T.topk(T.tensor([1j, 2]), 1, 1)",
    "T.topk(T.tensor([1j, 2]), 5, 0)",
    "T.topk(T.tensor([1j, 2]), 1)",
    "T.topk(T.tensor([True]), 5, 3)",
    "T.topk(T.tensor([True]), 2)",
    "T.nansum(T.tensor([1j, 2]), 1)",
    "T.nanmean(T.tensor([1j, 2]), 1)",
    "T.nansum(T.tensor([1j, 2]), (0, 0))",
    "T.nansum(T.zeros(0, dtype=T.complex64), 0)",
    # dist subtracts first: torch's refusal of a bool operand, before the norm's dtype check
    "x0 = T.tensor([[0.898, 1.465, 1.297]], requires_grad=True); "
    "r = T.dist(x0, T.tensor([[True, True, False], [True, True, True]])[1:], inf); BACKWARD; out = (r, x0.grad)",
    "T.dist(T.tensor([True, False]), T.tensor([True, True]))",
    "T.dist(T.tensor([1, 2]), T.tensor([True, True]), 1)",
])
def test_raises_as_torch(src):
    check(_case(src), raises=True)
