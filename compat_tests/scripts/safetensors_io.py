"""An unmodified torch script using safetensors: writes a state dict, reads it back and reads a file
written elsewhere (argv[1]); writes its own tensors to argv[2]."""
import sys

import torch
from safetensors import safe_open
from safetensors.torch import load_file, save_file

model = torch.nn.Linear(3, 2)
with torch.no_grad():
    model.weight.copy_(torch.arange(6.0).reshape(2, 3))
    model.bias.fill_(0.5)
save_file(model.state_dict(), sys.argv[2], metadata={"format": "pt"})
back = load_file(sys.argv[2])
print("back", sorted(back), back["weight"].tolist(), back["bias"].tolist())
other = load_file(sys.argv[1])
print("other", {k: (str(v.dtype), v.float().tolist()) for k, v in sorted(other.items())})
with safe_open(sys.argv[2], framework="numpy") as f:  # safetensors' own reader, for NumPy
    print("meta", f.metadata(), f.get_tensor("bias").tolist())
