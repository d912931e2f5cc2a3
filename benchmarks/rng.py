"""Random-number generation for 1M elements: mstorch (torch's stream, reproduced on the host) vs torch.

Contenders run interleaved, one call each in turn, in an order shuffled every round (a run right after
another library's is slower on a shared host); medians of wall time are reported with the ratio
mstorch/torch (target <= 1.5), plus the ratio of process CPU time, which a loaded host distorts less.
Run: .venv/bin/python benchmarks/rng.py [--rounds N] [--numel N] [--only name,name]
(MSTORCH_RNG_NATIVE=0 times the NumPy kernels instead of the native library.)
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

torch.set_num_threads(1)   # torch's CPU generator is serial; one thread keeps the comparison fair

FLOATS = ("float32", "float64", "float16", "bfloat16")


def cases(n):
    side = int(round(n ** 0.5))
    probs = np.random.RandomState(0).rand(side, side).astype(np.float32)
    inputs = {}

    def tensor(T, dt):          # built once per library and dtype, outside the timed call
        key = (T.__name__, dt)
        if key not in inputs:
            inputs[key] = T.tensor(probs).to(getattr(T, dt))
        return inputs[key]

    out = {}
    for d in FLOATS:
        out[f"rand {d}"] = lambda T, d=d: T.rand(n, dtype=getattr(T, d))
        out[f"randn {d}"] = lambda T, d=d: T.randn(n, dtype=getattr(T, d))
        out[f"uniform_(-a,a) {d}"] = lambda T, d=d: T.empty(n, dtype=getattr(T, d)).uniform_(-0.05, 0.05)
        out[f"normal_(0,std) {d}"] = lambda T, d=d: T.empty(n, dtype=getattr(T, d)).normal_(0.0, 0.02)
        out[f"bernoulli_(0.5) {d}"] = lambda T, d=d: T.empty(n, dtype=getattr(T, d)).bernoulli_(0.5)
        out[f"dropout(0.1) {d}"] = lambda T, d=d: T.nn.functional.dropout(T.ones(n, dtype=getattr(T, d)), 0.1)
    out["randint int64"] = lambda T: T.randint(0, 1000, (n,))
    out["randint int32"] = lambda T: T.randint(-5, 5, (n,), dtype=T.int32)
    out["randperm"] = lambda T: T.randperm(n)
    for d in ("float32", "float64"):
        out[f"multinomial({side}x{side},1) {d}"] = lambda T, d=d: T.multinomial(tensor(T, d), 1)
        out[f"multinomial(repl,{side}) {d}"] = lambda T, d=d: T.multinomial(tensor(T, d), side, True)
        out[f"bernoulli(p tensor) {d}"] = lambda T, d=d: T.bernoulli(tensor(T, d))
    return out


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
    from mstorch._random import native
    print("mstorch kernels:", "native C library" if native.on() else "NumPy (native library not loaded)")
    print(f"{'case (numel=' + str(args.numel) + ')':32s} {'torch ms':>9s} {'mstorch ms':>11s} {'ratio':>6s} "
          f"{'cpu ratio':>10s}")
    worst = 0.0
    for name, fn in cases(args.numel).items():
        if args.only and not any(s in name for s in args.only.split(",")):
            continue
        t, c = race({"torch": lambda: fn(torch), "mstorch": lambda: fn(mstorch)}, args.rounds)
        ratio = t["mstorch"] / t["torch"]
        worst = max(worst, ratio)
        print(f"{name:32s} {t['torch'] * 1e3:9.2f} {t['mstorch'] * 1e3:11.2f} {ratio:6.2f} "
              f"{c['mstorch'] / max(c['torch'], 1e-9):10.2f}", flush=True)
    print(f"worst ratio: {worst:.2f} (target <= 1.5)")


if __name__ == "__main__":
    main()
