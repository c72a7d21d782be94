"""The cost of the worst request [limits] allows, against a default search.

In one process on one corpus (real ONNX embedder, embedded store), rounds interleave: a default
search; a search with every cost lever at its [limits] ceiling; GET /v1/graph's worst case (max
ids, max hops, plus a query's max_k results); and the same two worst cases under the old,
uncapped bounds (recall 1000 x overfetch 20, postings 1e7, 100 seeds x 100, graph 50 ids x 3
hops). Timings include query embedding. Target: worst / default <= 5.

    .venv/bin/python -m bench.bench_limits --n 3000 --rounds 5 --out bench/results/limits.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.meta import write_result
from graphmem.config import load_settings
from graphmem.embedding.embedder import load_embedder
from graphmem.engine import Graphmem
from graphmem.stores.sqlite import SQLiteStore
from graphmem.views import dump
from harness.corpus import make_memories, make_queries

ROOT = Path(__file__).resolve().parents[1]

OLD_CEILINGS = {"max_recall_candidates": 1000, "max_lexical_overfetch": 20, "max_lexical_postings": 10_000_000,
                "max_lexical_lookup_terms": 64, "max_expansion_seeds": 100, "max_expansion_per_seed": 100,
                "max_expansion_added": 200, "max_graph_ids": 50, "max_graph_hops": 3, "max_graph_nodes": 1_000_000}


def worst_params(lim) -> dict:
    return {"recall_candidates": lim.max_recall_candidates, "lexical_overfetch": lim.max_lexical_overfetch,
            "lexical_max_postings": lim.max_lexical_postings, "lexical_lookup_terms": lim.max_lexical_lookup_terms,
            "lexical_max_df_ratio": 1.0, "expansion_seeds": lim.max_expansion_seeds,
            "expansion_per_seed": lim.max_expansion_per_seed, "expansion_max_added": lim.max_expansion_added,
            "expansion_min_edge_weight": 0.0}


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def summary(values: list[float]) -> dict:
    return {"p50_ms": round(statistics.median(values), 2), "min_ms": round(min(values), 2),
            "max_ms": round(max(values), 2), "n": len(values)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=3000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--queries", type=int, default=10)
    ap.add_argument("--out", default="bench/results/limits.json")
    args = ap.parse_args()
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
    embedder = load_embedder()
    with tempfile.TemporaryDirectory() as tmp:
        engines = {}
        for name, over in (("new", {}), ("old", OLD_CEILINGS)):
            settings = load_settings(overrides={"store": {"data_dir": tmp}, "limits": over}, use_env=False)
            engines[name] = Graphmem(settings, SQLiteStore(tmp, settings.store), embedder) if name == "new" else \
                Graphmem(settings, engines["new"].store, embedder)
        eng, ns = engines["new"], "bench"
        memories = make_memories(args.n)
        for i in range(0, len(memories), 500):
            eng.add_batch(memories[i:i + 500], ns)
        queries = make_queries(args.queries)
        degree = {m["id"]: len(dump(eng.neighbors(ns, m["id"], limit=200))["neighbors"]) for m in memories[:400]}
        hubs = sorted(degree, key=degree.get, reverse=True)
        cases = {}
        for name, e in engines.items():
            lim = e.settings.limits
            params = worst_params(lim)
            ids = hubs[:lim.max_graph_ids]
            cases[f"worst_search_{name}"] = (
                lambda q, e=e, p=params, k=lim.max_k: e.search(q, ns, k, params=p))
            cases[f"worst_graph_{name}"] = (
                lambda q, e=e, ids=ids, lim=lim: e.graph(ns, ids=ids, query=q, k=lim.max_k,
                                                         hops=lim.max_graph_hops))
        cases = {"default_search": lambda q: eng.search(q, ns), **cases}
        for q in queries[:2]:                      # warm caches and the model
            for fn in cases.values():
                fn(q)
        times: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(args.rounds):
            for q in queries:
                for name, fn in cases.items():
                    times[name].append(timed(lambda fn=fn, q=q: fn(q)))
        engines["new"].store.close()
    base = statistics.median(times["default_search"])
    out = {
        "command": "python -m bench.bench_limits " + " ".join(sys.argv[1:]),
        "commit": commit,
        "memories": args.n, "rounds": args.rounds, "queries": args.queries,
        "note": "Timings include query embedding; one process, cases interleaved per query; the machine is shared "
                "with other jobs (2 cores), so read medians with their spread.",
        "limits_new": {k: getattr(eng.settings.limits, k) for k in OLD_CEILINGS},
        "limits_old": OLD_CEILINGS,
        "cases": {name: summary(v) for name, v in times.items()},
        "ratio_to_default_p50": {name: round(statistics.median(v) / base, 2) for name, v in times.items()},
    }
    write_result(args.out, out)
    print(json.dumps(out["ratio_to_default_p50"], indent=2))


if __name__ == "__main__":
    main()
