"""bge-small-en-v1.5 and e5-small-v2 are used as their model cards say.

The reference is computed here independently of fastembed and of graphmem's embedder:
the model's tokenizer.json and ONNX graph run directly (tokenizers + onnxruntime), then
the card's pooling (bge: the [CLS] vector; e5: the attention-masked mean), L2
normalisation, and the card's prefixes (bge: the retrieval instruction before queries,
nothing before passages; e5: "query: " / "passage: "). graphmem's vectors must equal that,
and differ from what the wrong pooling or a missing prefix would give, so the test fails
if either is lost.
"""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from tokenizers import Tokenizer

from graphmem.embedding.embedder import CachedEmbedder, load_embedder
from graphmem.embedding.models import BGE_SMALL, E5_SMALL, ModelSpec, model_spec
from graphmem.embedding.prepare import default_model_dir, ensure_model

TEXTS = ["The billing service reads its database URL from BILLING_DB_URL.",
         "Caroline went to the LGBTQ support group on 7 May 2023 and found it powerful."]
QUERY = "When did Caroline go to the support group?"


def _reference(spec: ModelSpec, texts: list[str], pooling: str) -> np.ndarray:
    model_dir = default_model_dir(spec.name)
    tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tok.enable_truncation(max_length=spec.max_tokens)
    tok.enable_padding(pad_id=0, pad_token="[PAD]")
    enc = tok.encode_batch(texts)
    ids = np.array([e.ids for e in enc], dtype=np.int64)
    mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
    session = ort.InferenceSession(str(model_dir / "model.onnx"), providers=["CPUExecutionProvider"])
    hidden = session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0]
    if pooling == "cls":
        pooled = hidden[:, 0]
    else:
        pooled = (hidden * mask[..., None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
    return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)


@pytest.fixture(scope="module", params=[BGE_SMALL, E5_SMALL], ids=["bge", "e5"])
def prepared(request) -> ModelSpec:
    ensure_model(model=request.param.name)
    return request.param


def test_card_usage_is_followed(prepared: ModelSpec) -> None:
    spec = prepared
    emb = load_embedder(spec.name)
    assert (emb.model_id, emb.dim) == (spec.name, 384)
    docs = emb.embed_documents(TEXTS)
    query = emb.embed_query(QUERY)
    want_docs = _reference(spec, [spec.passage_prefix + t for t in TEXTS], spec.pooling)
    want_query = _reference(spec, [spec.query_prefix + QUERY], spec.pooling)[0]
    np.testing.assert_allclose(docs, want_docs, atol=2e-5)
    np.testing.assert_allclose(query, want_query, atol=2e-5)
    assert np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-5)
    # the test can fail: the other pooling and the bare query give other vectors
    other = "mean" if spec.pooling == "cls" else "cls"
    assert float(docs[0] @ _reference(spec, [spec.passage_prefix + TEXTS[0]], other)[0]) < 0.99
    assert float(query @ _reference(spec, [QUERY], spec.pooling)[0]) < 0.995


def test_prefixes_are_the_cards(prepared: ModelSpec) -> None:
    if prepared is BGE_SMALL:
        assert (BGE_SMALL.pooling, BGE_SMALL.passage_prefix) == ("cls", "")
        assert BGE_SMALL.query_prefix == "Represent this sentence for searching relevant passages: "
    else:
        assert (E5_SMALL.pooling, E5_SMALL.query_prefix) == ("mean", "query: ")
        assert E5_SMALL.passage_prefix == "passage: "
    assert model_spec(prepared.name.split("/")[-1]) is prepared


def test_cache_keeps_queries_apart_from_passages(prepared: ModelSpec, tmp_path) -> None:
    from graphmem.embedding.cache import EmbeddingCache

    inner = load_embedder(prepared.name)
    cached = CachedEmbedder(inner, EmbeddingCache(tmp_path / "c.sqlite"))
    doc = cached.embed_documents([QUERY])[0]
    query = cached.embed_query(QUERY)
    np.testing.assert_allclose(query, inner.embed_query(QUERY), atol=1e-6)
    assert float(doc @ query) < 0.999          # the passage vector was not served as the query's
    np.testing.assert_array_equal(cached.embed_query(QUERY), query)
