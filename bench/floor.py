"""graphmem search against its floor, in one run.

The floor is the same work done bare: embed the query (live, no cache), one exact dot product
over the namespace's float32 matrix, one FTS5 bm25 query over the same tokens. graphmem's search
(every stage on, k=10) runs on the same corpus with the query also embedded live. Within a pass
the three take turns query by query (floor, tight floor, graphmem: each sends every query of the
pass once), so all three meet the same machine load and the ratio holds on a busy machine; a
per-query ratio's median is reported beside the ratio of medians. Every pass times
queries no earlier pass (or the warm-up) sent, as a user's queries are new to the row cache, and
the first pass is reported apart.

Usage: python -m bench.floor [--sizes 10000] [--queries 200] [--repeats 3]
       [--models intfloat/e5-small-v2,sentence-transformers/all-MiniLM-L6-v2]
       [--embed-cache /tmp/emb.sqlite] [--out bench/results/floor.json] [--data-dir DIR]
Each model (default: the configured one) is measured against its own floor in the same run: the
floor's query embedding is the same model's, so the ratio is of graphmem's overhead, not the model.
The embedding cache only serves the corpus (documents); queries are always embedded live.

A second, tighter floor (``floor_lookup``) runs the full-text query over only the terms graphmem
itself looks up (``recall.lookup_terms``: the rarest terms under the postings budget, computed
before timing), so a ratio against it cannot fall below 1 merely because graphmem's lookup is
bounded and the bare one is not (at 100k the bare query over every term is slower than graphmem).
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import tempfile
from pathlib import Path

import numpy as np

from bench.corpus import make_memories, pass_queries
from bench.live_query import LiveQueryEmbedder
from bench.meta import latency_summary, run_facts, summarize_runs, time_calls
from graphmem.config import load_settings
from graphmem.embedding.embedder import Embedder, load_embedder
from graphmem.embedding.models import DEFAULT_MODEL
from graphmem.embedding.prepare import ensure_model
from graphmem.engine import Graphmem
from graphmem.retrieval import recall
from graphmem.stores.sqlite import SQLiteStore
from graphmem.text import tokenize

POOL = 100  # candidates the floor fetches per channel (graphmem's default recall pool is of this order)


class Floor:
    """Bare vector + full-text search over the same corpus: the least any hybrid search must do."""

    def __init__(self, embedder: Embedder, corpus: list[dict], vectors: np.ndarray,
                 lookup: dict[str, list[str]] | None = None) -> None:
        self.embedder = embedder
        self.lookup = lookup or {}
        self.matrix = np.ascontiguousarray(vectors, dtype=np.float32)
        self.db = sqlite3.connect(":memory:")
        self.db.execute("CREATE VIRTUAL TABLE t USING fts5(terms, tokenize='unicode61')")
        self.db.executemany("INSERT INTO t (rowid, terms) VALUES (?, ?)",
                            ((i, " ".join(tokenize(m["content"]))) for i, m in enumerate(corpus)))

    def search(self, text: str, terms: list[str] | None = None) -> tuple[np.ndarray, list]:
        qvec = self.embedder.embed_query(text)
        scores = self.matrix @ qvec
        top = np.argpartition(-scores, POOL)[:POOL]
        terms = tokenize(text) if terms is None else terms
        match = " OR ".join('"' + t.replace('"', '""') + '"' for t in dict.fromkeys(terms))
        rows = self.db.execute("SELECT rowid, bm25(t) FROM t WHERE t MATCH ? ORDER BY rank LIMIT ?",
                               (match, POOL)).fetchall() if match else []
        return top, rows

    def search_lookup(self, text: str) -> tuple[np.ndarray, list]:
        """The floor with graphmem's own lookup terms (precomputed per query)."""
        return self.search(text, self.lookup[text])


def lookup_terms(engine: Graphmem, namespace: str, queries: list[str]) -> dict[str, list[str]]:
    """The full-text terms graphmem's default recipe looks up for each query."""
    cfg = engine.settings.search
    out = {}
    for q in queries:
        terms = tokenize(q)
        out[q] = recall.lookup_terms(terms, engine.store.term_stats(namespace, terms), cfg) if terms else []
    return out


