"""Reproducible tuning grid for the `[search]` and `[edges]` defaults.

For each dataset and each edge variant (edges shape the store, so each variant is a fresh
ingest; the embedding cache makes re-ingest cost only linking), every search variant runs
on the same store through ``Graphmem.search_outcome(params=...)`` and one row is printed:
overall recall@5/@10, nDCG@10, MRR, the hard subset's recall@10 (LoCoMo multi-hop =
category 1; fixture = needs_related) and the low-health-above-relevant count.

Every variant spells out the knobs it tests, so a row does not silently change when
``graphmem/defaults.toml`` changes; ``shipped`` = the values before tuning, ``tuned`` = the
values now in defaults.toml.

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
import itertools
import json
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from bench.meta import command_line
from graphmem.eval import metrics as M
from graphmem.eval.context_eval import BUDGETS, block_metrics
from graphmem.eval.cv_report import build_cv_report, print_cv
from graphmem.eval.dataset import locomo_dir
from graphmem.eval.edge_report import expansion_row
from graphmem.eval.provenance import git_state, provenance
from graphmem.eval.report import coverage_metrics, query_metrics
from graphmem.eval.runner import EvalOptions, evaluate, run_config

ROOT = Path(__file__).resolve().parents[1]

FIXTURE = ROOT / "tests" / "fixtures" / "agent_memory"

# The search knobs under test, before (shipped) and after (tuned) this tuning round.
SHIPPED = {"fusion": "rrf", "rrf_k": 60, "vector_weight": 0.5, "lexical_weight": 0.5, "router_boost": 0.1,
           "expansion_seeds": 5, "expansion_per_seed": 4, "expansion_max_added": 10,
           "expansion_min_edge_weight": 0.3, "expansion_decay": 0.8, "expansion_similarity_mix": 0.5,
           "expansion_merge_bonus": 0.0}
TUNED = {**SHIPPED, "fusion": "weighted", "router_boost": 0.25, "expansion_seeds": 10, "expansion_per_seed": 30,
         "expansion_decay": 1.0, "expansion_merge_bonus": 0.75}
# [edges] was left as shipped: the one change that helped the fixture (tag_full_strength 1.0) cost
# LoCoMo recall (see EDGE_GRIDS["quick"]).
EDGES_SHIPPED = {"tag_full_strength": 1.5, "category_similarity_mix": 0.5, "max_degree_shares_tag": 12,
                 "max_degree_same_category": 8, "max_degree_overlaps": 8}
EDGES_TUNED = dict(EDGES_SHIPPED)


def search_grid(name: str) -> list[tuple[str, str, dict[str, Any]]]:
    """(label, recipe, params). ``quick``: the ablation ladder at shipped and tuned values
    plus one-knob-at-a-time moves away from the tuned point; ``full``: a small factorial."""
    rows: list[tuple[str, str, dict[str, Any]]] = [
        ("hybrid shipped", "hybrid", SHIPPED), ("default shipped", "default", SHIPPED),
        ("hybrid tuned", "hybrid", TUNED), ("hybrid_expansion tuned", "hybrid_expansion", TUNED),
        ("default tuned", "default", TUNED)]
    moves: list[tuple[str, dict[str, Any]]] = [
        ("fusion=rrf", {"fusion": "rrf"}), ("fusion=rrf rrf_k=10", {"fusion": "rrf", "rrf_k": 10}),
        ("vector_weight=.4 lexical=.6", {"vector_weight": 0.4, "lexical_weight": 0.6}),
        ("vector_weight=.6 lexical=.4", {"vector_weight": 0.6, "lexical_weight": 0.4}),
        ("router_boost=.1", {"router_boost": 0.1}), ("router_boost=.5", {"router_boost": 0.5}),
        ("merge_bonus=0", {"expansion_merge_bonus": 0.0}), ("merge_bonus=.5", {"expansion_merge_bonus": 0.5}),
        ("merge_bonus=1", {"expansion_merge_bonus": 1.0}),
        ("seeds=5", {"expansion_seeds": 5}), ("seeds=20", {"expansion_seeds": 20}),
        ("per_seed=4", {"expansion_per_seed": 4}), ("per_seed=12", {"expansion_per_seed": 12}),
        ("decay=.8", {"expansion_decay": 0.8}), ("similarity_mix=1", {"expansion_similarity_mix": 1.0}),
        ("similarity_mix=0", {"expansion_similarity_mix": 0.0}),
        ("min_edge_weight=0", {"expansion_min_edge_weight": 0.0}),
        ("max_added=20", {"expansion_max_added": 20}),
        ("recall_candidates=100", {"recall_candidates": 100}),
        ("no OVERLAPS", {"edge_type_weights": {"OVERLAPS": 0.0}}),
        ("no SAME_CATEGORY", {"edge_type_weights": {"SAME_CATEGORY": 0.0}}),
        ("no SHARES_TAG", {"edge_type_weights": {"SHARES_TAG": 0.0}}),
    ]
    if name == "quick":
        rows += [(f"default tuned, {label}", "default", {**TUNED, **move}) for label, move in moves]
    elif name == "full":
        for seeds, bonus, decay, mix in itertools.product((5, 10), (0.5, 0.75, 1.0), (0.8, 1.0), (0.5, 0.75)):
            params = {**TUNED, "expansion_seeds": seeds, "expansion_merge_bonus": bonus,
                      "expansion_decay": decay, "expansion_similarity_mix": mix}
            rows.append((f"seeds={seeds} bonus={bonus} decay={decay} mix={mix}", "default", params))
    elif name == "weights":
        for vw, bonus, seeds in itertools.product((0.35, 0.4, 0.5), (0.5, 0.75, 1.0), (5, 10)):
            params = {**TUNED, "vector_weight": vw, "lexical_weight": round(1 - vw, 2),
                      "expansion_merge_bonus": bonus, "expansion_seeds": seeds}
            rows.append((f"vector_weight={vw} bonus={bonus} seeds={seeds}", "default", params))
        rows += [(f"hybrid vector_weight={vw}", "hybrid",
                  {**TUNED, "vector_weight": vw, "lexical_weight": round(1 - vw, 2)}) for vw in (0.35, 0.4)]
    elif name == "router":
        for boost, bonus, decay in itertools.product((0.1, 0.25, 0.5), (0.5, 0.75, 1.0), (0.8, 1.0)):
            params = {**TUNED, "router_boost": boost, "expansion_merge_bonus": bonus, "expansion_decay": decay,
                      "expansion_seeds": 10}
            rows.append((f"router_boost={boost} bonus={bonus} decay={decay} seeds=10", "default", params))
        rows += [(f"hybrid router_boost={b}", "hybrid", {**TUNED, "router_boost": b}) for b in (0.25, 0.5)]
    elif name == "cv":
        return cv_grid(moves)
    elif name == "cv-small":
        keep = {"vector_weight=.4 lexical=.6", "vector_weight=.6 lexical=.4", "merge_bonus=.5", "merge_bonus=1",
                "seeds=5", "seeds=20", "no OVERLAPS", "no SAME_CATEGORY", "no SHARES_TAG"}
        return [row for row in cv_grid([m for m in moves if m[0] in keep])
                if (row[1] != "hybrid_expansion" or row[0] == "hybrid_expansion")
                and "router_boost=0" not in row[0]]
    elif name == "cv-topics":     # topics on vs off (--edges topics): the families that expand
        # (router_topic_boost=.1 lost at both weights in the first run: bench/results/cv/topics-first.json)
        return [("default", "default", {}),
                ("default, min_edge_weight=.2", "default", {"expansion_min_edge_weight": 0.2})]
    elif name == "cv-context":    # the ladder with context windows, and the knobs of the window key
        return context_grid()
    elif name == "cv-multihop":   # the second recall round and per-arm weights, each its own family
        return multihop_grid()
    elif name == "cv-windows":    # with --edges windows: the two context families at each window size
        return [("hybrid_context", "hybrid_context", {}), ("default", "default", {})]
    elif name == "cv-default":    # the default re-chosen with windows: how expansion meets thread members
        return default_grid()
    elif name == "cv-keys":       # reciprocal-rank fusion in the window key alone (the memory key weighted)
        return keys_grid()
    elif name == "cv-threaded":   # the memory key's rule in searches over threads, against the rule before
        return lever_grid("cv-threaded", THREADED_LEVERS)
    elif name == "cv-rrf":        # rrf_k x context_weight as one family, chosen per fold, against the default
        return rrf_grid()
    elif name == "cv-recall":     # the recall levers: full-text term selection, fusion rule and keys' mix, pools
        return recall_grid()
    elif name == "cv-time":       # stage time (a date in the query boosts what it fits) against the default
        return lever_grid("cv-time", TIME_LEVERS)
    elif name == "cv-entities":   # stage multihop (entities), tuned per fold, with and without list spread
        return entities_grid()
    elif name == "cv-model":      # comparing embedders on a busy machine: the two families that matter
        return [("hybrid", "hybrid", {}), ("default", "default", {}),
                ("default, shipped (before tuning)", "default", SHIPPED)]
    elif name != "ladder":
        raise SystemExit(f"unknown grid {name!r}")
    return rows


def cv_grid(moves: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, str, dict[str, Any]]]:
    """Per family: the shipped point first (no overrides = graphmem/defaults.toml, the
    tie-break winner), then one-knob moves that apply to it."""
    first_stage = {"fusion", "rrf_k", "vector_weight", "lexical_weight", "router_boost", "recall_candidates"}
    rows: list[tuple[str, str, dict[str, Any]]] = [("lexical", "lexical", {}), ("vector", "vector", {}),
                                                   ("vector router_boost=0", "vector", {"router_boost": 0.0})]
    for family in ("hybrid", "hybrid_expansion", "default"):
        rows.append((family, family, {}))
        for label, move in moves:
            if family == "hybrid" and not set(move) <= first_stage:
                continue
            rows.append((f"{family}, {label}", family, move))
    return rows


def context_grid() -> list[tuple[str, str, dict[str, Any]]]:
    """The ladder with the context stage between hybrid and expansion (``hybrid`` runs without it,
    ``hybrid_context`` with it), each family's defaults first, then one-knob moves: the window's
    share, the weights within each key, and FOLLOWS in expansion."""
    weights = [("context_weight=.3", {"context_weight": 0.3}), ("context_weight=.7", {"context_weight": 0.7}),
               ("window vector=.7 lexical=.3", {"context_vector_weight": 0.7, "context_lexical_weight": 0.3}),
               ("window vector=.3 lexical=.7", {"context_vector_weight": 0.3, "context_lexical_weight": 0.7}),
               ("vector_weight=.6 lexical=.4", {"vector_weight": 0.6, "lexical_weight": 0.4})]
    rows: list[tuple[str, str, dict[str, Any]]] = [("lexical", "lexical", {}), ("vector", "vector", {}),
                                                   ("hybrid", "hybrid", {})]
    for family in ("hybrid_context", "hybrid_expansion", "default"):
        rows.append((family, family, {}))
        rows += [(f"{family}, {label}", family, move) for label, move in weights]
    rows += [("default, no FOLLOWS", "default", {"edge_type_weights": {"FOLLOWS": 0.0}}),
             ("default, merge_bonus=.5", "default", {"expansion_merge_bonus": 0.5}),
             ("default, no SHARES_TAG", "default", {"edge_type_weights": {"SHARES_TAG": 0.0}})]
    return rows


# Families a grid point belongs to when it is not its recipe's (label -> family), and the extra
# paired comparisons (a, b) a grid's report carries beside cv_report.ADJACENT.
GRID_FAMILIES: dict[str, str] = {}
GRID_COMPARE: dict[str, list[tuple[str, str]]] = {}


def multihop_grid() -> list[tuple[str, str, dict[str, Any]]]:
    """Today's default (one point, untuned: the baseline every family is paired with); the same with
    per-arm weights tuned (memory key vector/full text, window key vector/full text); with the
    second recall round (stage feedback) tuned; with both; and hybrid_context (expansion off)."""
    rows: list[tuple[str, str, dict[str, Any]]] = [("hybrid_context", "hybrid_context", {}),
                                                   ("default", "default", {})]
    def arms(vw: float, cvw: float) -> dict[str, Any]:
        return {"vector_weight": vw, "lexical_weight": round(1 - vw, 2), "context_vector_weight": cvw,
                "context_lexical_weight": round(1 - cvw, 2)}

    def add(label: str, recipe: str, params: dict[str, Any], family: str) -> None:
        rows.append((label, recipe, params))
        GRID_FAMILIES[label] = family
    for vw, cvw in itertools.product((0.5, 0.6, 0.7), (0.3, 0.5, 0.7)):
        add(f"default, vector={vw} window vector={cvw}", "default", arms(vw, cvw), "default +weights")
    for seeds, fvw, fw in itertools.product((3, 5, 10), (0.5, 1.0), (0.3, 0.5)):
        fb = {"stages": {"feedback": True}, "feedback_seeds": seeds, "feedback_vector_weight": fvw,
              "feedback_weight": fw}
        add(f"default +feedback seeds={seeds} vec={fvw} w={fw}", "default", fb, "default +feedback")
        if fw == 0.5 and fvw == 0.5:
            add(f"default +feedback seeds={seeds} vec={fvw} w={fw} terms=5", "default",
                {**fb, "feedback_terms": 5}, "default +feedback")
            add(f"hybrid_context +feedback seeds={seeds} vec={fvw} w={fw}", "hybrid_context", fb,
                "hybrid_context +feedback")
    for seeds, fvw, vw, cvw in itertools.product((5, 10), (0.5, 1.0), (0.5, 0.7), (0.3, 0.7)):
        fb = {"stages": {"feedback": True}, "feedback_seeds": seeds, "feedback_vector_weight": fvw,
              "feedback_weight": 0.5, **arms(vw, cvw)}
        add(f"default +feedback seeds={seeds} vec={fvw}, vector={vw} window vector={cvw}", "default", fb,
            "default +feedback +weights")
    for decay in (0.9, 0.8, 0.7, 0.5):
        add(f"default, thread_decay={decay}", "default", {"thread_decay": decay}, "default +spread")
    GRID_COMPARE["cv-multihop"] = [("default +spread", "default"), ("default +weights", "default"),
                                   ("default +feedback", "default"),
                                   ("default +feedback +weights", "default"),
                                   ("default +feedback +weights", "default +weights"),
                                   ("hybrid_context +feedback", "hybrid_context"), ("hybrid_context", "default"),
                                   ("hybrid_context +feedback", "default")]
    return rows


def default_grid() -> list[tuple[str, str, dict[str, Any]]]:
    """Untuned single points (held-out = their mean): the default as it was (a seed its window scored
    expands like any other), the same with ``expansion_threaded`` outside_window (not into its own
    window's turns) and off (not at all; on locomo-dev, where every memory has a thread, that is
    expansion off with health and source on), and hybrid_context (expansion, health, source off)."""
    rows: list[tuple[str, str, dict[str, Any]]] = [
        ("default", "default", {"expansion_threaded": "all"}),
        ("hybrid_context", "hybrid_context", {}),
        ("default, threaded outside_window", "default", {"expansion_threaded": "outside_window"}),
        ("default, threaded off", "default", {"expansion_threaded": "off"})]
    GRID_FAMILIES.update({"default, threaded outside_window": "default outside-window",
                          "default, threaded off": "default threaded-off"})
    GRID_COMPARE["cv-default"] = [("default outside-window", "default"), ("default threaded-off", "default"),
                                  ("default threaded-off", "hybrid_context"), ("hybrid_context", "default")]
    return rows


# Recall levers, each an untuned single point (held-out = its mean) paired with today's default.
RECALL_LEVERS: list[tuple[str, dict[str, Any]]] = [
    ("lookup_terms=16", {"lexical_lookup_terms": 16}),
    ("max_df_ratio=.5", {"lexical_max_df_ratio": 0.5}),
    ("lookup_terms=16 max_df_ratio=1", {"lexical_lookup_terms": 16, "lexical_max_df_ratio": 1.0}),
    ("fusion=rrf", {"fusion": "rrf"}),
    ("fusion=rrf rrf_k=20", {"fusion": "rrf", "rrf_k": 20}),
    ("fusion=rrf rrf_k=10", {"fusion": "rrf", "rrf_k": 10}),
    ("fusion=rrf rrf_k=5", {"fusion": "rrf", "rrf_k": 5}),
    ("fusion=rrf rrf_k=20 context_weight=.35", {"fusion": "rrf", "rrf_k": 20, "context_weight": 0.35}),
    ("fusion=rrf rrf_k=20 context_weight=.65", {"fusion": "rrf", "rrf_k": 20, "context_weight": 0.65}),
    ("fusion=rrf rrf_k=20 recall_candidates=100", {"fusion": "rrf", "rrf_k": 20, "recall_candidates": 100}),
    ("context_weight=.7", {"context_weight": 0.7}),
    ("window vector=.5 lexical=.5", {"context_vector_weight": 0.5, "context_lexical_weight": 0.5}),
    ("recall_candidates=100", {"recall_candidates": 100}),
    ("lexical_overfetch=5", {"lexical_overfetch": 5}),
]


def lever_grid(grid: str, levers: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, str, dict[str, Any]]]:
    """Today's default, then each lever alone on it (its own family, paired with the default)."""
    rows: list[tuple[str, str, dict[str, Any]]] = [("default", "default", {})]
    for label, params in levers:
        rows.append((f"default, {label}", "default", params))
        GRID_FAMILIES[f"default, {label}"] = f"default {label}"
    GRID_COMPARE[grid] = [(f"default {label}", "default") for label, _ in levers]
    return rows


