"""torch.optim on mstorch tensors (the per-parameter updates run as in-place MindSpore ops)."""
from .optimizer import Optimizer  # noqa: F401
from .sgd import SGD  # noqa: F401
from .adam import Adam, AdamW  # noqa: F401
from .adamax import Adamax  # noqa: F401
from .nadam import NAdam  # noqa: F401
from .radam import RAdam  # noqa: F401
from .rmsprop import RMSprop  # noqa: F401
from .adagrad import Adagrad  # noqa: F401
from .adadelta import Adadelta  # noqa: F401
from .asgd import ASGD  # noqa: F401
from .rprop import Rprop  # noqa: F401
from .lbfgs import LBFGS  # noqa: F401
from .sparse_adam import SparseAdam  # noqa: F401
from .adafactor import Adafactor  # noqa: F401
from .muon import Muon  # noqa: F401
from . import lr_scheduler, swa_utils  # noqa: F401,E402

__all__ = ["Optimizer", "SGD", "Adam", "AdamW"]
__all__ += ["Adamax", "NAdam", "RAdam", "RMSprop", "Adagrad"]
__all__ += ["Adadelta", "ASGD", "Rprop", "LBFGS", "SparseAdam", "Adafactor", "Muon"]
