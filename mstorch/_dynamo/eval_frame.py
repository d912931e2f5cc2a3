"""torch._dynamo.eval_frame: where torch keeps OptimizedModule (``isinstance`` checks in accelerate)."""
from .._compile import OptimizedModule  # noqa: F401
