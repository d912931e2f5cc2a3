"""torch.nn.functional convolutions (tiny shapes: every dtype path and argument form once)."""
import numpy as np

from harness import rand
from .common import OpInfo, S, E, EType


def _i(*shape):
    return rand(*shape, dtype="int64", low=-2, high=2)


def _h(*shape):
    return rand(*shape).astype(np.float16)


def _d(*shape):
    return rand(*shape).astype(np.float64)


def _bf16(T, a):
    return T.tensor(a).to(T.bfloat16)


CONV1 = [
    S(rand(2, 4, 7), rand(6, 2, 3), rand(6), stride=2, padding=1, groups=2),
    S(rand(4, 7), rand(3, 4, 2), None, 1, "same", 2),                  # unbatched, even kernel 'same'
    S(rand(1, 2, 6), rand(3, 2, 3), padding="valid", dilation=2),
    S(rand(1, 2, 6), rand(3, 2, 3), rand(3), (2,), [1], (1,)),
    S(_d(1, 2, 6), _d(3, 2, 3), _d(3), padding=1),                     # float64: im2col path
    S(_i(1, 2, 6), _i(3, 2, 3), stride=2),                             # integers
    E(rand(2, 4, 7), rand(6, 2, 3)),                                   # channel mismatch
    E(rand(2, 4, 7), rand(6, 4, 3), stride=(1, 2)),
    E(rand(4), rand(6, 4, 3)),
    E(rand(1, 2, 2), rand(3, 2, 3)),                                   # kernel larger than input
    E(rand(1, 2, 6), rand(3, 2, 3), stride=2, padding="same"),
    E(rand(1, 2, 6), rand(3, 2, 3), padding="full"),
    E(rand(1, 2, 6), _d(3, 2, 3)),                                     # dtype mismatch
    E(rand(1, 2, 6), rand(3, 2, 3), rand(2)),                          # bias size
    E(rand(1, 2, 6), rand(3, 2, 3), padding=-1),
    E(rand(1, 4, 6), rand(3, 2, 3), groups=2),                          # weight not divisible by groups
]

CONV2 = [
    S(rand(2, 4, 7, 6), rand(6, 2, 3, 3), rand(6), stride=2, padding=1, groups=2),
    S(rand(1, 3, 7, 6), rand(2, 3, 3, 2), None, (1, 2), (2, 1), (2, 1)),
    S(rand(3, 6, 5), rand(2, 3, 2, 3), padding="same", dilation=(1, 2)),   # unbatched + asymmetric 'same'
    S(rand(1, 2, 5, 5), rand(4, 1, 3, 3), rand(4), padding="same", groups=2),
    S(rand(1, 2, 5, 4), rand(3, 2, 1, 1)),
    S(_d(1, 2, 5, 6), _d(4, 1, 2, 3), _d(4), stride=(2, 1), padding=(1, 0), dilation=(1, 2), groups=2),
    S(_i(1, 2, 4, 4), _i(2, 2, 2, 2), _i(2)),
    E(rand(1, 3, 4, 4), rand(1, 2, 3, 3)),
    E(rand(3, 4), rand(1, 2, 3, 3)),
    E(rand(1, 2, 4, 4), rand(1, 2, 3, 3), stride=0),
    E(rand(1, 2, 4, 4), rand(1, 2, 3, 3), dilation=0),
    E(rand(1, 2, 4, 4), rand(1, 2, 3, 3), groups=0),
    E(rand(1, 2, 4, 4), rand(1, 2, 3)),
]

CONV3 = [
    S(rand(2, 4, 4, 5, 4), rand(6, 2, 3, 2, 3), rand(6), stride=2, padding=1, groups=2),
    S(rand(2, 4, 5, 4), rand(3, 2, 2, 3, 2), None, 1, (1, 0, 1), (2, 1, 1)),    # unbatched
    S(rand(1, 2, 4, 4, 4), rand(2, 2, 2, 2, 2), padding="same"),
    S(_d(1, 2, 3, 4, 3), _d(2, 2, 2, 2, 2), _d(2), stride=(1, 2, 1), padding=1),
    E(rand(1, 3, 4, 4, 4), rand(1, 2, 3, 3, 3)),
    E(rand(2, 3, 4, 4, 4, 1), rand(1, 3, 3, 3, 3)),
]

