"""A serving process on a store ``bench_scale_1m`` loaded: open, the first search, then searches.

Why: the checkpoints of ``bench_scale_1m`` run in the loading process, beside the exact scan they
compare with. This is what a server or CLI started on the loaded data dir sees: the time and memory
of opening it, of reading the namespace's vectors (the saved matrix, or the table when there is
none it can use), of attaching the saved approximate index, of the first search (which does both),
and then whole searches (unique LoCoMo questions embedded live, the row cache emptied before each),
each beside the bare floor of the same query (``bench.floor``, the two in alternating order), with
RSS and its peak (``VmHWM``) after each step.

Usage: python -m bench.bench_scale_open --data-dir /tmp/big/flat [--queries 200] --out <file.json>
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

from bench.bench_scale_1m import NS, Base, open_engine, queries_for, search
from bench.floor import Floor
from bench.meta import latency_summary, run_facts, save_report, time_calls
from graphmem.eval.dataset import locomo_dir
from graphmem.stores.sqlite.vector_cache import VectorCache


def process_mb() -> dict[str, int]:
    """RSS now and its peak so far, in MB (Linux ``/proc/self/status``)."""
    fields = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0]) // 1024
    return {"rss_mb": fields["VmRSS"], "peak_rss_mb": fields["VmHWM"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", required=True, help="a data dir bench_scale_1m loaded")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    facts = run_facts()
    path = Path(args.data_dir)
    progress = json.loads((path / "progress.json").read_text())
    steps: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    store, timed, engine = open_engine(path, progress["ann_threshold"])
    steps.append({"step": "open (with the query model)", "s": round(time.perf_counter() - t0, 2), **process_mb()})
    attach = VectorCache.attach_ann

    def timed_attach(cache: VectorCache, *a: Any, **k: Any) -> None:
        steps.append({"step": "vectors read (s since the first search began)",
                      "s": round(time.perf_counter() - t1, 2), **process_mb()})
        t2 = time.perf_counter()
        attach(cache, *a, **k)
        steps.append({"step": "index attached", "s": round(time.perf_counter() - t2, 2), **process_mb()})

    VectorCache.attach_ann = timed_attach       # type: ignore[method-assign]
    try:
        t1 = time.perf_counter()
        search(engine, timed, "warm up the matrix and the index")
        steps.append({"step": "first search", "s": round(time.perf_counter() - t1, 2), **process_mb()})
        VectorCache.attach_ann = attach         # type: ignore[method-assign]
        queries = queries_for(Base(locomo_dir()), progress["loaded"], args.queries, seed=args.seed)
        ms, embed, stages, floor_ms = [], [], [], []
        floor = Floor(timed.inner, store, NS)
        for k, q in enumerate(queries):
            if k % 2:
                floor_ms += time_calls(floor.search, [q])
            store.rows.clear()
            took, embedded, _ids, stage = search(engine, timed, q)
            ms.append(took)
            embed.append(embedded)
            stages.append(stage)
            if not k % 2:
                floor_ms += time_calls(floor.search, [q])
        steps.append({"step": f"{len(queries)} searches", "s": round(sum(ms) / 1000, 2), **process_mb()})
        assert store.vectors is not None
        vectors = store.vectors.namespaces[NS]
        save_report(args.out, {
            "facts": facts, "namespace": NS, "memories": len(vectors), "approximate": vectors.ann is not None,
            "ann_events": dict(store.vectors.ann_events), "matrix_events": dict(store.vectors.matrix_events),
            "steps": steps, "queries": len(queries),
            "search": {**latency_summary(ms), "embed_query": latency_summary(embed),
                       "stage_p50_ms": {s: round(statistics.median(x[s] for x in stages), 3) for s in stages[0]}},
            "floor": {**latency_summary(floor_ms), "arms": floor.arms},
            "floor_ratio_p50": round(statistics.median(ms) / statistics.median(floor_ms), 3),
            "floor_ratio_per_query_p50": round(statistics.median(
                a / b for a, b in zip(ms, floor_ms, strict=True)), 3),
            "loadavg_after": [round(x, 2) for x in os.getloadavg()]})
        print(json.dumps(steps), flush=True)
    finally:
        VectorCache.attach_ann = attach         # type: ignore[method-assign]
        engine.close()


if __name__ == "__main__":
    main()
