"""Search p50 at 10k memories with stage multihop off and on, in one run (passes alternate).

The memories are the bench corpus (bench/corpus.py) written through ``store.save_batch`` with their
entity mentions extracted (``ingest/entities.py``, as ingest does) and random unit vectors (search
cost does not depend on what the vectors mean; no model runs for the corpus); the query is embedded
live by the default model. Each repeat times every query once per configuration, off then on, so
both see the same load; the ratio is taken per repeat (a busy shared machine: the load average at
the start is saved with the result).

Usage: python -m bench.bench_multihop_latency [--size 10000] [--queries 200] [--repeats 3]
       [--out bench/results/multihop_latency.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from dataclasses import replace
from pathlib import Path

import numpy as np

from bench.bench_scale import STAMP, to_memory
from bench.corpus import make_memories, make_queries
from bench.meta import latency_summary, run_facts, time_calls
from graphmem.config import load_settings
from graphmem.embedding.embedder import load_embedder
from graphmem.engine import Graphmem
from graphmem.ingest.entities import extract_entities
from graphmem.stores.sqlite import SQLiteStore

NS = "bench"
CHUNK = 2000


def build(store: SQLiteStore, settings, size: int, dim: int) -> None:
    rng = np.random.default_rng(7)
    items = make_memories(size, seed=7, namespace=NS)
    for lo in range(0, size, CHUNK):
        vecs = rng.standard_normal((min(CHUNK, size - lo), dim)).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        batch = [replace(to_memory(it, v, NS), created_at=STAMP,
                         entities=extract_entities(it["content"], settings.entities))
                 for it, v in zip(items[lo:lo + CHUNK], vecs, strict=True)]
        store.save_batch(batch, [], [])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=10000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default="bench/results/multihop_latency.json")
    args = parser.parse_args()
    facts = run_facts()
    with tempfile.TemporaryDirectory(prefix="graphmem-multihop-") as tmp:
        settings = load_settings(overrides={"store": {"data_dir": tmp}}, use_env=False)
        embedder = load_embedder()
        store = SQLiteStore(Path(tmp) / "graphmem.db", settings.store)
        engine = Graphmem(settings, store, embedder)
        build(store, settings, args.size, embedder.dim)
        queries = make_queries(args.queries)
        configs = {"off": {"multihop": False}, "on": {"multihop": True}}
        for q in queries[:20]:                               # warm both paths
            for stages in configs.values():
                engine.search_outcome(q, NS, 10, stages=stages)
        runs = []
        for _ in range(args.repeats):
            row = {name: latency_summary(time_calls(lambda q, s=stages: engine.search_outcome(q, NS, 10, stages=s),
                                                    queries))
                   for name, stages in configs.items()}
            row["p50_ratio_on_off"] = round(row["on"]["p50_ms"] / row["off"]["p50_ms"], 3)
            runs.append(row)
        traced = engine.search_outcome(queries[0], NS, 10, stages={"multihop": True}).trace
        engine.close()
    out = {**facts, "size": args.size, "queries": len(queries), "repeats": runs,
           "p50_ratio_median": round(statistics.median(r["p50_ratio_on_off"] for r in runs), 3),
           "multihop_trace_example": next(r for r in traced["stages"] if r["stage"] == "multihop"),
           "note": "random unit vectors; query embedded live; passes alternate off/on per repeat"}
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps({k: out[k] for k in ("repeats", "p50_ratio_median")}, indent=1))


if __name__ == "__main__":
    main()
