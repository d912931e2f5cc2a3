"""Optimizer step time: mstorch vs torch (its default CPU path) vs MindSpore's own optimizer
(``mindspore.experimental.optim``) on the same parameters and gradients.

Every optimizer that exists both in ``mstorch.optim`` at run time and in ``mindspore.experimental.optim``
is timed on a 20-parameter model (10 x a (64, 64) weight and a (64,) bias); then Adam on 5, 20 and 80
parameters (the step should grow with the parameter count like torch's); then, for each mstorch
optimizer, the parameters after a few steps against torch's. Contenders run interleaved, in a shuffled
order each round; medians are reported, with ratios mstorch/MindSpore and mstorch/torch.
Run: .venv/bin/python benchmarks/optim.py [--rounds N] [--inner N]
"""
import argparse
import os
import random
import statistics
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import mindspore as ms  # noqa: E402
from mindspore.experimental import optim as ms_optim  # noqa: E402

import mstorch  # noqa: E402  (selects PyNative + blocking launch, which the MindSpore contender runs under too)
import torch  # noqa: E402

torch.set_num_threads(1)

# label, class name, constructor arguments (the same in the three libraries)
SPECS = [
    ("SGD", "SGD", dict(lr=0.01)),
    ("SGD momentum", "SGD", dict(lr=0.01, momentum=0.9)),
    ("Adam", "Adam", dict(lr=1e-3)),
    ("AdamW", "AdamW", dict(lr=1e-3)),
    ("Adamax", "Adamax", dict(lr=2e-3)),
    ("NAdam", "NAdam", dict(lr=2e-3)),
    ("RAdam", "RAdam", dict(lr=1e-3)),
    ("RMSprop", "RMSprop", dict(lr=0.01)),
    ("Adagrad", "Adagrad", dict(lr=0.01)),
    ("Adadelta", "Adadelta", dict(lr=1.0)),
    ("ASGD", "ASGD", dict(lr=0.01)),
    ("Rprop", "Rprop", dict(lr=0.01)),
]


def shapes(n):
    return [((64, 64), (64,))[i % 2] for i in range(n)]


def arrays(n, seed):
    rng = np.random.RandomState(seed)
    return [rng.standard_normal(s).astype(np.float32) for s in shapes(n)]


def timeit(fn, inner):
    t0 = time.perf_counter()
    for _ in range(inner):
        fn()
    return (time.perf_counter() - t0) / inner


def race(contenders, rounds, inner):
    """contenders: name -> zero-arg callable. Returns name -> median seconds per call."""
    samples = {k: [] for k in contenders}
    for fn in contenders.values():   # warm-up (state creation, caches)
        fn()
        fn()
    names = list(contenders)
    for _ in range(rounds):
        random.shuffle(names)
        for name in names:
            samples[name].append(timeit(contenders[name], inner))
    return {k: statistics.median(v) for k, v in samples.items()}


def contenders(cls_name, kwargs, n):
    """Step functions of the three libraries on the same n parameters and gradients (the gradients
    stay fixed: only the step is timed)."""
    weights, grads = arrays(n, 0), arrays(n, 1)
    mp = [mstorch.nn.Parameter(mstorch.tensor(w)) for w in weights]
    for p, g in zip(mp, grads):
        p.grad = mstorch.tensor(g)
    tp = [torch.nn.Parameter(torch.tensor(w)) for w in weights]
    for p, g in zip(tp, grads):
        p.grad = torch.tensor(g)
    xp = [ms.Parameter(ms.Tensor(w), name=f"w{i}") for i, w in enumerate(weights)]
    xg = tuple(ms.Tensor(g) for g in grads)
    m_opt = getattr(mstorch.optim, cls_name)(mp, **kwargs)
    t_opt = getattr(torch.optim, cls_name)(tp, **kwargs)
    x_opt = getattr(ms_optim, cls_name)(xp, **kwargs)

    def mindspore_step():
        x_opt(xg)
        # MindSpore's optimizer Cell may switch op recording off process-wide; the mstorch contender
        # that runs next needs it on (its own step turns it back on too)
        mstorch.autograd.resume_recording()
    return {"mstorch": m_opt.step, "torch": t_opt.step, "mindspore": mindspore_step}


def max_relative_difference(cls_name, kwargs, steps=5, n=4):
    """Parameters after `steps` steps with the same weights and per-step gradients in mstorch and torch."""
    weights = arrays(n, 2)
    grads = [arrays(n, 10 + i) for i in range(steps)]
    out = {}
    for lib in (mstorch, torch):
        params = [lib.nn.Parameter(lib.tensor(w)) for w in weights]
        opt = getattr(lib.optim, cls_name)(params, **kwargs)
        for gs in grads:
            for p, g in zip(params, gs):
                p.grad = lib.tensor(g)
            opt.step()
        out[lib.__name__] = [p.detach().numpy().copy() for p in params]
    return max(float(np.max(np.abs(a - b)) / np.max(np.abs(b))) for a, b in zip(out["mstorch"], out["torch"]))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--inner", type=int, default=10)
    args = parser.parse_args()
    print(f"mindspore {ms.__version__}, torch {torch.__version__}, mstorch {mstorch.__version__}, "
          f"{os.cpu_count()} cpus; medians of {args.rounds} shuffled rounds x {args.inner} steps")
    available = [s for s in SPECS if hasattr(mstorch.optim, s[1]) and hasattr(ms_optim, s[1])]
    missing = [s[0] for s in SPECS if s not in available]

    print("\nstep time, 20 parameters (10 x (64, 64) + 10 x (64,)), ms:")
    print(f"{'optimizer':<15}{'mstorch':>10}{'torch':>10}{'MindSpore':>11}{'ms-torch/MindSpore':>20}"
          f"{'ms-torch/torch':>16}")
    for label, cls_name, kwargs in available:
        r = race(contenders(cls_name, kwargs, 20), args.rounds, args.inner)
        print(f"{label:<15}{r['mstorch'] * 1e3:>10.3f}{r['torch'] * 1e3:>10.3f}{r['mindspore'] * 1e3:>11.3f}"
              f"{r['mstorch'] / r['mindspore']:>20.2f}{r['mstorch'] / r['torch']:>16.2f}")
    if missing:
        print(f"(not in mstorch.optim yet: {', '.join(missing)})")

    print("\nAdam step time against the number of parameters, ms (us per parameter):")
    print(f"{'params':<8}{'mstorch':>18}{'torch':>18}{'MindSpore':>18}{'ms-torch/MindSpore':>20}{'ms-torch/torch':>16}")
    for n in (5, 20, 80):
        r = race(contenders("Adam", dict(lr=1e-3), n), args.rounds, args.inner)
        cells = "".join(f"{r[k] * 1e3:>9.3f} ({r[k] * 1e6 / n:>5.1f})" for k in ("mstorch", "torch", "mindspore"))
        print(f"{n:<8}{cells}{r['mstorch'] / r['mindspore']:>20.2f}{r['mstorch'] / r['torch']:>16.2f}")

    print("\nparameters after 5 steps, max |mstorch - torch| / max |torch| (per tensor, worst tensor):")
    worst = 0.0
    for label, cls_name, kwargs in SPECS:
        if not hasattr(mstorch.optim, cls_name):
            continue
        d = max_relative_difference(cls_name, kwargs)
        worst = max(worst, d)
        print(f"  {label:<15}{d:.2e}")
    return 0 if worst < 1e-6 else 1


if __name__ == "__main__":
    sys.exit(main())
