"""Embedded store vs Neo4j in one run: ingest throughput, search p50/p95 at N memories, and whether
a small namespace's search slows down while another namespace grows (tenant independence).

Both stores ingest the same synthetic corpus through the normal batched ingest path; document
embeddings come from one warmed embedding cache so the figures compare the stores (and linking), not
the model; query embedding is live (bench/live_query.py). Per store:
the small namespace (--small memories) is loaded and searched, then the big one (--n) is ingested
(timed) and searched, then the small one is searched again. Usage:
    eval "$(docker/neo4j-local/neo4j-local start)"
    python bench/bench_stores.py --n 10000 --small 200 [--out bench/results/stores.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.corpus import make_memories, make_queries  # noqa: E402
from bench.live_query import LiveQueryEmbedder  # noqa: E402
from bench.meta import pct, run_facts  # noqa: E402
from graphmem.config import load_settings  # noqa: E402
from graphmem.embedding.embedder import load_embedder  # noqa: E402
from graphmem.embedding.prepare import ensure_model  # noqa: E402
from graphmem.engine import Graphmem  # noqa: E402
from graphmem.stores.neo4j import Neo4jStore  # noqa: E402
from graphmem.stores.sqlite import SQLiteStore  # noqa: E402


def search_ms(engine: Graphmem, namespace: str, queries: list[str]) -> dict:
    for q in queries[:5]:
        engine.search_outcome(q, namespace, 10)                      # warm plans and caches
    latencies = []
    for q in queries[5:]:
        t0 = time.perf_counter()
        engine.search_outcome(q, namespace, 10)
        latencies.append((time.perf_counter() - t0) * 1000)
    return {"p50_ms": round(pct(latencies, 0.5), 2), "p95_ms": round(pct(latencies, 0.95), 2),
            "queries": len(latencies)}


def ingest(engine: Graphmem, namespace: str, corpus: list[dict]) -> float:
    t0 = time.perf_counter()
    for start in range(0, len(corpus), 500):
        engine.add_batch(corpus[start:start + 500], namespace)
    return time.perf_counter() - t0


def run(engine: Graphmem, names: tuple[str, str], corpus: list[dict], small: list[dict],
        queries: list[str]) -> dict:
    big_ns, small_ns = names
    ingest(engine, small_ns, small)
    small_alone = search_ms(engine, small_ns, queries)
    ingest_s = ingest(engine, big_ns, corpus)
    big = search_ms(engine, big_ns, queries)
    small_beside = search_ms(engine, small_ns, queries)
    return {"ingest_seconds": round(ingest_s, 1), "ingest_per_s": round(len(corpus) / ingest_s, 1),
            "search_p50_ms": big["p50_ms"], "search_p95_ms": big["p95_ms"],
            "small_namespace": {"memories": len(small), "p50_ms_alone": small_alone["p50_ms"],
                                "p50_ms_beside_big": small_beside["p50_ms"],
                                "ratio": round(small_beside["p50_ms"] / small_alone["p50_ms"], 3)}}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=10000)
    parser.add_argument("--small", type=int, default=200, help="memories of the small namespace")
    parser.add_argument("--queries", type=int, default=200, help="per measurement")
    parser.add_argument("--out", default="bench/results/stores.json")
    args = parser.parse_args()
    ensure_model()
    tmp = Path(tempfile.mkdtemp(prefix="graphmem-stores-"))
    embedder = LiveQueryEmbedder(load_embedder(cache_path=tmp / "embeddings.sqlite"), load_embedder())
    corpus = make_memories(args.n, namespace="")
    small = make_memories(args.small, seed=23, namespace="")
    for item in corpus + small:
        item.pop("namespace")
    for item in small:
        item["id"] = "small-" + item["id"]
    embedder.embed_documents([m["content"] for m in corpus + small])   # warm the shared cache
    queries = make_queries(args.queries)
    report: dict = {"facts": run_facts(), "query_embedding": "live in both stores", "n": args.n,
                    "small": args.small, "queries_per_measurement": len(queries)}
    settings = load_settings(overrides={"store": {"data_dir": str(tmp / "sqlite")}}, use_env=False)
    report["sqlite"] = run(Graphmem(settings, SQLiteStore(tmp / "sqlite"), embedder), ("bench", "small"),
                           corpus, small, queries)
    print(json.dumps(report), flush=True)
    neo = Neo4jStore(load_settings().store)    # [store] neo4j_* with the GRAPHMEM_NEO4J_* environment
    tag = uuid.uuid4().hex[:8]
    names = (f"bench-{tag}", f"small-{tag}")
    try:
        report["neo4j"] = run(Graphmem(settings, neo, embedder), names, corpus, small, queries)
    finally:
        for namespace in names:
            neo.drop_namespace(namespace)
        neo.close()
    lite, graph = report["sqlite"], report["neo4j"]
    report["neo4j_vs_sqlite"] = {"ingest": round(graph["ingest_per_s"] / lite["ingest_per_s"], 3),
                                 "search_p50": round(graph["search_p50_ms"] / lite["search_p50_ms"], 3)}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=2))
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
