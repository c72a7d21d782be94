"""Linking's store reads at ingest (``ingest.candidates.gather``: term and label counts, tag,
category and lexical candidates, the candidates' rows) for a 500-memory batch into a store of N
memories, and how they grow with N: the part of ingest the lexical engine changed.

The store is loaded through ``save_batch`` (rows only, random unit vectors, no linking: fast),
from the bench corpus (``bench/corpus.py``: a small vocabulary, so content terms are common and
the ``[edges] lexical_*`` postings budget is reached, the costly case). Then ``--batches`` batches
of 500 new memories are gathered one after another (each saved before the next, as an import
does), timing ``gather`` and, inside it, ``store.term_holders``. ``--label`` names the code under
test when it is not this checkout (the before run runs a copy of this file on an older tree).

Usage: python -m bench.bench_link_candidates --n 20000 [--batches 5] [--label before@a92da90]
       [--out bench/results/link_candidates.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from bench.meta import write_result
from graphmem.config import load_settings
from graphmem.ingest import candidates
from graphmem.model import Memory
from graphmem.stores.sqlite import SQLiteStore
from graphmem.text import content_hash, term_counts
from harness.corpus import make_memories

DIM, NS, BATCH = 384, "bench", 500
START = datetime(2025, 1, 1, tzinfo=UTC)


def to_memory(item: dict, k: int, rng: np.random.Generator) -> Memory:
    vec = rng.standard_normal(DIM).astype(np.float32)
    stamp = (START + timedelta(seconds=k)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return Memory(id=item["id"], namespace=NS, content=item["content"], content_hash=content_hash(item["content"]),
                  tags=list(item.get("tags") or []), category=item.get("category"), created_at=stamp,
                  updated_at=stamp, embedding=vec / np.linalg.norm(vec), term_counts=term_counts(item["content"]))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--batches", type=int, default=5)
    ap.add_argument("--label", default="this checkout")
    ap.add_argument("--out", default="bench/results/link_candidates.json")
    args = ap.parse_args()
    report: dict = {"code": args.label, "n": args.n, "batch": BATCH,
                    "loadavg_at_start": os.getloadavg()}
    rng = np.random.default_rng(7)
    items = make_memories(args.n + args.batches * BATCH, seed=7, namespace=NS)
    memories = [to_memory(item, k, rng) for k, item in enumerate(items)]
    cfg = load_settings(use_env=False).edges
    with tempfile.TemporaryDirectory(prefix="graphmem-link-") as tmp:
        store = SQLiteStore(Path(tmp), load_settings(use_env=False).store)
        store.ensure_schema("bench-random", DIM)
        t0 = time.perf_counter()
        for start in range(0, args.n, 2000):
            store.save_batch(memories[start:min(start + 2000, args.n)], [], [])
        report["load_per_s"] = round(args.n / (time.perf_counter() - t0), 1)
        holders_s: list[float] = []
        original = store.term_holders

        def timed(*a, **kw):
            t = time.perf_counter()
            try:
                return original(*a, **kw)
            finally:
                holders_s.append(time.perf_counter() - t)

        store.term_holders = timed        # type: ignore[method-assign]
        gather_ms, holders_ms, candidates_per_memory = [], [], []
        for b in range(args.batches):
            batch = memories[args.n + b * BATCH: args.n + (b + 1) * BATCH]
            t = time.perf_counter()
            inputs = candidates.gather(store, NS, batch, cfg)
            gather_ms.append(round((time.perf_counter() - t) * 1000, 1))
            holders_ms.append(round(holders_s[-1] * 1000, 1))
            candidates_per_memory.append(round(statistics.mean(len(i.candidates) for i in inputs), 1))
            store.save_batch(batch, [], [])
        store.close()
    report.update({"gather_ms_per_batch": gather_ms, "term_holders_ms_per_batch": holders_ms,
                   "gather_ms_median": statistics.median(gather_ms),
                   "term_holders_ms_median": statistics.median(holders_ms),
                   "candidates_per_memory": candidates_per_memory, "loadavg_at_end": os.getloadavg()})
    write_result(args.out, report)
    print(json.dumps({k: v for k, v in report.items() if k != "facts"}, indent=2))


if __name__ == "__main__":
    main()
