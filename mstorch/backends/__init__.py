"""torch.backends flags. They tune torch's CUDA/CPU kernels; MindSpore has no matching switches, so
they are stored (scripts read them back) and have no effect on numerics here — as for torch on CPU."""
from . import cudnn, cuda, mps, mkl, mkldnn, openmp, cpu, mha, opt_einsum  # noqa: F401
