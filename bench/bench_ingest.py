"""Bulk import rate on the embedded store, through ``import_jsonl`` (what
``graphmem import`` runs): with cached embeddings, and end to end with live embedding next to
the embedder's own documents/s in the same run.

Why ratios: the machine is shared, so absolute rates swing with load; ingest and embedder
timed in the same repeat, back to back, give a ratio that holds better. Insert cost is the
per-memory time of the chunks written near the end of the cached run against the chunks
written at about 1k memories (``--flat-at``). Usage:
    python -m bench.bench_ingest --n 10000 --live-n 1000 --repeat 3 [--out bench/results/ingest.json]
    python -m bench.bench_ingest --n 10000 --profile [--out bench/results/profile-ingest-10k.json]
      (one cached import under cProfile: where the time goes, no live runs)
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
from pathlib import Path

from bench.corpus import make_memories
from bench.meta import run_facts, summarize_runs
from bench.profile_search import top
from graphmem.config import load_settings
from graphmem.embedding.embedder import load_embedder
from graphmem.embedding.prepare import ensure_model
from graphmem.engine import Graphmem
from graphmem.ingest import bulk
from graphmem.stores.sqlite import SQLiteStore


class ChunkTimer:
    """Wraps an engine: records (memories in the store before, seconds) per chunk written
    (``add_prepared``: linking and writing; with overlap the embedding runs beside it)."""

    def __init__(self, engine: Graphmem) -> None:
        self.engine, self.settings, self.chunks, self.held = engine, engine.settings, [], 0

    def add_prepared(self, prepared, progress=None):
        t0 = time.perf_counter()
        out = self.engine.add_prepared(prepared, progress)
        self.chunks.append((self.held, len(out), time.perf_counter() - t0))
        self.held += len(out)
        return out

    def __getattr__(self, name):
        return getattr(self.engine, name)


def write_jsonl(path: Path, corpus: list[dict]) -> Path:
    path.write_text("".join(json.dumps(m) + "\n" for m in corpus), encoding="utf-8")
    return path


def import_once(tmp: Path, embedder, path: Path, batch_size: int, tag: str,
                overlap: bool = True) -> tuple[float, ChunkTimer]:
    data = tmp / f"store-{tag}"
    settings = load_settings(overrides={"store": {"data_dir": str(data)}, "ingest": {"import_overlap": overlap}},
                             use_env=False)
    engine = ChunkTimer(Graphmem(settings, SQLiteStore(data), embedder))
    t0 = time.perf_counter()
    summary = bulk.import_jsonl(engine, path, namespace="bench", batch_size=batch_size)
    seconds = time.perf_counter() - t0
    assert summary["rejected"] == 0, summary["rejections"][:3]
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
    report["median_live_vs_embedder"] = round(statistics.median(r["live_vs_embedder"] for r in runs), 3)
    report["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    report["note"] = ("cached_per_s: whole import_jsonl with every embedding a cache hit; live_vs_embedder: "
                      "import rate with live embedding (ingest.import_overlap on) over embed_documents on "
                      "the same texts, same repeat; live_no_overlap_*: the same with import_overlap off; "
                      "insert_ms_*: link+write per memory at about flat_at and near n; "
                      "the median ratio is the robust figure on a loaded machine")
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(json.dumps(report, indent=2) + "\n")


def profile_cached(tmp: Path, cached, path: Path, n: int, batch_size: int, out: str, report: dict) -> None:
    """One cached import under cProfile; saves the costliest functions (cumulative and own time)."""
    prof = cProfile.Profile()
    prof.enable()
    seconds, _ = import_once(tmp, cached, path, batch_size, "profiled")
    prof.disable()
    stats = pstats.Stats(prof)
    total = max(v[3] for v in stats.stats.values())  # type: ignore[attr-defined]
    report.update({"profiled_import_s": round(seconds, 2), "profiled_per_s": round(n / seconds, 1),
                   "by_cumulative": top(stats, "cum_s", total, 45), "by_own_time": top(stats, "own_s", total, 30),
                   "loadavg_at_end": [round(x, 2) for x in os.getloadavg()]})
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(json.dumps(report, indent=2) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--live-n", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=200)
    ap.add_argument("--flat-at", type=int, default=1000)
    ap.add_argument("--out", default="bench/results/ingest.json")
    ap.add_argument("--profile", action="store_true", help="profile one cached import instead")
    args = ap.parse_args()
    ensure_model()
    tmp = Path(tempfile.mkdtemp(prefix="graphmem-ingest-"))
    report = {"facts": run_facts(), "n": args.n, "live_n": args.live_n, "repeat": args.repeat,
              "batch_size": args.batch_size, "store": "sqlite", "path": "graphmem.ingest.bulk.import_jsonl",
              "insert_cost_sizes": {"low": [args.flat_at, 2 * args.flat_at],
                                    "high": [args.n - max(args.flat_at, args.n // 10), args.n]}}
    try:
        live = load_embedder()
        corpus = make_memories(args.n)
        cached = load_embedder(cache_path=tmp / "embeddings.sqlite")
        cached.embed_documents([m["content"] for m in corpus])           # warm the cache (not timed)
        cached_path = write_jsonl(tmp / "cached.jsonl", corpus)
        if args.profile:
            profile_cached(tmp, cached, cached_path, args.n, args.batch_size, args.out, report)
            return
        live_corpus = make_memories(args.live_n, seed=99)
        live_path = write_jsonl(tmp / "live.jsonl", live_corpus)
        live.embed_documents([m["content"] for m in live_corpus[:64]])   # warm-up: session, arenas
        runs = []
        for r in range(args.repeat):
            seconds, timer = import_once(tmp, cached, cached_path, args.batch_size, f"cached-{r}")
            t0 = time.perf_counter()
            live.embed_documents([m["content"] for m in live_corpus])
            embed_s = time.perf_counter() - t0
            live_s, _ = import_once(tmp, live, live_path, args.batch_size, f"live-{r}")
            serial_s, _ = import_once(tmp, live, live_path, args.batch_size, f"serial-{r}", overlap=False)
            end = args.n - max(args.flat_at, args.n // 10)
            at_lo = per_memory_ms(timer.chunks, args.flat_at, 2 * args.flat_at)
            at_hi = per_memory_ms(timer.chunks, end, args.n)
            runs.append({"cached_per_s": args.n / seconds, "embedder_docs_per_s": args.live_n / embed_s,
                         "live_import_per_s": args.live_n / live_s,
                         "live_vs_embedder": (args.live_n / live_s) / (args.live_n / embed_s),
                         "live_no_overlap_per_s": args.live_n / serial_s,
                         "live_no_overlap_vs_embedder": embed_s / serial_s,
                         "insert_ms_at_flat_at": at_lo, "insert_ms_at_end": at_hi,
                         "insert_cost_ratio_end_vs_flat_at": at_hi / at_lo})
            print(json.dumps({"repeat": r, **{k: round(v, 3) for k, v in runs[-1].items()}}), flush=True)
            save(args.out, report, runs)                # after each repeat: a cut-short run keeps its repeats
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(report["summary"], indent=2))


if __name__ == "__main__":
    main()
