"""torch.mps.event: MPS events, which need the Metal backend mstorch does not have."""


class Event:
    """torch.mps.Event: creating one raises without the MPS backend, as in torch."""

    def __init__(self, enable_timing=False):
        raise RuntimeError("Cannot execute acquireEvent() without MPS backend.")