# Stage time, an untuned single point at its shipped boost, paired with today's default.
TIME_LEVERS: list[tuple[str, dict[str, Any]]] = [("+time", {"stages": {"time": True}})]


def entities_grid() -> list[tuple[str, str, dict[str, Any]]]:
    """Today's default; stage multihop as one family of weight x merge-bonus points tuned per fold; one
    point with a list question's thread spread (multihop_list_thread_decay) as a second family."""
    rows: list[tuple[str, str, dict[str, Any]]] = [("default", "default", {})]
    on = {"stages": {"multihop": True}}
    for weight, bonus in ((1.0, 0.25), (1.3, 0.0), (1.6, 0.1)):
        label = f"default, multihop weight={weight} merge_bonus={bonus}"
        rows.append((label, "default", {**on, "multihop_weight": weight, "multihop_merge_bonus": bonus}))
        GRID_FAMILIES[label] = "default multihop tuned"
    label = "default, multihop weight=1.3 merge_bonus=0.0 list_decay=0.8"
    rows.append((label, "default", {**on, "multihop_weight": 1.3, "multihop_merge_bonus": 0.0,
                                    "multihop_list_thread_decay": 0.8}))
    GRID_FAMILIES[label] = "default multihop+list"
    GRID_COMPARE["cv-entities"] = [("default multihop tuned", "default"), ("default multihop+list", "default")]
    return rows


