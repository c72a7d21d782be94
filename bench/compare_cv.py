"""Paired held-out differences between families of two CV reports on the same queries and folds.

Why: two embedding models are two tune_eval runs; their ``held_out_per_query`` rows pair query by
query, so a difference gets a paired stratified bootstrap interval, overall and per category.

    python -m bench.compare_cv bench/results/cv/multihop-e5-small.json:hybrid_context \\
        bench/results/cv/multihop-minilm.json:default --output bench/results/cv-compare/e5-hc-minilm-default.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from bench.meta import commit_of, write_result
from graphmem.eval import cv

METRICS = ("recall@10", "ndcg@10", "answer@10")


def side(spec: str) -> tuple[Path, dict[str, Any], str]:
    path, _, family = spec.rpartition(":")
    return Path(path), json.loads(Path(path).read_text()), family


def compare(a: dict[str, Any], fa: str, b: dict[str, Any], fb: str, n_boot: int) -> dict[str, Any]:
    """a's family minus b's, per metric, overall and per category (b's groups and categories)."""
    rows_a, rows_b = a["families"][fa]["held_out_per_query"], b["families"][fb]["held_out_per_query"]
    if set(rows_a) != set(rows_b):
        raise SystemExit("the two reports do not hold the same queries")
    groups, cats = b["protocol"]["groups"], b["protocol"]["categories"]
    out: dict[str, Any] = {m: cv.interval(rows_a, groups, m, baseline=rows_b, n=n_boot) for m in METRICS}
    out["by_category"] = {}
    for cat, ids in cats.items():
        keep = set(ids)
        sub = {g: [q for q in qs if q in keep] for g, qs in groups.items()}
        out["by_category"][cat] = {m: cv.interval(rows_a, {g: q for g, q in sub.items() if q}, m,
                                                  baseline=rows_b, n=n_boot) for m in METRICS}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a", help="report.json:family")
    ap.add_argument("b", help="report.json:family (the baseline)")
    ap.add_argument("--output", type=Path, required=True)
    ap.add_argument("--bootstrap", type=int, default=2000)
    args = ap.parse_args()
    (pa, a, fa), (pb, b, fb) = side(args.a), side(args.b)
    report = {"a": {"report": str(pa), "model": a["model"], "family": fa,
                                        "commit": commit_of(a)},
              "b": {"report": str(pb), "model": b["model"], "family": fb,
                    "commit": commit_of(b)},
              "data_sha256": b["provenance"]["data_sha256"], "difference": compare(a, fa, b, fb, args.bootstrap)}
    write_result(args.output, report)
    d = report["difference"]
    print(f"{a['model']} {fa} - {b['model']} {fb}: R@10 {d['recall@10']['mean']:+.3f} {d['recall@10']['ci95']}")


if __name__ == "__main__":
    main()
