"""torch.utils.data on mstorch: datasets, samplers and the DataLoader, with torch's batches and order."""
from .dataloader import _DatasetKind, DataLoader, default_collate, default_convert, get_worker_info
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, random_split, StackDataset,
                      Subset, TensorDataset)
from .distributed import DistributedSampler
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
                      WeightedRandomSampler)
from ._worker import WorkerInfo
from . import _utils  # noqa: F401

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "DistributedSampler",
           "IterableDataset", "RandomSampler", "Sampler", "SequentialSampler", "StackDataset", "Subset",
           "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler", "_DatasetKind", "default_collate",
           "default_convert", "get_worker_info", "random_split"]
