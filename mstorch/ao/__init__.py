"""torch.ao: architecture optimization. Only ``quantization``'s float-model pieces exist (see there)."""
from . import quantization  # noqa: F401
