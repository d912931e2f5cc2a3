"""torch.optim on mstorch tensors (the per-parameter updates run as in-place MindSpore ops)."""
from .optimizer import Optimizer  # noqa: F401
from .sgd import SGD  # noqa: F401
from .adam import Adam, AdamW  # noqa: F401
from . import lr_scheduler, swa_utils  # noqa: F401,E402

__all__ = ["Optimizer", "SGD", "Adam", "AdamW"]
