"""torch.backends flags. They tune torch's CUDA/CPU kernels; MindSpore has no matching switches, so
they are stored (scripts read them back) and have no effect on numerics here — as for torch on CPU.
``fp32_precision`` (here and per backend) and the legacy TF32 switches are linked as in torch (mstorch/_fp32.py)."""
import contextlib
import sys
import types

from .. import _fp32
from . import cudnn, cuda, mps, mkl, mkldnn, openmp, cpu, mha, opt_einsum  # noqa: F401,E402


def set_flags(_fp32_precision="none"):
    orig = (_fp32.get("generic", "all"),)
    if _fp32_precision is not None:
        _fp32.set("generic", "all", _fp32_precision)
    return orig


@contextlib.contextmanager
def flags(fp32_precision="none"):
    orig = set_flags(fp32_precision)
    try:
        yield
    finally:
        set_flags(*orig)


class _BackendsModule(types.ModuleType):
    fp32_precision = _fp32.setting("generic", "all")


sys.modules[__name__].__class__ = _BackendsModule
