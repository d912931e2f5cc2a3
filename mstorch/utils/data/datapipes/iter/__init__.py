"""torch.utils.data.datapipes.iter: the iterable DataPipes mstorch provides."""
from .combinatorics import ShufflerIterDataPipe as Shuffler  # noqa: F401
from .utils import IterableWrapperIterDataPipe as IterableWrapper  # noqa: F401

__all__ = ["IterableWrapper", "Shuffler"]
