"""Structured vectors at any scale without running the model per memory.

Why: a million live embeddings would take hours on this machine, and uniform random vectors are
far easier for an approximate index than real ones (no clusters, no near-duplicates). So ~10k
real corpus sentences are embedded once (with the embedding cache) and every synthetic vector is
a normalised mixture of a few of those real embeddings plus Gaussian noise:

    v_i = normalise(sum_j w_ij * base[b_ij] + noise_i),  j = 1..3,
    w_i ~ Dirichlet(1, 1, 1) with the first weight boosted (one dominant topic),
    noise_i ~ N(0, sigma^2 / dim) per coordinate (default sigma 0.35),

all from a fixed seed, so vector i is the same on every run and for every size. The result
clusters like the real corpus (vectors near a real sentence, mixtures between topics).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np

from harness.corpus import make_memories

BASE_SIZE = 10_000
MIX = 3
SIGMA = 0.35


def base_vectors(embed_cache: str | Path | None, n: int = BASE_SIZE) -> np.ndarray:
    """Real embeddings of the first ``n`` bench corpus sentences (cached after the first run)."""
    from graphmem.embedding.embedder import load_embedder
    from graphmem.embedding.prepare import ensure_model

    ensure_model()
    embedder = load_embedder(cache_path=embed_cache)
    texts = [m["content"] for m in make_memories(n)]
    out = np.concatenate([embedder.embed_documents(texts[s:s + 256]) for s in range(0, n, 256)])
    return np.ascontiguousarray(out, dtype=np.float32)


def derived(base: np.ndarray, start: int, count: int, seed: int = 17, sigma: float = SIGMA) -> np.ndarray:
    """Vectors ``start .. start+count`` of the synthetic sequence (unit length, float32).

    Generated in fixed blocks of 10k from ``seed + block``, so any slice is reproducible."""
    block = 10_000
    parts = []
    first, last = start // block, (start + count - 1) // block
    for b in range(first, last + 1):
        rng = np.random.default_rng(seed + b)
        picks = rng.integers(0, len(base), size=(block, MIX))
        weights = rng.dirichlet(np.ones(MIX), size=block).astype(np.float32)
        weights[:, 0] += 1.0
        vecs = np.einsum("nk,nkd->nd", weights, base[picks])
        vecs += rng.normal(0, sigma / np.sqrt(base.shape[1]), size=vecs.shape).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        lo = max(start, b * block) - b * block
        hi = min(start + count, (b + 1) * block) - b * block
        parts.append(vecs[lo:hi].astype(np.float32))
    return np.ascontiguousarray(np.concatenate(parts))


def derived_batches(base: np.ndarray, total: int, batch: int = 10_000) -> Iterator[tuple[int, np.ndarray]]:
    for start in range(0, total, batch):
        yield start, derived(base, start, min(batch, total - start))


def query_vectors(base: np.ndarray, n: int, seed: int = 991) -> np.ndarray:
    """Queries drawn like the data (mixtures + noise) but from another seed: near, not equal, to rows."""
    return derived(base, 0, n, seed=seed + 10_000_000)


def dominant_picks(base_len: int, start: int, count: int, seed: int = 17) -> np.ndarray:
    """The base rows ``derived`` mixed into vectors ``start .. start+count`` (shape count x MIX,
    column 0 the dominant one): a bench can give memory i a text built from the same sentences
    its vector is near, so full-text and vector recall agree as they do on real data."""
    block = 10_000
    parts = []
    for b in range(start // block, (start + count - 1) // block + 1):
        picks = np.random.default_rng(seed + b).integers(0, base_len, size=(block, MIX))
        lo = max(start, b * block) - b * block
        hi = min(start + count, (b + 1) * block) - b * block
        parts.append(picks[lo:hi])
    return np.concatenate(parts)
