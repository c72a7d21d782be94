"""Precision and recall of the supersession-candidate rule (graphmem/ingest/supersede_candidates.py)
on the labelled memory-update pairs of tests/fixtures/supersede/pairs.jsonl (labels written before
the rule ran): each pair's two memories are embedded with the real model and the rule is asked
whether the newer may supersede the older, under the ``[supersede]`` thresholds of defaults.toml
for that model (``min_cosine_by_model``, derived without these pairs: bench_supersede_calibration).

The scenario lives in ``harness/supersede_pairs.py`` (the tests run it too); this runs it at full length and
saves its figures with ``bench.meta.write_result``. Also ``python -m bench supersede-candidates``.

    python -m bench.bench_supersede_candidates [--model NAME] [--out bench/results/supersede_candidates.json]
"""

from __future__ import annotations

import argparse
from dataclasses import replace

from bench.meta import ROOT, provenance, write_result
from graphmem.config import load_settings
from graphmem.embedding.embedder import load_embedder
from graphmem.embedding.prepare import ensure_model
from harness.supersede_pairs import PAIRS, load_pairs, memories, score


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=None, help="[model] name (default: the shipped model)")
    ap.add_argument("--out", default=str(ROOT / "bench/results/supersede_candidates.json"))
    args = ap.parse_args()
    started = provenance()
    settings = load_settings(use_env=False, overrides={"model": {"name": args.model}} if args.model else None)
    cfg = settings.supersede
    ensure_model(model=settings.model.name)
    pairs = load_pairs()
    embedder = load_embedder(settings.model.name)
    built = memories(pairs, embedder)
    report = {"model": embedder.model_id, "pairs": len(pairs),
              "positives": sum(p["supersedes"] for p in pairs),
              "fixture": str(PAIRS.relative_to(ROOT)),
              "thresholds": {"min_cosine": cfg.min_cosine, "min_term_overlap": cfg.min_term_overlap},
              "defaults": score(built, cfg),
              "sweep": [{"min_cosine": c, "min_term_overlap": o,
                         **{k: v for k, v in score(built, replace(cfg, min_cosine=c, min_term_overlap=o)).items()
                            if k != "mistakes"}}
                        for c in sorted({0.7, 0.8, 0.9, 0.95, cfg.min_cosine}) for o in (0.3, 0.4, 0.5, 0.6)]}
    write_result(args.out, report, started=started)
    d = report["defaults"]
    print(f"precision {d['precision']}  recall {d['recall']}  (tp {d['true_positives']} fp {d['false_positives']} "
          f"fn {d['false_negatives']}) -> {args.out}")


if __name__ == "__main__":
    main()
