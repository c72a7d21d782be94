"""Typed search and list requests into what the engine runs: parsed once, here.

Why: every surface (the API, MCP, the library, the CLI) validates its request with the same
module-level model (``graphmem.contract.validate``), so the engine receives typed requests only.
Cursors live here too: a cursor is part of a list request.
"""

from __future__ import annotations

import re
from typing import Any

from graphmem.config import SearchConfig, Settings
from graphmem.contract.requests import ListArgs, SearchFilters, SearchRequest
from graphmem.contract.types import CURSOR_PATTERN
from graphmem.errors import ValidationError
from graphmem.model import ListOrder, Memory, MemoryFilter
from graphmem.text import normalize_category, normalize_tag

_CURSOR = re.compile(CURSOR_PATTERN)
_SORT_KEY_FORMS = {"created": "time", "-created": "time", "health": "health", "-health": "health",
                   "thread": "thread"}


def _dump(model: Any) -> dict[str, Any]:
    return {} if model is None else model.model_dump(exclude_none=True)


def filters_from(model: SearchFilters | None) -> MemoryFilter:
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


def list_filters(args: ListArgs) -> MemoryFilter:
    """The filter of a validated ``ListArgs`` (its repeated query parameters)."""
    return MemoryFilter(
        tags=list(dict.fromkeys(normalize_tag(t) for t in args.tags)),
        categories=[normalize_category(c) for c in args.category], sources=list(args.source),
        min_health=args.min_health, max_health=args.max_health, created_after=args.created_after,
        created_before=args.created_before, include_expired=args.include_expired,
        current_only=args.current_only, as_of=args.as_of)


def search_config(settings: Settings, request: SearchRequest) -> SearchConfig:
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


def cursor_form(cursor: str) -> str:
    """Which sort a well-formed cursor's key belongs to: ``time``, ``health`` or ``thread``."""
    return {"h": "health", "t": "thread"}.get(cursor[:1], "time")


def encode_position(sort: str, last: Memory) -> str:
    """The cursor after ``last`` in the order ``sort`` (``<key>~<id>``, see CURSOR_PATTERN)."""
    form = _SORT_KEY_FORMS[sort]
    if form == "health":
        return f"h{float(last.health)!r}~{last.id}"
    if form == "thread":
        head, created, _ = (last.thread_pos or "").split("|", 2)
        return f"t{head}|{created}~{last.id}"
    return encode_cursor(last.created_at, last.id)


def decode_position(cursor: str | None, sort: str) -> tuple[str | float, str] | None:
    """``(sort key, id)`` of a cursor for ``sort``; a cursor of another sort's page is refused."""
    if not cursor:
        return None
    if not _CURSOR.match(cursor):
        raise ValidationError("cursor is not valid (use next_cursor of the previous page)", field="cursor")
    form = cursor_form(cursor)
    if form != _SORT_KEY_FORMS[sort]:
        raise ValidationError(f"cursor belongs to a list in another order than sort={sort} "
                              "(use next_cursor of the previous page, with the same sort)", field="cursor")
    if form == "thread":        # t<seq>|<created_at>~<id>: the key is model.thread_position
        head, _, rest = cursor[1:].partition("|")
        created, memory_id = rest[:27], rest[28:]
        return f"{head}|{created}|{memory_id}", memory_id
    key, _, memory_id = cursor.partition("~")
    return (float(key[1:]), memory_id) if form == "health" else (key, memory_id)


def list_order(args: ListArgs) -> ListOrder:
    """The order and listing-only filters of a validated ``ListArgs``, its cursor decoded."""
    return ListOrder(sort=args.sort, thread=args.thread, superseded_only=args.superseded_only,
                     after=decode_position(args.cursor, args.sort))
