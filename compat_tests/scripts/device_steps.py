"""Training steps of an MLP, a small CNN and a transformer encoder layer (Adam), run by test_device_path.py
as a torch script: under real torch, and under mstorch (``python -m mstorch run``) with
``MSTORCH_DEVICE_PATH=1``. Prints one JSON line: per model, the losses of three steps and, under mstorch,
the host reads inside the last step (the loss's ``.item()`` outside it), counted twice: by mstorch's
counter (``_runtime.host_reads``) and by wrappers of MindSpore's own conversions, which would also see a
read that bypasses the counter."""
import json
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F


def mlp():
    m = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    return m, torch.randn(5, 8), torch.tensor([0, 1, 2, 3, 1]), F.cross_entropy


def cnn():
    m = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Flatten(), nn.Linear(4 * 4 * 4, 3))
    return m, torch.randn(2, 1, 8, 8), torch.tensor([0, 2]), F.cross_entropy


def transformer():
    m = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.1, batch_first=True)
    return m, torch.randn(2, 5, 8), torch.randn(2, 5, 8), F.mse_loss


class MindSporeReads:
    """Counts calls of MindSpore's own host conversions while inside the block."""
    NAMES = ("asnumpy", "_item", "tolist", "__array__")

    def __enter__(self):
        import mindspore
        self.cls, self.saved, self.count = mindspore.Tensor, {}, 0
        for name in self.NAMES:
            original = getattr(self.cls, name, None)
            if original is None:
                continue
            self.saved[name] = original

            def counted(t, *args, _original=original, **kwargs):
                self.count += 1
                return _original(t, *args, **kwargs)
            setattr(self.cls, name, counted)
        return self

    def __exit__(self, *exc):
        for name, original in self.saved.items():
            setattr(self.cls, name, original)


def main():
    counting = hasattr(torch, "_runtime")   # mstorch: its runtime module holds the counter
    out = {}
    for name, build in (("mlp", mlp), ("cnn", cnn), ("transformer", transformer)):
        torch.manual_seed(0)
        model, x, y, loss_fn = build()
        opt = torch.optim.Adam(model.parameters(), lr=1e-2)

        def step():
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            return loss
        losses = [step().item(), step().item()]
        entry = {}
        if counting:
            before = torch._runtime.host_reads()
            with torch._runtime.recording_host_reads() as where, MindSporeReads() as raw:
                loss = step()
            entry = {"reads": torch._runtime.host_reads() - before, "mindspore_reads": raw.count,
                     "where": where[:2]}
        else:
            loss = step()
        entry["losses"] = losses + [loss.item()]
        out[name] = entry
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
