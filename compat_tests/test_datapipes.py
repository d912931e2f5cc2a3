"""torch.utils.data DataPipes as far as libraries use them (accelerate): the Shuffler's order under a seed,
its switch, apply_shuffle_settings across a graph, the functional form, the DataPipe bases."""
import importlib
import warnings

import pytest

from harness import check


def _mods(T):
    return (importlib.import_module(T.__name__ + ".utils.data.datapipes.iter.combinatorics"),
            importlib.import_module(T.__name__ + ".utils.data.graph_settings"))


@pytest.mark.parametrize("buffer_size", [1, 3, 10000])
def test_shuffler_order_follows_the_global_seed(buffer_size):
    def fn(T):
        comb, _ = _mods(T)
        T.manual_seed(7)
        dp = comb.ShufflerIterDataPipe(T.utils.data.datapipes.iter.IterableWrapper(range(12)), buffer_size=buffer_size)
        first, second = list(dp), list(dp)              # each iteration draws a new seed
        dp.set_seed(3)
        seeded = list(dp)
        off = list(dp.set_shuffle(False))
        return first, second, seeded, off, len(dp), T.randn(2)   # the stream after the draws is torch's too
    check(fn)


def test_apply_shuffle_settings_and_bases():
    def fn(T):
        comb, gs = _mods(T)
        data = T.utils.data
        T.manual_seed(0)
        src = data.datapipes.iter.IterableWrapper(list(range(8)))
        dp = src.shuffle()
        same = gs.apply_shuffle_settings(dp, shuffle=False) is dp
        unshuffled = list(dp)
        gs.apply_shuffle_settings(dp, shuffle=True)
        shuffled = list(dp)
        none = gs.apply_shuffle_settings(src, shuffle=None) is src
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            added = gs.apply_shuffle_settings(data.datapipes.iter.IterableWrapper([1, 2, 3]), shuffle=True)
        return (same, unshuffled, shuffled, none, type(added).__name__, [str(w.message) for w in caught],
                isinstance(dp, data.IterDataPipe), isinstance(dp, data.IterableDataset),
                issubclass(data.MapDataPipe, data.Dataset), type(dp).__name__, len(dp),
                isinstance(dp, comb.ShufflerIterDataPipe))
    check(fn)
    check(lambda T: _mods(T)[0].ShufflerIterDataPipe([1], buffer_size=0), raises=True)
    check(lambda T: len(_mods(T)[0].ShufflerIterDataPipe(iter([1]))), raises=True)


def test_functional_datapipe_registers_a_name():
    def fn(T):
        data = T.utils.data

        @data.functional_datapipe("times_two_" + T.__name__)
        class TimesTwo(data.IterDataPipe):
            def __init__(self, dp):
                self.dp = dp

            def __iter__(self):
                for x in self.dp:
                    yield 2 * x
        dp = getattr(data.datapipes.iter.IterableWrapper([1, 2]), "times_two_" + T.__name__)()
        return list(dp), type(dp).__name__
    check(fn)
