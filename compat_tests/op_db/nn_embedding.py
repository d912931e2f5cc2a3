"""torch.nn.functional embedding, embedding_bag, one_hot."""
import numpy as np

from harness import rand
from .common import OpInfo, S, E


def idx(*values, shape=None, dtype=np.int64):
    a = np.array(values, dtype)
    return a.reshape(shape) if shape else a


_w = rand(10, 4)


def renorm(T, input, w, **kw):
    """max_norm renormalises the weight in place (no gradient): return the weight too."""
    w = w * 1 if w.requires_grad else w.clone()
    return T.nn.functional.embedding(input, w, **kw), w


def bag_renorm(T, input, w, offsets, **kw):
    w = w * 1 if w.requires_grad else w.clone()
    return T.nn.functional.embedding_bag(input, w, offsets, **kw), w


EMB = [S(idx(1, 4, 4, 9, 0, 2, shape=(2, 3)), _w), S(idx(3), _w), S(idx(2, 5, dtype=np.int32), _w),
       S(idx(2, 3, 2, 7), _w, padding_idx=2), S(idx(2, 3, 9, 7), _w, padding_idx=-1),
       S(idx(1, 1, 3, 7, 1), _w, scale_grad_by_freq=True), S(idx(1, 1, 0, 0), _w, 0, scale_grad_by_freq=True),
       S(idx(0, 3), _w.astype(np.float64)),
       E(idx(1, 10), _w), E(idx(-1), _w), E(np.array([1.0, 2.0], np.float32), _w), E(idx(1), _w, padding_idx=10),
       E(idx(1), _w, padding_idx=-11), E(idx(1), rand(10)), E(idx(1, 2, dtype=np.int16), _w),
       ]
RENORM = [S(idx(0, 5, 5, 6), _w, max_norm=1.0), S(idx(0, 1, 2, 3, 4, 5), _w, max_norm=0.5, norm_type=1.0),
          S(idx(7, 8), _w, max_norm=2.0, norm_type=float("inf")), S(idx(2), _w, max_norm=100.0)]
BAG = [S(idx(1, 4, 4, 9, 0, 2, shape=(2, 3)), _w), S(idx(1, 4, 4, 9, 0, 2), _w, idx(0, 2, 2)),
       S(idx(1, 4, 4, 9, 0, 2), _w, idx(0, 2, 2), mode="sum"), S(idx(1, 4, 5, 9, 0, 2), _w, idx(0, 3), mode="max"),
       S(idx(1, 4, 5, 9, 0, 2), _w, idx(0, 2, 2, 6), mode="max"),
       S(idx(1, 4, 4, 9, 0, 2, shape=(3, 2)), _w, mode="max"), S(idx(1, 4, 4, 9), _w, idx(0, 1), padding_idx=4),
       S(idx(4, 4, 1, 9), _w, idx(0, 2), padding_idx=4, mode="max"),
       S(idx(1, 4, 3, 9, 0, 2), _w, idx(0, 3, 6), mode="sum", include_last_offset=True),
       # indices past the last offset: counted in the last bag's mean divisor and max, not summed by the float path
       S(idx(1, 2, 4, 5, 4, 3), _w, idx(0, 2, 2, 5), mode="mean", include_last_offset=True),
       S(idx(1, 2, 4, 5, 4, 3), _w, idx(0, 2, 2, 5), mode="max", include_last_offset=True),
       S(idx(1, 2, 4, 5, 4, 3), _w.astype(np.float64), idx(0, 2, 2, 5), mode="mean", include_last_offset=True),
       S(idx(1, 2, 4, 5, 4, 3), _w, idx(0, 2, 2, 5), mode="mean", include_last_offset=True, padding_idx=5),
       S(idx(1, 4, 3, 9), _w, idx(0, 1), mode="sum", per_sample_weights=rand(4)),
       S(idx(1, 4, 3, 9, shape=(2, 2)), _w, mode="sum", per_sample_weights=rand(2, 2)),
       S(idx(1, 2, 3, 3), _w, idx(0, 1), mode="sum", scale_grad_by_freq=True),
       S(idx(1, 4, 3, 9, dtype=np.int32), _w, idx(0, 1, dtype=np.int32), mode="mean"),
       E(idx(1, 2, 3), _w, idx(1, 2)), E(idx(1, 2, 3), _w, idx(0, 4)), E(idx(1, 2, 10), _w, idx(0, 2)),
       E(idx(1, 2, -1), _w, idx(0, 2)), E(idx(1, 2, 3), _w, idx(0, 2), padding_idx=11),
       E(idx(1, 2, 3), _w, idx(0, 2), mode="min"), E(idx(1, 2, 3), _w, idx(0, 2), per_sample_weights=rand(3)),
       E(idx(1, 2, 3), _w, idx(0, 2), mode="sum", per_sample_weights=rand(2)),
       E(idx(1, 2, 3, shape=(1, 3)), _w, idx(0)), E(idx(1, 2, 3), _w), E(idx(1, 2, 3, shape=(1, 1, 3)), _w),
       E(np.array([1.0, 2.0], np.float32), _w, idx(0)), E(idx(1), rand(10), idx(0)),
       E(idx(1, 2), _w, idx(0), mode="max", scale_grad_by_freq=True)]
ONE_HOT = [S(idx(1, 0, 4)), S(idx(1, 0, 4, shape=(3, 1)), 6), S(np.array(2, np.int64), 4),
           S(np.zeros(0, np.int64), 3), E(np.array([1.0, 2.0], np.float32)), E(idx(1, 2, dtype=np.int32)),
           E(idx(1, -2)), E(idx(1, 5), 3), E(np.zeros(0, np.int64)), E(idx(0), 0), E(idx(0), -2)]

OPS = [
    OpInfo("embedding", EMB),
    OpInfo("embedding", RENORM, call=renorm),
    # an empty index: weight.grad stays None in mstorch (docs/known-differences.md), so values only
    OpInfo("embedding", [S(np.zeros((2, 0), np.int64), _w)], grad=False),
    OpInfo("embedding_bag", BAG, rtol=1e-5, atol=1e-5),
    OpInfo("embedding_bag", [S(idx(1, 2, 3, 1), _w, idx(0, 2), max_norm=1.0),
                             S(idx(1, 2, 3, 1, shape=(2, 2)), _w, None, max_norm=1.5, mode="sum")], call=bag_renorm),
    # (sum past the last offset: values only, torch's backward reads uninitialised memory for those indices)
    OpInfo("embedding_bag", [S(idx(1, 2, 4, 5, 4, 3), _w, idx(0, 2, 2, 5), mode="sum", include_last_offset=True)],
           grad=False),
    OpInfo("one_hot", ONE_HOT),
]
