"""Typed search and list requests into what the engine runs: parsed once, here.

Why: the API and MCP receive ``SearchRequest`` already validated; the library and the CLI send
plain values, which are parsed by the same model (``parse_search``), so every surface checks the
same bounds with the same words and the engine never validates again. Cursors live here too: a
cursor is part of a list request.
"""

from __future__ import annotations

import re
from typing import Any

from graphmem.config import SearchConfig, Settings
from graphmem.contract import contract, for_limits, validate
from graphmem.contract.types import CURSOR_PATTERN
from graphmem.errors import ValidationError
from graphmem.model import MemoryFilter
from graphmem.text import normalize_category, normalize_tag

_CURSOR = re.compile(CURSOR_PATTERN)


def _dump(model: Any) -> dict[str, Any]:
    return {} if model is None else model.model_dump(exclude_none=True)


def filters_from(model: Any) -> MemoryFilter:
    """A ``MemoryFilter`` from a validated ``SearchFilters`` (tags and categories normalised like
    stored ones); ``None`` is no filter."""
    if model is None:
        return MemoryFilter()
    return MemoryFilter(
        tags=list(dict.fromkeys(normalize_tag(t) for t in model.tags or [])),
        categories=[normalize_category(c) for c in model.categories or []],
        sources=list(model.sources or []), min_health=model.min_health, max_health=model.max_health,
        created_after=model.created_after, created_before=model.created_before,
        include_expired=bool(model.include_expired), current_only=bool(model.current_only), as_of=model.as_of)


def list_filters(args: Any) -> MemoryFilter:
    """The filter of a validated ``ListArgs`` (its repeated query parameters)."""
    return MemoryFilter(
        tags=list(dict.fromkeys(normalize_tag(t) for t in args.tags)),
        categories=[normalize_category(c) for c in args.category], sources=list(args.source),
        min_health=args.min_health, max_health=args.max_health, created_after=args.created_after,
        created_before=args.created_before, include_expired=args.include_expired,
        current_only=args.current_only, as_of=args.as_of)


def parse_filters(data: Any, settings: Settings, prefix: str = "filters") -> MemoryFilter:
    """Plain filter values (the library, the CLI) through the same ``SearchFilters`` model."""
    if data is not None and not isinstance(data, dict):
        raise ValidationError(f"{prefix} must be an object", field=prefix)
    return filters_from(validate(for_limits(settings.limits).SearchFilters, data or {}, prefix))


def parse_args(settings: Settings, model: str, **fields: Any) -> Any:
    """Plain values (the library, the CLI) through the contract model ``model`` (e.g. ``ListArgs``),
    unset ones left out: the same bounds and words as the HTTP query string or body."""
    return validate(getattr(contract(settings), model), {k: v for k, v in fields.items() if v is not None})


def parse_search(settings: Settings, **fields: Any) -> Any:
    """A ``SearchRequest`` from plain values (unset ones left out), validated as an HTTP body is."""
    return validate(contract(settings).SearchRequest, {k: v for k, v in fields.items() if v is not None})


def search_config(settings: Settings, request: Any) -> SearchConfig:
    """The recipe a validated request names, with its stage switches and tunable overrides."""
    cfg = settings.recipe(request.recipe)
    overrides: dict[str, Any] = _dump(request.params)
    if request.stages is not None:
        overrides["stages"] = _dump(request.stages)
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
