"""Embedded store vs Neo4j in one run (issue 7): ingest throughput and search p50/p95 at N memories.

Both stores ingest the same synthetic corpus through the normal batched ingest path; embeddings
come from one warmed embedding cache so the figures compare the stores (and linking), not the
model. Usage:
    eval "$(docker/neo4j-local/neo4j-local start)"
    python bench/bench_stores.py --n 10000 [--out bench/results/stores.json]
"""

from __future__ import annotations

import argparse
import json
import os
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


def run(engine: Graphmem, namespace: str, corpus: list[dict], queries: list[str]) -> dict:
    t0 = time.perf_counter()
    for start in range(0, len(corpus), 500):
        engine.add_batch(corpus[start:start + 500], namespace)
    ingest_s = time.perf_counter() - t0
    for q in queries[:5]:
        engine.search_outcome(q, namespace, 10)                      # warm caches and plans
    latencies = []
    for q in queries:
        t0 = time.perf_counter()
        engine.search_outcome(q, namespace, 10)
        latencies.append((time.perf_counter() - t0) * 1000)
    return {"ingest_seconds": round(ingest_s, 1), "ingest_per_s": round(len(corpus) / ingest_s, 1),
            "search_p50_ms": round(pct(latencies, 0.5), 2), "search_p95_ms": round(pct(latencies, 0.95), 2)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=10000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--out", default="bench/results/stores.json")
    args = parser.parse_args()
    ensure_model()
    tmp = Path(tempfile.mkdtemp(prefix="graphmem-stores-"))
    live = load_embedder()
    embedder = LiveQueryEmbedder(load_embedder(cache_path=tmp / "embeddings.sqlite"), live)
    corpus = make_memories(args.n, namespace="")
    for item in corpus:
        item.pop("namespace")
    embedder.embed_documents([m["content"] for m in corpus])          # warm the shared cache
    queries = make_queries(args.queries)
    settings = load_settings(overrides={"store": {"data_dir": str(tmp / "sqlite")}}, use_env=False)
    report = {"facts": run_facts(), "query_embedding": "live in both stores", "n": args.n,
              "queries": len(queries)}
    report["sqlite"] = run(Graphmem(settings, SQLiteStore(tmp / "sqlite"), embedder), "bench", corpus, queries)
    print(json.dumps(report), flush=True)
    neo = Neo4jStore(os.environ.get("GRAPHMEM_NEO4J_URI", "bolt://127.0.0.1:7687"),
                     os.environ.get("GRAPHMEM_NEO4J_USER", "neo4j"), os.environ.get("GRAPHMEM_NEO4J_PASSWORD", ""))
    namespace = f"bench-{uuid.uuid4().hex[:8]}"
    try:
        report["neo4j"] = run(Graphmem(settings, neo, embedder), namespace, corpus, queries)
    finally:
        neo.drop_namespace(namespace)
        neo.close()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=2))
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
