"""Edge precision of one-hop expansion, for the eval report and the cross-validated report.

Why: expansion is the stage that adds records no search matched; whether each kind of edge
(SHARES_TAG, SAME_CATEGORY, OVERLAPS, RELATED, or any type or reason kind added later) brings
relevant records or noise decides which edges are worth their cost. Per configuration: every
neighbour expansion added (before the cut to k), credited to the edge of its best path, how
many were relevant, and how many of them reached the top k (the part an agent sees); beside
them the direct hits in the top k that an edge also reached (``boosted``: expansion's merge
bonus raised them), per edge, since that is the other way expansion changes the top k.
Precision is pooled (relevant / added over all queries) with a bootstrap interval that
resamples queries within groups (the conversations of the CV; one group otherwise).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from graphmem.eval import cv
from graphmem.eval import metrics as M
from graphmem.eval.runner import QueryRun


def expansion_row(run: QueryRun, relevance: Mapping[str, float], k: int) -> dict[str, float]:
    """One query's counts (``metrics.expansion_counts``): the additions (top = its top ``k``
    results), and as ``boost_*`` the direct hits in the top ``k`` that an edge also reached
    (expansion raised them by the merge bonus rather than adding them)."""
    top = run.results[:k]
    boosted = [(r["id"], r["edge"]) for r in top if r["kind"] == "direct+related"]
    return {**M.expansion_counts(run.added, relevance, {r["id"] for r in top}),
            **M.expansion_counts(boosted, relevance, (), prefix="boost")}


def _cell(rows: Mapping[str, Mapping[str, float]], groups: Mapping[str, Sequence[str]], suffix: str,
          n_boot: int, prefix: str = "exp") -> dict[str, Any]:
    relevant, added, precision = M.pooled_precision(list(rows.values()), suffix, prefix)
    _, low, high = cv.bootstrap_ratio({g: [rows[q].get(f"{prefix}_relevant{suffix}", 0.0) for q in ids]
                                       for g, ids in groups.items()},
                                      {g: [rows[q].get(f"{prefix}_added{suffix}", 0.0) for q in ids]
                                       for g, ids in groups.items()}, n=n_boot)
    return {"added": int(added), "relevant": int(relevant),
            "precision": None if precision is None else round(precision, 4),
            "ci95": None if low is None or high is None else [round(low, 4), round(high, 4)]}


def summarize_edges(rows: Mapping[str, Mapping[str, float]], groups: Mapping[str, Sequence[str]] | None = None,
                    k: int = 10, n_boot: int = 2000) -> dict[str, Any] | None:
    """``rows``: query id -> ``expansion_row``. None when expansion added nothing (a
    configuration without expansion). ``groups`` default to one group of every query."""
    if not rows or not any(row.get(M.ADDED) for row in rows.values()):
        return None
    groups = groups or {"all": list(rows)}
    listed = list(rows.values())
    return {"k": k, "queries": len(rows),
            "added_per_query": round(M.mean([row.get(M.ADDED, 0.0) for row in listed]), 3),
            "all": _cell(rows, groups, "", n_boot),
            "by_edge": {key: _cell(rows, groups, f":{key}", n_boot) for key in M.edge_keys(listed)},
            "in_top_k": _cell(rows, groups, "@top", n_boot),
            "boosted_in_top_k": {"all": _cell(rows, groups, "", n_boot, "boost"),
                                 "by_edge": {key: _cell(rows, groups, f":{key}", n_boot, "boost")
                                             for key in M.edge_keys(listed, "boost")}}}


def _fmt(cell: Mapping[str, Any]) -> str:
    if cell["precision"] is None:
        return "-"
    ci = f" [{cell['ci95'][0]:.3f}, {cell['ci95'][1]:.3f}]" if cell.get("ci95") else ""
    return f"{cell['precision']:.3f}{ci}"


def print_edges(blocks: Mapping[str, Mapping[str, Any] | None], title: str,
                console: Console | None = None) -> None:
    """One row per configuration and edge key: added (or boosted), relevant, precision [95% CI]."""
    shown = {name: b for name, b in blocks.items() if b is not None}
    if not shown:
        return
    console = console or Console(width=200)
    table = Table(title=title)
    for col in ("config", "edge", "n", "relevant", "precision [95% CI]"):
        table.add_column(col, justify="left" if col in ("config", "edge") else "right")
    for name, block in shown.items():
        boosted = block["boosted_in_top_k"]
        rows = [("added: all", block["all"]), *((f"added: {key}", c) for key, c in block["by_edge"].items()),
                (f"added, in top {block['k']}", block["in_top_k"]),
                (f"boosted, in top {block['k']}", boosted["all"]),
                *((f"boosted: {key}", c) for key, c in boosted["by_edge"].items())]
        for label, cell in rows:
            table.add_row(name, escape(label), str(cell["added"]), str(cell["relevant"]), _fmt(cell))
    console.print(table)
