"""Regression tests against torch for the differential fuzzer's wrong-exception classes where torch raises
(issue 18): out= rules declared in the op registration, pool and shape argument checks, dtypes torch has no
kernel for. Each compares the exception type and, where marked, the first line of the message."""
import math

import pytest

from harness import check

nan, inf = math.nan, math.inf


def _run(src):
    return lambda T: eval(src, {"T": T, "F": T.nn.functional, "nan": nan, "inf": inf})  # noqa: S307


def _same_error(src):
    """Both raise the same type with the same message (the first line)."""
    ref, got = check(_run(src), raises=True)
    assert str(got.exc).split("\n")[0] == str(ref.exc).split("\n")[0]


def _same_type(src):
    check(_run(src), raises=True)


# --- out= ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("src", [
    # a tuple-result op refuses a single tensor before it checks its other arguments
    "T.topk(T.ones(2, 1, 3), 2, -2, out=T.zeros(0))",
    "T.kthvalue(T.ones(4, 2, 1), 2, -1, out=T.zeros(0))",
    "T.aminmax(T.ones(3), out=T.zeros(0))",
    "T.cummax(T.ones(3), 0, out=T.zeros(0))",
    # castable dtypes: float into an integer, anything but bool into bool
    "T.sin(T.tensor([1., 2.]), out=T.zeros(2, dtype=T.uint8))",
    "T.bitwise_xor(T.tensor([1, 2], dtype=T.int8), T.tensor([1, 2], dtype=T.int8), out=T.zeros(2, dtype=T.bool))",
    "T.remainder(T.tensor([1, 2], dtype=T.bfloat16), 2, out=T.zeros(2, dtype=T.int16))",
    "T.full((2,), 1, dtype=T.uint8, out=T.zeros(2))",
])
def test_out_refused_as_torch(src):
    _same_error(src)


@pytest.mark.parametrize("src", [
    # ops torch gives an out= of their result's own dtype only (registered out="exact")
    "T.isin(T.zeros((0,)), T.tensor([nan, 1.0]), out=T.zeros(0))",
    "T.isin(T.tensor([1., 2.]), T.tensor([1.0]), out=T.zeros(2, dtype=T.int64))",
    "T.any(T.tensor([1, 2]), out=T.zeros(()))",
    "T.clamp_max(T.tensor([1, 2]), 1.5, out=T.zeros(2, dtype=T.int64))",
    "T.searchsorted(T.tensor([1, 2]), T.tensor([1]), out_int32=True, out=T.zeros(1))",
    "T.cumsum(T.tensor([1, 2]), 0, dtype=T.float32, out=T.zeros(2, dtype=T.int8))",
])
def test_out_dtype_exact(src):
    _same_type(src)


def test_out_castable_still_written():
    check(lambda T: (lambda o: (T.sin(T.tensor([1., 2.]), out=o), o))(T.zeros(2, dtype=T.float64)))
    check(lambda T: (lambda o: (T.add(T.tensor([1, 2]), 1, out=o), o))(T.zeros(2, dtype=T.float32)))


# --- pools: torch checks for empty non-batch dimensions before it checks the dtype ----------------

@pytest.mark.parametrize("src", [
    "F.max_pool1d(T.zeros(3, 0, 1), 1)",
    "F.max_pool1d(T.zeros(2, 3, 0), 1)",
    "F.max_pool1d(T.zeros(3, 0), 1)",
    "F.max_pool1d(T.zeros(2, 0, 3), 1, return_indices=True)",
    "T.max_pool1d_with_indices(T.zeros((3, 0, 5)), 3, 2, 1, ceil_mode=True)",
    "F.avg_pool1d(T.zeros(2, 0, 3, dtype=T.uint8), 3)",
    "F.max_pool2d_with_indices(T.zeros((1, 0, 1, 2)), 3, 2, 1)",
    "F.max_pool2d_with_indices(T.zeros((1, 0, 2, 1), dtype=T.bool), 3, 2, 1)",
    "F.max_pool2d(T.zeros(3, 0, 3), 1)",
    "F.avg_pool2d(T.zeros((0, 3, 2, 0), dtype=T.int16), 3, 2, 1)",
    "F.lp_pool2d(T.zeros(2, 3, 0, 3), 2, 1)",
    "T.max_pool3d(T.zeros((3, 2, 0, 3, 0)), 3, 2, 1, ceil_mode=True)",
    "F.max_pool3d(T.zeros(3, 3, 0, 3), 1, return_indices=True)",
    "F.avg_pool3d(T.zeros((2, 1, 5, 0, 5), dtype=T.bool), 3, 2, 1, ceil_mode=True, count_include_pad=False)",
    # avg_pool3d's CPU kernel (also behind lp_pool3d and local_response_norm of 4-d input)
    "F.avg_pool3d(T.ones(1, 1, 2, 2, 2, dtype=T.int16), 1)",
    "F.avg_pool3d(T.ones(1, 1, 2, 2, 2, dtype=T.float16), 1)",
    "F.lp_pool3d(T.ones(1, 2, 2, 2, dtype=T.int16), 2, 1)",
    "F.local_response_norm(T.ones(1, 2, 2, 2, dtype=T.float16), 2)",
    "F.local_response_norm(T.ones(1, 2, 2, 2, dtype=T.bfloat16), 2)",
    "F.local_response_norm(T.ones(1, 2, 2, 2, 2, dtype=T.int16), 2)",
])
def test_pool_checks_as_torch(src):
    _same_error(src)


