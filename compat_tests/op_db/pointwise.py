"""Samples for the pointwise family (mstorch/ops/pointwise.py): arithmetic, unary math, comparisons,
logical and bitwise ops. Each binary op sees broadcasting, Python scalars on either side, integer and
bool tensors (type promotion), 0-dim tensors, float64, float16, and the inputs torch rejects."""
import numpy as np

from harness import rand, positive
from .common import OpInfo, S, E

nan, inf = float("nan"), float("inf")

A = rand(2, 3)                                   # float32
B = rand(2, 3, seed=1)
ROW = rand(3, seed=2)                            # broadcasts against (2, 3)
COL = rand(2, 1, seed=3)
P = positive(2, 3)
PB = positive(2, 3, seed=1)
PROW = positive(3, seed=2)
D64 = rand(2, 3, dtype="float64", seed=4)
D64B = rand(2, 3, dtype="float64", seed=5)
H = rand(2, 3, dtype="float16", seed=6)
HB = rand(2, 3, dtype="float16", seed=7)
PH = positive(2, 3, dtype="float16", seed=8)
I = rand(2, 3, dtype="int64")                    # ints in [-5, 5]
IB = rand(2, 3, dtype="int64", seed=1)
NZ = np.array([[1, -2, 3], [4, -5, 2]], dtype=np.int64)   # nonzero divisors
NZ32 = NZ.astype(np.int32)
I32 = rand(2, 3, dtype="int32", seed=2)
U8 = rand(2, 3, dtype="uint8", low=3, high=5)    # 0..8
I8 = rand(2, 3, dtype="int8", seed=3)
I16 = rand(2, 3, dtype="int16", seed=4)
BO = rand(2, 3, dtype="bool")
BOB = rand(2, 3, dtype="bool", seed=9)
Z64 = np.array(1.5)                              # 0-dim float64
ZI = np.array(3)                                 # 0-dim int64
ZF = np.array(-0.75, dtype=np.float32)           # 0-dim float32
SPECIAL = np.array([1.0, nan, inf, -inf, 0.0, -2.5], dtype=np.float32)
SPECIAL2 = np.array([nan, 2.0, inf, 1.0, -0.0, nan], dtype=np.float32)
UNIT = rand(2, 3, low=-0.9, high=0.9, seed=10)   # inside (-1, 1)
GT1 = rand(2, 3, low=1.1, high=4.0, seed=11)
HALVES = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49, -3.7], dtype=np.float32)
EMPTY = np.zeros((0, 3), dtype=np.float32)


def _arith(extra=(), ints=True, bools=S, int_results=True):
    """The promotion grid every arithmetic binary op shares (``bools=E`` where the op rejects bool operands;
    ``int_results=False`` where integer operands give a float result, which the in-place form cannot
    write into an integer receiver). The in-place form also refuses a result larger than its receiver
    (broadcast, 0-dim receiver) or of a wider dtype (int receiver, float other)."""
    def on_int(*args):
        return S(*args) if int_results else S(*args).rejects("inplace")
    samples = [
        S(A, B), S(A, ROW), S(COL, ROW).rejects("inplace"), S(A, 2.5), S(A, 2), bools(A, True), S(A, ZF), S(A, Z64),
        S(D64, D64B), S(D64, A), S(H, HB), S(H, 2.5), S(H, A), S(EMPTY, ROW),
    ]
    if ints:
        samples += [on_int(I, NZ), on_int(I, 2), S(I, 2.5).rejects("inplace"), S(I, Z64).rejects("inplace"),
                    on_int(I, ZI), S(ZI, I).rejects("inplace"), on_int(U8, I8), on_int(I32, NZ), on_int(I16, U8),
                    bools(BO, NZ).rejects("inplace"), (bools if int_results else on_int)(I, True), on_int(NZ32, 3)]
    return samples + list(extra)


_UNARY_DOMAIN = {
    "log": P, "log2": P, "log10": P, "log1p": P, "sqrt": P, "rsqrt": P,
    "asin": UNIT, "acos": UNIT, "atanh": UNIT, "erfinv": UNIT, "acosh": GT1,
}
_UNARY_RTOL = {}
# tanh over its whole float32 range (MindSpore's kernel is 1e-4 off on 2 < |x| < 9; mstorch's composition is
# within 4 ulps): compared at 1e-6, which the kernel alone fails
TANH_RANGE = np.concatenate([np.linspace(-12, 12, 97), [1e-7, -3e-5, 1.999, 2.0, 2.001, nan, inf, -inf]]).astype(np.float32)
_UNARY_FLOAT = ["exp", "log", "sqrt", "rsqrt", "sin", "cos", "tan", "tanh", "sigmoid", "log1p", "expm1",
                "log2", "log10", "erf", "erfc", "erfinv", "sinh", "cosh", "asin", "acos", "atan", "asinh",
                "acosh", "atanh", "exp2"]


def _unary(name):
    x = _UNARY_DOMAIN.get(name, A)
    ints = NZ if name not in ("acosh", "asin", "acos", "atanh", "erfinv", "log", "log2", "log10", "sqrt",
                              "rsqrt", "log1p") else np.abs(NZ)
    if name in ("asin", "acos", "atanh", "erfinv"):
        ints = np.array([[0, 1], [-1, 0]], dtype=np.int64)
    # integer and bool inputs give a float result the in-place form cannot write back
    return [OpInfo(name, samples=[S(x), S(x.astype(np.float64)), S(ints).rejects("inplace"), S(BO).rejects("inplace"),
                                  S(np.array(0.5, dtype=np.float32))],
                   rtol=_UNARY_RTOL.get(name, 2e-5), atol=1e-5),
            # gradients at inf/NaN/out-of-domain points are not compared (torch's formulas give
            # values there that mean nothing)
            OpInfo(name, samples=[S(SPECIAL)], grad=False,
                   rtol=_UNARY_RTOL.get(name, 2e-5), atol=1e-5),
            OpInfo(name, samples=[S(x.astype(np.float16))], rtol=2e-3, atol=2e-3)]


