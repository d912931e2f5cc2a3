"""torch.nn.functional activations (mstorch/ops/nn_activation.py): values, gradients at the kinks and
thresholds, dtypes, in-place forms, error types."""
import numpy as np

from harness import rand
from .common import OpInfo, S, E

nan, inf = float("nan"), float("inf")
A = rand(2, 3) * 3
X3 = rand(2, 4, 3, seed=1) * 3
D64 = rand(2, 3, dtype="float64", seed=3) * 3
I = rand(2, 3, dtype="int64")
BO = rand(2, 3, dtype="bool")
# kinks and thresholds of the piecewise functions, far tails of the smooth ones, near-zero values
KINKS = np.array([-30.0, -7.0, -6.0, -3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, 6.0, 7.0, 19.99, 20.0, 20.5, 30.0],
                 np.float32)
TAILS = np.array([-110.0, -20.0, -9.5, -4.2, -2.5, -1e-3, 1e-4, 2.2, 4.5, 9.0, 15.0, 21.0, 100.0], np.float32)
HALF = [lambda T: T.tensor(A).to(T.float16), lambda T: T.tensor(A).to(T.bfloat16)]


def _f(name):
    """Call torch.nn.functional.<name> (for table entries keyed nn.functional.<name>)."""
    return lambda T, *a, **k: getattr(T.nn.functional, name)(*a, **k)


def _inplace(name):
    """F.<name>(x, ..., inplace=True) or F.<name>_(x, ...): the result, the receiver, and their identity."""
    def call(T, x, *a, **k):
        r = getattr(T.nn.functional, name)(x, *a, **k)
        return r, x, r is x
    return call


def _seeded(name):
    def call(T, *a, **k):
        T.manual_seed(7)
        return getattr(T.nn.functional, name)(*a, **k)
    return call


def _floats(*extra):
    return [S(A), S(X3), S(KINKS), S(TAILS), S(D64), *extra, E(I), E(BO)]


def _half(name, *args, exact=False, **kw):
    """float16 and bfloat16 compute in float32 and round once: one bfloat16 ulp (2**-7 relative; float16's
    is 2**-10), exact for the ops that only clamp or select."""
    tol = dict(rtol=0, atol=0) if exact else dict(rtol=2 ** -7, atol=1e-5)
    return OpInfo(name, samples=[S(h, *args, **kw) for h in HALF], grad=False, **tol)


