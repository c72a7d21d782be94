"""The embedded store at 10k / 100k / 1M memories.

Vectors are precomputed (bench/scale_vectors.py: mixtures of ~10k real MiniLM corpus embeddings
plus noise), so the model runs only for the base sentences (cached) and for the queries (live).
Memories are the bench corpus (text, tags, category) with those vectors, written through
``store.save_batch`` (the store's own rows, 5k per transaction, no linking:
edges are not part of this bench). At each size it reports:

- insert cost: ms per ``save_memory`` (the normal single write, 200 extra memories) and the bulk rate;
- vector recall alone (store.vector_candidates, pool 50) p50/p95, and recall@10 against exact search
  over the same matrix (exact below the approximate threshold, so 1.0 there);
- graphmem search (every stage, k=10, query embedded live) p50/p95;
- process memory (RSS, peak) and disk (SQLite files, the approximate index);
- at sizes past the threshold: index build time, and load time of the saved index in a new store;
- with ``--floor``: graphmem search against its floor in the same run (bench/floor.py's ``Floor``:
  live query embedding + the store's vector arm top 100 (its usearch index past the threshold, the
  exact scan below it) + its tantivy index's top 100, and the tighter one over graphmem's own
  lookup terms), passes alternating, ``--repeats`` times, each with unique queries. No edges here,
  so expansion finds nothing to add (its read still runs).

Usage: python -m bench.bench_scale [--sizes 10000,100000,1000000] [--queries 200]
       [--base /tmp/base.npy] [--embed-cache /tmp/emb.sqlite] [--out bench/results/scale.json]
       [--data-dir DIR] (kept, and reused by the next run: memories already there are not loaded again)
       [--floor --repeats 3]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from bench.corpus import make_memories, make_queries
from bench.floor import Floor, lookup_terms, passes
from bench.meta import latency_summary, run_facts, time_calls
from bench.scale_vectors import base_vectors, derived, query_vectors
from graphmem.config import load_settings
from graphmem.embedding.embedder import load_embedder
from graphmem.engine import Graphmem
from graphmem.model import Memory, MemoryFilter
from graphmem.stores.base import MemoryStore
from graphmem.stores.sqlite import SQLiteStore
from graphmem.stores.sqlite.ann import AnnSettings
from graphmem.text import tokenize

NS = "bench"
STAMP = "2026-01-01T00:00:00.000000Z"
CHUNK = 5_000
WARM = 10


def to_memory(item: dict, vector: np.ndarray, namespace: str = NS) -> Memory:
    words = tokenize(item["content"])
    return Memory(id=item["id"], namespace=namespace, content=item["content"],
                  content_hash=hashlib.sha256(item["content"].encode()).hexdigest(), tags=item["tags"],
                  category=item["category"], source=item["source"], created_at=STAMP, updated_at=STAMP,
                  embedding=vector, term_counts={w: words.count(w) for w in dict.fromkeys(words)})


def load(store: MemoryStore, base: np.ndarray, start: int, stop: int, namespace: str = NS) -> float:
    """Bulk-write memories start..stop (either store); seconds taken."""
    t0 = time.perf_counter()
    for lo in range(start, stop, CHUNK):
        hi = min(stop, lo + CHUNK)
        items = _items(lo, hi)
        vecs = derived(base, lo, hi - lo)
        store.save_batch([to_memory(it, v, namespace) for it, v in zip(items, vecs, strict=True)], [], [])
    return time.perf_counter() - t0


def _items(lo: int, hi: int) -> list[dict]:
    """Corpus items lo..hi without building the whole prefix (same generator, renumbered ids)."""
    items = make_memories(hi - lo, seed=7 + lo // CHUNK)
    for offset, item in enumerate(items):
        item["id"] = f"mem-{lo + offset:07d}"
        item["content"] = item["content"].rsplit("#", 1)[0] + f"#{lo + offset}."
    return items


def disk(path: Path) -> dict[str, int]:
    sqlite_bytes = sum(p.stat().st_size for p in path.glob("graphmem.sqlite*"))
    ann_bytes = sum(p.stat().st_size for p in (path / "graphmem.ann").glob("*") if p.is_file()) \
        if (path / "graphmem.ann").exists() else 0
    return {"sqlite_bytes": sqlite_bytes, "ann_index_bytes": ann_bytes}


def memory_mb() -> dict[str, float]:
    rss = next(int(line.split()[1]) for line in Path("/proc/self/status").read_text().splitlines()
               if line.startswith("VmRSS:"))
    return {"rss_mb": round(rss / 1024, 1),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def recall_vs_exact(store: SQLiteStore, qvecs: np.ndarray, k: int = 10) -> float:
    vectors = store.vectors.namespaces[NS]
    hits = 0
    for q in qvecs:
        scores, ids = vectors.snapshot_scores(q)
        truth = {ids[i] for i in np.argpartition(-scores, k)[:k]}
        hits += len(truth & set(store.vector_candidates(NS, q, k, MemoryFilter(), "")))
    return hits / (len(qvecs) * k)


def insert_cost(store: SQLiteStore, base: np.ndarray, at: int, n: int = 200) -> dict[str, float]:
    items = _items(50_000_000 + at, 50_000_000 + at + n)
    vecs = derived(base, 50_000_000 + at, n)
    mems = [to_memory(it, v) for it, v in zip(items, vecs, strict=True)]
    ms = []
    for m in mems:
        t0 = time.perf_counter()
        store.save_memory(m, [], [])
        ms.append((time.perf_counter() - t0) * 1000)
    for m in mems:
        store.delete_memory(NS, m.id)
    return {"save_memory_" + k: v for k, v in latency_summary(ms).items()}


def against_floor(store: SQLiteStore, engine: Graphmem, queries: list[str], repeats: int) -> dict:
    """graphmem search and its floors (bench/floor.py: the store's own vector and tantivy engines)
    over the same memories, alternating, ``repeats`` passes of unique queries after a warm-up."""
    per_pass = max(1, (len(queries) - WARM) // repeats)
    lists = [queries[WARM + i * per_pass:WARM + (i + 1) * per_pass] for i in range(repeats)]
    floor = Floor(engine.embedder, store, NS, lookup_terms(engine, NS, queries))
    return {"floor_arms": floor.arms} | passes(floor, lambda q: engine.search_outcome(q, NS, 10),
                                               queries[:WARM], lists)


def measure(path: Path, store: SQLiteStore, engine: Graphmem, base: np.ndarray, size: int,
            queries: list[str], qvecs: np.ndarray, ann: AnnSettings, floor_repeats: int = 0,
            floor_queries: list[str] | None = None) -> dict:
    row: dict = {"size": size, "approximate": size >= ann.threshold}
    t0 = time.perf_counter()
    store.vector_candidates(NS, qvecs[0], 50, MemoryFilter(), "")       # loads the matrix / builds the index
    row["first_search_s"] = round(time.perf_counter() - t0, 2)
    row["ann_events"] = dict(store.vectors.ann_events)
    vec_ms = time_calls(lambda q: store.vector_candidates(NS, q, 50, MemoryFilter(), ""), list(qvecs))
    row["vector_recall_only"] = latency_summary(vec_ms)
    row["recall@10_vs_exact"] = round(recall_vs_exact(store, qvecs), 4)
    for q in queries[:5]:
        engine.search_outcome(q, NS, 10)
    search_ms = time_calls(lambda q: engine.search_outcome(q, NS, 10), queries)
    row["graphmem_search_live_embedding"] = latency_summary(search_ms)
    if floor_repeats and floor_queries:
        row["against_floor"] = against_floor(store, engine, floor_queries, floor_repeats)
    row["insert"] = insert_cost(store, base, size)
    row["memory"] = memory_mb()
    store.vectors.save()
    row["disk"] = disk(path)
    if row["approximate"]:
        row["reopen"] = reopen_times(path, ann, engine.embedder.model_id, store.dim, qvecs[0])
    return row


def reopen_times(path: Path, ann: AnnSettings, model_id: str, dim: int, q: np.ndarray) -> dict:
    """A new store on the same files: matrix read from SQLite + saved index loaded (not rebuilt)."""
    fresh = SQLiteStore(path, load_settings(use_env=False).store, ann=ann)
    fresh.ensure_schema(model_id, dim)
    t0 = time.perf_counter()
    fresh.vector_candidates(NS, q, 50, MemoryFilter(), "")
    out = {"first_search_s": round(time.perf_counter() - t0, 2), "ann_events": dict(fresh.vectors.ann_events)}
    fresh.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--base", default=None, help=".npy of the base embeddings (else embedded now)")
    parser.add_argument("--embed-cache", default=None)
    parser.add_argument("--ann-threshold", type=int, default=None, help="override store.sqlite_ann_threshold")
    parser.add_argument("--data-dir", default=None, help="keep the store here (default: a temporary dir)")
    parser.add_argument("--out", default="bench/results/scale.json")
    parser.add_argument("--floor", action="store_true", help="also time the floor in the same run")
    parser.add_argument("--repeats", type=int, default=3, help="floor / graphmem passes (with --floor)")
    args = parser.parse_args()
    report: dict = {"facts": run_facts(), "queries": args.queries,
                    "vectors": "bench/scale_vectors.py: normalised mixtures of 3 of 10k real MiniLM corpus "
                               "embeddings (Dirichlet weights, first boosted) + N(0, 0.35^2/384) noise",
                    "load_path": "store.save_batch, 5k per transaction, no edges",
                    "query_embedding": "live for graphmem search; vector-only rows use precomputed query "
                                       "vectors drawn like the data", "sizes": []}
    base = np.load(args.base) if args.base else base_vectors(args.embed_cache)
    settings = load_settings(use_env=False)
    ann = AnnSettings.from_store(settings.store)
    if args.ann_threshold:
        ann = replace(ann, threshold=args.ann_threshold)
    report["ann"] = ann.__dict__
    qvecs = query_vectors(base, args.queries)
    every_query = make_queries(args.queries * (1 + args.repeats) + WARM)   # the floor's passes meet new ones
    queries, floor_queries = every_query[:args.queries], every_query[args.queries:]
    with tempfile.TemporaryDirectory(prefix="graphmem-scale-") as tmp:
        path = Path(args.data_dir or tmp)
        settings = load_settings(overrides={"store": {"data_dir": str(path), "sqlite": {"synchronous": "NORMAL"}}},
                                 use_env=False)
        store = SQLiteStore(path, settings.store, ann=ann)
        engine = Graphmem(settings, store, load_embedder())
        loaded = store.stats(NS).namespaces.get(NS, 0)          # a kept --data-dir is reused
        for size in sorted(int(s) for s in args.sizes.split(",")):
            row = {}
            if size > loaded:
                seconds = load(store, base, loaded, size)
                row["bulk_load"] = {"memories": size - loaded, "seconds": round(seconds, 1),
                                    "per_s": round((size - loaded) / seconds, 1)}
            if size < loaded:
                raise SystemExit(f"{path} holds {loaded} memories, more than {size}")
            loaded = size
            row.update(measure(path, store, engine, base, size, queries, qvecs, ann,
                               args.repeats if args.floor else 0, floor_queries))
            report["sizes"].append(row)
            print(json.dumps(row), flush=True)
            Path(args.out).write_text(json.dumps(report, indent=2))
        engine.close()


if __name__ == "__main__":
    main()
