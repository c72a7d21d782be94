"""Where a Neo4j search's milliseconds go, beside the embedded store's, on the same data.

Per search (k=10, every stage, query embedded live): wall time, query embedding, and per store
call its time, its transactions and its Cypher queries. Per Cypher query of one search: the
server's own time (result_available_after + result_consumed_after), the client's time for the
same query alone, and the PROFILE's rows and db hits. Plus the floor of one transaction
(``RETURN 1``) and the cost of reading memories with and without their embeddings.

Needs both stores loaded with the same memories (``--sqlite-dir`` and ``--namespace``), e.g. by
``bench/bench_stores.py --keep``. Usage:
    python -m bench.profile_neo4j_search --sqlite-dir DIR --namespace NS [--queries 60]
        [--out bench/results/profile-neo4j-search-10k.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter, defaultdict
from typing import Any

from neo4j import ManagedTransaction, Query, Session

from bench.meta import provenance, write_result
from graphmem.config import load_settings
from graphmem.embedding.embedder import load_embedder
from graphmem.engine import Graphmem
from graphmem.stores.neo4j import Neo4jStore
from graphmem.stores.neo4j import queries as Q
from graphmem.stores.sqlite import SQLiteStore
from harness.corpus import make_queries

CALLS = ("label_counts", "recall", "vector_candidates", "term_stats", "lexical_candidates",
         "get_memories", "neighbors_with_memories")


def med(values: list[float]) -> float:
    return round(statistics.median(values), 2) if values else 0.0


class Meter:
    """Times each store call of a search (and the transactions and queries inside it)."""

    def __init__(self, engine: Graphmem) -> None:
        self.ms: dict[str, list[float]] = defaultdict(list)
        self.current: Counter[str] = Counter()
        self.tx: Counter[str] = Counter()
        self.queries: Counter[str] = Counter()
        self.active = ""
        store, embedder = engine.store, engine.pipeline.embedder
        for name in CALLS:
            setattr(store, name, self.timed(name, getattr(store, name)))
        embedder.embed_query = self.timed("embed_query", embedder.embed_query)

    def timed(self, name: str, fn):
        def call(*args, **kwargs):
            if self.active:         # inside another timed call (a store's recall composes its reads)
                return fn(*args, **kwargs)
            self.active = name
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.current[name] += (time.perf_counter() - t0) * 1000
                self.active = ""
        return call

    def search(self, engine: Graphmem, query: str, namespace: str) -> float:
        self.current = Counter()
        t0 = time.perf_counter()
        engine.search_outcome(query, namespace, 10)
        total = (time.perf_counter() - t0) * 1000
        for name, ms in self.current.items():
            self.ms[name].append(ms)
        self.ms["total"].append(total)
        return total

    def summary(self) -> dict[str, Any]:
        total = med(self.ms["total"])
        rows = {name: {"p50_ms": med(v), "share_of_p50": round(med(v) / total, 3) if total else 0}
                for name, v in self.ms.items()}
        store_ms = [sum(self.ms[n][i] for n in CALLS if n in self.ms) for i in range(len(self.ms["total"]))]
        rows["store_calls_sum"] = {"p50_ms": med(store_ms), "share_of_p50": round(med(store_ms) / total, 3)}
        rest = [t - s - e for t, s, e in zip(self.ms["total"], store_ms, self.ms["embed_query"], strict=True)]
        rows["python_above_store"] = {"p50_ms": med(rest), "share_of_p50": round(med(rest) / total, 3)}
        return rows


def capture_queries(engine: Graphmem, query: str, namespace: str) -> list[tuple[str, str, dict]]:
    """(store call, query text, parameters) of every Cypher query one search runs."""
    seen: list[tuple[str, str, dict]] = []
    names = {Q.load(n): n for n in ("label_counts", "namespace_size", "vector_search", "vector_scan",
                                    "term_stats", "lexical_search", "memories_get", "neighbors",
                                    "recall_vector", "recall_lexical")}
    originals = {cls: cls.run for cls in (ManagedTransaction, Session)}

    def tracing(original):
        def run(self, query, parameters=None, **kwargs):
            text = query.text if isinstance(query, Query) else query     # the store sends a Query (its timeout)
            seen.append((names.get(text, "?"), text, {**(parameters or {}), **kwargs}))
            return original(self, query, parameters, **kwargs)
        return run

    for cls, original in originals.items():
        cls.run = tracing(original)  # type: ignore[method-assign]
    try:
        engine.search_outcome(query, namespace, 10)
    finally:
        for cls, original in originals.items():
            cls.run = original  # type: ignore[method-assign]
    return seen


def plan_totals(plan: dict) -> tuple[int, int]:
    rows, hits = plan.get("rows", 0), plan.get("dbHits", 0)
    for child in plan.get("children", []):
        r, h = plan_totals(child)
        rows, hits = rows + r, hits + h
    return rows, hits


def per_query(store: Neo4jStore, captured: list[tuple[str, str, dict]], repeats: int) -> list[dict]:
    """Each query alone: server time vs client time (one read transaction each), PROFILE totals."""
    out = []
    for name, text, params in captured:
        server, client = [], []
        for _ in range(repeats):
            def work(tx: ManagedTransaction, t: str = text, p: dict = params) -> tuple[int, Any]:
                result = tx.run(t, p)
                records = list(result)
                summary = result.consume()
                return len(records), summary
            t0 = time.perf_counter()
            with store._driver.session(database=store.database) as session:
                n, summary = session.execute_read(work)
            client.append((time.perf_counter() - t0) * 1000)
            server.append((summary.result_available_after or 0) + (summary.result_consumed_after or 0))
        profiled = text.replace("CYPHER 25", "CYPHER 25 PROFILE", 1) if text.startswith("CYPHER 25") \
            else "PROFILE " + text
        with store._driver.session(database=store.database) as session:
            plan = session.run(profiled, params).consume().profile
        rows, hits = plan_totals(plan)
        size = len(json.dumps({k: v for k, v in params.items()}, default=str))
        out.append({"query": name, "records": n, "client_ms_p50": med(client), "server_ms_p50": med(server),
                    "profile_rows": rows, "profile_db_hits": hits, "param_bytes": size})
    return out


def transaction_floor(store: Neo4jStore, repeats: int) -> dict[str, float]:
    """One read transaction returning one row, through the store's own path and bare."""
    via_store = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        store._execute(False, lambda tx: list(tx.run("RETURN 1 AS x")))
        via_store.append((time.perf_counter() - t0) * 1000)
    auto = []
    with store._driver.session(database=store.database) as session:
        for _ in range(repeats):
            t0 = time.perf_counter()
            list(session.run("RETURN 1 AS x"))
            auto.append((time.perf_counter() - t0) * 1000)
    return {"read_transaction_ms_p50": med(via_store), "auto_commit_same_session_ms_p50": med(auto)}


