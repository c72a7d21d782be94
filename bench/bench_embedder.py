"""Benchmark the default embedder: batch throughput and single-query latency.

Why: retrieval latency budgets and ingest sizing depend on these two numbers.
Run from the repo root: ``python -m bench.bench_embedder`` (or ``python -m bench.bench_embedder``
with graphmem installed); prints a table and writes
``bench/results/embedder.json``. Prepares the model first if needed.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

from bench.meta import pct, write_result
from graphmem.embedding.cache import EmbeddingCache
from graphmem.embedding.embedder import CachedEmbedder, FastEmbedder
from graphmem.embedding.prepare import ensure_model

SUBJECTS = ["The agent", "Our service", "The user", "A deploy script", "The graph store", "This team"]
VERBS = ["remembers", "updates", "links", "forgets", "indexes", "reviews"]
OBJECTS = ["the config note", "a failing test", "the release plan", "an API key rotation", "the skill"]
TAILS = ["every morning.", "after each deploy.", "when asked.", "in the staging cluster.", "for project {n}."]


def sentences(n: int) -> list[str]:
    """Deterministic short, distinct sentences (~8-12 tokens each)."""
    out = []
    for i in range(n):
        s = SUBJECTS[i % 6]
        v = VERBS[(i // 6) % 6]
        o = OBJECTS[(i // 36) % 5]
        t = TAILS[(i // 180) % 5].format(n=i)
        out.append(f"{s} {v} {o} {t} (#{i})")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--docs", type=int, default=2000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "embedder.json")
    args = ap.parse_args()

    model_dir = ensure_model()
    t0 = time.perf_counter()
    emb = FastEmbedder(model_dir=model_dir, batch_size=args.batch_size, threads=args.threads)
    load_s = time.perf_counter() - t0

    docs = sentences(args.docs)
    emb.embed_documents(docs[:128])  # warm-up: session init, allocator arenas
    t0 = time.perf_counter()
    vecs = emb.embed_documents(docs)
    batch_s = time.perf_counter() - t0
    assert vecs.shape == (len(docs), emb.dim)
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-4)

    tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tok.no_padding()
    mean_tokens = statistics.fmean(len(tok.encode(d).ids) for d in docs)

    with tempfile.TemporaryDirectory() as tmp:  # all-hit pass through the SQLite cache
        cached = CachedEmbedder(emb, EmbeddingCache(Path(tmp) / "cache.sqlite"))
        cached.cache.put_many(emb.model_id, docs, vecs)
        t0 = time.perf_counter()
        assert cached.embed_documents(docs).tobytes() == vecs.tobytes()
        cached_s = time.perf_counter() - t0
        cached.cache.close()

    queries = sentences(args.queries + 50)[50:]
    for q in queries[:10]:
        emb.embed_query(q)
    lat_ms = []
    for q in queries:
        t0 = time.perf_counter()
        emb.embed_query(q)
        lat_ms.append((time.perf_counter() - t0) * 1000)

    result = {
        "model": emb.model_id,
        "dim": emb.dim,
        "model_dir": str(model_dir),
        "load_seconds": round(load_s, 3),
        "docs": len(docs),
        "batch_size": args.batch_size,
        "threads": args.threads,
        "mean_tokens_per_doc": round(mean_tokens, 1),
        "docs_per_second": round(len(docs) / batch_s, 1),
        "cached_docs_per_second": round(len(docs) / cached_s, 1),
        "batch_seconds": round(batch_s, 3),
        "queries": len(lat_ms),
        "query_ms_p50": round(pct(lat_ms, 0.50), 3),
        "query_ms_p95": round(pct(lat_ms, 0.95), 3),
        "query_ms_mean": round(statistics.fmean(lat_ms), 3),
        "cpu_count": os.cpu_count(),
        "loadavg_1min_at_end": round(os.getloadavg()[0], 2),  # other work on the box skews numbers
        "python": platform.python_version(),
        "platform": platform.platform(),
    }
    rows = [
        ("load model (s)", f"{load_s:.2f}"),
        (f"documents/s (batch {args.batch_size}, n={len(docs)})", f"{result['docs_per_second']:.0f}"),
        ("mean tokens per document", f"{mean_tokens:.1f}"),
        ("documents/s, all cache hits", f"{result['cached_docs_per_second']:.0f}"),
        (f"query latency p50 (ms, n={len(lat_ms)})", f"{result['query_ms_p50']:.2f}"),
        ("query latency p95 (ms)", f"{result['query_ms_p95']:.2f}"),
    ]
    width = max(len(k) for k, _ in rows)
    print(f"{'metric':<{width}}  value\n{'-' * width}  -----")
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_result(args.out, result)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
