"""Regression tests against torch for math classes the differential fuzzer found (issue 18, twelfth batch):
unfold of a 0-d tensor by size 0, view(dtype) to and from bfloat16, prod's gradient (torch's prod_backward:
result / input without zeros, zeros for the whole product of two zeros), clamp's gradient to max at a NaN x
where max < min, maximum/minimum's gradient at NaN (both operands), an empty maximum beside a scalar that
requires grad, the gradient of a 0-d scalar beside a half result (reduced in the half type), ldexp of complex
(the plain complex product), lgamma/mvlgamma's float64 gradient (digamma in float64), and the exception
types and orders of min(out=) of complex, gammaincc of complex or integer operands that do not broadcast,
logsumexp(out=) of an integer out, mvlgamma_ of complex and integer receivers, index_reduce_'s range."""

import pytest

from harness import FUZZ_BACKWARD, cases_as_torch, check, run_case as _run


_BACKWARD = FUZZ_BACKWARD

VALUES = [
    # unfold of a 0-d tensor: the one window (size,), also for size 0
    "T.tensor(-0.7).unfold(0, 0, 1)",
    "x0 = T.tensor(-1.28, requires_grad=True); r = x0.unfold(0, 0, 1); " + _BACKWARD + "; out = (r, x0.grad)",
    "x0 = T.tensor(-1.28, requires_grad=True); r = x0.unfold(0, 1, 1); " + _BACKWARD + "; out = (r, x0.grad)",
    # view(dtype) to and from bfloat16: the bits, NaN and subnormals included
    "T.view_copy(T.tensor([[-1.15625, 0.08984375], [-0.78125, 0.44921875], [nan, -1.40625], [-0.050048828125, "
    "-0.380859375]], dtype=T.bfloat16), T.int32)",
    "x = T.tensor([[1065369600, -1, 32705, 1077952784]], dtype=T.int32); v = x.view(T.bfloat16); v.mul_(2); "
    "out = (v.view(T.int16), x, x.view(T.bfloat16).float())",
    "out = (T.tensor([0, 64, 128, 63], dtype=T.uint8).view(T.bfloat16), "
    "T.tensor([1.5, -2.0], dtype=T.bfloat16).view(T.float16), T.tensor([1.5, -2.0], dtype=T.bfloat16)[1:].view(T.uint8))",
    # prod: the whole product of an input with two zeros (and an inf) has a zero gradient
    "x0 = T.tensor([[-0.7, 0.1, 0.2, -1.4], [-0.2, 0.8, 0.4, -0.0], [1e+30, -inf, -0.0, -0.3]], requires_grad=True); "
    "r = T.prod(x0); " + _BACKWARD + "; r = T.prod(x0); " + _BACKWARD + "; out = (r, x0.grad)",
    # ... without zeros, grad * result / input (inf / inf is NaN)
    "x0 = T.tensor([[inf, 2.0], [3.0, 4.0]], requires_grad=True); r = T.prod(x0); " + _BACKWARD + "; out = (r, x0.grad)",
    "x0 = T.tensor([[inf, 2.0], [3.0, 4.0]], requires_grad=True); r = T.prod(x0, 1); " + _BACKWARD + "; out = (r, x0.grad)",
    "x0 = T.tensor([[0.0, inf], [0.0, 4.0]], requires_grad=True); r = T.prod(x0, 1); " + _BACKWARD + "; out = (r, x0.grad)",
    "x0 = T.tensor([[1.5, 0.0, -3.0], [0.5, 4.0, 2.0]], dtype=T.float64, requires_grad=True); r = x0.prod(0); "
    + _BACKWARD + "; out = (r, x0.grad)",
    "x0 = T.tensor([[complex(1.5, 1), 0.5, complex(0, -3)], [0.5, 4.0, complex(2, -1)]], requires_grad=True); "
    "r = x0.prod(); r.abs().backward(); out = (r, x0.grad)",
    # clamp: max's gradient where x > max or max < min, a NaN x included
    "x0 = T.tensor([[-inf, -0.2, -0.0, 0.1], [nan, -0.2, 0.6, -0.6]], requires_grad=True); "
    "x1 = T.tensor([0.0, -0.6, 0.0, -1.0], requires_grad=True); x2 = T.tensor([-0.115, 1.872, 3.4028235e+38, -0.267], "
    "requires_grad=True); r = T.clamp(x0, x1, x2); " + _BACKWARD + "; out = (r, x0.grad, x1.grad, x2.grad)",
    "x0 = T.tensor([[-inf, nan, nan, 0.1], [nan, -0.2, 0.6, nan]], requires_grad=True); "
    "x1 = T.tensor([0.0, -0.6, nan, -1.0], requires_grad=True); x2 = T.tensor([-0.115, -inf, 1.0, nan], "
    "requires_grad=True); r = T.clamp(x0, x1, x2); " + _BACKWARD + "; out = (r, x0.grad, x1.grad, x2.grad)",
    # maximum/minimum (and max/min of two tensors): NaN's gradient reaches both operands
    "x0 = T.tensor([[0.97, -0.0, -0.2, -inf], [0.15, -0.05, 0.86, nan], [-1.41, 1.22, 1.52, -0.32]], dtype=T.float64, "
    "requires_grad=True); x1 = T.tensor([[-1.2, nan, 1.7976931348623157e+308, inf], [1.832, 1.226, -1.451, -2.686], "
    "[1.5, 1e+30, 1.8, 0.6], [1.014, 0.565, -0.951, 1.596], [-0.4, 1.8, 1.7976931348623157e+308, -1.7], "
    "[2.479, -1.585, -1.448, -0.803]], dtype=T.float64, requires_grad=True); r = T.min(x0, x1[::2]); " + _BACKWARD +
    "; out = (r, x0.grad, x1.grad)",
    "x0 = T.tensor([[0.5, nan, nan, 1.0, 2.0, inf, -inf]], requires_grad=True); "
    "x1 = T.tensor([[nan, 0.5, nan, 1.0, -inf, inf, nan]], requires_grad=True); r = T.maximum(x0, x1); "
    + _BACKWARD + "; out = (r, x0.grad, x1.grad)",
    "x0 = T.tensor([[0.5, nan, nan, 1.0, 2.0, inf, -inf]], requires_grad=True); "
    "x1 = T.tensor([[nan, 0.5, nan, 1.0, -inf, inf, nan]], requires_grad=True); r = T.max(x0, x1); "
    + _BACKWARD + "; out = (r, x0.grad, x1.grad)",
    "x0 = T.tensor([[0.5, nan, 3.0]], requires_grad=True); r = T.minimum(x0, T.tensor([1, 2, 3])); "
    + _BACKWARD + "; out = (r, x0.grad)",
    # an empty maximum stays on the graph of a non-empty operand that requires grad
    "x1 = T.tensor(1.6, requires_grad=True); r = T.maximum(T.zeros((0, 6), dtype=T.uint8)[:, ::2], x1); "
    + _BACKWARD + "; out = (r, x1.grad)",
    "x1 = T.tensor([1.6, 2], requires_grad=True); r = T.minimum(x1, T.zeros((0, 2), dtype=T.float64)); "
    + _BACKWARD + "; out = (r, x1.grad)",
    # ldexp of complex: torch's plain complex product by 2 ** e (NaN * inf parts stay NaN)
    "T.ldexp(T.tensor([[complex(nan, -0.45), complex(0.7, -0.03)]]).expand(4, 2), T.tensor([[32767, 4], [3, 0], "
    "[32767, 32767], [-32768, 0]], dtype=T.int16))",
    "T.ldexp(T.tensor([[complex(nan, -0.45), complex(0.7, -0.03), complex(inf, 0)]], dtype=T.complex128), "
    "T.tensor([[3000, 4, -2]]))",
    # the 0-d scalar's gradient is reduced in the result's half type, then cast to the scalar's dtype
    "x0 = T.tensor([[0.8984375, 0.69921875, 0.2001953125, 1.3984375], [-0.80078125, 0.2001953125, 0.8984375, 0.5], "
    "[1.1015625, 0.400390625, -0.0, 0.80078125], [0.400390625, 1.0, -0.30078125, -0.30078125], [1.203125, "
    "0.80078125, 0.2001953125, -1.0]], dtype=T.bfloat16, requires_grad=True); x1 = T.tensor(-2.63, dtype=T.float64, "
    "requires_grad=True); r = T.multiply(x0, x1); " + _BACKWARD + "; r = T.multiply(x0, x1); " + _BACKWARD +
    "; out = (r, x0.grad, x1.grad)",
    "x0 = T.tensor([[0.8984375, 0.69921875, 0.2001953125, 1.3984375], [-0.80078125, 0.2001953125, 0.8984375, 0.5]], "
    "dtype=T.float16, requires_grad=True); x1 = T.tensor(-2.63, dtype=T.float32, requires_grad=True); r = x0 / x1; "
    + _BACKWARD + "; out = (r, x0.grad, x1.grad)",
]

