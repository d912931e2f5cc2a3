import numpy as np

from harness import rand
from .common import ModuleInfo, M, BadArgs

_x = rand(2, 3, 4) * 3
_x4 = rand(2, 3, 2, 2, seed=1) * 3
_kinks = np.array([[-7.0, -3.0, -1.0, 0.0, 1.0, 3.0, 6.0, 25.0]], np.float32)


def _nonleaf(a):
    """A tensor with history (in-place layers refuse leaves that require grad, in both libraries)."""
    return lambda T: T.tensor(a, requires_grad=True) * 1.0


def _simple(name, *extra, **kw):
    return ModuleInfo(name, [M(inputs=(_x,)), M(inputs=(_kinks,)), *extra], **kw)


MODULES = [
    ModuleInfo("ReLU", [M(inputs=(_x,)), M(True, inputs=(_nonleaf(_x),)), M(inplace=False, inputs=(_kinks,))]),
    ModuleInfo("ReLU6", [M(inputs=(_kinks,)), M(inplace=True, inputs=(_nonleaf(_kinks),))]),
    ModuleInfo("LeakyReLU", [M(inputs=(_x,)), M(0.2, inputs=(_kinks,)), M(0.1, True, inputs=(_nonleaf(_x),)),
                             M(negative_slope=-0.5, inputs=(_x,))]),
    ModuleInfo("PReLU", [M(inputs=(_x,)), M(3, inputs=(_x4,)), M(3, 0.1, inputs=(_x,)), M(1, -0.3, inputs=(_kinks,)),
                         M(3, inputs=(_x.astype(np.float64),), dtype=lambda T: T.float64)]),
    ModuleInfo("ELU", [M(inputs=(_x,)), M(0.5, inputs=(_kinks,)), M(alpha=2.0, inplace=True, inputs=(_nonleaf(_x),))]),
    ModuleInfo("SELU", [M(inputs=(_x,)), M(True, inputs=(_nonleaf(_x),))]),
    ModuleInfo("CELU", [M(inputs=(_x,)), M(0.5, inputs=(_kinks,)), M(2.0, True, inputs=(_nonleaf(_x),))]),
    ModuleInfo("GELU", [M(inputs=(_x,)), M("tanh", inputs=(_x,)), M(approximate="none", inputs=(_kinks,))]),
    _simple("SiLU", M(inplace=True, inputs=(_nonleaf(_x),))),
    _simple("Mish", M(True, inputs=(_nonleaf(_x),))),
    _simple("Sigmoid"),
    ModuleInfo("Tanh", [M(inputs=(rand(2, 3, 4),))]),
    ModuleInfo("Hardtanh", [M(inputs=(_kinks,)), M(-2.0, 3.0, inputs=(_x,)), M(0.0, 1.0, True, inputs=(_nonleaf(_x),)),
                            BadArgs(2.0, 1.0), BadArgs(1.0, 1.0)]),
    _simple("Hardswish", M(True, inputs=(_nonleaf(_x),))),
    _simple("Hardsigmoid", M(inplace=True, inputs=(_nonleaf(_x),))),
    ModuleInfo("Softplus", [M(inputs=(_x,)), M(2.0, 5.0, inputs=(_kinks,)), M(beta=0.5, inputs=(_x,))]),
    _simple("Softsign"),
    ModuleInfo("Softmax", [M(1, inputs=(_x,)), M(dim=-1, inputs=(_x4,)), M(0, inputs=(_x,))], atol=1e-5),
    ModuleInfo("LogSoftmax", [M(1, inputs=(_x,)), M(dim=-1, inputs=(_x4,))], atol=1e-5),
    ModuleInfo("Softmin", [M(1, inputs=(_x,)), M(dim=2, inputs=(_x4,))], atol=1e-5),
    ModuleInfo("Softmax2d", [M(inputs=(_x4,)), M(inputs=(_x,))], atol=1e-5),
    ModuleInfo("GLU", [M(inputs=(rand(2, 3, 4),)), M(1, inputs=(rand(2, 4, 3),)), M(dim=0, inputs=(rand(4, 2),))]),
    ModuleInfo("Threshold", [M(0.5, -1.0, inputs=(_x,)), M(1, 20, True, inputs=(_nonleaf(_x),))]),
    ModuleInfo("Tanhshrink", [M(inputs=(_x,))]),
    ModuleInfo("Softshrink", [M(inputs=(_x,)), M(1.0, inputs=(_kinks,))]),
    ModuleInfo("Hardshrink", [M(inputs=(_x,)), M(lambd=1.0, inputs=(_kinks,))]),
    _simple("LogSigmoid"),
    ModuleInfo("RReLU", [M(inputs=(_x,), train=False), M(0.1, 0.3, inputs=(_kinks,), train=False),
                         M(0.2, 0.4, True, inputs=(_nonleaf(_x),), train=False)]),
    ModuleInfo("RReLU", [M(inputs=(_x,)), M(0.1, 0.2, True, inputs=(_x,))], random=True),
]
