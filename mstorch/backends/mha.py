"""torch.backends.mha: the switch for torch's fused MultiheadAttention/TransformerEncoder fast path. mstorch
computes those layers one way; the flag is stored and read back (the fast path, when torch takes it, gives the
same values up to rounding)."""
_is_fastpath_enabled = True


def get_fastpath_enabled():
    return _is_fastpath_enabled


def set_fastpath_enabled(value):
    global _is_fastpath_enabled
    _is_fastpath_enabled = value
