"""Embedding and EmbeddingBag."""
import numpy as np

from harness import rand
from .common import ModuleInfo, M, BadArgs


def idx(*values, shape=None):
    a = np.array(values, np.int64)
    return a.reshape(shape) if shape else a


def pretrained(T):
    return T.tensor(rand(4, 3))


MODULES = [
    ModuleInfo("Embedding", [
        M(10, 3, inputs=(idx(1, 4, 4, 9, 0, 2, shape=(2, 3)),)),
        M(8, 4, padding_idx=2, inputs=(idx(2, 3, 2, 7),)),
        M(8, 4, padding_idx=-1, scale_grad_by_freq=True, inputs=(idx(1, 1, 3, 7, 1),)),
        M(8, 4, max_norm=1.0, inputs=(idx(0, 5, 5, 6),)),
        M(6, 2, max_norm=0.5, norm_type=1.0, inputs=(idx(0, 1, 2, 3, 4, 5),)),
        M(4, 3, _weight=pretrained, _freeze=True, inputs=(idx(3, 0),)),
        BadArgs(5, 3, padding_idx=5), BadArgs(5, 3, padding_idx=-6),
        BadArgs(5, 3, _weight=pretrained),
    ]),
    ModuleInfo("EmbeddingBag", [
        M(10, 3, inputs=(idx(1, 4, 4, 9, 0, 2, shape=(2, 3)),)),
        M(10, 3, mode="sum", inputs=(idx(1, 4, 4, 9, 0, 2), idx(0, 2, 2))),
        M(10, 3, mode="max", inputs=(idx(1, 4, 5, 9, 0, 2), idx(0, 3))),
        M(10, 3, mode="sum", inputs=(idx(1, 4, 4, 9), idx(0, 1)), forward_kwargs={}),
        M(10, 3, padding_idx=4, inputs=(idx(1, 4, 4, 9, 0, 2), idx(0, 3))),
        M(10, 3, mode="sum", include_last_offset=True, inputs=(idx(1, 4, 3, 9, 0, 2), idx(0, 3, 6))),
        M(10, 2, max_norm=1.0, inputs=(idx(1, 2, 3, 1), idx(0, 2))),
        BadArgs(5, 3, padding_idx=7), BadArgs(5, 3, padding_idx=-6),
    ]),
]