CONVT1 = [
    S(rand(2, 4, 5), rand(4, 3, 3), rand(6), stride=2, padding=1, output_padding=1, groups=2),
    S(rand(4, 5), rand(4, 2, 2), None, 3, 0, 2, 1, 2),                 # unbatched, output_padding < dilation
    S(_d(1, 2, 4), _d(2, 3, 3), _d(3), stride=2, padding=1, output_padding=1),
    S(_i(1, 2, 4), _i(2, 1, 2), stride=2),
    E(rand(2, 4, 5), rand(3, 3, 3)),
    E(rand(2, 4, 5), rand(4, 3, 3), stride=2, output_padding=2),
    E(rand(1, 2, 1), rand(2, 2, 3), padding=2),                        # output size too small
]

CONVT2 = [
    S(rand(2, 4, 4, 3), rand(4, 3, 3, 3), rand(6), stride=2, padding=1, output_padding=1, groups=2),
    S(rand(1, 2, 3, 4), rand(2, 2, 3, 2), None, (2, 1), (1, 2), (1, 0), 1, (2, 3)),
    S(rand(2, 3, 3), rand(2, 3, 2, 2)),                                # unbatched
    S(_d(1, 2, 3, 3), _d(2, 2, 3, 3), _d(4), stride=2, padding=1, output_padding=1, groups=2),
    E(rand(1, 3, 4, 4), rand(2, 2, 3, 3)),
    E(rand(1, 2, 4, 4), rand(2, 2, 3, 3), rand(3)),
    E(rand(2, 4), rand(2, 2, 3, 3)),
    E(rand(1, 2, 4, 4), rand(2, 2, 3, 3), padding=-1),
]

CONVT3 = [
    S(rand(1, 4, 3, 3, 2), rand(4, 1, 3, 2, 3), rand(2), stride=2, padding=1, output_padding=1, groups=2),
    S(rand(1, 2, 3, 3, 2), rand(2, 2, 2, 2, 2), None, (1, 2, 2), (1, 0, 1), 0, 1, (2, 1, 1)),  # depth dilation
    S(rand(2, 2, 3, 2), rand(2, 1, 2, 2, 2), stride=3, output_padding=(2, 1, 0)),             # unbatched
    S(_d(1, 2, 2, 2, 2), _d(2, 1, 2, 2, 2), _d(1), stride=2, padding=1),
    E(rand(1, 2, 4, 4, 4), rand(2, 2, 3, 3, 3), stride=2, output_padding=2),
]

OPS = [
    OpInfo("conv1d", CONV1, method=False),
    OpInfo("conv2d", CONV2, method=False),
    OpInfo("conv3d", CONV3, method=False, rtol=1e-5, atol=1e-5),
    OpInfo("conv_transpose1d", CONVT1, method=False),
    OpInfo("conv_transpose2d", CONVT2, method=False),
    OpInfo("conv_transpose3d", CONVT3, method=False, atol=1e-5),
    OpInfo("conv_tbc", [S(rand(5, 2, 3), rand(2, 3, 4), rand(4)), S(rand(5, 2, 3), rand(3, 3, 4), rand(4), 1),
                        E(rand(5, 2, 3), rand(2, 4, 4), rand(4))], method=False),
    # float16 on CPU (DESIGN.md): forward only, half precision tolerance
    OpInfo("conv2d", [S(_h(1, 2, 5, 5), _h(3, 2, 3, 3), _h(3), padding=1)], method=False, grad=False,
           rtol=2e-3, atol=2e-2),
    OpInfo("conv_transpose2d", [S(_h(1, 2, 3, 3), _h(2, 3, 3, 3), stride=2)], method=False, grad=False,
           rtol=2e-3, atol=2e-2),
    # bfloat16 computes in float32 and rounds, as torch's CPU kernels do
    OpInfo("conv2d", [S(lambda T: _bf16(T, rand(1, 2, 5, 5)), lambda T: _bf16(T, rand(3, 2, 3, 3)))],
           method=False, grad=False, rtol=1e-2, atol=5e-2),
    OpInfo("conv_transpose1d", [S(lambda T: _bf16(T, rand(1, 2, 5)), lambda T: _bf16(T, rand(2, 3, 3)))],
           method=False, grad=False, rtol=1e-2, atol=5e-2),
]

# layer constructor errors whose message embeds a set (order varies with the hash seed): compared by type
OPS += [OpInfo("conv1d", [EType(rand(1), "zero")], method=False, grad=False,
               call=lambda T, x, mode: T.nn.Conv1d(2, 4, 3, padding_mode=mode))]
