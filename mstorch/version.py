"""torch.version: what torch 2.13's CPU build reports. No CUDA, HIP/ROCm or XPU runtime is built in (None, as
torch's CPU wheel says); ``git_version`` is "Unknown", torch's value for a build without git information."""
from typing import Optional

__all__ = ["__version__", "debug", "cuda", "git_version", "hip", "rocm", "xpu"]
__version__ = "2.13.0+mstorch"
debug = False
cuda: Optional[str] = None
git_version = "Unknown"
hip: Optional[str] = None
rocm: Optional[str] = None
xpu: Optional[str] = None
