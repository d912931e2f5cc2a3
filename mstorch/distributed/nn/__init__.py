"""torch.distributed.nn: the autograd-aware collectives (``functional``)."""
from . import functional  # noqa: F401
from .functional import *  # noqa: F401,F403
