"""What the context block (POST /v1/context) costs over the search behind it, at a few thousand memories.

The store holds locomo-dev's 2,760 turns in one namespace (each session a thread, turns in order,
their time phrases resolved), embedded by the configured model through the eval's embedding cache and
written with ``store.save_batch`` (no edges: the block's own reads, the neighbouring turns, seek the
thread index, which this has). Each query of queries_no_adv.jsonl runs twice, as a search for the
block's k results (``[context_block] k``) and as a context block of ``--max-tokens``, the order
alternating between queries; both embed the query live. Figures per pass: each mode's p50, the p50 of
the per-query difference (block minus search) and of the block's own time (``trace.block.ms``);
the median over passes. The machine is shared: the load average is saved with the run.

    python -m bench.bench_context [--queries 200] [--passes 3] [--max-tokens 400]
        [--out bench/results/context_cost.json]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from bench.meta import ROOT, latency_summary, provenance, write_result
from graphmem.config import load_settings
from graphmem.embedding.embedder import load_embedder
from graphmem.embedding.prepare import default_cache_root
from graphmem.engine import Graphmem
from graphmem.eval.dataset import locomo_dir, read_jsonl
from graphmem.eval.metrics import percentile
from graphmem.ingest.timeref import memory_time, resolve_memory_times
from graphmem.model import Memory, utcnow_iso
from graphmem.stores.sqlite import SQLiteStore
from graphmem.text import content_hash, term_counts

NS = "bench"


def load(engine: Graphmem, rows: list[dict]) -> None:
    vectors = engine.embedder.embed_documents([r["content"] for r in rows])
    now = utcnow_iso()
    memories = []
    for row, vec in zip(rows, vectors, strict=True):
        meta = row.get("metadata") or {}
        mem = Memory(id=row["id"], namespace=NS, content=row["content"], content_hash=content_hash(row["content"]),
                     tags=list(row.get("tags") or []), category=row.get("category"), source=row.get("source", ""),
                     metadata=meta, created_at=now, updated_at=now, embedding=vec,
                     term_counts=term_counts(row["content"]), thread=row.get("category"),
                     seq=meta.get("turn_index"))
        stamp = memory_time(meta, mem.created_at, engine.settings.time.time_fields)
        mem.times = resolve_memory_times(mem.content, stamp, engine.settings.time)
        memories.append(mem)
    for lo in range(0, len(memories), 500):
        engine.store.save_batch(memories[lo:lo + 500], [], [])


def one_pass(engine: Graphmem, queries: list[str], max_tokens: int, k: int) -> dict[str, float]:
    search_ms, block_ms, diff_ms, own_ms = [], [], [], []
    for i, query in enumerate(queries):
        def search(q: str = query) -> float:
            t0 = time.perf_counter()
            engine.search_outcome(q, NS, k=k)
            return (time.perf_counter() - t0) * 1000

        def block(q: str = query) -> float:
            t0 = time.perf_counter()
            out = engine.context(q, max_tokens, NS)
            ms = (time.perf_counter() - t0) * 1000
            own_ms.append(out.trace.block["ms"])
            return ms

        if i % 2:
            b, s = block(), search()
        else:
            s, b = search(), block()
        search_ms.append(s)
        block_ms.append(b)
        diff_ms.append(b - s)
    return {"search_p50_ms": latency_summary(search_ms)["p50_ms"],
            "context_p50_ms": latency_summary(block_ms)["p50_ms"],
            "difference_p50_ms": round(percentile(diff_ms, 50.0), 3),
            "block_own_p50_ms": round(percentile(own_ms, 50.0), 3),
            "ratio_p50": round(latency_summary(block_ms)["p50_ms"] / latency_summary(search_ms)["p50_ms"], 4)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--max-tokens", type=int, default=400)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "context_cost.json")
    args = ap.parse_args()
    started = provenance()
    base = locomo_dir()
    rows = read_jsonl(base / "memories.jsonl")
    queries = [q["text"] for q in read_jsonl(base / "queries_no_adv.jsonl")][: args.queries]
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(overrides={"store": {"data_dir": tmp}}, use_env=False)
        cache = default_cache_root() / "eval-embedding-cache.sqlite"
        embedder = load_embedder(settings.model.name, cache_path=cache)
        engine = Graphmem(settings, SQLiteStore(Path(tmp), settings.store), embedder)
        try:
            load(engine, rows)
            engine.context(queries[0], args.max_tokens, NS)          # warm: first-use costs out of the figures
            passes = [one_pass(engine, queries, args.max_tokens, settings.context_block.k)
                      for _ in range(args.passes)]
        finally:
            engine.close()
    summary = {key: round(statistics.median(p[key] for p in passes), 3) for key in passes[0]}
    report = {"store": "sqlite", "memories": len(rows), "queries": len(queries),
              "k": settings.context_block.k, "max_tokens": args.max_tokens, "model": settings.model.name,
              "passes": passes, "median": summary, "loadavg_at_end": [round(x, 2) for x in os.getloadavg()]}
    write_result(args.out, report, started=started)
    print(summary)


if __name__ == "__main__":
    main()
