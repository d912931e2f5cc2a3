"""Regression tests against torch for silent-wrong classes the differential fuzzer found (issue 18,
ninth batch): gradients of 2-norms at overflowing values."""
import math

import pytest

from harness import address_space_cap, check

inf = math.inf
BIG32 = 3.4028235e38


def _grads(T, xs, fn):
    r = fn(T, *xs)
    w = T.linspace(-1, 2, r.numel()).reshape(r.shape).to(r.dtype)
    (r * w).sum().backward()
    return (r.detach(),) + tuple(x.grad for x in xs)


def test_triplet_margin_loss_grad_at_overflow():
    def f(T):
        xs = [T.tensor([[BIG32, 1.03], [-0.58, -1.11], [-0.0, BIG32], [-0.0, -0.1]], requires_grad=True),
              T.tensor([[0.447, -1.828], [-0.798, -1.124], [0.938, -inf], [-1.136, 0.876]], requires_grad=True),
              T.tensor([[-0.0, -1.5], [1.3, -0.1], [inf, 0.7], [0.5, 1.4]], requires_grad=True)]
        return _grads(T, xs, lambda T, a, p, n: T.nn.functional.triplet_margin_loss(a, p, n, reduction="none"))
    check(f)


def test_cosine_similarity_grad_at_float32_max():
    def f(T):
        xs = [T.tensor([[1.625, -0.493, -1.295, 0.11], [1.383, 0.135, -0.033, -0.0]], requires_grad=True),
              T.tensor([[2.598, 0.0, -0.03, -0.013], [0.976, -BIG32, -1.174, -2.217]], requires_grad=True)]
        return _grads(T, xs, lambda T, a, b: T.cosine_similarity(a, b))
    check(f)


@pytest.mark.parametrize("dim,keepdim", [(None, False), (1, False), (0, True), ((0, 1), False)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_vector_norm_grad_where_the_square_overflows(dim, keepdim, dtype):
    def f(T):
        big = 1.7e308 if dtype == "float64" else BIG32
        x = T.tensor([[big, 2.0, 0.0], [0.0, 0.0, 0.0], [-3.0, 4.0, -0.0]], dtype=getattr(T, dtype),
                     requires_grad=True)
        return _grads(T, [x], lambda T, x: T.linalg.vector_norm(x, 2, dim, keepdim))
    check(f)


def test_norm_double_backward_gradient_penalty():
    # a WGAN-GP style penalty: the norm of a gradient taken with create_graph, differentiated again
    def f(T):
        w = T.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], requires_grad=True)
        x = T.tensor([[1.0, 2.0], [-0.5, 0.0], [0.0, 0.0]], requires_grad=True)
        y = (x @ w).tanh().sum()
        (g,) = T.autograd.grad(y, x, create_graph=True)
        penalty = ((g.norm(2, dim=1) - 1) ** 2).mean() + T.linalg.vector_norm(g)
        penalty.backward()
        return penalty.detach(), w.grad, x.grad
    check(f, rtol=1e-5, atol=1e-6)


# --- dtypes, shapes and roundings ----------------------------------------------------------------

def test_native_dropout_infinite_input_and_empty_mask():
    def f(T):
        x = T.tensor([0.1, -0.8, -inf, inf], dtype=T.float64, requires_grad=True)
        out, mask = T.native_dropout(x, 0.0, None)
        out.sum().backward()
        e = T.native_dropout(T.zeros((0, 2), dtype=T.float64), 0.5, True)
        return out.detach(), mask, x.grad, e[1].dtype, e[1].shape
    check(f)


def test_native_dropout_train_none_keeps_infinities():
    def f(T):
        T.manual_seed(3)
        x = T.tensor([0.1, -0.8, -inf, inf, 2.0, -3.0], requires_grad=True)
        out, mask = T.native_dropout(x, 0.4, None)
        (out * T.arange(6.0)).sum().backward()
        return out.detach(), mask, x.grad
    check(f)


def test_logaddexp_half_zero_dim_keeps_dtype():
    check(lambda T: [T.logaddexp(T.tensor(36.3125, dtype=dt), T.tensor(61.625, dtype=dt))
                     for dt in (T.float16, T.bfloat16, T.float32)])


