"""torch.backends.fp32_precision, the per-backend ``fp32_precision`` settings and the legacy TF32 switches
(``cuda.matmul.allow_tf32``, ``cudnn.allow_tf32``, ``set/get_float32_matmul_precision``): every scenario runs on a
reset state and records what each setting reads and what each legacy read returns or raises (type and message),
compared with torch (transformers' enable_tf32 sets ``torch.backends.fp32_precision``)."""
import warnings

from harness import check

SCENARIOS = [
    "",
    "B.fp32_precision = 'tf32'",
    "B.fp32_precision = 'ieee'",
    "B.fp32_precision = 'bf16'",
    "B.cuda.matmul.fp32_precision = 'tf32'",
    "B.cuda.matmul.allow_tf32 = True",
    "T.set_float32_matmul_precision('medium')",
    "T.set_float32_matmul_precision('high')",
    "T.set_float32_matmul_precision('high'); T.set_float32_matmul_precision('highest')",
    "T.set_float32_matmul_precision('medium'); B.mkldnn.matmul.fp32_precision = 'none'",
    "T.set_float32_matmul_precision('high'); B.cuda.matmul.fp32_precision = 'ieee'",
    "B.mkldnn.matmul.fp32_precision = 'bf16'",
    "B.mkldnn.matmul.fp32_precision = 'bf16'; T.set_float32_matmul_precision('medium')",
    "B.mkldnn.matmul.fp32_precision = 'tf32'",
    "B.mkldnn.fp32_precision = 'bf16'",
    "B.cudnn.conv.fp32_precision = 'tf32'; B.cudnn.rnn.fp32_precision = 'ieee'",
    "B.cudnn.conv.fp32_precision = 'ieee'; B.cudnn.allow_tf32 = True",
    "B.cudnn.allow_tf32 = False",
    "B.cudnn.allow_tf32 = False; B.fp32_precision = 'tf32'",
    "B.cudnn.allow_tf32 = False; B.cudnn.fp32_precision = 'tf32'",
    "B.cudnn.fp32_precision = 'ieee'",
    "B.cuda.matmul.fp32_precision = 'tf32'; B.cuda.matmul.allow_tf32 = False",
    "B.fp32_precision = 'tf32'; B.cuda.matmul.fp32_precision = 'ieee'",
    "B.mkldnn.matmul.fp32_precision = 'tf32'; B.fp32_precision = 'bf16'; B.fp32_precision = 'none'",
    "B.fp32_precision = 'xx'",
    "B.cuda.matmul.fp32_precision = 'bf16'",
    "B.cudnn.fp32_precision = 'bf16'",
    "B.cudnn.conv.fp32_precision = 'bf16'",
    "B.cudnn.allow_tf32 = 1",
    "B.cuda.matmul.allow_tf32 = 'x'",
    "B.cuda.matmul.foo",
    "B.cuda.matmul.foo = 1",
    "B.cudnn.conv.foo = 1",
    "T.set_float32_matmul_precision('x')",
    "with B.flags(fp32_precision='tf32'): inside = state(T)",
    "with B.cudnn.flags(fp32_precision='tf32'): inside = state(T)",
    "with B.cudnn.flags(allow_tf32=False): inside = state(T)",
]


def state(T):
    B = T.backends
    return [B.fp32_precision, B.cuda.matmul.fp32_precision, B.cudnn.fp32_precision, B.cudnn.conv.fp32_precision,
            B.cudnn.rnn.fp32_precision, B.mkldnn.fp32_precision, B.mkldnn.matmul.fp32_precision,
            B.mkldnn.conv.fp32_precision, B.mkldnn.rnn.fp32_precision]


def attempt(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - the exception is the observation
        return f"{type(e).__name__}: {e}"


def reset(T):
    """torch's start-up state through public setters: the legacy switches first (they write entries too)."""
    B = T.backends
    T.set_float32_matmul_precision("highest")
    B.cudnn.allow_tf32 = True
    for backend, ops in ((B.cuda, {"matmul": "none"}), (B.cudnn, {"conv": "tf32", "rnn": "tf32"}),
                         (B.mkldnn, {"matmul": "none", "conv": "none", "rnn": "none"})):
        for op, value in ops.items():
            getattr(backend, op).fp32_precision = value
    B.cudnn.fp32_precision = "none"
    B.fp32_precision = "none"


def run_scenarios(T):
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for code in SCENARIOS:
            reset(T)
            scope = {"T": T, "B": T.backends, "state": state}
            result = attempt(lambda: exec(code, scope))
            out.append([code, result, scope.get("inside"), state(T),
                        attempt(lambda: T.backends.cuda.matmul.allow_tf32),
                        attempt(lambda: T.backends.cudnn.allow_tf32),
                        attempt(lambda: T.get_float32_matmul_precision())])
        reset(T)
    return out


def test_fp32_precision_scenarios():
    check(run_scenarios)
