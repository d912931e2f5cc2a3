"""torch.nn on MindSpore."""
from .parameter import Parameter, Buffer, UninitializedParameter, UninitializedBuffer  # noqa: F401
from . import modules  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules_all
from . import functional, init  # noqa: F401,E402
from . import utils  # noqa: F401,E402
from . import parallel  # noqa: F401,E402
from .parallel import DataParallel  # noqa: F401,E402
from . import attention  # noqa: F401,E402

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer", "functional", "init"] + list(_modules_all)
