"""torch.nn.functional pooling (tiny inputs; each argument form and dtype path once)."""
import numpy as np

from harness import rand
from .common import OpInfo, S, E

_x1, _x2, _x3 = rand(2, 3, 9), rand(2, 3, 7, 6), rand(1, 2, 5, 6, 5)


def _bf16(a):
    return lambda T: T.tensor(a).to(T.bfloat16)


MAX1 = [S(_x1, 3), S(_x1, 3, 2, 1, ceil_mode=True), S(_x1, (2,), [3], 0, 2), S(rand(3, 8), 2, ceil_mode=True),
        E(rand(1, 2, 6, dtype="int64"), 2),
        E(_x1, (2, 2)), E(rand(5), 2), E(_x1, 3, padding=2), E(_x1, 3, 0), E(rand(1, 2, 2), 3)]
MAX2 = [S(_x2, 3, 2, 1), S(_x2, (3, 2), (2, 1), (1, 0), (2, 1), True),
        S(rand(1, 2, 5, 5), 2, 2, 1, ceil_mode=True),                  # last window would start in padding
        S(rand(1, 1, 4, 4).astype(np.float64), 2), S(rand(1, 2, 4, 4, dtype="int32"), 2, 1),
        E(_x2, (2, 2, 2)), E(_x2, 2, (2, 2, 2)), E(_x2, 2, 2, (0, 0, 0)), E(_x2, 2, 2, 0, 0), E(_x2, -1, 1),
        E(rand(2, 2), 1), E(rand(1, 2, 2, 2), 3), E(rand(1, 2, 4, 4, dtype="bool"), 2)]
MAX3 = [S(_x3, 3, 2, 1, ceil_mode=True), S(_x3, 2, 1, 0, 2),
        E(rand(2, 5), 2)]
AVG1 = [S(_x1, 3), S(_x1, 3, 2, 1, True, False), S(rand(3, 8), [2], 1, 1), S(rand(1, 2, 8, dtype="int64"), 3),
        E(_x1, (2, 2)), E(rand(5), 2), E(_x1, 2, padding=2)]
AVG2 = [S(_x2, 3, 2, 1), S(_x2, 3, 2, 1, ceil_mode=True, count_include_pad=False),
        S(_x2, 3, 2, 1, True, True), S(_x2, (3, 2), (2, 1), (1, 1), divisor_override=5),
        S(rand(3, 5, 4), 2), S(rand(1, 1, 4, 4, dtype="int64", low=-20, high=20), 3, 1, 1),
        S(rand(1, 2, 4, 4).astype(np.float64), 2, ceil_mode=True),
        E(_x2, 2, divisor_override=0), E(rand(1, 2, 1, 1), 2), E(rand(1, 2, 4, 4, dtype="int32"), 2)]
AVG3 = [S(_x3, 3, 2, 1, ceil_mode=True, count_include_pad=False), S(_x3, 3, 2, 1, True),
        S(_x3, 2, 1, 1, divisor_override=3), S(rand(2, 4, 4, 3), (2, 2, 1))]
AAVG1 = [S(_x1, 4), S(rand(3, 7), (3,)), S(_x1, 9), E(_x1, (2, 2)), E(rand(5), 2)]
AAVG2 = [S(_x2, (4, 3)), S(_x2, (None, 3)), S(rand(3, 5, 5), 2), S(_x2, 1),
         S(rand(1, 2, 5, 4).astype(np.float64), (2, 3)),
         E(rand(5), 2), E(rand(1, 5, 5), (2, 2, 2)), E(rand(1, 5, 5), -1),
         E(rand(1, 2, 4, 4, dtype="int64"), 2)]
AAVG3 = [S(_x3, (2, 4, 3)), S(_x3, (None, 2, None)), S(rand(2, 4, 4, 3), 2)]
AMAX1 = [S(_x1, 4), S(_x1, 4, True), S(rand(3, 7), 3, return_indices=True), E(_x1, (2, 2))]
AMAX2 = [S(_x2, (4, 3)), S(_x2, (4, None), True), S(rand(3, 5, 5), 2, return_indices=True), E(rand(5), 2)]
AMAX3 = [S(_x3, (2, 4, 3)), S(_x3, (None, 2, 3), True), S(rand(2, 4, 4, 3), 2, return_indices=True)]
LP1 = [S(_x1, 2, 3, 2), S(rand(2, 3, 9, low=0.1, high=2.0), 3.0, 3, 2, True), S(_x1, float("inf"), 2),
       S(_x1, 1, 3)]
LP2 = [S(_x2, 2, 3, 2), S(_x2, 1.2, (3, 2), (2, 1)), S(_x2, 2.0, (3, 2), ceil_mode=True), S(_x2, float("inf"), 2)]
LP3 = [S(_x3, 2, 2), S(_x3, 2, (2, 3, 2), 1, True)]


def _unpool(n, shape, k, s=None, p=0, output_size=None):
    def call(T, x, *args, **kw):
        out, idx = getattr(T.nn.functional, f"max_pool{n}d")(x, k, s, p, return_indices=True)
        return getattr(T.nn.functional, f"max_unpool{n}d")(out, idx, k, s, p, output_size)
    return call


def _unpool_info(n, shape, k, s=None, p=0, output_size=None):
    return OpInfo(f"max_unpool{n}d", [S(rand(*shape))], method=False,
                  call=_unpool(n, shape, k, s, p, output_size))


