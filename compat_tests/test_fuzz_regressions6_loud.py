"""Regression tests against torch for the differential fuzzer's loud classes (issue 18): another exception
type than torch's, or one side raising where the other returns. Grouped by root cause: torch's checks that
come before its kernel's dtype check (complex refusals, overlapping receivers, size(d) reads), checks torch
skips for empty inputs, ops MindSpore has no kernel for computed another way, and argument checks."""
import pytest

from harness import check
from test_fuzz_regressions5 import _run, _same_error


def _same_value(src, **kw):
    check(_run(src), **kw)


# --- torch refuses complex inputs with its own message, before anything else (a shared table) ---------

COMPLEX_REFUSED_AS_TORCH = [
    "T.tensor([[complex(2.2, 1.2), 1j]]).argmax()",
    "T.argmin(T.zeros(0, dtype=T.complex64))",
    "T.fmax(T.tensor([1j]), T.tensor([2j]))",
    "T.maximum(T.tensor([1.]), T.tensor([1 + 1j]))",
    "T.sort(T.zeros((0,), dtype=T.complex64))",            # empty: torch still refuses
    "T.argsort(T.zeros((4, 0), dtype=T.complex64), 1, True)",
    "T.msort(T.zeros((0, 1, 3), dtype=T.complex64))",
    "T.topk(T.tensor([1j, 2j]), 1)",
    "T.tensor([complex(-1.0, -1.86)]).isneginf()",
    "T.isposinf(T.tensor([1j]))",
    "T.nansum(T.tensor([1j]))",
    "T.nanmean(T.tensor([1j]))",
    "F.kl_div(T.tensor([1.]), T.tensor([1j]))",
    "F.cosine_similarity(T.tensor([1.]), T.tensor([1j], dtype=T.complex128), 0)",
    "T.sign(T.tensor([1j]))",                              # NotImplementedError in torch
    "T.tensor([1j]).sign_()",
    "T.min(T.tensor([[1j, 2j]]), 0)",
    "T.tensor(1j).max(0, True)",
    "T.max(T.tensor([1j]))",                               # (no dim: torch's missing max_all kernel)
    "T.round(T.tensor([1j]))",                             # MindSpore fails where torch has no kernel either
]


def test_complex_refusal_after_dim_check():
    check(_run("T.max(T.tensor([[1j, 2j]]), 5)"), raises=True)


COMPLEX_FLOAT_TESTS = [
    "T.tensor([[1j, complex(nan, 1)], [complex(1, nan), 2]]).isnan()",
    "T.isinf(T.tensor([complex(inf, 0), 1j, complex(0, -inf)]))",
    "T.isfinite(T.tensor([complex(nan, 0), 1j, complex(0, inf)]))",
]


# --- the receiver of an in-place op is checked before the kernel's dtype ---------------------------------

OVERLAPPING_RECEIVER_FIRST = [
    "F.elu_(T.tensor([[5], [-3]], dtype=T.int32).expand(2, 3))",
    "F.relu_(T.tensor([[5], [-3]], dtype=T.bool).expand(2, 3))",
    "T.tensor([[[-3.3, 2.9, 3.4]]], dtype=T.float64).expand(2, 1, 3).lcm_(T.tensor([[[2.]]], dtype=T.float64))",
]


# --- MindSpore kernels without bfloat16: computed in float32, rounded once ---------------------------------

BFLOAT16_WITHOUT_KERNEL = [
    "F.threshold(T.tensor([-0.1953125, -29.0, 0.1], dtype=T.bfloat16)[1:], 6.0, 20)",
    "F.threshold(T.tensor([-0.5, 3.0, 0.1, 0.25], dtype=T.bfloat16), 0.1, 20.0)",  # threshold not rounded
    "(lambda x: (F.threshold(x, 0.1, 20.0, True), x))(T.tensor([-0.5, 3.0, 0.1], dtype=T.bfloat16))",
    "T.cartesian_prod(T.tensor([1.5, 2.], dtype=T.bfloat16), T.tensor([1., 3.], dtype=T.bfloat16))",
    "T.frexp(T.tensor([-3.3895313892515355e+38, inf, 1e+30, 2.], dtype=T.bfloat16))",
]


def test_bfloat16_raw_op_gradient():
    def fn(T):
        x = T.tensor([1.84375, 1.8515625, 1.5390625], dtype=T.bfloat16, requires_grad=True)
        y = T.tensor([0.5, 0.890625], dtype=T.bfloat16, requires_grad=True)
        r = T.cartesian_prod(x, y)
        (r * T.linspace(-1, 2, r.numel()).reshape(r.shape).to(r.dtype)).sum().backward()
        return r, x.grad, y.grad
    check(fn, rtol=2e-2, atol=1e-2)


