"""Regression tests against torch for the differential fuzzer's third batch (issue 18): MindSpore kernels
that kill the process, and wrong-exception classes (raising where torch returns, returning where torch
raises, another exception type)."""
import math
import subprocess
import sys

import pytest

from harness import check

nan, inf = math.nan, math.inf


# --- kernels that crash the process: each case runs in a fresh process first ----------------------

def _survives(src):
    """``src`` (an expression on ``T``) run with mstorch in a fresh process: the exit status is 0 when the
    process survives (a crash would otherwise take the test run down with it)."""
    code = f"import mstorch as T\ntry:\n    {src}\nexcept Exception:\n    pass\n"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=600).returncode


@pytest.mark.parametrize("src", [
    "T.linalg.eigvals(T.zeros((0, 0), dtype=T.float64))",   # SIGFPE in the Eig kernel
    "T.linalg.eigvals(T.zeros((2, 0, 0)))",
    "T.linalg.eig(T.zeros((0, 0)))",
])
def test_eig_empty_does_not_crash(src):
    assert _survives(src) == 0
    check(lambda T: eval(src, {"T": T}))   # noqa: S307 - a fixed source, run on both libraries


@pytest.mark.parametrize("fn", [lambda T, z: T.conj_physical(z[::2]), lambda T, z: T.isreal(z),
                                lambda T, z: z.real, lambda T, z: z.imag, lambda T, z: T.conj(z).resolve_conj()])
def test_empty_complex_parts(fn):
    # MindSpore's Conj/Real/Imag kernels refuse empty input ("got empty inputs or outputs")
    check(lambda T: fn(T, T.zeros((0, 2), dtype=T.complex64)))


# --- out=: torch's dtype contract -----------------------------------------------------------------

@pytest.mark.parametrize("src", [
    "T.log(T.tensor([3, 1]), out=T.zeros(0, dtype=T.int64))",          # float result into an integer out
    "T.erfinv(T.tensor([False, True]), out=T.zeros(0, dtype=T.bool))",
    "T.round(T.tensor([1.5, -2.25]).bfloat16(), out=T.zeros(0))",     # ops that take their own dtype only
    "T.argmax(T.tensor([[-2.7], [1.2]]), out=T.zeros(0))",
    "T.signbit(T.zeros(3, dtype=T.int16), out=T.zeros(0, dtype=T.int16))",
    "T.full((2,), 1.5, dtype=T.int64, out=T.zeros(0))",                # dtype= that out does not have
    "T.ones(3, dtype=T.bfloat16, out=T.zeros(0))",
    "T.sum(T.tensor([1.0, 2.0]), out=T.zeros(0))",                      # no out= overload without dim
    "T.nanmedian(T.tensor([nan, 1.0]), out=T.zeros(0))",
    "T.flip(T.tensor([1, 2]), (0,), out=T.zeros(0, dtype=T.int64))",   # no out= at all
    "T.roll(T.tensor([1.0, 2.0]), 1, 0, out=T.zeros(0))",
    "T.cummin(T.tensor([1.0, 2.0]), 0, out=T.zeros(0))",                # a tuple result needs a tuple
])
def test_out_refused_as_torch_does(src):
    check(lambda T: eval(src, {"T": T, "nan": nan}), raises=True)   # noqa: S307


@pytest.mark.parametrize("src", [
    "T.add(T.tensor([1, 2]), 1, out=T.zeros(0, dtype=T.float64))",     # casts that torch allows
    "T.eq(T.tensor([1.0, 2.0]), 1.0, out=T.zeros(0))",
    "T.exp(T.tensor([1.0, 2.0]), out=T.zeros(0, dtype=T.bfloat16))",
    "T.zeros(2, out=T.zeros(0, dtype=T.int64))",                       # a factory takes out's dtype
    "T.arange(4, out=T.zeros(0))",
    "T.sum(T.tensor([[1.0, 2.0]]), 1, out=T.zeros(0, dtype=T.float64))",
    "T.sort(T.tensor([2.0, 1.0]), out=(T.zeros(0), T.zeros(0, dtype=T.int64)))",
])
def test_out_cast_as_torch_does(src):
    check(lambda T: eval(src, {"T": T}))   # noqa: S307


# --- backward paths MindSpore's CPU kernels fail on --------------------------------------------------

def _grad_of(T, x, fn):
    r = fn(T, x)
    (r * T.linspace(-1, 2, r.numel()).reshape(r.shape).to(r.dtype)).sum().backward()
    return r.detach(), x.grad


@pytest.mark.parametrize("shape, key", [
    ((2, 4, 3), (slice(None), slice(None, None, 2))),      # StridedSliceGrad: "input memory out of bounds"
    ((2, 5, 3), (slice(None), slice(None, None, 2))),
    ((2, 4, 1), (slice(None), slice(1, None, 3))),
    ((3, 4), (slice(None, None, 2), slice(1, None, 2))),
])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_stepped_slice_backward(shape, key, dtype):
    def f(T):
        x = T.arange(float(math.prod(shape)), dtype=getattr(T, dtype)).reshape(shape).requires_grad_()
        return _grad_of(T, x, lambda T, t: T.sin(t[key]))
    check(f)


