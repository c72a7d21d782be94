"""usearch vs faiss-cpu HNSW for the embedded store's approximate vector index.

Same vectors (bench/scale_vectors.py: mixtures of real embeddings plus noise), same graph
parameters, one run: build time, single-query latency (the store asks one query at a time),
recall@10 against exact search (raw, and after exact re-scoring of an over-fetched pool, which
is how the store uses the index), serialized size. Hnswlib has no wheel for this Python, so it
is not in the comparison.

Usage: python -m bench.ann_compare [--size 100000] [--queries 300] [--base /tmp/base.npy]
       [--out bench/results/ann_compare.json]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.meta import latency_summary, provenance, write_result
from bench.scale_vectors import base_vectors, derived, query_vectors

M, EF_BUILD = 16, 128
POOL = 50  # the store's vector pool (search.recall_candidates)


def exact_top(data: np.ndarray, queries: np.ndarray, k: int) -> list[set[int]]:
    out = []
    for q in queries:
        scores = data @ q
        out.append(set(np.argpartition(-scores, k)[:k].tolist()))
    return out


def recall(found: list[list[int]], truth: list[set[int]], k: int) -> float:
    return float(np.mean([len(set(f[:k]) & t) / k for f, t in zip(found, truth, strict=True)]))


def rescored(data: np.ndarray, q: np.ndarray, ids: list[int], k: int) -> list[int]:
    ids = [i for i in ids if i >= 0]
    scores = data[ids] @ q
    return [ids[i] for i in np.argsort(-scores)[:k]]


def run_usearch(data, queries, truth, efs, dtype):
    from usearch.index import Index
    index = Index(ndim=data.shape[1], metric="ip", dtype=dtype, connectivity=M, expansion_add=EF_BUILD)
    t0 = time.perf_counter()
    index.add(np.arange(len(data), dtype=np.uint64), data, threads=2)
    build = time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as tmp:
        index.save(f"{tmp}/i.usearch")
        size = Path(f"{tmp}/i.usearch").stat().st_size
    rows = []
    for ef in efs:
        index.expansion_search = ef
        found, pooled, ms = [], [], []
        for q in queries:
            t = time.perf_counter()
            res = index.search(q, POOL)
            ms.append((time.perf_counter() - t) * 1000)
            keys = [int(k) for k in res.keys]
            found.append(keys[:10])
            pooled.append(rescored(data, q, keys, 10))
        rows.append({"ef_search": ef, "recall@10_raw": round(recall(found, truth, 10), 4),
                     "recall@10_pool50_rescored": round(recall(pooled, truth, 10), 4), **latency_summary(ms)})
    return {"library": "usearch", "dtype": dtype, "build_s": round(build, 2), "bytes": size, "by_ef": rows}


def run_faiss(data, queries, truth, efs):
    import faiss
    faiss.omp_set_num_threads(2)
    index = faiss.IndexHNSWFlat(data.shape[1], M, faiss.METRIC_INNER_PRODUCT)
    index.hnsw.efConstruction = EF_BUILD
    t0 = time.perf_counter()
    index.add(data)
    build = time.perf_counter() - t0
    size = len(faiss.serialize_index(index))
    faiss.omp_set_num_threads(1)
    rows = []
    for ef in efs:
        index.hnsw.efSearch = ef
        found, pooled, ms = [], [], []
        for q in queries:
            t = time.perf_counter()
            _, ids = index.search(q[None, :], POOL)
            ms.append((time.perf_counter() - t) * 1000)
            keys = [int(k) for k in ids[0]]
            found.append(keys[:10])
            pooled.append(rescored(data, q, keys, 10))
        rows.append({"ef_search": ef, "recall@10_raw": round(recall(found, truth, 10), 4),
                     "recall@10_pool50_rescored": round(recall(pooled, truth, 10), 4), **latency_summary(ms)})
    return {"library": "faiss-cpu IndexHNSWFlat", "dtype": "f32", "build_s": round(build, 2), "bytes": size,
            "by_ef": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--base", default=None, help=".npy of base embeddings (else embedded now)")
    parser.add_argument("--embed-cache", default=None)
    parser.add_argument("--out", default="bench/results/ann_compare.json")
    args = parser.parse_args()
    started = provenance()
    base = np.load(args.base) if args.base else base_vectors(args.embed_cache)
    data = derived(base, 0, args.size)
    queries = query_vectors(base, args.queries)
    truth = exact_top(data, queries, 10)
    efs = [64, 128]
    exact_ms = []
    for q in queries:
        t = time.perf_counter()
        np.argpartition(-(data @ q), POOL)[:POOL]
        exact_ms.append((time.perf_counter() - t) * 1000)
    results = [run_usearch(data, queries, truth, efs, "f32"), run_usearch(data, queries, truth, efs, "f16"),
               run_faiss(data, queries, truth, efs)]
    report = {"size": args.size, "queries": args.queries, "dim": int(data.shape[1]),
              "vectors": "bench/scale_vectors.py (mixtures of real MiniLM embeddings + noise)",
              "graph": {"M": M, "ef_construction": EF_BUILD}, "pool": POOL,
              "exact_numpy": latency_summary(exact_ms), "results": results}
    print(json.dumps(report, indent=2))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    write_result(args.out, report, started=started)


if __name__ == "__main__":
    main()
