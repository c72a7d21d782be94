"""Where graphmem's search spends its time: cProfile over live-embedded queries.

Runs on an existing store (e.g. one kept by ``bench/floor.py --data-dir``), warms up, profiles
``--queries`` searches (k=10, every stage) and saves the functions with the most cumulative and
own time, with their share of the total, as JSON.

Usage: python -m bench.profile_search --data-dir DIR/10000 [--queries 60] [--model NAME]
       [--out bench/results/profile-10k.json]
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import time
from pathlib import Path

from bench.meta import provenance, write_result
from graphmem.config import load_settings
from graphmem.embedding.embedder import load_embedder
from graphmem.engine import Graphmem
from graphmem.stores.sqlite import SQLiteStore
from harness.corpus import make_queries


def top(stats: pstats.Stats, key: str, total: float, n: int) -> list[dict]:
    rows = []
    for (path, line, name), (_cc, calls, own, cum, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        rows.append({"function": f"{Path(path).name}:{line}({name})", "calls": calls,
                     "own_s": round(own, 3), "cum_s": round(cum, 3), "cum_share": round(cum / total, 3)})
    return sorted(rows, key=lambda r: -r[key])[:n]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--model", default=None, help="the store's model (default: the configured one)")
    parser.add_argument("--out", default="bench/results/profile-search.json")
    args = parser.parse_args()
    started = provenance()
    data_dir = Path(args.data_dir)
    settings = load_settings(overrides={"store": {"data_dir": str(data_dir)}}, use_env=False)
    engine = Graphmem(settings, SQLiteStore(data_dir, settings.store), load_embedder(args.model))
    warm, queries = make_queries(args.queries + 10)[:10], make_queries(args.queries + 10)[10:]
    for q in warm:                          # unique: no profiled query was sent in the warm-up
        engine.search_outcome(q, "bench", 10)
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.enable()
    for q in queries:
        engine.search_outcome(q, "bench", 10)
    prof.disable()
    wall = time.perf_counter() - t0
    engine.close()
    stats = pstats.Stats(prof)
    total = max(v[3] for v in stats.stats.values())  # type: ignore[attr-defined]
    report = {"queries": args.queries, "query_embedding": "live",
              "per_query_ms_profiled": round(wall * 1000 / args.queries, 1),
              "by_cumulative": top(stats, "cum_s", total, 30), "by_own_time": top(stats, "own_s", total, 20)}
    write_result(args.out, report, started=started)
    print(json.dumps(report["by_cumulative"][:15], indent=1))


if __name__ == "__main__":
    main()
