"""torch's warn-once notices (C++ ``TORCH_WARN_ONCE``) and ``torch.set_warn_always``."""
import warnings

_state = {"always": False}
_seen = set()


def set_warn_always(b):
    """torch.set_warn_always: when True, warn-once notices are given every time."""
    _state["always"] = bool(b)


def is_warn_always_enabled():
    return _state["always"]


def warn_once(msg, stacklevel=3):
    """A UserWarning given once per process (per message), as torch's TORCH_WARN_ONCE does."""
    if msg in _seen and not _state["always"]:
        return
    _seen.add(msg)
    warnings.warn(msg, UserWarning, stacklevel=stacklevel)
