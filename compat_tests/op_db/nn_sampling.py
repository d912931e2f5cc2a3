"""torch.nn.functional resampling: interpolate, grid_sample, affine_grid, unfold/fold, shuffles."""
import numpy as np

from harness import rand
from .common import OpInfo, S, E

_x3, _x4, _x5 = rand(2, 3, 5), rand(1, 2, 5, 4), rand(1, 2, 3, 4, 3)


def _cast(a, name):
    return lambda T: T.tensor(a).to(getattr(T, name))


INTERP = [
    S(_x4, size=(7, 9)), S(_x4, scale_factor=1.7), S(_x4, scale_factor=2), S(_x4, (3, 3)),
    S(_x4, scale_factor=(1.5, 0.6), recompute_scale_factor=True), S(_x3, 8), S(_x3, scale_factor=1.5),
    S(_x5, (4, 6, 5)), S(_x5, scale_factor=1.5), S(_x5, scale_factor=(0.7, 1.3, 2.0)),
    S(_x4, (7, 9), mode="nearest-exact"), S(_x4, scale_factor=(1.5, 2.3), mode="nearest-exact"),
    S(_x3, 8, mode="nearest-exact"), S(_x5, (4, 6, 5), mode="nearest-exact"),
    S(_x3, 10, mode="linear"), S(_x3, 10, mode="linear", align_corners=True), S(_x3, scale_factor=1.7, mode="linear"),
    S(_x3, 3, mode="linear"),
    S(_x4, (7, 9), mode="bilinear"), S(_x4, (7, 9), None, "bilinear", True), S(_x4, (3, 2), mode="bilinear"),
    S(_x4, scale_factor=1.7, mode="bilinear"), S(_x4, scale_factor=(1.7, 0.6), mode="bilinear", align_corners=True),
    S(_x4, scale_factor=1.7, mode="bilinear", recompute_scale_factor=True),
    S(_x4, (7, 9), mode="bicubic"), S(_x4, (7, 9), mode="bicubic", align_corners=True),
    S(_x4, (3, 2), mode="bicubic"), S(_x4, scale_factor=1.7, mode="bicubic"),
    S(_x5, (4, 6, 5), mode="trilinear"), S(_x5, (4, 6, 5), mode="trilinear", align_corners=True),
    S(_x5, scale_factor=1.5, mode="trilinear"), S(_x5, (2, 3, 2), mode="trilinear"),
    S(_x4, (3, 2), mode="area"), S(_x4, (7, 9), mode="area"), S(_x4, scale_factor=0.5, mode="area"),
    S(_x3, 4, mode="area"), S(_x5, (2, 3, 2), mode="area"),
    S(rand(1, 2, 9, 8), (3, 5), mode="bilinear", antialias=True),
    S(rand(1, 2, 9, 8), (4, 3), mode="bicubic", antialias=True),
    S(rand(1, 2, 9, 8), (3, 5), mode="bilinear", align_corners=True, antialias=True),
    S(rand(1, 2, 5, 4), (7, 9), mode="bilinear", antialias=True),
    S(rand(1, 2, 9, 8), scale_factor=0.45, mode="bicubic", antialias=True),
    S(rand(1, 2, 9, 8), (4, 3), mode="lanczos", antialias=True),
    S(_x4.astype(np.float64), (7, 3), mode="bilinear"), S(_x4.astype(np.float64), (7, 3), mode="bicubic"),
    S(_x5.astype(np.float64), scale_factor=2, mode="nearest"),
    E(_x4, (7, 9), mode="nearest", align_corners=True), E(_x4, (7, 9), 2.0), E(_x4), E(_x4, (7, 9, 3)),
    E(_x4, (7.0, 9)), E(_x3, 7, mode="bilinear"), E(_x4, 7, mode="linear"), E(_x4, 7, mode="trilinear"),
    E(_x5, 7, mode="bicubic"), E(rand(2, 3), 4), E(_x3, 4, mode="bilinear", antialias=True),
    E(_x4, 4, mode="lanczos"), E(_x4, scale_factor=0.1), E(_x4, (7, 9), mode="foo"),
    E(_x4, (7, 9), recompute_scale_factor=True), E(rand(1, 1, 4, 4, dtype="int64"), 3),
    E(rand(1, 1, 4, 4, dtype="int64"), 3, mode="bilinear"),
]

INTERP_LOW = [
    S(_cast(_x4, "float16"), (7, 9)), S(_cast(_x4, "float16"), (7, 9), mode="bilinear"),
    S(_cast(_x4, "bfloat16"), scale_factor=1.7, mode="bicubic"),
    S(lambda T: T.tensor(rand(1, 2, 4, 4, dtype="uint8", low=0, high=200)), (7, 9)),
]


def _grid(*shape, scale=1.25, seed=0):
    return rand(*shape, seed=seed) * (scale / 2.0)


GRID = []
for _mode in ("bilinear", "nearest"):
    for _pad in ("zeros", "border", "reflection"):
        for _ac in (False, True):
            GRID.append(S(rand(1, 2, 4, 3), _grid(1, 3, 2, 2), _mode, _pad, _ac))
GRID += [S(rand(1, 2, 4, 3), _grid(1, 3, 2, 2), "bicubic", "zeros", False),     # 16 taps each: a few combos
         S(rand(1, 2, 4, 3), _grid(1, 3, 2, 2), "bicubic", "border", True),
         S(rand(1, 2, 4, 3), _grid(1, 3, 2, 2), "bicubic", "reflection", False)]
for _mode in ("bilinear", "nearest"):
    for _pad in ("zeros", "border", "reflection"):
        GRID.append(S(rand(1, 2, 3, 4, 3), _grid(1, 2, 2, 3, 3), _mode, _pad, _pad == "border"))
