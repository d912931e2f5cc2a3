"""A plain PyTorch script: a small CNN on the 8x8 hand-written digits (shipped in examples/data).

It imports only torch. Run it on MindSpore with `python -m mstorch run examples/train_digits.py`
(what `make demo` does), or on PyTorch with `python examples/train_digits.py`.
"""
import argparse
import gzip
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))


def load_digits():
    with gzip.open(os.path.join(HERE, "data", "digits.csv.gz"), "rt") as fh:
        data = np.loadtxt(fh, delimiter=",", dtype=np.float32)
    x = torch.from_numpy(data[:, :64].reshape(-1, 1, 8, 8) / 16.0)
    y = torch.from_numpy(data[:, 64].astype(np.int64))
    return x, y


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc1 = nn.Linear(32 * 4 * 4, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        return self.fc2(F.relu(self.fc1(x)))


def progress(done, total, width=30):
    filled = int(width * done / total)
    return "[" + "#" * filled + "." * (width - filled) + f"] {done}/{total}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", default=os.path.join(HERE, "digits_cnn.pth"))
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    x, y = load_digits()
    perm = torch.randperm(len(x))
    train_idx, test_idx = perm[:1500], perm[1500:]
    x_train, y_train, x_test, y_test = x[train_idx], y[train_idx], x[test_idx], y[test_idx]

    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    start = time.time()
    n_batches = (len(x_train) + args.batch_size - 1) // args.batch_size
    for epoch in range(1, args.epochs + 1):
        model.train()
        order = torch.randperm(len(x_train))
        total_loss = 0.0
        for b in range(n_batches):
            idx = order[b * args.batch_size:(b + 1) * args.batch_size]
            xb, yb = x_train[idx].to(device), y_train[idx].to(device)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            total_loss += loss.item()
            print("\r  " + progress(b + 1, n_batches), end="", flush=True)
        model.eval()
        with torch.no_grad():
            acc = (model(x_test).argmax(1) == y_test).float().mean().item()
        print(f"\repoch {epoch}/{args.epochs}  loss {total_loss / n_batches:.4f}  test accuracy {acc:.4f}" + " " * 20)
    torch.save(model.state_dict(), args.save)
    print(f"saved checkpoint to {args.save}")
    print(f"final test accuracy {acc:.4f} in {time.time() - start:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
