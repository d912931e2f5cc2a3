"""Mirrors torch.utils.data.datapipes.iter.utils.IterableWrapperIterDataPipe."""
import copy
import warnings

from ..datapipe import IterDataPipe

__all__ = ["IterableWrapperIterDataPipe"]


class IterableWrapperIterDataPipe(IterDataPipe):
    """An iterable as a DataPipe; with ``deepcopy=True`` (torch's default) each iteration walks a copy, so
    in-place changes downstream do not reach the source."""

    def __init__(self, iterable, deepcopy=True):
        self.iterable = iterable
        self.deepcopy = deepcopy

    def __iter__(self):
        source = self.iterable
        if self.deepcopy:
            try:
                source = copy.deepcopy(self.iterable)
            except TypeError:
                warnings.warn("The input iterable can not be deepcopied, please be aware of in-place modification "
                              "would affect source data.", stacklevel=2)
        yield from source

    def __len__(self):
        return len(self.iterable)
