"""Derive tests/eval/floors.json from saved reports (never typed in by hand).

Floors are each metric as measured, rounded *down* to 3 decimals; the tests allow
``tolerance`` below them. Sources (re-make them at HEAD first, commands in the README):

- bench/results/eval-fixture/report.json       (graphmem eval on the agent-memory fixture)
- bench/results/eval-locomo-conv26/report.json (graphmem eval --only conv-26 --by category)

    PYTHONPATH=. python -m bench.derive_floors            # rewrites tests/eval/floors.json
    PYTHONPATH=. python -m bench.derive_floors --check    # exit 1 when the file differs
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FLOORS = ROOT / "tests" / "eval" / "floors.json"
FIXTURE_REPORT = ROOT / "bench" / "results" / "eval-fixture" / "report.json"
LOCOMO_REPORT = ROOT / "bench" / "results" / "eval-locomo-conv26" / "report.json"
TOLERANCE = 0.02
FIXTURE_METRICS = {"hybrid": ("recall@5", "recall@10", "ndcg@10", "mrr"),
                   "hybrid_expansion": ("recall@5", "recall@10", "ndcg@10", "mrr"),
                   "default": ("recall@5", "recall@10", "ndcg@10", "mrr")}
LOCOMO_METRICS = {"lexical": ("recall@10", "ndcg@10", "mrr"),
                  "hybrid": ("recall@5", "recall@10", "ndcg@10", "mrr"),
                  "default": ("recall@5", "recall@10", "ndcg@10", "mrr")}


def down(value: float) -> float:
    return math.floor(value * 1000 + 1e-9) / 1000


def _source(path: Path, report: dict[str, Any]) -> dict[str, Any]:
    return {"report": str(path.relative_to(ROOT)), "command": report.get("command"),
            "commit": (report.get("provenance") or {}).get("git", {}).get("commit")}


def derive() -> dict[str, Any]:
    fixture = json.loads(FIXTURE_REPORT.read_text())
    locomo = json.loads(LOCOMO_REPORT.read_text())
    lift = fixture["lift_vs_hybrid"]["default"]["by"]["needs_related"]["true"]
    return {
        "note": "Derived by bench/derive_floors.py from the reports named under each section: every floor is "
                "the measured value rounded down to 3 decimals; tests allow `tolerance` below it. Do not edit "
                "by hand: re-make the reports and re-run the script, and say why in the commit.",
        "tolerance": TOLERANCE,
        "fixture": {
            "source": _source(FIXTURE_REPORT, fixture),
            "configs": {name: {m: down(fixture["configs"][name]["overall"][m]) for m in metrics}
                        for name, metrics in FIXTURE_METRICS.items()},
            "needs_related_lift_min": down(lift - TOLERANCE),
            "needs_related_lift_measured": round(lift, 4),
            "needs_related_lift_target": 0.30,
        },
        "locomo_conv26": {
            "source": _source(LOCOMO_REPORT, locomo),
            "configs": {name: {m: down(locomo["configs"][name]["overall"][m]) for m in metrics}
                        for name, metrics in LOCOMO_METRICS.items()},
            "default_multihop_recall@10": down(locomo["configs"]["default"]["by"]["category"]["1"]["recall@10"]),
            "targets_full_locomo_held_out": {"default_recall@10": 0.75, "default_multihop_recall@10": 0.5},
        },
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="compare with tests/eval/floors.json, write nothing")
    args = ap.parse_args()
    text = json.dumps(derive(), indent=2) + "\n"
    if args.check:
        if FLOORS.read_text() != text:
            sys.exit(f"{FLOORS} differs from the floors derived from the reports; re-run bench/derive_floors.py")
        print("floors match the reports")
        return
    FLOORS.write_text(text)
    print(f"wrote {FLOORS}")


if __name__ == "__main__":
    main()
