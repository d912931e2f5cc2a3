"""Mirrors torch.utils.data.datapipes.datapipe: ``IterDataPipe`` and ``MapDataPipe``, datasets that chain by
functional names (``dp.shuffle()``). As in torch, every new iterator over an IterDataPipe first calls its
``reset()`` (a shuffler draws its seed there) and counts the samples it yields."""
import functools

from ..dataset import Dataset, IterableDataset

__all__ = ["IterDataPipe", "MapDataPipe"]


def _restarting(iter_fn):
    """``__iter__`` of a DataPipe: reset, then the subclass's iteration."""
    @functools.wraps(iter_fn)
    def __iter__(self):
        self.reset()
        self._number_of_samples_yielded = 0
        for item in iter_fn(self):
            self._number_of_samples_yielded += 1
            yield item
    return __iter__


class _Functional:
    """What ``register_datapipe_as_function`` adds: the functional names of a DataPipe family."""

    functions = None

    @classmethod
    def register_datapipe_as_function(cls, function_name, cls_to_register):
        if function_name in cls.functions:
            raise Exception(f"Unable to add DataPipe function name {function_name} as it is already taken")  # noqa: TRY002
        cls.functions[function_name] = cls_to_register

    def __getattr__(self, name):
        functions = type(self).functions
        if functions is not None and name in functions:
            return functools.partial(functions[name], self)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}")


class IterDataPipe(_Functional, IterableDataset):
    functions = {}
    getstate_hook = None
    reduce_ex_hook = None
    str_hook = None
    repr_hook = None
    _valid_iterator_id = None
    _number_of_samples_yielded = 0

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "__iter__" in cls.__dict__:
            cls.__iter__ = _restarting(cls.__dict__["__iter__"])

    def reset(self):
        """Called before each new iteration; pipes with state clear it here."""

    def __repr__(self):
        return self.__class__.__qualname__

    def __str__(self):
        return self.__class__.__qualname__


class MapDataPipe(_Functional, Dataset):
    functions = {}
    getstate_hook = None
    reduce_ex_hook = None
    str_hook = None
    repr_hook = None

    def __repr__(self):
        return self.__class__.__qualname__

    def __str__(self):
        return self.__class__.__qualname__
