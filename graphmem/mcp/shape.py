"""Tool results sized for a model's context: compact by default, full on request, always bounded.

Shaping only selects and cuts fields of what the engine returned; it never re-ranks.
"""

from __future__ import annotations

import json
from typing import Any

from graphmem.config import McpSettings
from graphmem.contract.responses import SearchResult
from graphmem.views import shared_detail, why_line

COMPACT_MEMORY_FIELDS = ("id", "content", "tags", "category", "source", "health")
ENVELOPE_CHARS = 256        # what a single-memory result adds around the memory (status, id, ...)


def _cut(text: str, chars: int) -> str:
    return text if len(text) <= chars else text[: max(0, chars - 1)] + "…"


def _size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False))


def fit(mem: dict[str, Any], budget: int) -> dict[str, Any]:
    """A full memory within ``budget`` characters of JSON: metadata, then content, give way."""
    if _size(mem) <= budget:
        return mem
    out = {**mem, "metadata": {}, "truncated": {"metadata_chars": _size(mem.get("metadata") or {}),
                                                "content_chars": len(mem["content"])}}
    chars = max(0, budget - _size({**out, "content": ""}))
    while chars and _size(_cut(mem["content"], chars)) > budget - _size({**out, "content": ""}):
        chars = chars * 3 // 4               # JSON escapes make some characters longer
    out["content"] = _cut(mem["content"], chars)
    return out


def memory(mem: dict[str, Any], detail: str, cfg: McpSettings, budget: int | None = None) -> dict[str, Any]:
    """A stored memory: compact keeps what a model reasons with, with the content cut; full keeps
    every field within ``budget`` (default: the whole result's bound, less room for its envelope)."""
    if detail == "full":
        return fit(mem, budget or cfg.max_result_chars - ENVELOPE_CHARS)
    out = {key: mem[key] for key in COMPACT_MEMORY_FIELDS if mem.get(key) not in (None, [])}
    out["content"] = _cut(mem["content"], cfg.compact_content_chars)
    return out


def search_result(result: dict[str, Any], typed: SearchResult, detail: str, cfg: McpSettings) -> dict[str, Any]:
    """One result (``result`` is ``typed`` as JSON): full keeps it (the memory fitted), compact keeps
    the memory's main fields and the ``why`` as one line."""
    if detail == "full":
        return {**result, "memory": fit(result["memory"], cfg.max_result_chars // 4)}
    out = {"id": result["id"], "score": result["score"], "kind": result["kind"],
           **{k: v for k, v in memory(result["memory"], detail, cfg).items() if k != "id"}}
    if typed.why is not None:
        out["why"] = why_line(typed.why)
    return out


def neighbor(item: dict[str, Any], detail: str, cfg: McpSettings) -> dict[str, Any]:
    if detail == "full":
        return {**item, "memory": fit(item["memory"], cfg.max_result_chars // 4)}
    reason = item["reason"]
    shared = shared_detail(reason)
    return {"id": item["memory"]["id"], "type": item["type"], "weight": round(item["weight"], 4),
            "because": shared, "content": _cut(item["memory"]["content"], cfg.compact_content_chars)}


def bounded(payload: dict[str, Any], list_key: str, cfg: McpSettings) -> dict[str, Any]:
    """Drop items from the end of ``payload[list_key]`` until the JSON fits ``max_result_chars``.

    Lists are ranked, so the tail is what goes; the result says how many were dropped.
    """
    items = payload[list_key]
    size = _size(payload)
    if size <= cfg.max_result_chars:
        return payload
    sizes = [_size(item) + 1 for item in items]
    keep = len(items)
    while keep and size > cfg.max_result_chars:
        keep -= 1
        size -= sizes[keep]
    return {**payload, list_key: items[:keep],
            "truncated": {"dropped": len(items) - keep, "max_result_chars": cfg.max_result_chars,
                          "hint": "ask for fewer results or detail='compact'"}}
