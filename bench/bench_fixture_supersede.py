"""The agent-memory fixture's labelled queries before and after the supersessions its data states
(``tests/fixtures/agent_memory/supersessions.jsonl``, written from the records' text).

The fixture is ingested as ``graphmem eval`` does (same runner: ``add_batch``, ticking clock, live
query embeddings); the default recipe (health + source weighting: quality + provenance) runs over
every query, then the supersessions are applied with ``Graphmem.supersede`` and it runs again on
the same store. The fixture's records carry no times (ingest order stands in, and the stale record
happens to come last), so each newer record is first given ``valid_from`` = the moment the
supersession is applied: the correction holds from then, as when an agent records it. Nothing is
tuned, so every query is held out; intervals are bootstrap over queries.

Reported per model: MRR, hit@1 and recall@10 before / after with 95% intervals; the queries whose
reciprocal rank is below 1 after (with the first relevant rank and what ranked above it); and
``superseded_above_successor_top3``: queries where a superseded record is in the top 3 without
its successor ranked above it (target 0).

    python -m bench.bench_fixture_supersede [--model intfloat/e5-small-v2]
        [--out bench/results/fixture_supersede_e5.json]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from bench.meta import ROOT, provenance, write_result
from graphmem.eval import metrics as M
from graphmem.eval.cv import bootstrap_groups
from graphmem.eval.report import query_metrics
from graphmem.eval.runner import EvalOptions, evaluate, run_config

FIXTURE = ROOT / "tests" / "fixtures" / "agent_memory"
RECIPE = "default"
K = 10


def load_supersessions(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def ranked(runs, successor: dict[str, str]) -> dict[str, list[tuple[str, str | None]]]:
    """Each query's top K as (id, its successor by the supersessions file): the same check before
    the links are applied (how the stale record ranked) and after."""
    return {run.query_id: [(r["id"], successor.get(r["id"])) for r in run.results[:K]] for run in runs}


def above_successor(top: list[tuple[str, str | None]]) -> list[str]:
    """Superseded records in the top 3 whose successor is not ranked above them."""
    ids = [i for i, _ in top]
    return [i for pos, (i, newer) in enumerate(top[:3])
            if newer is not None and (newer not in ids or ids.index(newer) > pos)]


def summarize(runs, relevance: dict[str, dict[str, float]], tops) -> dict[str, Any]:
    rows = {r.query_id: query_metrics(r, relevance[r.query_id], K, K) for r in runs}
    out: dict[str, Any] = {}
    for metric in ("mrr", "hit@1", f"recall@{K}"):
        est, low, high = bootstrap_groups({"all": [rows[q][metric] for q in rows]})
        out[metric] = {"mean": round(est, 4), "ci95": [round(low, 4), round(high, 4)]}
    out["superseded_above_successor_top3"] = {q: bad for q, top in tops.items() if (bad := above_successor(top))}
    out["below_1"] = []
    for run in runs:
        rel = relevance[run.query_id]
        groups = [(r["id"], *r["merged"]) for r in run.results[:K]]
        rr = M.reciprocal_rank(groups, rel)
        if rr < 1:
            first = next((n for n, g in enumerate(groups, 1) if any(rel.get(i, 0) > 0 for i in g)), None)
            out["below_1"].append({"query": run.query_id, "rr": round(rr, 4), "first_relevant_rank": first,
                                   "ranked_above": [g[0] for g in groups[:(first or K + 1) - 1]],
                                   "relevant": rel})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=None, help="[model] name (default: the shipped model)")
    ap.add_argument("--supersessions", default=str(FIXTURE / "supersessions.jsonl"))
    ap.add_argument("--out", default=str(ROOT / "bench/results/fixture_supersede_e5.json"))
    args = ap.parse_args()
    started = provenance()
    links = load_supersessions(Path(args.supersessions))
    successor = {old: link["newer"] for link in links for old in link["older"]}
    result: dict[str, Any] = {}

    def on_engine(engine, dataset, relevance) -> None:
        ns = dataset.queries[0].namespace
        before = run_config(engine, dataset, RECIPE, K)
        result["before"] = summarize(before, relevance, ranked(before, successor))
        for link in links:      # the fixture has no times: the correction holds from when it is applied
            engine.update(ns, link["newer"], {"valid_from": engine.clock()})
            engine.supersede(ns, link["newer"], link["older"], link.get("reason"))
        after = run_config(engine, dataset, RECIPE, K)
        result["after"] = summarize(after, relevance, ranked(after, successor))
        stored = engine.store.get_memories(ns, list(successor))
        result["applied"] = {old: stored[old].superseded_by for old in successor if old in stored}
        result["model"] = engine.settings.model.name

    options = EvalOptions(memories=FIXTURE / "memories.jsonl", queries=FIXTURE / "queries.jsonl",
                          recipes=[RECIPE], progress=False,
                          model_override={"name": args.model} if args.model else {})
    evaluate(options, on_engine=on_engine)
    report = {"fixture": str(FIXTURE.relative_to(ROOT)), "recipe": RECIPE, "k": K,
              "supersessions": links, **result,
              "target": "no superseded record above its successor in the top 3; MRR >= 0.95"}
    write_result(args.out, report, started=started)
    for phase in ("before", "after"):
        r = result[phase]
        print(phase, r["mrr"], r["hit@1"], "violations", r["superseded_above_successor_top3"],
              "below 1:", [b["query"] for b in r["below_1"]])


if __name__ == "__main__":
    main()
