"""``safetensors.torch`` for mstorch: read and write .safetensors files without the safetensors package.

    from mstorch.safetensors import save_file, load_file, safe_open

Under ``python -m mstorch run`` (or the environment alias), ``import safetensors.torch`` gives this
module. Implementation: ``mstorch/_safetensors.py``.
"""
from ._safetensors import (  # noqa: F401
    SafetensorError,
    _find_shared_tensors,
    _is_complete,
    _remove_duplicate_names,
    _SIZE,
    _TYPES,
    _getdtype,
    load,
    load_file,
    load_model,
    safe_open,
    save,
    save_file,
    save_model,
    storage_ptr,
    storage_size,
)

__all__ = ["save", "save_file", "load", "load_file", "save_model", "load_model", "safe_open", "SafetensorError",
           "storage_ptr", "storage_size"]
