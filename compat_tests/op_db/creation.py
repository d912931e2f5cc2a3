"""Samples for the creation ops (no tensor input: scalar / tuple arguments, function form only)."""
import numpy as np

from .common import OpInfo, S, E

_x = np.array([[1.5, -2.0, 3.25]], dtype=np.float32)
_i = np.array([1, 2, 3], dtype=np.int32)


def _shape_dtype(fn_name):
    # torch leaves empty() memory uninitialised: compare shape, dtype and requires_grad only
    def call(T, *args, **kwargs):
        t = getattr(T, fn_name)(*args, **kwargs)
        return t.shape, t.dtype, t.requires_grad
    return call


def _c(name, samples, **kw):
    return OpInfo(name, samples, method=False, grad=False, **kw)


OPS = [
    _c("tensor", [
        S([[1, 2], [3, 4]]), S([1, 2.5]), S([True, False]), S([True, 2]), S(3), S(2.5), S(True), S(1 + 2j),
        S([1, 2j]), S([]), S([[]]), S((1, 2)), S(range(4)),
        S([1.5, -2.5], dtype=lambda T: T.int32), S([1.5], dtype=lambda T: T.bfloat16),
        S([1, 2], dtype=lambda T: T.complex64), S([0.5, 0], dtype=lambda T: T.bool),
        S(lambda T: np.array([1, 2], dtype=np.int16)), S(lambda T: np.float64(1.5)),
        S([1.0, 2.0], requires_grad=True),
        E("abc"), E(["a"]), E([[1, 2], [3]]), E([[1, 2], 3]), E([1, None]), E(None), E({1: 2}),
        E([1, 2], requires_grad=True), E([300], dtype=lambda T: T.uint8), E([2 ** 63]),
        E([1.5 + 1j], dtype=lambda T: T.float32),
    ]),
    _c("as_tensor", [S([1, 2]), S([1.5, 2.0], dtype=lambda T: T.float64), S(lambda T: np.arange(3.0)),
                     S(lambda T: np.arange(3), dtype=lambda T: T.float32), S(2.5), E("x")]),
    _c("asarray", [S([1, 2]), S(lambda T: np.arange(3.0)), S(lambda T: np.arange(3.0), copy=True),
                   S([1.5], dtype=lambda T: T.float16), S(3),
                   E([1, 2], copy=False), E(lambda T: np.arange(3.0), dtype=lambda T: T.float32, copy=False)]),
    _c("from_numpy", [S(lambda T: np.arange(6, dtype=np.int8).reshape(2, 3)), S(lambda T: np.array(2.5)),
                      S(lambda T: np.ones((2, 2), dtype=np.complex64)), S(lambda T: np.zeros(0, np.float32)),
                      S(lambda T: np.arange(6.0).reshape(2, 3).T),
                      E([1, 2]), E(lambda T: np.array(["a"])), E(lambda T: np.arange(3)[::-1])]),
    _c("zeros", [S(2, 3), S((2, 3)), S([2, 3]), S(lambda T: T.Size([2, 1])), S(()), S(0),
                 S(2, dtype=lambda T: T.int32), S(2, dtype=lambda T: T.bool), S(2, dtype=lambda T: T.bfloat16),
                 S(2, dtype=lambda T: T.complex64), S(2, requires_grad=True),
                 E(-1), E(2, 3.0), E((2,), (3,)), E(), E(2, dtype="float32"),
                 E(2, dtype=lambda T: T.int64, requires_grad=True)]),
    _c("ones", [S(2, 3), S((2,)), S([1, 2]), S(()), S(2, dtype=lambda T: T.uint8), S(2, dtype=lambda T: T.float16),
                S(3, dtype=lambda T: T.bfloat16), S(2, dtype=lambda T: T.complex64), E(-2), E()]),
    _c("empty", [S(2, 3), S((2,)), S([0]), S(2, dtype=lambda T: T.int64), S(2, requires_grad=True), E(-1), E()],
       call=_shape_dtype("empty")),
    _c("full", [S((2, 3), 1.5), S((2,), 3), S((2,), True), S((2,), 1j), S([2, 1], 7), S((), 2.0),
                S((2,), 1.5, dtype=lambda T: T.int64), S((2,), -1, dtype=lambda T: T.uint8),
                S((2,), 2.0, dtype=lambda T: T.bfloat16), S((2,), lambda T: T.tensor(2)),
                E(2, 1.0), E((2,), 300, dtype=lambda T: T.uint8), E((2,), 1j, dtype=lambda T: T.float32),
                E((2,), float("nan"), dtype=lambda T: T.int32), E((2,), 1e6, dtype=lambda T: T.float16)]),
    _c("zeros_like", [S(_x), S(_i), S(_x, dtype=lambda T: T.int64), S(_x, requires_grad=True), E([1, 2])]),
    _c("ones_like", [S(_x), S(_i), S(_i, dtype=lambda T: T.float64)]),
    _c("empty_like", [S(_x), S(_i, dtype=lambda T: T.float16)], call=_shape_dtype("empty_like")),
    _c("full_like", [S(_x, 2), S(_i, 2.7), S(_x, 2, dtype=lambda T: T.int64), E(_i, 1e10)]),
    _c("scalar_tensor", [S(3), S(True), S(2.5), S(3, dtype=lambda T: T.int64), S(lambda T: T.tensor(2)), E(1j)]),
    _c("eye", [S(3), S(2, 3), S(3, 2, dtype=lambda T: T.int32), S(2, dtype=lambda T: T.bool), S(0),
               E(-1), E(2, -3), E(2.0), E(2, 3.0)]),
    _c("arange", [S(5), S(1, 7, 2), S(5, 1, -1), S(0, 1, 0.1), S(-1, 1, 0.3), S(0, 10, 0.1), S(2.5),
                  S(10, -3, -0.17), S(0, 3, dtype=lambda T: T.float64), S(0, 2, 0.1, dtype=lambda T: T.float64),
                  S(0, 5, 0.3, dtype=lambda T: T.float16), S(0, 5, 0.3, dtype=lambda T: T.bfloat16),
                  S(0.5, 5, 1.5, dtype=lambda T: T.int64), S(0, 10, 0.5, dtype=lambda T: T.int32),
                  S(0, 10, 3, dtype=lambda T: T.uint8), S(0, 0), S(lambda T: T.tensor(3)), S(True),
                  E(0, 1, 0), E(1, 0, 1), E(float("inf")), E(3, dtype=lambda T: T.bool),
                  E(0, 2.5, 0.5, dtype=lambda T: T.int64)],
       rtol=0, atol=0),
    _c("range", [S(0, 1, 0.25), S(0, 3), S(3, 0, -1), S(0, 1, 0.3), S(0, 3, dtype=lambda T: T.int64),
                 S(0, 2, 0.1, dtype=lambda T: T.float64), E(0, 1, 0), E(1, 0, 1)], rtol=0, atol=0),
    _c("linspace", [S(0, 1, 10), S(-1, 1, 7), S(0, 10, 50), S(3.3, -7.1, 33), S(0, 1, 100), S(-5.5, 2.2, 1000),
                    S(0, 1, 0), S(0, 1, 1), S(2, 2, 3), S(0, 10, 4, dtype=lambda T: T.int64),
                    S(-3.7, 10, 4, dtype=lambda T: T.int32), S(0, 1, 9, dtype=lambda T: T.float64),
                    S(0, 10, 5, dtype=lambda T: T.float16), S(-1, 3, 7, dtype=lambda T: T.bfloat16),
                    S(lambda T: T.tensor(0.0), lambda T: T.tensor(1.0), 3),
                    E(0, 1, -1), E(0, 1, 2.0), E(lambda T: T.tensor([0.0]), 1, 3)],
       rtol=0, atol=0),
    _c("logspace", [S(0, 2, 3), S(0, 2, 3, base=2), S(-1, 1, 5), S(0, 2, 3, dtype=lambda T: T.int64),
                    S(-1, 1, 5, dtype=lambda T: T.float64), S(0.1, 1.3, 1), S(0, 1, 0), E(0, 1, -1)]),
    _c("empty_strided", [S((2, 3), (1, 2)), S((2,), (1,), dtype=lambda T: T.float64), E((2, 3), (1,))],
       call=_shape_dtype("empty_strided")),
    _c("frombuffer", [S(lambda T: bytearray(b"\x01\x00\x02\x00"), dtype=lambda T: T.int16),
                      S(lambda T: bytearray(b"\x00\x00\xc0\x3f"), dtype=lambda T: T.float32),
                      E(lambda T: bytearray(b"\x01\x00\x02"), dtype=lambda T: T.int16)]),
]
