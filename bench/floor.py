"""graphmem search against its floor, in one run.

The floor is the same work done bare, through the store's own engines: embed the query (live, no
cache), the vector index's top 100 (ANN; an exact dot product where the store itself scans
exactly, below its approximate-index threshold) and the lexical engine's top 100 over the query's
terms. On the embedded store the lexical engine is its tantivy index (``stores/sqlite/lexical.py``,
``LexicalIndex.top``); on Neo4j, the ``memory_vector`` index (SEARCH clause, namespace filtered
inside the index) and the ``memory_text`` Lucene index (``db.index.fulltext.queryNodes``), one
round trip each. graphmem's search (every stage on, k=10) runs on the same store with the query
also embedded live. Within a pass the three take turns query by query (floor, tight floor,
graphmem: each sends every query of the pass once), so all three meet the same machine load and
the ratio holds on a busy machine; a per-query ratio's median is reported beside the ratio of
medians. Every pass times queries no earlier pass (or the warm-up) sent, as a user's queries are
new to the row cache, and the first pass is reported apart.

Usage: python -m bench.floor [--sizes 10000] [--queries 200] [--repeats 3]
       [--models intfloat/e5-small-v2,sentence-transformers/all-MiniLM-L6-v2]
       [--embed-cache /tmp/emb.sqlite] [--out bench/results/floor.json] [--data-dir DIR]
Each model (default: the configured one) is measured against its own floor in the same run: the
floor's query embedding is the same model's, so the ratio is of graphmem's overhead, not the model.
The embedding cache only serves the corpus (documents); queries are always embedded live.

A second, tighter floor (``floor_lookup``) runs the lexical query over only the terms graphmem
itself looks up (``recall.lookup_terms``: the rarest terms under the postings budget, computed
before timing), so a ratio against it cannot fall below 1 merely because graphmem's lookup is
bounded and the bare one is not.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from bench.corpus import make_memories, pass_queries
from bench.live_query import LiveQueryEmbedder
from bench.meta import latency_summary, run_facts, summarize_runs, time_calls
from graphmem.config import load_settings
from graphmem.embedding.embedder import Embedder, load_embedder
from graphmem.embedding.models import DEFAULT_MODEL
from graphmem.embedding.prepare import ensure_model
from graphmem.engine import Graphmem
from graphmem.model import MemoryFilter
from graphmem.retrieval import recall
from graphmem.stores.base import MemoryStore
from graphmem.stores.neo4j.records import lucene_queries
from graphmem.stores.sqlite import SQLiteStore
from graphmem.text import tokenize

POOL = 100  # candidates the floor fetches per arm (graphmem's default recall pool is of this order)
TIMEOUT_S = 60.0

NEO4J_VECTOR = """CYPHER 25
MATCH (m:Memory)
  SEARCH m IN (VECTOR INDEX memory_vector FOR $vector WHERE m.namespace = $namespace LIMIT $limit)
  SCORE AS score
RETURN m.id AS id, score"""
NEO4J_LEXICAL = """CALL db.index.fulltext.queryNodes('memory_text', $query, {limit: $limit}) YIELD node, score
RETURN node.id AS id, score"""

Top = Callable[[Any], list]


def sqlite_arms(store: SQLiteStore, namespace: str) -> tuple[Top, Top, dict[str, str]]:
    """The embedded store's vector arm (its usearch index, or the exact scan it does itself below
    the threshold) and its tantivy index, called directly."""
    assert store.vectors is not None and store.lexical is not None, "ensure_schema() first"
    store.vector_candidates(namespace, np.ones(store.dim, dtype=np.float32), 1, MemoryFilter(), "")   # loads
    vectors = store.vectors.namespaces[namespace]
    lexical = store.lexical

    def vector_top(qvec: np.ndarray) -> list:
        if vectors.ann is not None:
            return vectors.ann.search(qvec, POOL)
        scores = vectors.matrix[:len(vectors)] @ qvec
        return np.argpartition(-scores, min(POOL, len(scores) - 1))[:POOL].tolist()

    def lexical_top(terms: list[str]) -> list:
        return lexical.top(store.db, namespace, terms, POOL)[0]

    arms = {"vector": "usearch HNSW index" if vectors.ann is not None else "exact dot product (below the "
            "approximate-index threshold, as the store itself)", "lexical": "tantivy (LexicalIndex.top)"}
    return vector_top, lexical_top, arms


def neo4j_arms(store: Any, namespace: str) -> tuple[Top, Top, dict[str, str]]:
    """Neo4j's vector index (SEARCH, namespace inside the index) and Lucene full-text index."""
    def read(statement: str, **params: Any) -> list:
        return store._read_once(statement, params, TIMEOUT_S)

    def vector_top(qvec: np.ndarray) -> list:
        return read(NEO4J_VECTOR, vector=np.asarray(qvec, dtype=np.float32).tolist(), namespace=namespace,
                    limit=POOL)

    def lexical_top(terms: list[str]) -> list:
        return [row for q in lucene_queries(namespace, terms) for row in read(NEO4J_LEXICAL, query=q, limit=POOL)]

    return vector_top, lexical_top, {"vector": "memory_vector index (SEARCH ... WHERE namespace)",
                                     "lexical": "memory_text Lucene index (db.index.fulltext.queryNodes)"}


class Floor:
    """Bare vector + lexical search on a store's own engines: the least any hybrid search must do."""

    def __init__(self, embedder: Embedder, store: MemoryStore, namespace: str,
                 lookup: dict[str, list[str]] | None = None) -> None:
        self.embedder = embedder
        self.lookup = lookup or {}
        arms = sqlite_arms if store.kind == "sqlite" else neo4j_arms
        self.vector_top, self.lexical_top, self.arms = arms(store, namespace)  # type: ignore[arg-type]

    def search(self, text: str, terms: list[str] | None = None) -> tuple[list, list]:
        qvec = self.embedder.embed_query(text)
        terms = tokenize(text) if terms is None else terms
        return self.vector_top(qvec), (self.lexical_top(terms) if terms else [])

    def search_lookup(self, text: str) -> tuple[list, list]:
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
    settings = load_settings(overrides={"store": {"data_dir": str(data_dir)}}, use_env=False)
    engine = Graphmem(settings, SQLiteStore(data_dir, settings.store), LiveQueryEmbedder(cached, live))
    if engine.store.stats("bench").namespaces.get("bench", 0) != size:     # else reused (--data-dir)
        for start in range(0, size, 500):
            engine.add_batch(items[start:start + 500], "bench")
    everything = warm + [q for queries in per_pass for q in queries]
    floor = Floor(live, engine.store, "bench", lookup_terms(engine, "bench", everything))
    out = {"floor_arms": floor.arms} | passes(floor, lambda q: engine.search_outcome(q, "bench", 10),
                                              warm, per_pass)
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
