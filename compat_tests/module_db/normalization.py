"""Normalization layers: forward/gradients after one step in train or eval mode, and the running-stat
buffers (state_dict) after that step. Multi-step buffer histories: op_db/nn_norm.py."""
import numpy as np

from harness import rand
from .common import ModuleInfo, M, BadArgs

BN_TOL = dict(rtol=1e-5, atol=1e-5)

MODULES = [
    ModuleInfo("BatchNorm1d", [
        M(3, inputs=(rand(4, 3),)), M(3, inputs=(rand(4, 3, 5),)),
        M(3, momentum=None, affine=False, inputs=(rand(4, 3),)),
        M(3, track_running_stats=False, bias=False, inputs=(rand(2, 3, 4),)),
        M(3, eps=1e-3, momentum=0.3, inputs=(rand(5, 3),), train=False),
        M(3, track_running_stats=False, inputs=(rand(5, 3),), train=False),
        BadArgs(3, foo=1),
    ], **BN_TOL),
    ModuleInfo("BatchNorm2d", [M(3, inputs=(rand(2, 3, 4, 5),)), M(2, affine=False, inputs=(rand(3, 2, 2, 2),)),
                               M(3, inputs=(rand(2, 3, 4, 5),), train=False)], **BN_TOL),
    ModuleInfo("BatchNorm3d", [M(2, inputs=(rand(2, 2, 3, 2, 3),)), M(2, momentum=0.5, inputs=(rand(2, 2, 2, 2, 2),),
                                                                     train=False)], **BN_TOL),
    ModuleInfo("SyncBatchNorm", [M(3, inputs=(rand(4, 3, 2),))], **BN_TOL),
    ModuleInfo("InstanceNorm1d", [
        M(3, inputs=(rand(2, 3, 5),)), M(3, affine=True, inputs=(rand(3, 6),)),
        M(3, affine=True, track_running_stats=True, inputs=(rand(2, 3, 5),)),
        M(3, track_running_stats=True, inputs=(rand(2, 3, 5),), train=False),
    ], **BN_TOL),
    ModuleInfo("InstanceNorm2d", [M(2, affine=True, inputs=(rand(2, 2, 3, 4),)),
                                  M(2, track_running_stats=True, momentum=0.4, inputs=(rand(2, 3, 4),))], **BN_TOL),
    ModuleInfo("InstanceNorm3d", [M(2, affine=True, track_running_stats=True, inputs=(rand(1, 2, 2, 3, 2),))],
               **BN_TOL),
    ModuleInfo("LayerNorm", [
        M(4, inputs=(rand(3, 4),)), M((3, 4), inputs=(rand(2, 3, 4),)),
        M([4], elementwise_affine=False, eps=1e-3, inputs=(rand(2, 5, 4),)),
        M(4, bias=False, inputs=(rand(2, 4),)),
        M(4, inputs=(rand(3, 4).astype(np.float64),), dtype=lambda T: T.float64),
    ]),
    ModuleInfo("GroupNorm", [M(2, 4, inputs=(rand(3, 4, 5),)), M(3, 6, affine=False, inputs=(rand(2, 6, 2, 2),)),
                             M(1, 2, eps=1e-3, bias=False, inputs=(rand(2, 2, 3),)),
                             BadArgs(2, 5), BadArgs(3, 4, eps=1)], rtol=1e-5, atol=1e-5),
    ModuleInfo("RMSNorm", [M(4, inputs=(rand(3, 4),)), M((2, 4), eps=1e-3, inputs=(rand(3, 2, 4),)),
                           M([4], elementwise_affine=False, inputs=(rand(2, 4),))]),
    ModuleInfo("LocalResponseNorm", [M(3, inputs=(rand(2, 5, 4),)), M(2, 1e-2, 0.5, 2.0, inputs=(rand(1, 4, 3, 3),)),
                                     M(4, inputs=(rand(1, 6, 2, 2, 2),))]),
]
