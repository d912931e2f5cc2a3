"""torch.backends.mkldnn: oneDNN is not used (``is_available()`` False, as mstorch has no oneDNN kernels); the
precision settings follow torch's (mstorch/_fp32.py): ``fp32_precision`` reads mkldnn's and writes the generic one,
as torch's does."""
import sys
import types

from .. import _fp32

enabled = True
matmul = _fp32._FP32Precision("mkldnn", "matmul")
conv = _fp32._FP32Precision("mkldnn", "conv")
rnn = _fp32._FP32Precision("mkldnn", "rnn")


def is_available():
    return False


class _MkldnnModule(types.ModuleType):
    fp32_precision = _fp32.setting("mkldnn", "all", writes=("generic", "all"))


sys.modules[__name__].__class__ = _MkldnnModule
