from harness import rand
from .common import ModuleInfo, M

MODULES = [
    ModuleInfo("PixelShuffle", [M(2, inputs=(rand(2, 8, 3, 2),)), M(3, inputs=(rand(9, 2, 2),))]),
    ModuleInfo("PixelUnshuffle", [M(2, inputs=(rand(2, 2, 4, 6),)), M(3, inputs=(rand(1, 6, 6),))]),
    ModuleInfo("ChannelShuffle", [M(2, inputs=(rand(2, 6, 3, 2),)), M(3, inputs=(rand(2, 6, 3),))]),
]