GRID += [
    S(rand(2, 3, 5, 4), _grid(2, 3, 4, 2, scale=3.0), "bilinear", "reflection", False),
    S(rand(2, 3, 5, 4), _grid(2, 3, 4, 2, scale=3.0), "bicubic", "reflection", True),
    S(rand(1, 2, 4, 3).astype(np.float64), _grid(1, 3, 2, 2).astype(np.float64), "bicubic", "zeros", False),
    S(rand(1, 2, 4, 3), _grid(1, 3, 2, 2)),                                     # align_corners=None warns
    E(rand(1, 2, 4, 3), _grid(1, 3, 2, 2), "foo"), E(rand(1, 2, 4, 3), _grid(1, 3, 2, 2), "bilinear", "foo"),
    E(rand(2, 4, 3), _grid(2, 3, 2, 2), align_corners=False), E(rand(1, 2, 4, 3), _grid(1, 3, 2, 3)),
    E(rand(2, 2, 4, 3), _grid(1, 3, 2, 2)), E(rand(1, 2, 4, 3, 3), _grid(1, 3, 2, 2, 3), "bicubic"),
    E(rand(1, 2, 4, 3), _grid(1, 3, 2, 2).astype(np.float64)),
    E(rand(1, 2, 4, 3, dtype="int64"), rand(1, 3, 2, 2, dtype="int64")),
]

AFFINE = [
    S(rand(2, 2, 3), (2, 3, 5, 4), False), S(rand(2, 2, 3), (2, 3, 5, 4), True), S(rand(1, 2, 3), [1, 1, 1, 3], True),
    S(rand(2, 3, 4), (2, 3, 2, 5, 4), False), S(rand(1, 3, 4), (1, 1, 3, 2, 2), align_corners=True),
    S(rand(2, 2, 3).astype(np.float64), (2, 1, 4, 3), align_corners=False),
    E(rand(1, 2, 3, dtype="int64"), (1, 1, 2, 2), False), E(rand(1, 2, 4), (1, 1, 2, 2), False),
    E(rand(1, 2, 3), (1, 1, 2), False), E(rand(1, 2, 3), (1, 1, 0, 2), False), E(rand(2, 2, 3), (1, 1, 3, 2), False),
]

UNFOLD = [
    S(rand(2, 3, 5, 4), (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), S(rand(3, 4, 4), 2),
    S(rand(1, 2, 5, 5), 3, 1, 0, 2), S(rand(1, 2, 4, 4).astype(np.float64), 2, padding=(0, 1)),
    E(rand(4), 2), E(rand(1, 1, 4, 4, 4), 2), E(rand(1, 1, 4, 4, dtype="int64"), 2), E(rand(1, 1, 2, 2), 3),
    E(rand(1, 1, 2, 2), 0),
]
FOLD = [
    S(rand(2, 18, 12), (5, 4), (2, 3), dilation=1, padding=1, stride=(2, 1)), S(rand(4, 4), (3, 3), 2),
    S(rand(1, 8, 4).astype(np.float64), [3, 3], 2, padding=(0, 0)), S(rand(1, 4, 9), 5, 2, 2, 1, 2),
    E(rand(1, 5, 4), (3, 3), 2), E(rand(1, 4, 5), (3, 3), 2), E(rand(1, 1, 4, 4), (3, 3), 2), E(rand(4), (3, 3), 2),
]

SHUFFLE = [S(rand(2, 8, 3, 2), 2), S(rand(9, 2, 2), 3), S(rand(3, 2, 8, 3, 2), 2),
           S(rand(1, 4, 2, 2, dtype="int64"), 2),
           E(rand(1, 3, 4, 4), 2), E(rand(4, 4), 2), E(rand(1, 4, 4, 4), 0)]
UNSHUFFLE = [S(rand(2, 2, 4, 6), 2), S(rand(1, 6, 6), 3), S(rand(2, 1, 2, 4, 4), 2),
             E(rand(1, 3, 5, 4), 2), E(rand(1, 3, 4, 5), 2), E(rand(4, 4), 2), E(rand(1, 4, 4, 4), 0)]
CSHUFFLE = [S(rand(2, 6, 3, 2), 2), S(rand(2, 6, 3), 3), S(rand(1, 4, 2, 2, 2), 4),
            E(rand(1, 3, 5, 4), 2), E(rand(4, 4), 2), E(rand(1, 4, 4), 0)]

_F = "nn.functional"

OPS = [
    OpInfo("interpolate", INTERP, method=False),
    OpInfo("interpolate", INTERP_LOW, method=False, grad=False, rtol=1e-2, atol=2e-2),
    OpInfo("upsample", [S(_x4, (7, 9)), S(_x4, None, 2.0, "bilinear", True)], method=False),
    OpInfo("upsample_nearest", [S(_x4, (7, 9)), S(_x3, scale_factor=2)], method=False),
    OpInfo("upsample_bilinear", [S(_x4, (7, 9)), S(_x4, scale_factor=1.5)], method=False),
    OpInfo("grid_sample", GRID, method=False, atol=1e-5),
    OpInfo("affine_grid", AFFINE, method=False),
    OpInfo("nn.functional.unfold", UNFOLD, method=False, call=lambda T, *a, **k: T.nn.functional.unfold(*a, **k)),
    OpInfo("fold", FOLD, method=False),
    OpInfo("pixel_shuffle", SHUFFLE, method=False),
    OpInfo("pixel_unshuffle", UNSHUFFLE, method=False),
    OpInfo("channel_shuffle", CSHUFFLE, method=False),
    OpInfo("native_channel_shuffle", CSHUFFLE[:2] + CSHUFFLE[-2:], method=False, grad=False),  # torch: no derivative
]
