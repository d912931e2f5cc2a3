from harness import rand
from .common import ModuleInfo, M

_x3, _x4, _x5 = rand(2, 3, 5), rand(1, 2, 4, 5), rand(1, 2, 3, 4, 3)



MODULES = [
    ModuleInfo("ZeroPad1d", [M(2, inputs=(_x3,)), M((1, 3), inputs=(rand(3, 4),))]),
    ModuleInfo("ZeroPad2d", [M(1, inputs=(_x4,)), M((1, 0, 2, -1), inputs=(_x4,))]),
    ModuleInfo("ZeroPad3d", [M((1, 0, 1, 2, 0, 1), inputs=(_x5,))]),
    ModuleInfo("ConstantPad1d", [M(2, 1.5, inputs=(_x3,)), M((1, 3), -2, inputs=(rand(3, 4),))]),
    ModuleInfo("ConstantPad2d", [M((1, 0, 2, 1), 0.5, inputs=(_x4,))]),
    ModuleInfo("ConstantPad3d", [M(1, 3.0, inputs=(_x5,))]),
    ModuleInfo("ReflectionPad1d", [M(2, inputs=(_x3,)), M((3, 1), inputs=(rand(3, 4),))]),
    ModuleInfo("ReflectionPad2d", [M(1, inputs=(_x4,)), M((1, 0, 2, 1), inputs=(rand(2, 4, 5),))]),
    ModuleInfo("ReflectionPad3d", [M((1, 0, 1, 2, 0, 1), inputs=(_x5,)), M(1, inputs=(rand(2, 3, 3, 3),))]),
    ModuleInfo("ReplicationPad1d", [M(2, inputs=(_x3,))]),
    ModuleInfo("ReplicationPad2d", [M((1, 0, 2, 3), inputs=(_x4,))]),
    ModuleInfo("ReplicationPad3d", [M(2, inputs=(_x5,))]),
    ModuleInfo("CircularPad1d", [M(2, inputs=(_x3,)), M((1, 3), inputs=(rand(3, 4),))]),
    ModuleInfo("CircularPad2d", [M((1, 0, 2, 1), inputs=(_x4,))]),
    ModuleInfo("CircularPad3d", [M(1, inputs=(_x5,))]),
]
