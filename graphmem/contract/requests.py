"""Request models: every body and query string of ``/v1``, with the bounds that validation
enforces and the OpenAPI document states.

Module-level classes, one per request. A bound that is configuration names its ``[limits]`` key
(``Limit``, ``graphmem.contract.limits``): validation reads the running server's limits from the
validation context, and the OpenAPI document is resolved against them. Search tunables are derived
from ``SearchConfig``'s field metadata."""

from __future__ import annotations

import json
from dataclasses import fields
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field, ValidationInfo, create_model, field_validator, model_validator
from pydantic_core import PydanticCustomError

from graphmem.config import STAGES, SearchConfig
from graphmem.contract.limits import Limit, OneOf, limits_of
from graphmem.contract.types import (
    CURSOR_PATTERN,
    Body,
    Count,
    EdgeType,
    MemoryId,
    Name,
    Namespace,
    Position,
    Positive,
    QueryArgs,
    QueryItem,
    Text,
    Timestamp,
    int_range,
)
from graphmem.model import EDGE_TYPES, LIST_SORTS

DEFAULT_SOURCE = "unknown"     # a memory stored without a source (HTTP, MCP, CLI and imports alike)
PATCHABLE = ("content", "tags", "category", "source", "reason", "metadata", "valid_from", "valid_until",
             "expires_at")


def json_depth(value: Any) -> int:
    """Nesting depth of a decoded JSON value, without recursion (a hostile body can be deep)."""
    depth, level = 0, [value]
    while level:
        depth += 1
        level = [v for item in level if isinstance(item, dict | list)
                 for v in (item.values() if isinstance(item, dict) else item)]
    return depth - 1


Id = Annotated[MemoryId, Field(description="Letters, digits and _ . : @ - in '/'-separated segments.")]
Tag = Annotated[Name, Limit("max_tag_chars")]
Thread = Annotated[Name, Limit("max_id_chars")]
Category = Annotated[Name, Limit("max_category_chars")]
Source = Annotated[Name, Limit("max_source_chars"), Field(
    description=f"Provenance; ranks by [sources.ranks] (e.g. memory_tool, MEMORY.md); default {DEFAULT_SOURCE}.")]
Reason = Annotated[Text, Limit("max_reason_chars")]
Content = Annotated[Text, Limit("max_content_chars")]
Query = Annotated[Text, Limit("max_query_chars")]
EvidenceText = Annotated[Text, Limit("max_evidence_chars")]
Label = Annotated[Name, Limit("max_relation_label_chars")]
Health = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]
K = Annotated[Positive, Limit("max_k")]
QTag = Annotated[QueryItem, Limit("max_tag_chars")]
QCategory = Annotated[QueryItem, Limit("max_category_chars")]
QSource = Annotated[QueryItem, Limit("max_source_chars")]
Detail = Literal["compact", "full"]


def _bounded(kind: type, low: Any, meta: dict[str, Any], doc: str | None) -> Any:
    """A tunable number from ``low`` to its fixed ``high`` or its ``[limits]`` ceiling."""
    if kind is int:
        if meta["ceiling"]:
            return Annotated[int_range(low), Limit(meta["ceiling"]), Field(description=doc)]
        return Annotated[int_range(low, meta["high"]), Field(description=doc)]
    if meta["ceiling"]:
        return Annotated[float, Field(ge=low, allow_inf_nan=False, description=doc), Limit(meta["ceiling"])]
    return Annotated[float, Field(ge=low, le=meta["high"], allow_inf_nan=False, description=doc)]


def _tunable_type(f: Any) -> Any:
    meta = f.metadata
    doc = meta["description"] or None
    if meta["choices"]:
        return Annotated[str, OneOf(tuple(meta["choices"])), Field(description=doc)]
    if f.type == "bool":
        return Annotated[bool, Field(description=doc)]
    if f.type in ("int", "float"):
        return _bounded(int if f.type == "int" else float, meta["low"], meta, doc)
    weight = _bounded(float, meta["low"], meta, None)
    optional: dict[str, Any] = {t: (weight | None, None) for t in EDGE_TYPES}   # built from the vocabulary
    edge_weights = create_model("EdgeTypeWeights", __base__=Body, **optional)
    return Annotated[edge_weights, Field(description=doc)]


_SWITCHES: dict[str, Any] = {s: (bool | None, None) for s in STAGES}
_TUNABLES: dict[str, Any] = {f.name: (_tunable_type(f) | None, None) for f in fields(SearchConfig)
                             if f.metadata.get("tunable")}
if TYPE_CHECKING:       # built from config's stage names and SearchConfig's tunables (one statement each)
    Stages = Body
    SearchParams = Body
else:
    Stages = create_model("Stages", __base__=Body, __doc__="Switch pipeline stages (all on by default).",
                          **_SWITCHES)
    SearchParams = create_model(
        "SearchParams", __base__=Body, __doc__="Overrides of the recipe's tunables; cost levers are capped "
                                               "by [limits].", **_TUNABLES)


