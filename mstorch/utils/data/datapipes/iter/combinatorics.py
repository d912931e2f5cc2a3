"""Mirrors torch.utils.data.datapipes.iter.combinatorics.ShufflerIterDataPipe: a buffered shuffle whose seed is
drawn from the global generator at each new iteration (``reset``), so ``manual_seed`` gives torch's order."""
import random
from collections.abc import Sized

from .._decorator import functional_datapipe
from ..datapipe import IterDataPipe

__all__ = ["ShufflerIterDataPipe"]


@functional_datapipe("shuffle")
class ShufflerIterDataPipe(IterDataPipe):
    def __init__(self, datapipe, *, buffer_size=10000, unbatch_level=0):
        super().__init__()
        self._buffer = []
        if buffer_size <= 0:
            raise AssertionError("buffer_size should be larger than 0")
        if unbatch_level != 0:
            raise NotImplementedError("torch.utils.data.datapipes.iter.Shuffler(unbatch_level=...): mstorch has no "
                                      "UnBatcher DataPipe")
        self.datapipe = datapipe
        self.buffer_size = buffer_size
        self._enabled = True
        self._seed = None
        self._rng = random.Random()

    def set_shuffle(self, shuffle=True):
        self._enabled = shuffle
        return self

    def set_seed(self, seed):
        self._seed = seed
        return self

    def __iter__(self):
        if not self._enabled:
            yield from self.datapipe
            return
        # reservoir sampling over a buffer of ``buffer_size``, with torch's calls on the Python RNG
        for x in self.datapipe:
            if len(self._buffer) == self.buffer_size:
                idx = self._rng.randint(0, len(self._buffer) - 1)
                val, self._buffer[idx] = self._buffer[idx], x
                yield val
            else:
                self._buffer.append(x)
        while self._buffer:
            yield self._buffer.pop(self._rng.randint(0, len(self._buffer) - 1))

    def __len__(self):
        if isinstance(self.datapipe, Sized):
            return len(self.datapipe)
        raise TypeError(f"{type(self).__name__} instance doesn't have valid length")

    def reset(self):
        self._buffer = []
        if self._enabled:
            if self._seed is None:
                from ....._functions import empty
                from ..... import _dtype
                self._seed = int(empty((), dtype=_dtype.int64).random_().item())
            self._rng.seed(self._seed)
            self._seed = None

