"""torch.compile: the inference forward (eval mode, no grad) of the workloads, eager vs compiled.

Contenders per workload, interleaved in a shuffled order every round in one process: mstorch eager,
mstorch ``torch.compile(model)`` (a MindSpore graph captured by trace, or eager where the capture is
refused: the reason is printed; after its trials each key keeps the faster of graph and eager: which is
printed), the same captured graph always replayed, torch eager and, with ``--inductor``, torch ``torch.compile`` (inductor
compiles C++ per model: ~30 s each on a 2-core host). Prints the compile time (first call), the median
steady-state times, the ratios and the largest difference between mstorch's compiled and eager outputs.
The models come from ``workloads.py`` (same seed, so the same weights in both libraries).

    .venv/bin/python benchmarks/compile.py                # all models
    .venv/bin/python benchmarks/compile.py --only mlp,cnn --rounds 20
"""
import argparse
import os
import random
import statistics
import sys
import time
import warnings

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

import workloads  # noqa: E402  (imports mstorch and torch)
import mstorch  # noqa: E402
import torch  # noqa: E402

MODELS = ("mlp", "cnn", "resnet18", "lstm_lm", "gpt", "bert")


def build(T, name):
    T.manual_seed(0)
    model, _, inputs, _, _ = getattr(workloads, name)(T)
    return model.eval(), inputs


def timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def bench(name, rounds, inductor):
    ms_model, ms_in = build(mstorch, name)
    th_model, th_in = build(torch, name)
    ms_compiled = mstorch.compile(ms_model)
    # .numpy(): the results computed and read, in every contender
    contenders = {"mstorch eager": lambda: ms_model(*ms_in).numpy(), "torch eager": lambda: th_model(*th_in).numpy()}
    with mstorch.no_grad():
        compile_s = timed(lambda: ms_compiled(*ms_in))
        diff = float((ms_compiled(*ms_in) - ms_model(*ms_in)).abs().max())
    graphs = ms_compiled._graphs
    captured = any(isinstance(e, tuple) for e in graphs.entries.values())
    # "compiled": what torch.compile gives (each key keeps the faster of graph and eager after its trials);
    # "graph": the same capture, always replayed
    ms_graph = mstorch.compile(ms_model)
    with mstorch.no_grad():
        ms_graph(*ms_in)
        for _ in range(2 * mstorch._compile._TRIALS):
            ms_compiled(*ms_in)
    ms_graph._graphs.choices.update({k: "graph" for k, e in ms_graph._graphs.entries.items() if isinstance(e, tuple)})
    contenders["mstorch compiled"] = lambda: ms_compiled(*ms_in).numpy()
    contenders["mstorch graph"] = lambda: ms_graph(*ms_in).numpy()
    th_compile_s = None
    if inductor:
        th_compiled = torch.compile(th_model)
        with torch.no_grad():
            th_compile_s = timed(lambda: th_compiled(*th_in))
        contenders["torch compiled"] = lambda: th_compiled(*th_in).numpy()
    times = {k: [] for k in contenders}
    with mstorch.no_grad(), torch.no_grad():
        for _ in range(2):
            for fn in contenders.values():
                fn()
        for _ in range(rounds):
            order = list(contenders)
            random.shuffle(order)
            for k in order:
                times[k].append(timed(contenders[k]))
    med = {k: statistics.median(v) * 1e3 for k, v in times.items()}
    line = (f"{name:9s} compile {compile_s * 1e3:8.1f} ms  " + "  ".join(f"{k} {v:8.2f} ms" for k, v in med.items())
            + f"  compiled/eager {med['mstorch compiled'] / med['mstorch eager']:.2f}x"
            + f"  graph/eager {med['mstorch graph'] / med['mstorch eager']:.2f}x"
            + f"  compiled/torch {med['mstorch compiled'] / med['torch eager']:.2f}x  max|compiled-eager| {diff:.1e}")
    if th_compile_s is not None:
        line += f"  torch compile {th_compile_s:.1f} s"
    print(line, flush=True)
    kept = "; ".join(graphs.choices.values()) or "not settled"
    print(f"{'':9s} {'one MindSpore graph, kept: ' + kept if captured else 'eager (capture refused): ' + '; '.join(graphs.reasons)}",
          flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default=",".join(MODELS))
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--inductor", action="store_true", help="also time torch.compile (inductor)")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    mstorch.set_num_threads(args.threads)
    random.seed(0)
    np.random.seed(0)
    warnings.simplefilter("ignore")
    for name in args.only.split(","):
        bench(name, args.rounds, args.inductor)


if __name__ == "__main__":
    main()
