"""The built ONNX model reproduces an independent reference implementation.

``reference_vectors.json`` was made once by ``tests/embedding/make_reference.py``:
a plain numpy float64 BERT forward pass over the PyPI-shipped
``model.safetensors`` (no onnx, onnxruntime, fastembed or graphmem code),
tokenised with the ``tokenizers`` library from the shipped ``tokenizer.json``,
truncated at 256 tokens, mean-pooled and L2-normalised. Re-run that script only
if the source weights change.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from graphmem.embedding.embedder import Embedder
from graphmem.embedding.prepare import PINNED_SOURCE_SHA256

REFERENCE = json.loads(Path(__file__).with_name("reference_vectors.json").read_text(encoding="utf-8"))
ENTRIES = REFERENCE["entries"]


def test_reference_was_made_from_the_pinned_weights() -> None:
    assert REFERENCE["source_sha256"] == PINNED_SOURCE_SHA256["model.safetensors"]
    assert len(ENTRIES) >= 5
    assert any(e["text"] == "" for e in ENTRIES)
    assert any(e["n_tokens"] == 256 for e in ENTRIES)  # one input exercises truncation


def test_batch_matches_reference(embedder: Embedder) -> None:
    got = embedder.embed_documents([e["text"] for e in ENTRIES])
    want = np.array([e["vector"] for e in ENTRIES], dtype=np.float64)
    diff = np.abs(got.astype(np.float64) - want).max(axis=1)
    assert diff.max() < 1e-5, dict(zip([e["text"][:30] for e in ENTRIES], diff, strict=True))


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e["text"][:24] or "<empty>")
def test_single_query_matches_reference(embedder: Embedder, entry: dict) -> None:
    got = embedder.embed_query(entry["text"])
    np.testing.assert_allclose(got, np.array(entry["vector"]), atol=1e-5, rtol=0)
