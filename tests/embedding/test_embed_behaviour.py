"""Shape, norm, similarity and edge-case behaviour of the real embedder."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from tokenizers import Tokenizer

from graphmem.embedding.embedder import Embedder
from graphmem.embedding.prepare import MAX_TOKENS, MODEL_ID, ensure_model

# Each of these is exactly one word piece, so n words -> n tokens (+ [CLS], [SEP]).
ONE_TOKEN_WORDS = [
    "memory",
    "graph",
    "agent",
    "store",
    "fact",
    "rule",
    "skill",
    "note",
    "query",
    "search",
    "node",
    "edge",
    "link",
    "time",
]


def cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b))  # rows are unit length


def test_shape_dtype_and_unit_norm(embedder: Embedder) -> None:
    assert embedder.model_id == MODEL_ID            # the test model (tests/conftest.py TEST_MODEL)
    assert embedder.dim == 384
    vecs = embedder.embed_documents(["alpha", "beta gamma", "a much longer sentence about graphs"])
    assert vecs.shape == (3, 384)
    assert vecs.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    q = embedder.embed_query("alpha")
    assert q.shape == (384,) and q.dtype == np.float32
    np.testing.assert_allclose(q, vecs[0], atol=1e-6)


def test_empty_batch_has_shape_zero_by_dim(embedder: Embedder) -> None:
    out = embedder.embed_documents([])
    assert out.shape == (0, 384) and out.dtype == np.float32


def test_empty_string_is_a_unit_vector(embedder: Embedder) -> None:
    """Documented: "" embeds as [CLS] [SEP] -- a valid, deterministic unit vector."""
    v = embedder.embed_query("")
    assert np.isfinite(v).all()
    assert abs(float(np.linalg.norm(v)) - 1.0) < 1e-5
    np.testing.assert_allclose(embedder.embed_documents(["", "x"])[0], v, atol=1e-6)


def test_padding_in_a_batch_does_not_change_vectors(embedder: Embedder) -> None:
    texts = ["short", "a considerably longer sentence that forces padding of the short one " * 3]
    batch = embedder.embed_documents(texts)
    for text, row in zip(texts, batch, strict=True):
        np.testing.assert_allclose(embedder.embed_query(text), row, atol=1e-5)


def test_paraphrases_score_above_unrelated_pairs(embedder: Embedder) -> None:
    pairs = [
        ("How do I reset my password?", "I forgot my password and need to change it."),
        ("The cat is sleeping on the sofa.", "A cat naps on the couch."),
        ("Deploy the service with docker compose.", "Use docker-compose to run the service."),
    ]
    unrelated = [
        ("How do I reset my password?", "The cat is sleeping on the sofa."),
        ("Deploy the service with docker compose.", "A cat naps on the couch."),
        ("I forgot my password and need to change it.", "Use docker-compose to run the service."),
    ]
    para = [cos(embedder.embed_query(a), embedder.embed_query(b)) for a, b in pairs]
    other = [cos(embedder.embed_query(a), embedder.embed_query(b)) for a, b in unrelated]
    assert min(para) > max(other) + 0.2, (para, other)
    assert min(para) > 0.5


def test_words_are_single_tokens() -> None:
    tok = Tokenizer.from_file(str(ensure_model() / "tokenizer.json"))
    tok.no_padding()
    tok.no_truncation()
    for w in ONE_TOKEN_WORDS:
        assert len(tok.encode(w, add_special_tokens=False).ids) == 1, w


def test_long_input_is_truncated_at_256_tokens(embedder: Embedder) -> None:
    """Documented: only the first 256 tokens ([CLS] + 254 word pieces + [SEP]) count."""
    words = list(itertools.islice(itertools.cycle(ONE_TOKEN_WORDS), 2000))
    long_text = " ".join(words)
    head = " ".join(words[: MAX_TOKENS - 2])
    v_long = embedder.embed_query(long_text)
    assert abs(float(np.linalg.norm(v_long)) - 1.0) < 1e-5
    np.testing.assert_allclose(v_long, embedder.embed_query(head), atol=1e-6)
    # Appending text after the 256th token changes nothing ...
    np.testing.assert_allclose(
        v_long, embedder.embed_query(long_text + " completely different ending about rivers"), atol=1e-6
    )
    # ... while one token fewer does.
    shorter = embedder.embed_query(" ".join(words[: MAX_TOKENS - 3]))
    assert np.abs(shorter - v_long).max() > 1e-4


def test_rejects_non_strings(embedder: Embedder) -> None:
    with pytest.raises(TypeError):
        embedder.embed_documents("not a list")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        embedder.embed_documents(["ok", None])  # type: ignore[list-item]
