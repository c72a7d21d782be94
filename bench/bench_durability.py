"""The cost of durable commits in the embedded store: synchronous=FULL
(the default: an acknowledged write survives power loss) against NORMAL, in one run.

Each write is its own transaction as behind ``POST /v1/memories``: the engine figures include
validation, linking and the commit (embeddings come from a warmed cache, so the model is not
timed); the store figures are the bare ``save_memory`` commit. Modes alternate round by round
on fresh data dirs; the report gives per-round medians and their median and spread. Usage:
    python -m bench.bench_durability [--n 300] [--rounds 5] [--out bench/results/durability.json]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from bench.meta import pct, write_result
from graphmem.config import load_settings
from graphmem.embedding.embedder import load_embedder
from graphmem.embedding.prepare import ensure_model
from graphmem.engine import Graphmem
from graphmem.stores.sqlite import SQLiteStore
from harness.corpus import make_memories

MODES = ("FULL", "NORMAL")


def one_round(mode: str, corpus: list[dict], embedder, root: Path) -> dict:
    data_dir = root / f"{mode}-{time.monotonic_ns()}"
    settings = load_settings(overrides={"store": {"data_dir": str(data_dir), "sqlite": {"synchronous": mode}}},
                             use_env=False)
    engine = Graphmem(settings, SQLiteStore(data_dir, settings.store), embedder)
    engine_ms = []
    for item in corpus:
        t0 = time.perf_counter()
        engine.add(item)
        engine_ms.append((time.perf_counter() - t0) * 1000)
    stored = [m for batch in engine.store.iter_memories("default") for m in batch]
    bare = SQLiteStore(root / f"{mode}-bare-{time.monotonic_ns()}", settings.store)
    bare.ensure_schema(embedder.model_id, embedder.dim)
    store_ms = []
    for mem in stored:
        t0 = time.perf_counter()
        bare.save_memory(mem, [], [])
        store_ms.append((time.perf_counter() - t0) * 1000)
    engine.close()
    bare.close()
    return {"engine_add_p50_ms": pct(engine_ms, 0.5), "engine_add_p95_ms": pct(engine_ms, 0.95),
            "engine_adds_per_s": len(engine_ms) / (sum(engine_ms) / 1000),
            "store_commit_p50_ms": pct(store_ms, 0.5), "store_commit_p95_ms": pct(store_ms, 0.95)}


def summarise(rounds: list[dict]) -> dict:
    return {key: {"median": round(statistics.median(r[key] for r in rounds), 3),
                  "min": round(min(r[key] for r in rounds), 3), "max": round(max(r[key] for r in rounds), 3)}
            for key in rounds[0]}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=300, help="writes per round and mode")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", default="bench/results/durability.json")
    args = parser.parse_args()
    ensure_model()
    root = Path(tempfile.mkdtemp(prefix="graphmem-durability-"))
    embedder = load_embedder(cache_path=root / "embeddings.sqlite")
    corpus = [{k: v for k, v in m.items() if k != "namespace"} for m in make_memories(args.n)]
    embedder.embed_documents([m["content"] for m in corpus])          # warm: the model is not timed
    runs: dict[str, list[dict]] = {mode: [] for mode in MODES}
    for r in range(args.rounds):
        for mode in MODES if r % 2 == 0 else reversed(MODES):
            runs[mode].append(one_round(mode, corpus, embedder, root))
    filesystem = subprocess.run(["df", "-T", str(root)], capture_output=True, text=True).stdout.split("\n")[1:2]
    shutil.rmtree(root, ignore_errors=True)
    report = {"n": args.n, "rounds": args.rounds,
              "filesystem": " ".join(filesystem[0].split()[:2]) if filesystem else "unknown",
              **{mode: summarise(runs[mode]) for mode in MODES}}
    full, normal = report["FULL"], report["NORMAL"]
    report["cost"] = {
        "engine_add_p50_ms_extra": round(full["engine_add_p50_ms"]["median"]
                                         - normal["engine_add_p50_ms"]["median"], 3),
        "engine_throughput_ratio": round(full["engine_adds_per_s"]["median"]
                                         / normal["engine_adds_per_s"]["median"], 3),
        "store_commit_p50_ms_extra": round(full["store_commit_p50_ms"]["median"]
                                           - normal["store_commit_p50_ms"]["median"], 3)}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    write_result(args.out, report)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
