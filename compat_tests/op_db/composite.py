"""Samples for block_diag, diagflat, adjoint, ravel, cov, corrcoef (mstorch/ops/composite.py)."""
import numpy as np

from harness import rand
from .common import OpInfo, S, E

A = rand(2, 2)
OBS = rand(3, 6)


def _t(a, dtype=None):
    return lambda T: T.tensor(a, dtype=None if dtype is None else getattr(T, dtype))


OPS = [
    OpInfo("block_diag", method=False, samples=[
        S(A, rand(3), lambda T: T.tensor(3.)), S(A), S(rand(0, 2), rand(1, 1)), S(_t([[1, 2]]), rand(1)),
        S(), E(rand(2, 2, 1))]),
    OpInfo("diagflat", samples=[S(A), S(A, 1), S(rand(3), -2), S(_t([[1, 2], [3, 4]]), 1)]),
    OpInfo("adjoint", samples=[S(rand(2, 3)), S(rand(2, 3, 4)), E(rand(3)),
                               S(_t((rand(2, 3) + 1j * rand(2, 3, seed=1)).astype(np.complex64)))]),
    OpInfo("ravel", samples=[S(A), S(rand(2, 3, 4)), S(lambda T: T.tensor(2.))]),
    OpInfo("cov", rtol=1e-4, atol=1e-5, samples=[
        S(OBS), S(rand(6)), S(OBS, correction=0), S(OBS, correction=2), S(_t([[0, 1, 2], [2, 1, 0]])),
        S(OBS, fweights=_t([1, 2, 3, 1, 1, 2])), S(OBS, aweights=rand(6, low=0.1, high=2.)),
        S(OBS, correction=0, fweights=_t([1, 2, 3, 1, 1, 2]), aweights=rand(6, low=0.1, high=2.)),
        E(rand(2, 2, 2)), E(OBS, fweights=_t([1., 2.])), E(OBS, fweights=_t([1, 2])),
        E(OBS, aweights=_t([1, 2, 3, 1, 1, 2])), E(OBS, fweights=_t([1, -2, 3, 1, 1, 2]))]),
    OpInfo("corrcoef", rtol=1e-4, atol=1e-5, samples=[S(OBS), S(rand(6)), S(rand(2, 4)), E(rand(2, 2, 2))]),
]
