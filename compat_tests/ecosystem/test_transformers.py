"""Hugging Face transformers, unmodified, through ``python -m mstorch run`` where torch is not installed, against
the same script on real torch in another process.

Tiny configs (hidden 32, 2 layers) of GPT-2, LLaMA and Qwen2 (RoPE, grouped-query attention, RMSNorm, SDPA),
BERT, T5 and ViT built after ``torch.manual_seed``: the initial weights, logits, loss, gradients and the
parameters after three AdamW steps; ``generate()`` greedy and seeded sampling; a model saved in both formats
(``save_pretrained``'s safetensors, and a ``torch.save``'d ``pytorch_model.bin`` beside the config) read back
by real torch + transformers, and torch's files read by mstorch. torchvision and peft, optional dependencies
that transformers imports when installed, are hidden in both processes (they have their own tests).
``Trainer`` runs three steps on CPU."""
import numpy as np

HIDE = ("torchvision", "peft")

CASE = r'''
import json, os, sys
import numpy as np
import torch
import transformers as tf

out_path, save_dir = sys.argv[1], sys.argv[2]
load_dir = sys.argv[3] if len(sys.argv) > 3 else None
tf.logging.set_verbosity_error()


def config(name):
    small = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                 max_position_embeddings=64, vocab_size=99)
    if name == "gpt2":
        return tf.GPT2Config(n_embd=32, n_layer=2, n_head=4, n_positions=64, vocab_size=99,
                             bos_token_id=0, eos_token_id=None), tf.GPT2LMHeadModel
    if name == "llama":
        return tf.LlamaConfig(num_key_value_heads=2, bos_token_id=0, eos_token_id=None, **small), tf.LlamaForCausalLM
    if name == "qwen2":
        return tf.Qwen2Config(num_key_value_heads=2, bos_token_id=0, eos_token_id=None, **small), tf.Qwen2ForCausalLM
    if name == "bert":
        return tf.BertConfig(num_labels=3, **small), tf.BertForSequenceClassification
    if name == "t5":
        return tf.T5Config(d_model=32, d_ff=64, d_kv=8, num_layers=2, num_heads=4, vocab_size=99,
                           decoder_start_token_id=0, pad_token_id=0, eos_token_id=None), tf.T5ForConditionalGeneration
    return tf.ViTConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                        image_size=16, patch_size=4, num_labels=3), tf.ViTForImageClassification


def build(name):
    cfg, cls = config(name)
    torch.manual_seed(0)
    return cls(cfg)


rng = np.random.RandomState(1)
ids = torch.tensor(rng.randint(2, 99, size=(2, 7)))
mask = torch.tensor([[1] * 7, [1] * 5 + [0] * 2])
pixels = torch.tensor(rng.randn(2, 3, 16, 16).astype(np.float32))
labels = {"bert": torch.tensor([0, 2]), "vit": torch.tensor([1, 2]),
          "t5": torch.tensor(rng.randint(2, 99, size=(2, 5)))}
res, tokens = {}, {}
for name in ("gpt2", "llama", "qwen2", "bert", "t5", "vit"):
    model = build(name)
    inputs = (dict(pixel_values=pixels) if name == "vit" else dict(input_ids=ids, attention_mask=mask))
    inputs["labels"] = labels.get(name, ids)
    for n, p in model.named_parameters():
        res[f"{name}/init/{n}"] = p.detach().numpy().copy()
    torch.manual_seed(1)   # dropout masks are drawn from the generator
    out = model(**inputs)
    res[f"{name}/logits"] = out.logits.detach().numpy()
    res[f"{name}/loss"] = out.loss.detach().numpy()
    out.loss.backward()
    for n, p in model.named_parameters():
        if p.grad is not None:
            res[f"{name}/grad/{n}"] = p.grad.numpy().copy()
    # Adam divides each element's gradient by its own magnitude: with the default eps (1e-8) an element whose
    # gradient is analytically zero (attention key biases) or at roundoff level moves by +-lr on roundoff
    # alone; eps=1e-3 keeps such elements still and leaves the others to the comparison
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2, eps=1e-3)
    for step in range(3):
        if step:
            opt.zero_grad()
            model(**inputs).loss.backward()
        opt.step()
    for n, p in model.named_parameters():
        res[f"{name}/step3/{n}"] = p.detach().numpy().copy()

    if name in ("gpt2", "llama", "t5"):
        # no eos token: generation runs max_new_tokens steps (stopping on eos needs torch.isin, tested elsewhere)
        gen = build(name).eval()
        prompt = dict(input_ids=ids[:1, :4], attention_mask=mask[:1, :4])
        tokens[f"{name}/greedy"] = gen.generate(**prompt, max_new_tokens=6, do_sample=False).tolist()
        torch.manual_seed(3)
        tokens[f"{name}/sample"] = gen.generate(**prompt, max_new_tokens=6, do_sample=True, top_k=20,
                                                temperature=0.9).tolist()

# save_pretrained in both formats; read back the other library's files
model = build("gpt2").eval()
model.save_pretrained(os.path.join(save_dir, "safetensors"))
# transformers 5 writes safetensors only (safe_serialization=False is ignored); it still reads a torch.save'd
# pytorch_model.bin, the format of older checkpoints
model.config.save_pretrained(os.path.join(save_dir, "bin"))
torch.save(model.state_dict(), os.path.join(save_dir, "bin", "pytorch_model.bin"))
files = {fmt: sorted(os.listdir(os.path.join(save_dir, fmt))) for fmt in ("safetensors", "bin")}
if load_dir is not None:
    for fmt in ("safetensors", "bin"):
        loaded = tf.GPT2LMHeadModel.from_pretrained(os.path.join(load_dir, fmt), use_safetensors=fmt == "safetensors")
        loaded.eval()
        with torch.no_grad():
            res[f"reload/{fmt}"] = loaded(input_ids=ids).logits.numpy()
with torch.no_grad():
    res["saved_model_logits"] = model(input_ids=ids).logits.numpy()
np.savez(out_path, **res)
print(json.dumps({"tokens": tokens, "files": files}))
'''

