"""Validation of search and list parameters coming from the API or the CLI."""

from __future__ import annotations

import base64
import json
from typing import Any

from graphmem.config import STAGES, Limits, SearchConfig, Settings
from graphmem.errors import ValidationError
from graphmem.ingest.validate import validate_tags
from graphmem.model import EDGE_TYPES, MemoryFilter, normalize_timestamp
from graphmem.text import normalize_category

# Parameters a request may override on top of its recipe: name -> (kind, low, high).
TUNABLE: dict[str, tuple[str, float, float]] = {
    "recall_candidates": ("int", 1, 1000), "lexical_lookup_terms": ("int", 1, 64),
    "lexical_max_df_ratio": ("float", 0.0, 1.0), "lexical_max_postings": ("int", 1, 10_000_000),
    "lexical_overfetch": ("int", 1, 20),
    "rrf_k": ("int", 0, 10000), "vector_weight": ("float", 0.0, 10.0), "lexical_weight": ("float", 0.0, 10.0),
    "router_boost": ("float", 0.0, 10.0), "recency_weight": ("float", 0.0, 10.0),
    "recency_half_life_days": ("float", 0.001, 36500.0), "expansion_seeds": ("int", 0, 100),
    "expansion_per_seed": ("int", 0, 100), "expansion_max_added": ("int", 0, 200),
    "expansion_min_edge_weight": ("float", 0.0, 1.0), "expansion_decay": ("float", 0.0, 1.0),
    "expansion_similarity_mix": ("float", 0.0, 1.0), "expansion_merge_bonus": ("float", 0.0, 10.0),
    "health_floor": ("float", 0.0, 1.0), "fusion": ("choice", 0, 0), "edge_type_weights": ("edges", 0, 0),
    "dedupe_near_duplicates": ("bool", 0, 0),
}


def _check_param(name: str, value: Any) -> None:
    kind, low, high = TUNABLE[name]
    field = f"params.{name}"
    if kind == "choice":
        if value not in ("rrf", "weighted"):
            raise ValidationError("fusion must be 'rrf' or 'weighted'", field=field)
    elif kind == "bool":
        if not isinstance(value, bool):
            raise ValidationError(f"{name} must be a boolean", field=field)
    elif kind == "edges":
        if not isinstance(value, dict):
            raise ValidationError("edge_type_weights must be an object of edge type -> weight", field=field)
        for edge_type, weight in value.items():
            if edge_type not in EDGE_TYPES:
                raise ValidationError(f"unknown edge type {edge_type!r}", field=f"{field}.{edge_type}")
            _check_number(weight, f"{field}.{edge_type}", "float", 0.0, 10.0)
    else:
        _check_number(value, field, kind, low, high)


def _check_number(value: Any, field: str, kind: str, low: float, high: float) -> None:
    ok_type = isinstance(value, int) if kind == "int" else isinstance(value, int | float)
    if isinstance(value, bool) or not ok_type or value != value:
        raise ValidationError(f"{field.split('.')[-1]} must be {'an integer' if kind == 'int' else 'a number'}",
                              field=field)
    if not low <= value <= high:
        raise ValidationError(f"{field.split('.')[-1]} must be between {low} and {high}", field=field)


def _string_list(value: Any, name: str, limits: Limits) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        value = [v for v in value.split(",") if v]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValidationError(f"{name} must be a list of strings", field=name)
    if len(value) > limits.max_filter_values:
        raise ValidationError(f"{name} has {len(value)} values; the limit is {limits.max_filter_values}",
                              field=name)
    return value


def _number(value: Any, name: str, low: float, high: float) -> float | None:
    if value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValidationError(f"{name} must be a number", field=name) from None
    if not low <= number <= high:
        raise ValidationError(f"{name} must be between {low} and {high}", field=name)
    return number


def _time(value: Any, name: str) -> str | None:
    if value is None:
        return None
    try:
        return normalize_timestamp(str(value))
    except ValueError:
        raise ValidationError(f"{name} must be an ISO-8601 timestamp", field=name) from None


def parse_filters(data: Any, limits: Limits, prefix: str = "filters") -> MemoryFilter:
    if data is None:
        return MemoryFilter()
    if not isinstance(data, dict):
        raise ValidationError("filters must be an object", field=prefix)
    known = {"tags", "categories", "sources", "min_health", "max_health", "created_after",
             "created_before", "include_expired"}
    unknown = set(data) - known
    if unknown:
        raise ValidationError(f"unknown filter {min(unknown)!r}", field=f"{prefix}.{min(unknown)}")
    include_expired = data.get("include_expired", False)
    if isinstance(include_expired, str):
        include_expired = include_expired.lower() in ("1", "true", "yes")
    return MemoryFilter(
        tags=validate_tags(_string_list(data.get("tags"), f"{prefix}.tags", limits), limits, f"{prefix}.tags"),
        categories=[normalize_category(c) for c in _string_list(data.get("categories"), f"{prefix}.categories",
                                                                 limits)],
        sources=_string_list(data.get("sources"), f"{prefix}.sources", limits),
        min_health=_number(data.get("min_health"), f"{prefix}.min_health", 0, 1),
        max_health=_number(data.get("max_health"), f"{prefix}.max_health", 0, 1),
        created_after=_time(data.get("created_after"), f"{prefix}.created_after"),
        created_before=_time(data.get("created_before"), f"{prefix}.created_before"),
        include_expired=bool(include_expired))


def parse_k(value: Any, limits: Limits, default: int) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValidationError("k must be an integer", field="k")
    try:
        k = int(value)
    except ValueError:
        raise ValidationError("k must be an integer", field="k") from None
    if not 1 <= k <= limits.max_k:
        raise ValidationError(f"k must be between 1 and {limits.max_k}", field="k")
    return k


def build_search_config(settings: Settings, recipe: str | None, stages: Any,
                        params: Any) -> SearchConfig:
    """Recipe (named config) + per-request stage switches + tunable parameter overrides."""
    if recipe is not None and not isinstance(recipe, str):
        raise ValidationError("recipe must be a string", field="recipe")
    if recipe is not None and recipe not in settings.recipes:
        raise ValidationError(f"unknown recipe {recipe!r}; known: {', '.join(sorted(settings.recipes))}",
                              field="recipe")
    cfg = settings.recipe(recipe)
    overrides: dict[str, Any] = {}
    if stages is not None:
        if not isinstance(stages, dict):
            raise ValidationError("stages must be an object of booleans", field="stages")
        for name, on in stages.items():
            if name not in STAGES:
                raise ValidationError(f"unknown stage {name!r}; stages are {', '.join(STAGES)}",
                                      field=f"stages.{name}")
            if not isinstance(on, bool):
                raise ValidationError("stage switches are booleans", field=f"stages.{name}")
        overrides["stages"] = stages
    if params is not None:
        if not isinstance(params, dict):
            raise ValidationError("params must be an object", field="params")
        for name, value in params.items():
            if name not in TUNABLE:
                raise ValidationError(f"unknown parameter {name!r}", field=f"params.{name}")
            _check_param(name, value)
        overrides.update(params)
    return cfg.with_overrides(overrides) if overrides else cfg


def encode_cursor(created_at: str, memory_id: str) -> str:
    return base64.urlsafe_b64encode(json.dumps([created_at, memory_id]).encode()).decode()


def decode_cursor(cursor: str | None) -> tuple[str, str] | None:
    if not cursor:
        return None
    try:
        created_at, memory_id = json.loads(base64.urlsafe_b64decode(cursor.encode()))
        return str(created_at), str(memory_id)
    except (ValueError, TypeError):
        raise ValidationError("cursor is not valid", field="cursor") from None
