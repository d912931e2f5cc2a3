from harness import rand
from .common import ModuleInfo, M, BadArgs

MODULES = [
    ModuleInfo("Flatten", [M(inputs=(rand(2, 3, 4),)), M(0, 1, inputs=(rand(2, 3, 4),)),
                           M(-2, -1, inputs=(rand(2, 3, 2, 2),)), M(start_dim=0, inputs=(rand(5),))]),
    ModuleInfo("Unflatten", [M(1, (2, 3), inputs=(rand(4, 6),)), M(-1, [2, -1], inputs=(rand(3, 8),)),
                             BadArgs(1, 6), BadArgs(1, (2.0, 3))]),
]
