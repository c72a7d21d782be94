"""Reproducible tuning grid for the `[search]` and `[edges]` defaults.

For each dataset and each edge variant (edges shape the store, so each variant is a fresh
ingest; the embedding cache makes re-ingest cost only linking), every search variant runs
on the same store through ``Graphmem.search_outcome(params=...)`` and one row is printed:
overall recall@5/@10, nDCG@10, MRR, the hard subset's recall@10 (LoCoMo multi-hop =
category 1; fixture = needs_related) and the low-health-above-relevant count.

The grids are data: ``bench/grids/search.json`` (``--grid``) and ``bench/grids/edges.json``
(``--edges``), read through ``bench/tune_grids.py``. Every variant spells out the knobs it tests, so
a row does not silently change when ``graphmem/defaults.toml`` changes; ``shipped`` = the values
before tuning, ``tuned`` = the values now in defaults.toml.

    python -m bench.tune_eval --dataset both --grid quick
    python -m bench.tune_eval --dataset locomo --only conv-26 --grid full

The honest protocol (``--cv``): leave-one-conversation-out over locomo-dev. Every grid point
of every family (lexical, vector, hybrid, hybrid_expansion, default) answers every query once;
each fold then picks, per family, the grid point best on the other four conversations and
scores it on the fifth. Held-out means, bootstrap intervals, paired differences, held-out edge
precision of expansion per edge kind (``edge_precision_held_out``) and every grid point's
per-conversation means go to ``--output`` (default bench/results/cv/<name>.json):

    python -m bench.tune_eval --cv --grid cv --name minilm
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from bench.meta import provenance, write_result
from bench.tune_grids import edge_grid, edge_names, search_grid, search_names
from graphmem.eval import metrics as M
from graphmem.eval.context_eval import BUDGETS, block_metrics
from graphmem.eval.cv_report import build_cv_report, print_cv
from graphmem.eval.dataset import locomo_dir
from graphmem.eval.edge_report import expansion_row
from graphmem.eval.provenance import config_sha256
from graphmem.eval.report import coverage_metrics, query_metrics
from graphmem.eval.runner import EvalOptions, evaluate, run_config

ROOT = Path(__file__).resolve().parents[1]

FIXTURE = ROOT / "tests" / "fixtures" / "agent_memory"

def ingest_overrides(edges: dict[str, Any]) -> dict[str, Any]:
    """An edge variant as settings overrides: its ``topics`` and ``context`` entries are those sections."""
    rest = {k: v for k, v in edges.items() if k not in ("topics", "context")}
    return {"edges": rest, **{section: edges[section] for section in ("topics", "context") if section in edges}}


def datasets(which: str, only: list[str] | None) -> list[dict[str, Any]]:
    out = []
    if which in ("fixture", "both"):
        out.append({"name": "fixture", "memories": FIXTURE / "memories.jsonl",
                    "queries": FIXTURE / "queries.jsonl", "scope": None, "only": None,
                    "hard": ("needs_related", True)})
    if which in ("locomo", "both"):
        base = locomo_dir()
        if not (base / "memories.jsonl").exists():
            raise SystemExit(f"locomo-dev not found at {base} (set GRAPHMEM_LOCOMO_DIR)")
        out.append({"name": "locomo" + (f"[{','.join(only)}]" if only else ""),
                    "memories": base / "memories.jsonl", "queries": base / "queries_no_adv.jsonl",
                    "scope": "conversation", "only": only, "hard": ("category", 1),
                    "thread_by": "category", "seq_by": "turn_index"})
    return out


def score(runs, dataset, relevance, hard: tuple[str, Any], k: int = 10) -> dict[str, float]:
    per = [query_metrics(r, relevance[r.query_id], k, k) for r in runs]
    hard_rows = [m for q, m in zip(dataset.queries, per, strict=True) if q.fields.get(hard[0]) == hard[1]]
    return {"recall@5": M.mean([m["recall@5"] for m in per]), "recall@10": M.mean([m["recall@10"] for m in per]),
            "ndcg@10": M.mean([m["ndcg@10"] for m in per]), "mrr": M.mean([m["mrr"] for m in per]),
            "hard_recall@10": M.mean([m["recall@10"] for m in hard_rows]),
            "low_health_above_relevant_top3": sum(m["low_health_above_relevant_top3"] for m in per)}


CV_METRICS = ("recall@5", "recall@10", "ndcg@10", "mrr", "answer@5", "answer@10", "context_tokens@5",
              "context_tokens@10", *(f"block_answer@{b}" for b in BUDGETS),
              *(f"block_tokens@{b}" for b in BUDGETS))
# kept per query: paired comparisons across reports
PER_QUERY = ("recall@10", "ndcg@10", "answer@10", *(f"block_answer@{b}" for b in BUDGETS))
# Results each grid point asks for: the top 10 are the same at any depth (every stage before the
# cut is independent of k), and the context block ([context_block] k) is built from the top 20.
CV_DEPTH = 20


def run_cv(args: argparse.Namespace) -> None:
    """Leave-one-conversation-out over locomo-dev (see the module docstring)."""
    ds = datasets("locomo", args.only)[0]
    search, edge = search_grid(args.grid), edge_grid(args.edges)
    started = provenance([ds["memories"], ds["queries"]])   # the code that runs is the code at the start
    grid_spec = search.points
    grid: dict[str, dict[str, dict[str, float]]] = {}
    families: dict[str, list[str]] = {}
    meta: dict[str, Any] = {}
    for edge_label, edges in edge.variants:
        def on_engine(engine, dataset, relevance, edge_label=edge_label) -> None:
            contents = {m["id"]: m["content"] for m in dataset.memories}
            meta["groups"] = {}
            meta["categories"] = {}
            for q in dataset.queries:
                meta["groups"].setdefault(q.fields["conversation"], []).append(q.id)
                meta["categories"].setdefault(str(q.fields.get("category_name", q.fields.get("category"))),
                                              set()).add(q.id)
            meta["settings"] = engine.settings.raw
            for label, recipe, params in grid_spec:
                full = label if len(edge.variants) == 1 else f"{edge_label} / {label}"
                t0 = time.perf_counter()
                runs = run_config(engine, dataset, recipe, CV_DEPTH, params)
                grid[full] = {r.query_id: {**query_metrics(r, relevance[r.query_id], 10, 10),
                                           **coverage_metrics(r, contents, q.fields.get("answer", "")),
                                           **block_metrics(engine, r, q.namespace, q.fields.get("answer", "")),
                                           **expansion_row(r, relevance[r.query_id], 10)}
                              for r, q in zip(runs, dataset.queries, strict=True)}
                family = search.families.get(label, recipe)
                families.setdefault(family + edge.family_suffix.get(edge_label, ""), []).append(full)
                print(f"{full}: R@10 {M.mean([m['recall@10'] for m in grid[full].values()]):.4f} "
                      f"({time.perf_counter() - t0:.0f}s)", file=sys.stderr, flush=True)

        model = {"name": args.model} if args.model else {}
        options = EvalOptions(memories=ds["memories"], queries=ds["queries"], scope=ds["scope"],
                              recipes=["hybrid"],
                              only_namespaces=ds["only"], limit_queries=args.limit_queries,
                              ingest_overrides=ingest_overrides(edges), progress=False, cache_queries=True,
                              model_override=model, thread_by=ds["thread_by"], seq_by=ds["seq_by"])
        evaluate(options, on_engine=on_engine)
    report = build_cv_report(grid, families, meta["groups"], meta["categories"], CV_METRICS, args.objective,
                             n_boot=args.bootstrap, per_query=PER_QUERY, compare=[*search.compare, *edge.compare])
    started["config_sha256"] = config_sha256(meta["settings"])
    report = {"name": args.name, "model": args.model or meta["settings"]["model"]["name"],
              "grid_spec": {"grid": args.grid, "edges": args.edges,
                            "points": [[lb, r, p] for lb, r, p in grid_spec],
                            "edge_variants": dict(edge.variants)}, **report}
    print_cv(report)
    out = args.output or ROOT / "bench" / "results" / "cv" / f"{args.name}.json"
    write_result(out, report, started=started)
    print(f"wrote {out}", file=sys.stderr)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dataset", choices=["fixture", "locomo", "both"], default="both")
    ap.add_argument("--grid", choices=search_names(), default="quick", help="a grid of bench/grids/search.json")
    ap.add_argument("--edges", choices=edge_names(), default="tuned", help="a grid of bench/grids/edges.json")
    ap.add_argument("--only", action="append", help="LoCoMo conversation(s) to keep (repeatable)")
    ap.add_argument("--limit-queries", type=int)
    ap.add_argument("--output", type=Path, help="Also write the rows as JSON here")
    ap.add_argument("--cv", action="store_true", help="leave-one-conversation-out over locomo-dev")
    ap.add_argument("--name", default="default", help="--cv: report name (bench/results/cv/<name>.json)")
    ap.add_argument("--model", help="--cv: embedding model name (a [model] choice)")
    ap.add_argument("--objective", default="recall@10", help="--cv: metric each fold tunes for")
    ap.add_argument("--bootstrap", type=int, default=2000, help="--cv: bootstrap resamples")
    args = ap.parse_args()
    if args.cv:
        run_cv(args)
        return

    rows: list[dict[str, Any]] = []
    grid = search_grid(args.grid).points
    for ds in datasets(args.dataset, args.only):
        for edge_label, edges in edge_grid(args.edges).variants:
            def on_engine(engine, dataset, relevance, ds=ds, edge_label=edge_label) -> None:
                for label, recipe, params in grid:
                    t0 = time.perf_counter()
                    runs = run_config(engine, dataset, recipe, 10, params)
                    scores = score(runs, dataset, relevance, ds["hard"])
                    rows.append({"dataset": ds["name"], "edges": edge_label, "search": label,
                                 **{k: round(v, 4) for k, v in scores.items()},
                                 "seconds": round(time.perf_counter() - t0, 1)})
                    print(json.dumps(rows[-1]), file=sys.stderr, flush=True)

            options = EvalOptions(memories=ds["memories"], queries=ds["queries"], scope=ds["scope"],
                                  recipes=["hybrid"], only_namespaces=ds["only"], limit_queries=args.limit_queries,
                                  ingest_overrides=ingest_overrides(edges), progress=False,
                                  cache_queries=True)
            evaluate(options, on_engine=on_engine)

    table = Table(title=f"tune_eval grid={args.grid} edges={args.edges}")
    for col in ("dataset", "edges", "search", "R@5", "R@10", "nDCG@10", "MRR", "hard R@10", "LH>rel@3"):
        table.add_column(col, justify="left" if col in ("dataset", "edges", "search") else "right")
    for r in rows:
        table.add_row(r["dataset"], r["edges"], r["search"], *(f"{r[k]:.3f}" for k in
                      ("recall@5", "recall@10", "ndcg@10", "mrr", "hard_recall@10")),
                      f"{r['low_health_above_relevant_top3']:.0f}")
    Console(width=200).print(table)
    if args.output:
        write_result(args.output, {"rows": rows})


if __name__ == "__main__":
    main()
