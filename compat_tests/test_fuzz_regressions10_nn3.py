"""Regression tests against torch for classes the differential fuzzer found in the nn families (issue 18, tenth
batch, third part): gelu's tanh form at float32 overflow, binary_cross_entropy's target range check and
argument order, class-index losses of empty or class-less inputs, batch and instance norm of empty inputs
with parameters, hardtanh's unsigned limits and complex inputs, gumbel_softmax and normalize of empty
inputs, scaled_dot_product_attention of integer and complex inputs, and linear of bool matrices."""
import math

import pytest

from harness import check


def _grads(T, r, xs):
    g = r if isinstance(r, T.Tensor) else r[0]
    (g * T.linspace(-1, 2, g.numel()).reshape(g.shape).to(g.dtype)).sum().backward()
    return (r,) + tuple(x.grad for x in xs)


def _ev(src):
    return lambda T: eval(src, {"T": T, "F": T.nn.functional, "inf": math.inf, "nan": math.nan})


# --- gelu ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_gelu_tanh_at_overflow(dtype):
    def f(T):
        x = T.tensor([3.4e38, 2e38, 1.7e38, -3.4e38, 1e30, 1e19, 3.0, -40.0], requires_grad=True) \
            if dtype != "float16" else T.tensor([6e4, 65504.0, 4e4, -6e4, 3.0], dtype=T.float16, requires_grad=True)
        x = x if dtype != "float64" else x.detach().double().requires_grad_()
        return _grads(T, T.nn.functional.gelu(x, approximate="tanh"), (x,))
    check(f)


# --- binary_cross_entropy ------------------------------------------------------------------------

@pytest.mark.parametrize("src", [
    "F.binary_cross_entropy(T.tensor([[-0.0, 0.647, 0.0]]), T.tensor([[0.6, nan, 0.6]]), size_average=False)",
    "F.binary_cross_entropy(T.tensor([[0.5, 0.647]]), T.tensor([[0.6, 1.5]]))",
    "F.binary_cross_entropy(T.tensor([[0.5, 0.647]], dtype=T.float64), T.tensor([[-0.1, 0.5]], dtype=T.float64))",
    "F.binary_cross_entropy(T.tensor([0.5, 0.6], dtype=T.bfloat16), T.tensor([0.5, 1.5], dtype=T.bfloat16))",
    "F.binary_cross_entropy(T.tensor([[0.5, 1.647]]), T.tensor([[0.1, 5.0]]))",   # the input is checked first
    "F.binary_cross_entropy(T.zeros((5, 0), dtype=T.int32)[:, ::2], T.zeros((5, 0), dtype=T.int32), "
    "T.tensor([1.0, 2.0, 0.5, 0.25]))",
    "F.binary_cross_entropy(T.tensor([0.2, 0.5]), T.tensor([0.5, 3.0]), T.tensor([1.0, 2.0, 3.0]))",
])
def test_binary_cross_entropy_refusals(src):
    check(_ev(src), raises=True)


def test_binary_cross_entropy_target_at_bounds():
    check(_ev("F.binary_cross_entropy(T.tensor([0.2, 0.5, 0.7]), T.tensor([0.0, -0.0, 1.0]), reduction='none')"))


# --- cross_entropy / nll_loss ----------------------------------------------------------------------

@pytest.mark.parametrize("src", [
    "F.cross_entropy(T.zeros((1, 3, 0), dtype=T.int16), T.zeros((1, 0), dtype=T.bool))",
    "F.cross_entropy(T.zeros((1, 3, 0), dtype=T.int16), T.zeros((1, 0), dtype=T.int64))",
    "F.cross_entropy(T.zeros((0, 3), dtype=T.complex64), T.zeros((0,), dtype=T.int64))",
    "F.cross_entropy(T.zeros((0, 3), dtype=T.bool), T.zeros((0,), dtype=T.int64), reduction='sum')",
    "F.cross_entropy(T.zeros((2, 3), dtype=T.complex64), T.zeros((2,), dtype=T.int64))",
    "F.nll_loss(T.zeros((2, 3, 2), dtype=T.int16), T.zeros((2, 2), dtype=T.int64))",
    "F.nll_loss(T.zeros((2, 3), dtype=T.complex64), T.zeros((2,), dtype=T.int64))",
    "F.nll_loss(T.zeros((3, 0, 2)), T.tensor([[0, 2], [2, 0], [0, 0]]), reduction='sum')",
    "F.nll_loss(T.zeros((1, 0)), T.tensor([0]), reduction='sum')",
])
def test_class_loss_refusals(src):
    check(_ev(src), raises=True)


@pytest.mark.parametrize("fn", ["nll_loss", "cross_entropy"])
@pytest.mark.parametrize("reduction", ["sum", "mean", "none"])
def test_class_loss_no_classes_all_ignored(fn, reduction):
    def f(T):
        x0 = T.zeros((1, 0), requires_grad=True)
        r = getattr(T.nn.functional, fn)(x0, T.tensor([7]), ignore_index=7, reduction=reduction)
        return r, T.autograd.grad(r.sum(), x0, allow_unused=True)[0] if reduction != "none" else r
    check(f)


