"""Neo4j beside the embedded store, at growing sizes in one namespace: ingest, whole search, floor.

Both stores load the same memories through the public batch path (``Graphmem.add_batch``, 500 a
batch: validation, dedupe, health, linking, thread windows, one locked transaction per batch).
The memories are bench/bench_scale_1m.py's (LoCoMo-like turns in 25-turn sessions, threads with
context windows); their vectors are precomputed (``scale_vectors.derived`` over e5 embeddings of
the real sentences) and served by the embedder in place of the model's, so ingest compares the
stores, not the model. The two stores load chunk by chunk in turn, so both meet the same machine
load; each store's rate is its own seconds.

At each size, with the queries embedded live (unique LoCoMo questions renamed to loaded speakers):
per query, in turn: the embedded store's floor, its whole search, Neo4j's floor, its whole search
(bench/floor.py's ``Floor``: query embedding + vector index top 100 + lexical engine top 100), in
``--repeats`` passes of new queries. Saved per store: whole search p50/p95, the query embedding
and each stage's p50/p95 (from the search trace), the floor's p50/p95 and the ratio, the load
rate (overall and for the last tenth of the segment) with the seconds inside each store call,
RSS (this process for the embedded store, the Neo4j server's JVM for Neo4j), disk, edges; the
machine's load average before and after.

One JSON per size: ``<out-prefix>-<size>.json``. Usage (a private Neo4j, HELPERS.md / tests/run.sh):
    eval "$(docker/neo4j-local/neo4j-local start --data /tmp/neo4j-x/data --port auto)"
    nohup python -m bench.bench_scale_neo4j --sizes 10000,100000 --data-dir /tmp/scale-neo4j \\
        --neo4j-home /tmp/neo4j-x/data --neo4j-pid-file /tmp/neo4j-x/run/neo4j.pid > scale.log &
A rerun with the same ``--data-dir`` and Neo4j continues from what both stores hold.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench.bench_scale import memory_mb
from bench.bench_scale_1m import Base, items, queries_for
from bench.floor import Floor
from bench.meta import latency_summary, run_facts, save_report
from bench.scale_vectors import derived
from graphmem.config import load_settings
from graphmem.embedding.embedder import load_embedder
from graphmem.engine import Graphmem
from graphmem.eval.dataset import locomo_dir
from graphmem.ingest.validate import validate_memory
from graphmem.stores.base import MemoryStore
from graphmem.stores.neo4j import Neo4jStore
from graphmem.stores.sqlite import SQLiteStore

NS = "scale"
CHUNK = 500
STORES = ("sqlite", "neo4j")
# a bench on a shared machine must not fail on the service's request deadlines (GRAPHMEM_NEO4J_*
# still comes from the environment); the deadlines change no query and no result
NEO4J_BOUNDS = {"read_timeout": 120.0, "write_timeout": 300.0, "connection_timeout": 10.0,
                "acquisition_timeout": 30.0}        # [store.neo4j]


class ScaleEmbedder:
    """Documents: the precomputed vector of each text of the current chunk. Queries: the model,
    live, each call's time kept so the embedding is reported apart from the rest of a search."""

    def __init__(self) -> None:
        self.live = load_embedder()
        self.model_id, self.dim = self.live.model_id, self.live.dim
        self.vectors: dict[str, np.ndarray] = {}
        self.query_ms: list[float] = []

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self.vectors[t] for t in texts]) if texts else np.zeros((0, self.dim), np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        t0 = time.perf_counter()
        out = self.live.embed_query(text)
        self.query_ms.append((time.perf_counter() - t0) * 1000)
        return out


class CallTimer:
    """Seconds inside each store-contract call (outermost only) during a load: where ingest goes."""

    def __init__(self, store: MemoryStore) -> None:
        self.spent: Counter[str] = Counter()
        self.calls: Counter[str] = Counter()
        self.depth = 0
        for name in (n for n, v in vars(MemoryStore).items() if not n.startswith("_") and callable(v)):
            setattr(store, name, self._timed(name, getattr(store, name)))

    def _timed(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            self.depth += 1
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.depth -= 1
                if self.depth == 0:
                    self.spent[name] += time.perf_counter() - t0
                    self.calls[name] += 1
        return call

    def take(self) -> dict[str, Any]:
        """The calls since the last take, most time first."""
        out = {n: {"seconds": round(t, 2), "calls": self.calls[n]} for n, t in self.spent.most_common()}
        self.spent.clear()
        self.calls.clear()
        return out


def tree_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.exists() else 0


def jvm_rss_mb(pid_file: str | None) -> float | None:
    try:
        pid = Path(pid_file or "").read_text().split()[0]
        status = Path(f"/proc/{pid}/status").read_text().splitlines()
    except (OSError, IndexError):
        return None
    return next((round(int(line.split()[1]) / 1024, 1) for line in status if line.startswith("VmRSS:")), None)


def count(engine: Graphmem) -> int:
    return engine.store.stats(NS).namespaces.get(NS, 0)


def load(engines: dict[str, Graphmem], timers: dict[str, CallTimer], embedder: ScaleEmbedder, base: Base,
         base_vecs: np.ndarray, target: int) -> dict[str, Any]:
    """Each store from what it holds to ``target``, chunk by chunk in turn; seconds per store."""
    start = {kind: count(e) for kind, e in engines.items()}
    seconds: dict[str, list[tuple[int, float]]] = {kind: [] for kind in engines}
    statuses: dict[str, dict[str, int]] = {kind: {} for kind in engines}
    for lo in range(min(start.values()), target, CHUNK):
        hi = min(target, lo + CHUNK)
        batch = items(base, lo, hi)
        limits = next(iter(engines.values())).settings.limits      # keyed by the text the model would see
        embedder.vectors = {validate_memory(it, limits, NS).content: v
                            for it, v in zip(batch, derived(base_vecs, lo, hi - lo), strict=True)}
        for kind, engine in engines.items():
            if start[kind] >= hi:
                continue
            t0 = time.perf_counter()
            for r in engine.add_batch(batch, NS).results:
                statuses[kind][r.status] = statuses[kind].get(r.status, 0) + 1
            seconds[kind].append((hi - lo, time.perf_counter() - t0))
        if hi % 10_000 == 0:
            print({"loaded": hi, "utc": time.strftime("%H:%M:%S", time.gmtime()),
                   **{k: round(sum(n for n, _ in s) / max(1e-9, sum(t for _, t in s)), 1)
                      for k, s in seconds.items()}}, flush=True)
    out: dict[str, Any] = {}
    for kind, chunks in seconds.items():
        if not chunks:
            continue
        n, took = sum(c[0] for c in chunks), sum(c[1] for c in chunks)
        tail = chunks[-max(1, len(chunks) // 10):]
        calls = timers[kind].take()
        out[kind] = {"memories": n, "seconds": round(took, 1), "per_s": round(n / took, 1),
                     "last_tenth_per_s": round(sum(c[0] for c in tail) / sum(c[1] for c in tail), 1),
                     "from": start[kind], "statuses": statuses[kind], "store_calls": calls,
                     "outside_store_seconds": round(took - sum(c["seconds"] for c in calls.values()), 2)}
    if "sqlite" in out and "neo4j" in out:
        out["neo4j_vs_sqlite"] = round(out["neo4j"]["per_s"] / out["sqlite"]["per_s"], 3)
    return out


def timed_search(engine: Graphmem, embedder: ScaleEmbedder, query: str) -> dict[str, Any]:
    before = len(embedder.query_ms)
    t0 = time.perf_counter()
    outcome = engine.search_outcome(query, NS, 10)
    ms = (time.perf_counter() - t0) * 1000
    return {"ms": ms, "embed": sum(embedder.query_ms[before:]),
            "stages": {row["stage"]: row["ms"] for row in outcome.trace["stages"]}}


def timed(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1000


def summary(runs: list[dict[str, Any]], floor_ms: list[float]) -> dict[str, Any]:
    stages = sorted({s for r in runs for s in r["stages"]})
    whole = latency_summary([r["ms"] for r in runs])
    floor = latency_summary(floor_ms)
    return {"search": whole, "embed_query": latency_summary([r["embed"] for r in runs]),
            "without_embedding": latency_summary([r["ms"] - r["embed"] for r in runs]),
            "stages": {s: latency_summary([r["stages"].get(s, 0.0) for r in runs]) for s in stages},
            "floor": floor, "ratio_p50": round(whole["p50_ms"] / floor["p50_ms"], 3),
            "ratio_p95": round(whole["p95_ms"] / floor["p95_ms"], 3),
            "ratio_per_query_p50": round(statistics.median(r["ms"] / f for r, f in zip(runs, floor_ms,
                                                                                       strict=True)), 3)}


def measure(engines: dict[str, Graphmem], embedder: ScaleEmbedder, queries: list[str], warm: int,
            repeats: int) -> dict[str, Any]:
    floors = {kind: Floor(embedder, e.store, NS) for kind, e in engines.items()}   # type: ignore[arg-type]
    for q in queries[:warm]:                  # plans, caches and the vector matrix: not timed
        for kind, engine in engines.items():
            floors[kind].search(q)
            engine.search_outcome(q, NS, 10)
    per_pass = (len(queries) - warm) // repeats
    runs: dict[str, list[dict[str, Any]]] = {k: [] for k in engines}
    floor_ms: dict[str, list[float]] = {k: [] for k in engines}
    passes = []
    for p in range(repeats):
        load_before = os.getloadavg()[0]
        for q in queries[warm + p * per_pass:warm + (p + 1) * per_pass]:
            for kind, engine in engines.items():           # in turn: the same load for all four
                floor_ms[kind].append(timed(lambda q=q, kind=kind: floors[kind].search(q)))
                runs[kind].append(timed_search(engine, embedder, q))
        passes.append({"loadavg_1m": [round(load_before, 2), round(os.getloadavg()[0], 2)], "queries": per_pass})
    out: dict[str, Any] = {"passes": passes}
    for kind in engines:
        out[kind] = {"floor_arms": floors[kind].arms, **summary(runs[kind], floor_ms[kind])}
    if len(engines) == 2:
        out["neo4j_vs_sqlite_p50"] = round(out["neo4j"]["search"]["p50_ms"] / out["sqlite"]["search"]["p50_ms"], 3)
    return out


def sizes_and_memory(engines: dict[str, Graphmem], data_dir: Path, args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if "sqlite" in engines:
        engines["sqlite"].store.vectors.save()      # type: ignore[attr-defined]
        stats = engines["sqlite"].store.stats(NS)
        out["sqlite"] = {"memories": stats.namespaces.get(NS, 0), "edges": stats.edges, "memory": memory_mb(),
                         "disk_bytes": tree_bytes(data_dir) - tree_bytes(data_dir / "base-vectors.npy")}
    if "neo4j" in engines:
        stats = engines["neo4j"].store.stats(NS)
        out["neo4j"] = {"memories": stats.namespaces.get(NS, 0), "edges": stats.edges,
                        "memory": {"server_rss_mb": jvm_rss_mb(args.neo4j_pid_file)},
                        "disk_bytes": tree_bytes(Path(args.neo4j_home)) if args.neo4j_home else None,
                        "disk_note": "the whole server's data dir (every namespace, transaction logs)"}
    return out


def main() -> None:
    global NS
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--stores", default="sqlite,neo4j")
    parser.add_argument("--queries", type=int, default=200, help="timed per store, over all passes")
    parser.add_argument("--repeats", type=int, default=2, help="search passes (each with new queries)")
    parser.add_argument("--warm", type=int, default=5)
    parser.add_argument("--data-dir", default="/tmp/graphmem-scale-neo4j", help="the embedded store (kept)")
    parser.add_argument("--neo4j-home", default=None, help="the Neo4j server's data dir, for its disk use")
    parser.add_argument("--neo4j-pid-file", default=None, help="the Neo4j server's pid file, for its RSS")
    parser.add_argument("--out-prefix", default="bench/results/scale-neo4j")
    parser.add_argument("--namespace", default=NS, help="the namespace both stores load into")
    args = parser.parse_args()
    NS = args.namespace
    facts = run_facts()
    data_dir = Path(args.data_dir)
    settings = load_settings(overrides={"store": {"data_dir": str(data_dir)}}, use_env=False)
    embedder = ScaleEmbedder()
    kinds = [k for k in args.stores.split(",") if k in STORES]
    stores = {"sqlite": lambda: SQLiteStore(data_dir, settings.store),
              "neo4j": lambda: Neo4jStore(load_settings(overrides={"store": {"neo4j": NEO4J_BOUNDS}}).store)}
    engines = {k: Graphmem(settings, stores[k](), embedder) for k in kinds}   # type: ignore[arg-type]
    timers = {k: CallTimer(e.store) for k, e in engines.items()}
    base = Base(locomo_dir())
    data_dir.mkdir(parents=True, exist_ok=True)
    base_vecs = base.vectors(data_dir / "base-vectors.npy")
    try:
        for size in sorted(int(s) for s in args.sizes.split(",")):
            report: dict[str, Any] = {"facts": facts, "size": size, "namespace": NS, "stores": kinds,
                                      "load_path": "Graphmem.add_batch, 500 a batch, precomputed document "
                                                   "vectors (bench/scale_vectors.derived), the stores in turn",
                                      "neo4j_request_bounds": NEO4J_BOUNDS,
                                      "loadavg_before_load": [round(x, 2) for x in os.getloadavg()]}
            report["load"] = load(engines, timers, embedder, base, base_vecs, size)
            report["loadavg_before_search"] = [round(x, 2) for x in os.getloadavg()]
            queries = queries_for(base, size, args.warm + args.queries, seed=size + 1)
            report["search"] = measure(engines, embedder, queries, args.warm, args.repeats)
            report["loadavg_after"] = [round(x, 2) for x in os.getloadavg()]
            report["stores_at_size"] = sizes_and_memory(engines, data_dir, args)
            save_report(f"{args.out_prefix}-{size}.json", report)
            print({"size": size, "saved": f"{args.out_prefix}-{size}.json"}, flush=True)
    finally:
        for engine in engines.values():
            engine.close()


if __name__ == "__main__":
    main()
