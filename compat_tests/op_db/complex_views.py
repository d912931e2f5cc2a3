"""Samples for view_as_real / view_as_complex (mstorch/ops/complex_views.py); writes through the views
and gradients through both are in test_complex_views.py."""
import numpy as np

from harness import rand
from .common import OpInfo, S, E

C = (rand(3, 4) + 1j * rand(3, 4, seed=1)).astype(np.complex64)
PAIRS = rand(3, 4, 2)


def _t(a, dtype=None):
    return lambda T: T.tensor(a, dtype=None if dtype is None else getattr(T, dtype))


OPS = [
    OpInfo("view_as_real", method=False, samples=[
        S(_t(C)), S(_t(C, "complex128")), S(_t(np.complex64(1 + 2j))), S(_t(np.zeros((0, 2), np.complex64))),
        E(_t(PAIRS)), E(_t([1, 2]))]),
    # the gradient form samples float inputs into a complex result: compared in test_complex_views.py
    OpInfo("view_as_complex", method=False, grad=False, samples=[
        S(PAIRS), S(_t(PAIRS, "float64")), S(_t([1., 2.])), S(lambda T: T.zeros(0, 2)),
        E(rand(3)), E(_t(PAIRS, "bfloat16")), E(_t(PAIRS, "int64")), E(_t(np.float32(1.))),
        E(lambda T: T.zeros(2, 3).t()), E(lambda T: T.zeros(3, 4)[:, 1:3]),
        E(lambda T: T.zeros(7)[1:].reshape(3, 2)), E(lambda T: T.zeros(3, 3)[:, :2])]),
]

R = rand(2, 3)
OPS += [
    OpInfo("complex", method=False, samples=[
        S(R, rand(2, 3, seed=1)), S(rand(3), rand(2, 1)), S(_t(R, "float64"), _t(R, "float64")),
        E(R, _t(R, "float64")), E(_t([1, 2]), _t([3, 4])), E(R, 3.), E(R, rand(4))]),
    OpInfo("polar", method=False, samples=[
        S(np.abs(R), rand(2, 3, seed=1)), S(_t(np.abs(R), "float64"), _t(R, "float64")),
        E(_t([1, 2]), R), E(R, 2.)]),
]