def test_local_response_norm_3d_half_still_computes():
    check(lambda T: T.nn.functional.local_response_norm(T.ones(1, 2, 3, dtype=T.float16), 2), rtol=1e-3)


# --- shape arguments -------------------------------------------------------------------------------

@pytest.mark.parametrize("src", [
    "T.unsafe_split(T.zeros(4, 3), [1, 3])",
    "T.zeros(4, 3).unsafe_split([1, 3])",
    "T.split(T.tensor(1.), 3)",
    "T.split_with_sizes(T.tensor(1.), [3, 5])",
    "T.split_copy(T.tensor(1.), 3)",
    "T.split_with_sizes_copy(T.tensor(1.), [3, 5])",
])
def test_split_checks_as_torch(src):
    _same_error(src)


def test_unsafe_split_int():
    check(lambda T: T.unsafe_split(T.arange(7.), 3))


# --- argument checks and dtypes torch has no kernel for -------------------------------------------

@pytest.mark.parametrize("src", [
    "T.renorm(T.tensor(0.606), 3, -1, 0.8)",
    "T.renorm(T.ones(3), 2, 0, 1.)",
    "T.renorm(T.ones(3, 2), 2, 2, 1.)",
    "T.rad2deg(T.ones(2, dtype=T.complex64))",
    "T.deg2rad_(T.ones(2, dtype=T.complex64))",
    "T.slice_copy(T.tensor([1.36, -1.931], dtype=T.float64)[::2], 1, None, 3)",
    "T.slice_copy(T.ones(2), -2)",
    "T.slice_copy(T.tensor(1.), 0)",
    "T.slice_scatter(T.zeros((0,), dtype=T.float16), T.zeros((0,), dtype=T.float16), 1, 0, 4, 2)",
    "T.index_copy(T.ones(1, 3, 4), 0, T.tensor([0]).expand(2), T.ones(1, 2, 4))",
    "T.ones(3, 4).index_copy_(1, T.tensor([1, 2]), T.ones(3, 2, 1))",
    "T.ones(3, 4).index_copy_(1, T.tensor([1, 2]), T.ones(3, 3))",
    "T.special.gammainc(T.tensor([False, False]), T.tensor([True, False]))",
    "T.igamma(T.tensor([1, 0, 5]), T.tensor([5, -4, -2]))",
    "T.special.gammaincc(T.tensor([1, 0, 5]), T.tensor([5, 4, 2], dtype=T.int8))",
    "T.special.i1(T.ones(2, dtype=T.float16, requires_grad=True)).sum().backward()",
    "T.special.i1e(T.ones(2, dtype=T.bfloat16, requires_grad=True)).sum().backward()",
    "T.linalg.cond(T.eye(3, dtype=T.bfloat16))",
    "T.linalg.eigvals(T.eye(3, dtype=T.float16))",
    "T.linalg.eig(T.eye(3, dtype=T.bfloat16))",
    "T.cholesky_solve(T.eye(2, dtype=T.bfloat16), T.eye(2, dtype=T.bfloat16))",
    "T.cholesky_solve(T.eye(2, dtype=T.int32), T.eye(2, dtype=T.int32))",
    "T.index_select(T.zeros((2, 0), dtype=T.int64), 1, T.tensor([0, 1]))",
    "T.index_select(T.zeros((0, 3)), 0, T.tensor([0]))",
    "T.tensordot(T.tensor(True), T.tensor(False), dims=1)",
    "T.tensordot(T.ones(2, 3), T.ones(3), dims=2)",
    "F.adaptive_max_pool2d(T.tensor(1.109), (4, None), True)",
    "F.adaptive_avg_pool3d(T.tensor([2.118, -1.2, 0.1, 1.9]), (None, 2, None))",
    "F.adaptive_max_pool3d(T.ones(2, 2, 3, dtype=T.int32), (2, 4, 3))",
    "F.adaptive_avg_pool2d(T.ones(2, 3), (2, 2))",
])
def test_checks_as_torch(src):
    _same_error(src)


@pytest.mark.parametrize("src", [
    "T.renorm(T.tensor([[1., 2], [3, 4]]), 2, -1, 1.)",
    "T.tensordot(T.ones(2, 3), T.ones(2, 3), dims=2)",
    "F.adaptive_avg_pool2d(T.ones(2, 3, 4), (2, None))",
    "T.slice_copy(T.arange(5.), -1, 1, 4, 2)",
    "T.igammac(T.tensor([1, 2, 5]), T.tensor([5., 4, 2]))",
    "T.special.i1(T.tensor([0.5, 1.5], dtype=T.float16))",
    "T.special.i1e(T.tensor([0.5, 1.5], dtype=T.bfloat16, requires_grad=True)).grad_fn.name()",
])
def test_valid_calls_still_agree(src):
    check(_run(src), rtol=1e-2, atol=1e-3)
