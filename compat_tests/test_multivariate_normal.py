"""torch.distributions.MultivariateNormal compared with torch: the three parameterisations, seeded
samples and rsample on torch's normal stream, log_prob/entropy/moments with batch broadcasting,
gradients through rsample and log_prob, the positive-definite constraints, and the constructor errors."""
import numpy as np
import pytest

from harness import check, check_grad, check_raises, rand
from test_autograd import check_message


def _spd(n, batch=(), seed=0):
    a = rand(*batch, n, n, seed=seed).astype(np.float64)
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(np.float32)


def _tril(n, batch=(), seed=0):
    return np.linalg.cholesky(_spd(n, batch, seed).astype(np.float64)).astype(np.float32)


@pytest.mark.parametrize("kind", ["covariance_matrix", "precision_matrix", "scale_tril"])
@pytest.mark.parametrize("loc_shape,mat_batch", [((3,), ()), ((2, 3), ()), ((3,), (2,)), ((4, 1, 3), (2,))])
def test_values_and_samples(kind, loc_shape, mat_batch):
    def fn(T):
        T.manual_seed(3)
        mat = _tril(3, mat_batch) if kind == "scale_tril" else _spd(3, mat_batch)
        d = T.distributions.MultivariateNormal(T.tensor(rand(*loc_shape, seed=1)), **{kind: T.tensor(mat)})
        x = T.tensor(rand(5, *d.batch_shape, 3, seed=2))
        return (d.batch_shape, d.event_shape, d.sample(), d.sample((2,)), d.rsample((3,)), d.log_prob(x),
                d.log_prob(d.mean), d.entropy(), d.mean, d.mode, d.variance, d.scale_tril, d.covariance_matrix,
                d.precision_matrix, d.expand((2,) + tuple(d.batch_shape)).log_prob(x[0]), T.rand(2))
    check(fn, rtol=1e-4, atol=1e-5)


def test_gradients_through_rsample_and_log_prob():
    def fn(T, loc, a, x):
        T.manual_seed(0)
        cov = a @ a.mT + 3 * T.eye(3)
        d = T.distributions.MultivariateNormal(loc, covariance_matrix=cov)
        p = T.distributions.MultivariateNormal(loc, precision_matrix=cov)
        return d.rsample((4,)), d.log_prob(x), d.entropy(), p.log_prob(x)
    check_grad(fn, [rand(2, 3, seed=0), rand(3, 3, seed=1), rand(5, 2, 3, seed=2)], rtol=1e-4, atol=1e-5)


def test_positive_definite_constraints():
    def fn(T):
        c = T.distributions.constraints
        m = T.stack([T.tensor(_spd(3)), T.tensor([[1.0, 2, 0], [2, 1, 0], [0, 0, 1]]), T.tensor(rand(3, 3))])
        return (c.positive_definite.check(m), c.positive_semidefinite.check(m), c.symmetric.check(m),
                repr(c.positive_definite), c.positive_definite.event_dim)
    check(fn)


@pytest.mark.parametrize("args", [
    lambda T: (T.tensor(1.0),), lambda T: (T.zeros(3),),
    lambda T: (T.zeros(3), T.eye(3), T.eye(3)), lambda T: (T.zeros(3), T.ones(3)),
])
def test_constructor_errors(args):
    def fn(T):
        a = args(T)
        return T.distributions.MultivariateNormal(a[0], *a[1:])
    check_raises(fn)


def test_validation_errors():
    check_raises(lambda T: T.distributions.MultivariateNormal(T.zeros(2), T.tensor([[1.0, 2], [2, 1]]),
                                                              validate_args=True))
    check_raises(lambda T: T.distributions.MultivariateNormal(T.zeros(2), scale_tril=T.tensor([[1.0, 1], [0, 1]]),
                                                              validate_args=True))


def _mvn_pair(T):
    T.manual_seed(0)
    a = T.randn(3, 3)
    b = T.randn(2, 3, 3)
    p = T.distributions.MultivariateNormal(T.randn(3), covariance_matrix=a @ a.mT + 3 * T.eye(3))
    q = T.distributions.MultivariateNormal(T.randn(2, 3), covariance_matrix=b @ b.mT + T.eye(3))
    return p, q


def test_kl_divergence():
    def fn(T):
        p, q = _mvn_pair(T)
        kl = T.distributions.kl.kl_divergence
        r = T.distributions.MultivariateNormal(T.zeros(3), precision_matrix=p.covariance_matrix)
        return kl(p, q), kl(q, p), kl(p, p), kl(r, p), T.distributions.kl_divergence(q, r)
    check(fn, rtol=1e-4, atol=1e-5)


def test_kl_divergence_gradient():
    def fn(T):
        p, _ = _mvn_pair(T)
        loc = T.randn(3, requires_grad=True)
        tril = T.linalg.cholesky(p.covariance_matrix).requires_grad_()
        T.distributions.kl_divergence(T.distributions.MultivariateNormal(loc, scale_tril=tril), p).backward()
        return loc.grad, tril.grad
    check(fn, rtol=1e-4, atol=1e-5)


def test_kl_divergence_event_shapes():
    def fn(T):
        p, _ = _mvn_pair(T)
        return T.distributions.kl_divergence(p, T.distributions.MultivariateNormal(T.zeros(2), T.eye(2)))
    check_message(fn)
