"""torch.optim on mstorch tensors (the per-parameter updates run as in-place MindSpore ops)."""
from .optimizer import Optimizer  # noqa: F401
from .sgd import SGD  # noqa: F401
from .adam import Adam, AdamW  # noqa: F401

__all__ = ["Optimizer", "SGD", "Adam", "AdamW"]
