"""Leave-one-group-out cross-validation and paired bootstrap intervals (pure, no IO).

Why: a figure measured on the queries the defaults were tuned on overstates what a user
gets. The honest protocol tunes on all groups but one (LoCoMo: 4 conversations), scores
the held-out group with the configuration chosen there, rotates, and reports the mean over
the held-out folds. Because each group is its own namespace, every grid point's answer to
a query does not depend on the other groups, so running every grid point over every query
once and selecting per fold afterwards is exactly the rotated protocol at a fifth of the
cost.

Intervals: a stratified bootstrap resamples queries *within* each group (the folds stay
fixed) and recomputes the mean of group means; differences are paired (the same resampled
queries for both configurations), so a shared hard query does not widen the interval.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

PerQuery = Mapping[str, Mapping[str, float]]        # query id -> metric -> value


@dataclass
class Fold:
    held_out: str
    chosen: str                                      # grid label selected on the training groups
    train_score: float                               # its objective on the training groups
    held_out_score: float                            # its objective on the held-out group
    train_ranking: list[tuple[str, float]] = field(default_factory=list)


def group_mean(per_query: PerQuery, ids: Sequence[str], metric: str) -> float:
    values = [per_query[q][metric] for q in ids]
    return float(np.mean(values)) if values else 0.0


def mean_of_group_means(per_query: PerQuery, groups: Mapping[str, Sequence[str]], metric: str) -> float:
    """Each group weighs the same, however many queries it has (the fold mean)."""
    means = [group_mean(per_query, ids, metric) for ids in groups.values() if ids]
    return float(np.mean(means)) if means else 0.0


def select_per_fold(grid: Mapping[str, PerQuery], labels: Sequence[str], groups: Mapping[str, Sequence[str]],
                    objective: str) -> list[Fold]:
    """For each held-out group: the label with the best objective on the other groups
    (mean of their group means; ties go to the earlier label, so the grid order is the
    tie-break and it is recorded)."""
    folds = []
    for held in groups:
        train = {g: ids for g, ids in groups.items() if g != held}
        ranking = [(label, mean_of_group_means(grid[label], train, objective)) for label in labels]
        best = max(range(len(ranking)), key=lambda i: (ranking[i][1], -i))
        chosen, score = ranking[best]
        folds.append(Fold(held, chosen, score, group_mean(grid[chosen], groups[held], objective),
                          sorted(ranking, key=lambda r: -r[1])[:5]))
    return folds


def held_out_rows(grid: Mapping[str, PerQuery], folds: Sequence[Fold],
                  groups: Mapping[str, Sequence[str]]) -> dict[str, Mapping[str, float]]:
    """Per query, the metrics of the label chosen without its group: the held-out answers."""
    out: dict[str, Mapping[str, float]] = {}
    for fold in folds:
        for q in groups[fold.held_out]:
            out[q] = grid[fold.chosen][q]
    return out


def bootstrap_groups(values: Mapping[str, Sequence[float]], n: int = 2000, seed: int = 0,
                     level: float = 0.95) -> tuple[float, float, float]:
    """(estimate, low, high): the mean of group means and its stratified percentile interval."""
    rng = np.random.default_rng(seed)
    arrays = [np.asarray(v, dtype=float) for v in values.values() if len(v)]
    if not arrays:
        return 0.0, 0.0, 0.0
    estimate = float(np.mean([a.mean() for a in arrays]))
    stats = np.zeros(n)
    for a in arrays:
        stats += a[rng.integers(0, len(a), size=(n, len(a)))].mean(axis=1)
    stats /= len(arrays)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(stats, [tail, 100 - tail])
    return estimate, float(low), float(high)


def bootstrap_ratio(num: Mapping[str, Sequence[float]], den: Mapping[str, Sequence[float]], n: int = 2000,
                    seed: int = 0, level: float = 0.95) -> tuple[float | None, float | None, float | None]:
    """(estimate, low, high) of the pooled ratio sum(num) / sum(den) (e.g. relevant / added),
    resampling queries within each group, the same draw for numerator and denominator.
    Resamples whose denominator is 0 are dropped; None throughout when nothing was counted."""
    total = sum(sum(v) for v in den.values())
    if not total:
        return None, None, None
    rng = np.random.default_rng(seed)
    nums, dens = np.zeros(n), np.zeros(n)
    for g, values in den.items():
        d, a = np.asarray(values, dtype=float), np.asarray(num[g], dtype=float)
        if len(d):
            idx = rng.integers(0, len(d), size=(n, len(d)))
            nums += a[idx].sum(axis=1)
            dens += d[idx].sum(axis=1)
    ratios = nums[dens > 0] / dens[dens > 0]
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(ratios, [tail, 100 - tail])
    return sum(sum(v) for v in num.values()) / total, float(low), float(high)


def interval(per_query: PerQuery, groups: Mapping[str, Sequence[str]], metric: str,
             baseline: PerQuery | None = None, n: int = 2000, seed: int = 0) -> dict[str, Any]:
    """Mean of group means with a 95% interval; with ``baseline``, of the paired difference
    (per_query - baseline) instead."""
    values = {g: [per_query[q][metric] - (baseline[q][metric] if baseline is not None else 0.0) for q in ids]
              for g, ids in groups.items()}
    est, low, high = bootstrap_groups(values, n, seed)
    return {"mean": round(est, 4), "ci95": [round(low, 4), round(high, 4)]}


def subset(groups: Mapping[str, Sequence[str]], keep: set[str]) -> dict[str, list[str]]:
    """The same groups restricted to the queries in ``keep`` (e.g. one category)."""
    return {g: [q for q in ids if q in keep] for g, ids in groups.items()}


def summarize(per_query: PerQuery, groups: Mapping[str, Sequence[str]], metrics: Sequence[str],
              categories: Mapping[str, set[str]] | None = None, n: int = 2000) -> dict[str, Any]:
    """Headline block: each metric as mean of group means with its interval, plus the same
    per category (groups restricted to the category's queries; empty groups dropped)."""
    out: dict[str, Any] = {m: interval(per_query, groups, m, n=n) for m in metrics}
    if categories:
        out["by_category"] = {}
        for cat, ids in categories.items():
            sub = {g: q for g, q in subset(groups, ids).items() if q}
            out["by_category"][cat] = {"n": sum(len(q) for q in sub.values()),
                                       **{m: interval(per_query, sub, m, n=n) for m in metrics}}
    return out