def test_zero_dim_results_stay_zero_dim():
    def f(T):
        x = T.tensor(-4.5, requires_grad=True)
        y = T.nn.functional.gelu(x)
        y.backward()
        return (y.detach(), x.grad, T.nn.functional.gelu(T.tensor(-1.5, dtype=T.bfloat16)).shape,
                T.scatter(T.tensor(-0.29, dtype=T.float16), 0, T.tensor(0), T.tensor(1.5, dtype=T.float16),
                          reduce="add"),
                T.scatter(T.tensor(-0.29), 0, T.tensor(0), T.tensor(1.5), reduce="multiply"))
    check(f)


@pytest.mark.parametrize("loss", ["l1_loss", "mse_loss", "smooth_l1_loss", "huber_loss"])
def test_loss_promotes_after_broadcasting(loss):
    # torch broadcasts input and target first: a 0-d float32 target then counts as dimensioned
    def f(T):
        x = T.tensor([[0.1, 0.5, 0.9], [0.3, 0.2, 0.7]], dtype=T.float16)
        return getattr(T.nn.functional, loss)(x, T.tensor(0.7))
    check(f)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64"])
@pytest.mark.parametrize("value", [1, 0.3, -0.7])
def test_addcmul_addcdiv_round_as_torch(dtype, value):
    # float32 addcmul is torch's fused multiply-add; half types compute in float32 (no overflow on the way)
    def f(T):
        g = T.Generator().manual_seed(5)
        a, b, c = (T.randn(4099, generator=g).to(getattr(T, dtype)) for _ in range(3))
        return T.addcmul(a, b, c, value=value), T.addcdiv(a, b, c, value=value)
    # (float64: torch's kernel is a fused multiply-add in double too, which has no exact emulation here)
    check(f, rtol=1e-15 if dtype == "float64" else 0, atol=1e-15 if dtype == "float64" else 0)


def test_addcmul_half_intermediate_beyond_65504():
    check(lambda T: T.addcmul(T.tensor([[-0.5], [-1.7001953125]], dtype=T.float16),
                              T.tensor([[32752.0], [-65504.0]], dtype=T.float16),
                              T.tensor([[-0.72998046875], [-1.0771484375]], dtype=T.float16), value=0.5))


def test_int64_sum_is_exact_past_2_to_53():
    def f(T):
        x = T.tensor([[2 ** 53 + 1, 2, -7], [2 ** 62, 2 ** 62, 5]])
        return (x.sum(), x.sum(1), x.sum(0, keepdim=True), x[0].sum(), x.t().sum(0),
                T.tensor([True, False, True]).sum(), T.tensor([[1, 2], [3, 4]], dtype=T.int32).t().sum(0))
    check(f)


def test_half_norm_accumulates_in_float32():
    check(lambda T: [T.norm(T.tensor([30000.0, 2.0], dtype=T.float16), 3),
                     T.dist(T.tensor([[-0.0], [-0.809], [32752.0]], dtype=T.float16),
                            T.tensor([-1.099609375], dtype=T.float16), 3)])


@pytest.mark.parametrize("p", [0.5, 3.0, 0.0, 2.0])
def test_pdist_keeps_nan(p):
    check(lambda T: T.pdist(T.tensor([[0.02, 1.3], [0.83, -1.36], [math.nan, -0.28], [1.45, -1.26]]), p=p))


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_multi_dot_and_chain_matmul_take_torchs_order(n):
    def f(T):
        g = T.Generator().manual_seed(0)
        shapes = [(3, 40), (40, 2), (2, 50), (50, 4), (4, 1), (1, 30)][:n]
        ms = [T.randn(*s, generator=g) for s in shapes]
        return T.linalg.multi_dot(ms), T.chain_matmul(*ms)
    check(f, rtol=1e-5, atol=1e-6)


def test_chain_matmul_empty_inner_before_nan():
    # torch's order multiplies the empty pair first: zeros, not the NaN a left-to-right order meets
    check(lambda T: T.chain_matmul(T.zeros((1, 0)).expand(5, 0), T.zeros((0, 4)),
                                   T.tensor([[math.nan, -inf], [0.2, -1.5], [-0.2, 1.1], [-0.2, -BIG32]])))


def test_complex_l1_loss_past_float32_square_root_of_max():
    check(lambda T: T.nn.functional.l1_loss(
        T.tensor([complex(1.2, 0.21), complex(-3.4e38, -0.28), complex(-1.3, 0.48)]),
        T.tensor([4.0, -1.0, 2.0]), reduction="none"))


def test_sinc_half_computes_in_float32():
    check(lambda T: [T.sinc(T.tensor([[0.0, -0.3999, 1.0996], [65504.0, -0.7002, 32752.0]], dtype=dt))
                     for dt in (T.float16, T.bfloat16)])


