"""torch.utils.data on mstorch: datasets, samplers and the DataLoader, with torch's batches and order."""
from .dataloader import _DatasetKind, DataLoader, default_collate, default_convert, get_worker_info
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, random_split, StackDataset,
                      Subset, TensorDataset)
from .distributed import DistributedSampler
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
                      WeightedRandomSampler)
from . import _utils, datapipes, graph_settings  # noqa: F401
from .datapipes import IterDataPipe, MapDataPipe, functional_datapipe

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "DistributedSampler",
           "IterableDataset", "RandomSampler", "Sampler", "SequentialSampler", "StackDataset", "Subset",
           "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler", "_DatasetKind", "default_collate",
           "default_convert", "get_worker_info", "random_split", "IterDataPipe", "MapDataPipe",
           "functional_datapipe"]

_DATAPIPES = ("DFIterDataPipe", "DataChunk", "argument_validation", "guaranteed_datapipes_determinism",
              "non_deterministic", "runtime_validation", "runtime_validation_disabled")


def __getattr__(name):
    if name in _DATAPIPES:
        raise AttributeError(f"torch.utils.data.{name}: DataPipes (deprecated in torch, moved out to torchdata) "
                             "are provided only as far as libraries use them (IterDataPipe, MapDataPipe, "
                             "functional_datapipe, IterableWrapper, Shuffler); use Dataset / IterableDataset")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
