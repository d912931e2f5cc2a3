"""torch.distributed on CPU, 2 processes: mstorch.distributed against torch.distributed with gloo.

Both libraries run in the same two processes (each with its own process group), so every contender sees
the same machine state; contenders run interleaved, in an order shuffled each round (the same on both
ranks), and medians are reported.

- all_reduce (sum, float32) by size: median seconds per call and algorithm bandwidth (bytes / time).
- DDP step overhead: one training step (forward, backward, SGD) of an MLP wrapped in
  DistributedDataParallel on 2 ranks, against the same step of the unwrapped model in one process
  (same per-rank batch): the difference is what gradient averaging costs per step.

Run: .venv/bin/python benchmarks/distributed.py [--rounds N] [--doc]   (--doc: rewrites the
"## Distributed" section of docs/performance.md)
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
SECTION = "## Distributed: all_reduce and DDP against torch gloo"
NOTE = ("The collectives run on MindSpore's communication engine (`mccl` on CPU): the all_reduce gap to gloo is "
        "the engine's own (raw `mint.distributed.all_reduce` on the same group costs the same), and mstorch adds "
        "its per-call checks and the wait on the engine's handle. The DDP overhead is the bucket flattening, the "
        "engine's all-reduces and the averaging back into `.grad`. Each bucket's all-reduce is launched inside "
        "backward as soon as its gradients are in, as torch's; with the CPU default of blocking kernel launch "
        "(`MSTORCH_LAUNCH_BLOCKING`) MindSpore's CPU engine completes the all-reduce within the launch, so backward "
        "waits for it there instead of computing the earlier layers meanwhile (on GPU/Ascend, or with "
        "`MSTORCH_LAUNCH_BLOCKING=0`, the engine's handle is asynchronous).")


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

    # raw MindSpore on the same engine (the world group mstorch's init started): what mstorch adds per call
    import mindspore
    import mindspore.mint.distributed as md
    for n in SIZES:
        t = mindspore.mint.zeros(n)
        reps = max(3, min(200, 2 ** 22 // (n * 8)))
        contenders[("all_reduce", n, "mindspore")] = (mstorch, lambda t=t, reps=reps: timed(
            lambda: md.all_reduce(t), reps))

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
    p.add_argument("--doc", action="store_true", help="write the results into docs/performance.md")
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
    import platform
    import mindspore
    import torch
    params = sum(p.numel() for p in mlp(torch).parameters())
    lines = [SECTION, "",
             "`benchmarks/distributed.py` (rerun with `--doc` to refresh): 2 processes on CPU, each with an mstorch and "
             "a torch process group (torch: `torch.distributed` with gloo); contenders interleaved in an order shuffled "
             "each round, medians, with raw MindSpore's `mint.distributed.all_reduce` on the same engine and world "
             "group. *ratio* = mstorch time / torch time.", "",
             f"Run: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; mindspore {mindspore.__version__}, torch "
             f"{torch.__version__}; {platform.machine()}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; "
             f"medians of {args.rounds} rounds. The host is shared and noisy: compare ratios, not absolute times.", "",
             "| all_reduce float32 | mstorch ms | mstorch MB/s | MindSpore ms | torch ms | torch MB/s | ratio | "
             "mstorch / MindSpore |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for n in SIZES:
        m, t, r = (med[("all_reduce", n, who)] for who in ("mstorch", "torch", "mindspore"))
        mb = n * 4 / 1e6
        lines.append(f"| {n * 4 // 1024} KiB | {m * 1e3:.3f} | {mb / m:.1f} | {r * 1e3:.3f} | {t * 1e3:.3f} | "
                     f"{mb / t:.1f} | {m / t:.1f}× | {m / r:.2f}× |")
    lines += ["", f"DDP step: MLP {LAYERS}x{HIDDEN} ({params / 1e6:.2f} M parameters, {params * 4 / 2 ** 20:.1f} MiB of "
              f"gradients, 2 buckets), batch {BATCH} per rank, SGD; *overhead* = DDP step on 2 ranks − the same step "
              "of the unwrapped model.", "",
              "| | 1 process ms | DDP 2 ranks ms | overhead ms |", "|---|---:|---:|---:|"]
    for name in ("mstorch", "torch"):
        local, ddp = med[("local", name)], med[("ddp", name)]
        lines.append(f"| {name} | {local * 1e3:.1f} | {ddp * 1e3:.1f} | {(ddp - local) * 1e3:.1f} |")
    lines += ["", NOTE]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.doc:
        path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "performance.md")
        with open(path) as f:
            doc = f.read()
        if SECTION in doc:       # replace this section, keep what follows it
            head, rest = doc.split(SECTION, 1)
            tail = rest[rest.index("\n## ") + 1:] if "\n## " in rest else ""
            doc = head + text + ("\n" + tail if tail else "")
        else:
            doc = doc.rstrip("\n") + "\n\n" + text
        with open(path, "w") as f:
            f.write(doc)

if __name__ == "__main__":
    main()
