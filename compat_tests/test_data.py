"""torch.utils.data: datasets, samplers, collation and DataLoader batches compared with torch's.

Every test runs the same code on ``torch`` and ``mstorch`` (``T``) with the same seeds and compares the
batches: order, values, dtypes, container types. Worker tests start real processes (2 workers).
"""
import collections
import random
import time
import warnings

import numpy as np
import pytest
import torch

import mstorch
from harness import check, check_raises, run, Raised

Point = collections.namedtuple("Point", ["x", "y"])


def epochs(T, loader, n=1):
    return [list(loader) for _ in range(n)]


def message(fn):
    """fn(T) must raise on both libraries with the same type and message."""
    ref, got = run(fn, torch), run(fn, mstorch)
    assert isinstance(ref, Raised) and isinstance(got, Raised), (ref, got)
    assert type(got.exc) is type(ref.exc), (ref, got)
    assert str(got.exc) == str(ref.exc), (str(ref.exc), str(got.exc))


# --- samplers -----------------------------------------------------------------------------------------

def test_sequential_and_batch_sampler():
    def fn(T):
        D = T.utils.data
        s = D.SequentialSampler(range(10))
        return (list(s), len(s), list(D.BatchSampler(s, 3, False)), list(D.BatchSampler(s, 3, True)),
                len(D.BatchSampler(s, 3, False)), len(D.BatchSampler(s, 3, True)))
    check(fn)
    message(lambda T: T.utils.data.BatchSampler(range(3), 0, False))
    message(lambda T: T.utils.data.BatchSampler(range(3), True, False))
    message(lambda T: T.utils.data.BatchSampler(range(3), 2, 1))


@pytest.mark.parametrize("kw", [{}, {"num_samples": 25}, {"replacement": True},
                                {"replacement": True, "num_samples": 70}])
def test_random_sampler(kw):
    def fn(T):
        T.manual_seed(3)
        s = T.utils.data.RandomSampler(range(11), **kw)
        g = T.Generator().manual_seed(5)
        s2 = T.utils.data.RandomSampler(range(11), generator=g, **kw)
        return list(s), list(s), list(s2), list(s2), len(s), T.get_rng_state()
    check(fn)


def test_sampler_errors():
    message(lambda T: T.utils.data.RandomSampler(range(3), replacement=1))
    message(lambda T: T.utils.data.RandomSampler(range(3), num_samples=0))
    message(lambda T: T.utils.data.WeightedRandomSampler([1.0, 2.0], 0))
    message(lambda T: T.utils.data.WeightedRandomSampler([1.0, 2.0], 2, replacement=None))
    message(lambda T: T.utils.data.WeightedRandomSampler([[1.0, 2.0]], 2))


def test_subset_and_weighted_samplers():
    def fn(T):
        g = T.Generator().manual_seed(11)
        sub = T.utils.data.SubsetRandomSampler([10, 20, 30, 40, 50], generator=g)
        w = [0.1, 0.9, 0.4, 0.7, 3.0, 0.6]
        wr = T.utils.data.WeightedRandomSampler(w, 9, generator=g)
        wn = T.utils.data.WeightedRandomSampler(w, 5, replacement=False, generator=g)
        T.manual_seed(2)
        sd = T.utils.data.SubsetRandomSampler(range(7))
        return list(sub), list(sub), len(sub), list(wr), list(wn), len(wr), wr.weights, list(sd)
    check(fn)


@pytest.mark.parametrize("n,replicas,shuffle,drop_last", [(10, 3, True, False), (10, 3, False, True),
                                                          (11, 4, True, True), (2, 5, False, False)])
def test_distributed_sampler(n, replicas, shuffle, drop_last):
    def fn(T):
        out = []
        for rank in range(replicas):
            s = T.utils.data.DistributedSampler(range(n), num_replicas=replicas, rank=rank, shuffle=shuffle,
                                                seed=4, drop_last=drop_last)
            first = list(s)
            s.set_epoch(3)
            out.append((first, list(s), len(s), s.total_size))
        return out
    check(fn)
    message(lambda T: T.utils.data.DistributedSampler(range(4), num_replicas=2, rank=2))


# --- datasets -----------------------------------------------------------------------------------------

class Squares:
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if not 0 <= i < self.n:
            raise IndexError(i)
        return i * i


def make_iterable(T, start, stop):
    class Stream(T.utils.data.IterableDataset):
        def __iter__(self):
            return iter(range(start, stop))

        def __len__(self):
            return stop - start
    return Stream()


