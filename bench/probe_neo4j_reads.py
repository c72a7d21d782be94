"""Two Neo4j read choices on one loaded namespace, each compared in one run.

1. Vector over-fetch (``store.neo4j.vector_overfetch``): for each factor, the vector call's p50 and
   its top ``--limit`` ids' recall against the exact scan of the namespace (vector_scan.cypher).
2. Many rows as one record: ``memories_get`` and a bare id lookup, returned a record per row
   (the old shape) against one record holding a list (the shape the store uses), on the same ids.

The namespace is loaded through ``Graphmem.add_batch`` (bench corpus, document embeddings from a
warmed cache, edges linked) and dropped at the end. Configurations alternate within each round, so
they see the same load. Usage:
    eval "$(docker/neo4j-local/neo4j-local start)"
    python -m bench.probe_neo4j_reads [--n 10000] [--queries 60] [--out bench/results/probe-neo4j-reads.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
import uuid
from pathlib import Path

from neo4j import READ_ACCESS

from bench.bench_stores import ingest
from bench.meta import provenance, write_result
from graphmem.config import load_settings
from graphmem.embedding.embedder import load_embedder
from graphmem.embedding.prepare import ensure_model
from graphmem.engine import Graphmem
from graphmem.model import MemoryFilter
from graphmem.stores.neo4j import Neo4jStore
from graphmem.stores.neo4j import queries as Q
from graphmem.stores.neo4j.records import filter_params
from harness.corpus import make_memories, make_queries

NOW = "2100-01-01T00:00:00.000000Z"


def timed(fn):
    """(fn(), its milliseconds)."""
    t0 = time.perf_counter()
    out = fn()
    return out, (time.perf_counter() - t0) * 1000


def overfetch(store: Neo4jStore, namespace: str, vectors: list, limit: int, factors: list[int],
              rounds: int) -> dict:
    flt = MemoryFilter()
    exact = [[r["id"] for r in store._read("vector_scan", namespace=namespace, vector=v.tolist(), limit=limit,
                                           **filter_params(flt, NOW))] for v in vectors]
    times: dict[int, list[float]] = {f: [] for f in factors}
    recall: dict[int, list[float]] = {f: [] for f in factors}
    for _ in range(rounds):
        for i, v in enumerate(vectors):
            for f in factors:                      # alternate within each query
                store.vector_overfetch = f
                ids, took = timed(lambda v=v: store.vector_candidates(namespace, v, limit, flt, NOW))
                times[f].append(took)
                recall[f].append(len(set(ids) & set(exact[i])) / limit)
    return {str(f): {"p50_ms": round(statistics.median(times[f]), 2),
                     f"recall@{limit}_vs_exact": round(statistics.mean(recall[f]), 4)} for f in factors}


def one_record(store: Neo4jStore, namespace: str, id_sets: list[list[str]], rounds: int) -> dict:
    as_list = Q.load("memories_get")
    as_rows = as_list.replace("RETURN collect(m {", "RETURN m {").replace("}) AS memories", "} AS memory")
    assert as_rows != as_list, "memories_get changed: update the per-row variant"
    ids_rows = ("UNWIND $ids AS id MATCH (m:Memory {namespace: $namespace, id: id}) "
                "USING INDEX SEEK m:Memory(namespace, id) RETURN m.id AS id")
    ids_list = ids_rows.replace("RETURN m.id AS id", "RETURN collect(m.id) AS ids")
    variants = {"memories_rows": as_rows, "memories_one_record": as_list,
                "ids_rows": ids_rows, "ids_one_record": ids_list}
    times: dict[str, list[float]] = {k: [] for k in variants}
    driver = store._driver
    for _ in range(rounds):
        for ids in id_sets:
            for name, text in variants.items():
                with driver.session(database=store.database, default_access_mode=READ_ACCESS) as session:
                    _, took = timed(lambda s=session, t=text, i=ids: list(s.run(t, namespace=namespace, ids=i)))
                    times[name].append(took)
    return {k: {"p50_ms": round(statistics.median(v), 2)} for k, v in times.items()} | {"ids": len(id_sets[0])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=10000)
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--limit", type=int, default=50, help="the recall_candidates a search asks for")
    parser.add_argument("--read-ids", type=int, default=160, help="memories per read (a search reads ~160)")
    parser.add_argument("--embed-cache", default=None)
    parser.add_argument("--out", default="bench/results/probe-neo4j-reads.json")
    args = parser.parse_args()
    started = provenance()
    ensure_model()
    tmp = Path(tempfile.mkdtemp(prefix="graphmem-probe-"))
    embedder = load_embedder(cache_path=args.embed_cache or tmp / "embeddings.sqlite")
    settings = load_settings(overrides={"store": {"data_dir": str(tmp)}}, use_env=False)
    store = Neo4jStore(load_settings().store)
    engine = Graphmem(settings, store, embedder)
    namespace = f"probe-{uuid.uuid4().hex[:8]}"
    corpus = make_memories(args.n, namespace="")
    for item in corpus:
        item.pop("namespace")
    try:
        loaded = ingest(engine, namespace, corpus)
        live = load_embedder()
        vectors = [live.embed_query(q) for q in make_queries(args.queries)]
        ids = sorted(m.id for batch in store.iter_memories(namespace) for m in batch)
        step = max(1, len(ids) // args.queries)
        id_sets = [ids[i * step:][:args.read_ids] for i in range(args.queries)]
        report = {"n": args.n, "namespace_load": loaded, "queries": args.queries,
                  "rounds": args.rounds,
                  "vector_overfetch": overfetch(store, namespace, vectors, args.limit, [4, 2, 1], args.rounds),
                  "read_shape": one_record(store, namespace, id_sets, args.rounds)}
    finally:
        store.drop_namespace(namespace)
        engine.close()
    write_result(args.out, report, started=started)
    print(json.dumps({k: report[k] for k in ("vector_overfetch", "read_shape")}, indent=2))


if __name__ == "__main__":
    main()
