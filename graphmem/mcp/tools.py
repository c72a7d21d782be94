"""The MCP tools: a description written for a model, and a handler over the library facade.

Handlers call ``graphmem.engine.Graphmem`` exactly as the HTTP routes do (same ranking, same
validation messages); they add only result shaping (``graphmem.mcp.shape``). Each takes the
already authorised namespace and the remaining arguments, and runs in a worker thread.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from graphmem.config import McpSettings
from graphmem.engine import Graphmem
from graphmem.errors import ValidationError
from graphmem.ingest.validate import PATCHABLE_FIELDS
from graphmem.mcp import shape
from graphmem.retrieval.request import parse_filters

Handler = Callable[[Graphmem, McpSettings, str, dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    handler: Handler
    read_only: bool = True
    destructive: bool = False


def _detail(args: dict[str, Any]) -> str:
    value = args.pop("detail", "compact")
    if value not in ("compact", "full"):
        raise ValidationError("detail must be 'compact' or 'full'", field="detail")
    return value


def _flag(args: dict[str, Any], name: str, default: bool) -> bool:
    value = args.get(name, default)
    if not isinstance(value, bool):
        raise ValidationError(f"{name} must be a boolean", field=name)
    return value


def _id(args: dict[str, Any], name: str = "id") -> str:
    value = args.get(name)
    if not isinstance(value, str) or not value:
        raise ValidationError("id must be a non-empty string", field=name)
    return value


def _bounded_number(args: dict[str, Any], name: str, default: float, low: float, high: float,
                    integer: bool = False) -> Any:
    value = args.get(name, default)
    kinds = int if integer else int | float
    if isinstance(value, bool) or not isinstance(value, kinds):
        raise ValidationError(f"{name} must be {'an integer' if integer else 'a number'}", field=name)
    if not low <= value <= high:      # also rejects nan
        raise ValidationError(f"{name} must be between {low} and {high}", field=name)
    return value


def search_memories(eng: Graphmem, cfg: McpSettings, ns: str, args: dict[str, Any]) -> dict[str, Any]:
    detail, explain = _detail(args), _flag(args, "explain", True)
    filters = parse_filters(args.get("filters"), eng.settings.limits)
    out = eng.search(args.get("query"), ns, args.get("k"), filters, args.get("recipe"), args.get("stages"),
                     args.get("params"), explain=explain)
    out["results"] = [shape.search_result(r, detail, cfg) for r in out["results"]]
    return shape.bounded(out, "results", cfg)


def add_memory(eng: Graphmem, cfg: McpSettings, ns: str, args: dict[str, Any]) -> dict[str, Any]:
    detail = _detail(args)
    out = eng.add({**args, "namespace": ns}, ns).to_dict()
    out.pop("index", None)
    out["memory"] = shape.memory(out["memory"], detail, cfg)
    return out


def get_memory(eng: Graphmem, cfg: McpSettings, ns: str, args: dict[str, Any]) -> dict[str, Any]:
    detail = _detail(args)
    return shape.memory(eng.get(ns, _id(args)).to_dict(), detail, cfg)


def update_memory(eng: Graphmem, cfg: McpSettings, ns: str, args: dict[str, Any]) -> dict[str, Any]:
    detail, memory_id = _detail(args), _id(args)
    patch = {k: v for k, v in args.items() if k != "id"}
    if not patch:
        raise ValidationError("a patch must change at least one of " + ", ".join(sorted(PATCHABLE_FIELDS)),
                              field=None)
    return shape.memory(eng.update(ns, memory_id, patch).to_dict(), detail, cfg)


def delete_memory(eng: Graphmem, cfg: McpSettings, ns: str, args: dict[str, Any]) -> dict[str, Any]:
    memory_id = _id(args)
    eng.delete(ns, memory_id)
    return {"deleted": memory_id, "namespace": ns}


def memory_neighbors(eng: Graphmem, cfg: McpSettings, ns: str, args: dict[str, Any]) -> dict[str, Any]:
    detail, memory_id = _detail(args), _id(args)
    min_weight = _bounded_number(args, "min_weight", 0.0, 0.0, 1.0)
    limit = _bounded_number(args, "limit", cfg.neighbors_limit, 1, 200, integer=True)
    types = args.get("types")
    if types is not None and (not isinstance(types, list) or not all(isinstance(t, str) for t in types)):
        raise ValidationError("types must be a list of edge types", field="types")
    out = eng.neighbors(ns, memory_id, types or None, float(min_weight), limit)
    out["memory"] = shape.memory(out["memory"], detail, cfg)
    out["neighbors"] = [shape.neighbor(n, detail, cfg) for n in out["neighbors"]]
    return shape.bounded(out, "neighbors", cfg)


def relate_memories(eng: Graphmem, cfg: McpSettings, ns: str, args: dict[str, Any]) -> dict[str, Any]:
    label = args.get("label")
    edge = eng.relate(ns, args.get("from_id"), args.get("to_id"), args.get("evidence"),
                      label.strip() if isinstance(label, str) else label, args.get("weight"))
    return edge.to_dict()


def memory_stats(eng: Graphmem, cfg: McpSettings, ns: str, args: dict[str, Any]) -> dict[str, Any]:
    return eng.stats(ns)


TOOLS: dict[str, ToolSpec] = {spec.name: spec for spec in (
    ToolSpec("search_memories", "Search memories", (
        "Recall stored memories relevant to a question or task. Call this before answering anything that "
        "may depend on earlier sessions, the user's preferences, configuration, skills or rules. Hybrid "
        "search (meaning + keywords), then one hop along the memory graph, so related records that share "
        "tags or a category come back even without shared words; low-quality and weak-source records are "
        "ranked down. Each result has `why`: the recall ranks, or the memory and edge it was reached "
        "through, and health penalties. `filters` narrows by tags (all must match), categories, sources, "
        "health or time; `k` is how many results (default 10). Ids in results work with get_memory, "
        "memory_neighbors, relate_memories."), search_memories),
    ToolSpec("add_memory", "Remember something", (
        "Store one durable fact, preference, rule, skill or configuration note for later sessions. Write "
        "it self-contained (30-500 characters is healthiest), give `tags` (topic words) and a `category` "
        "so it links to related memories, and `source` for provenance (e.g. memory_tool). If you derived "
        "it from a text rather than being told it, set `extracted: true` and give `evidence` "
        "{source_text, quote}: it is stored only if the quote occurs in the source text. Resending the "
        "same content returns the stored one (`status: duplicate`). Returns the stored memory with its "
        "health score."), add_memory, read_only=False),
    ToolSpec("get_memory", "Get a memory", (
        "Fetch one memory by id, whatever its health (search ranks low-health records down; this "
        "does not)."), get_memory),
    ToolSpec("update_memory", "Update a memory", (
        "Change a memory's content, tags, category, source, reason, metadata or expiry (give only the "
        "fields to change). Changing content, tags or category re-embeds it and re-links its edges. Use "
        "it to correct a memory instead of adding a near-copy."), update_memory, read_only=False),
    ToolSpec("delete_memory", "Delete a memory", (
        "Delete a memory and all its edges, for a memory that is wrong or no longer true. Cannot be "
        "undone."), delete_memory, read_only=False, destructive=True),
    ToolSpec("memory_neighbors", "Related memories", (
        "List the memories linked to one memory, strongest edge first: SHARES_TAG (common tags, rarer "
        "tags weigh more), SAME_CATEGORY, OVERLAPS (shared distinctive words) and RELATED (explicit, "
        "evidence-backed). Use it to explore around a search result, e.g. the configuration or rules "
        "that go with a skill."), memory_neighbors),
    ToolSpec("relate_memories", "Relate two memories", (
        "Add an explicit RELATED edge between two memories, so finding one brings up the other. It must "
        "carry `evidence` {source_text, quote}: a text that states the relation and a quote from it; "
        "the edge is saved only if the quote occurs in the text (case and whitespace ignored). `label` "
        "names the relation (e.g. depends_on)."), relate_memories, read_only=False),
    ToolSpec("memory_stats", "Memory statistics", (
        "Counts for the namespace: memories, edges per type, degree, and a health histogram. Useful to "
        "check that memory is populated before relying on it."), memory_stats),
)}
