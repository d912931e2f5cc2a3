"""Samples for the random family. Each call seeds the namespace's global generator first, so values are
compared with torch's own stream (exactly for bit-exact ops, at float32 rounding level for the ones
torch computes with transcendental functions). Streams, dtypes and sizes in depth: test_random.py."""
import numpy as np

from .common import OpInfo, S, E

EXACT = dict(grad=False, rtol=0.0, atol=0.0)
ULP = dict(grad=False, rtol=3e-7, atol=1e-30)   # <= 2 ulp of float32


def seeded(fn):
    def call(T, *args, **kwargs):
        T.manual_seed(1234)
        return fn(T, *args, **kwargs)
    return call


def method(name):
    return seeded(lambda T, x, *a, **k: getattr(x, name)(*a, **k))


def function(name):
    return seeded(lambda T, *a, **k: getattr(T, name)(*a, **k))


def f32(*shape):
    return np.zeros(shape, np.float32)


def i64(*shape):
    return np.zeros(shape, np.int64)


def gen(seed):
    return lambda T: T.Generator().manual_seed(seed)


F64 = lambda T: T.float64  # noqa: E731
HALF = lambda T: T.float16  # noqa: E731
LONG = lambda T: T.int64  # noqa: E731

OPS = [
    OpInfo("rand", [S(3, 4), S(20, dtype=F64), S((5,), dtype=HALF), S(2, generator=gen(3)),
                    E(3, dtype=LONG)], call=function("rand"), **EXACT),
    OpInfo("rand_like", [S(f32(2, 9)), S(f32(4), dtype=F64), E(i64(3))], call=function("rand_like"), **EXACT),
    OpInfo("randint", [S(0, 10, (6,)), S(7, (2, 3)), S(-5, 2 ** 40, (4,)), S(0, 3, (5,), dtype=HALF),
                       E(5, 5, (3,))], call=function("randint"), **EXACT),
    OpInfo("randint_like", [S(f32(5), 9), S(i64(2, 2), -3, 3), E(f32(2), 4, 2)],
           call=function("randint_like"), **EXACT),
    OpInfo("randperm", [S(1), S(12), S(40, dtype=F64), S(7, generator=gen(5)), E(-1)],
           call=function("randperm"), **EXACT),
    OpInfo("randn", [S(5), S(2, 17), S(33, dtype=F64), S(20, dtype=HALF), E(3, dtype=LONG)],
           call=function("randn"), **ULP),
    OpInfo("randn_like", [S(f32(3)), S(f32(4, 5), dtype=F64), E(i64(2)),
                          S(np.array(0.5, np.float32), dtype=lambda T: T.bfloat16)],   # 0-d bfloat16 (tools/fuzz.py)
           call=function("randn_like"), **ULP),
    OpInfo("normal", [S(0.5, 2.0, (18,)), S(np.linspace(-1, 1, 6, dtype=np.float32), 2.0),
                      S(1.5, np.full(4, 0.5, np.float32)), E(0.0, -1.0, (2,))],
           call=function("normal"), **ULP),
    OpInfo("bernoulli", [S(np.linspace(0, 1, 9, dtype=np.float32)), S(np.linspace(0, 1, 5)),
                         E(np.array([0.5, 2.0], np.float32))], call=function("bernoulli"), **EXACT),
    OpInfo("multinomial", [S(np.array([0.2, 1.0, 3.0, 0.5], np.float32), 2),
                           S(np.array([[1.0, 2.0, 3.0], [3.0, 0.5, 1.0]], np.float32), 4, True),
                           E(np.array([1.0, 2.0], np.float32), 3)], call=function("multinomial"), **EXACT),
    OpInfo("poisson", [S(np.array([0.0, 1.5, 4.0, 15.0], np.float32)), E(np.array([1, 2]))],
           call=function("poisson"), **EXACT),
    OpInfo("binomial", [S(np.array([0.0, 3.0, 40.0, 200.0, 7.0], np.float32), np.array([0.5, 0.2, 0.3, 0.9, 1.0],
                                                                                       np.float32)),
                        S(np.array([[25.0], [4.0]]), np.array([0.05, 0.6, 0.97])),
                        E(np.array([3, 4]), np.array([0.5, 0.5], np.float32))], call=function("binomial"), **EXACT),
    OpInfo("uniform_", [S(f32(7)), S(f32(3, 3), -2.0, 5.0), S(np.zeros(4), 0.1, 0.2), E(f32(2), 1.0, 0.0),
                        E(i64(3))], call=method("uniform_"), **EXACT),
    OpInfo("normal_", [S(f32(6)), S(f32(40), 1.0, 3.0), E(f32(2), 0.0, -1.0), E(i64(2))],
           call=method("normal_"), **ULP),
    OpInfo("random_", [S(i64(5)), S(i64(4), 10), S(f32(3), -4, 4), S(np.zeros(6, np.uint8)),
                       E(i64(3), 3, 3)], call=method("random_"), **EXACT),
    OpInfo("bernoulli_", [S(f32(8), 0.3), S(f32(2, 3), np.array([0.1, 0.5, 0.9], np.float32)),
                          E(f32(2), 1.5)], call=method("bernoulli_"), **EXACT),
    OpInfo("exponential_", [S(f32(6)), S(np.zeros(5), 2.5), E(f32(2), 0.0), E(i64(2))],
           call=method("exponential_"), **ULP),
    OpInfo("cauchy_", [S(f32(6)), S(np.zeros(5), 1.0, 0.5), E(np.zeros(2, np.int32))],
           call=method("cauchy_"), **ULP),
    OpInfo("log_normal_", [S(f32(6)), S(np.zeros(5), 0.0, 0.5), E(f32(2), 1.0, 0.0)],
           call=method("log_normal_"), **ULP),
    OpInfo("geometric_", [S(f32(6), 0.3), S(np.zeros(5, np.int32), 0.7), E(f32(2), 1.0)],
           call=method("geometric_"), **EXACT),
    # torch's gamma sampler (Marsaglia-Tsang on torch's stream) behind Gamma/Dirichlet/Beta; seeded here
    OpInfo("_standard_gamma", [S(np.array([0.5, 1.0, 3.0, 20.0], np.float32)), S(np.array([[0.1, 2.5]], np.float64))],
           call=lambda T, a: (T.manual_seed(3), T._standard_gamma(a))[1], method=False, **EXACT),
    OpInfo("_sample_dirichlet", [S(np.array([[0.5, 1.0, 3.0], [2.0, 2.0, 0.2]], np.float32))],
           call=lambda T, a: (T.manual_seed(4), T._sample_dirichlet(a))[1], method=False, grad=False, rtol=1e-6,
           atol=1e-7),
]
