"""Embedded store vs Neo4j in one run at N memories: ingest throughput and search p50/p95.

Both stores ingest the same synthetic corpus through the normal batched ingest path
(``Graphmem.add_batch``, 500 a batch). Document embeddings come from one warmed embedding cache, so
ingest compares the stores and linking, not the model; every search embeds its query live
(bench/live_query.py). Search is timed in ``--passes`` passes; each pass runs the embedded store and
then Neo4j, so both see the same machine load, and the result keeps each pass's p50/p95, its load
average and ratio with their median and spread. Queries are unique: every (pass, store, setting)
meets queries no other sent (and none the warm-up sent), so no cache serves a repeat; the first
pass is reported apart. Each store is also timed with every step of
a search in turn (``*_in_turn``: the query embedding not overlapped with the router's store reads, as with
store.recall_overlap_workers = 0) in the same pass, and Neo4j also with recall as its five separate
reads in turn (``neo4j_separate_reads``: what ``store.recall``'s two round trips replace).
``--repeat`` runs it all again on fresh stores (ingest included). The tenant-independence figure
is bench/bench_tenants.py. Usage:
    eval "$(docker/neo4j-local/neo4j-local start)"
    python -m bench.bench_stores --n 10000 [--passes 5] [--repeat 2] [--out bench/results/stores.json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

from bench.live_query import LiveQueryEmbedder
from bench.meta import pct, write_result
from graphmem.config import load_settings
from graphmem.embedding.embedder import load_embedder
from graphmem.embedding.prepare import ensure_model
from graphmem.engine import Graphmem
from graphmem.retrieval.overlap import Overlap
from graphmem.stores.base import recall_in_turn
from graphmem.stores.neo4j import Neo4jStore
from graphmem.stores.sqlite import SQLiteStore
from harness.corpus import make_memories, pass_queries

WARMUP = 5


class SeparateReads:
    """A store whose ``recall`` is its separate reads in turn (five round trips on Neo4j, where its
    own ``recall`` takes two): the same data and connection, to compare the two in one run."""

    def __init__(self, store: Neo4jStore) -> None:
        self._store = store

    def __getattr__(self, name: str):
        return getattr(self._store, name)

    def recall(self, *args):
        return recall_in_turn(self._store, *args)

    def close(self) -> None:
        """The wrapped store is closed by its own engine."""


def search_ms(engine: Graphmem, namespace: str, queries: list[str]) -> dict:
    latencies = []
    for q in queries:
        t0 = time.perf_counter()
        engine.search_outcome(q, namespace, 10)
        latencies.append((time.perf_counter() - t0) * 1000)
    return {"p50_ms": round(pct(latencies, 0.5), 2), "p95_ms": round(pct(latencies, 0.95), 2),
            "queries": len(latencies)}


def search_ms_in_turn(engine: Graphmem, namespace: str, queries: list[str]) -> dict:
    """``search_ms`` with every step in turn (as with store.recall_overlap_workers = 0)."""
    overlapped = engine.pipeline.overlap
    engine.pipeline.overlap = Overlap(0)
    try:
        return search_ms(engine, namespace, queries)
    finally:
        engine.pipeline.overlap = overlapped


def ingest(engine: Graphmem, namespace: str, corpus: list[dict]) -> dict:
    t0 = time.perf_counter()
    for start in range(0, len(corpus), 500):
        engine.add_batch(corpus[start:start + 500], namespace)
    seconds = time.perf_counter() - t0
    return {"seconds": round(seconds, 1), "per_s": round(len(corpus) / seconds, 1)}


def spread(values: list[float]) -> dict:
    return {"median": round(statistics.median(values), 3), "min": round(min(values), 3),
            "max": round(max(values), 3)}


def one_run(engines: dict[str, tuple[Graphmem, str]], corpus: list[dict], queries, passes: int) -> dict:
    """Ingest into each store, then ``passes`` search passes alternating the stores; ``queries``
    yields a new list of unique queries for each (pass, store, setting) and the warm-up."""
    out: dict = {"load_before_ingest": [round(x, 2) for x in os.getloadavg()]}
    for kind in ("sqlite", "neo4j"):
        out[f"{kind}_ingest"] = ingest(*engines[kind], corpus)
    out["neo4j_vs_sqlite_ingest"] = round(out["neo4j_ingest"]["per_s"] / out["sqlite_ingest"]["per_s"], 3)
    warm = next(queries)[:WARMUP]
    for engine, namespace in engines.values():
        for q in warm:                                   # plans and the vector matrix, not timed
            engine.search_outcome(q, namespace, 10)
    out["passes"] = []
    for _ in range(passes):
        row: dict = {"load": [round(x, 2) for x in os.getloadavg()]}
        for kind, (engine, namespace) in engines.items():
            row[kind] = search_ms(engine, namespace, next(queries))
            if kind in ("sqlite", "neo4j"):
                row[f"{kind}_in_turn"] = search_ms_in_turn(engine, namespace, next(queries))
        row["neo4j_vs_sqlite_p50"] = round(row["neo4j"]["p50_ms"] / row["sqlite"]["p50_ms"], 3)
        row["neo4j_separate_reads_vs_sqlite_p50"] = round(
            row["neo4j_separate_reads"]["p50_ms"] / row["sqlite"]["p50_ms"], 3)
        row["neo4j_vs_sqlite_p50_in_turn"] = round(
            row["neo4j_in_turn"]["p50_ms"] / row["sqlite_in_turn"]["p50_ms"], 3)
        out["passes"].append(row)
        print(json.dumps(row), flush=True)
    return out


def summary(runs: list[dict]) -> dict:
    rows = [p for r in runs for p in r["passes"]]
    first = runs[0]["passes"][0]
    return {"first_pass": {"search_p50_ms": {k: first[k]["p50_ms"] for k in ("sqlite", "neo4j")},
                           "neo4j_vs_sqlite_search_p50": first["neo4j_vs_sqlite_p50"], "load": first["load"]},
            "load_1m": spread([p["load"][0] for p in rows]),
            "search_p50_ms": {k: spread([p[k]["p50_ms"] for p in rows]) for k in ("sqlite", "neo4j")},
            "search_p95_ms": {k: spread([p[k]["p95_ms"] for p in rows]) for k in ("sqlite", "neo4j")},
            "neo4j_vs_sqlite_search_p50": spread([p["neo4j_vs_sqlite_p50"] for p in rows]),
            "neo4j_separate_reads_search_p50_ms": spread([p["neo4j_separate_reads"]["p50_ms"] for p in rows]),
            "neo4j_separate_reads_vs_sqlite_search_p50": spread(
                [p["neo4j_separate_reads_vs_sqlite_p50"] for p in rows]),
            "search_p50_ms_in_turn": {k: spread([p[f"{k}_in_turn"]["p50_ms"] for p in rows])
                                      for k in ("sqlite", "neo4j")},
            "neo4j_vs_sqlite_search_p50_in_turn": spread([p["neo4j_vs_sqlite_p50_in_turn"] for p in rows]),
            "overlap_p50_vs_in_turn": {k: spread([p[k]["p50_ms"] / p[f"{k}_in_turn"]["p50_ms"] for p in rows])
                                       for k in ("sqlite", "neo4j")},
            "ingest_per_s": {k: spread([r[f"{k}_ingest"]["per_s"] for r in runs]) for k in ("sqlite", "neo4j")},
            "neo4j_vs_sqlite_ingest": spread([r["neo4j_vs_sqlite_ingest"] for r in runs]),
            "passes": len(rows), "repeats": len(runs)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=10000)
    parser.add_argument("--queries", type=int, default=100, help="timed per pass, store and setting")
    parser.add_argument("--passes", type=int, default=5, help="search passes per repeat")
    parser.add_argument("--repeat", type=int, default=1, help="whole runs on fresh stores")
    parser.add_argument("--embed-cache", default=None, help="document embedding cache (default: a temp file)")
    parser.add_argument("--out", default="bench/results/stores.json")
    parser.add_argument("--keep", default=None, metavar="DIR",
                        help="keep the last repeat's stores for bench/profile_neo4j_search.py: the embedded "
                             "store in DIR, both under the namespace printed at the end")
    args = parser.parse_args()
    ensure_model()
    tmp = Path(tempfile.mkdtemp(prefix="graphmem-stores-"))
    cache = args.embed_cache or tmp / "embeddings.sqlite"
    embedder = LiveQueryEmbedder(load_embedder(cache_path=cache), load_embedder())
    corpus = make_memories(args.n, namespace="")
    for item in corpus:
        item.pop("namespace")
    embedder.embed_documents([m["content"] for m in corpus])   # warm the shared cache
    lists = pass_queries(args.queries, args.repeat * (1 + 5 * args.passes), seed=23)
    report: dict = {"n": args.n, "queries_per_pass": args.queries,
                    "queries": "unique: each (pass, store, setting) and the warm-up meet their own",
                    "query_embedding": "live in both stores",
                    "document_embeddings": "from a warmed cache in both stores (ingest compares stores + linking)",
                    "ingest_path": "Graphmem.add_batch, 500 memories a batch", "runs": []}
    for repeat in range(args.repeat):
        keep = args.keep is not None and repeat == args.repeat - 1
        data = Path(args.keep) if keep else tmp / f"sqlite-{repeat}"
        settings = load_settings(overrides={"store": {"data_dir": str(data)}}, use_env=False)
        neo = Neo4jStore(load_settings().store)   # [store] neo4j_* with the GRAPHMEM_NEO4J_* environment
        namespace = f"bench-{uuid.uuid4().hex[:8]}"
        lite = Graphmem(settings, SQLiteStore(data, settings.store), embedder)
        engines = {"sqlite": (lite, namespace if keep else "bench"),
                   "neo4j": (Graphmem(settings, neo, embedder), namespace),
                   "neo4j_separate_reads": (Graphmem(settings, SeparateReads(neo), embedder), namespace)}
        try:
            per_run = 1 + 5 * args.passes
            queries = iter(lists[repeat * per_run:(repeat + 1) * per_run])
            report["runs"].append(one_run(engines, corpus, queries, args.passes))
        finally:
            if not keep:
                neo.drop_namespace(namespace)
                shutil.rmtree(data, ignore_errors=True)
            for engine, _ in engines.values():
                engine.close()
        if keep:
            print(f"kept: --sqlite-dir {data} --namespace {namespace}", file=sys.stderr)
        report["summary"] = summary(report["runs"])
        write_result(args.out, report)     # saved after every repeat
    print(json.dumps(report["summary"], indent=2))


if __name__ == "__main__":
    main()