# compared to double precision: these differed at float32's precision in a float64 result
PRECISE = [
    # lgamma's (and mvlgamma's) gradient: digamma in float64 (MindSpore's Lgamma backward is float32-accurate)
    "x0 = T.tensor([1.7976931348623157e+308, -1.7976931348623157e+308, 1e300, 2.5, 1e-10, -2.0000001, "
    "-0.9999999999, 0.5000001, -1.5, 3.0], dtype=T.float64, requires_grad=True); r = T.lgamma(x0); " + _BACKWARD +
    "; out = (r, x0.grad)",
    "x0 = T.tensor([1.7976931348623157e+308, 1e300, 2.5, -2.0000001], dtype=T.float64, requires_grad=True); "
    "r = T.special.gammaln(x0); " + _BACKWARD + "; out = (r, x0.grad)",
    "x0 = T.tensor([[1.0000001, 1.5000001, 3.0, 1e300]], dtype=T.float64, requires_grad=True); r = T.mvlgamma(x0, 2); "
    + _BACKWARD + "; out = (r, x0.grad)",
]

# torch's exact messages (check compares the exception types only)
MESSAGES = [
    "T.special.gammaincc(T.tensor([0.5, 2.0, 3.0]), T.zeros((3,), dtype=T.complex64))",
    "x = T.tensor([[1], [2]]); out = (x.expand(2, 2).mvlgamma_(1), x)",
    "T.tensor([1, 2], dtype=T.uint8).mvlgamma_(3)",
    "x = T.ones(2, 2, 2); out = x.index_reduce_(1, T.tensor([0, 3]), T.ones(2, 2, 2), 'mean', include_self=False)",
    "T.logsumexp(T.tensor(-2), 1, out=T.zeros(0, dtype=T.int64))",
    "T.min(T.zeros((3, 0), dtype=T.complex64), out=T.zeros(0, dtype=T.complex64))",
]

