from harness import rand
from .common import ModuleInfo, M


def _indices(n, shape, k, s=None, p=0):
    def make(T):
        pool = getattr(T.nn.functional, f"max_pool{n}d")
        return pool(T.tensor(rand(*shape, seed=3)), k, s, p, return_indices=True)[1]
    return make


MODULES = [
    ModuleInfo("MaxPool1d", [M(3, inputs=(rand(2, 3, 9),)), M(3, 2, 1, 2, True, True, inputs=(rand(3, 9),))]),
    ModuleInfo("MaxPool2d", [M(3, stride=2, inputs=(rand(2, 3, 7, 6),)),
                             M((3, 2), (2, 1), (1, 0), (2, 1), ceil_mode=True, inputs=(rand(1, 2, 7, 6),)),
                             M(2, return_indices=True, inputs=(rand(2, 4, 4),))]),
    ModuleInfo("MaxPool3d", [M(2, inputs=(rand(1, 2, 4, 4, 4),)), M(3, 2, 1, ceil_mode=True, inputs=(rand(2, 5, 4, 5),))]),
    ModuleInfo("AvgPool1d", [M(3, inputs=(rand(2, 3, 9),)), M(3, 2, 1, True, False, inputs=(rand(3, 9),))]),
    ModuleInfo("AvgPool2d", [M(3, inputs=(rand(2, 3, 7, 6),)),
                             M((3, 2), (2, 1), 1, True, False, inputs=(rand(1, 2, 7, 6),)),
                             M(2, divisor_override=3, inputs=(rand(2, 4, 4),))]),
    ModuleInfo("AvgPool3d", [M(2, inputs=(rand(1, 2, 4, 4, 4),)),
                             M(3, 2, 1, True, True, 5, inputs=(rand(2, 5, 4, 5),))]),
    ModuleInfo("LPPool1d", [M(2, 3, 2, inputs=(rand(2, 3, 9),)), M(1.5, 2, ceil_mode=True,
                                                                    inputs=(rand(2, 3, 9, low=0.1, high=2.0),))]),
    ModuleInfo("LPPool2d", [M(2, 3, 2, inputs=(rand(2, 3, 7, 6),)), M(float("inf"), (2, 3), inputs=(rand(1, 6, 6),))]),
    ModuleInfo("LPPool3d", [M(2, 2, inputs=(rand(1, 2, 4, 4, 4),))]),
    ModuleInfo("AdaptiveAvgPool1d", [M(4, inputs=(rand(2, 3, 9),))]),
    ModuleInfo("AdaptiveAvgPool2d", [M((4, 3), inputs=(rand(2, 3, 7, 6),)), M((None, 2), inputs=(rand(3, 5, 5),)),
                                     M(1, inputs=(rand(2, 3, 4, 4),))]),
    ModuleInfo("AdaptiveAvgPool3d", [M((2, None, 3), inputs=(rand(1, 2, 4, 4, 4),))]),
    ModuleInfo("AdaptiveMaxPool1d", [M(4, inputs=(rand(2, 3, 9),)), M(3, True, inputs=(rand(3, 9),))]),
    ModuleInfo("AdaptiveMaxPool2d", [M((4, 3), inputs=(rand(2, 3, 7, 6),)), M(2, return_indices=True,
                                                                               inputs=(rand(3, 5, 5),))]),
    ModuleInfo("AdaptiveMaxPool3d", [M((2, None, 3), inputs=(rand(1, 2, 4, 4, 4),))]),
    ModuleInfo("MaxUnpool1d", [M(2, inputs=(rand(2, 3, 4), _indices(1, (2, 3, 8), 2)))]),
    ModuleInfo("MaxUnpool2d", [M(2, inputs=(rand(2, 3, 2, 2), _indices(2, (2, 3, 4, 4), 2))),
                               M(3, 2, 1, inputs=(rand(1, 2, 3, 3), _indices(2, (1, 2, 5, 5), 3, 2, 1)),
                                 forward_kwargs={"output_size": (5, 5)})]),
    ModuleInfo("MaxUnpool3d", [M(2, inputs=(rand(1, 2, 2, 2, 1), _indices(3, (1, 2, 4, 4, 2), 2)))]),
]
