from harness import rand
from .common import ModuleInfo, M

MODULES = [
    ModuleInfo("Fold", [M((5, 4), (2, 3), padding=1, stride=(2, 1), inputs=(rand(2, 18, 12),)),
                        M(3, 2, inputs=(rand(4, 4),))]),
    ModuleInfo("Unfold", [M((2, 3), dilation=(1, 2), padding=1, stride=(2, 1), inputs=(rand(2, 3, 5, 4),)),
                          M(2, inputs=(rand(3, 4, 4),))]),
]