def test_tensor_concat_subset_datasets():
    def fn(T):
        D = T.utils.data
        td = D.TensorDataset(T.arange(12).reshape(6, 2).float(), T.arange(6))
        cat = D.ConcatDataset([Squares(3), Squares(4)])
        both = D.ConcatDataset([Squares(2)]) + Squares(3)   # Dataset.__add__
        sub = D.Subset(Squares(10), [9, 1, 4])
        return (td[2], td[-1], len(td), len(cat), [cat[i] for i in range(-7, 7)], cat.cumulative_sizes,
                type(both).__name__, [both[i] for i in range(5)], [sub[i] for i in range(3)], len(sub),
                sub.__getitems__([2, 0]))
    check(fn)
    check_raises(lambda T: T.utils.data.TensorDataset(T.zeros(3), T.zeros(4)))
    message(lambda T: T.utils.data.ConcatDataset([Squares(2)])[-3])
    message(lambda T: T.utils.data.ConcatDataset([]))
    message(lambda T: T.utils.data.ConcatDataset([make_iterable(T, 0, 2)]))


def test_chain_and_stack_datasets():
    def fn(T):
        D = T.utils.data
        chain = D.ChainDataset([make_iterable(T, 0, 3), make_iterable(T, 10, 12)])
        plus = make_iterable(T, 0, 2) + make_iterable(T, 5, 6)
        st = D.StackDataset(Squares(4), D.Subset(Squares(9), [8, 7, 6, 5]))
        sd = D.StackDataset(a=Squares(3), b=D.TensorDataset(T.arange(3)))
        return (list(chain), len(chain), type(plus).__name__, list(plus), st[1], len(st),
                st.__getitems__([0, 3]), sd[2], sd.__getitems__([1, 0]))
    check(fn)
    message(lambda T: T.utils.data.StackDataset(Squares(2), Squares(3)))
    message(lambda T: T.utils.data.StackDataset())
    message(lambda T: T.utils.data.StackDataset(Squares(2), b=Squares(2)))


def test_random_split():
    def fn(T):
        D = T.utils.data
        a = D.random_split(range(10), [3, 7], generator=T.Generator().manual_seed(42))
        b = D.random_split(range(30), [0.3, 0.3, 0.4], generator=T.Generator().manual_seed(42))
        c = D.random_split(range(11), [0.5, 0.5], generator=T.Generator().manual_seed(1))
        T.manual_seed(9)
        d = D.random_split(range(5), [2, 3])
        return [[list(s) for s in split] for split in (a, b, c, d)] + [[len(s) for s in c]]
    check(fn)
    message(lambda T: T.utils.data.random_split(range(10), [3, 3]))
    message(lambda T: T.utils.data.random_split(range(10), [1.5, -0.5]))

    def zero_warning(T):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            T.utils.data.random_split(range(2), [0.1, 0.9], generator=T.Generator().manual_seed(0))
        return [str(x.message) for x in w]
    check(zero_warning)


# --- collation ----------------------------------------------------------------------------------------

def test_default_collate_types():
    def fn(T):
        c = T.utils.data.default_collate
        batch = [{"a": np.full((2, 2), i, np.float32), "b": (i, float(i) / 2), "p": Point(i, np.int32(i)),
                  "s": f"s{i}", "by": b"x", "t": T.tensor([i, i + 1]), "flag": i % 2 == 0,
                  "l": [np.float64(i), np.bool_(i)], "d": {"n": np.array(i, dtype=np.int16)}}
                 for i in range(3)]
        out = c(batch)
        return (out, c([1, 2, 3]), c([1.5, 2.0]), c([True, False]), c(["a", "b"]),
                c([np.array([1, 2], np.uint8), np.array([3, 4], np.uint8)]),
                c([np.float32(1.5), np.float32(2)]), c([(1, 2), (3, 4)]), c([[1, 2], [3, 4]]),
                c([T.zeros(2, dtype=T.float16), T.ones(2, dtype=T.float16)]),
                c([T.tensor(1.0), T.tensor(2.0)]), c([T.ones(2, dtype=T.bfloat16), T.zeros(2, dtype=T.bfloat16)]))
    check(fn)


def test_default_collate_errors():
    message(lambda T: T.utils.data.default_collate([object(), object()]))
    message(lambda T: T.utils.data.default_collate([np.array(["a"]), np.array(["b"])]))
    message(lambda T: T.utils.data.default_collate([[1, 2], [3]]))
    check_raises(lambda T: T.utils.data.default_collate([T.zeros(2), T.zeros(3)]))


def test_collate_fn_map_extension():
    def fn(T):
        mod = __import__(f"{T.__name__}.utils.data._utils.collate", fromlist=["collate"])

        def tensor_sum(batch, *, collate_fn_map=None):
            return T.stack(batch).sum(0)
        cmap = dict(mod.default_collate_fn_map)
        cmap[T.Tensor] = tensor_sum
        return (mod.collate([{"x": T.ones(2)}, {"x": T.ones(2)}], collate_fn_map=cmap),
                mod.collate([np.ones(2), np.ones(2)], collate_fn_map=cmap))
    check(fn)