UNPOOL_ERR = [
    E(rand(1, 1, 2, 2), lambda T: T.tensor([[[[0, 1], [2, 20]]]]), 2),
    E(rand(1, 1, 2, 2), lambda T: T.tensor([[[[0, 1], [2, 3]]]]), 2, output_size=(7, 7)),
    E(rand(1, 1, 2, 2), lambda T: T.tensor([[[[0, 1]]]]), 2),
    E(rand(1, 1, 2, 2), lambda T: T.tensor([[[[0, 1], [2, 3]]]], dtype=T.int32), 2),
    S(rand(1, 1, 2, 2), lambda T: T.tensor([[[[0, 3], [9, 14]]]]), 2),
    S(rand(1, 2, 2), lambda T: T.tensor([[[0, 3], [9, 15]]]), 2, output_size=(1, 2, 4, 4)),
]

OPS = [
    OpInfo("max_pool1d", MAX1, method=False),
    OpInfo("max_pool2d", MAX2, method=False),
    OpInfo("max_pool3d", MAX3, method=False),
    OpInfo("max_pool1d_with_indices", [S(_x1, 3, 2, 1, ceil_mode=True)], method=False),
    # return_indices exists only on the torch.nn.functional forms
    OpInfo("max_pool1d", [S(_x1, 2, 2, 1, 1, True, True), S(rand(1, 2, 6, dtype="int64"), 2, return_indices=True)],
           method=False, call=lambda T, *a, **k: T.nn.functional.max_pool1d(*a, **k)),
    OpInfo("max_pool2d", [S(rand(3, 5, 4), 2, return_indices=True), S(_x2, 3, 2, 1, 2, True, True)],
           method=False, call=lambda T, *a, **k: T.nn.functional.max_pool2d(*a, **k)),
    OpInfo("max_pool3d", [S(rand(2, 4, 5, 4), (2, 3, 2), return_indices=True)],
           method=False, call=lambda T, *a, **k: T.nn.functional.max_pool3d(*a, **k)),
    OpInfo("max_pool2d_with_indices", [S(_x2, 3, 2, 1)], method=False),
    OpInfo("max_pool3d_with_indices", [S(_x3, 2)], method=False),
    OpInfo("avg_pool1d", AVG1, method=False),
    OpInfo("avg_pool2d", AVG2, method=False),
    OpInfo("avg_pool3d", AVG3, method=False),
    OpInfo("adaptive_avg_pool1d", AAVG1, method=False),
    OpInfo("adaptive_avg_pool2d", AAVG2, method=False),
    OpInfo("adaptive_avg_pool3d", AAVG3, method=False),
    OpInfo("adaptive_max_pool1d", AMAX1, method=False),
    OpInfo("adaptive_max_pool1d_with_indices", [S(_x1, 4)], method=False,
           call=lambda T, *a, **k: T.nn.functional.adaptive_max_pool1d_with_indices(*a, **k)),
    # torch.adaptive_max_pool1d (top level) returns (values, indices)
    OpInfo("adaptive_max_pool1d_with_indices", [S(_x1, 4), S(rand(3, 7), 2)], method=False,
           call=lambda T, *a, **k: T.adaptive_max_pool1d(*a, **k)),
    OpInfo("adaptive_max_pool2d", AMAX2, method=False),
    OpInfo("adaptive_max_pool2d_with_indices", [S(_x2, 3)], method=False),
    OpInfo("adaptive_max_pool3d", AMAX3, method=False),
    OpInfo("adaptive_max_pool3d_with_indices", [S(_x3, 2)], method=False),
    OpInfo("lp_pool1d", LP1, method=False),
    OpInfo("lp_pool2d", LP2, method=False),
    OpInfo("lp_pool3d", LP3, method=False),
    OpInfo("max_unpool2d", UNPOOL_ERR, method=False, grad=False),
    _unpool_info(1, (2, 3, 8), 2),
    _unpool_info(1, (3, 9), 3, 2, 1, output_size=[5 * 2 - 1]),
    _unpool_info(2, (2, 3, 6, 4), 2),
    _unpool_info(2, (1, 2, 5, 5), 3, 2, 1),
    _unpool_info(3, (1, 2, 4, 4, 2), 2),
    # bfloat16 through float32; float16 kernels
    OpInfo("max_pool2d", [S(_bf16(_x2), 2), S(_x2.astype(np.float16), 3, 2, 1)], method=False, grad=False),
    OpInfo("avg_pool2d", [S(_bf16(_x2), 2), S(_x2.astype(np.float16), 3, 2, 1)], method=False, grad=False,
           rtol=1e-2, atol=1e-2),
    OpInfo("adaptive_avg_pool2d", [S(_bf16(_x2), 3)], method=False, grad=False, rtol=1e-2, atol=1e-2),
]
OPS += [OpInfo("avg_pool2d", [S(rand(1, 2, 5, 6).astype(np.float64), 3, 2, 1, True, False),
                              S(rand(2, 5, 5).astype(np.float64), (3, 2), 2, (1, 0), True, True, 2)], method=False),
        OpInfo("avg_pool3d", [S(rand(1, 1, 3, 4, 5).astype(np.float64), 2, 2, 1, True, False)], method=False),
        OpInfo("lp_pool1d", [S(rand(1, 2, 7).astype(np.float64), 2, 3, 2, True)], method=False)]