# real torch reads the files mstorch wrote
READ = r'''
import json, os, sys
import numpy as np
import torch
import transformers as tf
tf.logging.set_verbosity_error()
ids = torch.tensor(np.random.RandomState(1).randint(2, 99, size=(2, 7)))
res = {}
for fmt in ("safetensors", "bin"):
    model = tf.GPT2LMHeadModel.from_pretrained(os.path.join(sys.argv[2], fmt), use_safetensors=fmt == "safetensors")
    model.eval()
    with torch.no_grad():
        res[fmt] = model(input_ids=ids).logits.numpy()
np.savez(sys.argv[1], **res)
print(json.dumps({"ok": True}))
'''


def _close(ref, got, what, rtol):
    """Each array within ``rtol`` of its own largest magnitude (plus a floor for the all-but-zero gradients
    of attention key biases, which are roundoff in both libraries)."""
    assert ref.shape == got.shape and ref.dtype == got.dtype, (what, ref.shape, got.shape, ref.dtype, got.dtype)
    scale = max(float(np.abs(ref).max()), 1e-3) if ref.size else 1.0
    err = float(np.abs(ref.astype(np.float64) - got).max()) if ref.size else 0.0
    assert err <= rtol * scale, f"{what}: max abs difference {err:.3g} (scale {scale:.3g})"


def test_models_train_generate_save_load(run_case, tmp_path):
    tdir, mdir = tmp_path / "torch_saved", tmp_path / "mstorch_saved"
    ref = run_case(CASE, "torch", also_hide=HIDE, args=(tmp_path / "ref.npz", tdir), name="case_torch.py")
    got = run_case(CASE, "run", also_hide=HIDE, args=(tmp_path / "got.npz", mdir, tdir), name="case_mstorch.py")
    run_case(READ, "torch", also_hide=HIDE, args=(tmp_path / "read.npz", mdir), name="read_torch.py")
    r, g, back = np.load(tmp_path / "ref.npz"), np.load(tmp_path / "got.npz"), np.load(tmp_path / "read.npz")

    assert got == ref   # generated tokens, file names
    assert set(g.files) - set(r.files) == {"reload/safetensors", "reload/bin"} and set(r.files) <= set(g.files)
    for key in r.files:
        kind = key.split("/")[1] if "/" in key else key
        if kind == "init":
            np.testing.assert_array_equal(g[key], r[key], err_msg=key)   # torch's RNG and init: bit for bit
        else:
            # logits, loss and gradients differ by float32 roundoff (another summation order in MindSpore's
            # matmuls; its float32 cos/sin are correctly rounded, torch's within 1 ulp); three Adam steps, which
            # divide each gradient by its own magnitude, amplify that a little
            _close(r[key], g[key], key, 2e-5 if kind == "step3" else 1e-5)
    # files either library wrote give the other the same model
    for fmt in ("safetensors", "bin"):
        _close(r["saved_model_logits"], g[f"reload/{fmt}"], f"mstorch reading torch's {fmt}", 1e-6)
        _close(g["saved_model_logits"], back[fmt], f"torch reading mstorch's {fmt}", 1e-6)


