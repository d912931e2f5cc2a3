"""Choose each op's CPU implementation by measurement: write ``mstorch/ops/_kernel_choice.py``.

For every op with candidates (``mstorch.ops._kernels.CANDIDATES``: MindSpore's native kernel and the
compositions the family file offers), each case below runs forward + backward on torch and on mstorch
with the candidate forced; a candidate whose values or gradients differ from torch's is out. The
correct ones are timed on this host: rounds of every candidate in a shuffled order (a run right after
another one is slower on a shared host), the median per case, and the candidate with the smallest sum
of medians over the op's cases wins. torch's median is printed alongside.

    python tools/choose_kernels.py              # measure, print, write the table
    python tools/choose_kernels.py --check      # print only
    python tools/choose_kernels.py --rounds 9 --only conv

``compat_tests/test_kernel_choice.py`` checks every candidate against torch on the same cases (small
batch); it never times anything.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import platform
import random
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

TABLE = ROOT / "mstorch" / "ops" / "_kernel_choice.py"
REPORT = ROOT / "docs" / "kernel-choice.md"


def _arr(rng, shape):
    return rng.uniform(-2, 2, size=shape).astype(np.float32)


def _case(label, fn, shapes, const=(), relu=()):
    """A case: ``fn(T, *tensors)`` on float32 inputs of ``shapes``; inputs listed in ``const`` are
    built without requires_grad (a first layer's image, frozen weights), those in ``relu`` are made
    non-negative with ties at 0 (a pool after a ReLU)."""
    def build(batch, seed=0):
        rng = np.random.default_rng(seed)
        arrays = []
        for i, shape in enumerate(shapes):
            shape = tuple(batch if s == "N" else s for s in shape)
            a = _arr(rng, shape)
            arrays.append(np.maximum(a, 0) if i in relu else a)
        return arrays
    return {"label": label, "fn": fn, "build": build, "const": tuple(const)}


def _F(T):
    return T.nn.functional


CASES = {
    "conv": [
        _case("conv2d 3x3, image input (first layer)", lambda T, x, w, b: _F(T).conv2d(x, w, b, padding=1),
              [("N", 3, 32, 32), (16, 3, 3, 3), (16,)], const=(0,)),
        _case("conv2d 3x3", lambda T, x, w: _F(T).conv2d(x, w, padding=1),
              [("N", 32, 16, 16), (32, 32, 3, 3)]),
        _case("conv2d 1x1 stride 2", lambda T, x, w: _F(T).conv2d(x, w, stride=2),
              [("N", 32, 16, 16), (64, 32, 1, 1)]),
        _case("conv2d depthwise 3x3", lambda T, x, w: _F(T).conv2d(x, w, padding=1, groups=32),
              [("N", 32, 16, 16), (32, 1, 3, 3)]),
        _case("conv2d dilated, frozen weight", lambda T, x, w: _F(T).conv2d(x, w, padding=2, dilation=2),
              [("N", 16, 16, 16), (16, 16, 3, 3)], const=(1,)),
        _case("conv1d k5", lambda T, x, w: _F(T).conv1d(x, w, padding=2), [("N", 32, 64), (32, 32, 5)]),
        _case("conv3d 3x3x3", lambda T, x, w: _F(T).conv3d(x, w, padding=1), [("N", 8, 8, 8, 8), (8, 8, 3, 3, 3)]),
    ],
    "conv_transpose": [
        _case("conv_transpose2d stride 2", lambda T, x, w: _F(T).conv_transpose2d(x, w, stride=2, padding=1,
                                                                                   output_padding=1),
              [("N", 32, 8, 8), (32, 16, 3, 3)]),
        _case("conv_transpose2d, noise input", lambda T, z, w: _F(T).conv_transpose2d(z, w),
              [("N", 32, 4, 4), (32, 16, 4, 4)], const=(0,)),
        _case("conv_transpose1d", lambda T, x, w: _F(T).conv_transpose1d(x, w, stride=2), [("N", 16, 32), (16, 8, 4)]),
        _case("conv_transpose3d", lambda T, x, w: _F(T).conv_transpose3d(x, w, stride=2),
              [("N", 8, 4, 4, 4), (8, 4, 2, 2, 2)]),
    ],
    "linear": [
        _case("linear 784->256, data input", lambda T, x, w, b: _F(T).linear(x, w, b),
              [("N", 784), (256, 784), (256,)], const=(0,)),
        _case("linear 256->256", lambda T, x, w, b: _F(T).linear(x, w, b), [("N", 256), (256, 256), (256,)]),
        _case("linear 3-d 128->384", lambda T, x, w, b: _F(T).linear(x, w, b),
              [("N", 16, 128), (384, 128), (384,)]),
    ],
    "gelu": [
        _case("gelu, GPT MLP activation", lambda T, x: _F(T).gelu(x), [("N", 64, 512)]),
        _case("gelu tanh", lambda T, x: _F(T).gelu(x, approximate="tanh"), [("N", 64, 512)]),
        _case("gelu tanh, wide range", lambda T, x: _F(T).gelu(x * 8, approximate="tanh"), [("N", 256)]),
    ],
    "sdpa": [
        _case("sdpa causal, 4 heads of 32 (GPT block)", lambda T, q, k, v: _F(T).scaled_dot_product_attention(
            q, k, v, is_causal=True), [("N", 4, 64, 32), ("N", 4, 64, 32), ("N", 4, 64, 32)]),
        _case("sdpa on transposed heads (BERT block)", lambda T, q, k, v: _F(T).scaled_dot_product_attention(
            q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)),
              [("N", 64, 4, 32), ("N", 64, 4, 32), ("N", 64, 4, 32)]),
        _case("sdpa, frozen keys, scale", lambda T, q, k, v: _F(T).scaled_dot_product_attention(
            q, k, v, scale=0.3), [("N", 16, 8), ("N", 24, 8), ("N", 24, 5)], const=(1,)),
    ],
    "max_pool": [
        _case("max_pool2d 2x2 after relu", lambda T, x: _F(T).max_pool2d(x, 2), [("N", 32, 32, 32)], relu=(0,)),
        _case("max_pool2d 3/2/1 (ResNet stem)", lambda T, x: _F(T).max_pool2d(x, 3, 2, 1), [("N", 16, 32, 32)]),
        _case("max_pool2d ceil_mode", lambda T, x: _F(T).max_pool2d(x, 3, 2, ceil_mode=True),
              [("N", 16, 15, 15)]),
        _case("max_pool1d", lambda T, x: _F(T).max_pool1d(x, 2), [("N", 16, 64)]),
    ],
}


def run_case(T, case, batch, seed=0):
    """Forward + backward of one case on ``T``: (output, gradients of the inputs that require grad)."""
    arrays = case["build"](batch, seed)
    xs = [T.tensor(a, requires_grad=i not in case["const"]) for i, a in enumerate(arrays)]
    out = case["fn"](T, *xs)
    weight = T.tensor(np.random.default_rng(1).standard_normal(tuple(out.shape)).astype(np.float32))
    (out * weight).sum().backward()
    return out, [x.grad for x in xs if x.requires_grad]


def agrees(case, batch, name, key, rtol=1e-4, atol=1e-4):
    """Whether candidate ``name`` of ``key`` gives torch's output and gradients on ``case``; the
    difference found otherwise."""
    import torch
    import mstorch
    from mstorch.ops import _kernels

    ref_out, ref_grads = run_case(torch, case, batch)
    with _kernels.forced(key, name):
        out, grads = run_case(mstorch, case, batch)
    for what, r, g in [("output", ref_out, out)] + [(f"grad {i}", a, b) for i, (a, b) in
                                                   enumerate(zip(ref_grads, grads))]:
        r, g = r.detach().numpy(), np.asarray(g.detach().numpy())
        if r.shape != g.shape:
            return f"{what}: shape {g.shape} vs torch {r.shape}"
        if not np.allclose(g, r, rtol=rtol, atol=atol * max(1.0, float(np.abs(r).max(initial=0)))):
            return f"{what}: max abs difference {np.abs(g - r).max():.3g}"
    return None


def measure(key, batch, rounds):
    import torch
    import mstorch
    from mstorch.ops import _kernels

    names = list(_kernels.CANDIDATES[key])
    rows, totals = [], {n: 0.0 for n in names}
    ok = {n: True for n in names}
    for case in CASES[key]:
        for n in names:
            problem = agrees(case, 2, n, key)
            if problem:
                print(f"  {key}/{n} differs from torch on {case['label']}: {problem}")
                ok[n] = False
        runners = {n: (lambda n=n: _timed_forced(mstorch, case, batch, key, n)) for n in names}
        runners["torch"] = lambda: _timed(torch, case, batch)
        times = {n: [] for n in runners}
        for fn in runners.values():
            fn()                                   # warm up: kernel creation, caches
        for _ in range(rounds):
            order = list(runners)
            random.shuffle(order)
            for n in order:
                times[n].append(runners[n]())
        med = {n: statistics.median(v) * 1e3 for n, v in times.items()}
        rows.append((case["label"], med))
        for n in names:
            totals[n] += med[n]
    valid = [n for n in names if ok[n]]
    best = min(valid, key=totals.get) if valid else names[0]
    return rows, totals, best, ok


def _timed(T, case, batch):
    t0 = time.perf_counter()
    run_case(T, case, batch)
    return time.perf_counter() - t0


def _timed_forced(T, case, batch, key, name):
    from mstorch.ops import _kernels
    with _kernels.forced(key, name):
        return _timed(T, case, batch)


def write_table(choices):
    lines = ["# Generated by tools/choose_kernels.py; do not edit. Rerun it on a new host:",
             "#     python tools/choose_kernels.py",
             f"# Measured on {platform.machine()}, {os.cpu_count()} CPUs ({platform.python_version()}).",
             "# Devices not listed use each op's first (native) candidate.",
             "CHOICES = {",
             '    "CPU": {']
    lines += [f'        "{k}": "{v}",' for k, v in sorted(choices.items())]
    lines += ["    },", "}", ""]
    TABLE.write_text("\n".join(lines))


def _merged_sections(report, only):
    """The report's op sections; with ``--only``, the other ops keep their sections from the last full run
    (each says its own measurement), so the document always covers every op with candidates."""
    fresh = "\n".join(report)
    if not only or not REPORT.exists():
        return fresh
    sections = {}
    for chunk in ("\n" + REPORT.read_text()).split("\n## ")[1:]:
        sections[chunk.split("\n", 1)[0].strip()] = "\n## " + chunk.rstrip("\n") + "\n"
    for chunk in fresh.split("\n## ")[1:]:
        sections[chunk.split("\n", 1)[0].strip()] = "\n## " + chunk.rstrip("\n") + "\n"
    return "".join(sections[k] for k in list(CASES) + [k for k in sections if k not in CASES] if k in sections)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--only", action="append", help="op key(s) to measure (default: all)")
    ap.add_argument("--check", action="store_true", help="print only, do not write the table")
    args = ap.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import torch
    import mstorch
    from mstorch.ops import _kernels, _kernel_choice

    torch.set_num_threads(1)
    mstorch.set_num_threads(1)
    if mstorch._runtime.device_target() != "CPU":
        sys.exit("choose_kernels measures CPU kernels; this MindSpore runs on " + mstorch._runtime.device_target())
    choices = dict(_kernel_choice.CHOICES.get("CPU", {}))
    report = []

    def out(line=""):
        print(line)
        report.append(line)
    for key in args.only or list(CASES):
        rows, totals, best, ok = measure(key, args.batch, args.rounds)
        names = list(_kernels.CANDIDATES[key])
        out(f"\n## {key}\n\nms per forward+backward, median of {args.rounds} shuffled rounds, batch {args.batch}\n")
        out("| case | " + " | ".join(names) + " | torch |")
        out("|---" * (len(names) + 2) + "|")
        for label, med in rows:
            out(f"| {label} | " + " | ".join(f"{med[n]:.2f}" for n in names) + f" | {med['torch']:.2f} |")
        out("| **sum** | " + " | ".join(f"{totals[n]:.2f}" + ("" if ok[n] else " (differs from torch)") for n in names)
            + f" | {sum(m['torch'] for _, m in rows):.2f} |")
        out(f"\nchosen: **{best}**")
        choices[key] = best
    if not args.check:
        write_table(choices)
        REPORT.write_text("# CPU kernel choice: the last measurement\n\nGenerated by `python tools/choose_kernels.py` "
                          f"({platform.machine()}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}, one "
                          "thread each); the winners are in `mstorch/ops/_kernel_choice.py`. Candidates are defined "
                          "in the family files (`kernels.candidates(...)`, see `mstorch/ops/_kernels.py`).\n"
                          + _merged_sections(report, args.only) + "\n")
        print(f"\nwrote {TABLE.relative_to(ROOT)} and {REPORT.relative_to(ROOT)}")

if __name__ == "__main__":
    main()