def recall_grid() -> list[tuple[str, str, dict[str, Any]]]:
    """Each recall lever alone on today's default."""
    return lever_grid("cv-recall", RECALL_LEVERS)


KEY_LEVERS: list[tuple[str, dict[str, Any]]] = [
    ("window rrf_k=20", {"context_fusion": "rrf", "rrf_k": 20}),
    ("window rrf_k=20 context_weight=.65", {"context_fusion": "rrf", "rrf_k": 20, "context_weight": 0.65}),
    ("fusion=rrf rrf_k=20 context_weight=.65", {"fusion": "rrf", "context_fusion": "rrf", "rrf_k": 20,
                                                "context_weight": 0.65}),
]


THREADED_LEVERS: list[tuple[str, dict[str, Any]]] = [
    ("before: memory key weighted context_weight=.5", {"threaded_fusion": "weighted", "context_weight": 0.5}),
    ("context_weight=.5", {"context_weight": 0.5}),
]


def rrf_grid() -> list[tuple[str, str, dict[str, Any]]]:
    """Today's default, and one family of rrf_k x context_weight points tuned per fold (the held-out
    figure is that of the tuning, not of one point)."""
    rows: list[tuple[str, str, dict[str, Any]]] = [("default", "default", {})]
    for k, weight in itertools.product((5, 10, 20, 40), (0.55, 0.65, 0.75)):
        label = f"default, rrf_k={k} context_weight={weight}"
        rows.append((label, "default", {"rrf_k": k, "context_weight": weight}))
        GRID_FAMILIES[label] = "default rrf tuned"
    GRID_COMPARE["cv-rrf"] = [("default rrf tuned", "default")]
    return rows


