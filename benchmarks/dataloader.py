"""DataLoader throughput: mstorch.utils.data vs torch.utils.data, 0 and 2 worker processes.

Datasets: a TensorDataset (images 3x32x32 float32 + int64 labels), a map-style dataset whose
``__getitem__`` returns NumPy arrays (the usual decode/augment pipeline), and one that returns a tensor
per sample (``from_numpy`` inside ``__getitem__``). One timing = one shuffled epoch, batch 64. Contenders
run interleaved in a shuffled order each round; medians are reported as samples/s, with the ratio
mstorch time / torch time (1.0 = as fast as torch). Workers are persistent, so rounds measure the steady
state; worker start-up (first batch of a fresh loader) is reported apart.

Run: .venv/bin/python benchmarks/dataloader.py [--rounds N] [--samples N]
"""
import argparse
import os
import random
import statistics
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import mstorch  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(1)
LIBS = {"mstorch": mstorch, "torch": torch}
BATCH = 64


class NumpyImages:
    """``__getitem__`` does host work on NumPy arrays (normalise + random flip), returns (array, int)."""

    def __init__(self, n):
        rng = np.random.RandomState(0)
        self.images = rng.randint(0, 255, size=(n, 32, 32, 3), dtype=np.uint8)
        self.labels = rng.randint(0, 10, size=n)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        img = self.images[i].astype(np.float32).transpose(2, 0, 1) / 255.0
        if np.random.rand() < 0.5:
            img = img[:, :, ::-1]
        return np.ascontiguousarray(img), int(self.labels[i])


class TensorPerSample(NumpyImages):
    """As NumpyImages, but each sample is turned into a tensor of the library under test."""

    def __init__(self, n, T):
        super().__init__(n)
        self.T = T

    def __getitem__(self, i):
        img, label = super().__getitem__(i)
        return self.T.from_numpy(img), label


def make_dataset(kind, T, n):
    if kind == "TensorDataset":
        rng = np.random.RandomState(0)
        x = T.from_numpy(rng.standard_normal((n, 3, 32, 32)).astype(np.float32))
        y = T.from_numpy(rng.randint(0, 10, size=n).astype(np.int64))
        return T.utils.data.TensorDataset(x, y)
    if kind == "numpy __getitem__":
        return NumpyImages(n)
    return TensorPerSample(n, T)


def make_loader(kind, T, n, workers, seed=0):
    kw = {"num_workers": workers}
    if workers:
        kw["persistent_workers"] = True
    return T.utils.data.DataLoader(make_dataset(kind, T, n), batch_size=BATCH, shuffle=True,
                                   generator=T.Generator().manual_seed(seed), **kw)


def epoch(loader):
    t0 = time.perf_counter()
    n = 0
    for x, _ in loader:
        n += x.shape[0]
    return time.perf_counter() - t0, n


def race(loaders, rounds):
    for loader in loaders.values():   # warm-up (and start persistent workers)
        epoch(loader)
    samples, counts = {k: [] for k in loaders}, {}
    names = list(loaders)
    for _ in range(rounds):
        random.shuffle(names)
        for name in names:
            dt, counts[name] = epoch(loaders[name])
            samples[name].append(dt)
    return {k: counts[k] / statistics.median(v) for k, v in samples.items()}


def startup(kind, n, workers, rounds):
    """Median seconds from a fresh loader to its first batch."""
    out = {}
    for name, T in LIBS.items():
        times = []
        for _ in range(rounds):
            loader = make_loader(kind, T, n, workers)
            t0 = time.perf_counter()
            it = iter(loader)
            next(it)
            times.append(time.perf_counter() - t0)
            del it, loader
        out[name] = statistics.median(times)
    return out


def check_same_batches(kind, n):
    """The benchmark compares like with like: both libraries yield the same first batch."""
    a = next(iter(make_loader(kind, mstorch, n, 0)))
    b = next(iter(make_loader(kind, torch, n, 0)))
    assert np.array_equal(a[1].numpy(), b[1].numpy()), "label order differs from torch's"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--samples", type=int, default=2048)
    args = p.parse_args()
    print(f"DataLoader throughput, batch {BATCH}, {args.samples} samples/epoch, shuffle, median of "
          f"{args.rounds} interleaved rounds (samples/s; ratio = mstorch time / torch time)")
    print(f"{'dataset':<20} {'workers':>7} {'mstorch':>10} {'torch':>10} {'ratio':>6}")
    for kind in ("TensorDataset", "numpy __getitem__", "tensor __getitem__"):
        check_same_batches(kind, args.samples)
        for workers in (0, 2):
            loaders = {name: make_loader(kind, T, args.samples, workers) for name, T in LIBS.items()}
            rate = race(loaders, args.rounds)
            print(f"{kind:<20} {workers:>7} {rate['mstorch']:>10.0f} {rate['torch']:>10.0f} "
                  f"{rate['torch'] / rate['mstorch']:>6.2f}", flush=True)
            del loaders
    s = startup("TensorDataset", args.samples, 2, max(3, args.rounds // 2))
    print(f"start-up to first batch, 2 workers (fork): mstorch {s['mstorch'] * 1e3:.0f} ms, "
          f"torch {s['torch'] * 1e3:.0f} ms")


if __name__ == "__main__":
    main()
