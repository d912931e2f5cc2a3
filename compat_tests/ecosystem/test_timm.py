"""timm, unmodified, on mstorch (torch hidden) against the real torch: ``create_model(name, pretrained=False,
num_classes=10)`` for resnet, efficientnet, convnext, vit and swin gives the same initial weights for the same seed,
the same logits and loss, the same gradients and the same weights after one SGD step. Small inputs (and, for
swin, a narrow config) keep the cost down; tolerances as in test_torchvision. timm's trunc_normal_ init goes
through erfinv_, whose float32 rounding differs by an ulp from torch's in some elements, so initial weights compare
by per-tensor sums at 1e-6 rather than bit for bit, and logits (12 transformer blocks on those weights) within 1e-4
of their largest magnitude. (An Adam step is not compared: it turns gradients that are
rounding noise around 0 into full +-lr steps, see test_torchvision.)"""
import pytest

from test_torchvision import PRELUDE, _close, _sums_close

SCRIPT = PRELUDE + r'''
import json
import timm


def sums(tensors):
    return {k: [float(v.detach().double().sum()), float(v.detach().double().abs().sum())]
            for k, v in tensors.items() if v is not None and v.dtype.is_floating_point}


MODELS = [("resnet18", {}, 64), ("efficientnet_b0", {}, 64), ("convnext_atto", {}, 32),
          ("vit_tiny_patch16_224", {"img_size": 32}, 32),
          ("swin_tiny_patch4_window7_224", {"img_size": 56, "embed_dim": 24, "depths": (1, 1, 1, 1),
                                            "num_heads": (1, 1, 1, 1)}, 56)]
out = {}
for name, kw, size in MODELS:
    try:
        torch.manual_seed(0)
        m = timm.create_model(name, pretrained=False, num_classes=10, **kw)
        init = sums(m.state_dict())
        logits = m(torch.randn(2, 3, size, size))
        loss = torch.nn.functional.cross_entropy(logits, torch.tensor([1, 3]))
        loss.backward()
        grads = sums({n: p.grad for n, p in m.named_parameters()})
        torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9).step()
        out[name] = {"init": init, "logits": logits.tolist(), "loss": loss.item(), "grads": grads,
                     "after": sums(m.state_dict())}
    except Exception as e:  # the error is the result
        out[name] = {"error": type(e).__name__, "message": str(e)[:300]}
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def results(torch_and_mstorch):
    return torch_and_mstorch(SCRIPT)


@pytest.mark.parametrize("model", ["resnet18", "efficientnet_b0", "convnext_atto", "vit_tiny_patch16_224",
                                   "swin_tiny_patch4_window7_224"])
def test_create_model_train_step(results, model):
    import numpy as np
    ref, got = (r[model] for r in results)
    assert "error" not in ref, ref
    assert "error" not in got, got
    _sums_close(ref["init"], got["init"], "init", rtol=1e-6, atol=0)
    _close(ref["logits"], got["logits"], 0, 1e-4 * np.abs(ref["logits"]).max())
    _close(ref["loss"], got["loss"], 5e-5)
    _sums_close(ref["grads"], got["grads"], "grad")
    _sums_close(ref["after"], got["after"], "after SGD")