def keys_grid() -> list[tuple[str, str, dict[str, Any]]]:
    """Today's default; reciprocal-rank fusion in the window key only (agent memories without threads
    rank as before), at two mixes; and in both keys (cv-recall's best point, on the unit scale)."""
    return lever_grid("cv-keys", KEY_LEVERS)


EDGE_GRIDS = {
    "tuned": [("tuned", EDGES_TUNED)],
    "tags": [("tuned", EDGES_TUNED), ("tag_full_strength=1", {**EDGES_TUNED, "tag_full_strength": 1.0})],
    "overlaps": [("tuned", EDGES_TUNED),
                 ("min_shared_terms=2", {**EDGES_TUNED, "min_shared_terms": 2}),
                 ("min_shared_terms=2 overlap_full_terms=4", {**EDGES_TUNED, "min_shared_terms": 2,
                                                              "overlap_full_terms": 4}),
                 ("max_degree_overlaps=16", {**EDGES_TUNED, "max_degree_overlaps": 16}),
                 ("overlap_full_terms=4 max_degree_overlaps=16", {**EDGES_TUNED, "overlap_full_terms": 4,
                                                                  "max_degree_overlaps": 16})],
    "quick": [("tuned", EDGES_TUNED),
              ("tag_full_strength=1", {**EDGES_TUNED, "tag_full_strength": 1.0}),
              ("tag_full_strength=.75", {**EDGES_TUNED, "tag_full_strength": 0.75}),
              ("category_similarity_mix=1", {**EDGES_TUNED, "category_similarity_mix": 1.0}),
              ("degree caps x2", {**EDGES_TUNED, "max_degree_shares_tag": 24, "max_degree_same_category": 16,
                                  "max_degree_overlaps": 16})],
}


