"""The embedded store's vector part alone at a million memories.

bench_scale.py measures the whole store but its load runs at a few hundred memories/s on a busy
2-core machine; this measures the part the approximate index changes, through the store's own
code (``NamespaceVectors`` + ``AnnIndex``: bulk load, index build, search with exact re-scoring,
save and load) on the same structured vectors (bench/scale_vectors.py), without SQLite rows.
Query vectors are precomputed, so timings exclude query embedding: drawn like the data, or with
``--locomo-queries`` the model's embeddings of unique LoCoMo questions (what a search sends).
``--overfetch 4,8`` compares over-fetch settings in one run at the recall stage's request size
(``--limit``, default ``search.recall_candidates``): recall@10 and recall@limit against exact.

Usage: python -m bench.bench_ann_scale [--size 1000000] [--queries 200] [--base /tmp/base.npy]
       [--connectivity N] [--expansion-add N] [--overfetch 4,8] [--locomo-queries]
       [--out bench/results/ann_scale.json]
"""

from __future__ import annotations

import argparse
import json
import resource
import tempfile
import time
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np

from bench.meta import latency_summary, provenance, time_calls, write_result
from bench.scale_vectors import base_vectors, derived, query_vectors
from graphmem.config import load_settings
from graphmem.stores.sqlite.ann import AnnIndex, AnnSettings
from graphmem.stores.sqlite.vectors import NamespaceVectors, limit_blas_threads


def rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def locomo_queries(n: int) -> np.ndarray:
    """The configured model's embeddings of ``n`` unique LoCoMo questions."""
    from graphmem.embedding.embedder import load_embedder
    from graphmem.eval.dataset import locomo_dir, read_jsonl

    texts = list(dict.fromkeys(q["text"] for q in read_jsonl(locomo_dir() / "queries.jsonl")))[:n]
    embedder = load_embedder()
    return np.stack([embedder.embed_query(t) for t in texts]).astype(np.float32)


def compare_overfetch(vectors: NamespaceVectors, ann: AnnSettings, queries: np.ndarray, exact: list[list[str]],
                      limit: int, values: str) -> dict[str, dict]:
    """Per over-fetch: recall@10 and recall@limit against the exact top ``limit``, and latency."""
    out = {}
    for overfetch in (int(v) for v in values.split(",")):
        vectors.ann_settings = replace(ann, overfetch=overfetch)
        found = [vectors.search(q, limit) for q in queries]
        out[f"overfetch_{overfetch}"] = {
            "recall@10": round(float(np.mean([len(set(a[:10]) & set(b[:10])) / 10
                                              for a, b in zip(found, exact, strict=True)])), 4),
            f"recall@{limit}": round(float(np.mean([len(set(a) & set(b)) / limit
                                                    for a, b in zip(found, exact, strict=True)])), 4),
            "search": latency_summary(time_calls(lambda q: vectors.search(q, limit), list(queries)))}
    vectors.ann_settings = ann
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--base", default=None)
    parser.add_argument("--embed-cache", default=None)
    parser.add_argument("--connectivity", type=int, default=None)
    parser.add_argument("--expansion-add", type=int, default=None)
    parser.add_argument("--overfetch", default=None, help="comma-separated ann_overfetch values to compare")
    parser.add_argument("--limit", type=int, default=None, help="default: search.recall_candidates")
    parser.add_argument("--locomo-queries", action="store_true", help="embed unique LoCoMo questions")
    parser.add_argument("--out", default="bench/results/ann_scale.json")
    args = parser.parse_args()
    started = provenance()
    store_cfg = load_settings(use_env=False).store
    limit_blas_threads(store_cfg.sqlite.scan_threads)
    ann = replace(AnnSettings.from_store(store_cfg), threshold=1,
                  **({"connectivity": args.connectivity} if args.connectivity else {}),
                  **({"expansion_add": args.expansion_add} if args.expansion_add else {}))
    base = np.load(args.base) if args.base else base_vectors(args.embed_cache)
    report: dict = {"size": args.size, "queries": args.queries, "ann": asdict(ann),
                    "vectors": "bench/scale_vectors.py", "query_embedding": "not included (precomputed)"}
    vectors = NamespaceVectors(base.shape[1], ann)
    t0 = time.perf_counter()
    for start in range(0, args.size, 50_000):
        block = derived(base, start, min(50_000, args.size - start))
        vectors.extend([f"mem-{start + i:07d}" for i in range(len(block))], block)
    report["generate_and_load_s"] = round(time.perf_counter() - t0, 1)
    queries = locomo_queries(args.queries) if args.locomo_queries else query_vectors(base, args.queries)
    report["query_vectors"] = "LoCoMo questions, embedded" if args.locomo_queries else "drawn like the data"
    limit = args.limit or load_settings(use_env=False).recipes["default"].recall_candidates
    exact_pool = [vectors.search(q, limit) for q in queries]
    exact = [vectors.search(q, 10) for q in queries]                       # no index yet: exact
    report["exact_scan"] = latency_summary(time_calls(lambda q: vectors.search(q, 50), list(queries)))
    t0 = time.perf_counter()
    index = AnnIndex(vectors.dim, ann)
    index.add_many(vectors.ids[:], vectors.matrix[:len(vectors)])
    vectors.ann = index
    report["index_build_s"] = round(time.perf_counter() - t0, 1)
    found = [vectors.search(q, 10) for q in queries]
    report["recall@10_vs_exact"] = round(float(np.mean([len(set(a) & set(b)) / 10
                                                        for a, b in zip(found, exact, strict=True)])), 4)
    report["approximate_search_pool50"] = latency_summary(time_calls(lambda q: vectors.search(q, 50),
                                                                     list(queries)))
    allowed = set(vectors.ids[::2])
    report["approximate_search_filter_half"] = latency_summary(
        time_calls(lambda q: vectors.search(q, 50, allowed), list(queries)))
    if args.overfetch:
        report[f"at_limit_{limit}"] = compare_overfetch(vectors, ann, queries, exact_pool, limit, args.overfetch)
    report["peak_rss_mb"] = rss_mb()
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        index.save(Path(tmp) / "ns", seq=0)
        report["index_save_s"] = round(time.perf_counter() - t0, 1)
        report["index_bytes"] = sum(p.stat().st_size for p in Path(tmp).iterdir())
        t0 = time.perf_counter()
        loaded = AnnIndex.load(Path(tmp) / "ns", vectors.dim, ann)
        report["index_load_s"] = round(time.perf_counter() - t0, 1)
        report["index_loaded_ok"] = loaded is not None and len(loaded[0]) == len(vectors)
    print(json.dumps(report, indent=2))
    write_result(args.out, report, started=started)


if __name__ == "__main__":
    main()
