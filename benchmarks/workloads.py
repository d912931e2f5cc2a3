"""Training steps of real workloads: mstorch vs idiomatic raw MindSpore (PyNative, and ``ms.jit``) vs torch.

Each workload is written once against a namespace ``T`` (mstorch or torch: same seed, so the same
initial weights and data) and, where given, once in idiomatic MindSpore (``nn.Cell`` layers,
``value_and_grad``, a MindSpore optimizer). All contenders run in one process, interleaved: every round
runs each contender's step once in a shuffled order (a step right after another library's runs slower
on a shared host); medians are reported with the ratios mstorch/torch and mstorch/MindSpore, and the
first-step loss difference mstorch - torch (same weights, same data: a correctness check, ~0).
Every library runs on one thread (``--threads``).

    .venv/bin/python benchmarks/workloads.py            # all workloads, writes docs/performance.md
    .venv/bin/python benchmarks/workloads.py --quick    # fewer rounds (a few minutes)
    .venv/bin/python benchmarks/workloads.py --only cnn --no-write
"""
import argparse
import datetime
import os
import pathlib
import platform
import random
import statistics
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import mindspore as ms  # noqa: E402
from mindspore import nn as msnn  # noqa: E402

import mstorch  # noqa: E402  (PyNative + blocking launch, which the raw MindSpore contenders run under too)
import torch  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]


# --- the workloads, written once against T ------------------------------------------------------------

def mlp(T):
    nn = T.nn
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))
    return model, T.optim.SGD(model.parameters(), lr=0.01, momentum=0.9), \
        (T.randn(64, 784),), T.randint(0, 10, (64,)), nn.functional.cross_entropy


def cnn(T):
    nn = T.nn
    model = nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(64 * 8 * 8, 10))
    return model, T.optim.SGD(model.parameters(), lr=0.01, momentum=0.9), \
        (T.randn(32, 3, 32, 32),), T.randint(0, 10, (32,)), nn.functional.cross_entropy


def resnet18(T):
    nn = T.nn

    class Block(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.short = nn.Sequential()
            if stride != 1 or cin != cout:
                self.short = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x):
            out = nn.functional.relu(self.bn1(self.conv1(x)))
            return nn.functional.relu(self.bn2(self.conv2(out)) + self.short(x))

    class ResNet18(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 64, 3, 1, 1, bias=False), nn.BatchNorm2d(64), nn.ReLU())
            layers, cin = [], 64
            for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
                layers += [Block(cin, cout, stride), Block(cout, cout, 1)]
                cin = cout
            self.layers = nn.Sequential(*layers)
            self.head = nn.Linear(512, 10)

        def forward(self, x):
            x = self.layers(self.stem(x))
            return self.head(nn.functional.adaptive_avg_pool2d(x, 1).flatten(1))

    model = ResNet18()
    return model, T.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=5e-4), \
        (T.randn(4, 3, 32, 32),), T.randint(0, 10, (4,)), nn.functional.cross_entropy


def unet(T):
    nn = T.nn

    def double(cin, cout):
        return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(),
                             nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU())

    class UNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.down1, self.down2, self.mid = double(3, 16), double(16, 32), double(32, 64)
            self.up2, self.dec2 = nn.ConvTranspose2d(64, 32, 2, 2), double(64, 32)
            self.up1, self.dec1 = nn.ConvTranspose2d(32, 16, 2, 2), double(32, 16)
            self.out = nn.Conv2d(16, 1, 1)

        def forward(self, x):
            d1 = self.down1(x)
            d2 = self.down2(nn.functional.max_pool2d(d1, 2))
            m = self.mid(nn.functional.max_pool2d(d2, 2))
            u2 = self.dec2(T.cat([self.up2(m), d2], 1))
            u1 = self.dec1(T.cat([self.up1(u2), d1], 1))
            return self.out(u1)

    model = UNet()
    return model, T.optim.Adam(model.parameters(), lr=1e-3), \
        (T.randn(4, 3, 64, 64),), (T.rand(4, 1, 64, 64) > 0.5).float(), nn.functional.binary_cross_entropy_with_logits


def lstm_lm(T):
    nn = T.nn

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(1000, 64)
            self.rnn = nn.LSTM(64, 128, batch_first=True)
            self.out = nn.Linear(128, 1000)

        def forward(self, x):
            h, _ = self.rnn(self.emb(x))
            return self.out(h).reshape(-1, 1000)

    model = LM()
    tokens = T.randint(0, 1000, (16, 33))
    return model, T.optim.Adam(model.parameters(), lr=1e-3), (tokens[:, :-1],), tokens[:, 1:].reshape(-1), \
        nn.functional.cross_entropy