TRAINER = r'''
import json, sys
import numpy as np
import torch
import transformers as tf
tf.logging.set_verbosity_error()
cfg = tf.BertConfig(vocab_size=99, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                    num_labels=2)
torch.manual_seed(0)
model = tf.BertForSequenceClassification(cfg)


class Data(torch.utils.data.Dataset):
    def __len__(self):
        return 16

    def __getitem__(self, i):
        ids = np.random.RandomState(i).randint(1, 99, size=8)
        return {"input_ids": torch.tensor(ids), "labels": torch.tensor(i % 2)}


args = tf.TrainingArguments(output_dir=sys.argv[1], per_device_train_batch_size=4, max_steps=3, logging_steps=1,
                            report_to=[], use_cpu=True, save_strategy="no", seed=0, learning_rate=1e-2,
                            disable_tqdm=True)
trainer = tf.Trainer(model=model, args=args, train_dataset=Data())
out = trainer.train()
print(json.dumps({"losses": [h["loss"] for h in trainer.state.log_history if "loss" in h],
                  "train_loss": out.training_loss, "step": trainer.state.global_step,
                  "weight": model.classifier.weight.detach().numpy().ravel().tolist()}))
'''


def test_trainer_steps(run_case, tmp_path):
    """``Trainer`` on CPU: three steps over a tiny shuffled dataset (its seeded sampler, AdamW, linear schedule,
    the in-place loss scaling before backward): the logged losses and the trained classifier."""
    ref = run_case(TRAINER, "torch", also_hide=HIDE, args=(tmp_path / "t",), name="trainer_torch.py")
    got = run_case(TRAINER, "run", also_hide=HIDE, args=(tmp_path / "m",), name="trainer_mstorch.py")
    assert got["step"] == ref["step"] == 3
    np.testing.assert_allclose(got["losses"] + [got["train_loss"]], ref["losses"] + [ref["train_loss"]], rtol=1e-5)
    w_ref, w_got = np.array(ref["weight"]), np.array(got["weight"])
    assert np.abs(w_got - w_ref).max() <= 2e-5 * np.abs(w_ref).max()


RESIZE = r'''
import json
import numpy as np
import torch
import transformers as tf
tf.logging.set_verbosity_error()
res = {}
for name in ("gpt2", "bert"):
    if name == "gpt2":
        cfg, cls = tf.GPT2Config(n_embd=16, n_layer=1, n_head=2, n_positions=32, vocab_size=40), tf.GPT2LMHeadModel
    else:
        cfg, cls = tf.BertConfig(vocab_size=40, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                                 num_attention_heads=2, max_position_embeddings=32), tf.BertForMaskedLM
    torch.manual_seed(0)
    model = cls(cfg)
    old = model.get_input_embeddings().weight.detach().numpy().astype(np.float64)
    torch.manual_seed(1)
    # the added rows are drawn from a MultivariateNormal around the old rows' mean, with 1e-9 times their
    # covariance: the draws' offsets from the mean, scaled back, are what the seed decides
    emb = model.resize_token_embeddings(45)
    new = emb.weight.detach().numpy()
    res[name] = new.tolist()
    res[name + "_offsets"] = ((new[40:] - old.mean(0)) / np.sqrt(1e-9)).tolist()
    res[name + "_head"] = model.get_output_embeddings().weight.detach().numpy().tolist()
print(json.dumps(res))
'''


def test_resize_token_embeddings(run_case):
    """``resize_token_embeddings`` samples the new rows from ``torch.distributions.MultivariateNormal`` (after
    checking ``constraints.positive_definite``): under the same seed, torch's rows."""
    ref = run_case(RESIZE, "torch", also_hide=HIDE, name="resize_torch.py")
    got = run_case(RESIZE, "run", also_hide=HIDE, name="resize_mstorch.py")
    assert list(got) == list(ref)
    for key in ref:
        # (the offsets keep about three digits: float32 rows of ~1e-2 carry draws of ~1e-6)
        _close(np.array(ref[key]), np.array(got[key]), key, 1e-2 if key.endswith("_offsets") else 1e-5)
        if key.endswith("_offsets"):
            assert np.abs(np.array(ref[key])).min() > 0 and np.std(ref[key]) > 1e-3   # drawn, not the mean
