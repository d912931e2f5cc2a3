"""Samples for torch.native_norm (mstorch/ops/sparse.py): the norm of a sparse COO tensor's coalesced values;
dense tensors have no kernel in torch's CPU build. (torch does not differentiate it: values only.)"""
import numpy as np

from harness import rand
from .common import OpInfo, S, E, EType


def _coo(dtype="float32"):
    """An uncoalesced COO tensor: index (0, 1) twice."""
    return lambda T: T.sparse_coo_tensor(T.tensor([[0, 0, 1], [1, 1, 0]]), T.tensor(np.array([3., 4., -2.], dtype)),
                                         (2, 2))


OPS = [
    OpInfo("native_norm", method=False, grad=False, samples=[
        S(_coo()), S(_coo(), 1), S(_coo(), float("inf")), S(_coo("float64"), 3), S(_coo(), 2, [0, 1], False, None),
        S(_coo(), 2, [-1, 0], False, None),
        E(_coo(), 2, [0], False, None), E(_coo(), 2, [0, 1], True, None),
        # (torch's message lists its dispatch keys)
        EType(rand(3))]),
]
