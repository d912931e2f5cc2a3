"""torch.utils: the parts mstorch provides. The package imports only ``hooks`` (autograd and nn use it);
``mstorch/__init__`` imports ``data``, ``checkpoint`` and ``_pytree``, which build on the layers above."""
from . import hooks  # noqa: F401
