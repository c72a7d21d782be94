"""Views: the engine's results as the contract's response models, and those models as text.

Why one module: the library, the API, MCP and the CLI answer with the same documents
(``contract.responses``), built here once from what the pipeline and the store return; the text
renderings of a result's ``why`` (CLI ``--explain``, MCP compact results) read those same models.
"""

from __future__ import annotations

from typing import Any

from graphmem.contract import responses
from graphmem.contract.requests import DEFAULT_SOURCE
from graphmem.contract.responses import SearchResponse, Server, Stats, Why
from graphmem.errors import StoreUnavailable
from graphmem.ingest.results import IngestResult
from graphmem.model import EDGE_TYPES, HEALTH_BINS, Edge, Memory, StoreStats
from graphmem.retrieval.pipeline import SearchOutcome

BATCH_STATUSES = ("created", "duplicate", "rejected")


def memory_response(memory: Memory) -> responses.Memory:
    """One stored memory as GET /v1/memories/{id} sends it (no embedding, no term counts)."""
    return responses.Memory.model_validate(memory.to_dict())


def _item_document(result: IngestResult) -> dict[str, Any]:
    """One add's outcome: status, the memory, a duplicate's ``not_stored`` and note, a rejection's error."""
    out = result.to_dict()
    out.pop("index")
    return out


def create_response(result: IngestResult) -> responses.CreateResult:
    """One add's answer (POST /v1/memories): created or a duplicate, with the stored memory."""
    return responses.CreateResult.model_validate(_item_document(result))


def batch_response(namespace: str, results: list[IngestResult]) -> responses.BatchResponse:
    """A batch's answer (POST /v1/memories:batch): the count per status and each item's outcome in
    request order. When nothing was written because the store was down, the whole batch is retryable:
    that ``StoreUnavailable`` is raised (HTTP 503) instead of answering every item as rejected."""
    down = [r.error for r in results if isinstance(r.error, StoreUnavailable)]
    if down and all(r.status == "rejected" for r in results):
        raise down[0]
    return responses.BatchResponse.model_validate({
        "namespace": namespace,
        "summary": {status: sum(r.status == status for r in results) for status in BATCH_STATUSES},
        "results": [r.to_dict() for r in results]})


def edge_response(edge: Edge) -> responses.Edge:
    """One edge as POST /v1/relations and the graph send it (``source``/``target``, not ``a``/``b``)."""
    return responses.Edge.model_validate(edge.to_dict())


def search_response(outcome: SearchOutcome, query: str, namespace: str, explain: bool = True,
                    trace: bool = False) -> SearchResponse:
    """The search response document: the query, the results (each with its ``why``), the trace."""
    results = []
    for cand in outcome.candidates:
        result: dict[str, Any] = {"id": cand.memory.id, "score": round(cand.score, 6), "kind": cand.kind,
                                  "memory": cand.memory.to_dict()}
        if explain:
            result["why"] = cand.why()
        results.append(result)
    out: dict[str, Any] = {"query": query, "namespace": namespace, "results": results}
    if trace:
        out["trace"] = outcome.trace
    return SearchResponse.model_validate(out)


def merge_stats(parts: list[StoreStats]) -> StoreStats:
    """One view of several namespaces' counts (a memory, and so its degree, is in one namespace)."""
    merged = StoreStats({}, dict.fromkeys(EDGE_TYPES, 0), dict.fromkeys(EDGE_TYPES, 0),
                        dict.fromkeys(HEALTH_BINS, 0))
    for part in parts:
        merged.namespaces.update(part.namespaces)
        for t in EDGE_TYPES:
            merged.edges[t] += part.edges.get(t, 0)
            merged.max_degree[t] = max(merged.max_degree[t], part.max_degree.get(t, 0))
        for bin_, count in part.health_bins.items():
            merged.health_bins[bin_] += count
    merged.namespaces = dict(sorted(merged.namespaces.items()))
    return merged


def stats_response(stats: StoreStats, server: dict[str, Any]) -> Stats:
    """The ``stats`` document: the server the counts come from, totals, and mean degree
    (2 x edges / memories) derived from raw counts."""
    total = sum(stats.namespaces.values())
    return Stats.model_validate({
        "server": Server.model_validate(server), "memories": total, "namespaces": stats.namespaces,
        "edges": stats.edges,
        "degree": {t: {"max": stats.max_degree.get(t, 0),
                       "mean": round(2 * stats.edges.get(t, 0) / total, 4) if total else 0.0} for t in EDGE_TYPES},
        "health_histogram": stats.health_bins})


def dump(model: Any) -> Any:
    """A response model as the JSON document the API sends (fields as built, aliases as named)."""
    return model.model_dump(mode="json", by_alias=True, exclude_unset=True)


# -- text -------------------------------------------------------------------------------------------
def shared_detail(reason: dict[str, Any]) -> Any:
    """What an edge's reason says the two memories share: the caller's tags and extracted topics
    (SHARES_TAG, named apart), terms, a relation's label, or the category."""
    if reason.get("topics"):
        return {"tags": reason.get("tags", []), "topics": reason["topics"]}
    return reason.get("tags") or reason.get("terms") or reason.get("label") or reason.get("category")


def why_parts(why: Why, max_paths: int = 2) -> list[str]:
    """The recall channels, up to ``max_paths`` graph paths, and any health penalties, one phrase each."""
    parts = []
    direct = why.direct
    if direct is not None:
        chans = [f"{name} #{hit.rank} ({hit.score:.3f})"
                 for name, hit in (("vector", direct.vector), ("lexical", direct.lexical)) if hit is not None]
        parts.append("direct: " + ", ".join(chans))
    for path in (why.related or [])[:max_paths]:
        detail = shared_detail(path.reason)
        parts.append(f"via {path.seed} {path.edge} w={path.weight:.2f} {detail}")
    if why.multihop is not None:
        parts.extend(shared.reason for shared in why.multihop.entities[:max_paths])
    return parts + penalty_parts(why)


def penalty_parts(why: Why) -> list[str]:
    """Why a result ranks lower than its match alone would put it, in words: each health penalty
    with its reason (e.g. "no category") and the multiplier it cost, and a source weighted below 1
    (none given, or one not ranked in ``[sources.ranks]``)."""
    parts = []
    health = why.health
    if health.penalties:
        reasons = "; ".join(f"{p.detail or p.rule} (-{p.penalty:g})" for p in health.penalties)
        if health.applied:
            parts.append(f"penalised x{health.multiplier:.2f}: health {health.score:.2f}, {reasons}")
        else:
            parts.append(f"health {health.score:.2f} (stage off): {reasons}")
    source = why.source
    if source.applied and source.weight < 1.0:
        name = source.source
        reason = (f"no source given ({name!r})" if name in ("", DEFAULT_SOURCE)
                  else f"source {name!r} ranks below the top of [sources.ranks]")
        parts.append(f"penalised x{source.weight:.2f}: {reason}")
    return parts


def why_text(why: Why) -> str:
    """The ``why`` as lines (CLI ``--explain``)."""
    return "\n".join(why_parts(why))


def why_line(why: Why) -> str:
    """The ``why`` as one line: kind, recall channels, graph paths, health penalties (MCP compact)."""
    return "; ".join([why.kind, *why_parts(why)])