def passes(floor: Floor, graphmem_search, warm: list[str], per_pass: list[list[str]]) -> dict:
    """Floor, tight floor and graphmem, alternating, one pass per query list; ratios per pass."""
    for q in warm:                               # warm plans and the matrix load, with queries not timed
        floor.search(q)
        floor.search_lookup(q)
        graphmem_search(q)
    runs = []
    for queries in per_pass:
        times: dict[str, list[float]] = {"floor": [], "lookup": [], "graphmem": []}
        turns = (("floor", floor.search), ("lookup", floor.search_lookup), ("graphmem", graphmem_search))
        for q in queries:                        # interleaved query by query: the same load for all three
            for name, fn in turns:
                times[name] += time_calls(fn, [q])
        f, t, g = (latency_summary(times[k]) for k in ("floor", "lookup", "graphmem"))
        per_query = statistics.median(a / b for a, b in zip(times["graphmem"], times["floor"], strict=True))
        runs.append({"ratio_per_query_p50": round(per_query, 3),"loadavg_1m": round(os.getloadavg()[0], 2),
                     "floor_p50_ms": f["p50_ms"], "floor_p95_ms": f["p95_ms"],
                     "floor_lookup_p50_ms": t["p50_ms"], "floor_lookup_p95_ms": t["p95_ms"],
                     "graphmem_p50_ms": g["p50_ms"], "graphmem_p95_ms": g["p95_ms"],
                     "ratio_p50": g["p50_ms"] / f["p50_ms"], "ratio_p95": g["p95_ms"] / f["p95_ms"],
                     "ratio_lookup_p50": g["p50_ms"] / t["p50_ms"], "ratio_lookup_p95": g["p95_ms"] / t["p95_ms"]})
    return {"runs": runs, "first_pass": runs[0], "summary": summarize_runs(runs),
            "summary_after_first": summarize_runs(runs[1:]) if len(runs) > 1 else None}


def measure(size: int, corpus: list[dict], warm: list[str], per_pass: list[list[str]], cached: Embedder,
            live: Embedder, data_dir: Path) -> dict:
    items = [{k: v for k, v in m.items() if k != "namespace"} for m in corpus[:size]]
    vectors = cached.embed_documents([m["content"] for m in items])
    settings = load_settings(overrides={"store": {"data_dir": str(data_dir)}}, use_env=False)
    engine = Graphmem(settings, SQLiteStore(data_dir), LiveQueryEmbedder(cached, live))
    if engine.store.stats("bench").namespaces.get("bench", 0) != size:     # else reused (--data-dir)
        for start in range(0, size, 500):
            engine.add_batch(items[start:start + 500], "bench")
    everything = warm + [q for queries in per_pass for q in queries]
    floor = Floor(live, items, vectors, lookup_terms(engine, "bench", everything))
    out = passes(floor, lambda q: engine.search_outcome(q, "bench", 10), warm, per_pass)
    engine.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--models", default=None,
                        help="comma-separated models, each against its own floor (default: the configured one)")
    parser.add_argument("--embed-cache", default=None, help="SQLite embedding cache for the corpus")
    parser.add_argument("--out", default="bench/results/floor.json")
    parser.add_argument("--data-dir", default=None,
                        help="keep the stores here (DIR/<size>) and reuse them on the next run (same corpus)")
    args = parser.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(","))
    models = args.models.split(",") if args.models else [os.environ.get("GRAPHMEM_MODEL") or DEFAULT_MODEL]
    report: dict = {"facts": run_facts(), "queries": args.queries, "repeats": args.repeats,
                    "query_embedding": "live (every query embedded by the model, in both floor and graphmem)",
                    "queries_per_pass": "unique: no query is timed twice, or seen in the warm-up",
                    "load_before": [round(x, 2) for x in os.getloadavg()], "models": {}}
    corpus = make_memories(max(sizes))
    # each (model, pass) meets queries no other model or pass sent
    lists = pass_queries(args.queries, len(models) * (args.repeats + 1))
    with tempfile.TemporaryDirectory(prefix="graphmem-floor-") as tmp:
        for m, model in enumerate(models):
            ensure_model(model=model)
            live = load_embedder(model)
            cached = load_embedder(model, cache_path=args.embed_cache) if args.embed_cache else live
            warm, *per_pass = lists[m * (args.repeats + 1):(m + 1) * (args.repeats + 1)]
            out = report["models"][live.model_id] = {"sizes": {}}
            for size in sizes:
                where = Path(args.data_dir or tmp) / live.model_id.replace("/", "_") / str(size)
                out["sizes"][size] = measure(size, corpus, warm[:10], per_pass, cached, live, where)
                print(json.dumps({live.model_id: {size: out["sizes"][size]["summary"]}}), flush=True)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
