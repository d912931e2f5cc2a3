from harness import rand
from .common import ModuleInfo, M

_x4 = rand(1, 2, 5, 4)

MODULES = [
    ModuleInfo("Upsample", [M(size=(7, 9), inputs=(_x4,)), M(scale_factor=2, mode="bilinear", inputs=(_x4,)),
                            M(None, (1.5, 2), "bicubic", True, inputs=(_x4,)),
                            M(scale_factor=1.7, mode="bilinear", recompute_scale_factor=True, inputs=(_x4,)),
                            M(8, mode="linear", inputs=(rand(2, 3, 5),)),
                            M(scale_factor=1.5, mode="trilinear", inputs=(rand(1, 2, 3, 4, 3),))]),
    ModuleInfo("UpsamplingNearest2d", [M(size=(7, 9), inputs=(_x4,)), M(scale_factor=3, inputs=(_x4,))]),
    ModuleInfo("UpsamplingBilinear2d", [M(size=(7, 9), inputs=(_x4,)), M(scale_factor=1.5, inputs=(_x4,))]),
]
