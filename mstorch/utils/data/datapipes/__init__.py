"""torch.utils.data.datapipes: the DataPipe bases and the pipes libraries build on (accelerate checks a dataset
for ``ShufflerIterDataPipe`` and switches its shuffling with ``graph_settings.apply_shuffle_settings``)."""
from . import iter  # noqa: F401
from ._decorator import functional_datapipe  # noqa: F401
from .datapipe import IterDataPipe, MapDataPipe  # noqa: F401
