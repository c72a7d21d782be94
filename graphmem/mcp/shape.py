"""Tool results sized for a model's context: compact by default, full on request, always bounded.

Shaping only selects and cuts fields of what the engine returned; it never re-ranks.
"""

from __future__ import annotations

import json
from typing import Any

from graphmem.config import McpSettings
from graphmem.retrieval.why_text import why_parts

COMPACT_MEMORY_FIELDS = ("id", "content", "tags", "category", "source", "health")


def _cut(text: str, chars: int) -> str:
    return text if len(text) <= chars else text[: max(0, chars - 1)] + "…"


def memory(mem: dict[str, Any], detail: str, cfg: McpSettings) -> dict[str, Any]:
    """A stored memory: compact keeps what a model reasons with, with the content cut."""
    if detail == "full":
        return mem
    out = {key: mem[key] for key in COMPACT_MEMORY_FIELDS if mem.get(key) not in (None, [])}
    out["content"] = _cut(mem["content"], cfg.compact_content_chars)
    return out


def why_line(why: dict[str, Any]) -> str:
    """The structured ``why`` as one line: kind, recall channels, graph paths, health penalties."""
    return "; ".join([why["kind"], *why_parts(why)])


def search_result(result: dict[str, Any], detail: str, cfg: McpSettings) -> dict[str, Any]:
    if detail == "full":
        return result
    out = {"id": result["id"], "score": result["score"], "kind": result["kind"],
           **{k: v for k, v in memory(result["memory"], detail, cfg).items() if k != "id"}}
    if "why" in result:
        out["why"] = why_line(result["why"])
    return out


def neighbor(item: dict[str, Any], detail: str, cfg: McpSettings) -> dict[str, Any]:
    if detail == "full":
        return item
    reason = item["reason"]
    shared = reason.get("tags") or reason.get("terms") or reason.get("label") or reason.get("category")
    return {"id": item["memory"]["id"], "type": item["type"], "weight": round(item["weight"], 4),
            "because": shared, "content": _cut(item["memory"]["content"], cfg.compact_content_chars)}


def bounded(payload: dict[str, Any], list_key: str, cfg: McpSettings) -> dict[str, Any]:
    """Drop items from the end of ``payload[list_key]`` until the JSON fits ``max_result_chars``.

    Lists are ranked, so the tail is what goes; the result says how many were dropped.
    """
    items = payload[list_key]
    size = len(json.dumps(payload, ensure_ascii=False))
    if size <= cfg.max_result_chars:
        return payload
    sizes = [len(json.dumps(item, ensure_ascii=False)) + 1 for item in items]
    keep = len(items)
    while keep and size > cfg.max_result_chars:
        keep -= 1
        size -= sizes[keep]
    return {**payload, list_key: items[:keep],
            "truncated": {"dropped": len(items) - keep, "max_result_chars": cfg.max_result_chars,
                          "hint": "ask for fewer results or detail='compact'"}}
