"""Precision and recall of the supersession-candidate rule (graphmem/ingest/supersede_candidates.py)
on the labelled memory-update pairs of tests/fixtures/supersede/pairs.jsonl (labels written before
the rule ran): each pair's two memories are embedded with the real model and the rule is asked
whether the newer may supersede the older, under the ``[supersede]`` thresholds of defaults.toml
for that model (``min_cosine_by_model``, derived without these pairs: bench_supersede_calibration).


Also reports the same figures for a few other thresholds (a sweep, for the record: the defaults
were chosen before it ran), and every false positive and false negative with its spans.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from graphmem.config import SupersedeSettings
from graphmem.ingest.supersede_candidates import propose
from graphmem.model import Memory
from graphmem.text import content_hash, normalize_category, normalize_tag, term_counts
from harness import ROOT

PAIRS = ROOT / "tests/fixtures/supersede/pairs.jsonl"


def load_pairs(path: Path = PAIRS) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def memories(pairs: list[dict[str, Any]], embedder: Any) -> list[tuple[dict[str, Any], Memory, Memory]]:
    """(pair, older, newer) with real embeddings; the newer written a day after the older."""
    texts = [p[side]["content"] for p in pairs for side in ("older", "newer")]
    vectors = embedder.embed_documents(texts)

    def build(pair: dict[str, Any], side: str, vector: Any, when: str) -> Memory:
        item = pair[side]
        return Memory(id=f"{pair['id']}-{side}", namespace="bench", content=item["content"],
                      content_hash=content_hash(item["content"]), tags=[normalize_tag(t) for t in item["tags"]],
                      category=normalize_category(item["category"]), created_at=when, updated_at=when,
                      embedding=vector, term_counts=term_counts(item["content"]))

    return [(p, build(p, "older", vectors[2 * i], "2025-01-01T00:00:00.000000Z"),
             build(p, "newer", vectors[2 * i + 1], "2025-01-02T00:00:00.000000Z")) for i, p in enumerate(pairs)]


def score(built: list[tuple[dict[str, Any], Memory, Memory]], cfg: SupersedeSettings) -> dict[str, Any]:
    tp = fp = fn = tn = 0
    mistakes = []
    for pair, older, newer in built:
        found = propose(newer, older, cfg)
        said, truth = found is not None, bool(pair["supersedes"])
        tp += said and truth
        fp += said and not truth
        fn += truth and not said
        tn += not said and not truth
        if said != truth:
            mistakes.append({"id": pair["id"], "kind": pair["kind"], "label": truth,
                             "proposal": found.to_dict() if found else None})
    return {"true_positives": tp, "false_positives": fp, "false_negatives": fn, "true_negatives": tn,
            "precision": round(tp / (tp + fp), 3) if tp + fp else None,
            "recall": round(tp / (tp + fn), 3) if tp + fn else None, "mistakes": mistakes}
