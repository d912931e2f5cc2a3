"""timm's optimizers on their multi-tensor path (``foreach=True``: torch._foreach_* calls, timm's _helpers) through
``python -m mstorch run`` with torch hidden, against torch: the parameters after three steps of a small MLP."""
import numpy as np

SCRIPT = r'''
import json, sys, types
import torch
if torch.__name__ == "torch":   # torchvision's CUDA build: its compiled ops do not load beside the CPU torch
    sys.modules["torchvision._meta_registrations"] = types.ModuleType("torchvision._meta_registrations")
import timm.optim
x, y = torch.tensor([[0.5, -1.0, 2.0, 0.1]] * 3 + [[1.5, 0.2, -0.3, 0.9]] * 3), torch.tensor([0, 1, 1, 0, 1, 0])
out = {}
for name in ("adamw", "lamb", "adan", "lion", "nadamw", "adopt", "laprop"):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.GELU(), torch.nn.Linear(8, 2))
    opt = timm.optim.create_optimizer_v2(model, name, lr=1e-2, weight_decay=0.01, foreach=True)
    for _ in range(3):
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    out[name] = [p.detach().reshape(-1).tolist() for p in model.parameters()]
print(json.dumps(out))
'''


def test_foreach_optimizers(torch_and_mstorch):
    ref, got = torch_and_mstorch(SCRIPT)
    assert got.keys() == ref.keys()
    for name in ref:
        for r, g in zip(ref[name], got[name]):
            # Adam-family updates divide by sqrt(v): 1e-7 gradient roundoff moves an element by ~1e-6 of lr
            np.testing.assert_allclose(g, r, rtol=1e-5, atol=2e-6, err_msg=name)
