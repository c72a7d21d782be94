"""Cached bulk load into the embedded store at scale: the public ``add_batch`` path, precomputed vectors.

Why: a bulk import with cached vectors must stay fast as the store grows (>= 600 memories/s flat,
>= 300/s as 20-turn threads with context windows). This loads the scale bench's memories
(``bench_scale_1m.items``: LoCoMo sentences with renamed speakers, vectors from
``bench/scale_vectors.derived``) through ``Graphmem.add_batch`` with an embedder that returns the
precomputed vector of each text (the embedding cache's part, without its SQLite reads), and records
the rate per tenth of the target, each with the load average of the machine while it ran.

Shapes: ``threads``: each memory is a turn of a 25-turn session (thread + seq, so FOLLOWS edges and
context windows are written); ``flat``: the same memories without thread and seq.

``--profile-at N``: one chunk loaded under cProfile once N memories are stored; the top functions
by cumulative time go into the result. Resumable: progress lives in ``<data-dir>/progress.json``.
``--copy-from DIR``: start from a copy of a store this bench or ``bench_scale_1m`` loaded (the
same memories, in the same order), so the path can be measured at 100k without loading 100k.

Usage: python -m bench.bench_load --shape flat --target 100000 [--data-dir /tmp/load-flat]
       [--chunk 500] [--profile-at 50000] [--copy-from /work/scale-flat-e5] [--sqlite row_cache=0]
       [--out bench/results/load-flat-100k.json]
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import io
import json
import os
import pstats
import shutil
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.bench_scale import disk, memory_mb
from bench.bench_scale_1m import Base, items
from bench.meta import run_facts, save_report
from bench.scale_vectors import derived
from graphmem.config import load_settings
from graphmem.engine import Graphmem
from graphmem.eval.dataset import locomo_dir
from graphmem.ingest.validate import validate_memory
from graphmem.stores.sqlite import SQLiteStore

NS = "scale"


class PrecomputedEmbedder:
    """Returns the vector set for each text (a cache that always hits); the model is never run."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self.vectors: dict[str, np.ndarray] = {}
        self.model_id = "intfloat/e5-small-v2"      # the model the base vectors came from

    def embed_documents(self, texts: Any) -> np.ndarray:
        return np.stack([self.vectors[t] for t in texts]) if len(texts) else np.zeros((0, self.dim), np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self.vectors[text]


def chunk_items(base: Base, base_vecs: np.ndarray, lo: int, hi: int, shape: str,
                embedder: PrecomputedEmbedder, limits: Any) -> list[dict[str, Any]]:
    """Memories lo..hi, their vectors handed to ``embedder`` under the text the write path embeds."""
    out = items(base, lo, hi)
    vecs = derived(base_vecs, lo, hi - lo)
    embedder.vectors = {}
    for item, vec in zip(out, vecs, strict=True):
        if shape == "flat":
            item.pop("thread")
            item.pop("seq")
        embedder.vectors.setdefault(validate_memory(item, limits, NS).content, vec)
    return out


PHASES = [("build", "graphmem.ingest.service", "Ingestor", "build"),
          ("link", "graphmem.ingest.batch", None, "link_memories"),
          ("gather", "graphmem.ingest.linker", None, "gather"),
          ("term_holders", "graphmem.stores.sqlite.store", "SQLiteStore", "term_holders"),
          ("tag_category_lists", "graphmem.stores.sqlite.store", "SQLiteStore", "tag_members_many"),
          ("degree_edges", "graphmem.stores.sqlite.store", "SQLiteStore", "edges_of"),
          ("get_memories", "graphmem.stores.sqlite.store", "SQLiteStore", "get_memories"),
          ("threads", "graphmem.ingest.threads", "ThreadKeeper", "plan_writes"),
          ("save_sql", "graphmem.stores.sqlite.store", "SQLiteStore", "save_batch"),
          ("lexical_catch_up", "graphmem.stores.sqlite.lexical", "LexicalIndex", "catch_up")]


class PhaseTimer:
    """Seconds spent in a few functions of the write path, per chunk (wrappers set on their
    module or class: a bench-only measurement, the code itself is unchanged)."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = {}
        for phase, module_name, owner_name, attr in PHASES:
            module = importlib.import_module(module_name)
            owner = getattr(module, owner_name) if owner_name else module
            setattr(owner, attr, self._wrap(phase, getattr(owner, attr)))

    def _wrap(self, phase: str, fn: Any) -> Any:
        def timed(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.spent[phase] = self.spent.get(phase, 0.0) + time.perf_counter() - t0
        return timed

    def take(self) -> dict[str, float]:
        out = {k: round(v, 4) for k, v in self.spent.items()}
        self.spent = {}
        return out


def profile_chunk(engine: Graphmem, batch: list[dict[str, Any]]) -> tuple[float, str]:
    profiler = cProfile.Profile()
    t0 = time.perf_counter()
    profiler.enable()
    engine.add_batch(batch, NS)
    profiler.disable()
    took = time.perf_counter() - t0
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(45)
    return took, text.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shape", choices=("flat", "threads"), default="flat")
    parser.add_argument("--target", type=int, default=100_000)
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--chunk", type=int, default=500)
    parser.add_argument("--profile-at", type=int, default=None)
    parser.add_argument("--synchronous", default="NORMAL")
    parser.add_argument("--base-vectors", default=None,
                        help="a saved base-vectors.npy (else made in the data dir)")
    parser.add_argument("--copy-from", default=None, help="replace the data dir with a copy of this one first")
    parser.add_argument("--sqlite", action="append", default=[], metavar="KEY=VALUE",
                        help="a [store.sqlite] key for this run (an integer value), e.g. row_cache=0")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    sqlite_keys: dict[str, Any] = {"synchronous": args.synchronous}
    for pair in args.sqlite:
        key, _, value = pair.partition("=")
        sqlite_keys[key] = int(value)
    path = Path(args.data_dir or f"/tmp/graphmem-load-{args.shape}")
    if args.copy_from:
        shutil.rmtree(path, ignore_errors=True)
        shutil.copytree(args.copy_from, path)
    path.mkdir(parents=True, exist_ok=True)
    progress_file = path / "progress.json"
    progress: dict[str, Any] = json.loads(progress_file.read_text()) if progress_file.exists() else {
        "loaded": 0, "chunks": [], "statuses": {}}
    progress["chunks"] = [c for c in progress.get("chunks", []) if len(c) == 4]    # this bench's (not a copy's)
    progress.setdefault("statuses", {})
    base = Base(locomo_dir())
    base_vecs = base.vectors(Path(args.base_vectors) if args.base_vectors else path / "base-vectors.npy")
    settings = load_settings(overrides={"store": {"data_dir": str(path), "sqlite": sqlite_keys}}, use_env=False)
    store = SQLiteStore(path, settings.store)
    embedder = PrecomputedEmbedder(base_vecs.shape[1])
    engine = Graphmem(settings, store, embedder)    # type: ignore[arg-type]
    timer = PhaseTimer()
    facts = run_facts()
    report: dict[str, Any] = {"facts": facts, "shape": args.shape, "target": args.target, "chunk": args.chunk,
                              "synchronous": args.synchronous, "sqlite": sqlite_keys,
                              "load_path": "Graphmem.add_batch, precomputed "
                              "vectors (an embedder returning each text's vector)"}
    try:
        while progress["loaded"] < args.target:
            lo = progress["loaded"]
            hi = min(args.target, lo + args.chunk)
            batch = chunk_items(base, base_vecs, lo, hi, args.shape, embedder, settings.limits)
            if args.profile_at is not None and lo >= args.profile_at and "profile" not in progress:
                took, text = profile_chunk(engine, batch)
                progress["profile"] = {"at": lo, "seconds": round(took, 3), "top_cumulative": text}
                print(text, flush=True)
            else:
                t0 = time.perf_counter()
                results = engine.add_batch(batch, NS).results
                took = time.perf_counter() - t0
                for r in results:
                    progress["statuses"][r.status] = progress["statuses"].get(r.status, 0) + 1
            progress["chunks"].append([hi, round(took, 4), round(os.getloadavg()[0], 2), timer.take()])
            progress["loaded"] = hi
            if hi % 5000 == 0 or hi == args.target:
                progress_file.write_text(json.dumps(progress))
                recent = progress["chunks"][-10:]
                rate = len(recent) * args.chunk / sum(c[1] for c in recent)
                print(json.dumps({"loaded": hi, "rate_per_s": round(rate, 1), "load1": recent[-1][2],
                                  "phases": recent[-1][3], "utc": time.strftime("%H:%M:%S", time.gmtime())}),
                      flush=True)
    finally:
        progress_file.write_text(json.dumps(progress))
        engine.close()
    profiled = progress.get("profile", {}).get("at", -1) + args.chunk     # its time is cProfile's, left out
    chunks = [c for c in progress["chunks"] if c[0] != profiled]
    short = args.chunk - args.target % args.chunk if args.target % args.chunk else 0     # the last chunk's gap
    deciles = []
    step = max(1, args.target // 10)
    for d in range(10):
        part = [c for c in chunks if d * step < c[0] <= (d + 1) * step]
        if part:
            n = len(part) * args.chunk - (short if part[-1][0] == args.target else 0)
            phases = {k: round(sum(c[3].get(k, 0.0) for c in part) / len(part), 3) for k, *_ in PHASES}
            deciles.append({"up_to": part[-1][0], "rate_per_s": round(n / sum(c[1] for c in part), 1),
                            "seconds_per_chunk": round(sum(c[1] for c in part) / len(part), 3),
                            "phase_seconds_per_chunk": phases,
                            "loadavg_1m_mean": round(float(np.mean([c[2] for c in part])), 2)})
    report.update({"loaded": progress["loaded"], "statuses": progress["statuses"], "rate_per_decile": deciles,
                   "seconds": round(sum(c[1] for c in chunks), 1), "memory": memory_mb(), "disk": disk(path),
                   "loadavg_at_end": [round(x, 2) for x in os.getloadavg()]})
    if "profile" in progress:
        report["profile"] = progress["profile"]
    print(json.dumps({k: v for k, v in report.items() if k != "profile"}, indent=1))
    if args.out:
        save_report(args.out, report)


if __name__ == "__main__":
    main()
