"""Per-op and per-training-step overhead: mstorch vs the same computation in raw MindSpore vs torch.

Contenders run interleaved, step by step, in a shuffled order each round (a step right after another
library's runs slower on a shared host); medians are reported, and ratios mstorch/MindSpore and
mstorch/torch. Run: .venv/bin/python benchmarks/overhead.py [--rounds N]
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
from mindspore import mint, ops  # noqa: E402

import mstorch  # noqa: E402  (selects PyNative + blocking launch, as the raw contender runs too)
import torch  # noqa: E402

torch.set_num_threads(1)


def timeit(fn, inner):
    t0 = time.perf_counter()
    for _ in range(inner):
        fn()
    return (time.perf_counter() - t0) / inner


def race(contenders, rounds, inner):
    """contenders: name -> zero-arg callable. Returns name -> median seconds per call."""
    samples = {k: [] for k in contenders}
    for fn in contenders.values():   # warm-up
        fn()
        fn()
    names = list(contenders)
    for _ in range(rounds):
        random.shuffle(names)
        for name in names:
            samples[name].append(timeit(contenders[name], inner))
    return {k: statistics.median(v) for k, v in samples.items()}


_MATMUL = ops.MatMul()   # MindSpore's fastest CPU matmul (ops.matmul's MatMulExt was ~7x slower here)


# --- single ops ---------------------------------------------------------------------------------

def op_contenders(shape=(64, 256)):
    a = np.random.RandomState(0).standard_normal(shape).astype(np.float32)
    b = np.random.RandomState(1).standard_normal(shape).astype(np.float32)
    w = np.random.RandomState(2).standard_normal((shape[1], shape[1])).astype(np.float32)
    tm, tt = (mstorch.tensor(a), mstorch.tensor(b), mstorch.tensor(w)), (torch.tensor(a), torch.tensor(b), torch.tensor(w))
    rm = (ms.Tensor(a), ms.Tensor(b), ms.Tensor(w))
    cases = {
        "add": (lambda x, y, z: x + y, lambda x, y, z: ops.add(x, y)),
        "mul scalar": (lambda x, y, z: x * 2.0, lambda x, y, z: ops.mul(x, 2.0)),
        "matmul": (lambda x, y, z: x @ z, lambda x, y, z: _MATMUL(x, z)),
        "relu": (lambda x, y, z: x.relu(), lambda x, y, z: ops.relu(x)),
        "sum(dim=1)": (lambda x, y, z: x.sum(1), lambda x, y, z: ops.sum(x, 1)),
        "exp": (lambda x, y, z: x.exp(), lambda x, y, z: ops.exp(x)),
        "view": (lambda x, y, z: x.view(-1), lambda x, y, z: x.reshape(-1)),
        "transpose": (lambda x, y, z: x.t(), lambda x, y, z: ops.transpose(x, (1, 0))),
        "getitem [:, :8]": (lambda x, y, z: x[:, :8], lambda x, y, z: x[:, :8]),
        "softmax": (lambda x, y, z: x.softmax(1), lambda x, y, z: ops.softmax(x, 1)),
    }
    for name, (fn, raw) in cases.items():
        yield name, {
            "mstorch": lambda fn=fn: fn(*tm),
            "mindspore": lambda raw=raw: raw(*rm),
            "torch": lambda fn=fn: fn(*tt),
        }


# --- per-op dispatch against mindspore.mint (64x64 float32), with Python frames per call -------------

def frames_per_call(fn):
    """Python-level calls made by one call of ``fn`` (sys.setprofile), MindSpore's own included."""
    calls = [0]

    def prof(frame, event, arg):
        if event == "call":
            calls[0] += 1
    fn()
    sys.setprofile(prof)
    fn()
    sys.setprofile(None)
    return calls[0] - 1   # the lambda itself


def dispatch_contenders():
    a = np.random.RandomState(0).standard_normal((64, 64)).astype(np.float32)
    b = np.random.RandomState(1).standard_normal((64, 64)).astype(np.float32)
    xm, ym = mstorch.tensor(a), mstorch.tensor(b)
    xr, yr = ms.Tensor(a), ms.Tensor(b)
    xt, yt = torch.tensor(a), torch.tensor(b)
    cases = {
        "add": (lambda: xm + ym, lambda: mint.add(xr, yr), lambda: xt + yt),
        "relu": (lambda: xm.relu(), lambda: mint.nn.functional.relu(xr), lambda: xt.relu()),
        "sum": (lambda: xm.sum(1), lambda: mint.sum(xr, 1), lambda: xt.sum(1)),
        "view": (lambda: xm.view(-1), lambda: xr.view(-1), lambda: xt.view(-1)),
        "mm": (lambda: xm @ ym, lambda: mint.matmul(xr, yr), lambda: xt @ yt),
    }
    for name, (m, r, t) in cases.items():
        yield name, {"mstorch": m, "mint": r, "torch": t}


