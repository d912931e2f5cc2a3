"""torch.utils.hooks: the handle that ``register_*_hook`` returns (the Module hooks' handle class)."""
from ..nn.modules._module_utils import RemovableHandle

__all__ = ["RemovableHandle"]
