"""A small training loop written against the torch API, running on mstorch (MindSpore underneath).

Until the launcher lands this imports mstorch directly; the same code runs with `import torch`.
"""
import time

import numpy as np

import mstorch as torch
from mstorch import nn


def make_data(n=512, seed=0):
    rng = np.random.RandomState(seed)
    x = rng.standard_normal((n, 2)).astype(np.float32)
    y = ((x[:, 0] ** 2 + x[:, 1] ** 2) > 1.0).astype(np.int64)   # inside / outside the unit circle
    return torch.from_numpy(x), torch.from_numpy(y)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(2, 32)
        self.fc2 = nn.Linear(32, 2)

    def forward(self, x):
        return self.fc2(self.fc1(x).relu())


def main():
    torch.manual_seed(0)
    x, y = make_data()
    model = Net()
    print(model)
    lr = 0.5
    start = time.time()
    for epoch in range(1, 101):
        logits = model(x)
        loss = -logits.log_softmax(1).gather(1, y.unsqueeze(1)).mean()
        model.zero_grad()
        loss.backward()
        with torch.no_grad():
            for p in model.parameters():
                p -= lr * p.grad
        if epoch % 20 == 0:
            acc = (logits.argmax(1) == y).float().mean().item()
            print(f"epoch {epoch:3d}  loss {loss.item():.4f}  accuracy {acc:.3f}")
    print(f"done in {time.time() - start:.1f}s")


if __name__ == "__main__":
    main()
