"""A result's ``why`` as short human/model-readable phrases (CLI ``--explain``, MCP compact results)."""

from __future__ import annotations

from typing import Any


def shared_detail(reason: dict[str, Any]) -> Any:
    """What an edge's reason says the two memories share: the caller's tags and extracted topics
    (SHARES_TAG, named apart), terms, a relation's label, or the category."""
    if reason.get("topics"):
        return {"tags": reason.get("tags", []), "topics": reason["topics"]}
    return reason.get("tags") or reason.get("terms") or reason.get("label") or reason.get("category")


def why_parts(why: dict[str, Any], max_paths: int = 2) -> list[str]:
    """The recall channels, up to ``max_paths`` graph paths, and any health penalties, one phrase each."""
    parts = []
    direct = why.get("direct")
    if direct:
        chans = [f"{name} #{direct[name]['rank']} ({direct[name]['score']:.3f})"
                 for name in ("vector", "lexical") if name in direct]
        parts.append("direct: " + ", ".join(chans))
    for path in why.get("related", [])[:max_paths]:
        detail = shared_detail(path["reason"])
        parts.append(f"via {path['seed'][:24]} {path['edge']} w={path['weight']:.2f} {detail}")
    health = why.get("health", {})
    if health.get("penalties"):
        parts.append("health " + ", ".join(p["rule"] for p in health["penalties"]))
    return parts