def test_hardswish_gradient_passes_at_nan():
    def f(T):
        x = T.tensor([-3.0, 3.0, -3.0001, 2.9999, math.nan, inf, -inf, 0.0], requires_grad=True)
        r = T.nn.functional.hardswish(x)
        r.sum().backward()
        return r.detach(), x.grad
    check(f)


@pytest.mark.parametrize("p", [2, 1, 3, inf])
def test_renorm_gradient_of_a_nan_row(p):
    def f(T):
        x = T.tensor([[0.587, 0.375], [math.nan, -0.155], [-0.81, 0.629], [3.0, 4.0]], requires_grad=True)
        r = T.renorm(x, p, 0, 1.0)
        (r * T.arange(8.0).reshape(4, 2)).sum().backward()
        return r.detach(), x.grad
    check(f)


def test_lerp_weight_gradient_with_infinite_ends():
    def f(T):
        xs = [T.tensor([-0.57, 0.67, inf, -0.47, 1.0], dtype=T.float16, requires_grad=True),
              T.tensor([1.62, -1.78, 1.57, -1.17, -inf], dtype=T.float16, requires_grad=True),
              T.tensor([1.49, 65504.0, 0.55, -0.46, 0.2], dtype=T.float16, requires_grad=True)]
        return _grads(T, xs, lambda T, a, b, w: T.lerp(a, b, w))
    check(f)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_mse_loss_half_squares_in_float32(reduction, dtype):
    def f(T):
        dt = getattr(T, dtype)
        x = T.tensor([[2.83], [-65504.0], [-0.31], [1.3]], dtype=dt, requires_grad=True)
        y = T.tensor([-0.5], dtype=dt, requires_grad=True)
        r = T.nn.functional.mse_loss(x[1:], y.expand(3, 1), reduction=reduction)
        (r * T.linspace(-1, 2, r.numel()).reshape(r.shape).to(r.dtype)).sum().backward()
        return r.detach(), x.grad, y.grad
    check(f)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_isclose_allclose_complex(dtype):
    nan = math.nan

    def f(T):
        dt = getattr(T, dtype)
        a = T.tensor([1 + 2j, complex(inf, 1), complex(nan, 0), complex(1, nan), 3 + 4j], dtype=dt)
        b = T.tensor([1 + 2j, complex(inf, 1), complex(nan, 0), complex(nan, 1), 3.00001 + 4j], dtype=dt)
        return (T.isclose(a, b), T.isclose(a, b, equal_nan=True), T.isclose(a, b, rtol=0, atol=0),
                T.allclose(a[:2], b[:2]), T.allclose(a[4:], b[4:], rtol=1e-7, atol=0),
                T.isclose(T.zeros((0, 2), dtype=dt), T.zeros((0, 2), dtype=dt)))
    check(f)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64"])
def test_integer_division_family_exact(dtype):
    big = {"int8": 127, "uint8": 255, "int16": 32767, "int32": 2 ** 31 - 1, "int64": 2 ** 62 + 1}[dtype]
    low = {"uint8": 0}.get(dtype, -big)

    def f(T):
        dt = getattr(T, dtype)
        a = T.tensor([big, low, 7, low + 7 if low else 9, 16777217 % (big + 1)], dtype=dt)
        b = T.tensor([3, 7, 2, 5, 3], dtype=dt) if dtype == "uint8" else T.tensor([3, 7, -2, -5, 3], dtype=dt)
        return (T.fmod(a, b), T.remainder(a, b), a // b, T.div(a, b, rounding_mode="trunc"),
                T.fmod(a, 3), a % 1000 if dtype in ("int16", "int32", "int64") else a % 10)
    check(f)


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_hardsigmoid_hardswish_gradient_at_nan(dtype):
    def f(T):
        x = T.tensor([[math.nan, 2.3, -3.74], [1.67, 1.72, 3.25], [-3.0, 3.0, 0.0]], dtype=getattr(T, dtype),
                     requires_grad=True)
        out = []
        for fn in (T.nn.functional.hardsigmoid, T.nn.functional.hardswish):
            x.grad = None
            r = fn(x)
            (r * T.linspace(-1, 2, r.numel()).reshape(r.shape).to(r.dtype)).sum().backward()
            out += [r.detach(), x.grad]
        return out
    check(f)


