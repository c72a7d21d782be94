"""What ``as_of`` (and ``current_only``) cost on a search at 10k memories, against a plain search of
the same store, on the embedded store or on Neo4j (``--store neo4j``: the server the
``GRAPHMEM_NEO4J_*`` environment names, e.g. ``docker/neo4j-local/neo4j-local start``; the bench
writes its own namespace and drops it afterwards).

The store holds the bench corpus with vectors derived from real MiniLM embeddings
(bench/scale_vectors.py, from ``--base-size`` corpus sentences embedded now), written with
``store.save_batch`` (no edges). Memories are created over 2025 in order; every fifth one is
superseded by the next and stops being valid 30 days after it was written, every seventh is valid
only from 60 days after it. ``as_of`` is mid-2025, so it drops about half the namespace (not yet
written) and some of the rest (no longer or not yet valid).

Each search embeds its query live and every query is used once (no cache hit): plain, as_of and
current_only take turns on consecutive queries, over ``--passes`` passes; the figure is each
mode's p50 and its ratio to the plain p50, per pass and as the median over passes. On Neo4j,
``--as-of-overfetch 1,4`` adds one as_of mode per first-fetch factor (``neo4j_as_of_overfetch``),
taking turns with the others, so the factors are compared in one run.

    python -m bench.bench_as_of [--store sqlite|neo4j] [--size 10000] [--queries 150] [--passes 3]
        [--as-of-overfetch 1,4] [--out bench/results/as_of_cost.json]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

from bench.bench_scale import _items, to_memory
from bench.meta import ROOT, latency_summary, provenance, write_result
from bench.scale_vectors import base_vectors, derived
from graphmem.config import load_settings
from graphmem.embedding.embedder import load_embedder
from graphmem.engine import Graphmem
from graphmem.model import MemoryFilter
from graphmem.stores.base import MemoryStore
from graphmem.stores.neo4j import Neo4jStore
from graphmem.stores.sqlite import SQLiteStore
from harness.corpus import make_queries

NS = "bench"
START = datetime(2025, 1, 1, tzinfo=timezone.utc)
AS_OF = "2025-07-01T00:00:00.000000Z"


def stamp(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def load(store: MemoryStore, size: int, base_size: int, ns: str = NS, chunk: int = 5000) -> None:
    base = base_vectors(None, base_size)
    step = timedelta(days=365) / size
    for lo in range(0, size, chunk):
        hi = min(size, lo + chunk)
        batch = []
        for offset, (item, vec) in enumerate(zip(_items(lo, hi), derived(base, lo, hi - lo), strict=True)):
            i = lo + offset
            mem = to_memory(item, vec, ns)
            mem.created_at = mem.updated_at = stamp(START + step * i)
            if i % 5 == 0 and i + 1 < size:
                mem.superseded_by = f"mem-{i + 1:07d}"
                mem.valid_until = stamp(START + step * i + timedelta(days=30))
            if i % 7 == 0:
                mem.valid_from = stamp(START + step * i + timedelta(days=60))
                if mem.valid_until is not None and mem.valid_until <= mem.valid_from:
                    mem.valid_until = None
            batch.append(mem)
        store.save_batch(batch, [], [])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", choices=("sqlite", "neo4j"), default="sqlite")
    ap.add_argument("--size", type=int, default=10_000)
    ap.add_argument("--base-size", type=int, default=2_000)
    ap.add_argument("--queries", type=int, default=150, help="per mode and pass")
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--as-of-overfetch", default="",
                    help="Neo4j: first-fetch factors for as_of, each its own mode (e.g. 1,4)")
    ap.add_argument("--out", default=str(ROOT / "bench/results/as_of_cost.json"))
    args = ap.parse_args()
    started = provenance()
    modes = {"plain": MemoryFilter(), "as_of": MemoryFilter(as_of=AS_OF),
             "current_only": MemoryFilter(current_only=True)}
    factors = {f"as_of_overfetch_{f}": int(f) for f in args.as_of_overfetch.split(",") if f.strip()}
    if factors and args.store != "neo4j":
        ap.error("--as-of-overfetch is a Neo4j setting")
    modes.update({name: MemoryFilter(as_of=AS_OF) for name in factors})
    queries = make_queries(args.queries * len(modes) * args.passes)
    ns = NS if args.store == "sqlite" else f"bench-asof-{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory(prefix="graphmem-asof-") as tmp:
        settings = load_settings(overrides={"store": {"data_dir": tmp}}, use_env=False)
        # Neo4j: GRAPHMEM_NEO4J_* from the environment; longer timeouts, as a shared 2-core machine
        # under load can hold the first searches after 10k writes past the service's 5 s
        store: MemoryStore = (SQLiteStore(Path(tmp), settings.store) if args.store == "sqlite" else
                              Neo4jStore(load_settings().store.with_keys(neo4j_read_timeout=60.0,
                                                 neo4j_write_timeout=120.0)))
        engine = Graphmem(settings, store, load_embedder())
        try:
            report = measure(engine, store, ns, args, modes, queries, factors)
        finally:
            if isinstance(store, Neo4jStore):
                store.drop_namespace(ns)
            engine.close()
    report = {"store": args.store, **report}
    write_result(args.out, report, started=started)
    print(report["median_ratio_to_plain_p50"], [{k: v["p50_ms"] for k, v in p.items()} for p in report["passes"]])


def measure(engine: Graphmem, store: MemoryStore, ns: str, args: argparse.Namespace,
            modes: dict[str, MemoryFilter], queries: list[str], factors: dict[str, int]) -> dict:
    """Each mode's p50 per pass; a mode in ``factors`` runs with that Neo4j first-fetch factor."""
    shipped = store.as_of_overfetch if isinstance(store, Neo4jStore) else None
    t0 = time.perf_counter()
    load(store, args.size, args.base_size, ns, 5000 if args.store == "sqlite" else 500)   # a server write: smaller
    loaded_s = time.perf_counter() - t0
    valid = len(store.list_memories(ns, MemoryFilter(as_of=AS_OF), args.size))
    current = len(store.list_memories(ns, MemoryFilter(current_only=True), args.size))
    for warm in ("warm the caches and the vector matrix", "and the indexes of the server"):
        for flt in modes.values():
            engine.search(warm, ns, 10, flt)
    passes = []
    it = iter(queries)
    for _ in range(args.passes):
        ms: dict[str, list[float]] = {m: [] for m in modes}
        for _ in range(args.queries):
            for name, flt in modes.items():
                query = next(it)
                if isinstance(store, Neo4jStore):
                    store.as_of_overfetch = factors.get(name, shipped)
                start = time.perf_counter()
                engine.search(query, ns, 10, flt)
                ms[name].append((time.perf_counter() - start) * 1000)
        row = {name: latency_summary(v) for name, v in ms.items()}
        for name in [m for m in modes if m != "plain"]:
            row[name]["ratio_to_plain_p50"] = round(row[name]["p50_ms"] / row["plain"]["p50_ms"], 3)
        passes.append(row)
    return {"size": args.size, "as_of": AS_OF, "valid_at_as_of": valid, "current": current,
            "load_seconds": round(loaded_s, 1), "queries_per_mode_and_pass": args.queries,
            "query_embedding": "live, each query once", "passes": passes,
            "shipped_as_of_overfetch": shipped,
            "median_ratio_to_plain_p50": {name: statistics.median(p[name]["ratio_to_plain_p50"] for p in passes)
                                          for name in modes if name != "plain"},
            "loadavg_at_end": list(os.getloadavg()),
            "target": "as_of p50 at most 1.2x plain p50"}


if __name__ == "__main__":
    main()
