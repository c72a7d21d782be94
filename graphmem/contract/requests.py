"""Request models for one server's ``[limits]`` and recipes: every body and query string of
``/v1``, with the bounds that validation enforces and the OpenAPI document states.

``build_requests(limits, recipes)`` makes the classes; ``graphmem.contract.contract`` caches
them per configuration. Search tunables are derived from ``SearchConfig``'s field metadata."""

from __future__ import annotations

import json
from dataclasses import fields
from types import SimpleNamespace
from typing import Annotated, Any, Literal

from pydantic import Field, create_model, field_validator, model_validator
from pydantic_core import PydanticCustomError

from graphmem.config import STAGES, Limits, SearchConfig
from graphmem.contract.types import (
    CURSOR_PATTERN,
    NAME_PATTERN,
    QUERY_ITEM_PATTERN,
    Body,
    EdgeType,
    Namespace,
    QueryArgs,
    Timestamp,
    int_range,
    memory_id,
    text,
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


def _tunable_type(f: Any, limits: Limits) -> Any:
    meta = f.metadata
    high = getattr(limits, meta["ceiling"]) if meta["ceiling"] else meta["high"]
    doc = meta["description"] or None
    if meta["choices"]:
        return Annotated[Literal[meta["choices"]], Field(description=doc)]   # type: ignore[valid-type]
    if f.type == "bool":
        return Annotated[bool, Field(description=doc)]
    if f.type == "int":
        return Annotated[int_range(meta["low"], high), Field(description=doc)]
    if f.type == "float":
        return Annotated[float, Field(ge=meta["low"], le=high, allow_inf_nan=False, description=doc)]
    weight = Annotated[float, Field(ge=meta["low"], le=high, allow_inf_nan=False)]
    optional: dict[str, Any] = {t: (weight | None, None) for t in EDGE_TYPES}   # built at run time
    edge_weights = create_model("EdgeTypeWeights", __base__=Body, **optional)
    return Annotated[edge_weights, Field(description=doc)]


def build_requests(models: SimpleNamespace, limits: Limits, recipes: tuple[str, ...]) -> SimpleNamespace:
    """``models`` (from ``limit_models``) plus the search request, whose recipe names are an enum."""

    class SearchRequest(Body):
        query: text(limits.max_query_chars)  # type: ignore[valid-type]
        namespace: Namespace | None = None
        k: int_range(1, limits.max_k) | None = None  # type: ignore[valid-type]
        filters: models.SearchFilters | None = None  # type: ignore[name-defined]
        recipe: Literal[recipes] | None = Field(None, description="A named config.")  # type: ignore
        stages: models.Stages | None = None  # type: ignore[name-defined]
        params: models.SearchParams | None = None  # type: ignore[name-defined]
        explain: bool = Field(True, description="Include `why` on each result.")
        trace: bool = Field(False, description="Include per-stage counts and timings.")

    class ContextRequest(SearchRequest):
        """A search whose results come back as one prompt-ready text under a token budget."""

        max_tokens: int_range(1, limits.max_context_tokens) = Field(  # type: ignore[valid-type]
            description=f"Token budget of `text` (1-{limits.max_context_tokens}; tokens are words and "
                        f"punctuation marks, docs/context-block.md).")
        k: int_range(1, limits.max_k) | None = Field(  # type: ignore[valid-type]
            None, description="Results the search behind the block asks for (default [context_block] k).")

    return SimpleNamespace(**vars(models), SearchRequest=SearchRequest, ContextRequest=ContextRequest)


def limit_models(limits: Limits) -> SimpleNamespace:
    """The request models that depend on ``[limits]`` only (ingest and filters use them)."""
    lim = limits
    Id = memory_id(lim.max_id_chars, "Letters, digits and _ . : @ - in '/'-separated segments.")
    Tag = text(lim.max_tag_chars, NAME_PATTERN)
    Thread = text(lim.max_id_chars, NAME_PATTERN)
    Category = text(lim.max_category_chars, NAME_PATTERN)
    Source = text(lim.max_source_chars, NAME_PATTERN,
                  f"Provenance; ranks by [sources.ranks] (e.g. memory_tool, MEMORY.md); "
                  f"default {DEFAULT_SOURCE}.")
    Health = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]

    class Evidence(Body):
        """The quote must occur in source_text (case and whitespace folded)."""

        source_text: text(lim.max_evidence_chars)  # type: ignore[valid-type]
        quote: text(lim.max_evidence_chars)  # type: ignore[valid-type]

    class MemoryFields(Body):
        tags: Annotated[list[Tag] | None, Field(max_length=lim.max_tags)] = None  # type: ignore[valid-type]
        category: Category | None = None  # type: ignore[valid-type]
        source: Source | None = None  # type: ignore[valid-type]
        reason: text(lim.max_reason_chars) | None = None  # type: ignore[valid-type]
        metadata: dict[str, Any] | None = Field(
            None, description=f"At most {lim.max_metadata_bytes} bytes as JSON, nested {lim.max_json_depth} deep.")
        valid_from: Timestamp | None = Field(None, description=(
            "When the fact became true (default: created_at); `as_of` searches compare it."))
        valid_until: Timestamp | None = Field(None, description=(
            "When the fact stopped being true (exclusive); not after valid_from (else created_at): 409."))
        expires_at: Timestamp | None = None

        @field_validator("metadata")
        @classmethod
        def _metadata_size(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
            if value is None:
                return value
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
        id: Id | None = Field(None, description="Idempotency key.")  # type: ignore[valid-type]
        namespace: Namespace | None = None
        content: text(lim.max_content_chars)  # type: ignore[valid-type]
        created_at: Timestamp | None = None
        thread: Thread | None = Field(None, description=(  # type: ignore[valid-type]
            "The conversation it belongs to (a session or chat id): consecutive memories of a thread are "
            "linked by FOLLOWS edges and each gets a context window as a second recall key."))
        seq: int_range(0, 2**53 - 1) | None = Field(  # type: ignore[valid-type]
            None, description="Position within the thread; without it, created_at order (after numbered ones).")
        supersedes: Annotated[list[Id], Field(  # type: ignore[valid-type]
            max_length=lim.max_supersedes, description=(
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
        content: text(lim.max_content_chars) = None  # type: ignore[valid-type]   # never null

        @model_validator(mode="after")
        def _changes_something(self) -> MemoryPatch:
            if not self.model_fields_set & set(PATCHABLE):
                raise ValueError("a patch must change at least one of " + ", ".join(PATCHABLE))
            return self

    class BatchRequest(Body):
        """Validated whole before anything is written; each item then is created or a duplicate."""

        namespace: Namespace | None = None
        memories: Annotated[list[MemoryInput], Field(min_length=1, max_length=lim.max_batch)]

    class SearchFilters(Body):
        """Tags: all must match; categories and sources: any."""

        tags: Annotated[list[Tag] | None, Field(max_length=lim.max_filter_values)] = None  # type: ignore
        categories: Annotated[list[Category] | None, Field(max_length=lim.max_filter_values)] = None  # type: ignore
        sources: Annotated[list[Source] | None, Field(max_length=lim.max_filter_values)] = None  # type: ignore
        min_health: Health | None = None
        max_health: Health | None = None
        created_after: Timestamp | None = None
        created_before: Timestamp | None = None
        include_expired: bool | None = None
        current_only: bool | None = Field(None, description="Drop superseded memories.")
        as_of: Timestamp | None = Field(None, description=(
            "Rank only memories valid at this time (valid_from, else created_at, <= as_of < valid_until)."))

    switches: dict[str, Any] = {s: (bool | None, None) for s in STAGES}
    Stages = create_model("Stages", __base__=Body, __doc__="Switch pipeline stages (all on by default).",
                          **switches)
    tunables: dict[str, Any] = {f.name: (_tunable_type(f, lim) | None, None) for f in fields(SearchConfig)
                                if f.metadata.get("tunable")}
    SearchParams = create_model(
        "SearchParams", __base__=Body, __doc__="Overrides of the recipe's tunables; cost levers are capped "
                                               "by [limits].", **tunables)

    class RelationRequest(Body):
        """An explicit RELATED edge between two different memories, kept only with evidence."""

        from_id: Id  # type: ignore[valid-type]
        to_id: Id  # type: ignore[valid-type]
        label: text(lim.max_relation_label_chars, NAME_PATTERN) | None = None  # type: ignore[valid-type]
        evidence: Evidence
        weight: Annotated[float, Field(gt=0.0, le=1.0, allow_inf_nan=False)] | None = None
        namespace: Namespace | None = None

    QTag = text(lim.max_tag_chars, QUERY_ITEM_PATTERN)
    QCategory = text(lim.max_category_chars, QUERY_ITEM_PATTERN)
    QSource = text(lim.max_source_chars, QUERY_ITEM_PATTERN)

    class SupersedeRequest(Body):
        """Mark stored memories as superseded by a stored memory (the write-time `supersedes`, later)."""

        newer: Id  # type: ignore[valid-type]
        older: Annotated[list[Id], Field(min_length=1, max_length=lim.max_supersedes)]  # type: ignore
        reason: text(lim.max_reason_chars) | None = None  # type: ignore[valid-type]
        namespace: Namespace | None = None

    class MemoryPath(QueryArgs):
        memory_id: Id  # type: ignore[valid-type]

    class NamespaceArgs(QueryArgs):
        namespace: Namespace | None = Field(None, description="Namespace (default: the key's only one).")

    class ListArgs(NamespaceArgs):
        limit: int_range(1, lim.max_list_limit) = 50  # type: ignore[valid-type]
        cursor: Annotated[str, Field(pattern=CURSOR_PATTERN, max_length=64 + lim.max_id_chars,
                                     description="`next_cursor` of the previous page.")] | None = None
        tags: Annotated[list[QTag], Field(max_length=lim.max_filter_values,  # type: ignore[valid-type]
                                          description="The memory must carry all.")] = []
        category: Annotated[list[QCategory], Field(max_length=lim.max_filter_values,  # type: ignore
                                                   description="Any of.")] = []
        source: Annotated[list[QSource], Field(max_length=lim.max_filter_values)] = []  # type: ignore
        min_health: Health | None = None
        max_health: Health | None = None
        created_after: Timestamp | None = None
        created_before: Timestamp | None = None
        include_expired: bool = False
        current_only: bool = Field(False, description="Drop superseded memories.")
        as_of: Timestamp | None = Field(None, description="Only memories valid at this time.")
        superseded_only: bool = Field(False, description="Only superseded memories (with current_only: none).")
        thread: Thread | None = Field(  # type: ignore[valid-type]
            None, description="Only this conversation's turns; the response adds their FOLLOWS edges and "
                              "context windows (`thread`).")
        sort: Literal[LIST_SORTS] = Field(  # type: ignore[valid-type]
            "created", description="created: oldest first; -created: newest first; health: weakest first; "
                                   "-health: strongest first; thread: turn order (thread members only). "
                                   "A cursor pages only the sort it came from.")

    class SupersessionArgs(NamespaceArgs):
        """One SUPERSEDES link, by its two ends (undo restores the older memory's state before it)."""

        newer: Id  # type: ignore[valid-type]
        older: Id  # type: ignore[valid-type]

    class NeighborsArgs(NamespaceArgs):
        types: list[EdgeType] = Field([], description="Edge types (default: all).")
        min_weight: Health = 0.0
        limit: int_range(1, lim.max_neighbors_limit) = 50  # type: ignore[valid-type]

    class GraphArgs(NamespaceArgs):
        """Seeds are the ids plus the query's top k results; neither gives an empty graph."""

        ids: Annotated[list[Id], Field(max_length=lim.max_graph_ids)] = []  # type: ignore[valid-type]
        query: text(lim.max_query_chars) | None = None  # type: ignore[valid-type]
        k: int_range(1, lim.max_k) = 10  # type: ignore[valid-type]
        hops: int_range(0, lim.max_graph_hops) = 1  # type: ignore[valid-type]

    return SimpleNamespace(**{name: value for name, value in locals().items()
                              if isinstance(value, type) and issubclass(value, Body | QueryArgs)})