def gpt(T):
    nn, F = T.nn, T.nn.functional
    d, heads, seq, vocab = 128, 4, 64, 1000

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
            self.fc, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

        def forward(self, x):
            B, L, _ = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(d, 2)
            q, k, v = (t.view(B, L, heads, d // heads).transpose(1, 2) for t in (q, k, v))
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(a.transpose(1, 2).reshape(B, L, d))
            return x + self.fc2(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(seq, d)
            self.blocks = nn.Sequential(Block(), Block())
            self.ln = nn.LayerNorm(d)
            self.head = nn.Linear(d, vocab, bias=False)

        def forward(self, idx):
            x = self.tok(idx) + self.pos(T.arange(idx.shape[1]))
            return self.head(self.ln(self.blocks(x))).reshape(-1, vocab)

    model = GPT()
    tokens = T.randint(0, vocab, (4, seq + 1))
    return model, T.optim.AdamW(model.parameters(), lr=3e-4), (tokens[:, :-1],), tokens[:, 1:].reshape(-1), \
        F.cross_entropy


def bert(T):
    nn = T.nn
    d, vocab, seq = 128, 1000, 64

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(seq, d)
            self.ln = nn.LayerNorm(d)
            layer = nn.TransformerEncoderLayer(d, 4, 4 * d, dropout=0.0, activation="gelu", batch_first=True)
            self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
            self.cls = nn.Linear(d, 2)

        def forward(self, idx):
            x = self.ln(self.tok(idx) + self.pos(T.arange(idx.shape[1])))
            return self.cls(self.enc(x)[:, 0])

    model = Encoder()
    return model, T.optim.AdamW(model.parameters(), lr=1e-4), (T.randint(0, vocab, (8, seq)),), \
        T.randint(0, 2, (8,)), nn.functional.cross_entropy


def torch_like_step(T, build):
    T.manual_seed(0)
    model, opt, inputs, target, loss_fn = build(T)
    model.train()

    def step():
        opt.zero_grad()
        loss = loss_fn(model(*inputs), target)
        loss.backward()
        opt.step()
        return loss.item()
    return step


# --- idiomatic raw MindSpore ------------------------------------------------------------------------

def _ms_data(shape, classes=None, seed=1):
    rng = np.random.default_rng(seed)
    if classes is None:
        return ms.Tensor(rng.standard_normal(shape).astype(np.float32))
    return ms.Tensor(rng.integers(0, classes, shape).astype(np.int32))


def ms_mlp():
    net = msnn.SequentialCell(msnn.Dense(784, 256), msnn.ReLU(), msnn.Dense(256, 256), msnn.ReLU(), msnn.Dense(256, 10))
    return net, msnn.Momentum(net.trainable_params(), 0.01, 0.9), (_ms_data((64, 784)),), _ms_data((64,), 10)


def ms_cnn():
    net = msnn.SequentialCell(
        msnn.Conv2d(3, 32, 3, pad_mode="pad", padding=1, has_bias=True), msnn.BatchNorm2d(32), msnn.ReLU(),
        msnn.MaxPool2d(2, 2),
        msnn.Conv2d(32, 64, 3, pad_mode="pad", padding=1, has_bias=True), msnn.BatchNorm2d(64), msnn.ReLU(),
        msnn.MaxPool2d(2, 2), msnn.Flatten(), msnn.Dense(64 * 8 * 8, 10))
    return net, msnn.Momentum(net.trainable_params(), 0.01, 0.9), (_ms_data((32, 3, 32, 32)),), _ms_data((32,), 10)


def ms_resnet18():
    class Block(msnn.Cell):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.body = msnn.SequentialCell(
                msnn.Conv2d(cin, cout, 3, stride, pad_mode="pad", padding=1), msnn.BatchNorm2d(cout), msnn.ReLU(),
                msnn.Conv2d(cout, cout, 3, 1, pad_mode="pad", padding=1), msnn.BatchNorm2d(cout))
            self.short = None
            if stride != 1 or cin != cout:
                self.short = msnn.SequentialCell(msnn.Conv2d(cin, cout, 1, stride), msnn.BatchNorm2d(cout))
            self.relu = msnn.ReLU()

        def construct(self, x):
            s = x if self.short is None else self.short(x)
            return self.relu(self.body(x) + s)

    layers, cin = [msnn.Conv2d(3, 64, 3, 1, pad_mode="pad", padding=1), msnn.BatchNorm2d(64), msnn.ReLU()], 64
    for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
        layers += [Block(cin, cout, stride), Block(cout, cout, 1)]
        cin = cout
    layers += [msnn.AdaptiveAvgPool2d(1), msnn.Flatten(), msnn.Dense(512, 10)]
    net = msnn.SequentialCell(*layers)
    return net, msnn.Momentum(net.trainable_params(), 0.01, 0.9, weight_decay=5e-4), \
        (_ms_data((4, 3, 32, 32)),), _ms_data((4,), 10)


def ms_lstm_lm():
    class LM(msnn.Cell):
        def __init__(self):
            super().__init__()
            self.emb = msnn.Embedding(1000, 64)
            self.rnn = msnn.LSTM(64, 128, batch_first=True)
            self.out = msnn.Dense(128, 1000)

        def construct(self, x):
            h, _ = self.rnn(self.emb(x))
            return self.out(h).reshape(-1, 1000)
    net = LM()
    return net, msnn.Adam(net.trainable_params(), 1e-3), (_ms_data((16, 32), 1000),), _ms_data((16 * 32,), 1000)


def ms_bert():
    d, vocab, seq = 128, 1000, 64

    class Encoder(msnn.Cell):
        def __init__(self):
            super().__init__()
            self.tok, self.pos = msnn.Embedding(vocab, d), msnn.Embedding(seq, d)
            self.ln = msnn.LayerNorm((d,))
            layer = msnn.TransformerEncoderLayer(d, 4, 4 * d, dropout=0.0, activation="gelu", batch_first=True)
            self.enc = msnn.TransformerEncoder(layer, 2)
            self.cls = msnn.Dense(d, 2)
            self.positions = ms.Tensor(np.arange(seq).astype(np.int32))

        def construct(self, idx):
            x = self.ln(self.tok(idx) + self.pos(self.positions))
            return self.cls(self.enc(x)[:, 0])
    net = Encoder()
    return net, msnn.AdamWeightDecay(net.trainable_params(), 1e-4), (_ms_data((8, seq), vocab),), _ms_data((8,), 2)


def mindspore_step(build, jit):
    ms.set_seed(0)
    net, opt, inputs, target = build()
    net.set_train(True)
    loss_fn = msnn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")

    def forward(*inputs):
        return loss_fn(net(*inputs), target)

    grad_fn = ms.value_and_grad(forward, None, opt.parameters)

    def train(*inputs):
        loss, grads = grad_fn(*inputs)
        opt(grads)
        return loss
    train = ms.jit(train) if jit else train

    def step():
        loss = train(*inputs)
        mstorch.autograd.resume_recording()   # value_and_grad switched MindSpore's recording off
        return float(loss.asnumpy())
    return step


WORKLOADS = {
    "mlp": ("MLP 784-256-256-10, batch 64, SGD", mlp, ms_mlp),
    "cnn": ("conv-bn-relu CNN, batch 32, 3x32x32, SGD", cnn, ms_cnn),
    "resnet18": ("ResNet-18 (CIFAR), batch 4, 3x32x32, SGD", resnet18, ms_resnet18),
    "unet": ("tiny UNet 16-32-64, batch 4, 3x64x64, Adam", unet, None),
    "lstm_lm": ("LSTM LM vocab 1000, 64/128, batch 16 x 32, Adam", lstm_lm, ms_lstm_lm),
    "gpt": ("GPT-2-shaped decoder, 2 x d128, seq 64, batch 4, AdamW", gpt, None),
    "bert": ("BERT-style encoder, 2 x d128, seq 64, batch 8, AdamW", bert, ms_bert),
}


# --- the race -------------------------------------------------------------------------------------

def race(contenders, rounds):
    samples = {k: [] for k in contenders}
    first = {k: fn() for k, fn in contenders.items()}    # warm-up (kernel creation, graph compile)
    names = list(contenders)
    for _ in range(rounds):
        random.shuffle(names)
        for name in names:
            t0 = time.perf_counter()
            contenders[name]()
            samples[name].append(time.perf_counter() - t0)
    return {k: statistics.median(v) * 1e3 for k, v in samples.items()}, first


def contenders_for(key, with_jit):
    _, build, ms_build = WORKLOADS[key]
    out = {"mstorch": torch_like_step(mstorch, build), "torch": torch_like_step(torch, build)}
    notes = []
    if ms_build is not None:
        out["mindspore"] = mindspore_step(ms_build, False)
        if with_jit:
            try:
                jit_step = mindspore_step(ms_build, True)
                jit_step()
                out["ms.jit"] = jit_step
            except Exception as exc:   # noqa: BLE001  (reported in the table, never hidden)
                notes.append(f"ms.jit failed: {type(exc).__name__}: {str(exc).splitlines()[0][:100]}")
                mstorch.autograd.resume_recording()
    return out, notes


def fmt(v):
    return "—" if v is None else f"{v:.1f}"


def ratio(a, b):
    return "—" if a is None or b is None else f"{a / b:.2f}×"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="3 rounds instead of 9")
    ap.add_argument("--rounds", type=int)
    ap.add_argument("--only", action="append", choices=list(WORKLOADS))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--no-jit", action="store_true")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    rounds = args.rounds or (3 if args.quick else 9)
    torch.set_num_threads(args.threads)
    mstorch.set_num_threads(args.threads)
    rows = []
    header = (f"mindspore {ms.__version__}, torch {torch.__version__}, mstorch {mstorch.__version__}; "
              f"{platform.machine()}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; "
              f"{args.threads} thread(s) each; medians of {rounds} shuffled rounds")
    print(header)
    for key in args.only or list(WORKLOADS):
        contenders, notes = contenders_for(key, not args.no_jit)
        med, first = race(contenders, rounds)
        row = {"key": key, "label": WORKLOADS[key][0], "notes": notes,
               "loss_diff": abs(first["mstorch"] - first["torch"]), **{k: med.get(k) for k in
                                                                     ("mstorch", "mindspore", "ms.jit", "torch")}}
        rows.append(row)
        print(f"{key:<10} mstorch {fmt(row['mstorch'])} ms | mindspore {fmt(row['mindspore'])} | ms.jit "
              f"{fmt(row['ms.jit'])} | torch {fmt(row['torch'])} | mstorch/torch {ratio(row['mstorch'], row['torch'])}"
              f" | mstorch/mindspore {ratio(row['mstorch'], row['mindspore'])} | first-loss diff "
              f"{row['loss_diff']:.1e}" + "".join(f"\n           {n}" for n in notes), flush=True)
    if not args.no_write:
        write(rows, header)


def write(rows, header):
    lines = [
        "# Performance: training steps against torch and raw MindSpore",
        "",
        "Generated by `make bench` (`benchmarks/workloads.py`); rerun it to refresh. One training step "
        "(forward, loss, backward, optimizer step) per workload, all contenders in one process, interleaved "
        "and shuffled per round; milliseconds, medians. *MindSpore* is the same model written idiomatically "
        "in raw MindSpore PyNative (`nn.Cell`, `value_and_grad`, a MindSpore optimizer), *ms.jit* the same "
        "train step under `mindspore.jit`; — where no raw version is written. *first-loss diff* is "
        "|mstorch − torch| of the first step's loss from the same seed (same weights and data).",
        "",
        f"Run: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; {header}. This host is shared "
        "and noisy: compare ratios, not absolute times.",
        "",
        "| workload | mstorch ms | MindSpore ms | ms.jit ms | torch ms | mstorch / torch | mstorch / MindSpore "
        "| first-loss diff |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(f"| {r['label']} | {fmt(r['mstorch'])} | {fmt(r['mindspore'])} | {fmt(r['ms.jit'])} | "
                     f"{fmt(r['torch'])} | {ratio(r['mstorch'], r['torch'])} | {ratio(r['mstorch'], r['mindspore'])} "
                     f"| {r['loss_diff']:.1e} |")
    notes = [f"- {r['key']}: {n}" for r in rows for n in r["notes"]]
    if notes:
        lines += ["", "Notes:", ""] + notes
    lines += ["", "How CPU kernels are chosen (convolutions, linear, max pool...): `tools/choose_kernels.py` times "
              "each op's candidates on the host and writes `mstorch/ops/_kernel_choice.py`; see "
              "`mstorch/ops/_kernels.py`.", ""]
    path = ROOT / "docs" / "performance.md"
    # sections written by other benchmarks (benchmarks/ecosystem.py's comment-marked one, ``## ...`` ones
    # such as benchmarks/distributed.py's) are kept
    old = path.read_text() if path.exists() else ""
    starts = [i for i in (old.find("<!-- ecosystem benchmark"), old.find("\n## ") + 1 if "\n## " in old else -1)
              if i >= 0]
    kept = old[min(starts):] if starts else ""
    path.write_text("\n".join(lines) + ("\n" + kept if kept else ""))
    print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    sys.exit(main())