# --- batch_norm / instance_norm ------------------------------------------------------------------

@pytest.mark.parametrize("src", [
    "F.batch_norm(T.zeros((2, 0, 1), dtype=T.float64), None, None, T.zeros((0,), dtype=T.float64), "
    "T.zeros((0,), dtype=T.float64), True)",
    "F.batch_norm(T.zeros((2, 0, 1)), T.zeros(0), T.zeros(0), T.zeros(0), None, False)",
    "F.batch_norm(T.zeros((0, 3)), None, None, None, T.zeros(0), True)",
    "F.batch_norm(T.zeros((2, 0, 1), dtype=T.int64), None, None, T.zeros(0, dtype=T.int64), None, False)",
    "F.instance_norm(T.zeros((4, 0, 3))[1:], None, None, T.zeros((0,))[::2], T.zeros((0,)))",
    "F.instance_norm(T.zeros((0, 3, 2)), None, None, T.zeros(3), T.zeros(3))",
    "F.batch_norm(T.tensor([-1, 0, 3], dtype=T.int16), None, None, None, None, True)",
    "F.batch_norm(T.tensor([-1.0, 0.0, 3.0]), T.zeros(0), T.zeros(0), None, None, False)",
    "F.batch_norm(T.tensor([-1, 0, 3]), T.zeros(0), T.zeros(0), None, None, False)",
])
def test_norm_refusals(src):
    check(_ev(src), raises=True)


@pytest.mark.parametrize("src", [
    "F.batch_norm(T.zeros((2, 0, 1)), None, None, None, None, True)",
    "F.batch_norm(T.zeros((2, 0, 1), dtype=T.float64), T.zeros(0, dtype=T.float64), T.zeros(0, dtype=T.float64), "
    "None, None, False)",
    "F.instance_norm(T.zeros((2, 0, 3)), T.zeros(0), T.zeros(0))",
    "F.instance_norm(T.zeros((2, 3, 0)), None, None, T.zeros(3), T.zeros(3))",
])
def test_norm_empty_returns(src):
    check(_ev(src))


# --- activations -----------------------------------------------------------------------------------

@pytest.mark.parametrize("src", [
    "F.hardtanh(T.tensor([[4, 4, 10], [3, 8, 10]], dtype=T.uint8)[1:], -0.5, 0.5)",
    "F.hardtanh(T.tensor([4, 4, 10, 1], dtype=T.uint8), -0.9, 3.7)",
    "(lambda x: (F.hardtanh_(x, -0.2, 0.4), x))(T.tensor([[3, 7, 5]], dtype=T.uint8))",
    "(lambda x: (F.hardtanh(x, -0.5, 0.5, True), x))(T.tensor([[3, 7, 5]], dtype=T.uint8))",
])
def test_hardtanh_unsigned_truncated_limits(src):
    check(_ev(src))


@pytest.mark.parametrize("src", [
    "F.hardtanh(T.tensor([4, 10], dtype=T.uint8), -1.5, 0.5)",
    "F.hardtanh_(T.tensor([[complex(-3.4e38, 0.33)], [complex(4.1, -2.84)]]).expand(2, 3))",
    "F.hardtanh(T.tensor([complex(1, 2)]))",
    "F.relu6(T.tensor([complex(1, 2)]))",
])
def test_hardtanh_refusals(src):
    check(_ev(src), raises=True)


def test_gumbel_softmax_empty_integer():
    check(lambda T: (T.manual_seed(7), T.nn.functional.gumbel_softmax(T.zeros((2, 0), dtype=T.int16), 0.5))[1])


@pytest.mark.parametrize("src", [
    "F.gumbel_softmax(T.zeros((5, 2, 0), dtype=T.bool), hard=True)",
    "F.gumbel_softmax(T.zeros((5, 2), dtype=T.int16), 0.5)",
])
def test_gumbel_softmax_refusals(src):
    check(_ev(src), raises=True)


@pytest.mark.parametrize("src", [
    "F.normalize(T.zeros((4, 0, 4, 0), dtype=T.float16), inf, 1)",
    "F.normalize(T.zeros((4, 0, 4, 0)), -1.0, -3)",
    "F.normalize(T.zeros((4, 0, 4, 0)), -inf, 1)",
    "F.normalize(T.zeros((2, 0), dtype=T.uint8))",
])
def test_normalize_empty_refusals(src):
    check(_ev(src), raises=True)


@pytest.mark.parametrize("src", [
    "F.normalize(T.zeros((4, 0, 4, 0)), inf, 2)",
    "F.normalize(T.zeros((4, 0, 4, 0)), -2, 0)",
    "F.normalize(T.tensor([[complex(-1.98, -0.51)], [complex(-1.22, 4.85)], [complex(1.59, -0.32)]]), 3.0, 1, 0.001)",
])
def test_normalize_returns(src):
    check(_ev(src))


# --- scaled_dot_product_attention ------------------------------------------------------------------