RAISES = [
    # min/max with out= and no dim: torch's min_all/max_all kernel refuses complex before the empty check
    "T.min(T.zeros((3, 0), dtype=T.complex64), out=T.zeros(0, dtype=T.complex64))",
    "T.max(T.zeros((3, 0), dtype=T.complex128), out=T.zeros(0, dtype=T.complex128))",
    # gammainc(c): the operands broadcast before the kernel refuses their dtype
    "T.special.gammaincc(T.tensor([0.5, 2.0, 3.0]), T.zeros((0,), dtype=T.complex64))",
    "T.special.gammainc(T.zeros((3,), dtype=T.int64), T.zeros((2,), dtype=T.int64))",
    "T.special.gammaincc(T.tensor([0.5, 2.0, 3.0]), T.zeros((3,), dtype=T.complex64))",
    # logsumexp(out=): the out's dtype before the dim
    "T.logsumexp(T.tensor(-2), 1, out=T.zeros(0, dtype=T.int64))",
    "T.special.logsumexp(T.tensor([-2.0]), 3, out=T.zeros(0, dtype=T.bool))",
    # mvlgamma_: the arange of a complex dtype, and the result type, before the receiver's overlap
    "x = T.tensor([[complex(nan, 9.44)], [complex(5.993, 3.32)]]); out = (x.expand(2, 2).mvlgamma_(2), x)",
    "x = T.tensor([[1], [2]]); out = (x.expand(2, 2).mvlgamma_(1), x)",
    "T.tensor([1, 2], dtype=T.uint8).mvlgamma_(3)",
    # index_reduce_: the range, as torch names it (without self: the fill names the first index out of range)
    "x = T.ones(2, 2, 2); out = x.index_reduce_(1, T.tensor([0, 3]), T.ones(2, 2, 2), 'mean', include_self=False)",
    "x = T.tensor([[1.4, 2.0], [1.1, 0.5]]); out = x.index_reduce_(1, T.tensor([2, 2]), "
    "T.tensor([[-1.68, 0.86], [-0.35, -0.41]]), 'mean', include_self=False)",
]

