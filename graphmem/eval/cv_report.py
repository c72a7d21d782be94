"""The cross-validated report: per family of configurations, what was chosen in each fold,
held-out figures with intervals, tuned-on figures beside them (labelled), paired differences
between adjacent families, and every grid point's per-group means (none left out).

A *family* is one recipe of the ablation ladder (lexical, vector, hybrid, hybrid_expansion,
default); its grid points are parameter variants of that recipe. Each family is tuned by
the protocol on its own grid, so a difference between families is a difference between two
honestly tuned configurations.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

from graphmem.eval import cv
from graphmem.eval.edge_report import print_edges, summarize_edges

ADJACENT = (("vector", "lexical"), ("hybrid", "lexical"), ("hybrid", "vector"),
            ("hybrid_context", "hybrid"), ("hybrid_expansion", "hybrid_context"),
            ("hybrid_expansion", "hybrid"), ("default", "hybrid_expansion"), ("default", "hybrid"),
            ("default +topics", "default"), ("hybrid_expansion +topics", "hybrid_expansion"))


def build_cv_report(grid: Mapping[str, cv.PerQuery], families: Mapping[str, Sequence[str]],
                    groups: Mapping[str, Sequence[str]], categories: Mapping[str, set[str]],
                    metrics: Sequence[str], objective: str, n_boot: int = 2000,
                    per_query: Sequence[str] = (),
                    compare: Sequence[tuple[str, str]] = ()) -> dict[str, Any]:
    """``grid``: label -> query id -> metrics; ``families``: family -> its labels (grid
    order = tie-break); ``groups``: fold name -> query ids; ``categories``: name -> ids.
    ``per_query``: metrics whose held-out value per query is kept (``held_out_per_query``, with
    the groups and categories in ``protocol``), so that two reports on the same queries (e.g.
    two embedding models) can be compared by a paired bootstrap. ``compare``: paired differences
    (a - b) wanted beside the ladder's ``ADJACENT`` ones."""
    out: dict[str, Any] = {"protocol": {
        "folds": list(groups), "objective": objective, "selection": "best mean of training-group means; "
        "ties to the earlier grid point", "headline": "mean over held-out folds (each fold one group)",
        "intervals": f"stratified paired bootstrap over queries within groups, {n_boot} resamples, 95% percentile",
        "queries": sum(len(v) for v in groups.values())}, "families": {}, "differences": {}, "grid": {}}
    held: dict[str, dict[str, Mapping[str, float]]] = {}
    for family, labels in families.items():
        folds = cv.select_per_fold(grid, labels, groups, objective)
        held[family] = cv.held_out_rows(grid, folds, groups)
        best_all = max(labels, key=lambda lb: (cv.mean_of_group_means(grid[lb], groups, objective),
                                               -labels.index(lb)))
        out["families"][family] = {
            "grid_points": len(labels),
            "folds": [{"held_out": f.held_out, "chosen": f.chosen, "train": round(f.train_score, 4),
                       "held_out_score": round(f.held_out_score, 4),
                       "train_top5": [[lb, round(s, 4)] for lb, s in f.train_ranking]} for f in folds],
            "held_out": cv.summarize(held[family], groups, metrics, categories, n_boot),
            "tuned_on": {"chosen": best_all,
                         **cv.summarize(grid[best_all], groups, metrics, categories, n_boot)},
        }
        edges = summarize_edges(held[family], groups, n_boot=n_boot)
        if edges:
            out["families"][family]["edge_precision_held_out"] = edges
        if per_query:
            out["families"][family]["held_out_per_query"] = {
                q: {m: round(row[m], 4) for m in per_query} for q, row in held[family].items()}
    if per_query:
        out["protocol"]["groups"] = {g: list(ids) for g, ids in groups.items()}
        out["protocol"]["categories"] = {c: sorted(ids) for c, ids in categories.items()}
    for a, b in dict.fromkeys([*ADJACENT, *compare]):
        if a in held and b in held:
            out["differences"][f"{a} - {b}"] = {
                m: cv.interval(held[a], groups, m, baseline=held[b], n=n_boot) for m in metrics}
            out["differences"][f"{a} - {b}"]["by_category"] = {
                cat: {m: cv.interval(held[a], {g: q for g, q in cv.subset(groups, ids).items() if q}, m,
                                     baseline=held[b], n=n_boot) for m in metrics}
                for cat, ids in categories.items()}
    for label, rows in grid.items():
        out["grid"][label] = {g: {m: round(cv.group_mean(rows, ids, m), 4) for m in metrics}
                              for g, ids in groups.items()}
    return out


def print_cv(report: dict[str, Any], console: Console | None = None) -> None:
    console = console or Console(width=200)
    metrics = [m for m in next(iter(report["families"].values()))["held_out"] if m != "by_category"]
    table = Table(title="held-out (leave-one-group-out), mean of folds [95% CI]")
    table.add_column("family")
    for m in metrics:
        table.add_column(m, justify="right")
    for family, data in report["families"].items():
        table.add_row(family, *(f"{data['held_out'][m]['mean']:.3f} [{data['held_out'][m]['ci95'][0]:.3f},"
                                f"{data['held_out'][m]['ci95'][1]:.3f}]" for m in metrics))
    console.print(table)
    diff = Table(title="paired differences, held-out [95% CI]")
    diff.add_column("a - b")
    for m in metrics:
        diff.add_column(m, justify="right")
    for name, data in report["differences"].items():
        diff.add_row(name, *(f"{data[m]['mean']:+.3f} [{data[m]['ci95'][0]:+.3f},{data[m]['ci95'][1]:+.3f}]"
                             for m in metrics))
    console.print(diff)
    print_edges({family: data.get("edge_precision_held_out") for family, data in report["families"].items()},
                "held-out expansion additions by edge: relevant share (edge precision) [95% CI]", console)