def test_default_convert():
    def fn(T):
        cv = T.utils.data.default_convert
        return (cv(np.array([1, 2])), cv(np.float32(2.5)), cv(Point(np.array(0), 1)), cv((np.array([1.0]), "s")),
                cv({"a": np.zeros(2, np.int8), "b": [np.ones(1)]}), cv("text"), cv(np.array(["a"])), cv(3))
    check(fn)


# --- DataLoader, one process ---------------------------------------------------------------------------

def test_dataloader_map_style():
    def fn(T):
        D = T.utils.data
        x, y = T.arange(26, dtype=T.float32).reshape(13, 2), T.arange(13)
        ds = D.TensorDataset(x, y)
        T.manual_seed(0)
        out = {"seq": list(D.DataLoader(ds, batch_size=4)),
               "shuffle_default_gen": epochs(T, D.DataLoader(ds, batch_size=5, shuffle=True), 2),
               "shuffle_gen": epochs(T, D.DataLoader(ds, batch_size=4, shuffle=True, drop_last=True,
                                                     generator=T.Generator().manual_seed(3)), 2),
               "sampler": list(D.DataLoader(ds, batch_size=3, sampler=D.SubsetRandomSampler([1, 5, 7, 12]))),
               "batch_sampler": list(D.DataLoader(ds, batch_sampler=[[0, -1], [3, 2, 1]])),
               "no_batch": list(D.DataLoader(Squares(3), batch_size=None)),
               "collate_fn": list(D.DataLoader(Squares(5), batch_size=2, collate_fn=lambda b: sum(b))),
               "split": list(D.DataLoader(D.random_split(ds, [0.5, 0.5],
                                                         generator=T.Generator().manual_seed(1))[1], batch_size=4)),
               "dict": list(D.DataLoader(D.StackDataset(a=ds, b=Squares(13)), batch_size=6)),
               "lens": [len(D.DataLoader(ds, batch_size=4)), len(D.DataLoader(ds, batch_size=4, drop_last=True)),
                        len(D.DataLoader(ds, batch_size=None))],
               "state": T.get_rng_state()}
        return out
    check(fn)
    check_raises(lambda T: list(T.utils.data.DataLoader(
        T.utils.data.TensorDataset(T.arange(3)), batch_sampler=[[0, 3]])))


def test_tensor_dataset_batches_keep_dtypes():
    def fn(T):
        D = T.utils.data
        ds = D.TensorDataset(T.arange(6) % 2 == 0, T.arange(6, dtype=T.int8), T.arange(6).to(T.bfloat16),
                             T.arange(12, dtype=T.float64).reshape(6, 2, 1), T.arange(6, dtype=T.float16))
        w = T.ones(6, 2, requires_grad=True)
        grad_ds = D.Subset(D.TensorDataset(w * 2), [5, 0, 3])
        b = next(iter(D.DataLoader(grad_ds, batch_size=3)))[0]
        b.sum().backward()
        return list(D.DataLoader(ds, batch_size=4, sampler=[5, 0, -2, 1, 3])), b, b.requires_grad, w.grad
    check(fn)


def test_dataloader_iterable_dataset():
    def fn(T):
        D = T.utils.data
        stream = make_iterable(T, 0, 7)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            loader = D.DataLoader(stream, batch_size=3)
            length = len(loader)
            batches = list(loader)
            short = D.DataLoader(make_iterable(T, 0, 5), batch_size=2, drop_last=True)
            n_short = len(short)
            short_batches = list(short)
        return batches, length, short_batches, n_short, list(D.DataLoader(stream, batch_size=None)), len(w)
    check(fn)


def test_dataloader_argument_errors():
    ds = lambda T: T.utils.data.TensorDataset(T.arange(4))  # noqa: E731
    message(lambda T: T.utils.data.DataLoader(ds(T), num_workers=-1))
    message(lambda T: T.utils.data.DataLoader(ds(T), timeout=-1))
    message(lambda T: T.utils.data.DataLoader(ds(T), prefetch_factor=2))
    message(lambda T: T.utils.data.DataLoader(ds(T), persistent_workers=True))
    message(lambda T: T.utils.data.DataLoader(ds(T), shuffle=True, sampler=[0, 1]))
    message(lambda T: T.utils.data.DataLoader(ds(T), batch_size=2, batch_sampler=[[0]]))
    message(lambda T: T.utils.data.DataLoader(ds(T), batch_size=None, drop_last=True))
    message(lambda T: T.utils.data.DataLoader(make_iterable(T, 0, 2), shuffle=True))
    message(lambda T: iter(T.utils.data.DataLoader(ds(T), timeout=1)))
    message(lambda T: T.utils.data.DataLoader(ds(T), multiprocessing_context="spawn"))
    message(lambda T: T.utils.data.DataLoader(ds(T), num_workers=1, multiprocessing_context="nope"))
    message(lambda T: T.utils.data.DataLoader(ds(T), num_workers=1, multiprocessing_context=3))

    def frozen(T):
        loader = T.utils.data.DataLoader(ds(T))
        loader.num_workers = 0           # allowed
        loader.batch_size = 3
    message(frozen)

    def pin(T):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            out = list(T.utils.data.DataLoader(ds(T), batch_size=2, pin_memory=True))
        return out, [str(x.message) for x in w]
    check(pin)


