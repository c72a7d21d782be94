"""The tuning grids of ``bench/tune_eval.py`` as data: ``bench/grids/search.json`` (search points)
and ``bench/grids/edges.json`` (edge variants, each a fresh ingest). The tuner reads them here;
a new grid is a new entry in those files, not code."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

GRIDS_DIR = Path(__file__).resolve().parent / "grids"


@dataclass(frozen=True)
class SearchGrid:
    points: list[tuple[str, str, dict[str, Any]]]     # (label, recipe, params)
    families: dict[str, str]                          # label -> CV family, when not its recipe
    compare: list[tuple[str, str]]                    # extra paired comparisons (a, b)


@dataclass(frozen=True)
class EdgeGrid:
    variants: list[tuple[str, dict[str, Any]]]        # (label, [edges] overrides)
    family_suffix: dict[str, str]                     # label -> appended to each point's family
    compare: list[tuple[str, str]]


@cache
def _read(kind: str) -> dict[str, Any]:
    data = json.loads((GRIDS_DIR / f"{kind}.json").read_text())
    data.pop("about", None)
    return data


def search_names() -> list[str]:
    return list(_read("search"))


def edge_names() -> list[str]:
    return sorted(_read("edges"))


def search_grid(name: str) -> SearchGrid:
    grids = _read("search")
    if name not in grids:
        raise SystemExit(f"unknown grid {name!r}; bench/grids/search.json has: {', '.join(grids)}")
    spec = grids[name]
    return SearchGrid(points=[(p["label"], p["recipe"], p["params"]) for p in spec["points"]],
                      families={p["label"]: p["family"] for p in spec["points"] if "family" in p},
                      compare=[(a, b) for a, b in grids[name]["compare"]])


def edge_grid(name: str) -> EdgeGrid:
    grids = _read("edges")
    if name not in grids:
        raise SystemExit(f"unknown edge grid {name!r}; bench/grids/edges.json has: {', '.join(sorted(grids))}")
    variants = grids[name]["variants"]
    return EdgeGrid(variants=[(v["label"], v["edges"]) for v in variants],
                    family_suffix={v["label"]: v["family_suffix"] for v in variants if "family_suffix" in v},
                    compare=[(a, b) for a, b in grids[name]["compare"]])