def _sdpa(q, k, v, dt, extra=""):
    return (f"F.scaled_dot_product_attention(T.zeros({q}, dtype=T.{dt}), T.zeros({k}, dtype=T.{dt}), "
            f"T.zeros({v}, dtype=T.{dt}){extra})")


@pytest.mark.parametrize("src", [
    _sdpa((3, 0, 0, 4), (3, 0, 2, 4), (3, 0, 2, 4), "int64", ", T.zeros((3, 3, 0, 2), dtype=T.int64)"),
    _sdpa((1, 1, 0, 4), (1, 1, 2, 4), (1, 1, 2, 4), "int64"),
    _sdpa((1, 1, 2, 4), (1, 1, 0, 4), (1, 1, 0, 4), "int64"),
    _sdpa((1, 1, 2, 4), (1, 1, 2, 4), (1, 1, 2, 0), "int64"),
    _sdpa((0, 1, 2, 4), (0, 1, 2, 4), (0, 1, 2, 4), "int32"),
    _sdpa((1, 1, 0, 4), (1, 1, 2, 4), (1, 1, 2, 4), "complex64"),
    _sdpa((1, 1, 2, 4), (1, 1, 0, 4), (1, 1, 0, 4), "complex64"),
])
def test_sdpa_empty_any_dtype(src):
    check(_ev(src))


@pytest.mark.parametrize("src", [
    _sdpa((1, 1, 2, 4), (1, 1, 2, 4), (1, 1, 2, 4), "int64"),
    _sdpa((1, 1, 2, 0), (1, 1, 2, 0), (1, 1, 2, 3), "int64"),
    _sdpa((1, 1, 2, 4), (1, 1, 2, 4), (1, 1, 2, 4), "bool"),
    _sdpa((1, 1, 2, 4), (1, 1, 2, 4), (1, 1, 2, 4), "complex64"),
    _sdpa((1, 1, 2, 4), (1, 1, 2, 4), (1, 1, 2, 4), "complex128", ", dropout_p=2.0"),
    _sdpa((1, 1, 2, 4), (1, 1, 2, 4), (1, 1, 2, 4), "int64", ", dropout_p=2.0"),
    _sdpa((1, 1, 2, 4), (1, 1, 2, 3), (1, 1, 2, 4), "complex64"),
])
def test_sdpa_refusals(src):
    check(_ev(src), raises=True)


# --- linear ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("src", [
    "F.linear(T.tensor([[True, False]]), T.tensor([[True, True], [False, True]]))",
    "F.linear(T.zeros((2, 3, 2), dtype=T.bool), T.zeros((4, 2), dtype=T.bool), T.zeros(4, dtype=T.bool))",
])
def test_linear_bool_refused(src):
    check(_ev(src), raises=True)


@pytest.mark.parametrize("src", [
    "F.linear(T.zeros((0, 2), dtype=T.bool), T.zeros((4, 2), dtype=T.bool))",
    "F.linear(T.zeros((3, 0), dtype=T.bool), T.zeros((4, 0), dtype=T.bool))",
    "F.linear(T.zeros((3, 2), dtype=T.bool), T.zeros((0, 2), dtype=T.bool))",
])
def test_linear_bool_empty(src):
    check(_ev(src))


# --- found by the closing fuzz run ------------------------------------------------------------------

@pytest.mark.parametrize("src", [
    "F.nll_loss(T.zeros((2, 3, 4), dtype=T.float64), T.zeros((2, 4), dtype=T.uint8))",
    "F.cross_entropy(T.zeros((2, 3, 4)), T.zeros((2, 4), dtype=T.uint8))",
    "F.nll_loss(T.zeros((2, 3, 4), dtype=T.int64), T.zeros((2, 4), dtype=T.uint8))",
    "F.binary_cross_entropy(T.tensor([complex(1.0, 0.24)]), T.tensor([complex(0.5, 0.73)]))",
])
def test_late_refusals(src):
    check(_ev(src), raises=True)


@pytest.mark.parametrize("src", [
    "F.nll_loss(T.zeros((2, 3)), T.zeros((2,), dtype=T.uint8))",
    "F.nll_loss(T.zeros((2, 3, 0)), T.zeros((2, 0), dtype=T.uint8))",
])
def test_nll_loss_uint8_target_accepted(src):
    check(_ev(src))


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
def test_gelu_far_negative_gradient(dtype):
    def f(T):
        x = T.tensor([-50.0, -40.0, -39.0, -1e30, -1.0, 2.0, -math.inf, math.nan, 4.569, -1.7e38])
        x = x.to(getattr(T, dtype)).requires_grad_()
        return _grads(T, T.nn.functional.gelu(x), (x,))
    check(f)


def test_gelu_float64_huge_negative_gradient():
    def f(T):
        x = T.tensor([[4.569, 3.224, -1.782], [5.214, 0.749, -1.7976931348623157e+308]], dtype=T.float64,
                     requires_grad=True)
        return _grads(T, T.nn.functional.gelu(x), (x,))
    check(f)