class Evidence(Body):
    """The quote must occur in source_text (case and whitespace folded)."""

    source_text: EvidenceText
    quote: EvidenceText


class MemoryFields(Body):
    tags: Annotated[list[Tag], Limit("max_tags")] | None = None
    category: Category | None = None
    source: Source | None = None
    reason: Reason | None = None
    metadata: dict[str, Any] | None = Field(None, description=(
        "At most {limits.max_metadata_bytes} bytes as JSON, nested {limits.max_json_depth} deep."))
    valid_from: Timestamp | None = Field(None, description=(
        "When the fact became true (default: created_at); `as_of` searches compare it."))
    valid_until: Timestamp | None = Field(None, description=(
        "When the fact stopped being true (exclusive); not after valid_from (else created_at): 409."))
    expires_at: Timestamp | None = None

    @field_validator("metadata")
    @classmethod
    def _metadata_size(cls, value: dict[str, Any] | None, info: ValidationInfo) -> dict[str, Any] | None:
        if value is None:
            return value
        lim = limits_of(info)
        if json_depth(value) > lim.max_json_depth - 1:
            raise ValueError(f"metadata is nested deeper than {lim.max_json_depth} levels")
        try:
            size = len(json.dumps(value, ensure_ascii=False).encode("utf-8"))
        except UnicodeEncodeError:
            raise ValueError("must be valid Unicode (no lone surrogates)") from None
        if size > lim.max_metadata_bytes:
            raise ValueError(f"metadata is {size} bytes; the limit is {lim.max_metadata_bytes}")
        return value


class MemoryInput(MemoryFields):
    """A memory to store. Resending the same id (or the same content) is a duplicate, not a write."""

    model_config = {"json_schema_extra": {
        "if": {"properties": {"extracted": {"const": True}}, "required": ["extracted"]},
        "then": {"required": ["evidence"], "properties": {"evidence": {"type": "object"}}}}}
    id: Id | None = Field(None, description="Idempotency key.")
    namespace: Namespace | None = None
    content: Content
    created_at: Timestamp | None = None
    thread: Thread | None = Field(None, description=(
        "The conversation it belongs to (a session or chat id): consecutive memories of a thread are "
        "linked by FOLLOWS edges and each gets a context window as a second recall key."))
    seq: Position | None = Field(
        None, description="Position within the thread; without it, created_at order (after numbered ones).")
    supersedes: Annotated[list[Id], Limit("max_supersedes"), Field(description=(
        "Ids of older memories (same namespace) this one replaces: each gets `superseded_by` and "
        "`valid_until`, a SUPERSEDES edge records when and why (`reason`); undo with DELETE "
        "/v1/supersessions."))] = []
    extracted: bool = Field(False, description="Extracted by a model: evidence is then required.")
    evidence: Evidence | None = None

    @model_validator(mode="after")
    def _extracted_needs_evidence(self) -> MemoryInput:
        if self.extracted and self.evidence is None:
            raise PydanticCustomError("evidence_rejected",   # the evidence gate's own error code
                                      "extracted memories need evidence {source_text, quote}")
        return self


class MemoryPatch(MemoryFields):
    """Changing content, tags or category re-embeds and re-links. At least one field changes."""

    model_config = {"json_schema_extra": {"anyOf": [{"required": [name]} for name in PATCHABLE]}}
    namespace: Namespace | None = None
    content: Annotated[Content, Field(default_factory=lambda: None,     # optional, yet never null
                                      json_schema_extra={"default": None})]

    @model_validator(mode="after")
    def _changes_something(self) -> MemoryPatch:
        if not self.model_fields_set & set(PATCHABLE):
            raise ValueError("a patch must change at least one of " + ", ".join(PATCHABLE))
        return self


class BatchRequest(Body):
    """Validated whole before anything is written; each item then is created or a duplicate."""

    namespace: Namespace | None = None
    memories: Annotated[list[MemoryInput], Field(min_length=1), Limit("max_batch")]


class BatchSize(Body):
    """The library's batch (``Graphmem.add_batch``): the count is bounded as the HTTP body's is,
    while each item is validated on its own (an invalid one is rejected, the others written)."""

    memories: Annotated[list[Any], Limit("max_batch")]


class SearchFilters(Body):
    """Tags: all must match; categories and sources: any."""

    tags: Annotated[list[Tag], Limit("max_filter_values")] | None = None
    categories: Annotated[list[Category], Limit("max_filter_values")] | None = None
    sources: Annotated[list[Source], Limit("max_filter_values")] | None = None
    min_health: Health | None = None
    max_health: Health | None = None
    created_after: Timestamp | None = None
    created_before: Timestamp | None = None
    include_expired: bool | None = None
    current_only: bool | None = Field(None, description="Drop superseded memories.")
    as_of: Timestamp | None = Field(None, description=(
        "Rank only memories valid at this time (valid_from, else created_at, <= as_of < valid_until)."))