# --- checks torch skips for an empty input or index -----------------------------------------------------

EMPTY_INPUT_RETURNS = [
    "T.scatter(T.zeros((0, 0), dtype=T.int16), 1, T.zeros((0, 0), dtype=T.int16), 9)",
    "T.scatter(T.zeros(2, 2), 1, T.zeros(0, 2, dtype=T.int16), T.zeros(1, 1))",
    "T.scatter_add(T.zeros(2, 2), 1, T.zeros(5, 0, dtype=T.int64), T.zeros(1, 1))",
    "T.zeros((0,), dtype=T.float16).scatter_reduce(0, T.zeros((0,), dtype=T.bool), T.zeros((0,), dtype=T.float16),"
    " 'prod', include_self=False)",
    "T.gather(T.zeros(2, 2), 1, T.zeros(0, 5, dtype=T.int64))",
    "T.gather(T.tensor(2.), 0, T.zeros(0, 5, dtype=T.int64))",
    "T.scatter_add(T.tensor(1), 0, T.tensor(0), T.tensor(4))",
    "T.index_add(T.zeros((1, 0), dtype=T.float16), 0, T.tensor([0, 1, 1, 2], dtype=T.int32),"
    " T.zeros((4, 0), dtype=T.float16), alpha=2.0)",
    "T.mv(T.zeros((0, 2), dtype=T.bool), T.tensor([True, True]))",
    "T.mv(T.zeros(3, 0), T.zeros(0))",
    "T.pinverse(T.zeros((0, 2, 2), dtype=T.float64))",
    "T.linalg.matrix_rank(T.zeros((0, 2, 2)))",
    "T.linalg.cond(T.zeros((0, 3, 2)), 1)",
    "T.linalg.cond(T.zeros((2, 0, 0)))",
    "T.linalg.cond(T.zeros((2, 3, 0)))",
    "T.linalg.cond(T.zeros((0, 2, 4), dtype=T.complex64).permute(2, 1, 0))",
    "T.linalg.matrix_norm(T.zeros((0, 2, 3)), 'nuc')",
    "T.linalg.matrix_norm(T.zeros((2, 0, 3)), 2)",
    "T.linalg.svdvals(T.zeros((0, 3, 3)))",
    "T.linalg.svdvals(T.zeros((4, 3, 0), dtype=T.bfloat16))",
    "T.linalg.svd(T.zeros(2, 0, dtype=T.half))",
    "T.linalg.cholesky(T.zeros(0, 0, dtype=T.half))",
    "T.linalg.cholesky(T.zeros((0, 1, 1), dtype=T.float16))",
    "T.pdist(T.zeros((3, 0), dtype=T.float16))",
    "F.linear(T.zeros((0,)), T.zeros((1, 0)), T.tensor([0.352]))",
    "F.linear(T.zeros((2, 0)), T.zeros((3, 0)), T.tensor([0.352, 1., 2.]))",
]


def test_empty_index_add_gradient():
    def fn(T):
        x = T.zeros((1, 0), requires_grad=True)
        s = T.zeros((4, 0), requires_grad=True)
        r = T.index_add(x, 0, T.tensor([0, 0, 0, 0]), s, alpha=2.0)
        r.sum().backward()
        return r, x.grad, s.grad
    check(fn)


def test_empty_norm_of_no_singular_value():
    _same_error("T.linalg.matrix_norm(T.zeros((2, 0, 3)), -2)")


# --- torch reads size(d) before its rank check: IndexError ---------------------------------------------

INDEX_ERRORS_AS_TORCH = [
    "F.avg_pool2d(T.zeros((2, 0), dtype=T.int8), 2)",
    "F.avg_pool2d(T.zeros(3), 2)",
    "F.avg_pool2d(T.tensor(1.), 2)",
    "F.lp_pool2d(T.tensor(1.4), 2.0, (3, 2))",
    "F.lp_pool2d(T.zeros(4, 4), 2.0, (3, 2))",
    "T.mv(T.tensor(-1.29), T.tensor(-0.4))",
    "T.index_add(T.zeros(3), 0, T.tensor([5]), T.ones(1))",
    "T.index_add(T.zeros(3), 0, T.tensor([-1]), T.ones(1))",
    "T.tensor(4).index_add_(0, T.tensor(1), T.tensor(-5))",
    "T.index_add(T.zeros(3, 2), 0, T.tensor([3]), T.ones(1, 2))",   # (a matrix: torch's RuntimeError)
]