# the receiver's overlap before the indices' range
OVERLAP = [
    "x = T.tensor([[1.4], [1.1]]); out = (x.expand(2, 2).index_reduce_(1, T.tensor([2, 2]), "
    "T.tensor([[-1.68, 0.86], [-0.35, -0.41]]), 'mean', include_self=False), x)",
    "x = T.tensor([[1.4], [1.1]]); out = x.expand(2, 2).index_copy_(1, T.tensor([2, 2]), "
    "T.tensor([[-1.68, 0.86], [-0.35, -0.41]]))",
    "x = T.tensor([[1.4], [1.1]]); out = x.expand(2, 2).index_add_(1, T.tensor([2, 2]), "
    "T.tensor([[-1.68, 0.86], [-0.35, -0.41]]))",
]


test_values_as_torch = cases_as_torch(VALUES, rtol=1e-5, atol=1e-6)
test_double_precision_as_torch = cases_as_torch(PRECISE, rtol=1e-10, atol=0)


@pytest.mark.parametrize("src", RAISES + OVERLAP)
def test_raises_as_torch(src):
    check(lambda T: _run(T, src), raises=True)


def test_prod_double_backward_as_torch():
    # (ProdBackward0/1 are in _higher_order._OWN_FUNCTIONS)
    def run(T):
        out = []
        for vals, dim in (([[1.5, 2.0, -3.0], [0.5, 4.0, 2.0]], None), ([[1.5, 0.0, -3.0], [0.5, 4.0, 2.0]], 1),
                          ([[1.5, 0.0, -3.0], [0.5, 0.0, 2.0]], None)):
            x = T.tensor(vals, dtype=T.float64, requires_grad=True)
            r = x.prod() if dim is None else x.prod(dim)
            (g,) = T.autograd.grad((r * T.linspace(1, 2, r.numel()).reshape(r.shape).to(r.dtype)).sum(), x,
                                   create_graph=True)
            (h,) = T.autograd.grad((g * T.linspace(-1, 1, g.numel()).reshape(g.shape).to(g.dtype)).sum(), x)
            out += [g.detach(), h]
        return out
    check(run, rtol=1e-10, atol=1e-12)


def test_lgamma_double_backward_as_torch():
    # (LgammaBackward0 is in _higher_order._OWN_FUNCTIONS)
    def run(T):
        x = T.tensor([2.5, 0.7, -1.5, 1e300], dtype=T.float64, requires_grad=True)
        (g,) = T.autograd.grad(T.lgamma(x).sum(), x, create_graph=True)
        (h,) = T.autograd.grad(g.sum(), x)
        return g.detach(), h
    check(run, rtol=1e-8, atol=0)   # (the second derivative is MindSpore's Digamma backward, ~4e-10 relative)


def _error(T, src):
    try:
        _run(T, src)
    except Exception as exc:   # noqa: BLE001 - the error is the result compared
        return type(exc).__name__, str(exc)
    return None


@pytest.mark.parametrize("src", MESSAGES)
def test_messages_as_torch(src):
    import torch
    import mstorch
    ref = _error(torch, src)
    assert ref is not None
    assert _error(mstorch, src) == ref