def test_bfloat16_expand_backward():
    # BroadcastTo's backward sums with a ReduceSum that has no bfloat16 CPU kernel
    def f(T):
        x = T.tensor([[-0.19140625], [1.5]], dtype=T.bfloat16, requires_grad=True)
        return _grad_of(T, x, lambda T, t: t.expand(2, 3) * 2)
    check(f, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("shape, fn", [((3, 0), lambda T, t: T.conj(t)), ((3, 0), lambda T, t: T.xlogy(t, 2.5)),
                                       ((0, 0), lambda T, t: T.linalg.matrix_power(t, 3))])
def test_bfloat16_empty_backward(shape, fn):
    # the empty result's link to its input summed bfloat16 (no CPU kernel)
    def f(T):
        x = T.zeros(shape, dtype=T.bfloat16, requires_grad=True)
        r = fn(T, x)
        r.sum().backward()
        return r.detach(), x.grad
    check(f)


@pytest.mark.parametrize("src", [
    "T.sin_(T.zeros((1, 0)).expand(2, 0))",                     # an empty expanded tensor repeats nothing
    "T.square_(T.tensor([[0.5, 1.0, 2.0, 3.0]]).expand(0, 4))",
    "T.abs_(T.zeros((0, 1)).expand(0, 4))",
])
def test_inplace_on_empty_expanded(src):
    check(lambda T: eval(src, {"T": T}))   # noqa: S307


def test_inplace_on_expanded_still_refused():
    check(lambda T: T.sin_(T.zeros((1, 2)).expand(3, 2)), raises=True)


# --- silent classes of this batch ----------------------------------------------------------------------

@pytest.mark.parametrize("fn, shapes", [
    (lambda T, a, b: T.mm(a, b), [(0, 1), (1, 4)]),             # the non-empty operand's gradient was
    (lambda T, a, b: T.mv(a, b), [(0, 5), (5,)]),               # whatever MatMul's buffer held
    (lambda T, a, b: T.mm(a, b), [(3, 2), (2, 0)]),
    (lambda T, a, b: T.matmul(a, b), [(0, 3, 2), (2, 4)]),
    (lambda T, a, b: T.nn.functional.linear(a, b), [(0, 3), (4, 3)]),
])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_product_with_one_empty_operand_backward(fn, shapes, dtype):
    def f(T):
        xs = [T.arange(float(math.prod(s)), dtype=getattr(T, dtype)).reshape(s).requires_grad_() for s in shapes]
        for _ in range(2):   # twice: the second pass must not see the first one's buffers
            r = fn(T, *xs)
            (r * T.linspace(-1, 2, r.numel()).reshape(r.shape).to(r.dtype)).sum().backward()
        return (r.detach(),) + tuple(x.grad for x in xs)
    check(f)


@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_l1_loss_complex_is_real(reduction):
    check(lambda T: T.nn.functional.l1_loss(T.tensor([complex(-0.1, -0.97), complex(-0.64, -0.4)]),
                                            T.tensor([complex(-0.7, 1.49), complex(0.8, 1.76)]), reduction=reduction))


def test_slogdet_complex_logabsdet_is_real():
    check(lambda T: T.linalg.slogdet(T.tensor([[complex(-0.21, -0.18), complex(1.27, -1.11)],
                                               [complex(0.0, 1.45), complex(1.23, 0.79)]])))


@pytest.mark.parametrize("other", ["T.tensor(-0.6)", "T.tensor(0.5, dtype=T.float64)", "T.ones(4)"])
def test_cosine_similarity_promotes_zero_dim_as_torch(other):
    # torch broadcasts first, so a 0-d operand promotes like a dimensioned one
    check(lambda T: T.cosine_similarity(T.ones(3, 4, dtype=T.bfloat16), eval(other, {"T": T})))   # noqa: S307


@pytest.mark.parametrize("make", [lambda T: T.ones(1, 9).expand(2, 9), lambda T: T.ones(4, 6)[:, ::2],
                                  lambda T: T.ones(3, 4).t()])
def test_rand_like_of_non_dense_input_is_contiguous(make):
    def f(T):
        T.manual_seed(1234)
        return T.rand_like(make(T))
    check(f)


def test_zeta_pole_of_q_is_inf():
    check(lambda T: T.special.zeta(T.tensor([2.0, 3.0, 2.0, 0.5], dtype=T.float64),
                                   T.tensor([0.8, 0.0, -2.0, 0.0], dtype=T.float64)))


# --- exception types --------------------------------------------------------------------------------------

@pytest.mark.parametrize("src", [
    "T.special.psi(T.tensor([complex(1.43, -2.23)]))",       # MindSpore's dtype check (a TypeError) is
    "T.special.xlog1py(T.tensor([complex(1.91, 2.99)]), 2.0)",   # torch's NotImplementedError
    "T.erfc_(T.tensor([complex(-0.31, 0.09), complex(0.21, 0.69)]))",   # and an in-place form keeps it
])
def test_missing_kernel_is_not_implemented_error(src):
    check(lambda T: eval(src, {"T": T}), raises=True)   # noqa: S307


@pytest.mark.parametrize("src", [
    "T.special.modified_bessel_k0(T.tensor([0.84375, 1.390625], dtype=T.bfloat16))",   # kernels torch lacks
    "T.special.erfcx(T.tensor([0.5], dtype=T.float16))",
    "T.abs(T.tensor([True, False]))",
    "T.nn.functional.avg_pool1d(T.tensor([[[4, 2, 3]]], dtype=T.int16), 3)",
    "T.frac_(T.tensor([1, 2]))",
])
def test_dtype_torch_has_no_kernel_for_raises(src):
    check(lambda T: eval(src, {"T": T}), raises=True)   # noqa: S307


@pytest.mark.parametrize("src", ["T.softmax(T.tensor([1, 2]), 0, dtype=T.float32)",   # dtype= converts first
                                 "T.special.modified_bessel_k0(T.tensor([0.84375, 1.390625]))"])
def test_dtype_check_leaves_supported_calls(src):
    check(lambda T: eval(src, {"T": T}))   # noqa: S307


def test_zero_dim_division_by_zero_keeps_shape():
    check(lambda T: (T.divide(T.tensor(-0.13), 0.0), T.tensor(2.0) / T.tensor(-0.0)))
