"""Whole search at scale with the embedded store's rows decoded lazily (``StoredMemory``, the store's
own) or eagerly (every JSON column parsed as a row is read), paired query by query in one process.

Why: a search reads a few hundred candidate rows and returns ten; the lazy rows parse a JSON column
only when a stage reads it. Pairing each query's two runs (order alternating, the row cache emptied
before each) in one process puts both under the same machine load, so the difference is the
decoding's, not the machine's. Runs on a store ``bench_scale_1m`` loaded (read only apart from its
vector index files).

Usage: python -m bench.bench_row_decode --data-dir /tmp/scale/flat [--queries 200]
       [--ann-threshold 5000] [--out bench/results/row-decode-100k-flat.json]
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

import numpy as np

from bench.bench_scale_1m import Base, open_engine, queries_for, search
from bench.meta import latency_summary, run_facts, save_report
from graphmem.eval.dataset import locomo_dir
from graphmem.fastjson import loads
from graphmem.model import Memory
from graphmem.stores.sqlite import reads


def eager_row(row: tuple) -> Memory:
    """A row decoded whole into a ``Memory`` (how the store read rows before ``StoredMemory``)."""
    (namespace, id_, content, chash, tags, category, source, reason, metadata, created, updated,
     valid_until, expires_at, emb, health, reasons, weight, terms, _len, near_dup, evidence, topics,
     thread, seq, _pos, valid_from, superseded_by, _start, times, entities) = row
    return Memory(
        id=id_, namespace=namespace, content=content, content_hash=chash, tags=loads(tags),
        category=category, source=source, reason=reason, metadata=loads(metadata),
        created_at=created, updated_at=updated, valid_until=valid_until, expires_at=expires_at,
        embedding=None if emb is None else np.frombuffer(emb, dtype=np.float32).copy(),
        health=health, health_reasons=Memory.parse_health_reasons(reasons), source_weight=weight,
        term_counts=loads(terms), near_duplicate_of=near_dup,
        evidence=loads(evidence) if evidence else None, topics=loads(topics) if topics else [],
        thread=thread, seq=seq, valid_from=valid_from, superseded_by=superseded_by,
        times=loads(times) if times else [], entities=loads(entities) if entities else [])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--ann-threshold", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=4242)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    facts = run_facts()
    store, timed, engine = open_engine(Path(args.data_dir), args.ann_threshold)
    size = store.stats("scale").namespaces.get("scale", 0)
    modes: dict[str, Any] = {"lazy": reads.ReadsMixin._row_to_memory, "eager": eager_row}
    base = Base(locomo_dir())
    search(engine, timed, "warm up the matrix and the index")
    queries = queries_for(base, size, args.queries + 10, seed=args.seed)
    for q in queries[:10]:
        search(engine, timed, q)
    runs: dict[str, dict[str, list[float]]] = {m: {"ms": [], "embed": []} for m in modes}
    try:
        for k, q in enumerate(queries[10:]):
            for mode in (("lazy", "eager") if k % 2 == 0 else ("eager", "lazy")):
                reads.ReadsMixin._row_to_memory = staticmethod(modes[mode])    # type: ignore[method-assign]
                store.rows.clear()
                ms, embed, _ids, _stages = search(engine, timed, q)
                runs[mode]["ms"].append(ms)
                runs[mode]["embed"].append(embed)
    finally:
        reads.ReadsMixin._row_to_memory = staticmethod(modes["lazy"])       # type: ignore[method-assign]
        engine.close()
    paired = np.array(runs["eager"]["ms"]) - np.array(runs["lazy"]["ms"])
    report = {"facts": facts, "size": size, "queries": args.queries, "ann_threshold": args.ann_threshold,
              "search": {m: {**latency_summary(r["ms"]), "embed_query": latency_summary(r["embed"])}
                         for m, r in runs.items()},
              "eager_minus_lazy_ms": {"median": round(float(np.median(paired)), 3),
                                      "mean": round(float(paired.mean()), 3)},
              "loadavg_at_end": [round(x, 2) for x in os.getloadavg()]}
    print(report["search"], report["eager_minus_lazy_ms"])
    if args.out:
        save_report(args.out, report)


if __name__ == "__main__":
    main()
