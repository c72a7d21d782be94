"""The MCP tools: a description written for a model, and a handler over the library facade.

Handlers call ``graphmem.engine.Graphmem`` exactly as the HTTP routes do (same ranking, same
validation messages); they add only result shaping (``graphmem.mcp.shape``). Each takes the
already authorised namespace and the remaining arguments, and runs in a worker thread.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from graphmem.config import McpSettings
from graphmem.contract.requests import (
    ContextRequest,
    MemoryInput,
    MemoryPatch,
    NamespaceArgs,
    NeighborsArgs,
    RelationRequest,
    SearchRequest,
)
from graphmem.engine import Graphmem
from graphmem.mcp import shape
from graphmem.views import dump

Handler = Callable[[Graphmem, McpSettings, str, Any, dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class ToolSpec:
    """A tool: its request model in ``graphmem.contract``, MCP-only fields, and its handler.

    The handler gets the engine, the ``[mcp]`` settings, the authorised namespace, the
    validated request model and the MCP-only arguments (``memory_id``, validated by the API's
    ``MemoryPath``, and ``detail``, by ``ToolDetail``)."""

    name: str
    title: str
    description: str
    handler: Handler
    model: type[BaseModel]
    extra: tuple[str, ...] = ("detail",)
    defaults: dict[str, str] = field(default_factory=dict)   # model field -> [mcp] setting
    unlisted: tuple[str, ...] = ()      # model fields accepted but not advertised (expert knobs cost context)
    read_only: bool = True
    destructive: bool = False


def _fields(model: BaseModel) -> dict[str, Any]:
    """What the caller sent (unset fields stay unset, so the engine applies its defaults)."""
    return {k: v for k, v in model.model_dump(exclude_unset=True).items() if k != "namespace"}


def search_memories(eng: Graphmem, cfg: McpSettings, ns: str, req: SearchRequest,
                    extra: dict[str, Any]) -> dict[str, Any]:
    found = eng.search(req.query, ns, req.k, req.filters, req.recipe, req.stages, req.params, explain=req.explain,
                       trace=req.trace)
    out = dump(found)
    out["results"] = [shape.search_result(r, typed, extra["detail"], cfg)
                      for r, typed in zip(out["results"], found.results, strict=True)]
    return shape.bounded(out, "results", cfg)


def add_memory(eng: Graphmem, cfg: McpSettings, ns: str, req: MemoryInput,
               extra: dict[str, Any]) -> dict[str, Any]:
    out = dump(eng.add({**_fields(req), "namespace": ns}, ns))
    out["memory"] = shape.memory(out["memory"], extra["detail"], cfg)
    return out


def get_memory(eng: Graphmem, cfg: McpSettings, ns: str, req: NamespaceArgs,
               extra: dict[str, Any]) -> dict[str, Any]:
    return shape.memory(dump(eng.get(ns, extra["memory_id"])), extra["detail"], cfg)


def update_memory(eng: Graphmem, cfg: McpSettings, ns: str, req: MemoryPatch,
                  extra: dict[str, Any]) -> dict[str, Any]:
    return shape.memory(dump(eng.update(ns, extra["memory_id"], _fields(req))), extra["detail"], cfg)


def delete_memory(eng: Graphmem, cfg: McpSettings, ns: str, req: NamespaceArgs,
                  extra: dict[str, Any]) -> dict[str, Any]:
    memory_id = extra["memory_id"]
    eng.delete(ns, memory_id)
    return {"deleted": memory_id, "namespace": ns}


def memory_neighbors(eng: Graphmem, cfg: McpSettings, ns: str, req: NeighborsArgs,
                     extra: dict[str, Any]) -> dict[str, Any]:
    detail = extra["detail"]
    limit = req.limit if "limit" in req.model_fields_set else cfg.neighbors_limit
    out = dump(eng.neighbors(ns, extra["memory_id"], req.types, req.min_weight, limit))
    out["memory"] = shape.memory(out["memory"], detail, cfg, cfg.max_result_chars // 4)
    out["neighbors"] = [shape.neighbor(n, detail, cfg) for n in out["neighbors"]]
    return shape.bounded(out, "neighbors", cfg)


def relate_memories(eng: Graphmem, cfg: McpSettings, ns: str, req: RelationRequest,
                    extra: dict[str, Any]) -> dict[str, Any]:
    return dump(eng.relate(ns, req.from_id, req.to_id, req.evidence, req.label, req.weight))


def memory_history(eng: Graphmem, cfg: McpSettings, ns: str, req: NamespaceArgs,
                   extra: dict[str, Any]) -> dict[str, Any]:
    out = dump(eng.history(ns, extra["memory_id"]))
    out["chain"] = [{"memory": shape.memory(e["memory"], extra["detail"], cfg)} for e in out["chain"]]
    return shape.bounded(out, "chain", cfg)


def supersede_candidates(eng: Graphmem, cfg: McpSettings, ns: str, req: NamespaceArgs,
                         extra: dict[str, Any]) -> dict[str, Any]:
    return dump(eng.supersede_candidates(ns, extra["memory_id"]))


def _context(eng: Graphmem, ns: str, req: ContextRequest) -> dict[str, Any]:
    return dump(eng.context(req.query, req.max_tokens, ns, req.k, req.filters, req.recipe, req.stages, req.params))


def memory_context(eng: Graphmem, cfg: McpSettings, ns: str, req: ContextRequest,
                   extra: dict[str, Any]) -> dict[str, Any]:
    """The block; when its JSON passes ``[mcp] max_result_chars``, rebuilt under the budget whose text
    fits the room the rest leaves (a block ends on a memory boundary, so it is rebuilt, not cut) and
    marked ``truncated``."""
    out = _context(eng, ns, req)
    asked = req.max_tokens
    for _ in range(4):
        size = len(json.dumps(out, ensure_ascii=False))
        if size <= cfg.max_result_chars or req.max_tokens <= 1:
            break
        text = len(json.dumps(out["text"], ensure_ascii=False))
        room = cfg.max_result_chars - (size - text) - 200          # 200: the truncated note
        smaller = max(1, min(req.max_tokens - 1, int(out["tokens"] * max(room, 0) / text * 0.95)))
        req = req.model_copy(update={"max_tokens": smaller})
        out = _context(eng, ns, req)
    if req.max_tokens != asked:
        out["truncated"] = {"max_tokens": req.max_tokens, "max_result_chars": cfg.max_result_chars,
                            "hint": "ask for fewer max_tokens"}
    return out


def memory_stats(eng: Graphmem, cfg: McpSettings, ns: str, req: NamespaceArgs,
                 extra: dict[str, Any]) -> dict[str, Any]:
    out = dump(eng.stats(ns))
    out.pop("server")        # the tool reports counts (the server is the operator's concern: /v1/stats)
    return out


TOOLS: dict[str, ToolSpec] = {spec.name: spec for spec in (
    ToolSpec("search_memories", "Search memories", (
        "Recall stored memories relevant to a question or task. Call this before answering anything that "
        "may depend on earlier sessions, the user's preferences, configuration, skills or rules. Hybrid "
        "search (meaning + keywords), then one hop along the memory graph, so related records that share "
        "tags or a category come back even without shared words; low-quality and weak-source records are "
        "ranked down. Each result has `why`: the recall ranks, or the memory and edge it was reached "
        "through, and health penalties. `filters` narrows by tags (all must match), categories, sources, "
        "health or time; `k` is how many results (default 10). Ids in results work with get_memory, "
        "memory_neighbors, relate_memories."), search_memories, SearchRequest,
        unlisted=("params",)),
    ToolSpec("add_memory", "Remember something", (
        "Store one durable fact, preference, rule, skill or configuration note for later sessions. Write "
        "it self-contained (30-500 characters is healthiest), give `tags` (topic words) and a `category` "
        "so it links to related memories, and `source` for provenance (e.g. memory_tool). If you derived "
        "it from a text rather than being told it, set `extracted: true` and give `evidence` "
        "{source_text, quote}: it is stored only if the quote occurs in the source text. Resending the "
        "same content returns the stored one (`status: duplicate`). When it replaces older memories (a fact "
        "that changed), list their ids in `supersedes`: they are kept, marked `superseded_by` and ranked "
        "below it. Returns the stored memory with its health score."), add_memory, MemoryInput, read_only=False),
    ToolSpec("get_memory", "Get a memory", (
        "Fetch one memory by id, whatever its health (search ranks low-health records down; this "
        "does not)."), get_memory, NamespaceArgs, ("memory_id", "detail")),
    ToolSpec("update_memory", "Update a memory", (
        "Change a memory's content, tags, category, source, reason, metadata or expiry (give only the "
        "fields to change). Changing content, tags or category re-embeds it and re-links its edges. Use "
        "it to correct a memory instead of adding a near-copy; when a fact changed (a new version, a new "
        "preference), add the new memory with `supersedes: [old id]` instead, which keeps the old one "
        "as history and ranks it below the new one."), update_memory, MemoryPatch,
        ("memory_id", "detail"), read_only=False),
    ToolSpec("delete_memory", "Delete a memory", (
        "Delete a memory and all its edges, for a memory that is wrong or no longer true. Cannot be "
        "undone."), delete_memory, NamespaceArgs, ("memory_id",), read_only=False, destructive=True),
    ToolSpec("memory_neighbors", "Related memories", (
        "List the memories linked to one memory, strongest edge first: SHARES_TAG (common tags, rarer "
        "tags weigh more), SAME_CATEGORY, OVERLAPS (shared distinctive words) and RELATED (explicit, "
        "evidence-backed). Use it to explore around a search result, e.g. the configuration or rules "
        "that go with a skill."), memory_neighbors, NeighborsArgs, ("memory_id", "detail"),
        defaults={"limit": "neighbors_limit"}),
    ToolSpec("relate_memories", "Relate two memories", (
        "Add an explicit RELATED edge between two memories, so finding one brings up the other. It must "
        "carry `evidence` {source_text, quote}: a text that states the relation and a quote from it; "
        "the edge is saved only if the quote occurs in the text (case and whitespace ignored). `label` "
        "names the relation (e.g. depends_on)."), relate_memories, RelationRequest, (), read_only=False),
    ToolSpec("memory_history", "History of a memory", (
        "The versions of a fact, oldest first: the memories linked by supersession (`supersedes` on a "
        "write) with when and why each replaced the one before, and which version is current. Use it when "
        "a result carries `superseded_by`, or to see how a fact changed."), memory_history, NamespaceArgs,
        ("memory_id", "detail")),
    ToolSpec("supersede_candidates", "Possible replacements of a memory", (
        "Proposed \"may supersede\" links a memory is part of: another memory of the same tag or category "
        "that says nearly the same thing with a different number, version, date or name. Each comes with "
        "both differing spans as evidence; nothing is applied. If the newer one does replace the older, "
        "write it again with `supersedes` (or ask the user); if both are true (two clusters, two people), "
        "leave them."), supersede_candidates, NamespaceArgs, ("memory_id",)),
    ToolSpec("memory_stats", "Memory statistics", (
        "Counts for the namespace: memories, edges per type, degree, and a health histogram. Useful to "
        "check that memory is populated before relying on it."), memory_stats, NamespaceArgs, ()),
    ToolSpec("memory_context", "Memory as prompt context", (
        "The memories relevant to a question as one text ready to put in a prompt, within `max_tokens`: "
        "each memory dated (relative phrases such as 'last week' resolved to dates), with its speaker or "
        "source, grouped by conversation in order with neighbouring turns, cut on a memory boundary. "
        "Takes the same query, filters and k as search_memories; returns the text, its token count, the "
        "memory ids in the order shown and the trace."), memory_context, ContextRequest, (),
        unlisted=("params",)),
)}
