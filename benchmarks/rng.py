"""Random-number generation for 1M elements: mstorch (torch's stream, reproduced on the host) vs torch.

Contenders run interleaved in a shuffled order each round (a run right after another library's is
slower on a shared host); medians of wall time are reported with the ratio mstorch/torch (target
<= 1.5), plus the ratio of process CPU time, which a loaded host distorts less.
Run: .venv/bin/python benchmarks/rng.py [--rounds N] [--numel N]
"""
import argparse
import os
import random
import statistics
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import mstorch  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(1)   # torch's CPU generator is serial; one thread keeps the comparison fair


def cases(n):
    return {
        "rand float32": lambda T: T.rand(n),
        "randn float32": lambda T: T.randn(n),
        "randint int64": lambda T: T.randint(0, 1000, (n,)),
        "rand float64": lambda T: T.rand(n, dtype=T.float64),
        "randn float64": lambda T: T.randn(n, dtype=T.float64),
        "uniform_(-a, a)": lambda T: T.empty(n).uniform_(-0.05, 0.05),
        "normal_(0, std)": lambda T: T.empty(n).normal_(0.0, 0.02),
        "bernoulli_(0.5)": lambda T: T.empty(n).bernoulli_(0.5),
        "randperm": lambda T: T.randperm(n),
    }


def race(fns, rounds):
    wall = {k: [] for k in fns}
    cpu = {k: [] for k in fns}
    for fn in fns.values():
        fn()
    names = list(fns)
    for _ in range(rounds):
        random.shuffle(names)
        for name in names:
            c0, t0 = time.process_time(), time.perf_counter()
            fns[name]()
            wall[name].append(time.perf_counter() - t0)
            cpu[name].append(time.process_time() - c0)
    return ({k: statistics.median(v) for k, v in wall.items()}, {k: statistics.median(v) for k, v in cpu.items()})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--numel", type=int, default=1 << 20)
    ap.add_argument("--only", default="", help="comma-separated case names (substring match)")
    args = ap.parse_args()
    print(f"{'case':18s} {'torch ms':>9s} {'mstorch ms':>11s} {'ratio':>6s} {'cpu ratio':>10s}")
    for name, fn in cases(args.numel).items():
        if args.only and not any(s in name for s in args.only.split(",")):
            continue
        t, c = race({"torch": lambda: fn(torch), "mstorch": lambda: fn(mstorch)}, args.rounds)
        print(f"{name:18s} {t['torch'] * 1e3:9.2f} {t['mstorch'] * 1e3:11.2f} {t['mstorch'] / t['torch']:6.2f} "
              f"{c['mstorch'] / max(c['torch'], 1e-9):10.2f}")


if __name__ == "__main__":
    main()
