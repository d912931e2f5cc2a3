"""Samples for the in-place basics (copy_, zero_, fill_) and F.linear / F.bilinear."""
from harness import rand
from .common import OpInfo, S, E


def _inplace(method):
    def call(T, x, *args, **kwargs):
        y = x.detach().clone()
        r = getattr(y, method)(*args, **kwargs)
        return y, r is y
    return call


OPS = [
    OpInfo("copy_", [S(rand(2, 3), rand(2, 3, seed=1)), S(rand(2, 3), rand(3, seed=1)),
                     S(rand(2, 3), rand(2, 3, dtype="int64")), S(rand(2, 3, dtype="int64"), rand(2, 3, seed=1)),
                     E(rand(2, 3), rand(4, seed=1))],
           call=_inplace("copy_"), grad=False, inplace=False),
    OpInfo("zero_", [S(rand(2, 3)), S(rand(4, dtype="int64")), S(rand(3, dtype="bool"))],
           call=_inplace("zero_"), grad=False, inplace=False),
    OpInfo("fill_", [S(rand(2, 3), 1.5), S(rand(4, dtype="int64"), 7), S(rand(2, 2), lambda T: T.tensor(2.0)),
                     E(rand(2, 2), lambda T: T.ones(2))],
           call=_inplace("fill_"), grad=False, inplace=False),
    OpInfo("fill", [S(rand(2, 3), 1.5), S(rand(4, dtype="int64"), 3)], method=False, grad=False),
    OpInfo("linear", [S(rand(4, 3), rand(5, 3, seed=1), rand(5, seed=2)), S(rand(2, 4, 3), rand(5, 3, seed=1)),
                      S(rand(3), rand(2, 3, seed=1), rand(2, seed=2)),
                      E(rand(4, 3), rand(5, 4, seed=1)), E(rand(4, 3), rand(5, 3, seed=1, dtype="float64"))],
           method=False),
    OpInfo("bilinear", [S(rand(4, 3), rand(4, 2, seed=1), rand(5, 3, 2, seed=2), rand(5, seed=3)),
                        S(rand(2, 4, 3), rand(2, 4, 2, seed=1), rand(5, 3, 2, seed=2)),
                        # int32 stays int32 (tools/fuzz.py)
                        S(rand(4, 3, dtype="int32"), rand(4, 2, dtype="int32", seed=1), rand(5, 3, 2, dtype="int32", seed=2),
                          rand(5, dtype="int32", seed=3))],
           method=False),
]