class SearchRequest(Body):
    query: Query
    namespace: Namespace | None = None
    k: K | None = None
    filters: SearchFilters | None = None
    recipe: Annotated[str, OneOf()] | None = Field(None, description="A named config.")
    stages: Stages | None = None
    params: SearchParams | None = None
    explain: bool = Field(True, description="Include `why` on each result.")
    trace: bool = Field(False, description="Include per-stage counts and timings.")


class ContextRequest(SearchRequest):
    """A search whose results come back as one prompt-ready text under a token budget."""

    max_tokens: Annotated[Positive, Limit("max_context_tokens")] = Field(
        description="Token budget of `text` (1-{limits.max_context_tokens}; tokens are words and "
                    "punctuation marks, docs/context-block.md).")
    k: K | None = Field(
        None, description="Results the search behind the block asks for (default [context_block] k).")


class RelationRequest(Body):
    """An explicit RELATED edge between two different memories, kept only with evidence."""

    from_id: Id
    to_id: Id
    label: Label | None = None
    evidence: Evidence
    weight: Annotated[float, Field(gt=0.0, le=1.0, allow_inf_nan=False)] | None = None
    namespace: Namespace | None = None

    @field_validator("to_id")
    @classmethod
    def _two_memories(cls, value: str, info: ValidationInfo) -> str:
        if value == info.data.get("from_id"):
            raise ValueError("a memory cannot be related to itself")
        return value


class SupersedeRequest(Body):
    """Mark stored memories as superseded by a stored memory (the write-time `supersedes`, later)."""

    newer: Id
    older: Annotated[list[Id], Field(min_length=1), Limit("max_supersedes")]
    reason: Reason | None = None
    namespace: Namespace | None = None


class MemoryPath(QueryArgs):
    memory_id: Id


class NamespaceArgs(QueryArgs):
    namespace: Namespace | None = Field(None, description="Namespace (default: the key's only one).")


class ListArgs(NamespaceArgs):
    limit: Annotated[Positive, Limit("max_list_limit")] = 50
    cursor: Annotated[str, Field(pattern=CURSOR_PATTERN, description="`next_cursor` of the previous page."),
                      Limit("max_id_chars", 64)] | None = None
    tags: Annotated[list[QTag], Limit("max_filter_values"), Field(description="The memory must carry all.")] = []
    category: Annotated[list[QCategory], Limit("max_filter_values"), Field(description="Any of.")] = []
    source: Annotated[list[QSource], Limit("max_filter_values")] = []
    min_health: Health | None = None
    max_health: Health | None = None
    created_after: Timestamp | None = None
    created_before: Timestamp | None = None
    include_expired: bool = False
    current_only: bool = Field(False, description="Drop superseded memories.")
    as_of: Timestamp | None = Field(None, description="Only memories valid at this time.")
    superseded_only: bool = Field(False, description="Only superseded memories (with current_only: none).")
    thread: Thread | None = Field(
        None, description="Only this conversation's turns; the response adds their FOLLOWS edges and "
                          "context windows (`thread`).")
    sort: Annotated[str, OneOf(LIST_SORTS)] = Field(
        "created", description="created: oldest first; -created: newest first; health: weakest first; "
                               "-health: strongest first; thread: turn order (thread members only). "
                               "A cursor pages only the sort it came from.")


class SupersessionArgs(NamespaceArgs):
    """One SUPERSEDES link, by its two ends (undo restores the older memory's state before it)."""

    newer: Id
    older: Id


class NeighborsArgs(NamespaceArgs):
    types: list[EdgeType] = Field([], description="Edge types (default: all).")
    min_weight: Health = 0.0
    limit: Annotated[Positive, Limit("max_neighbors_limit")] = 50


class GraphArgs(NamespaceArgs):
    """Seeds are the ids plus the query's top k results; neither gives an empty graph."""

    ids: Annotated[list[Id], Limit("max_graph_ids")] = []
    query: Query | None = None
    k: K = 10
    hops: Annotated[Count, Limit("max_graph_hops")] = 1


class ToolDetail(Body):
    """How much of each result an MCP tool returns (an MCP-only argument)."""

    detail: Detail = Field("compact", description=(
        "compact (default): content, score and a one-line why per result; full: every stored field and "
        "the structured why. Results are cut to fit a size bound."))


REQUEST_MODELS: tuple[type[Body], ...] = (MemoryInput, MemoryPatch, BatchRequest, SearchRequest, ContextRequest,
                                          RelationRequest, SupersedeRequest)
ARGUMENT_MODELS: tuple[type[QueryArgs], ...] = (NamespaceArgs, ListArgs, NeighborsArgs, GraphArgs, MemoryPath,
                                                SupersessionArgs)
