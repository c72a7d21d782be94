"""Bulk import rate through ``import_jsonl`` (what ``graphmem import`` runs), on the embedded
store and on Neo4j: with cached embeddings, and end to end with live embedding next to the
embedder's own documents/s in the same repeat; plain memories or thread turns (FOLLOWS edges
and context windows kept with every write).

Why ratios: the machine is shared, so absolute rates swing with load; ingest and embedder
timed in the same repeat, back to back, give a ratio that holds better. Insert cost is the
per-memory time of the chunks written near the end of the cached run against the chunks
written at about 1k memories (``--flat-at``). Neo4j is the one the GRAPHMEM_NEO4J_* environment
names (``docker/neo4j-local/neo4j-local start --data DIR --port auto`` prints it). Usage:
    python -m bench.bench_ingest --n 10000 --live-n 1000 --repeat 3 [--stores sqlite,neo4j]
        [--threaded none|live|all] [--live-stores sqlite] [--embed-cache FILE] [--out bench/results/ingest.json]
    python -m bench.bench_ingest --n 10000 --profile [--out bench/results/profile-ingest-10k.json]
      (one cached import on the first store under cProfile: where the time goes, no live runs)
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import shutil
import statistics
import tempfile
import time
import uuid
from pathlib import Path

from bench.meta import summarize_runs, write_result
from bench.profile_search import top
from graphmem.config import load_settings
from graphmem.embedding.embedder import load_embedder
from graphmem.embedding.prepare import ensure_model
from graphmem.engine import Graphmem
from graphmem.ingest import bulk
from graphmem.model import window_namespace
from graphmem.stores.base import MemoryStore
from graphmem.stores.sqlite import SQLiteStore
from harness.corpus import make_memories

TURNS = 20          # thread turns per conversation with --threaded


class ChunkTimer:
    """Wraps an engine: records (memories in the store before, seconds) per chunk written
    (``add_prepared``: linking and writing; with overlap the embedding runs beside it)."""

    def __init__(self, engine: Graphmem) -> None:
        self.engine, self.settings, self.held = engine, engine.settings, 0
        self.chunks: list[tuple[int, int, float]] = []

    def add_prepared(self, prepared, progress=None):
        t0 = time.perf_counter()
        out = self.engine.add_prepared(prepared, progress)
        self.chunks.append((self.held, len(out), time.perf_counter() - t0))
        self.held += len(out)
        return out

    def __getattr__(self, name):
        return getattr(self.engine, name)


def corpus_of(n: int, seed: int, threaded: bool) -> list[dict]:
    """The bench corpus; threaded: consecutive memories are the turns of ``TURNS``-turn threads."""
    corpus = make_memories(n, seed=seed)
    for mem in corpus:
        mem.pop("namespace")        # the import's namespace applies (a fresh one on Neo4j)
    if threaded:
        for i, mem in enumerate(corpus):
            mem.update(thread=f"chat-{i // TURNS:05d}", seq=i % TURNS)
    return corpus


def write_jsonl(path: Path, corpus: list[dict]) -> Path:
    path.write_text("".join(json.dumps(m) + "\n" for m in corpus), encoding="utf-8")
    return path


def import_once(tmp: Path, embedder, path: Path, batch_size: int, tag: str, store: str = "sqlite",
                overlap: bool = True) -> tuple[float, ChunkTimer]:
    data = tmp / f"store-{tag}"
    settings = load_settings(overrides={"store": {"data_dir": str(data)}, "ingest": {"import_overlap": overlap}},
                             use_env=False)
    namespace = "bench"
    backend: MemoryStore = SQLiteStore(data, load_settings(use_env=False).store)
    neo = None
    if store == "neo4j":
        from graphmem.stores.neo4j import Neo4jStore
        backend = neo = Neo4jStore(load_settings().store)   # [store] neo4j_* with the GRAPHMEM_NEO4J_* environment
        namespace = f"bench-{uuid.uuid4().hex[:8]}"
    engine = ChunkTimer(Graphmem(settings, backend, embedder))
    try:
        t0 = time.perf_counter()
        summary = bulk.import_jsonl(engine, path, namespace=namespace, batch_size=batch_size)
        seconds = time.perf_counter() - t0
        assert summary["rejected"] == 0, summary["rejections"][:3]
    finally:
        if neo is not None:
            for ns in (namespace, window_namespace(namespace)):
                neo.drop_namespace(ns)
        engine.engine.close()
        shutil.rmtree(data, ignore_errors=True)
    return seconds, engine


def per_memory_ms(chunks, lo: int, hi: int) -> float:
    picked = [(n, s) for held, n, s in chunks if lo <= held < hi]
    return 1000 * sum(s for _, s in picked) / max(1, sum(n for n, _ in picked))


def save(out: str, report: dict, runs: list[dict]) -> None:
    report["completed_repeats"] = len(runs)
    report["runs"] = [{k: round(v, 3) for k, v in run.items()} for run in runs]
    report["summary"] = summarize_runs(runs)
    ratios = [k for k in runs[0] if k.endswith("_live_vs_embedder")]
    report["median_live_vs_embedder"] = {k.split("_")[0]: round(statistics.median(r[k] for r in runs), 3)
                                         for k in ratios}
    report["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    report["note"] = ("STORE_cached_per_s: whole import_jsonl with every embedding a cache hit; "
                      "STORE_live_vs_embedder: import rate with live embedding (ingest.import_overlap on) over "
                      "embed_documents on the same texts, same repeat; neo4j_vs_sqlite_cached: the cached rates' "
                      "ratio in the same repeat; insert_ms_*: link+write per memory at about flat_at and near n; "
                      "the median ratio is the robust figure on a loaded machine")
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    write_result(out, report)


def profile_cached(tmp: Path, cached, path: Path, n: int, batch_size: int, store: str, out: str,
                   report: dict) -> None:
    """One cached import under cProfile; saves the costliest functions (cumulative and own time)."""
    prof = cProfile.Profile()
    prof.enable()
    seconds, _ = import_once(tmp, cached, path, batch_size, "profiled", store)
    prof.disable()
    stats = pstats.Stats(prof)
    total = max(v[3] for v in stats.stats.values())  # type: ignore[attr-defined]
    report.update({"profiled_store": store, "profiled_import_s": round(seconds, 2),
                   "profiled_per_s": round(n / seconds, 1),
                   "by_cumulative": top(stats, "cum_s", total, 45), "by_own_time": top(stats, "own_s", total, 30),
                   "loadavg_at_end": [round(x, 2) for x in os.getloadavg()]})
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    write_result(out, report)


def one_repeat(r: int, args, tmp: Path, stores: list[str], cached, live, cached_path: Path, live_path: Path,
               live_texts: list[str]) -> dict:
    """Each store's cached import, the embedder alone, each store's live import: back to back."""
    run: dict[str, float] = {}
    for store in stores:
        seconds, timer = import_once(tmp, cached, cached_path, args.batch_size, f"cached-{store}-{r}", store)
        end = args.n - max(args.flat_at, args.n // 10)
        at_lo = per_memory_ms(timer.chunks, args.flat_at, 2 * args.flat_at)
        at_hi = per_memory_ms(timer.chunks, end, args.n)
        run.update({f"{store}_cached_per_s": args.n / seconds, f"{store}_insert_ms_at_flat_at": at_lo,
                    f"{store}_insert_ms_at_end": at_hi})
    if len(stores) == 2:
        run["neo4j_vs_sqlite_cached"] = run["neo4j_cached_per_s"] / run["sqlite_cached_per_s"]
    if args.live_n:
        t0 = time.perf_counter()
        live.embed_documents(live_texts)
        embed_s = time.perf_counter() - t0
        run["embedder_docs_per_s"] = args.live_n / embed_s
        for store in args.live_stores.split(",") if args.live_stores else stores:
            live_s, _ = import_once(tmp, live, live_path, args.batch_size, f"live-{store}-{r}", store)
            run[f"{store}_live_import_per_s"] = args.live_n / live_s
            run[f"{store}_live_vs_embedder"] = embed_s / live_s
    return run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--live-n", type=int, default=1000, help="0: no live runs")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=200)
    ap.add_argument("--flat-at", type=int, default=1000)
    ap.add_argument("--stores", default="sqlite", help="comma-separated: sqlite, neo4j")
    ap.add_argument("--threaded", choices=["none", "live", "all"], default="none",
                    help=f"which runs hold turns of {TURNS}-turn threads (FOLLOWS edges, context windows)")
    ap.add_argument("--live-stores", default=None, help="stores of the live runs (default: --stores)")
    ap.add_argument("--embed-cache", default=None, help="keep the cached run's embedding cache in this file")
    ap.add_argument("--out", default="bench/results/ingest.json")
    ap.add_argument("--profile", action="store_true", help="profile one cached import instead")
    args = ap.parse_args()
    stores = [s.strip() for s in args.stores.split(",") if s.strip()]
    ensure_model()
    tmp = Path(tempfile.mkdtemp(prefix="graphmem-ingest-"))
    report = {"n": args.n, "live_n": args.live_n, "repeat": args.repeat,
              "batch_size": args.batch_size, "stores": stores, "threaded": args.threaded,
              "live_stores": args.live_stores or ",".join(stores),
              "context_windows": load_settings(use_env=False).context.enabled,
              "model": os.environ.get("GRAPHMEM_MODEL") or "default",
              "path": "graphmem.ingest.bulk.import_jsonl",
              "insert_cost_sizes": {"low": [args.flat_at, 2 * args.flat_at],
                                    "high": [args.n - max(args.flat_at, args.n // 10), args.n]}}
    try:
        live = load_embedder()
        corpus = corpus_of(args.n, 7, args.threaded == "all")
        cached = load_embedder(cache_path=args.embed_cache or tmp / "embeddings.sqlite")
        cached.embed_documents([m["content"] for m in corpus])           # warm the cache (not timed)
        cached_path = write_jsonl(tmp / "cached.jsonl", corpus)
        if args.profile:
            profile_cached(tmp, cached, cached_path, args.n, args.batch_size, stores[0], args.out, report)
            return
        live_corpus = corpus_of(args.live_n, 99, args.threaded != "none")
        live_path = write_jsonl(tmp / "live.jsonl", live_corpus)
        live_texts = [m["content"] for m in live_corpus]
        live.embed_documents(live_texts[:64])   # warm-up: session, arenas
        runs = []
        for r in range(args.repeat):
            runs.append(one_repeat(r, args, tmp, stores, cached, live, cached_path, live_path, live_texts))
            print(json.dumps({"repeat": r, **{k: round(v, 3) for k, v in runs[-1].items()}}), flush=True)
            save(args.out, report, runs)                # after each repeat: a cut-short run keeps its repeats
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(report["summary"], indent=2))


if __name__ == "__main__":
    main()