OPS = [
    # --- arithmetic ----------------------------------------------------------------------------
    OpInfo("add", samples=_arith([
        S(A, B, alpha=2), S(A, B, alpha=-0.5), S(I, NZ, alpha=3), S(BO, BOB), S(BO, True), S(BO, 2).rejects("inplace"),
        S(BO, BOB, alpha=True), S(BO, BOB, alpha=2), S(BO, BOB, alpha=0), S(2, A), S(2.5, I), S(True, BO),
        S(U8, 250), E(I, NZ, alpha=2.5), E(A, rand(3, 2)), S(2, 3), S(2.5, 1), E(A, B, alpha=True), E(I, NZ, alpha=1.0), E(A, "x"),
    ])),
    OpInfo("add", call=lambda T, a, b: a + b, samples=[S(A, B), S(I, 2.5), S(BO, BOB), S(H, 1)]),
    OpInfo("add", call=lambda T, a, b: b + a, samples=[S(A, 2), S(I, 2.5), S(BO, True), S(I, ZF)]),
    OpInfo("sub", samples=_arith([
        S(A, B, alpha=2), S(I, NZ, alpha=-2), S(2, A), S(2.5, I),
        E(BO, BOB), E(BO, True), E(I, NZ, alpha=0.5), E(A, rand(3, 2)),
    ], bools=E)),
    OpInfo("sub", call=lambda T, a, b: b - a, samples=[S(A, 2), S(I, 2.5), S(I, 3), E(BO, True)]),
    OpInfo("rsub", samples=[S(A, B), S(A, 2.5), S(I, 2), S(I, 2.5), S(A, B, alpha=2), S(U8, I8), E(BO, BOB)]),
    OpInfo("mul", samples=_arith([
        S(BO, BOB), S(BO, True), S(BO, 2.5).rejects("inplace"), S(2, A), S(2.5, I), S(True, BO), S(U8, 200),
        E(A, rand(3, 2)),
    ])),
    OpInfo("mul", call=lambda T, a, b: b * a, samples=[S(A, 2), S(I, 2.5), S(BO, True)]),
    OpInfo("div", samples=_arith([
        S(I, NZ, rounding_mode="trunc"), S(I, NZ, rounding_mode="floor"), S(A, B, rounding_mode="trunc"),
        S(A, B, rounding_mode="floor"), S(I, 2.5, rounding_mode="floor").rejects("inplace"), S(D64, 0.3, rounding_mode="trunc"),
        S(I, -2, rounding_mode="floor"), S(I32, NZ32, rounding_mode="floor"), S(U8, 3, rounding_mode="trunc"),
        S(BO, BOB).rejects("inplace"), S(A, 0.0), S(2, A), S(3, NZ), S(H, HB, rounding_mode="floor"),
        S(np.array([1.0, -1.0, 7.5, -7.5, 0.0, 5.0, 0.3], np.float32),
          np.array([0.1, 0.1, -2.0, 2.0, -3.0, 0.0, 0.1], np.float32), rounding_mode="floor"),
        E(BO, BOB, rounding_mode="floor"), E(BO, BOB, rounding_mode="trunc"),
        E(A, B, rounding_mode="round"), E(I, np.zeros((2, 3), np.int64), rounding_mode="floor"),
        E(I, 0, rounding_mode="trunc"),
    ], int_results=False)),
    OpInfo("div", call=lambda T, a, b: b / a, samples=[S(P, 2), S(NZ, 3), S(NZ, 2.5)]),
    OpInfo("true_divide", samples=[S(A, B), S(I, NZ).rejects("inplace"), S(I, 2).rejects("inplace"), S(A, 2.5),
                                   S(U8, I8).rejects("inplace"), S(H, 2), S(D64, A)]),
    OpInfo("floor_divide", samples=[
        S(A, B), S(I, NZ), S(I, 2), S(I, -2), S(A, 2.5), S(I, 2.5).rejects("inplace"), S(U8, I8 * 0 + 3), S(D64, A), S(H, HB),
        S(A, ROW), E(I, 0), E(BO, BOB),
    ], grad=False),
    OpInfo("floor_divide", call=lambda T, a, b: a // b, samples=[S(NZ, 2), S(A, 0.7)], grad=False),
    OpInfo("remainder", samples=[
        S(A, B), S(I, NZ), S(I, 3), S(I, -3), S(A, 1.5), S(A, -1.5), S(I, 2.5).rejects("inplace"), S(U8, I8 * 0 + 3), S(D64, A),
        S(H, PH), S(A, ROW), S(5, NZ), S(I32, NZ32), S(np.array([1.0, -1.0, 7.5, -7.5, 5.0, 0.3], np.float32), np.array([0.1, 0.1, -2.0, 2.0, -3.0, 0.1], np.float32)),
        E(I, 0), E(I, np.array([1, 0, 2])), E(BO, BOB),
    ], rtol=1e-4, atol=1e-5),
    OpInfo("remainder", samples=[S(-7.5, A), S(SPECIAL, SPECIAL2)], grad=False),
    OpInfo("remainder", call=lambda T, a, b: a % b, samples=[S(NZ, 3), S(A, 0.7), S(NZ, -2.5)],
           rtol=1e-4, atol=1e-5),
    OpInfo("fmod", samples=[S(np.array([1.0, -1.0, 7.5, -7.5, 5.0, 0.3], np.float32),
                              np.array([0.1, 0.1, -2.0, 2.0, -3.0, 0.1], np.float32)), S(SPECIAL, SPECIAL2)],
           grad=False),
    OpInfo("fmod", samples=[
        S(A, B), S(I, NZ), S(I, 3), S(I, -3), S(A, 1.5), S(A, -1.5), S(I, 2.5).rejects("inplace"), S(D64, A), S(H, PH),
        S(A, ROW), S(I32, NZ32), S(I8, np.int8(3) + I8 * 0), E(I, 0), E(2, A), E(BO, BOB),
    ], rtol=1e-4, atol=1e-5),
    OpInfo("pow", samples=[
        S(P, B), S(P, 2), S(P, 3), S(P, 0.5), S(P, -1.5), S(P, 1), S(P, 0), S(A, 2), S(A, 3),
        S(I, 2), S(I, 3), S(I, 0), S(NZ, 2.5).rejects("inplace"), S(I, Z64).rejects("inplace"), S(U8, 2),
        S(BO, 2).rejects("inplace"), E(BO, BOB), S(P, ROW),
        S(D64 * D64, 0.5), S(PH, 2), S(PH, 0.5), S(P, PROW), S(2, A), S(2.5, I), S(2, I * 0 + 3), S(A, -2),
        S(I, np.array([[0, 1, 2], [3, 1, 0]])), S(P, ZF), S(A, True),
        S(np.array([[1, -1, 2], [-1, 0, 3]]), np.array([[-1, -3, -2], [-2, 1, 2]])),
        E(I, -1), E(A, rand(3, 2)), E(BO, BOB), E(2, 3),
    ], rtol=2e-5, atol=1e-5),
    # x ** 0.5 and x ** -0.5 are sqrt / rsqrt in torch: NaN at -inf (found by tools/fuzz.py)
    OpInfo("pow", samples=[S(SPECIAL, 0.5), S(SPECIAL, -0.5), S(SPECIAL.astype(np.float64), 0.5)], grad=False),
    OpInfo("pow", call=lambda T, a, b: a ** b, samples=[S(P, 2), S(NZ, 2), S(P, PB)]),
    OpInfo("pow", call=lambda T, a, b: b ** a, samples=[S(A, 2), S(NZ * 0 + 2, 3), S(A, 1.5)],
           rtol=2e-5, atol=1e-5),
    OpInfo("float_power", samples=[
        S(P, B), S(P, 2), S(I, 2), S(NZ, 0.5), S(P, 1.5), S(H.astype(np.float16) ** 2, 2), S(2, A),
        S(BO, 2), S(I, -1), S(P, ROW),
    ], rtol=1e-5, atol=1e-6),
    OpInfo("neg", samples=[S(A), S(I), S(U8), S(D64), S(H), S(ZF), S(EMPTY), E(BO)]),
    OpInfo("neg", call=lambda T, a: -a, samples=[S(A), S(I), E(BO)]),
    OpInfo("abs", samples=[S(A), S(I), S(U8), S(I8), S(D64), S(H), E(BO), S(SPECIAL)]),
    OpInfo("sign", samples=[S(A), S(I), S(U8), S(I8), S(I16), S(I32), S(D64), S(H), S(BO), S(SPECIAL)]),
    OpInfo("reciprocal", samples=[S(A), S(I).rejects("inplace"), S(BO).rejects("inplace"), S(D64), S(H), S(SPECIAL),
                                  S(U8).rejects("inplace")], rtol=1e-4,
           atol=1e-5),
    OpInfo("square", samples=[S(A), S(I), S(U8), S(BO).rejects("inplace"), S(D64), S(H), S(I32)]),
    *[op for name in _UNARY_FLOAT for op in _unary(name)],
    OpInfo("tanh", samples=[S(TANH_RANGE), S(TANH_RANGE.reshape(15, 7) * 0.7)], grad=False, rtol=1e-6, atol=1e-7),
    OpInfo("tanh", samples=[S(TANH_RANGE[:97])], rtol=1e-6, atol=1e-6),
    OpInfo("floor", samples=[S(A), S(I), S(D64), S(H), S(HALVES), S(SPECIAL), S(U8), E(BO)]),
    OpInfo("ceil", samples=[S(A), S(I), S(D64), S(H), S(HALVES), S(SPECIAL), S(U8), E(BO)]),
    OpInfo("trunc", samples=[S(A), S(I), S(D64), S(H), S(HALVES), S(SPECIAL), S(U8), E(BO)]),
    OpInfo("round", samples=[
        S(A), S(I), S(D64), S(H), S(HALVES), S(SPECIAL), S(A * 100, decimals=1), S(A, decimals=2),
        S(A * 100, decimals=-1), S(D64 * 1000, decimals=-2), S(D64, decimals=3), S(HALVES, decimals=0),
        E(I, decimals=1), E(BO),
    ]),
    OpInfo("frac", samples=[S(A), S(D64), S(H), S(HALVES), S(SPECIAL), E(I), E(BO)]),
    # --- clamp / min-max ---------------------------------------------------------------------------
    OpInfo("clamp", samples=[
        S(A, -0.5, 0.5), S(A, -0.5), S(A, None, 0.5), S(A, max=0.3), S(A, min=1, max=-1), S(I, -1, 2),
        S(I, 0.5).rejects("inplace"), S(I, -1.5, 2.5).rejects("inplace"), S(BO, 0).rejects("inplace"), S(D64, -0.5, 0.5), S(H, -0.5, 0.5), S(P, 1, 2), S(P, min=P),
        E(A, ROW, 1.0), S(A, ROW, ROW + 0.5), S(A, None, COL), S(I, np.array(0.5, np.float32)).rejects("inplace"),
        S(A, np.array(0.0)), S(I, ZI), E(A), E(A, None, None), E(A, "x"),
    ]),
    *[OpInfo(name, samples=[S(A, 0.0), S(I, 1), S(I, 0.5).rejects("inplace"), S(A, ROW), S(H, 0.1)])
      for name in ("clamp_min", "clamp_max")],
    # NaN inputs: values compared; torch's gradient there is 0, a select's is the incoming gradient
    OpInfo("clamp", samples=[S(SPECIAL, -1, 1), S(SPECIAL, SPECIAL2)], grad=False),
    OpInfo("clamp_min", samples=[S(SPECIAL, 0.0)], grad=False),
    OpInfo("clamp_max", samples=[S(SPECIAL, 0.0)], grad=False),
    OpInfo("maximum", samples=[
        S(A, B), S(A, ROW), S(A, A), S(I, NZ), S(I, A), S(U8, I8), S(BO, BOB), S(D64, A),
        S(H, HB), S(A, ZF), S(I, Z64), E(A, 2), E(A, rand(3, 2)), E(2.0, A),
    ]),
    OpInfo("maximum", samples=[S(SPECIAL, SPECIAL2), S(SPECIAL2, SPECIAL)], grad=False),
    OpInfo("minimum", samples=[S(SPECIAL, SPECIAL2), S(SPECIAL2, SPECIAL)], grad=False),
    OpInfo("minimum", samples=[
        S(A, B), S(A, ROW), S(A, A), S(I, NZ), S(I, A), S(U8, I8), S(BO, BOB), S(D64, A),
        S(H, HB), S(A, ZF), S(I, Z64), E(A, 2), E(A, rand(3, 2)),
    ]),
    OpInfo("atan2", samples=[
        S(A, B), S(A, ROW), *[S(*a).rejects("inplace") for a in ((I, NZ), (I, A))], S(D64, A),
        S(BO, BOB).rejects("inplace"), S(A, ZF), S(I, Z64).rejects("inplace"), E(A, 2.0), E(A, rand(3, 2)),
    ]),
    OpInfo("atan2", samples=[S(H, HB)], rtol=2e-3, atol=2e-3),
    OpInfo("atan2", samples=[S(SPECIAL, SPECIAL2)], grad=False),
    OpInfo("div", samples=[S(SPECIAL, SPECIAL2), S(SPECIAL, SPECIAL2, rounding_mode="floor"),
                           S(SPECIAL, SPECIAL2, rounding_mode="trunc")], grad=False),
    OpInfo("hypot", samples=[
        S(A, B), S(A, ROW), S(D64, A), S(A, ZF), S(SPECIAL, SPECIAL2), S(A, I), E(I, NZ), E(A, 2.0), E(BO, BOB),
    ]),
    OpInfo("hypot", samples=[S(H, HB)], rtol=2e-3, atol=2e-3),
    # squares that overflow or underflow, inf beside NaN (tools/fuzz.py)
    OpInfo("hypot", samples=[S(np.array([0.1, -3.4e38, 1e-30, 3.0, inf, 0.0, 2e25], np.float32),
                               np.array([inf, -0.4, 1e-30, 4.0, nan, 0.0, -1e25], np.float32)),
                             S(np.array([3e200, 1e-200, 2.0]), np.array([4e200, 1e-200, 1e-300]))]),
    OpInfo("lerp", samples=[
        S(A, B, 0.3), S(A, B, ROW), S(A, ROW, 0.7), S(COL, ROW, 0.25).rejects("inplace"), S(D64, D64B, 0.5), S(A, B, 2),
        S(A, B, ZF), S(A, B, np.full((2, 3), 0.9, np.float32)), S(A, B, 1.0), S(A, B, 0.0), E(I, NZ, 0.5),
        E(A, D64, 0.5), E(A, B, D64),
    ]),
    OpInfo("addcmul", samples=[
        S(A, B, ROW), S(A, B, ROW, value=0.5), S(A, COL, ROW, value=-2), S(I, NZ, I, value=2), S(D64, D64B, D64),
        S(A, B, ZF), S(ROW, COL, ROW).rejects("inplace"), S(I, NZ, I, value=0.5), S(A, I, B),
        E(A, B, rand(3, 2)),
    ]),
    # torch computes half-precision pointwise math in float32 and rounds once
    OpInfo("addcmul", samples=[S(H, HB, H, value=0.5)], rtol=2e-3, atol=2e-3),
    OpInfo("lerp", samples=[S(H, HB, 0.5), S(H, HB, HB)], rtol=2e-3, atol=2e-3),
    OpInfo("addcdiv", samples=[
        S(A, B, P), S(A, B, P, value=0.5), S(A, COL, PROW, value=-2), S(D64, D64B, D64 + 3),
        S(A, B, ZF), S(ROW, COL, PROW).rejects("inplace"), S(I.astype(np.float32), I, NZ.astype(np.float32)),
        E(I, NZ, NZ), E(A, NZ, NZ), E(A, B, rand(3, 2)),
    ], rtol=1e-4, atol=1e-5),
    OpInfo("logaddexp", samples=[
        S(A, B), S(A, ROW), S(D64, A), S(A * 40, B * 40), S(A, ZF), E(I, NZ), E(A, 2.0),
    ]),
    OpInfo("logaddexp", samples=[S(SPECIAL, SPECIAL2), S(np.array([inf, -inf, inf, 3.0]), np.array([inf, -inf, -inf, 3.0]))],
           grad=False),
    OpInfo("logaddexp", samples=[S(H, HB)], rtol=2e-3, atol=2e-3),
    OpInfo("nan_to_num", samples=[
        S(SPECIAL), S(SPECIAL, 1.5), S(SPECIAL, 0.0, 100.0, -100.0), S(SPECIAL, neginf=-7.0),
        S(SPECIAL.astype(np.float64)), S(SPECIAL.astype(np.float64), 2.0, 3.0, -3.0), S(SPECIAL.astype(np.float16)),
        S(I), S(BO), S(A),
    ]),
    # --- comparisons ---------------------------------------------------------------------------------
    *[OpInfo(name, samples=[
        S(A, B), S(A, ROW), S(COL, ROW).rejects("inplace"), S(A, 0.5), S(I, 2), S(I, 1.5), S(I, NZ), S(I, A), S(BO, BOB),
        S(BO, True), S(U8, I8), S(SPECIAL, SPECIAL2), S(SPECIAL, nan), S(D64, A), S(H, HB), S(A, Z64), S(I, ZF),
        S(H, 0.1), E(A, rand(3, 2)), E(2, A),
    ]) for name in ("eq", "lt")],
    *[OpInfo(name, samples=[S(A, B), S(A, ROW), S(I, 1.5), S(I, A), S(BO, BOB), S(SPECIAL, SPECIAL2), S(H, 0.1),
                            S(A, Z64), E(2, A)]) for name in ("ne", "le", "gt", "ge")],
    OpInfo("eq", call=lambda T, a, b: a == b, samples=[S(A, B), S(I, 2), S(NZ, NZ)]),
    OpInfo("lt", call=lambda T, a, b: b < a, samples=[S(A, 0.5), S(I, 2)]),
    OpInfo("equal", samples=[
        S(A, A), S(A, B), S(A, A[:1]), S(I, I), S(I, I.astype(np.float32)), S(SPECIAL, SPECIAL), S(BO, BO),
        S(EMPTY, EMPTY), S(ZF, ZF),
    ], grad=False),
    # --- logical and bitwise -----------------------------------------------------------------------
    *[OpInfo(name, samples=[
        S(A, B), S(A, ROW), S(I, NZ), S(BO, BOB), S(BO, I), S(SPECIAL, SPECIAL2), S(U8, A), S(A, ZF),
        S(I, Z64), E(I, 2), E(A, rand(3, 2)),
    ]) for name in ("logical_and", "logical_or", "logical_xor")],
    OpInfo("logical_not", samples=[S(A), S(I), S(BO), S(SPECIAL), S(U8), S(H), S(EMPTY)]),
    *[OpInfo(name, samples=[
        S(I, NZ), S(I, 3), S(I, -2), S(U8, I8), S(BO, BOB), S(BO, True), S(BO, I).rejects("inplace"), S(I32, NZ32), S(U8, 7),
        S(I8, I16), S(3, I), S(I, ZI), S(I, True), E(A, B), E(I, 2.5), E(A, 1), E(I, rand(3, 2, dtype="int64")),
    ]) for name in ("bitwise_and", "bitwise_or", "bitwise_xor")],
    OpInfo("bitwise_and", call=lambda T, a, b: a & b, samples=[S(I, NZ), S(BO, BOB), S(I, 6)]),
    OpInfo("bitwise_or", call=lambda T, a, b: b | a, samples=[S(I, 6), S(BO, True)]),
    OpInfo("bitwise_xor", call=lambda T, a, b: a ^ b, samples=[S(BO, BOB), S(U8, 5)]),
    OpInfo("bitwise_not", samples=[S(I), S(U8), S(I8), S(BO), S(I32), E(A), E(D64)]),
    OpInfo("bitwise_not", call=lambda T, a: ~a, samples=[S(I), S(BO), E(A)]),
    OpInfo("isnan", samples=[S(SPECIAL), S(SPECIAL.astype(np.float64)), S(SPECIAL.astype(np.float16)), S(I),
                             S(BO), S(EMPTY)]),
    OpInfo("isinf", samples=[S(SPECIAL), S(SPECIAL.astype(np.float64)), S(SPECIAL.astype(np.float16)), S(I),
                             S(BO), S(U8)]),
    OpInfo("isfinite", samples=[S(SPECIAL), S(SPECIAL.astype(np.float64)), S(SPECIAL.astype(np.float16)),
                                S(I), S(BO)]),
    OpInfo("isclose", samples=[
        S(A, A + 1e-6), S(A, B), S(A, ROW), S(A, A + 1e-3, rtol=1e-2), S(A, A + 1e-3, atol=1e-2),
        S(SPECIAL, SPECIAL2), S(SPECIAL, SPECIAL2, equal_nan=True), S(I, NZ), S(I, I), S(D64, D64 * (1 + 1e-7)),
        S(BO, BOB), S(SPECIAL, SPECIAL), S(I, I, rtol=0.5, atol=1), S(I, NZ, rtol=0.5, atol=1), S(BO, BOB, atol=1),
        S(A, B, rtol=0, atol=0), E(A, 0.5), E(I, A), E(A, D64), E(A, rand(3, 2)),
        E(A, B, rtol=-1.0),
    ]),
    OpInfo("allclose", samples=[
        S(A, A + 1e-6), S(A, B), S(A, A + 1e-3, rtol=1e-2), S(SPECIAL, SPECIAL), S(SPECIAL, SPECIAL, equal_nan=True),
        S(I, I), S(A, ROW), E(I, A), E(A, rand(3, 2)),
    ], grad=False),
]

# --- ops added with this family: sign/complex basics, special functions, integer ops ----------------
CPLX = np.array([1 + 2j, -3 - 1j, 0j, 0.5 - 0.5j], dtype=np.complex64)
NEG0 = np.array([-0.0, 0.0, -1.5, 2.0, -inf, nan], dtype=np.float32)
GAMMA = np.array([[0.5, 1.0, 2.5], [-0.5, 3.7, 10.0]], dtype=np.float32)
SH = np.array([[0, 1, 2], [3, 7, 1]], dtype=np.int64)

OPS += [
    OpInfo("float_power_", samples=[S(D64, 2), S(D64, D64B * 0 + 0.5), S(np.abs(D64), 1.5), E(P, 2), E(I, 2)],
           grad=False),
    OpInfo("positive", samples=[S(A), S(I), E(BO)]),
    # torch's gradient of sgn on real tensors is a ZeroTensor, which has no host copy to compare
    OpInfo("sgn", samples=[S(A), S(I), S(BO), S(SPECIAL), S(CPLX)], grad=False),
    OpInfo("abs", samples=[S(CPLX).rejects("inplace"), S(CPLX.astype(np.complex128)).rejects("inplace")]),   # a float magnitude; abs_ refuses
    OpInfo("signbit", samples=[S(NEG0), S(I), S(U8), S(BO), S(D64), S(H)]),
    OpInfo("copysign", samples=[S(A, B), S(A, ROW), S(A, -1.0), S(I, NZ).rejects("inplace"), S(I, -2).rejects("inplace"),
                                S(D64, A), S(A, ZF),
                                E(A, NEG0), E(2, A)]),
    OpInfo("copysign", samples=[S(NEG0, NEG0[::-1].copy()), S(NEG0, -0.0)], grad=False),
    OpInfo("xlogy", samples=[S(np.array([0.0, 0.0, 2.0, 1.0], np.float32), np.array([nan, 0.0, 3.0, inf], np.float32))],
           grad=False),
    OpInfo("xlogy", samples=[S(A, P), S(P, PROW), S(I, P).rejects("inplace"), S(2, P), S(P, 2.5),
                             S(NZ, np.abs(NZ)).rejects("inplace"), S(D64, np.abs(D64B)), E(2, 3)]),
    OpInfo("heaviside", samples=[S(np.array([-1.0, 0.0, 2.0, 0.0], np.float32), np.array(0.5, np.float32)),
                                 S(NEG0, np.full_like(NEG0, 0.25)), S(I, NZ), E(A, 0.5), E(A, D64)], grad=False),
    OpInfo("deg2rad", samples=[S(A * 100), S(D64), S(I).rejects("inplace"), S(BO).rejects("inplace")]),
    OpInfo("rad2deg", samples=[S(A), S(D64), S(I).rejects("inplace")]),
    OpInfo("sinc", samples=[S(A), S(np.array([0.0, 0.5, 1.0, -2.5], np.float32)), S(D64), S(I).rejects("inplace")], rtol=1e-4,
           atol=1e-5),
    OpInfo("logit", samples=[S(np.array([0.2, 0.5, 0.9], np.float32)), S(np.array([0.0, 0.05, 1.0], np.float32), 0.1),
                             S(np.array([0.2, 0.7]), 1e-6), S(np.array([0, 1])).rejects("inplace")], rtol=1e-4, atol=1e-5),
    OpInfo("digamma", samples=[S(GAMMA), S(GAMMA.astype(np.float64)), S(np.array([1, 2, 5])).rejects("inplace")], rtol=1e-4,
           atol=1e-5),
    OpInfo("digamma", samples=[S(np.array([0.0, -1.0, -2.5], np.float32))], grad=False, rtol=1e-4, atol=1e-5),
    OpInfo("lgamma", samples=[S(GAMMA), S(GAMMA.astype(np.float64)), S(np.array([1, 2, 5])).rejects("inplace"),
                              S(np.array([-2.5, 0.0, -1.0], np.float32))], rtol=1e-4, atol=1e-5),
    OpInfo("i0", samples=[S(A), S(D64), S(np.array([0, 1, -3])).rejects("inplace")], rtol=1e-4, atol=1e-5),
    OpInfo("polygamma", call=lambda T, n, x: T.polygamma(n, x),
           samples=[S(0, np.abs(GAMMA) + 0.5), S(1, np.abs(GAMMA) + 0.5), S(2, np.abs(GAMMA) + 0.5), E(-1, P)],
           rtol=1e-4, atol=1e-5),
    OpInfo("polygamma", call=lambda T, x, n: x.polygamma(n), samples=[S(P, 1), S(P, 0)], rtol=1e-4, atol=1e-5),
    OpInfo("mvlgamma", samples=[S(GAMMA[:, 1:] + 1.5, 2), S(np.array([2.5, 4.0]), 3), S(P + 2, 1),
                                S(np.array([0.2, 3.0], np.float32), 2), E(P, 0)], rtol=1e-4, atol=1e-5),
    OpInfo("mvlgamma_", function=False, grad=False, inplace=False,
           samples=[S(GAMMA[:, 1:] + 1.5, 2), S(np.array([2.5, 4.0]), 3), E(P, 0), E(np.array([1, 2]), 1)],
           rtol=1e-4, atol=1e-5),
    OpInfo("angle", samples=[S(A), S(SPECIAL), S(I), S(CPLX), S(D64)], grad=False),
    OpInfo("logaddexp2", samples=[S(A, B), S(A, ROW), S(D64, A), S(A * 40, B * 40), E(I, NZ), E(A, 2.0)]),
    OpInfo("logaddexp2", samples=[S(np.array([inf, -inf, inf, 3.0]), np.array([inf, -inf, -inf, 3.0]))],
           grad=False),
    OpInfo("fmax", samples=[S(A, B), S(A, ROW), S(I, NZ), S(I, A), S(BO, BOB), S(D64, A), E(A, 2.0)]),
    OpInfo("fmin", samples=[S(A, B), S(A, ROW), S(I, NZ), S(I, A), S(BO, BOB), S(D64, A), E(A, 2.0)]),
    OpInfo("fmax", samples=[S(SPECIAL, SPECIAL2), S(SPECIAL2, SPECIAL)], grad=False),
    OpInfo("fmin", samples=[S(SPECIAL, SPECIAL2), S(SPECIAL2, SPECIAL)], grad=False),
    # torch 2.13 computes ldexp's gradient as grad * 2**other in integers (0 for other < 0): only
    # non-negative exponents get their gradients compared
    OpInfo("ldexp", samples=[S(A, np.abs(I)), S(D64, SH), S(I, NZ).rejects("inplace"), E(A, 2)]),
    OpInfo("ldexp", samples=[S(A, I), S(A, NZ)], grad=False),
    OpInfo("frexp", samples=[S(A), E(I), E(lambda T: T.tensor([True]))]),
    # (torch's gradient of these extremes comes from its own exp2 of the exponent: values only)
    OpInfo("frexp", grad=False, samples=[
        S(D64), S(np.array([0.0, -0.0, 1.0, 0.75, -3.0, 3e38, 0.99999994, 2.0 ** -126, 1e30], np.float32)),
        S(np.array([np.inf, -np.inf, np.nan, 1e308, -2.0 ** -1000, 0.5], np.float64)),
        S(lambda T: T.tensor([1.5, -6e4, 2e-3], dtype=T.float16))]),
    *[OpInfo(name, samples=[
        S(np.array([12, -18, 0, 7, 0]), np.array([8, 12, 5, -21, 0])), S(I, NZ), S(I32, NZ32), S(U8, U8 + 3),
        S(I8, I8 * 0 + 6), S(I16, NZ.astype(np.int16)), S(I, ZI), E(A, B), E(BO, BOB), E(I, 2)])
      for name in ("gcd", "lcm")],
    *[OpInfo(name, samples=[
        S(I, SH), S(I, 2), S(U8, SH.astype(np.uint8)), S(I32, 3), S(I8, SH.astype(np.int8)), S(3, SH),
        S(np.array([1, -3, 5, -8]), np.array([70, 64, -1, 63])), S(np.array([-8, 8], np.int8), np.array([9, 8], np.int8)),
        E(A, 1), E(I, 1.5)]) for name in ("bitwise_left_shift", "bitwise_right_shift")],
    OpInfo("bitwise_left_shift", call=lambda T, a, b: a << b, samples=[S(I, SH), S(U8, 2)]),
    OpInfo("bitwise_right_shift", call=lambda T, a, b: a >> b, samples=[S(I, SH), S(NZ, 1)]),
    OpInfo("isposinf", samples=[S(SPECIAL), S(SPECIAL.astype(np.float64)), S(I), S(BO)]),
    OpInfo("isneginf", samples=[S(SPECIAL), S(SPECIAL.astype(np.float16)), S(I)]),
    OpInfo("isreal", samples=[S(A), S(I), S(CPLX)]),
    OpInfo("real", samples=[S(A), S(I), S(CPLX)], method=False),
    OpInfo("real", call=lambda T, x: x.real, samples=[S(A), S(CPLX)]),
    OpInfo("imag", samples=[S(CPLX), E(A)], method=False),
    OpInfo("imag", call=lambda T, x: x.imag, samples=[S(CPLX), E(A)]),
    OpInfo("conj", samples=[S(A), S(I)]),
    OpInfo("conj", call=lambda T, x: T.conj(x).resolve_conj(), samples=[S(CPLX)]),
    OpInfo("conj", call=lambda T, x: T.conj(x) is x, samples=[S(A)]),
    OpInfo("real", call=lambda T, x: T.real(x) is x, samples=[S(A)]),
    OpInfo("conj_physical", samples=[S(A), S(CPLX)]),
    OpInfo("resolve_conj", samples=[S(A), S(CPLX)]),
    OpInfo("resolve_neg", samples=[S(A)]),
    OpInfo("is_conj", samples=[S(A)]),
    OpInfo("is_neg", samples=[S(A)]),
    OpInfo("trunc", call=lambda T, x: T.fix(x), samples=[S(A), S(I)]),
    OpInfo("add", call=lambda T, x: T.positive(x) is x, samples=[S(A)]),
]

# torch.exp_(x) and friends: the in-place forms as top-level functions (their math is sampled above)
_INPLACE_FN = {
    "asin_": [S(UNIT)], "acos_": [S(UNIT)], "atanh_": [S(UNIT)], "acosh_": [S(GT1)], "logit_": [S(np.abs(UNIT))],
    "log_": [S(P)], "log2_": [S(P)], "log10_": [S(P)], "log1p_": [S(P)], "sqrt_": [S(P)], "rsqrt_": [S(P)],
    "xlogy_": [S(P, PB), S(P, 2.0)], "ldexp_": [S(A, SH)], "gcd_": [S(I, NZ)], "lcm_": [S(I, NZ)],
    "nan_to_num_": [S(SPECIAL), S(SPECIAL, 1.0, 2.0, -2.0)], "clamp_": [S(A, -0.5, 0.5), S(A, min=ROW)],
    "clamp_min_": [S(A, 0.0)], "clamp_max_": [S(A, 0.0)], "round_": [S(A * 10), S(A, decimals=1)],
    "neg_": [S(A), S(I), E(BO)], "abs_": [S(A), E(BO)], "exp_": [S(A), E(I), E(2.0)], "square_": [S(A), S(I)],
}
for _n in ("reciprocal_", "sin_", "cos_", "tan_", "tanh_", "sigmoid_", "expm1_", "erf_", "erfc_", "sinh_", "cosh_",
           "atan_", "asinh_", "exp2_", "deg2rad_", "rad2deg_", "i0_", "sinc_", "floor_", "ceil_", "trunc_", "frac_",
           "conj_physical_"):
    _INPLACE_FN.setdefault(_n, [S(A)])
OPS += [OpInfo(n, samples=s, grad=False, method=False) for n, s in _INPLACE_FN.items()]
OPS += [OpInfo(n, samples=[S(UNIT)], grad=False, method=False, call=lambda T, x, _a=alias: getattr(T, _a)(x))
        for n, alias in (("neg_", "negative_"), ("asin_", "arcsin_"), ("acos_", "arccos_"), ("atan_", "arctan_"),
                         ("asinh_", "arcsinh_"), ("atanh_", "arctanh_"), ("trunc_", "fix_"))]
OPS += [OpInfo("clamp_", samples=[S(A, -0.5, 0.5)], grad=False, method=False, call=lambda T, x, a, b: T.clip_(x, a, b)),
        OpInfo("acosh_", samples=[S(GT1)], grad=False, method=False, call=lambda T, x: T.arccosh_(x))]


# bfloat16: MindSpore's CPU kernels lack it (Add/Mul/Div aside); mstorch computes in float32 and rounds once
def _bf16(arr):
    return lambda T: T.tensor(arr).to(T.bfloat16)


# one bfloat16 ulp (2**-7 relative) where a float32 result is rounded once (the float32 kernels may differ
# in their last bit, which can move the rounding); ops that only compare, select or move bits are exact
BF16_ULP = dict(rtol=2 ** -7, atol=0)
EXACT = dict(rtol=0, atol=0)
_BF_UNARY = {n: _UNARY_DOMAIN.get(n, A) for n in _UNARY_FLOAT}
OPS += [OpInfo(n, samples=[S(_bf16(x))], grad=False, **BF16_ULP) for n, x in _BF_UNARY.items()]
OPS += [OpInfo(n, samples=[S(_bf16(A))], grad=False, **EXACT)
        for n in ("abs", "neg", "sign", "floor", "ceil", "round", "trunc", "isnan", "isfinite", "nan_to_num", "sgn",
                  "signbit", "logical_not")]
OPS += [OpInfo(n, samples=[S(_bf16(A))], grad=False, **BF16_ULP) for n in ("frac", "reciprocal", "square", "deg2rad")]
_BF_EXACT_BINARY = ("maximum", "minimum", "eq", "lt", "ge", "fmax", "copysign", "logical_and")
_TENSOR_OTHER = ("maximum", "minimum", "atan2", "fmax", "hypot", "logaddexp", "logical_and")   # no Number `other`
OPS += [OpInfo(n, samples=[S(_bf16(A), _bf16(B)), (E if n in _TENSOR_OTHER else S)(_bf16(A), 2.5), S(_bf16(A), B),
                           S(_bf16(A), np.array(0.5))],
               grad=False, **(EXACT if n in _BF_EXACT_BINARY else BF16_ULP))
        for n in ("add", "sub", "mul", "div", "remainder", "fmod", "maximum", "minimum", "atan2", "eq", "lt", "ge",
                  "fmax", "copysign", "hypot", "logaddexp", "floor_divide", "logical_and")
]
OPS += [
    OpInfo("pow", samples=[S(_bf16(P), 2), S(_bf16(P), 0.5), S(_bf16(P), _bf16(B))], grad=False, **BF16_ULP),
    OpInfo("clamp", samples=[S(_bf16(A), -0.5, 0.5), S(_bf16(A), _bf16(ROW))], grad=False, **EXACT),
    OpInfo("lerp", samples=[S(_bf16(A), _bf16(B), 0.3)], grad=False, **BF16_ULP),
    OpInfo("addcmul", samples=[S(_bf16(A), _bf16(B), _bf16(A), value=0.5)], grad=False, **BF16_ULP),
    OpInfo("div", samples=[S(_bf16(A), _bf16(B), rounding_mode="floor"), S(_bf16(A), 0.7, rounding_mode="trunc")],
           grad=False, **BF16_ULP),
    OpInfo("isclose", samples=[S(_bf16(A), _bf16(B), atol=0.5)], grad=False),
]
# nextafter: one ulp, so only exact values can tell it from its input (float16, bfloat16: NumPy's float16 and
# the bit step mstorch takes for bfloat16); zeros step to the signed smallest subnormal
_NEXT_TO = np.array([2.0, -1.0, 1.0, 1.0, 0.0, nan], dtype=np.float32)
OPS += [
    OpInfo("nextafter", samples=[S(A, B), S(A, ROW), S(SPECIAL, SPECIAL2), S(SPECIAL, _NEXT_TO), S(D64, D64B),
                                 S(D64, A), S(H, HB), S(A, ZF), E(I, NZ), E(A, 2.0), E(BO, BOB)], **EXACT),
    OpInfo("nextafter", samples=[S(_bf16(A), _bf16(B)), S(_bf16(SPECIAL), _bf16(_NEXT_TO))], grad=False, **EXACT),
]
