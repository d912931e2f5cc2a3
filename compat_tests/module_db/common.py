"""ModuleInfo records: which layer, constructor arguments, forward inputs, tolerances. Data only."""
from dataclasses import dataclass, field


class M:
    """One layer configuration: constructor args/kwargs and the forward inputs (NumPy arrays become
    tensors in each namespace; float ones require grad). ``train=False`` compares in eval mode."""

    def __init__(self, *args, inputs=(), train=True, forward_kwargs=None, **kwargs):
        self.args = args
        self.kwargs = kwargs
        self.inputs = inputs
        self.train = train
        self.forward_kwargs = forward_kwargs or {}

    def __repr__(self):
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return "(" + ", ".join(parts) + ")"


class BadArgs(M):
    """A constructor call both libraries must reject with the same exception type (and message)."""


@dataclass
class ModuleInfo:
    name: str                    # attribute of torch.nn
    configs: list
    rtol: float = 1e-5
    atol: float = 1e-6
    grad: bool = True            # compare input and parameter gradients
    random: bool = False         # output depends on RNG (dropout): compare shapes/statistics elsewhere
    init_stats: bool = True      # compare initial parameter statistics with torch's
    skip: str = ""
    extra: dict = field(default_factory=dict)
