"""EmbeddingCache and CachedEmbedder against the real model."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from graphmem.embedding.cache import EmbeddingCache
from graphmem.embedding.embedder import CachedEmbedder, Embedder, load_embedder


class CountingEmbedder:
    """Passes calls to the real embedder and records which texts it was asked for."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dim = inner.dim
        self.seen: list[str] = []

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.seen.extend(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]


def test_roundtrip_is_bit_identical_and_counts_hits(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    vecs = rng.standard_normal((3, 8)).astype(np.float32)
    with EmbeddingCache(tmp_path / "c.sqlite") as cache:
        cache.put_many("m", ["a", "b", "ünïcode \ud800"], vecs)
        got = cache.get_many("m", ["b", "zzz", "a", "ünïcode \ud800", "a"])
        assert sorted(got) == [0, 2, 3, 4]
        assert got[0].tobytes() == vecs[1].tobytes()
        assert got[2].tobytes() == vecs[0].tobytes() == got[4].tobytes()
        assert got[3].tobytes() == vecs[2].tobytes()
        assert cache.get_many("other-model", ["a"]) == {}  # models never mix
        stats = cache.stats()
        assert (stats["hits"], stats["misses"], stats["entries"]) == (4, 2, 3)


def test_persists_across_reopen_and_replaces(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "c.sqlite"
    with EmbeddingCache(path) as cache:
        cache.put_many("m", ["a"], np.ones((1, 4), np.float32))
        cache.put_many("m", ["a"], np.full((1, 4), 2.0, np.float32))
    with EmbeddingCache(path) as cache:
        np.testing.assert_array_equal(cache.get_many("m", ["a"])[0], np.full(4, 2.0, np.float32))
        assert cache.stats()["entries"] == 1
        assert cache.clear("m") == 1


def test_put_many_checks_shapes(tmp_path: Path) -> None:
    with EmbeddingCache(tmp_path / "c.sqlite") as cache, pytest.raises(ValueError):
        cache.put_many("m", ["a", "b"], np.ones((1, 4), np.float32))


def test_threads_share_one_cache(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path / "c.sqlite")
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            for i in range(50):
                text = f"t{k}-{i}"
                cache.put_many("m", [text], np.full((1, 4), k + i, np.float32))
                assert cache.get_many("m", [text])[0][0] == k + i
        except (AssertionError, RuntimeError) as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert cache.stats()["entries"] == 200
    cache.close()


def test_cached_embedder_only_embeds_misses(embedder: Embedder, tmp_path: Path) -> None:
    counting = CountingEmbedder(embedder)
    cached = CachedEmbedder(counting, EmbeddingCache(tmp_path / "c.sqlite"))
    assert (cached.model_id, cached.dim) == (embedder.model_id, embedder.dim)
    first = cached.embed_documents(["red apple", "green pear", "red apple"])
    assert counting.seen == ["red apple", "green pear"]  # duplicate embedded once
    np.testing.assert_array_equal(first, embedder.embed_documents(["red apple", "green pear", "red apple"]))

    counting.seen.clear()
    second = cached.embed_documents(["green pear", "blue plum", "red apple"])
    assert counting.seen == ["blue plum"]
    assert second[0].tobytes() == first[1].tobytes()
    assert second[2].tobytes() == first[0].tobytes()
    assert cached.cache.stats()["hits"] == 2

    counting.seen.clear()
    q = cached.embed_query("blue plum")
    assert counting.seen == [] and q.tobytes() == second[1].tobytes()
    assert cached.embed_documents([]).shape == (0, 384)


def test_load_embedder_with_cache_path(embedder: Embedder, tmp_path: Path) -> None:
    cached = load_embedder(cache_path=tmp_path / "emb.sqlite")
    assert isinstance(cached, CachedEmbedder)
    v = cached.embed_query("hello cache")
    np.testing.assert_allclose(v, embedder.embed_query("hello cache"), atol=1e-6)
    assert cached.embed_query("hello cache").tobytes() == v.tobytes()
    assert cached.cache.stats()["hits"] == 1
