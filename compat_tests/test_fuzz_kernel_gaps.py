"""Regression tests against torch for the differential fuzzer's loud classes where torch returns and
mstorch raised (issue 18): MindSpore CPU kernels without a bfloat16 backward, kernels that refuse empty
input, and results of empty input that fell off the autograd graph."""
import math

import pytest

from harness import check

nan, inf = math.nan, math.inf


def _grads(T, xs, fn, twice=False):
    """fn's result and the inputs' gradients of a fixed weighting of it (twice: accumulated)."""
    for _ in range(2 if twice else 1):
        r = fn(T, *xs)
        r = r if isinstance(r, T.Tensor) else r[0]
        (r * T.linspace(-1, 2, r.numel()).reshape(r.shape).to(r.dtype)).sum().backward()
    return (r.detach(),) + tuple(x.grad for x in xs)


def _leaf(T, shape, dtype="float32", values=None):
    dt = getattr(T, dtype)
    if values is not None:
        return T.tensor(values, dtype=dt, requires_grad=True)
    return T.zeros(shape, dtype=dt, requires_grad=True)


# --- bfloat16 backward through selections, broadcasts and empty reductions ------------------------------

_BF = [[-0.6171875, -1.390625, 0.2421875, -1.21875], [-0.453125, -0.58984375, -0.4921875, 0.6328125]]


