"""Tenant independence: a small namespace's search p50 while another namespace holds
about as many memories, then 50x as many, on both stores.

Per store, the small namespace (``--small``, 1,000) is ingested through the normal batched path
(document embeddings from a warmed cache, edges linked as usual). The other namespace is bulk-written
with precomputed vectors (bench/scale_vectors.py: real corpus embeddings mixed with noise, so 50k need
no model; ``store.save_batch``, 5k a transaction, no edges) holding the same vocabulary, first
``--before`` (1,000) memories, then grown to ``--after`` (50,000). The small namespace is searched in
``--passes`` passes at each size (queries embedded live, k=10, every stage); each pass times the
embedded store and then Neo4j, so the two stores see the same load. Usage:
    eval "$(docker/neo4j-local/neo4j-local start)"
    python -m bench.bench_tenants [--small 1000 --before 1000 --after 50000 --passes 5]
        [--embed-cache FILE] [--out bench/results/tenants.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import uuid
from pathlib import Path

from bench.bench_scale import load
from bench.bench_stores import ingest, search_ms, spread
from bench.live_query import LiveQueryEmbedder
from bench.meta import write_result
from bench.scale_vectors import base_vectors
from graphmem.config import load_settings
from graphmem.embedding.embedder import load_embedder
from graphmem.embedding.prepare import ensure_model
from graphmem.engine import Graphmem
from graphmem.stores.neo4j import Neo4jStore
from graphmem.stores.sqlite import SQLiteStore
from harness.corpus import make_memories, make_queries

KINDS = ("sqlite", "neo4j")


def phase(engines: dict[str, tuple[Graphmem, str, str]], queries: list[str], passes: int) -> dict:
    """``passes`` search passes of the small namespace, alternating the stores."""
    rows = []
    for _ in range(passes):
        row: dict = {"load": [round(x, 2) for x in os.getloadavg()]}
        for kind, (engine, small, _other) in engines.items():
            row[kind] = search_ms(engine, small, queries)
        rows.append(row)
        print(json.dumps(row), flush=True)
    return {"passes": rows, **{f"{k}_p50_ms": spread([r[k]["p50_ms"] for r in rows]) for k in KINDS}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--small", type=int, default=1000)
    parser.add_argument("--before", type=int, default=1000, help="the other namespace's first size")
    parser.add_argument("--after", type=int, default=50000, help="the other namespace's grown size")
    parser.add_argument("--queries", type=int, default=100, help="timed per pass (after 5 warm-up)")
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument("--embed-cache", default=None, help="document embedding cache (default: a temp file)")
    parser.add_argument("--out", default="bench/results/tenants.json")
    args = parser.parse_args()
    ensure_model()
    tmp = Path(tempfile.mkdtemp(prefix="graphmem-tenants-"))
    cache = args.embed_cache or tmp / "embeddings.sqlite"
    embedder = LiveQueryEmbedder(load_embedder(cache_path=cache), load_embedder())
    small = make_memories(args.small, seed=23, namespace="")
    for item in small:
        item.pop("namespace")
        item["id"] = "small-" + item["id"]
    base = base_vectors(cache)
    queries = make_queries(args.queries + 5)
    settings = load_settings(overrides={"store": {"data_dir": str(tmp / "sqlite")}}, use_env=False)
    tag = uuid.uuid4().hex[:8]
    lite = Graphmem(settings, SQLiteStore(tmp / "sqlite", settings.store), embedder)
    engines = {"sqlite": (lite, "small", "other"),
               "neo4j": (Graphmem(settings, Neo4jStore(load_settings().store), embedder),
                         f"small-{tag}", f"other-{tag}")}
    report: dict = {"small": args.small, "other_before": args.before,
                    "other_after": args.after, "queries_per_pass": args.queries,
                    "query_embedding": "live in both stores",
                    "small_namespace_load": "Graphmem.add_batch (cached document embeddings, edges linked)",
                    "other_namespace_load": "store.save_batch with precomputed vectors (bench/scale_vectors.py), "
                                            "5k a transaction, no edges"}
    try:
        for kind, (engine, small_ns, other_ns) in engines.items():
            report[f"{kind}_small_ingest"] = ingest(engine, small_ns, small)
            load(engine.store, base, 0, args.before, other_ns)
        report["before"] = phase(engines, queries, args.passes)
        for kind, (engine, _small_ns, other_ns) in engines.items():
            report[f"{kind}_grow_seconds"] = round(load(engine.store, base, args.before, args.after, other_ns), 1)
        report["after"] = phase(engines, queries, args.passes)
        report["p50_after_vs_before"] = {
            k: round(statistics.median(r[k]["p50_ms"] for r in report["after"]["passes"])
                     / statistics.median(r[k]["p50_ms"] for r in report["before"]["passes"]), 3) for k in KINDS}
    finally:
        neo = engines["neo4j"]
        for namespace in neo[1:]:
            neo[0].store.drop_namespace(namespace)   # type: ignore[attr-defined]
        for engine, _s, _o in engines.values():
            engine.close()
    write_result(args.out, report)
    print(json.dumps({k: report[k] for k in ("p50_after_vs_before",)}, indent=2))


if __name__ == "__main__":
    main()
