"""Engine benchmarks on the embedded store:

- insert cost per memory (one `add` at a time: embed + dedupe + link + save) measured at
  1k and 50k stored memories; the ratio must stay under 1.5 (degree-bounded, index-driven linking);
- search latency p50/p95 at 10k and 100k memories with each stage's share, every query embedded
  live (the cache serves only the bulk corpus).

Usage: python -m bench.bench_engine [--sizes 1000,10000,50000,100000] [--out bench/results/engine.json]
       [--embed-cache PATH]   (probe texts differ per checkpoint, so probe inserts always embed)
       [--probe-repeats N]    (N rounds of probe inserts per checkpoint: median and spread of the ratio)
       python -m bench.bench_engine --interleave LOW_DIR,HIGH_DIR --probe-repeats N
                              (two kept stores, e.g. a 1k and a 50k one this script loaded: probe rounds
                              alternate between them, so load drift on a shared machine hits both alike)
Bulk loading between checkpoints uses the normal batched ingest path.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from bench.live_query import LiveQueryEmbedder
from bench.meta import pct, summarize_runs, write_result
from graphmem.config import load_settings
from graphmem.embedding.embedder import load_embedder
from graphmem.embedding.prepare import ensure_model
from graphmem.engine import Graphmem
from graphmem.stores.sqlite import SQLiteStore
from graphmem.views import dump
from harness.corpus import make_memories, make_queries


def measure_inserts(engine: Graphmem, probes: list[dict]) -> dict:
    times = []
    for item in probes:
        t0 = time.perf_counter()
        engine.add(item)
        times.append((time.perf_counter() - t0) * 1000)
    for item in probes:                      # keep the store at its checkpoint size
        engine.delete(item["namespace"], item["id"])
    return {"n": len(times), "mean_ms": round(statistics.mean(times), 3), "p50_ms": round(pct(times, 0.5), 3),
            "p95_ms": round(pct(times, 0.95), 3)}


def measure_search(engine: Graphmem, queries: list[str]) -> dict:
    totals, stage_ms = [], {}
    for q in queries:
        outcome = engine.search_outcome(q, "bench", 10)
        totals.append(outcome.trace["total_ms"])
        for row in outcome.trace["stages"]:
            stage_ms.setdefault(row["stage"], []).append(row["ms"])
    total = sum(totals)
    return {"n": len(totals), "p50_ms": round(pct(totals, 0.5), 3), "p95_ms": round(pct(totals, 0.95), 3),
            "stage_share": {s: round(sum(v) / total, 3) for s, v in stage_ms.items()},
            "stage_p50_ms": {s: round(pct(v, 0.5), 3) for s, v in stage_ms.items()}}


def interleaved(dirs: list[str], rounds: int, docs, live, out: str) -> None:
    """Insert cost at two kept stores, probe rounds alternating low / high; ratio per round."""
    settings = [load_settings(overrides={"store": {"data_dir": d}}, use_env=False) for d in dirs]
    engines = [Graphmem(cfg, SQLiteStore(d, cfg.store), LiveQueryEmbedder(docs, live))
               for d, cfg in zip(dirs, settings, strict=True)]
    sizes = [e.store.stats("bench").namespaces.get("bench", 0) for e in engines]
    probe_base = make_memories(200, seed=99)
    report: dict = {"stores": dict(zip(dirs, sizes, strict=True)), "rounds": []}
    for r in range(rounds):
        row = {}
        for engine, size in zip(engines, sizes, strict=True):
            probes = [{**m, "id": f"probe-{i}", "content": m["content"].replace("note", f"probe {size} i{r}")}
                      for i, m in enumerate(probe_base)]
            row[size] = measure_inserts(engine, probes)
        row["ratio"] = round(row[sizes[1]]["mean_ms"] / row[sizes[0]]["mean_ms"], 3)
        report["rounds"].append(row)
        print(json.dumps(row), flush=True)
    report["ratio"] = summarize_runs([{"ratio": r["ratio"]} for r in report["rounds"]])["ratio"]
    report["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    write_result(out, report)
    print(json.dumps(report["ratio"]))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,10000,50000,100000")
    parser.add_argument("--insert-at", default="1000,50000")
    parser.add_argument("--search-at", default="10000,100000")
    parser.add_argument("--out", default="bench/results/engine.json")
    parser.add_argument("--probe-repeats", type=int, default=1)
    parser.add_argument("--interleave", default=None, help="LOW_DIR,HIGH_DIR: kept stores to alternate between")
    parser.add_argument("--data-dir", default=None, help="load here (kept), not in a temporary dir")
    parser.add_argument("--embed-cache", default=None,
                        help="SQLite embedding cache: reruns skip re-embedding the bulk corpus")
    args = parser.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(","))
    insert_at = {int(s) for s in args.insert_at.split(",")}
    search_at = {int(s) for s in args.search_at.split(",")}
    ensure_model()
    live = load_embedder()
    docs = load_embedder(cache_path=args.embed_cache) if args.embed_cache else live
    if args.interleave:
        interleaved(args.interleave.split(","), args.probe_repeats, docs, live, args.out)
        return
    data_dir = args.data_dir or tempfile.mkdtemp(prefix="graphmem-bench-")
    engine = Graphmem(load_settings(overrides={"store": {"data_dir": data_dir}}, use_env=False),
                      SQLiteStore(data_dir, load_settings(use_env=False).store), LiveQueryEmbedder(docs, live))
    corpus = make_memories(max(sizes))
    probe_base = make_memories(200, seed=99)
    queries = make_queries(200)
    report: dict = {"query_embedding": "live", "store": "sqlite", "inserts": {},
                    "search": {}, "load_seconds": {}}
    loaded = 0
    for size in sizes:
        t0 = time.perf_counter()
        for start in range(loaded, size, 500):
            engine.add_batch(corpus[start:min(start + 500, size)], "bench")
        report["load_seconds"][size] = round(time.perf_counter() - t0, 1)
        loaded = size
        if size in insert_at:
            # Texts unique per checkpoint: every probe is embedded, never served by the cache.
            rounds = []
            for r in range(args.probe_repeats):
                probes = [{**m, "id": f"probe-{i}",
                           "content": m["content"].replace("note", f"probe {size}" + (f" r{r}" if r else ""))}
                          for i, m in enumerate(probe_base)]
                rounds.append(measure_inserts(engine, probes))
            report["inserts"][size] = rounds[0] if len(rounds) == 1 else {
                "rounds": rounds, "summary": summarize_runs(rounds),
                **{k: v["median"] for k, v in summarize_runs(rounds).items() if k != "n"}}
        if size in search_at:
            report["search"][size] = measure_search(engine, queries)
        print(json.dumps({"size": size, **{k: v.get(size) for k, v in report.items() if isinstance(v, dict)}}),
              flush=True)
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        write_result(args.out, report)     # partial results survive a stop
    if len(insert_at & set(sizes)) == 2:
        low, high = sorted(insert_at)
        report["insert_ratio"] = round(report["inserts"][high]["mean_ms"] / report["inserts"][low]["mean_ms"], 3)
        if args.probe_repeats > 1:          # round r at the high checkpoint against round r at the low one
            ratios = [{"ratio": h["mean_ms"] / lo_["mean_ms"]} for h, lo_ in
                      zip(report["inserts"][high]["rounds"], report["inserts"][low]["rounds"], strict=True)]
            report["insert_ratio_rounds"] = summarize_runs(ratios)["ratio"]
    report["stats"] = dump(engine.stats("bench"))["degree"]
    report["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    write_result(args.out, report)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