@pytest.mark.parametrize("name, fn", [
    ("roll", lambda T, x: T.roll(x, 1)),
    ("roll_dim", lambda T, x: T.roll(x.t(), -1, 0)),
    ("ifftshift", lambda T, x: T.fft.ifftshift(x, dim=-1)),
    ("fftshift", lambda T, x: T.fft.fftshift(x)),
    ("trace", lambda T, x: T.trace(x)),
    ("diagonal_sum", lambda T, x: x.diagonal(1) * 2),
    ("narrow", lambda T, x: x.narrow(1, 1, 2)),
    ("unbind", lambda T, x: T.unbind(x, 1)[2]),
    ("expand", lambda T, x: x[:1].expand(3, 4)),
    ("broadcast_to", lambda T, x: T.broadcast_to(x[0], (2, 2, 4))),
])
def test_bfloat16_backward_of_selections(name, fn):
    check(lambda T: _grads(T, [_leaf(T, None, "bfloat16", _BF)], fn, twice=True), rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("name, fn", [
    ("addr", lambda T, a, b, c: T.addr(a, b, c, beta=0.5, alpha=2.0)),
    ("addmv", lambda T, a, b, c: T.addmv(a[:1], T.outer(b, c), c)),
    ("addmm", lambda T, a, b, c: T.addmm(a, b.reshape(2, 1), c.reshape(1, 2))),
])
def test_bfloat16_backward_of_broadcast_operand(name, fn):
    def run(T):
        xs = [_leaf(T, None, "bfloat16", v) for v in
              ([-1.0, -0.10009765625], [-1.3984375, -0.30078125], [-1.203125, -0.69921875])]
        return _grads(T, xs, fn)
    check(run, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("src", [
    "T.sum(x, 1)", "T.sort(x, stable=True)[0]", "T.amax(x.t(), 0, keepdim=True)", "x.mean(0)",
    "F.adaptive_max_pool2d_with_indices(x.reshape(0, 1, 2, 2), 3)[0]",
])
def test_bfloat16_empty_reduction_backward(src):
    def run(T):
        x = T.zeros((0, 4), dtype=T.bfloat16, requires_grad=True)
        return _grads(T, [x], lambda T, x: eval(src, {"T": T, "F": T.nn.functional, "x": x}), twice=True)  # noqa: S307
    check(run)


# --- kernels that refuse empty input ------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(0, 0), (0, 3), (3, 0), (2, 0, 0)])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "int64", "bool"])
def test_tril_triu_empty(shape, dtype):
    check(lambda T: (T.zeros(shape, dtype=getattr(T, dtype)).tril(), T.zeros(shape, dtype=getattr(T, dtype)).triu(1)))


@pytest.mark.parametrize("src", [
    "T.kthvalue(x, 1, 1)[0]", "T.kthvalue(x, 2, 1, keepdim=True)[0]", "T.unbind(x.t(), 0)[0]",
    "x.t()[1]", "T.linalg.qr(x[:, :0])[0]", "T.cholesky_inverse(x[:, :0])", "T.tril(x)",
    "T.cumulative_trapezoid(x)", "T.cumulative_trapezoid(x.t(), dx=2.0)",
])
def test_empty_input_backward(src):
    check(lambda T: _grads(T, [T.zeros((0, 3), requires_grad=True)],
                           lambda T, x: eval(src, {"T": T, "x": x})))  # noqa: S307


@pytest.mark.parametrize("eq, shapes", [
    ("ij,jk->ik", [(2, 0), (0, 3)]), ("ij,jk->ik", [(2, 1), (0, 3)]), ("ij,jk->ik", [(2, 0), (1, 3)]),
    ("ij->j", [(0, 3)]), ("bij,bjk->bik", [(0, 2, 3), (1, 3, 4)]), ("i,i->", [(0,), (1,)]), ("ii->i", [(0, 0)]),
    ("ij,kj->ik", [(3, 0), (2, 0)]), ("...j,j->...", [(2, 0, 4), (4,)]),
])
def test_einsum_zero_size_dims(eq, shapes):
    def run(T):
        xs = [T.ones(s, requires_grad=True) for s in shapes]
        r = T.einsum(eq, *xs)
        r.sum().backward()
        return (r.detach(),) + tuple(x.grad for x in xs)
    check(run)


def test_expand_size1_to_empty_has_zero_gradient():
    # MindSpore's BroadcastTo backward summed nothing into an uninitialised buffer (the gradient was 1)
    def run(T):
        a, b = T.ones(1, requires_grad=True), T.ones(1, 1, requires_grad=True)
        a.expand(0).sum().backward()
        T.broadcast_to(b, (-1, 0)).sum().backward()
        return a.grad, b.grad
    check(run)


@pytest.mark.parametrize("a, b", [((2,), (2, 1)), ((0,), (3, 0, 1)), ((2, 3), (3,)), ((), (2, 2))])
def test_zeta_broadcasts(a, b):
    check(lambda T: T.special.zeta(T.full(a, 2.5), T.full(b, 1.5)))


# --- results of empty input stay on the autograd graph ------------------------------------------------

@pytest.mark.parametrize("src, shape", [
    ("T.det(x)", (0, 0)), ("T.linalg.det(x)", (1, 0, 0)), ("T.diagflat(x, 1)", (1, 0, 4)),
    ("T.linalg.pinv(x)", (0, 0)), ("T.nuclear_norm(x, True)", (0, 5)), ("T.prod(x)", (2, 0)),
    ("T.prod(x, 1)", (2, 0)), ("T.linalg.slogdet(x)[1]", (0, 0)), ("T.logdet(x)", (0, 0)),
    ("T.diag(x)", (0,)), ("T.diag_embed(x)", (0,)), ("T.linalg.svdvals(x)", (0, 3)),
    ("T.linalg.eigvalsh(x)", (0, 0)), ("T.outer(x, T.ones(2))", (0,)), ("T.cdist(x, T.ones(2, 3))", (0, 3)),
    ("T.renorm(x, 2, 0, 1.0)", (0, 3)), ("T.dist(x, T.zeros(0))", (0,)), ("T.median(x, 0)[0]", (3, 0)),
    ("T.mode(x, 0)[0]", (3, 0)), ("T.linalg.solve(x, T.zeros(0, 2))", (0, 2, 2)),
])
def test_empty_input_result_keeps_gradient(src, shape):
    check(lambda T: _grads(T, [T.zeros(shape, requires_grad=True)], lambda T, x: eval(src, {"T": T, "x": x})))  # noqa: S307


def test_failed_backward_keeps_recording_on():
    # a backward that raised left MindSpore's op recording off: later results had no grad_fn
    def run(T):
        x = T.ones(2, 3, requires_grad=True)
        y = x.sum()
        y.backward()
        try:
            y.backward()     # the graph is freed: raises
        except RuntimeError:
            pass
        z = (T.ones(2, requires_grad=True) * 2).sum()
        return z.requires_grad, z.grad_fn is not None
    check(run)


# --- integer operands of distances ----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["int16", "int32", "int64", "uint8", "float16", "bfloat16", "float64"])
@pytest.mark.parametrize("kw", [{}, {"eps": 0}, {"p": 1}, {"p": 0}])
def test_pairwise_distance_integer_operands(dtype, kw):
    def run(T):
        a = T.tensor([[1, 2, 3], [4, 0, 2]], dtype=getattr(T, dtype))
        b = T.tensor([[0, 2, 1], [1, 1, 1]], dtype=getattr(T, dtype))
        return T.nn.functional.pairwise_distance(a, b, **kw)
    check(run, rtol=1e-2 if dtype in ("float16", "bfloat16") else 1e-5)


@pytest.mark.parametrize("dtype", ["int16", "int32"])
def test_triplet_losses_integer_operands(dtype):
    def run(T):
        a = T.tensor([-4, 2, -5, 1], dtype=getattr(T, dtype))
        p = T.tensor([-3, 4, -5, 5], dtype=getattr(T, dtype))
        n = T.tensor([5, 2, 2, 2], dtype=getattr(T, dtype))
        F = T.nn.functional
        return F.triplet_margin_loss(a, p, n), F.triplet_margin_with_distance_loss(a, p, n)
    check(run)


def test_pairwise_distance_bool_raises_as_torch():
    check(lambda T: T.nn.functional.pairwise_distance(T.ones(2, 3, dtype=T.bool), T.zeros(2, 3, dtype=T.bool)),
          raises=True)


# --- more kernels that refuse empty input or a half dtype -------------------------------------------------

@pytest.mark.parametrize("src, shape", [
    ("T.digamma(x)", (0, 2)), ("T.special.psi(x)", (0, 1)), ("T.special.multigammaln(x, 2)", (0, 2)),
    ("T.lgamma(x)", (2, 0)), ("T.tile(x, (2,))", (1, 0)), ("T.tile(x, (2, 1, 3))", (0, 3)),
    ("x.repeat(2, 0)", (2, 3)), ("F.glu(x)", (3, 0)), ("F.glu(x, 0)", (0, 4)), ("F.group_norm(x, 1)", (2, 3, 0)),
    ("F.group_norm(x, 2)", (3, 0, 1)),
])
def test_empty_input_kernels(src, shape):
    check(lambda T: _grads(T, [T.zeros(shape, requires_grad=True)],
                           lambda T, x: eval(src, {"T": T, "F": T.nn.functional, "x": x})))  # noqa: S307


def test_group_norm_empty_affine_gradients():
    def run(T):
        w, b = T.ones(4, requires_grad=True), T.zeros(4, requires_grad=True)
        x = T.zeros((0, 4, 3), requires_grad=True)
        T.nn.functional.group_norm(x, 2, w, b).sum().backward()
        return x.grad, w.grad, b.grad
    check(run)


@pytest.mark.parametrize("name", ["gammainc", "gammaincc"])
def test_gammainc_float16(name):
    check(lambda T: getattr(T.special, name)(T.tensor([[2.5, 2.6]], dtype=T.float16),
                                             T.tensor([[2.27], [1.5]], dtype=T.float16)), rtol=2e-3, atol=1e-3)


@pytest.mark.parametrize("src", [
    "F.threshold(x[1:], 0.5, -1.0)", "F.threshold(x.expand(2, 4), 1, 20)", "T.where(x > 0, x, x * 2)",
])
def test_bfloat16_where_backward(src):
    check(lambda T: _grads(T, [_leaf(T, None, "bfloat16", [2.09375, 4.96875, -1.796875, 4.09375])],
                           lambda T, x: eval(src, {"T": T, "F": T.nn.functional, "x": x})), rtol=1e-2, atol=1e-2)  # noqa: S307


def test_bfloat16_backward_after_inplace_on_slice():
    # the write-back's Slice had no bfloat16 backward kernel (SliceGrad): backward raised TypeError
    def run(T):
        x = T.tensor([1., 2, 3, 4], dtype=T.bfloat16, requires_grad=True)
        y = x * 1
        y[1:].mul_(2)
        y.sum().backward()
        return y.detach(), x.grad
    check(run)


@pytest.mark.parametrize("name", ["bessel_y1", "modified_bessel_k1", "spherical_bessel_j0", "scaled_modified_bessel_k0"])
def test_nondifferentiable_special_of_empty_input(name):
    # torch's Bessel family has no derivative: an empty input's result stays off the graph as well
    def run(T):
        r = getattr(T.special, name)(T.zeros((0, 3), requires_grad=True))
        return r, r.requires_grad
    check(run)
