"""A result's ``why`` as short human/model-readable phrases (CLI ``--explain``, MCP compact results)."""

from __future__ import annotations

from typing import Any

from graphmem.contract.requests import DEFAULT_SOURCE


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
        parts.append(f"via {path['seed']} {path['edge']} w={path['weight']:.2f} {detail}")
    for shared in (why.get("multihop") or {}).get("entities", [])[:max_paths]:
        parts.append(shared["reason"])
    return parts + penalty_parts(why)


def penalty_parts(why: dict[str, Any]) -> list[str]:
    """Why a result ranks lower than its match alone would put it, in words: each health penalty
    with its reason (e.g. "no category") and the multiplier it cost, and a source weighted below 1
    (none given, or one not ranked in ``[sources.ranks]``)."""
    parts = []
    health = why.get("health") or {}
    penalties = health.get("penalties") or []
    if penalties:
        reasons = "; ".join(f"{p.get('detail') or p['rule']} (-{p['penalty']:g})" for p in penalties)
        if health.get("applied", True):
            multiplier = health.get("multiplier", 1.0)
            parts.append(f"penalised x{multiplier:.2f}: health {health['score']:.2f}, {reasons}")
        else:
            parts.append(f"health {health['score']:.2f} (stage off): {reasons}")
    source = why.get("source") or {}
    if source.get("applied") and source.get("weight", 1.0) < 1.0:
        name = source.get("source")
        reason = (f"no source given ({name!r})" if name in (None, "", DEFAULT_SOURCE)
                  else f"source {name!r} ranks below the top of [sources.ranks]")
        parts.append(f"penalised x{source['weight']:.2f}: {reason}")
    return parts
