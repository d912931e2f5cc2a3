"""torch.nn.functional.pad: every mode, 1-3 padded dims, negative pads, dtypes."""
import numpy as np

from harness import rand
from .common import OpInfo, S, E

_x3, _x4, _x5 = rand(2, 3, 5), rand(2, 3, 5, 4), rand(1, 2, 3, 4, 5)


def _modes():
    out = []
    for mode in ("reflect", "replicate", "circular"):
        out += [
            S(_x3, (2, 1), mode),
            S(rand(3, 5), [1, 3], mode=mode),                       # unbatched 1-d
            S(_x4, (1, 2, 2, 1), mode),
            S(rand(3, 5, 4), (1, 1, 2, 0), mode),                   # unbatched 2-d
            S(_x4, (-1, 2, 1, -1), mode),                           # negative pads
            S(_x5, (1, 2, 0, 1, 2, 1), mode),
            S(rand(2, 3, 4, 5), (1, 0, 2, 1, 0, 1), mode),          # unbatched 3-d
            S(rand(1, 2, 6), (-2, 4), mode),
            E(_x4, (1, 1), mode),                                   # pad size vs rank
            E(rand(4), (1, 1), mode),
            E(_x5, (1, 1, 1, 1, 1, 1, 1, 1), mode),
            E(_x3, (1, 1), mode, 1.5),                              # value only for constant
        ]
    out += [S(_x3, (1, 1), "reflect", 0.0), E(_x3, (5, 1), "reflect"), E(_x3, (6, 1), "circular"),
            S(rand(1, 2, 6).astype(np.float64), (2, 3), "reflect"),
            S(rand(1, 2, 4, dtype="int64"), (2, 3), "reflect"), S(rand(1, 2, 4, dtype="bool"), (1, 1), "circular"),
            E(rand(1, 2, 4, dtype="bool"), (1, 1), "replicate")]
    return out


PAD = [
    S(_x4, (1, 2)),
    S(_x4, (1, 2, 0, 3), value=2.5),
    S(_x4, [1, 1, 0, 0, 1, 0, 1, 1], "constant", -1.0),             # all four dims
    S(_x4, (-1, 2, 1, -3)),
    S(rand(5), (0, 0)),
    S(rand(2, 3, dtype="int64"), (1, 2), value=2.7),                 # value cast to the int dtype
    S(rand(2, 3, dtype="bool"), (1, 0), value=1),
    S(lambda T: T.tensor(rand(2, 3)).to(T.bfloat16), (1, 2), value=0.5),
    S(lambda T: T.tensor(rand(2, 3)).to(T.bfloat16), (1, 2), "replicate"),
    E(_x4, (1, 1, 1)),
    E(rand(2, 3), (1, 1, 1, 1, 1, 1)),
    E(_x4, (1.5, 1)),
    E(_x4, (1, 1), "foo"),
    E(_x3, (-3, -3)),
] + _modes()

OPS = [OpInfo("pad", PAD, method=False)]

# layer-level input checks (ValueError raised in the layers' forward)
OPS += [OpInfo("pad", [E(rand(5), 1), E(rand(1, 2, 3, 4), 1)], method=False, grad=False,
               call=lambda T, x, p: T.nn.CircularPad1d(p)(x)),
        OpInfo("pad", [E(rand(2, 3), 1), S(rand(2, 3, 4), 1)], method=False,
               call=lambda T, x, p: T.nn.CircularPad2d(p)(x)),
        OpInfo("pad", [E(rand(2, 3, 3), 1)], method=False, grad=False, call=lambda T, x, p: T.nn.CircularPad3d(p)(x))]
