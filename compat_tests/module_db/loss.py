import numpy as np

from harness import rand, positive
from .common import ModuleInfo, M, BadArgs

_x = rand(4, 5) * 2
_t = np.array([0, 4, 2, 1], np.int64)
_t_ign = np.array([0, -100, 2, 3], np.int64)
_x4 = rand(2, 3, 2, 2, seed=1) * 2
_t4 = np.array([[[0, 2], [1, 1]], [[2, 0], [-100, 1]]], np.int64)
_y, _z = rand(3, 4, seed=8), rand(3, 4, seed=9)
_p01 = positive(3, 4, seed=5) / 3.1
_t01 = np.abs(rand(3, 4, seed=6)) / 2.0
_sign = np.sign(rand(3, 4, seed=7)).astype(np.float32)
_lp = rand(6, 2, 4, seed=3)
_lp = _lp - np.log(np.exp(_lp).sum(-1, keepdims=True))


def _const(a):
    """A tensor that does not require grad (class weights, targets torch does not differentiate)."""
    return lambda T: T.tensor(a)


_W5 = _const(np.array([0.5, 1.0, 2.0, 0.25, 1.5], np.float32))

MODULES = [
    ModuleInfo("CrossEntropyLoss", [
        M(inputs=(_x, _t)), M(reduction="none", inputs=(_x, _t_ign)), M(_W5, inputs=(_x, _t_ign)),
        M(weight=_W5, label_smoothing=0.1, reduction="sum", inputs=(_x, _t)), M(ignore_index=2, inputs=(_x, _t)),
        M(inputs=(_x4, _t4)), M(size_average=False, inputs=(_x, _t)), M(label_smoothing=0.2, inputs=(_x, np.abs(_x) / 10)),
    ]),
    ModuleInfo("NLLLoss", [M(inputs=(_x, _t)), M(_W5, reduction="none", inputs=(_x, _t_ign)), M(inputs=(_x4, _t4)),
                           M(reduce=False, inputs=(_x, _t))]),
    ModuleInfo("L1Loss", [M(inputs=(_y, _z)), M(reduction="sum", inputs=(_y, _z)), M(size_average=False, inputs=(_y, _z))]),
    ModuleInfo("MSELoss", [M(inputs=(_y, _z)), M(reduction="none", inputs=(_y, _z)), M(None, False, inputs=(_y, _z))]),
    ModuleInfo("BCELoss", [M(inputs=(_p01, _t01)), M(_const(np.array([1.0, 2.0, 0.5, 0.1], np.float32)), inputs=(_p01, _t01)),
                           M(reduction="sum", inputs=(_p01, _t01))]),
    ModuleInfo("BCEWithLogitsLoss", [M(inputs=(_y, _t01)), M(pos_weight=_const(np.array([1.0, 3.0, 0.5, 2.0], np.float32)),
                                                             inputs=(_y, _t01)),
                                     M(_const(np.array([2.0, 1.0, 0.5, 1.0], np.float32)), reduction="none", inputs=(_y, _t01))]),
    ModuleInfo("SmoothL1Loss", [M(inputs=(_y, _z)), M(beta=0.5, reduction="none", inputs=(_y, _z))]),
    ModuleInfo("HuberLoss", [M(inputs=(_y, _z)), M("sum", 0.4, inputs=(_y, _z)), BadArgs(delta="1")]),
    ModuleInfo("KLDivLoss", [M(reduction="batchmean", inputs=(_y, _t01)), M(reduction="sum", log_target=True, inputs=(_y, _z))]),
    ModuleInfo("PoissonNLLLoss", [M(inputs=(_y, np.abs(_z) * 3)), M(False, True, inputs=(np.abs(_y) + 0.1, np.abs(_z) * 3))]),
    ModuleInfo("GaussianNLLLoss", [M(inputs=(_y, _z, np.abs(_t01) + 0.1)), M(full=True, eps=1e-3, reduction="sum",
                                                                             inputs=(_y, _z, np.abs(_t01[:, 0]) + 0.1))]),
    ModuleInfo("CosineEmbeddingLoss", [M(inputs=(_y, _z, _sign[:, 0])), M(0.2, reduction="none", inputs=(_y, _z, _sign[:, 1]))]),
    ModuleInfo("MarginRankingLoss", [M(inputs=(_y, _z, _sign)), M(margin=0.3, reduction="sum", inputs=(_y, _z, _sign))]),
    ModuleInfo("HingeEmbeddingLoss", [M(inputs=(_y, _sign)), M(margin=0.5, reduction="none", inputs=(_y, _sign))]),
    ModuleInfo("SoftMarginLoss", [M(inputs=(_y, _const(_sign))), M(reduction="sum", inputs=(_y, _const(_sign)))]),
    ModuleInfo("MultiLabelSoftMarginLoss", [M(inputs=(_y, _t01)), M(_const(np.array([1.0, 2.0, 0.5, 0.1], np.float32)),
                                                                    inputs=(_y, _t01))]),
    ModuleInfo("MultiMarginLoss", [M(inputs=(_x, _t)), M(2, 0.5, _W5, inputs=(_x, _t)), BadArgs(p=3),
                                   BadArgs(weight=lambda T: T.ones(2, 2))]),
    ModuleInfo("MultiLabelMarginLoss", [M(inputs=(_x, np.array([[3, 0, -1, 1, 2], [1, 2, 3, 4, 0], [0, -1, 2, 1, 1],
                                                                 [4, 4, -1, 0, 0]], np.int64)))]),
    ModuleInfo("TripletMarginLoss", [M(inputs=(_y, _z, _t01)), M(0.5, 1.0, swap=True, inputs=(_y, _z, _t01)),
                                     BadArgs(margin=0.0)]),
    ModuleInfo("TripletMarginWithDistanceLoss", [
        M(inputs=(_y, _z, _t01)), M(margin=0.5, swap=True, reduction="none", inputs=(_y, _z, _t01)),
        M(distance_function=lambda T: T.nn.CosineSimilarity(), inputs=(_y, _z, _t01)), BadArgs(margin=-1.0)]),
    ModuleInfo("CTCLoss", [M(inputs=(_lp, np.array([[1, 2, 3], [1, 1, 2]]), np.array([6, 5]), np.array([3, 2]))),
                           M(3, "sum", True, inputs=(_lp, np.array([1, 2, 1, 1, 2]), np.array([6, 4]), np.array([3, 2])))]),
    ModuleInfo("PairwiseDistance", [M(inputs=(_y, _z)), M(1.0, 1e-3, True, inputs=(_y, _z))]),
    ModuleInfo("CosineSimilarity", [M(inputs=(_y, _z)), M(0, 1e-3, inputs=(_y, _z))]),
]