def test_worker_seed_state_matches_torch():
    from torch.utils.data._utils.worker import _generate_state as ref
    from mstorch.utils.data._worker import _generate_state as got
    for base, wid in [(0, 0), (123456789, 1), (2 ** 63 - 1, 7), (6120473922452358467, 3)]:
        assert got(base, wid) == ref(base, wid)


# --- DataLoader, worker processes ---------------------------------------------------------------------

class RandomSamples:
    """Samples draw from torch/mstorch, NumPy and Python's random: in workers these follow the worker seeds."""

    def __init__(self, T, n):
        self.T, self.n = T, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        T = self.T
        info = T.utils.data.get_worker_info()
        return {"i": i, "t": T.rand(2), "np": np.random.rand(), "py": random.random(),
                "worker": -1 if info is None else info.id, "seed": 0 if info is None else info.seed,
                "bf16": T.full((2,), i, dtype=T.bfloat16), "tuple": (T.tensor([i]), np.int64(i), f"s{i}")}


class Sharded:
    def __init__(self, T, n):
        self.T, self.n = T, n

    def dataset(self):
        T, n = self.T, self.n

        class Shards(T.utils.data.IterableDataset):
            def __iter__(self):
                info = T.utils.data.get_worker_info()
                k, w = (0, 1) if info is None else (info.id, info.num_workers)
                return iter(range(k, n, w))
        return Shards()


def _shift_start(worker_id):
    ds = mstorch_or_torch_worker_dataset()
    ds.offset = 100 * (worker_id + 1)


def mstorch_or_torch_worker_dataset():
    for T in (mstorch, torch):
        info = T.utils.data.get_worker_info()
        if info is not None:
            return info.dataset
    raise AssertionError("not in a worker")


class Offset:
    offset = 0

    def __len__(self):
        return 6

    def __getitem__(self, i):
        return i + self.offset


def test_workers_match_torch():
    def fn(T):
        D = T.utils.data
        g = T.Generator().manual_seed(21)
        rnd = D.DataLoader(RandomSamples(T, 7), batch_size=2, shuffle=True, generator=g, num_workers=2)
        shards = D.DataLoader(Sharded(T, 7).dataset(), batch_size=2, num_workers=2)
        init = D.DataLoader(Offset(), batch_size=2, num_workers=2, worker_init_fn=_shift_start, prefetch_factor=1)
        unordered = D.DataLoader(Offset(), batch_size=2, num_workers=2, in_order=False)
        return list(rnd), list(shards), list(init), sorted(b.tolist() for b in unordered)
    check(fn)


def test_persistent_workers_two_epochs():
    def fn(T):
        D = T.utils.data
        ds = D.TensorDataset(T.arange(10) * 3)
        loader = D.DataLoader(ds, batch_size=3, shuffle=True, num_workers=2, persistent_workers=True,
                              generator=T.Generator().manual_seed(8))
        first = list(loader)
        it = loader._iterator
        second = list(loader)
        return first, second, loader._iterator is it, len(loader)
    check(fn)


class Failing:
    def __len__(self):
        return 6

    def __getitem__(self, i):
        if i == 3:
            raise ValueError("bad sample 3")
        return i


class MissingKey:
    def __len__(self):
        return 2

    def __getitem__(self, i):
        return {}["k"]


def test_worker_error_carries_worker_traceback():
    def fn(T):
        out = []
        for ds in (Failing(), MissingKey()):
            try:
                list(T.utils.data.DataLoader(ds, batch_size=2, num_workers=2))
            except Exception as e:  # noqa: BLE001
                lines = str(e).splitlines()
                out.append((type(e).__name__, lines[0], lines[1], lines[-1], "__getitem__" in str(e)))
        return out
    ref, got = check(fn)
    assert ref[0][1] == "Caught ValueError in DataLoader worker process 1."


class Slow:
    def __len__(self):
        return 2

    def __getitem__(self, i):
        time.sleep(0.8)
        return i


def test_worker_timeout():
    message(lambda T: list(T.utils.data.DataLoader(Slow(), num_workers=1, timeout=0.2)))
