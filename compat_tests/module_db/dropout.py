"""Dropout layers. The input is made right after seeding both libraries' generators, so the forward
draws the same mask from torch's stream: outputs and gradients compare exactly (to rounding)."""
from harness import rand
from .common import ModuleInfo, M, BadArgs


def seeded(*shape, seed=7):
    x = rand(*shape)

    def make(T):
        T.manual_seed(seed)
        return T.tensor(x, requires_grad=True)
    return make


def seeded_nonleaf(*shape):
    # inplace=True needs a non-leaf input
    x = rand(*shape)

    def make(T):
        T.manual_seed(11)
        return T.tensor(x, requires_grad=True) * 1
    return make


MODULES = [
    ModuleInfo("Dropout", [M(inputs=(seeded(4, 6),)), M(0.2, inputs=(seeded(3, 5, 2),)),
                           M(0.3, True, inputs=(seeded_nonleaf(4, 6),)),
                           M(0.5, inputs=(rand(3, 4),), train=False), M(1.0, inputs=(seeded(2, 3),)),
                           BadArgs(1.5), BadArgs(-0.1), BadArgs(0.5, foo=1)]),
    ModuleInfo("Dropout1d", [M(0.4, inputs=(seeded(2, 5, 3),)), M(0.4, inputs=(seeded(5, 3),))]),
    ModuleInfo("Dropout2d", [M(0.4, inputs=(seeded(2, 5, 3, 2),)), M(inputs=(rand(2, 3, 2, 2),), train=False)]),
    ModuleInfo("Dropout3d", [M(0.4, inputs=(seeded(2, 3, 2, 2, 2),)), M(0.6, inputs=(seeded(4, 2, 2, 2),))]),
    ModuleInfo("AlphaDropout", [M(0.3, inputs=(seeded(4, 5),)), M(0.3, inputs=(rand(4, 5),), train=False),
                                BadArgs(2.0)]),
    ModuleInfo("FeatureAlphaDropout", [M(0.3, inputs=(seeded(3, 4, 2),))]),
]