# --- argument checks in torch's order and words ----------------------------------------------------------

ARGUMENT_ERRORS_AS_TORCH = [
    "F.linear(T.tensor(-0.2), T.tensor(1.372), T.tensor(1.76))",
    "F.linear(T.tensor([1., 2.]), T.tensor(1.372))",
    "F.linear(T.ones(2, 3), T.ones(3), T.ones(2))",
    "F.kl_div(T.tensor([1, 2]), T.tensor([1., 2]))",
    "F.kl_div(T.tensor([True]), T.tensor([True]))",
    "T.tensor([False, False]).corrcoef()",
    "T.cov(T.tensor([False, True]))",
    "T.isin(2, T.tensor([False, True]))",
    "T.isin(T.tensor([1, 2]), T.tensor([True]))",
    "T.tensor([6, 8], dtype=T.uint8).addr(T.tensor([9], dtype=T.uint8).expand(5), T.tensor([3, 4], dtype=T.uint8),"
    " beta=0.5, alpha=2.0)",
    "T.addr(T.tensor([6, 8]), T.tensor([1, 2]), T.tensor([3, 4]), alpha=2.0)",
    "F.gaussian_nll_loss(T.tensor([[7., 6]]), T.tensor([[7., 2]]), T.tensor([[4, 1]], dtype=T.uint8))",
    "F.gaussian_nll_loss(T.tensor([[7., 6]]), T.tensor([[7., 2]]), T.tensor([[4, 1]]), reduction='none')",
    "T.conv2d(T.zeros(1, 2, 3, 3), T.zeros(2, 2, 1, 1), groups=4)",
    "T.conv2d(T.zeros((1, 0, 5, 10), dtype=T.int64), T.zeros((0, 0, 0, 0), dtype=T.int64))",
    "T.conv1d(T.zeros(1, 2, 3), T.zeros(4, 2, 0), None, 1, 'same', 2)",
    "T.conv1d(T.zeros((0, 5), dtype=T.complex64), T.zeros((3, 0, 0), dtype=T.complex64), None, 1, 'same', 2)",
    "T.conv1d(T.zeros(1, 2, 3), T.zeros(4, 2, 0))",
    "T.cumsum(T.tensor([[False, True, False]]), 0, out=T.zeros(0, dtype=T.bool))",
    "T.cumprod(T.tensor([1.5, 2.]), 0, dtype=T.bool)",
]


RETURNS_AS_TORCH = [
    "T.linalg.vector_norm(T.tensor(complex(0.6, -1.16)), 2, -1, True)",
    "T.linalg.vector_norm(T.tensor(0.6), 3, 0)",
    "T.linalg.vector_norm(T.tensor(-0.6), 0, -1, True)",
    "F.linear(T.ones(2, 3), T.tensor([1., 2., 3.]))",
    "F.linear(T.ones(3), T.ones(3), T.tensor(1.))",
    "T.tensor(0.013).adjoint()",
    "T.tensor(1 + 2j).adjoint()",
    # out= of these is their dtype=: the input converted first
    "(lambda o: (T.sum(T.tensor([1.5, 2.]), 0, out=o), o))(T.zeros(0, dtype=T.int64))",
    "(lambda o: (T.prod(T.tensor([1, 2]), 0, out=o), o))(T.zeros(0, dtype=T.bool))",
    "(lambda o: (T.cumsum(T.tensor([1.5, 2.]), 0, out=o), o))(T.zeros(0, dtype=T.int64))",
    "(lambda o: (T.cumprod(T.tensor([1.5, 2.]), 0, out=o), o))(T.zeros(0, dtype=T.int32))",
    "(lambda o: (T.cumsum(T.tensor([1, 2]), 0, out=o), o))(T.zeros(0, dtype=T.float16))",
]


def test_linear_vector_weight_gradient():
    def fn(T):
        x = T.ones(2, 3, requires_grad=True)
        w = T.tensor([1., 2., 3.], requires_grad=True)
        r = T.nn.functional.linear(x, w)
        r.sum().backward()
        return r, x.grad, w.grad
    check(fn)


# --- torch's argument parser and check order ----------------------------------------------------------