def test_hypot_gradient_beside_an_infinite_side():
    def f(T):
        xs = [T.tensor([-1.98e38, -5.7e37, -2.4e38, -5.7e37, -2.97e38, 1.5, 0.0, 3.0], requires_grad=True),
              T.tensor([inf, -0.4, 1e-30, 4.0, math.nan, 0.0, 0.0, 4.0], requires_grad=True)]
        return _grads(T, xs, lambda T, a, b: T.hypot(a, b))
    check(f)


def test_hypot_double_backward():
    def f(T):
        a = T.tensor([[1.5, -2.0, 3.0]], dtype=T.float64, requires_grad=True)
        b = T.tensor([[0.5], [4.0]], dtype=T.float64, requires_grad=True)
        r = T.hypot(a, b)
        ga, gb = T.autograd.grad((r * r * r).sum(), (a, b), create_graph=True)
        (ga.sum() + gb.pow(2).sum()).backward()
        return r.detach(), ga.detach(), gb.detach(), a.grad, b.grad
    check(f)


def test_one_element_norm_gradient():
    def f(T):
        xs = [T.tensor([[0.6], [0.0], [1e30], [-2.0]], requires_grad=True),
              T.tensor([[math.nan], [0.0], [0.5], [1.0]], requires_grad=True)]
        return _grads(T, xs, lambda T, a, b: T.pairwise_distance(a, b))
    check(f)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_fold_of_an_empty_batch(dtype):
    def f(T):
        x = T.zeros((0, 4, 4), dtype=getattr(T, dtype), requires_grad=True)
        r = T.nn.functional.fold(x, [3, 3], 2)
        r.sum().backward()
        return r.detach(), x.grad
    check(f)


@pytest.mark.parametrize("src", ["T.repeat_interleave(T.tensor(1))", "T.repeat_interleave(T.tensor([[2]]))",
                                 "T.repeat_interleave(T.tensor([2], dtype=T.int16))",
                                 "T.repeat_interleave(T.tensor([2.0]))",
                                 "T.bincount(T.tensor([5, 2 ** 63 - 1, 2]), T.tensor([2.5]).expand(3))",
                                 "T.tensor([2 ** 63 - 1, 4]).bincount(minlength=10)"])
def test_counting_errors_as_torch(src):
    with address_space_cap():   # a bin count of 2**63 is refused whatever the machine's overcommit policy
        check(lambda T: eval(src, {"T": T}), raises=True)  # noqa: S307


def test_repeat_interleave_int32_counts():
    check(lambda T: T.repeat_interleave(T.tensor([2, 0, 1], dtype=T.int32)))


@pytest.mark.parametrize("src, raises", [
    ("T.searchsorted(T.zeros((0, 1), dtype=T.bool), T.zeros((0, 1), dtype=T.bool), side='left')", False),
    ("T.searchsorted(T.tensor([True]), T.zeros((0,), dtype=T.bool))", False),
    ("T.bucketize(T.zeros(0, dtype=T.bool), T.tensor([True]))", False),
    ("T.searchsorted(T.zeros((0,), dtype=T.bool), T.tensor([True]))", True),
    ("T.bucketize(2.0, T.tensor([complex(7.3, 2.36), complex(2.25, 3.78)]))", True),
    ("T.searchsorted(T.tensor([1, 10, 3], dtype=T.uint8), T.tensor([complex(1.62, 1.58)]))", True),
])
def test_search_bool_complex_as_torch(src, raises):
    check(lambda T: eval(src, {"T": T}), raises=raises)  # noqa: S307


@pytest.mark.parametrize("src", [
    "T._softmax_backward_data(T.ones(2, 3, dtype=T.int16), T.full((2, 3), 0.5), -1, T.float32)",
    "T._softmax_backward_data(T.ones(2, 3, dtype=T.int16), T.full((2, 3), 0.5), 0, T.float32)",
    "T._softmax_backward_data(T.ones(3, 2), T.full((2, 3), 0.5), 0, T.float32)",
    "T._grouped_mm(T.ones(4), T.ones(2, 3), offs=T.tensor([4], dtype=T.int32))",
    "T._grouped_mm(T.ones(4, dtype=T.int32), T.ones(2, 3), offs=T.tensor([4], dtype=T.int32))",
    "T.narrow_copy(T.tensor([-2.02])[1:], 1, 1, 2)",
])
def test_aten_argument_errors_as_torch(src):
    check(lambda T: eval(src, {"T": T}), raises=True)  # noqa: S307
