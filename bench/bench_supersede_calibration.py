"""The supersession-candidate cosine floor carried from one embedding model to another without the
labelled pairs: the same quantile of the cosines of memory pairs the rule compares (they share a
tag or the category).

Why: ``[supersede] min_cosine = 0.8`` was set for all-MiniLM-L6-v2 before any measurement; e5-small-v2
puts unrelated sentences at 0.8 already (its cosines run on a compressed, higher scale), so the same
number admits far more look-alikes. The floor for another model is the cosine at the quantile where
0.8 sits for the reference model, over the memories of tests/fixtures/agent_memory and
tests/fixtures/quality_blind (no supersession labels there; tests/fixtures/supersede/pairs.jsonl
is not read), so the labelled set stays a test set. A z-score mapping is reported beside it.

    python -m bench.bench_supersede_calibration [--out bench/results/supersede_calibration.json]
"""

from __future__ import annotations

import argparse
import itertools
import json

import numpy as np

from bench.meta import ROOT, provenance, write_result
from graphmem.config import load_settings
from graphmem.embedding.embedder import load_embedder
from graphmem.embedding.prepare import ensure_model
from graphmem.text import normalize_category, normalize_tag

REFERENCE = "sentence-transformers/all-MiniLM-L6-v2"
TARGETS = ("intfloat/e5-small-v2",)
CORPORA = ("tests/fixtures/agent_memory/memories.jsonl", "tests/fixtures/quality_blind/memories.jsonl")


def labels(item: dict) -> set[tuple[str, str]]:
    out = {("tag", normalize_tag(t)) for t in item.get("tags") or []}
    if item.get("category"):
        out.add(("category", normalize_category(item["category"])))
    return out


def pair_cosines(model: str, items: list[dict], pairs: list[tuple[int, int]]) -> np.ndarray:
    ensure_model(model=model)
    vectors = np.asarray(load_embedder(model).embed_documents([i["content"] for i in items]))
    return np.array([float(vectors[a] @ vectors[b]) for a, b in pairs])


def percentiles(values: np.ndarray) -> dict[str, float]:
    return dict(zip(("p50", "p90", "p99"), np.percentile(values, [50, 90, 99]).round(4).tolist(), strict=True))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "bench/results/supersede_calibration.json"))
    args = ap.parse_args()
    started = provenance()
    floor = load_settings(use_env=False, overrides={"model": {"name": REFERENCE}}).supersede.min_cosine
    items = [json.loads(line) for path in CORPORA
             for line in (ROOT / path).read_text().splitlines() if line.strip()]
    pairs = [(a, b) for a, b in itertools.combinations(range(len(items)), 2)
             if labels(items[a]) & labels(items[b])]
    ref = pair_cosines(REFERENCE, items, pairs)
    share = float((ref < floor).mean())
    report = {"corpora": list(CORPORA), "memories": len(items), "same_label_pairs": len(pairs),
              "reference": {"model": REFERENCE, "min_cosine": floor, "quantile": round(share, 4),
                            "pairs_at_or_above": int((ref >= floor).sum()),
                            "percentiles": percentiles(ref)},
              "targets": {}}
    for model in TARGETS:
        got = pair_cosines(model, items, pairs)
        report["targets"][model] = {
            "same_quantile": round(float(np.quantile(got, share)), 4),
            "z_score": round(float(got.mean() + (floor - ref.mean()) / ref.std() * got.std()), 4),
            "share_at_or_above_reference_floor": round(float((got >= floor).mean()), 4),
            "percentiles": percentiles(got)}
    write_result(args.out, report, started=started)
    print(json.dumps(report["targets"], indent=1))


if __name__ == "__main__":
    main()
