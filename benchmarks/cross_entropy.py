"""Cross-entropy at a language-model vocabulary (C = 50257): forward + backward of F.cross_entropy in mstorch,
torch, and raw MindSpore (``ms.value_and_grad`` over ``ops.cross_entropy`` and over
``nn.SoftmaxCrossEntropyWithLogits(sparse=True)``), for N = 8 and 64 rows, plain and with padding rows
ignored or label smoothing. Contenders run interleaved, in a shuffled order each round; medians are
reported with ratios mstorch / fastest MindSpore and mstorch / torch, then the largest differences of
mstorch's loss and gradient from torch's.
Run: .venv/bin/python benchmarks/cross_entropy.py [--rounds N] [--inner N]
"""
import argparse
import os
import sys

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import mindspore as ms  # noqa: E402
from mindspore import nn, ops  # noqa: E402

import mstorch  # noqa: E402  (selects PyNative + blocking launch, which the MindSpore contenders run under too)
import torch  # noqa: E402
from overhead import race  # noqa: E402

torch.set_num_threads(1)
C = 50257
PAD = -100
VARIANTS = {  # label: (keyword arguments of the three cross-entropies, whether a quarter of rows is padding)
    "mean": ({}, False),
    "mean, 1/4 rows ignored": ({"ignore_index": PAD}, True),
    "mean, label_smoothing=0.1": ({"label_smoothing": 0.1}, False),
}


def data(n, padded):
    rng = np.random.RandomState(n)
    x = (rng.standard_normal((n, C)) * 3).astype(np.float32)
    t = rng.randint(0, C, n).astype(np.int64)
    if padded:
        t[::4] = PAD
    return x, t


def torch_style(T, x, t, kw):
    xt = T.tensor(x, requires_grad=True)
    tt = T.tensor(t)

    def step():
        loss = T.nn.functional.cross_entropy(xt, tt, **kw)
        loss.backward()
        g, xt.grad = xt.grad, None
        return loss, g
    return step


def _resuming(grad_fn, xm):
    def step():
        out = grad_fn(xm)
        # value_and_grad switches op recording off for the whole process; the mstorch contender that runs
        # next in this interleaved race needs it on (a Module call would do this itself)
        mstorch.autograd.resume_recording()
        return out
    return step


def mindspore_functional(x, t, kw):
    xm, tm = ms.Tensor(x), ms.Tensor(t.astype(np.int32))
    return _resuming(ms.value_and_grad(lambda v: ops.cross_entropy(v, tm, **kw)), xm)


def mindspore_cell(x, t, padded):
    if padded:   # the Cell has no ignore_index: the idiomatic form drops the padded rows first
        keep = t != PAD
        x, t = x[keep], t[keep]
    xm, tm = ms.Tensor(x), ms.Tensor(t.astype(np.int32))
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return _resuming(ms.value_and_grad(lambda v: loss(v, tm)), xm)


def differences(x, t, kw):
    ref_loss, ref_grad = torch_style(torch, x, t, kw)()
    loss, grad = torch_style(mstorch, x, t, kw)()
    rel = abs(loss.item() - ref_loss.item()) / abs(ref_loss.item())
    return rel, float(np.abs(grad.numpy() - ref_grad.numpy()).max()), float(np.abs(ref_grad.numpy()).max())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--inner", type=int, default=2)
    args = parser.parse_args()
    print(f"mindspore {ms.__version__}, torch {torch.__version__}, mstorch {mstorch.__version__}, "
          f"{os.cpu_count()} cpus; C = {C}; forward + backward; medians of {args.rounds} shuffled rounds x "
          f"{args.inner} calls, ms")
    head = ["N", "mstorch", "torch", "ms ops.cross_entropy", "ms SCE Cell", "/MindSpore", "/torch"]
    print(f"\n{'case':<28}{head[0]:>4}{head[1]:>10}{head[2]:>9}{head[3]:>22}{head[4]:>13}{head[5]:>12}{head[6]:>8}")
    for label, (kw, padded) in VARIANTS.items():
        for n in (8, 64):
            x, t = data(n, padded)
            contenders = {"mstorch": torch_style(mstorch, x, t, kw), "torch": torch_style(torch, x, t, kw),
                          "ms functional": mindspore_functional(x, t, kw)}
            if not kw.get("label_smoothing"):
                contenders["ms cell"] = mindspore_cell(x, t, padded)
            r = race(contenders, args.rounds, args.inner)
            fastest_ms = min(v for k, v in r.items() if k.startswith("ms "))
            cell = f"{r['ms cell'] * 1e3:>13.1f}" if "ms cell" in r else f"{'-':>13}"
            print(f"{label:<28}{n:>4}{r['mstorch'] * 1e3:>10.1f}{r['torch'] * 1e3:>9.1f}"
                  f"{r['ms functional'] * 1e3:>22.1f}{cell}{r['mstorch'] / fastest_ms:>12.2f}"
                  f"{r['mstorch'] / r['torch']:>8.2f}")
    print("\nmstorch vs torch (N = 64): relative loss difference, max |grad difference| / max |grad|")
    for label, (kw, padded) in VARIANTS.items():
        rel, gdiff, gmax = differences(*data(64, padded), kw)
        print(f"  {label:<28} {rel:.1e}   {gdiff:.1e} / {gmax:.1e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
