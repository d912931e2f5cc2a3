"""peft LoRA, run unmodified through ``python -m mstorch run`` where torch is not installed, against the same
script on real torch: on a hand-written MLP (``target_modules`` by name) and on a tiny GPT-2 from transformers
(its ``Conv1D`` projections): adapter layout, a few AdamW steps, eval logits, ``save_pretrained`` and
``PeftModel.from_pretrained`` reload, ``merge_and_unload``; real torch then loads the adapters mstorch saved."""
import pytest

from harness import check_as_torch as check  # value and error cases side by side: as torch does
from json_compare import assert_close

CASE = r'''
import json, os, sys
import torch
if torch.__name__ == "torch":   # the installed torchvision is a CUDA build: its compiled ops do not load beside CPU torch
    import types
    sys.modules["torchvision._meta_registrations"] = types.ModuleType("torchvision._meta_registrations")
from peft import LoraConfig, PeftModel, TaskType, get_peft_model
from transformers import GPT2Config, GPT2LMHeadModel


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin0 = torch.nn.Linear(6, 8)
        self.act = torch.nn.ReLU()
        self.lin1 = torch.nn.Linear(8, 3)

    def forward(self, x):
        return self.lin1(self.act(self.lin0(x)))


def params(m):
    return {k: v.detach().flatten().tolist() for k, v in m.state_dict().items()}


def lora_case(make_base, config, loss_fn, predict, name):
    out = {}
    torch.manual_seed(0)
    model = get_peft_model(make_base(), config)
    out["trainable"] = [n for n, p in model.named_parameters() if p.requires_grad]
    out["count"] = list(model.get_nb_trainable_parameters())
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=0.05)
    losses = []
    for _ in range(3):
        loss = loss_fn(model)
        loss.backward()
        opt.step()
        opt.zero_grad()
        losses.append(loss.item())
    out["losses"] = losses
    out["lora"] = {k: v for k, v in params(model).items() if "lora_" in k}
    model.eval()
    out["logits"] = predict(model)
    mine = ("torch_" if torch.__name__ == "torch" else "mstorch_") + name
    model.save_pretrained(mine)
    out["files"] = sorted(os.listdir(mine))
    out["reloaded"] = predict(PeftModel.from_pretrained(make_base(), mine).eval())
    merged = model.merge_and_unload()
    out["merged"] = [type(merged).__name__, predict(merged), sorted(params(merged))[:4]]
    if torch.__name__ == "torch":   # real torch loads what mstorch's run saved
        theirs = PeftModel.from_pretrained(make_base(), "mstorch_" + name)
        out["read_mstorch"] = {k: v for k, v in params(theirs).items() if "lora_" in k}
    return out


out = {}
torch.manual_seed(1)
x, y = torch.randn(10, 6), torch.randint(0, 3, (10,))
ids = torch.randint(0, 40, (2, 8))
out["mlp"] = lora_case(
    MLP, LoraConfig(r=4, lora_alpha=8, target_modules=["lin0", "lin1"], lora_dropout=0.0, init_lora_weights="gaussian"),
    lambda m: torch.nn.functional.cross_entropy(m(x), y), lambda m: m(x).tolist(), "mlp")

cfg = GPT2Config(vocab_size=40, n_positions=16, n_embd=16, n_layer=2, n_head=2, attn_pdrop=0.0, resid_pdrop=0.0,
                 embd_pdrop=0.0)
out["gpt2"] = lora_case(
    lambda: GPT2LMHeadModel(cfg),
    LoraConfig(task_type=TaskType.CAUSAL_LM, r=4, lora_alpha=8, lora_dropout=0.0, target_modules=["c_attn"],
               init_lora_weights="gaussian"),
    lambda m: m(input_ids=ids, labels=ids).loss, lambda m: m(input_ids=ids).logits[0, :4].tolist(), "gpt2")
print(json.dumps(out))
'''


def test_lora_train_save_reload_merge(run_case):
    got = run_case(CASE, "run")            # first: it saves the adapters the torch run reads
    ref = run_case(CASE, "torch")
    for name in ("mlp", "gpt2"):
        r, g = ref[name], got[name]
        assert r["files"] == ["README.md", "adapter_config.json", "adapter_model.safetensors"]
        assert r["losses"][2] < r["losses"][0] and r["lora"]   # it trained
        # torch reads mstorch's adapter file: mstorch's LoRA weights exactly
        assert r.pop("read_mstorch") == g["lora"], name
    # three AdamW steps at lr=0.05 divide each gradient by its own root mean square: float32 rounding of a small
    # gradient (BLAS summation order, which differs between CPUs) moves a weight by ~1e-6, 1e-5 of it
    assert_close(ref, got, rtol=1e-4, atol=1e-5)


# --- the torch names peft reaches at import, side by side in this process (harness) ---------------------------

def _sign_free(T, U, S, V):
    """torch.svd_lowrank's factors up to the sign of each singular pair (LAPACK's and MindSpore's choices
    differ, docs/known-differences.md): the singular values and U diag(S) V^H."""
    return S, U @ T.diag_embed(S) @ V.mT


@pytest.mark.parametrize("shape,q,niter,mean", [((8, 5), 3, 2, False), ((5, 8), 4, 1, False), ((6, 6), 6, 2, False),
                                                ((2, 7, 4), 3, 2, False), ((8, 5), 3, 0, True)])
def test_svd_lowrank(shape, q, niter, mean):
    def fn(T):
        T.manual_seed(0)
        A = T.randn(*shape)
        M = T.randn(*shape[-2:]) * 0.1 if mean else None
        U, S, V = T.svd_lowrank(A, q=q, niter=niter, M=M)
        return (U.shape, V.shape) + _sign_free(T, U, S, V) + (T.randn(2),)   # the same draws were used
    check(fn, rtol=1e-4, atol=1e-5)


def test_distribution_classes_peft_imports():
    def fn(T):
        from importlib import import_module
        rb = import_module(T.__name__ + ".distributions.relaxed_bernoulli")
        wi = import_module(T.__name__ + ".distributions.wishart")
        return (issubclass(rb.RelaxedBernoulli, T.distributions.Distribution),
                issubclass(wi.Wishart, T.distributions.ExponentialFamily),
                T.distributions.RelaxedBernoulli is rb.RelaxedBernoulli, T.distributions.Wishart is wi.Wishart)
    check(fn)
