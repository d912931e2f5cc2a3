"""Regression tests against torch for silent-wrong classes the differential fuzzer found (issue 18,
ninth batch): gradients of 2-norms at overflowing values."""
import math

import pytest

from harness import check

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