PARSER_AND_ORDER_AS_TORCH = [
    # a host (NumPy) computation whose operands do not broadcast: torch's RuntimeError for the shapes
    "T.floor_divide(T.tensor([[-1.1, 1.4, -1.1], [1.6, -0.04, 0.4]]).to(T.bfloat16),"
    " T.tensor([0.4, -0.4], dtype=T.float64))",
    "T.fmod(T.tensor([[-1.1, 1.4, -1.1], [1.6, -0.04, 0.4]]).to(T.bfloat16), T.tensor([-0.89, 1.56], dtype=T.float64))",
    # the (Number self, Tensor other) overloads have no out=
    "T.bitwise_right_shift(3, T.tensor([[1], [3]]), out=T.zeros(0, dtype=T.int64))",
    "T.remainder(3.5, T.tensor([1, 2]), out=T.zeros(0))",
    "T.lt(3, T.tensor([1, 2]), out=T.zeros(0, dtype=T.bool))",
    "T.diagonal_scatter(T.zeros(2, 2), T.zeros(2), out=T.zeros(0))",
    "T.select_scatter(T.zeros(2, 2), T.zeros(2), 0, 0, out=T.zeros(0))",
    "T.median(T.tensor(False), out=T.zeros(0, dtype=T.bool))",
    "T.where(T.tensor([True, False]), 1.0, 0, out=T.zeros(0, dtype=T.bool))",
    "T.where(T.tensor([True, False]), T.ones(2), 0, out=T.zeros(0))",
    "T.where(True, T.ones(2), T.zeros(2), out=T.zeros(0))",
    "T.eq(1, T.ones(2), out=T.zeros(2, dtype=T.bool))",
    "T.bitwise_and(True, T.ones(2, dtype=T.bool), out=T.zeros(2, dtype=T.bool))",
    "T.prod(T.ones(2), out=T.zeros(()))",
    "T.unflatten(T.tensor(-0.97, dtype=T.float64), 0, [2])",
    "T.unflatten(T.tensor(1.), 2, [2])",
    "F.nll_loss(T.tensor(-2147483648, dtype=T.int32), T.tensor(0, dtype=T.int16))",
    "F.nll_loss(T.zeros(2, 3), T.zeros(3, dtype=T.int16))",
]


@pytest.mark.parametrize("src", [
    "T.sum(T.tensor([[1, 2]]), out=T.zeros(0, dtype=T.bool))",
    # the output size checked before the kernel's dtype (torch words the 1-d pool as a 2-d one)
    "T.avg_pool1d(T.tensor([[[32767], [4]]], dtype=T.int16)[:, ::2], 3)",
    # LAPACK's failure to converge: torch's LinAlgError (a RuntimeError), not NumPy's
    "T.linalg.eigvalsh(T.tensor([[0.727, 0.699, 0.315, 1.503], [0.264, 0.837, 1.7976931348623157e+308, 0.351],"
    " [1.149, 0.604, 0.988, 0.235], [1.24, 0.347, nan, -1.7976931348623157e+308]], dtype=T.float64))",
])
def test_raises_type_as_torch(src):
    check(_run(src), raises=True)


RETURNS_AS_TORCH_2 = [
    "T.add(3, T.tensor([1, 2]), out=T.zeros(0, dtype=T.int64))",
    # integer inputs: exp/log in the default float dtype, integer products (wrapping as torch's)
    "F.poisson_nll_loss(T.tensor([[0, -2, 3]]), T.tensor([[2, 5, 0]]), full=True)",
    "F.poisson_nll_loss(T.tensor([[4, 1, -2, -3], [4, 0, 3, -3]]), T.tensor([[-2, -4, 5, -1], [2, -2, 5, 0]]),"
    " full=True, reduction='none')",
    "F.poisson_nll_loss(T.tensor([[0, 2, 3]], dtype=T.int8), T.tensor([[2, 5, 0]]), log_input=False, reduction='none')",
    "F.poisson_nll_loss(T.tensor([[4, 0], [-128, -4]], dtype=T.int8), T.tensor([[-128, 127], [2, -3]], dtype=T.int8),"
    " reduction='sum')",
    "F.poisson_nll_loss(T.zeros((5, 0), dtype=T.int64), T.zeros((5, 0), dtype=T.int64), reduction='sum')",
]


