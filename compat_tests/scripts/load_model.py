"""Loads a whole model pickled by real torch and runs it."""
import sys

import torch

model = torch.load(sys.argv[1], weights_only=False)
print(type(model).__module__, type(model).__name__)
x = torch.load(sys.argv[2])
print("out", model(x).tolist())
