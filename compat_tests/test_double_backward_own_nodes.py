"""Second-order gradients (``create_graph=True``) through the autograd nodes that mstorch defines itself
(``_node`` in ops/_helpers.py and FunctionBase subclasses), on the inputs that make each node exist, against
torch: g = grad(outputs, leaves, w, create_graph=True), then the gradient of a random weighting of g with
respect to the leaves and w. Where torch cannot differentiate twice (or at all), mstorch must raise the
same exception type."""
import contextlib

import numpy as np
import pytest

import mstorch
from harness import check
from test_double_backward import _second_order
from mstorch.ops import _kernels

INF, NAN = float("inf"), float("nan")
R = np.random.RandomState(11)


_second = _second_order


def _leaf(T, values, dtype="float64"):
    return T.tensor(values, dtype=getattr(T, dtype), requires_grad=True)


def _F(T):
    return T.nn.functional


# --- nodes whose backward is differentiated again -------------------------------------------------------

SOFT_MARGIN = {"uint8": [1, 0, 3, 16, 200], "int8": [1, -128, 3, -16, 0]}


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("target", ["uint8", "int8"])
def test_soft_margin_loss_integer_target(dtype, reduction, target):
    # SoftMarginLossBackward0: a target whose negation wraps; torch's double backward squares the wrapped target
    def fn(T):
        x = _leaf(T, [0.003, -0.012, 0.02, 0.001, 0.0], dtype)
        t = T.tensor(SOFT_MARGIN[target], dtype=getattr(T, target))
        return _second(T, [x], _F(T).soft_margin_loss(x, t, reduction=reduction))
    half = dtype == "float16"
    check(fn, rtol=4e-3 if half else 1e-5, atol=1e-3 if half else 1e-6)


def test_soft_margin_loss_integer_target_third_order():
    def fn(T):
        x = _leaf(T, [0.003, -0.012, 0.02, 0.001, 0.0])
        loss = _F(T).soft_margin_loss(x, T.tensor([1, 0, 3, 16, 200], dtype=T.uint8), reduction="sum")
        (g,) = T.autograd.grad(loss, x, create_graph=True)
        (h,) = T.autograd.grad((g * g).sum(), x, create_graph=True)
        return g, h, T.autograd.grad((h * h).sum(), x)[0]
    check(fn)