DTYPE_CHECKS_IN_TORCH_ORDER = [
    # squareness before the kernel's (or the low-precision) dtype check
    "T.linalg.cholesky(T.zeros(3, 1, dtype=T.bfloat16))",
    "T.cholesky(T.tensor([[5.375], [1.421875], [4.75]], dtype=T.bfloat16), upper=True)",
    "T.linalg.inv(T.zeros(3, 1, dtype=T.half))",
    "T.linalg.det(T.zeros(3, 1, dtype=T.half))",
    "T.linalg.det(T.zeros(2, 2, dtype=T.half))",
    "T.linalg.eigvalsh(T.tensor([[[2, -1, -3], [5, -5, 3]]]))",
    "T.linalg.eigvalsh(T.tensor([[2, -1], [5, -5]]))",
    "T.linalg.eigvalsh(T.tensor([2., -1.]))",
    # 0-d input and target of one shape: torch's class-probability path
    "F.cross_entropy(T.tensor(-4, dtype=T.int8), T.tensor(3, dtype=T.int32), reduce=False)",
    "F.cross_entropy(T.tensor(1.), T.tensor(0.5))",
    # loss kernels: real floating dtypes, results written into a tensor like the input
    "F.huber_loss(T.tensor([1., 2.]), T.tensor([1j, 2j]))",
    "F.huber_loss(T.tensor([1j, 2.]), T.tensor([1j, 2j]))",
    "F.mse_loss(T.tensor([1., 2.]), T.tensor([1j, 2j]))",
    "F.soft_margin_loss(T.tensor([1., 2.]), T.tensor([1j, 2j]))",
    "F.soft_margin_loss(T.tensor([1, 2], dtype=T.int16), T.tensor([1, 2], dtype=T.int16))",
    "F.soft_margin_loss(T.tensor([1, 2]), T.tensor([1., 2]))",
    "F.soft_margin_loss(T.tensor([1, 2], dtype=T.float16), T.tensor([[1, 2]], dtype=T.int8))",
    # no complex bernoulli kernel (the noise is drawn like the input)
    "F.dropout(T.tensor([[[1j, 2j]]]), 0.5, True)",
    "F.dropout1d(T.tensor([[[1j, 2j]]]), 0.5, True)",
    "F.alpha_dropout(T.tensor([[[1j, 2j]]]), 0.5, True)",
    "T.bernoulli(T.zeros((2,), dtype=T.complex64))",
    # integer kernels torch's CPU build lacks
    "F.max_unpool2d(T.tensor([[[0, 9], [255, 1]]], dtype=T.uint8), T.tensor([[[0, 3], [9, 15]]]), 2)",
    "F.max_unpool1d(T.ones(1, 1, 2, dtype=T.int64), T.tensor([[[0, 3]]]), 2)",
    "F.conv_transpose1d(T.tensor([[[0, 6, 9], [1, 10, 0]]], dtype=T.uint8), T.ones((2, 3, 3), dtype=T.uint8))",
    "F.conv_transpose3d(T.ones(1, 2, 3, 3, 3, dtype=T.int32), T.ones(2, 2, 2, 2, 2, dtype=T.int32))",
]


RETURNS_AS_TORCH_3 = [
    "T.linalg.det(T.zeros(2, 0, 0, dtype=T.half))",
    "F.local_response_norm(T.zeros((3, 0, 4), dtype=T.int16), 3)",
    "T.bernoulli(T.zeros((0,), dtype=T.complex64))",
    "F.dropout(T.tensor([[[1j, 2j]]]), 0.5, False)",
    "T.linalg.lu(T.zeros((2, 0, 3), dtype=T.float16))",
    "(lambda x: (F.elu_(x, 2.0), x))(T.zeros((3, 0, 4, 2)))",   # an empty receiver has no overlap
    "F.conv_transpose2d(T.ones(1, 2, 3, 3, dtype=T.int64), T.ones(2, 2, 2, 2, dtype=T.int64))",
    # the permutation of an empty input's LU is not on the graph (L and U are)
    "[t.requires_grad for t in T.linalg.lu(T.zeros(0, 4, dtype=T.float64, requires_grad=True))]",
]


@pytest.mark.parametrize("src", COMPLEX_REFUSED_AS_TORCH + OVERLAPPING_RECEIVER_FIRST + INDEX_ERRORS_AS_TORCH
                         + ARGUMENT_ERRORS_AS_TORCH + PARSER_AND_ORDER_AS_TORCH + DTYPE_CHECKS_IN_TORCH_ORDER)
def test_raises_as_torch(src):
    _same_error(src)


@pytest.mark.parametrize("src", COMPLEX_FLOAT_TESTS + BFLOAT16_WITHOUT_KERNEL + EMPTY_INPUT_RETURNS + RETURNS_AS_TORCH
                         + RETURNS_AS_TORCH_2 + RETURNS_AS_TORCH_3)
def test_returns_as_torch(src):
    _same_value(src)
