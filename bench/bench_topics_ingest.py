"""Ingest cost of extracted topics: import rate with cached embeddings, topics off vs on.

Three configurations, interleaved in each repeat (the machine is shared: same-repeat ratios
are the robust figure): ``off`` (``[topics] enabled = false``, the store before topics),
``extracted`` (topics extracted and indexed, not linking: ``topic_tag_weight = 0``) and
``linked`` (topics also feed SHARES_TAG, ``topic_tag_weight = 0.5``). The corpus is
locomo-dev's turns (what topics are for), imported through ``import_jsonl`` as
``graphmem import`` does, into one namespace.

    python -m bench.bench_topics_ingest --repeat 3 [--out bench/results/topics_ingest.json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from bench.bench_ingest import write_jsonl
from bench.meta import write_result
from graphmem.config import load_settings
from graphmem.embedding.embedder import load_embedder
from graphmem.embedding.prepare import ensure_model
from graphmem.engine import Graphmem
from graphmem.eval.dataset import locomo_dir
from graphmem.ingest import bulk
from graphmem.stores.sqlite import SQLiteStore
from graphmem.views import dump

CONFIGS = {"off": {"topics": {"enabled": False}},
           "extracted": {"edges": {"topic_tag_weight": 0.0}},
           "linked": {"edges": {"topic_tag_weight": 0.5}}}


def import_rate(tmp: Path, embedder, path: Path, n: int, overrides: dict, tag: str) -> tuple[float, dict]:
    data = tmp / f"store-{tag}"
    settings = load_settings(overrides={"store": {"data_dir": str(data)}, **overrides}, use_env=False)
    engine = Graphmem(settings, SQLiteStore(data, settings.store), embedder)
    t0 = time.perf_counter()
    summary = bulk.import_jsonl(engine, path, namespace="bench", batch_size=200)
    seconds = time.perf_counter() - t0
    edges = dump(engine.stats())["edges"]
    engine.close()
    shutil.rmtree(data, ignore_errors=True)
    assert summary["rejected"] == 0, summary["rejections"][:3]
    return n / seconds, edges


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default="bench/results/topics_ingest.json")
    args = ap.parse_args()
    ensure_model()
    corpus = [json.loads(line) for line in (locomo_dir() / "memories.jsonl").open()]
    for item in corpus:
        item.pop("namespace", None)
    tmp = Path(tempfile.mkdtemp(prefix="graphmem-topics-ingest-"))
    report: dict = {"corpus": "locomo-dev memories.jsonl", "n": len(corpus),
                    "repeat": args.repeat, "configs": CONFIGS}
    try:
        cached = load_embedder(cache_path=tmp / "embeddings.sqlite")
        cached.embed_documents([m["content"] for m in corpus])          # warm the cache (not timed)
        path = write_jsonl(tmp / "corpus.jsonl", corpus)
        runs: list[dict] = []
        for r in range(args.repeat):
            run: dict = {}
            for name, overrides in CONFIGS.items():
                rate, edges = import_rate(tmp, cached, path, len(corpus), overrides, f"{name}-{r}")
                run[name] = {"memories_per_s": round(rate, 2), "edges": edges}
            for name in ("extracted", "linked"):
                run[f"{name}_vs_off"] = round(run[name]["memories_per_s"] / run["off"]["memories_per_s"], 3)
            runs.append(run)
            print(json.dumps({"repeat": r, **run}), flush=True)
        report["runs"] = runs
        report["median"] = {name: {"memories_per_s": statistics.median(x[name]["memories_per_s"] for x in runs),
                                   "min": min(x[name]["memories_per_s"] for x in runs),
                                   "max": max(x[name]["memories_per_s"] for x in runs)} for name in CONFIGS}
        report["median_ratio_vs_off"] = {name: statistics.median(x[f"{name}_vs_off"] for x in runs)
                                         for name in ("extracted", "linked")}
        report["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
        write_result(args.out, report)
        print(json.dumps(report["median_ratio_vs_off"]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
