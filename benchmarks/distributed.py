"""torch.distributed on CPU, 2 processes: mstorch.distributed against torch.distributed with gloo.

Both libraries run in the same two processes (each with its own process group), so every contender sees
the same machine state; contenders run interleaved, in an order shuffled each round (the same on both
ranks), and medians are reported.

- all_reduce (sum, float32) by size: median seconds per call and algorithm bandwidth (bytes / time).
- DDP step overhead: one training step (forward, backward, SGD) of an MLP wrapped in
  DistributedDataParallel on 2 ranks, against the same step of the unwrapped model in one process
  (same per-rank batch): the difference is what gradient averaging costs per step.

Run: .venv/bin/python benchmarks/distributed.py [--rounds N]
"""
import argparse
import os
import random
import socket
import statistics
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

SIZES = [256, 16 * 1024, 256 * 1024, 2 * 1024 * 1024]      # float32 elements: 1 KiB .. 8 MiB
HIDDEN, LAYERS, BATCH = 512, 4, 32


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def timed(fn, reps):
    fn()                                   # not counted: first call, lazy set-up
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - t0) / reps


def mlp(T):
    T.manual_seed(0)
    layers = []
    for i in range(LAYERS):
        layers += [T.nn.Linear(64 if i == 0 else HIDDEN, HIDDEN), T.nn.ReLU()]
    return T.nn.Sequential(*layers, T.nn.Linear(HIDDEN, 10))


def step_fn(T, model, x, y):
    opt = T.optim.SGD(model.parameters(), lr=0.01)

    def step():
        opt.zero_grad()
        T.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    return step


def worker(rank, ports, rounds, out):
    import numpy as np
    import mstorch
    import torch
    torch.set_num_threads(1)
    libs = {"mstorch": mstorch, "torch": torch}
    for (name, T), port in zip(libs.items(), ports):
        T.distributed.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", world_size=2, rank=rank)
    rs = np.random.RandomState(rank)
    x_np, y_np = rs.randn(BATCH, 64).astype(np.float32), rs.randint(0, 10, BATCH)

    contenders = {}
    for name, T in libs.items():
        for n in SIZES:
            t = T.zeros(n)                 # a sum that stays finite over repetitions
            reps = max(3, min(200, 2 ** 22 // (n * 8)))
            contenders[("all_reduce", n, name)] = (T, lambda T=T, t=t, reps=reps: timed(
                lambda: T.distributed.all_reduce(t), reps))
        x, y = T.tensor(x_np), T.tensor(y_np)
        ddp = T.nn.parallel.DistributedDataParallel(mlp(T))
        contenders[("ddp", name)] = (T, lambda f=step_fn(T, ddp, x, y): timed(f, 5))
        contenders[("local", name)] = (T, lambda f=step_fn(T, mlp(T), x, y): timed(f, 5))

    samples = {k: [] for k in contenders}
    keys = sorted(contenders, key=str)
    order = random.Random(0)                # the same shuffles on both ranks: collectives must match
    for _ in range(rounds):
        order.shuffle(keys)
        for k in keys:
            T, fn = contenders[k]
            T.distributed.barrier()
            samples[k].append(fn())
    if rank == 0:
        with open(out, "w") as f:
            f.write(repr({k: statistics.median(v) for k, v in samples.items()}))
    for T in libs.values():
        T.distributed.barrier()
        T.distributed.destroy_process_group()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=5)
    args = p.parse_args()
    import multiprocessing as mp
    import tempfile
    out = os.path.join(tempfile.mkdtemp(), "medians")
    ports = [free_port(), free_port()]
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=worker, args=(r, ports, args.rounds, out)) for r in range(2)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join()
    if any(proc.exitcode for proc in procs):
        raise SystemExit("a rank failed")
    with open(out) as f:
        med = eval(f.read())  # noqa: S307 -- our own repr of a dict of floats
    print(f"2 processes on CPU, medians of {args.rounds} interleaved rounds; torch = torch.distributed + gloo")
    print(f"{'all_reduce float32':<20} {'mstorch ms':>11} {'MB/s':>8} {'torch ms':>10} {'MB/s':>8} {'ratio':>6}")
    for n in SIZES:
        m, t = med[("all_reduce", n, "mstorch")], med[("all_reduce", n, "torch")]
        mb = n * 4 / 1e6
        print(f"{n * 4 / 1024:>14.0f} KiB {m * 1e3:>11.3f} {mb / m:>8.1f} {t * 1e3:>10.3f} {mb / t:>8.1f} "
              f"{m / t:>6.1f}")
    params = sum(p.numel() for p in mlp(__import__("torch")).parameters())
    print(f"\nDDP step, MLP {LAYERS}x{HIDDEN} ({params / 1e6:.2f} M parameters, {params * 4 / 2 ** 20:.1f} MiB of "
          f"gradients), batch {BATCH} per rank")
    print(f"{'':<10} {'1 process ms':>13} {'DDP 2 ranks ms':>15} {'overhead ms':>12}")
    for name in ("mstorch", "torch"):
        local, ddp = med[("local", name)], med[("ddp", name)]
        print(f"{name:<10} {local * 1e3:>13.2f} {ddp * 1e3:>15.2f} {(ddp - local) * 1e3:>12.2f}")


if __name__ == "__main__":
    main()
