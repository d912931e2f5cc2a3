"""torch._dynamo (the part torchvision uses at import): mstorch has no graph capture; ``torch.compile`` runs
models eagerly (see ``_compile``)."""
from . import utils  # noqa: F401


def is_compiling():
    return False
