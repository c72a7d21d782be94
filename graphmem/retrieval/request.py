"""Validation of search and list parameters coming from the API or the CLI."""

from __future__ import annotations

import re
from typing import Any

from graphmem.config import Limits, SearchConfig, Settings
from graphmem.contract import contract, for_limits, validate
from graphmem.contract.requests import CURSOR_PATTERN
from graphmem.errors import ValidationError
from graphmem.ingest.validate import normalize_tags
from graphmem.model import MemoryFilter
from graphmem.text import normalize_category

_CURSOR = re.compile(CURSOR_PATTERN)


def _validated(model: type, data: Any, prefix: str) -> Any:
    if data is not None and not isinstance(data, dict):
        raise ValidationError(f"{prefix} must be an object", field=prefix)
    return validate(model, data or {}, prefix)


def parse_filters(data: Any, limits: Limits, prefix: str = "filters") -> MemoryFilter:
    """A ``MemoryFilter`` from the contract's ``SearchFilters`` (tags normalised like stored tags)."""
    f = _validated(for_limits(limits).SearchFilters, data, prefix)
    return MemoryFilter(
        tags=normalize_tags(f.tags), categories=[normalize_category(c) for c in f.categories or []],
        sources=list(f.sources or []), min_health=f.min_health, max_health=f.max_health,
        created_after=f.created_after, created_before=f.created_before,
        include_expired=bool(f.include_expired), current_only=bool(f.current_only), as_of=f.as_of)


def parse_k(value: Any, limits: Limits, default: int) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= limits.max_k:
        raise ValidationError(f"k must be an integer between 1 and {limits.max_k}", field="k")
    return value


def build_search_config(settings: Settings, recipe: str | None, stages: Any,
                        params: Any) -> SearchConfig:
    """Recipe (named config) + per-request stage switches + tunable overrides, validated by the
    contract's ``Stages`` and ``SearchParams`` (whose bounds are ``SearchConfig``'s field metadata)."""
    if recipe is not None and (not isinstance(recipe, str) or recipe not in settings.recipes):
        raise ValidationError(f"unknown recipe {recipe!r}; recipes are {', '.join(sorted(settings.recipes))}",
                              field="recipe")
    models = contract(settings)
    overrides: dict[str, Any] = {}
    if stages is not None:
        overrides["stages"] = _validated(models.Stages, stages, "stages").model_dump(exclude_none=True)
    if params is not None:
        overrides.update(_validated(models.SearchParams, params, "params").model_dump(exclude_none=True))
    cfg = settings.recipe(recipe)
    return cfg.with_overrides(overrides) if overrides else cfg


def encode_cursor(created_at: str, memory_id: str) -> str:
    """``<created_at>~<id>`` of the last memory on the page: any such string is a valid position."""
    return f"{created_at}~{memory_id}"


def decode_cursor(cursor: str | None) -> tuple[str, str] | None:
    if not cursor:
        return None
    if not _CURSOR.match(cursor):
        raise ValidationError("cursor is not valid (use next_cursor of the previous page)", field="cursor")
    created_at, _, memory_id = cursor.partition("~")
    return created_at, memory_id
