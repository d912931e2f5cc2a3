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
from . import common_types, grad  # noqa: F401,E402


def factory_kwargs(kwargs):
    """torch.nn.factory_kwargs: ``device`` / ``dtype`` / ``memory_format`` from ``kwargs`` (and from its own
    ``factory_kwargs`` entry) as one dict for factory functions; other keys, or a key given twice, raise."""
    if kwargs is None:
        return {}
    simple_keys = {"device", "dtype", "memory_format"}
    expected_keys = simple_keys | {"factory_kwargs"}
    if not kwargs.keys() <= expected_keys:
        raise TypeError(f"unexpected kwargs {kwargs.keys() - expected_keys}")
    r = dict(kwargs.get("factory_kwargs", {}))
    for k in simple_keys:
        if k in kwargs:
            if k in r:
                raise TypeError(f"{k} specified twice, in **kwargs and in factory_kwargs")
            r[k] = kwargs[k]
    return r

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer", "functional", "init"] + list(_modules_all)
