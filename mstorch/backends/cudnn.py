"""torch.backends.cudnn: flags accepted and stored; MindSpore chooses its GPU kernels itself. ``allow_tf32``,
``fp32_precision`` and ``conv``/``rnn`` follow torch's linked precision settings (mstorch/_fp32.py)."""
import contextlib
import sys
import types

from .. import _runtime
from .. import _fp32

enabled = True
benchmark = False
deterministic = False
benchmark_limit = 10
conv = _fp32._FP32Precision("cuda", "conv")
rnn = _fp32._FP32Precision("cuda", "rnn")


def is_available():
    return _runtime.device_target() == "GPU"   # torch.cuda.is_available()'s answer


def version():
    return None if not is_available() else 90100


_FLAGS = ("enabled", "benchmark", "benchmark_limit", "deterministic", "allow_tf32", "fp32_precision")


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True,
          fp32_precision="none"):
    mod = sys.modules[__name__]
    prev = {k: getattr(mod, k) for k in _FLAGS[:4]}
    # torch saves the raw legacy flag (no consistency check) and cuda's ``all`` precision
    prev.update(allow_tf32=_fp32._LEGACY["cudnn_tf32"], fp32_precision=_fp32.get("cuda", "all"))
    values = dict(enabled=enabled, benchmark=benchmark, benchmark_limit=benchmark_limit, deterministic=deterministic,
                  allow_tf32=allow_tf32, fp32_precision=fp32_precision)
    for k in _FLAGS:
        if values[k] is not None:
            setattr(mod, k, values[k])
    try:
        yield
    finally:
        for k in _FLAGS:
            setattr(mod, k, prev[k])


class _CudnnModule(types.ModuleType):
    @property
    def allow_tf32(self):
        return _fp32.cudnn_allow_tf32()

    @allow_tf32.setter
    def allow_tf32(self, value):
        _fp32.set_cudnn_allow_tf32(value)

    fp32_precision = _fp32.setting("cuda", "all")


sys.modules[__name__].__class__ = _CudnnModule