# --- MLP training step (784-256-10, batch 64, backward, manual SGD under no_grad) -------------------

def _weights():
    rng = np.random.RandomState(0)
    return [rng.uniform(-0.05, 0.05, s).astype(np.float32) for s in ((256, 784), (256,), (10, 256), (10,))]


def _data():
    rng = np.random.RandomState(1)
    return rng.standard_normal((64, 784)).astype(np.float32), rng.randint(0, 10, 64).astype(np.int64)


def torch_style_step(T):
    params = [T.tensor(w, requires_grad=True) for w in _weights()]
    xn, yn = _data()
    x, y = T.tensor(xn), T.tensor(yn)
    lr = 0.01

    def step():
        w1, b1, w2, b2 = params
        h = (x @ w1.t() + b1).relu()
        logits = h @ w2.t() + b2
        loss = -logits.log_softmax(1).gather(1, y.unsqueeze(1)).mean()
        loss.backward()
        with T.no_grad():
            for p in params:
                p -= lr * p.grad
                p.grad = None
        return loss
    return step, params


def mindspore_step():
    params = [ms.Parameter(ms.Tensor(w), name=f"p{i}") for i, w in enumerate(_weights())]
    xn, yn = _data()
    x, y = ms.Tensor(xn), ms.Tensor(yn).reshape(-1, 1)
    lr = 0.01

    def forward(w1, b1, w2, b2):
        h = ops.relu(ops.dense(x, w1, b1))     # Dense: MindSpore's fastest CPU linear layer
        logits = ops.dense(h, w2, b2)
        return -ops.gather_elements(ops.log_softmax(logits, 1), 1, y).mean()

    grad_fn = ms.value_and_grad(forward, grad_position=(0, 1, 2, 3))

    def step():
        loss, grads = grad_fn(*params)
        for p, g in zip(params, grads):
            ops.assign_sub(p, g * lr)
        # value_and_grad switches op recording off for the whole process; the mstorch contender
        # that runs next in this interleaved race needs it on (a Module call would do this itself)
        mstorch.autograd.resume_recording()
        return loss
    return step, params


def check_mlp_gradients():
    """The same step in mstorch and torch from the same weights: gradients agree."""
    ms_step, ms_params = torch_style_step(mstorch)
    t_step, t_params = torch_style_step(torch)
    for _ in range(3):
        ms_step()
        t_step()
    return max(float(np.max(np.abs(a.detach().numpy() - b.detach().numpy()))) for a, b in zip(ms_params, t_params))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--inner", type=int, default=20)
    args = parser.parse_args()
    print(f"mindspore {ms.__version__}, torch {torch.__version__}, mstorch {mstorch.__version__}, "
          f"{os.cpu_count()} cpus; medians of {args.rounds} shuffled rounds x {args.inner} calls")
    print(f"\n{'64x64 op':<18}{'mstorch us':>12}{'mint us':>10}{'torch us':>10}{'overhead us':>13}"
          f"{'frames':>8}{'mint frames':>13}")
    for name, contenders in dispatch_contenders():
        r = race(contenders, args.rounds, args.inner)
        print(f"{name:<18}{r['mstorch'] * 1e6:>12.1f}{r['mint'] * 1e6:>10.1f}{r['torch'] * 1e6:>10.1f}"
              f"{(r['mstorch'] - r['mint']) * 1e6:>13.1f}{frames_per_call(contenders['mstorch']):>8}"
              f"{frames_per_call(contenders['mint']):>13}")
    print(f"\n{'op':<18}{'mstorch us':>12}{'mindspore us':>14}{'torch us':>10}{'ms-torch/ms':>13}{'ms-torch/torch':>16}")
    for name, contenders in op_contenders():
        r = race(contenders, args.rounds, args.inner)
        print(f"{name:<18}{r['mstorch'] * 1e6:>12.1f}{r['mindspore'] * 1e6:>14.1f}{r['torch'] * 1e6:>10.1f}"
              f"{r['mstorch'] / r['mindspore']:>13.2f}{r['mstorch'] / r['torch']:>16.2f}")
    m_step, _ = torch_style_step(mstorch)
    t_step, _ = torch_style_step(torch)
    r_step, _ = mindspore_step()
    r = race({"mstorch": m_step, "mindspore": r_step, "torch": t_step}, args.rounds, max(1, args.inner // 4))
    print("\nMLP step 784-256-10, batch 64 (forward, backward, SGD under no_grad):")
    print(f"  mstorch {r['mstorch'] * 1e3:.3f} ms | raw MindSpore (value_and_grad + assign_sub) "
          f"{r['mindspore'] * 1e3:.3f} ms | torch {r['torch'] * 1e3:.3f} ms")
    print(f"  mstorch / MindSpore = {r['mstorch'] / r['mindspore']:.2f}x   "
          f"mstorch / torch = {r['mstorch'] / r['torch']:.2f}x")
    print(f"  max |param difference| to torch after 3 steps: {check_mlp_gradients():.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