OPS = [
    OpInfo("nn.functional.relu", call=_f("relu"), samples=[S(A), S(KINKS), S(I), S(D64), E(BO), E(2.0)]),
    OpInfo("nn.functional.relu", call=_inplace("relu"), grad=False,
           samples=[S(A, inplace=True), S(I, True), S(A, inplace=False)]),
    OpInfo("relu_", call=_inplace("relu_"), grad=False, samples=[S(A), S(I)]),
    OpInfo("nn.functional.selu", call=_f("selu"), samples=[S(A), S(TAILS), S(D64), E(I)]),
    OpInfo("nn.functional.selu", call=_inplace("selu"), grad=False, samples=[S(A, inplace=True)]),
    OpInfo("nn.functional.celu", call=_f("celu"), samples=[S(A), S(A, 0.5), S(TAILS, alpha=2.0), E(I), E(A, 0.0)]),
    OpInfo("nn.functional.celu", call=_inplace("celu"), grad=False, samples=[S(A, 1.5, True)]),
    OpInfo("nn.functional.threshold", call=_f("threshold"),
           samples=[S(A, 0.5, -1.0), S(KINKS, 6.0, 20), S(I, 1, 20), S(np.array([nan, 1.0, -2.0], np.float32), 0.5, 9.0),
                    S(D64, 0.0, 0.0), E(BO, 0, 1)]),
    OpInfo("nn.functional.threshold", call=_inplace("threshold"), grad=False,
           samples=[S(A, 0.5, -1.0, True), S(I, 1, 20, inplace=True)]),
    OpInfo("nn.functional.sigmoid", call=_f("sigmoid"), samples=[S(A), S(D64), S(I)]),
    # F.tanh is torch.tanh: accurate past |x| = 2, where MindSpore's Tanh kernel is 1e-4 off
    OpInfo("nn.functional.tanh", call=_f("tanh"), rtol=1e-6, atol=1e-7,
           samples=[S(rand(2, 3) * 3), S(TAILS), S(rand(3, 2, dtype="float64")),
                    S(rand(2, 3, dtype="int64", low=1, high=-2))]),
    OpInfo("nn.functional.softmax", call=_f("softmax"),
           samples=[S(A, 1), S(X3, -1), S(X3, 0), S(D64, dim=0), S(I, 1, dtype=lambda T: T.float64),
                    S(A, 1, dtype=lambda T: T.float64), E(I, 1), E(A, 2)], rtol=2e-6, atol=5e-7),
    # torch.log_softmax (activation.py) is within 1 float32 ulp of torch, as its own samples state
    OpInfo("nn.functional.log_softmax", call=_f("log_softmax"), rtol=1e-6, atol=1e-6,
           samples=[S(A, 1), S(X3, 2), S(D64, dim=0), S(A, -1, dtype=lambda T: T.float64), E(I, 0), E(A, -3)]),
    # dim=None: torch's deprecated implicit choice (0 for 0-, 1- and 3-d inputs, else 1)
    OpInfo("nn.functional.softmax", call=_f("softmax"), samples=[S(A), S(X3), S(rand(4)), S(rand(2, 2, 2, 2))],
           rtol=2e-6, atol=5e-7),
    OpInfo("nn.functional.log_softmax", call=_f("log_softmax"), samples=[S(A), S(X3)], rtol=1e-6, atol=1e-6),
    OpInfo("softmin", samples=[S(A, 1), S(X3, 0), S(A), S(X3), S(D64, 1), S(A, 1, dtype=lambda T: T.float64),
                               S(np.array([[1.0, nan, 2.0], [-inf, 0.0, 1.0], [inf, inf, inf]], np.float32), 1),
                               E(BO, 0), E(I, 1), E(A, 3)], rtol=2e-6, atol=5e-7),
    OpInfo("relu6", samples=[S(A), S(KINKS), S(I), S(D64), S(np.array([nan, 7.0], np.float32)), E(BO)]),
    OpInfo("relu6", call=_inplace("relu6"), grad=False, samples=[S(KINKS, True), S(I, inplace=True)]),
    OpInfo("hardtanh", samples=[S(A), S(KINKS), S(KINKS, -3.0, 6.0), S(A, min_val=0.0, max_val=0.5), S(I, -2, 1),
                                S(D64, -0.5, 0.5), S(np.array([nan, 2.0], np.float32)),
                                S(rand(2, 3, dtype="uint8", low=3, high=5), 0, 4),
                                E(A, 2.0, 1.0), E(BO), E(rand(2, 3, dtype="uint8", low=3, high=5))]),
    OpInfo("hardtanh", call=_inplace("hardtanh"), grad=False, samples=[S(A, -0.5, 0.5, True)]),
    OpInfo("hardtanh_", call=_inplace("hardtanh_"), grad=False, samples=[S(A), S(A, -0.2, 0.4)]),
    OpInfo("leaky_relu", samples=_floats(S(A, 0.2), S(KINKS, negative_slope=0.3), S(A, -0.5),
                                         S(np.array([nan, 2.0], np.float32)))),
    OpInfo("leaky_relu", call=_inplace("leaky_relu"), grad=False, samples=[S(A, 0.2, True)]),
    OpInfo("leaky_relu_", call=_inplace("leaky_relu_"), grad=False, samples=[S(A), S(A, 0.3)]),
    OpInfo("elu", samples=_floats(S(A, 0.5), S(TAILS, alpha=2.5), S(KINKS, -1.0))),
    OpInfo("elu", call=_inplace("elu"), grad=False, samples=[S(A, 0.7, True), S(A, inplace=True)]),
    OpInfo("elu_", call=_inplace("elu_"), grad=False, samples=[S(A), S(A, 2.0)]),
    OpInfo("gelu", samples=_floats(S(A, approximate="tanh"), S(TAILS, approximate="tanh"), S(D64, approximate="tanh"),
                                   E(A, approximate="foo"), E(A, "tanh"))),
    OpInfo("silu", samples=_floats()),
    OpInfo("silu", call=_inplace("silu"), grad=False, samples=[S(A, True)]),
    OpInfo("mish", samples=_floats()),
    OpInfo("mish", call=_inplace("mish"), grad=False, samples=[S(A, inplace=True)]),
    OpInfo("hardswish", samples=_floats()),
    OpInfo("hardswish", call=_inplace("hardswish"), grad=False, samples=[S(A, True)]),
    OpInfo("hardsigmoid", samples=_floats()),
    OpInfo("hardsigmoid", call=_inplace("hardsigmoid"), grad=False, samples=[S(A, True)]),
    OpInfo("softplus", samples=_floats(S(A, 2.0), S(KINKS, 2, 10), S(TAILS, beta=0.5, threshold=3),
                                       S(A, -2.0, 5.0))),
    OpInfo("softsign", samples=[S(A), S(TAILS), S(D64), S(I), E(BO)]),
    OpInfo("logsigmoid", samples=_floats()),
    OpInfo("tanhshrink", samples=[S(A), S(TAILS), S(D64), S(X3), S(I), E(BO)]),
    OpInfo("softshrink", samples=_floats(S(KINKS, 1.0), S(A, lambd=0.0), S(D64, 1.5),
                                         S(np.array([nan, 2.0], np.float32)), E(A, -0.5))),
    OpInfo("glu", samples=[S(rand(2, 4)), S(rand(4, 3), 0), S(rand(2, 3, 6, seed=2), dim=-1), S(rand(2, 4, dtype="float64")),
                           E(np.array(1.0, np.float32)), E(rand(3, 3), 0), E(rand(2, 4), 5), E(rand(2, 4, dtype="int64"))]),
    OpInfo("rrelu", samples=[S(A), S(KINKS, 0.1, 0.3), S(D64), S(A, 0.2, 0.2, False), E(I), E(A, 0.5, 0.1)]),
    OpInfo("rrelu", call=_seeded("rrelu"),
           samples=[S(A, training=True), S(X3, 0.05, 0.5, True), S(D64, training=True), E(I, training=True),
                    E(A, 0.4, 0.2, True)]),
    OpInfo("rrelu", call=_inplace("rrelu"), grad=False, samples=[S(A, 0.1, 0.3, False, True)]),
    OpInfo("rrelu_", call=_inplace("rrelu_"), grad=False, samples=[S(A), S(A, 0.2, 0.25)]),
    OpInfo("rrelu_", call=lambda T, x, **k: (T.manual_seed(3), T.rrelu_(x, training=True, **k), x)[1:],
           grad=False, samples=[S(A), S(X3, lower=0.3, upper=0.4)]),
    OpInfo("hardshrink", call=_f("hardshrink"), samples=[S(A), S(KINKS, 1.0), E(I)]),
    OpInfo("prelu", call=_f("prelu"), samples=[S(A, np.array([0.25], np.float32)),
                                               S(X3, np.array([0.1, -0.2, 0.3, 0.4], np.float32))]),
    OpInfo("normalize", samples=[S(A), S(A, 1.0, 0), S(X3, dim=-1), S(X3, 3.0, 1, 1e-3), S(np.zeros((2, 3), np.float32)),
                                 S(A, float("inf"), 1), S(D64, p=2, dim=0), S(rand(5)[None], 2.0, 1),
                                 E(I), E(A, dim=3)]),
    OpInfo("normalize", grad=False, samples=[S(A, out=lambda T: T.empty(2, 3)), S(X3, 1.0, out=lambda T: T.empty(0))]),
    OpInfo("gumbel_softmax", call=_seeded("gumbel_softmax"), atol=1e-5,
           samples=[S(A), S(A, 0.5), S(X3, hard=True), S(X3, 2.0, True, dim=1), S(D64, tau=0.3)]),
    _half("relu6", exact=True), _half("hardtanh", exact=True), _half("leaky_relu", 0.2), _half("elu", 0.5),
    _half("gelu"), _half("gelu", approximate="tanh"), _half("silu"), _half("mish"), _half("hardswish"),
    _half("hardsigmoid"), _half("softplus"), _half("softsign"), _half("logsigmoid"), _half("tanhshrink"),
    _half("softshrink"), _half("softmin", 1), _half("normalize"),
    OpInfo("glu", samples=[S(lambda T: T.tensor(rand(2, 4)).to(T.bfloat16))], rtol=1e-2, atol=1e-2, grad=False),
]