# Extracted topics: off (not extracted: the store before topics), and linking at two weights;
# the topic variants form their own families ("<recipe> +topics"), tuned on training folds alone.
TOPICS_OFF = {**EDGES_TUNED, "topics": {"enabled": False}}
EDGE_GRIDS["topics"] = [("no topics", TOPICS_OFF),
                        ("topics w=.5", {**EDGES_TUNED, "topic_tag_weight": 0.5}),
                        ("topics w=.25", {**EDGES_TUNED, "topic_tag_weight": 0.25}),
                        ("topics w=.5 max_df=.02", {**EDGES_TUNED, "topic_tag_weight": 0.5,
                                                    "topic_max_df_ratio": 0.02}),
                        ("topics w=.5 names only", {**EDGES_TUNED, "topic_tag_weight": 0.5,
                                                    "topics": {"words": False}})]
EDGE_FAMILIES = {label: " +topics" for label, _ in EDGE_GRIDS["topics"] if label != "no topics"}
# Window sizes ([context] before / after): each its own ingest and its own families ("default w2/0").
EDGE_GRIDS["windows"] = [("w2/2", EDGES_TUNED)] + [
    (f"w{b}/{a}", {**EDGES_TUNED, "context": {"before": b, "after": a}})
    for b, a in ((2, 0), (1, 1), (3, 3), (4, 0))]