def memory_read_cost(store: Neo4jStore, namespace: str, ids: list[str], repeats: int) -> dict[str, float]:
    """memories_get for ``ids`` as it is (embeddings included) vs without the embedding column."""
    full = Q.load("memories_get")
    slim = full.replace(", embedding: coalesce(m.embedding_f32, m.embedding)}", "}")
    assert slim != full, "memories_get changed: update the embedding column this compares without"
    out = {}
    for label, text in (("with_embedding", full), ("without_embedding", slim)):
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            store._execute(False, lambda tx, t=text: list(tx.run(t, {"namespace": namespace, "ids": ids})))
            times.append((time.perf_counter() - t0) * 1000)
        out[f"{label}_ms_p50"] = med(times)
    out["ids"] = len(ids)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sqlite-dir", required=True)
    parser.add_argument("--namespace", required=True, help="the namespace in both stores")
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--repeats", type=int, default=20, help="per query in the per-query timings")
    parser.add_argument("--out", default="bench/results/profile-neo4j-search.json")
    parser.add_argument("--note", default="")
    args = parser.parse_args()
    started = provenance()
    # every step in turn, so each store call's time is its own (the overlap is bench_stores' *_in_turn)
    settings = load_settings(overrides={"store": {"data_dir": args.sqlite_dir, "recall_overlap_workers": 0}},
                             use_env=False)
    embedder = load_embedder()
    neo = Neo4jStore(load_settings().store)
    engines = {"sqlite": Graphmem(settings, SQLiteStore(args.sqlite_dir, settings.store), embedder),
               "neo4j": Graphmem(settings, neo, embedder)}
    queries = make_queries(args.queries + 10)
    for engine in engines.values():
        for q in queries[:10]:
            engine.search_outcome(q, args.namespace, 10)
    captured = capture_queries(engines["neo4j"], queries[0], args.namespace)
    meters = {kind: Meter(engine) for kind, engine in engines.items()}
    tx_count: Counter[str] = Counter()
    original_attempt, original_read = neo._attempt, neo._read_once

    def attempt(write, work, timeout):
        tx_count[meters["neo4j"].active or "?"] += 1
        return original_attempt(write, work, timeout)

    def read_once(query, params, timeout):
        tx_count[meters["neo4j"].active or "?"] += 1
        return original_read(query, params, timeout)

    neo._attempt, neo._read_once = attempt, read_once  # type: ignore[method-assign]
    for q in queries[10:]:
        for kind, engine in engines.items():      # interleaved: both stores see the same load
            meters[kind].search(engine, q, args.namespace)
    neo._attempt, neo._read_once = original_attempt, original_read  # type: ignore[method-assign]
    report: dict[str, Any] = {
        "note": args.note, "namespace": args.namespace, "queries": args.queries,
        "query_embedding": "live in both stores",
        "steps": "in turn (store.recall_overlap_workers = 0), so each store call's time is its own",
        "memories": neo.term_stats(args.namespace, []).n_docs,
        "search": {kind: m.summary() for kind, m in meters.items()},
        "neo4j_transactions_per_search": {k: round(v / args.queries, 2) for k, v in tx_count.items()},
        "neo4j_queries_of_one_search": per_query(neo, captured, args.repeats),
        "neo4j_transaction_floor": transaction_floor(neo, 50),
    }
    docs = next((p["ids"] for n, _t, p in captured if n == "memories_get"), [])
    report["neo4j_memory_reads"] = memory_read_cost(neo, args.namespace, docs, args.repeats)
    lite, graph = report["search"]["sqlite"]["total"]["p50_ms"], report["search"]["neo4j"]["total"]["p50_ms"]
    report["neo4j_vs_sqlite_p50"] = round(graph / lite, 3)
    for engine in engines.values():
        engine.close()
    write_result(args.out, report, started=started)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
