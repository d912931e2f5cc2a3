"""Samples for fractional max pooling (mstorch/ops/nn_fractional_pool.py) with the draws given; the draws made
under torch.manual_seed are compared in test_api_breadth.py."""
import numpy as np

from harness import rand
from .common import OpInfo, S, E

X2, X3 = rand(2, 3, 9, 8), rand(1, 2, 7, 8, 6)


def _u(*shape, seed=0, dtype="float32"):
    return lambda T: T.tensor(np.random.RandomState(seed).uniform(size=shape).astype(dtype))


OPS = [
    OpInfo("fractional_max_pool2d", samples=[
        S(X2, 3, (4, 5), _random_samples=_u(2, 3, 2)), S(X2, (2, 3), None, (0.5, 0.6), _random_samples=_u(2, 3, 2, seed=1)),
        S(X2[0], 2, 3, _random_samples=_u(1, 3, 2)), S(X2, 2, (1, 7), None, True, _random_samples=_u(2, 3, 2, seed=2)),
        S(X2.astype(np.float64), 2, 4, _random_samples=_u(2, 3, 2, dtype="float64")),
        S(np.tile(np.array([[1., 2.], [2., 1.]], np.float32), (1, 1, 3, 3)), 2, 3, _random_samples=_u(1, 1, 2)),
        E(X2, 4, 7, _random_samples=_u(2, 3, 2)), E(X2, 2, 3, _random_samples=_u(2, 3, 3)),
        E(X2, 2, 3, _random_samples=_u(2, 3, 2, dtype="float64")), E(X2, 2), E(rand(6, 6), 2, 3)]),
    OpInfo("fractional_max_pool2d_with_indices", samples=[
        S(X2, 3, (4, 5), _random_samples=_u(2, 3, 2)), S(X2[1], 2, (8, 2), _random_samples=_u(1, 3, 2))]),
    OpInfo("fractional_max_pool3d", samples=[
        S(X3, 2, (3, 4, 2), _random_samples=_u(1, 2, 3)), S(X3, (2, 3, 2), None, 0.5, True, _random_samples=_u(1, 2, 3, seed=1)),
        S(X3[0], 3, 2, _random_samples=_u(1, 2, 3, seed=2)),
        E(X3, 4, 5, _random_samples=_u(1, 2, 3)), E(X3, 2, 2, _random_samples=_u(1, 2, 2))]),
    OpInfo("fractional_max_pool3d_with_indices", samples=[S(X3, 2, (5, 6, 4), _random_samples=_u(1, 2, 3)),
                                                          E(X3, 2, (6, 7, 5), _random_samples=_u(1, 2, 3))]),
]