EDGE_FAMILIES.update({label: f" {label}" for label, _ in EDGE_GRIDS["windows"] if label != "w2/2"})
EDGE_COMPARE = {"windows": [(f"{fam} {label}", fam) for label, _ in EDGE_GRIDS["windows"][1:]
                            for fam in ("hybrid_context", "default")]}


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
    started = git_state()             # the code that runs is the code at the start
    grid_spec = search_grid(args.grid)
    grid: dict[str, dict[str, dict[str, float]]] = {}
    families: dict[str, list[str]] = {}
    meta: dict[str, Any] = {}
    for edge_label, edges in EDGE_GRIDS[args.edges]:
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
                full = label if len(EDGE_GRIDS[args.edges]) == 1 else f"{edge_label} / {label}"
                t0 = time.perf_counter()
                runs = run_config(engine, dataset, recipe, CV_DEPTH, params)
                grid[full] = {r.query_id: {**query_metrics(r, relevance[r.query_id], 10, 10),
                                           **coverage_metrics(r, contents, q.fields.get("answer", "")),
                                           **block_metrics(engine, r, q.namespace, q.fields.get("answer", "")),
                                           **expansion_row(r, relevance[r.query_id], 10)}
                              for r, q in zip(runs, dataset.queries, strict=True)}
                family = GRID_FAMILIES.get(label, recipe)
                families.setdefault(family + EDGE_FAMILIES.get(edge_label, ""), []).append(full)
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
                             n_boot=args.bootstrap, per_query=PER_QUERY, compare=[*GRID_COMPARE.get(args.grid, []),
                                                                *EDGE_COMPARE.get(args.edges, [])])
    report = {"provenance": {**provenance([ds["memories"], ds["queries"]], meta["settings"],
                                          command_line()), "git": started},
              "name": args.name, "model": args.model or meta["settings"]["model"]["name"],
              "grid_spec": {"grid": args.grid, "edges": args.edges,
                            "points": [[lb, r, p] for lb, r, p in grid_spec],
                            "edge_variants": dict(EDGE_GRIDS[args.edges])}, **report}
    print_cv(report)
    out = args.output or ROOT / "bench" / "results" / "cv" / f"{args.name}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1) + "\n")
    print(f"wrote {out}", file=sys.stderr)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dataset", choices=["fixture", "locomo", "both"], default="both")
    ap.add_argument("--grid", choices=["ladder", "quick", "full", "weights", "router", "cv", "cv-small",
                                                     "cv-entities", "cv-model", "cv-topics", "cv-context",
                                                     "cv-multihop", "cv-windows", "cv-default", "cv-recall",
                                                     "cv-keys", "cv-threaded", "cv-rrf", "cv-time"],
                    default="quick")
    ap.add_argument("--edges", choices=sorted(EDGE_GRIDS), default="tuned")
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
    grid = search_grid(args.grid)
    for ds in datasets(args.dataset, args.only):
        for edge_label, edges in EDGE_GRIDS[args.edges]:
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
        args.output.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
