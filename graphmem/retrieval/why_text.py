"""A result's ``why`` as short human/model-readable phrases (CLI ``--explain``, MCP compact results)."""

from __future__ import annotations

from typing import Any


def why_parts(why: dict[str, Any], max_paths: int = 2) -> list[str]:
    """The recall channels, up to ``max_paths`` graph paths, and any health penalties, one phrase each."""
    parts = []
    direct = why.get("direct")
    if direct:
        chans = [f"{name} #{direct[name]['rank']} ({direct[name]['score']:.3f})"
                 for name in ("vector", "lexical") if name in direct]
        parts.append("direct: " + ", ".join(chans))
    for path in why.get("related", [])[:max_paths]:
        detail = path["reason"].get("tags") or path["reason"].get("terms") or path["reason"].get("category")
        parts.append(f"via {path['seed'][:24]} {path['edge']} w={path['weight']:.2f} {detail}")
    health = why.get("health", {})
    if health.get("penalties"):
        parts.append("health " + ", ".join(p["rule"] for p in health["penalties"]))
    return parts
