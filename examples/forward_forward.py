"""The forward-forward algorithm (Hinton, 2022) in the style of pytorch/examples/mnist_forward_forward, on
synthetic MNIST-shaped data (784 features, 10 classes) so it runs in seconds without downloads.

Plain PyTorch: run it with ``python examples/forward_forward.py`` (torch) or
``python -m mstorch run examples/forward_forward.py``. Seeds torch and prints each layer's loss per step.
"""
import argparse

import torch
import torch.nn as nn
from torch.optim import Adam

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=12, help="training steps per layer")
parser.add_argument("--lr", type=float, default=0.03)
parser.add_argument("--threshold", type=float, default=2.0)
parser.add_argument("--train-size", type=int, default=256)
parser.add_argument("--test-size", type=int, default=128)
parser.add_argument("--seed", type=int, default=1234)
args = parser.parse_args()

if torch.accelerator.is_available():
    device = torch.accelerator.current_accelerator()
else:
    device = torch.device("cpu")
torch.manual_seed(args.seed)


def synthetic_mnist(n):
    # ten fixed class prototypes plus noise, normalized with MNIST's mean and std as the example does
    prototypes = torch.rand(10, 784, generator=torch.Generator().manual_seed(0))
    y = torch.randint(0, 10, (n,))
    x = (prototypes[y] + 0.3 * torch.rand(n, 784)).clamp(0, 1)
    return (x - 0.1307) / 0.3081, y


def overlay_y_on_x(x, y):
    """Replace the first 10 pixels of data [x] with one-hot-encoded label [y]"""
    x_ = x.clone()
    x_[:, :10] *= 0.0
    x_[range(x.shape[0]), y] = x.max()
    return x_


class Net(torch.nn.Module):
    def __init__(self, dims):
        super().__init__()
        self.layers = []
        for d in range(len(dims) - 1):
            self.layers = self.layers + [Layer(dims[d], dims[d + 1]).to(device)]

    def predict(self, x):
        goodness_per_label = []
        for label in range(10):
            h = overlay_y_on_x(x, label)
            goodness = []
            for layer in self.layers:
                h = layer(h)
                goodness = goodness + [h.pow(2).mean(1)]
            goodness_per_label += [sum(goodness).unsqueeze(1)]
        goodness_per_label = torch.cat(goodness_per_label, 1)
        return goodness_per_label.argmax(1)

    def train(self, x_pos, x_neg):
        h_pos, h_neg = x_pos, x_neg
        for i, layer in enumerate(self.layers):
            print("training layer", i, "...")
            h_pos, h_neg = layer.train(h_pos, h_neg)


class Layer(nn.Linear):
    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__(in_features, out_features, bias, device, dtype)
        self.relu = torch.nn.ReLU()
        self.opt = Adam(self.parameters(), lr=args.lr)
        self.threshold = args.threshold
        self.num_epochs = args.epochs

    def forward(self, x):
        x_direction = x / (x.norm(2, 1, keepdim=True) + 1e-4)
        return self.relu(torch.mm(x_direction, self.weight.T) + self.bias.unsqueeze(0))

    def train(self, x_pos, x_neg):
        for i in range(self.num_epochs):
            g_pos = self.forward(x_pos).pow(2).mean(1)
            g_neg = self.forward(x_neg).pow(2).mean(1)
            # The following loss pushes pos (neg) samples to values larger (smaller) than the self.threshold.
            loss = torch.log(1 + torch.exp(torch.cat([-g_pos + self.threshold, g_neg - self.threshold]))).mean()
            self.opt.zero_grad()
            # this backward just compute the derivative and hence is not considered backpropagation.
            loss.backward()
            self.opt.step()
            print(f"step {i} loss {loss.item():.6f}")
        return self.forward(x_pos).detach(), self.forward(x_neg).detach()


x, y = synthetic_mnist(args.train_size)
x, y = x.to(device), y.to(device)
net = Net([784, 100, 100])
x_pos = overlay_y_on_x(x, y)
rnd = torch.randperm(x.size(0))
x_neg = overlay_y_on_x(x, y[rnd])
net.train(x_pos, x_neg)

print("train error:", 1.0 - net.predict(x).eq(y).float().mean().item())

x_te, y_te = synthetic_mnist(args.test_size)
x_te, y_te = x_te.to(device), y_te.to(device)
print("test error:", 1.0 - net.predict(x_te).eq(y_te).float().mean().item())
