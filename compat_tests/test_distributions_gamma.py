"""torch._standard_gamma / _sample_dirichlet and Gamma, Dirichlet, Beta against torch: seeded samples equal to
torch's value for value (torch's Marsaglia-Tsang sampler on its CPU stream, the generator left in the same
state), log_prob / entropy / moments / cdf, gradients through log_prob and through the rate, and the refusal of
the concentration's reparameterized gradient."""
import numpy as np
import pytest

from harness import check
from test_autograd import check_message

ALPHA = np.array([0.3, 0.5, 1.0, 2.5, 7.0, 0.05, 1e-3, 30.0, -1.0, np.nan, np.inf, -0.5, 0.0], np.float32)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_standard_gamma_stream(dtype):
    def fn(T):
        T.manual_seed(0)
        a = T.tensor(ALPHA.astype(dtype))
        first, second = T._standard_gamma(a), T._standard_gamma(a.reshape(1, 13))
        g = T.Generator().manual_seed(5)
        return first, second, T.rand(3), T._standard_gamma(T.full((4,), 2.0, dtype=a.dtype), generator=g)
    check(fn, rtol=0, atol=0)


def test_sample_dirichlet_stream():
    def fn(T):
        T.manual_seed(1)
        a = T.tensor([[1.0, 2.0, 3.0], [0.1, 0.1, 0.1], [0.0, 0.0, 0.0]])
        return T._sample_dirichlet(a), T._sample_dirichlet(a.double()), T.randn(3)
    check(fn, rtol=0, atol=0)


def test_gamma_distribution():
    def fn(T):
        conc = T.tensor([0.5, 2.0, 5.0])
        rate = T.tensor([1.0, 0.5, 3.0], requires_grad=True)
        d = T.distributions.Gamma(conc, rate)
        T.manual_seed(2)
        s = d.rsample((4,))
        s.sum().backward()
        v = T.tensor([0.3, 1.0, 2.5])
        lp = d.log_prob(v)
        return [s, rate.grad, lp, d.entropy(), d.mean, d.mode, d.variance, d.cdf(v), tuple(d.expand((2, 3)).batch_shape),
                T.distributions.Gamma(2.0, 1.0).sample((2,)), repr(d.support), d.has_rsample]
    check(fn, rtol=1e-5, atol=1e-6)


def test_dirichlet_distribution():
    def fn(T):
        conc = T.tensor([[0.5, 2.0, 5.0], [0.3, 0.4, 0.2]], dtype=T.float64)
        d = T.distributions.Dirichlet(conc)
        T.manual_seed(3)
        s = d.sample((2,))
        lp = d.log_prob(s)
        return [s, lp, d.entropy(), d.mean, d.mode, d.variance, tuple(d.batch_shape), tuple(d.event_shape),
                tuple(d.expand((4, 2)).batch_shape)]
    check(fn, rtol=1e-9, atol=1e-12)


def test_beta_distribution():
    def fn(T):
        a = T.tensor([0.5, 2.0, 4.0], requires_grad=True)
        b = T.tensor([0.5, 3.0, 1.5])
        d = T.distributions.Beta(a, b)
        T.manual_seed(4)
        s = d.sample((3,))
        lp = d.log_prob(T.tensor([0.2, 0.5, 0.9]))
        (lp.sum() + d.entropy().sum()).backward()
        mix = T.distributions.Beta(0.4, 0.4)   # torchvision's MixUp / CutMix
        T.manual_seed(5)
        lam = mix.sample(), mix.sample((2,))
        return [s, lp, a.grad, d.entropy(), d.mean, d.mode, d.variance, d.concentration1, d.concentration0, lam,
                tuple(d.expand((2, 3)).batch_shape), repr(d.support)]
    check(fn, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", ["gamma", "dirichlet", "half", "long"])
def test_errors(case):
    calls = {
        "half": lambda T: T._standard_gamma(T.ones(2, dtype=T.float16)),
        "long": lambda T: T._sample_dirichlet(T.ones(2, dtype=T.int64)),
    }
    if case in calls:
        check_message(calls[case])
        return
    # the reparameterized gradient with respect to the concentration: torch has it, mstorch refuses by name
    import mstorch
    conc = mstorch.tensor([1.0, 2.0], requires_grad=True)
    dist = mstorch.distributions.Gamma(conc, 1.0) if case == "gamma" else mstorch.distributions.Dirichlet(conc)
    with pytest.raises(NotImplementedError, match="reparameterized gradient"):
        dist.rsample()
    with mstorch.no_grad():
        assert dist.rsample().shape == (2,)
    assert not dist.sample().requires_grad
