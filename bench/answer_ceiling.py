"""How often the gold answer is in the labelled evidence itself: the ceiling of answer@k for retrieval.

``answer@k`` (graphmem/eval/report.py) asks whether a query's gold answer appears in the text of its
top k results. A retriever that returned exactly the relevant turns would reach this share and no
more: an answer the turns only imply (a date worked out from the session date, a paraphrase, an
inference) is never "in" them. Per category, on locomo-dev without adversarial queries.

    python -m bench.answer_ceiling --output bench/results/answer-ceiling.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from bench.meta import write_result
from graphmem.eval.dataset import locomo_dir
from graphmem.eval.metrics import answer_covered


def ceiling(memories: Path, queries: Path) -> dict[str, Any]:
    contents = {m["id"]: m["content"] for m in map(json.loads, memories.read_text().splitlines()) if m}
    rows: dict[str, list[bool]] = {}
    for q in map(json.loads, queries.read_text().splitlines()):
        evidence = [contents.get(i, "") for i in q.get("relevant_ids", [])]
        rows.setdefault(q.get("category_name", str(q.get("category"))), []).append(
            answer_covered(str(q.get("answer", "")), evidence))
    every = [v for vs in rows.values() for v in vs]
    return {"queries": len(every), "answer_in_evidence": round(sum(every) / len(every), 4),
            "by_category": {c: {"n": len(vs), "answer_in_evidence": round(sum(vs) / len(vs), 4)}
                            for c, vs in sorted(rows.items())}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--output", type=Path, default=Path("bench/results/answer-ceiling.json"))
    args = ap.parse_args()
    base = locomo_dir()
    report = {"dataset": str(base),
              **ceiling(base / "memories.jsonl", base / "queries_no_adv.jsonl")}
    write_result(args.output, report)
    print(json.dumps({k: v for k, v in report.items() if k != "run"}, indent=1))


if __name__ == "__main__":
    main()
