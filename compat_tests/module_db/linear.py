from harness import rand
from .common import ModuleInfo, M, BadArgs

MODULES = [
    ModuleInfo("Linear", [M(4, 3, inputs=(rand(2, 4),)), M(4, 3, bias=False, inputs=(rand(5, 2, 4),)),
                          M(3, 1, inputs=(rand(3),)), BadArgs(4, 3, foo=1)]),
    ModuleInfo("Bilinear", [M(3, 4, 2, inputs=(rand(5, 3), rand(5, 4))), M(2, 3, 2, bias=False,
                                                                          inputs=(rand(2, 4, 2), rand(2, 4, 3)))]),
    ModuleInfo("Identity", [M(inputs=(rand(2, 3),)), M(54, unused="x", inputs=(rand(3),))]),
]