@pytest.mark.parametrize("dtypes", [("float32", "float64"), ("float64", "float32")])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("extra", [(), ("weight",), ("pos_weight",), ("weight", "pos_weight")])
def test_bce_with_logits_mixed_dtypes(dtypes, reduction, extra):
    # BinaryCrossEntropyWithLogitsBackward0: input and target of different dtypes
    def fn(T):
        x = _leaf(T, [0.2, -1.3, 2.0, 0.7], dtypes[0])
        t = _leaf(T, [0.2, 0.5, 0.9, 1.0], dtypes[1])
        kw = {k: T.tensor([0.5, 2.0, 1.5, 3.0], dtype=getattr(T, dtypes[1])) for k in extra}
        return _second(T, [x, t], _F(T).binary_cross_entropy_with_logits(x, t, reduction=reduction, **kw))
    check(fn, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("reduction", ["none", "mean"])
def test_bce_target_gradient_at_saturated_input(reduction):
    # BinaryCrossEntropyBackward0: the infinite target slope at an input of 0 or 1
    def fn(T):
        x = _leaf(T, [0.0, 0.3, 1.0, 0.7])
        t = _leaf(T, [0.2, 0.5, 0.9, 1.0])
        return _second(T, [x, t], _F(T).binary_cross_entropy(x, t, reduction=reduction))
    check(fn)


def test_as_strided_scatter_non_finite_input():
    # AsStridedScatterBackward0: input's gradient carrier where input holds inf/NaN
    def fn(T):
        x = _leaf(T, [INF, 1.0, 2.0, NAN, 0.5, -1.0])
        s = _leaf(T, [3.0, 4.0])
        return _second(T, [x, s], T.as_strided_scatter(x, s, (2,), (3,)).sin())
    check(fn)


def test_addmv_empty_matrix():
    # AddmvBackward0: the empty-matrix shortcut
    def fn(T):
        x = _leaf(T, [0.5, -1.0, 2.0])
        m, v = T.zeros(3, 0, dtype=T.float64, requires_grad=True), T.zeros(0, dtype=T.float64, requires_grad=True)
        out = T.addmv(x, m, v, beta=0.5)
        return _second(T, [x, m, v], out * out)
    check(fn)


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
@pytest.mark.parametrize("mode", ["use_mm_for_euclid_dist", "use_mm_for_euclid_dist_if_necessary"])
def test_cdist_matrix_product_path(dtype, mode):
    # EuclideanDistBackward0: torch's _euclidean_dist differentiates twice
    a, b = R.randn(30, 3), R.randn(4, 3)
    if dtype == "float16" and mode != "use_mm_for_euclid_dist":
        return
    half = dtype == "float16"

    def fn(T):
        x, y = _leaf(T, a, dtype), _leaf(T, b, dtype)
        return _second(T, [x, y], T.cdist(x, y, compute_mode=mode))
    check(fn, rtol=2e-2 if half else 1e-4, atol=2e-2 if half else 1e-5)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_matrix_exp_1x1_non_finite(dtype):
    # LinalgMatrixExpBackward0: a 1x1 matrix with an inf or NaN entry (NaN gradients there)
    def fn(T):
        x = _leaf(T, [[[0.5]], [[-1.2]], [[INF]], [[NAN]]], dtype)
        return _second(T, [x], T.linalg.matrix_exp(x))
    check(fn)


@pytest.mark.parametrize("entry", [complex(-1.2, -0.3), complex(INF, 1), complex(1, INF)])
def test_matrix_exp_1x1_complex(entry):
    def fn(T):
        x = T.tensor([[[0.5 + 1j]], [[entry]]], dtype=T.complex128, requires_grad=True)
        y = T.linalg.matrix_exp(x)
        return _second(T, [x], y.real * y.imag)
    check(fn)


def test_logaddexp_complex():
    # LogaddexpBackward0 of complex operands
    def fn(T):
        x = T.tensor([0.5 + 1j, -1.2 - 0.3j], dtype=T.complex128, requires_grad=True)
        y = T.tensor([0.1 - 1j, 2.2 + 0.3j], dtype=T.complex128, requires_grad=True)
        o = T.logaddexp(x, y)
        return _second(T, [x, y], o.real * o.imag)
    check(fn)


def test_addcdiv_integer_tensor2_input_gradient():
    # AddcdivBackward0: only input's gradient is asked for, which torch gives (tensor1's would raise)
    def fn(T):
        x, t1 = _leaf(T, [-0.0, -1.2, 2.0]), _leaf(T, [-0.0, -1.2, 2.0])
        out = T.addcdiv(x, t1, T.tensor([1, 2, 3]), value=0.5)
        return (out, out.grad_fn.name()) + _second(T, [x], out * out)
    check(fn)


# --- nodes of mstorch ops that were named as torch's before (FunctionBase classes) ---------------------

@pytest.mark.parametrize("op", ["mul", "div"])
@pytest.mark.parametrize("scalar", ["float32", "float64"])
def test_half_tensor_with_scalar_tensor(op, scalar):
    # _HalfScalarMul / _HalfScalarDiv (MulBackward0 / DivBackward0)
    def fn(T):
        a, s = _leaf(T, [0.5, -1.25, 2.0], "float16"), _leaf(T, 1.7, scalar)
        o = a * s if op == "mul" else a / s
        return _second(T, [a, s], o * o)
    check(fn, rtol=2e-3, atol=1e-3)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_division_by_zero(dtype):
    # _DivByZero (DivBackward0): IEEE's infinities and NaN in both derivatives
    def fn(T):
        a = _leaf(T, [1.0, -2.0, 0.0, 3.0, 0.5], dtype)
        b = _leaf(T, [0.0, 0.0, 0.0, -0.0, 2.0], dtype)
        return _second(T, [a, b], a / b)
    check(fn)


@pytest.mark.parametrize("op", ["fmod", "remainder"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
def test_host_remainder(op, dtype):
    # _HostRemainder (FmodBackward0 / RemainderBackward0)
    def fn(T):
        a, b = _leaf(T, [5.5, -7.25, 3.0, 0.5], dtype), _leaf(T, [2.0, 2.5, -1.5, 0.75], dtype)
        o = getattr(T, op)(a, b)
        return _second(T, [a, b], o * o)
    check(fn, rtol=2e-3 if dtype == "float16" else 1e-5)


@pytest.mark.parametrize("op", ["xlogy", "xlog1py"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_xlog(op, dtype):
    # _XLogNode (XlogyBackward0 / SpecialXlog1PyBackward0): a == 0 beside b <= pole, inf and NaN
    def fn(T):
        f = T.xlogy if op == "xlogy" else T.special.xlog1py
        a = _leaf(T, [[0.0], [1.0], [-2.0]], dtype)
        b = _leaf(T, [0.0, -1.0, 2.0, INF, -2.0, NAN], dtype)
        plain = _second(T, [a, b], f(a, b).sin())
        a2, b2 = _leaf(T, [0.0, 0.0, 1.5, 2.0, 0.0, -1.0], dtype), _leaf(T, [0.0, -1.0, 2.0, 0.5, 3.0, -1.0], dtype)
        return plain, _second(T, [a2, b2], f(a2, b2))
    check(fn)


def test_xlogy_zero_incoming_gradient():
    # torch's gradient is xlogy(grad, b): 0 where the incoming gradient is 0, even at b <= 0
    def fn(T):
        a = _leaf(T, [1.0, 2.0, 0.0])
        out = T.xlogy(a, T.tensor([0.0, -1.0, 2.0], dtype=T.float64))
        return T.autograd.grad(out, a, T.tensor([0.0, 0.0, 1.0], dtype=T.float64))
    check(fn)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("dim", [None, 1])
@pytest.mark.parametrize("values", [[[1.5, 0.0, 2.0], [0.5, 3.0, 1.25]], [[1.5, 0.0, 0.0], [0.5, 3.0, 1.25]],
                                    [[1.5, 2.0, -1.0], [0.5, 3.0, 1.25]]], ids=["one_zero", "two_zeros", "no_zero"])
def test_prod(dtype, dim, values):
    # _ProdNode (ProdBackward0 / ProdBackward1): zeros in the product
    def fn(T):
        x = _leaf(T, values, dtype)
        return _second(T, [x], x.prod() if dim is None else x.prod(dim))
    check(fn)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_addr_with_alpha(dtype):
    # _AddrProduct (AddrBackward0)
    def fn(T):
        i = _leaf(T, np.arange(6.0).reshape(2, 3) / 3, dtype)
        v1, v2 = _leaf(T, [0.5, -1.5], dtype), _leaf(T, [2.0, 1.0, -0.25], dtype)
        o = T.addr(i, v1, v2, beta=0.5, alpha=2.5)
        return _second(T, [i, v1, v2], o * o)
    check(fn)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_on_host_blas(dtype, bias):
    # _HostAddmm / _HostMm (AddmmBackward0 / MmBackward0)
    x0, w0, b0 = R.randn(4, 3), R.randn(2, 3), R.randn(2)

    def fn(T):
        ctx = _kernels.forced("linear", "host_blas") if T is mstorch else contextlib.nullcontext()
        x, w = _leaf(T, x0, dtype), _leaf(T, w0, dtype)
        b = _leaf(T, b0, dtype) if bias else None
        with ctx:
            out = _F(T).linear(x, w, b)
            return (out.grad_fn.name(),) + _second(T, [x, w] + ([b] if bias else []), T.tanh(out))
    check(fn, rtol=1e-5, atol=1e-5)


# --- where torch cannot differentiate (twice): the same exception type -----------------------------------

def _raises_second(make):
    def fn(T):
        leaves, outs = make(T)
        return _second(T, leaves, outs)
    check(fn, raises=True)


RAISING = {
    # torch's _cdist_backward / _pdist_backward have no derivative (cdist but for its matrix-product path)
    **{f"cdist_p{p}": (lambda p: lambda T: ((lambda x, y: ([x, y], T.cdist(x, y, p=p)))(
        _leaf(T, R.randn(3, 4)), _leaf(T, R.randn(5, 4)))))(p) for p in (0.0, 1.0, 1.5, 2.0, INF)},
    **{f"pdist_p{p}": (lambda p: lambda T: (lambda x: ([x], _F(T).pdist(x, p=p)))(_leaf(T, R.randn(3, 4))))(p)
       for p in (1.0, 2.0, 3.0)},
    # PdistBackward0: a half input without pairs (torch's backward has no half kernel)
    "pdist_half_empty": lambda T: (lambda x: ([x], _F(T).pdist(x)))(T.zeros(1, 3, dtype=T.float16, requires_grad=True)),
    # FloorDivideBackward0: no derivative at all
    "floor_divide": lambda T: (lambda x, y: ([x, y], T.floor_divide(x, y)))(_leaf(T, [0.3, -1.2]), _leaf(T, [2.0, 2.0])),
    # AddcdivBackward0: tensor1's derivative with an integer tensor2
    "addcdiv_int": lambda T: (lambda x, t: ([x, t], T.addcdiv(x, t, T.tensor([1, 2]))))(_leaf(T, [0.3, 1.0]),
                                                                                      _leaf(T, [0.5, -1.0])),
    # Logaddexp(2)Backward0: torch's derivative subtracts a bool operand
    "logaddexp_bool": lambda T: (lambda x: ([x], T.logaddexp(T.tensor([True, False]), x)))(_leaf(T, [0.5, -1.2])),
    "logaddexp2_bool": lambda T: (lambda x: ([x], T.logaddexp2(x, T.tensor([True, False]))))(_leaf(T, [0.5, -1.2])),
    # LinalgLdlFactorExBackward0: no derivative
    "ldl_factor_ex": lambda T: (lambda a: ([a], T.linalg.ldl_factor_ex(a)[0]))(_leaf(T, [[2.0, 1.0], [1.0, 3.0]])),
}


@pytest.mark.parametrize("name", list(RAISING))
def test_raises_as_torch(name):
    _raises_second(RAISING[name])
