"""Cost of each embedding model on this machine: query embedding latency and ingest rate.

Why: the model choice weighs quality (bench/tune_eval.py --cv) against what each model costs
per search (one query embedding) and per write (document embedding + linking). Texts are
real LoCoMo turns and questions (read in place from ../shared), so token lengths are
realistic. Each figure is measured ``--rounds`` times, the models taking turns within each
round (the machine is shared: the median and the spread are reported, with the load average).

    PYTHONPATH=. python -m bench.bench_models            # writes bench/results/models.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from bench.meta import pct, write_result
from graphmem.config import load_settings
from graphmem.embedding.embedder import load_embedder
from graphmem.embedding.models import MODELS
from graphmem.embedding.prepare import ensure_model
from graphmem.engine import Graphmem
from graphmem.eval.dataset import locomo_dir, read_jsonl
from graphmem.stores.sqlite import SQLiteStore

ROOT = Path(__file__).resolve().parents[1]


def spread(values: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(values), 2), "min": round(min(values), 2),
            "max": round(max(values), 2), "runs": [round(v, 2) for v in values]}


def query_round(emb, questions: list[str]) -> tuple[float, float]:
    """(p50, p95) ms of embedding each question once."""
    lat = []
    for q in questions:
        t0 = time.perf_counter()
        emb.embed_query(q)
        lat.append((time.perf_counter() - t0) * 1000)
    return pct(lat, 0.50), pct(lat, 0.95)


def ingest_round(emb, turns: list[dict]) -> float:
    """Memories/s through the normal batch ingest path (embed + dedupe + link + save)."""
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(overrides={"store": {"data_dir": tmp}}, use_env=False)
        engine = Graphmem(settings, SQLiteStore(Path(tmp), settings.store), emb)
        items = [{"content": t["content"], "tags": t["tags"], "category": t["category"],
                  "source": t["source"]} for t in turns]
        t0 = time.perf_counter()
        for start in range(0, len(items), 100):
            engine.add_batch(items[start:start + 100], "bench")
        rate = len(items) / (time.perf_counter() - t0)
        engine.close()
    return rate


def measure(models: list[str], turns: list[dict], questions: list[str], rounds: int) -> list[dict]:
    """Rounds are interleaved (round r measures every model in turn), so a change of load on
    the shared machine falls on every model alike instead of on whichever ran last."""
    embedders = {}
    for model in models:
        ensure_model(model=model)
        embedders[model] = load_embedder(model)
        for q in questions[:10]:
            embedders[model].embed_query(q)                      # warm-up
    runs: dict[str, dict[str, list[float]]] = {m: {"p50": [], "p95": [], "ingest": [], "load": []} for m in models}
    for _ in range(rounds):
        for model, emb in embedders.items():
            p50, p95 = query_round(emb, questions)
            runs[model]["p50"].append(p50)
            runs[model]["p95"].append(p95)
            runs[model]["ingest"].append(ingest_round(emb, turns))
            runs[model]["load"].append(os.getloadavg()[0])
    return [{"model": emb.model_id, "dim": emb.dim, "query_embedding_ms_p50": spread(runs[m]["p50"]),
             "query_embedding_ms_p95": spread(runs[m]["p95"]), "ingest_memories_per_s": spread(runs[m]["ingest"]),
             "loadavg_1min_after_each_round": [round(x, 2) for x in runs[m]["load"]]}
            for m, emb in embedders.items()]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--memories", type=int, default=300)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "models.json")
    args = ap.parse_args()
    base = locomo_dir()
    turns = read_jsonl(base / "memories.jsonl")[:args.memories]
    questions = [q["text"] for q in read_jsonl(base / "queries_no_adv.jsonl")[:args.queries]]
    load = [os.getloadavg()[0]]
    results = measure(args.models.split(","), turns, questions, args.rounds)
    load.append(os.getloadavg()[0])
    for row in results:
        print(json.dumps(row), flush=True)
    out = {"cpu_count": os.cpu_count(), "loadavg_1min": [round(x, 2) for x in load],
           "note": "shared 2-core machine: other jobs ran meanwhile; compare models within this file only",
           "memories": len(turns), "queries": len(questions), "rounds": args.rounds, "models": results}
    write_result(args.out, out, inputs=[base / "memories.jsonl", base / "queries_no_adv.jsonl"],
                 config=vars(args) | {"out": str(args.out)})
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
