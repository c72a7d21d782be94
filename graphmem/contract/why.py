"""Response models of a search and a context block: each result's ``why`` and the trace.

Part of ``graphmem.contract.responses`` (which names them all); kept apart so no module grows long."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, NonNegativeInt

from graphmem.contract.memory import Candidate, EdgeTypeName, HealthPenalty, Kind, Memory
from graphmem.contract.types import Output


class Hit(Output):
    rank: int
    score: float


class WindowWhy(Output):
    """How the memory's context window (its thread's turns around it) matched the query."""

    vector: Hit | None = None
    lexical: Hit | None = None
    fused: float
    weight: float = Field(description="Share of the window in the memory's recall score (context_weight).")
    turns: list[str] = Field(description="Ids of the memories the window spans, in thread order.")


class FeedbackWhy(Output):
    """How the second recall round (stage feedback, seeded by the first round's top) ranked the memory."""

    rank: int
    fused: float
    weight: float = Field(description="Share of the second round in the memory's recall score (feedback_weight).")


class DirectWhy(Output):
    vector: Hit | None = None
    lexical: Hit | None = None
    fused: float
    keys: list[Literal["memory", "window"]] | None = Field(
        None, description="Which recall keys found it: the memory's own text, its context window, or both.")
    window: WindowWhy | None = None
    feedback: FeedbackWhy | None = None


class RelatedPath(Output):
    seed: str
    edge: EdgeTypeName
    weight: float
    reason: dict[str, Any]
    score: float


class RouterWhy(Output):
    tags: list[str]
    category: str | None
    boost: float
    topics: list[str] | None = Field(None, description="Extracted topics of the memory the query names.")


class HealthWhy(Output):
    score: float
    multiplier: float
    penalties: list[HealthPenalty]
    applied: bool


class SourceWhy(Output):
    source: str
    weight: float
    applied: bool


class SupersessionWhy(Output):
    """The result's place in a supersession chain: what replaced it, what it replaced, what it may replace."""

    superseded_by: str | None = None
    supersedes: list[str] | None = None
    moved_below_successor: bool = False
    pulled_in_for: str | None = Field(None, description="Added because it replaces this (superseded) result.")
    candidates: list[Candidate] | None = None


class ResolvedTime(Output):
    phrase: str
    value: str
    text: str


class TimeBoost(Output):
    query_phrase: str = Field(description="The query's time phrase.")
    range: str = Field(description="What it resolved to (ISO 8601 date or interval).")
    matched: str = Field(description="`time` (the memory's own date) or the memory's phrase that fits.")
    multiplier: float


class TimeWhy(Output):
    """The memory's relative time phrases and their resolution; how the query's date boosted it."""

    resolved: list[ResolvedTime]
    boost: TimeBoost | None = None


class SharedEntity(Output):
    entity: str = Field(description="The entity's key.")
    weight: float = Field(description="Its rarity in the namespace (1: one memory names it; common ones less).")
    via: list[str] = Field(description="The seeds (ids) or `query` whose mention of it reached this memory.")
    reason: str = Field(description="E.g. `shares entity 'dog training' with seed X`.")


class MultiHopWhy(Output):
    """How stage multihop reached the memory over the memory-entity graph."""

    score: float
    activation: float = Field(description="Summed activation of the entities it shares.")
    entities: list[SharedEntity]


class Why(Output):
    """Why a result is here: recall channels, graph paths, router, health and source."""

    kind: Kind
    direct: DirectWhy | None = None
    related: list[RelatedPath] | None = None
    multihop: MultiHopWhy | None = None
    router: RouterWhy | None = None
    health: HealthWhy
    source: SourceWhy
    near_duplicates_merged: list[str] | None = None
    supersession: SupersessionWhy | None = None
    time: TimeWhy | None = None


class SearchResult(Output):
    id: str
    score: float
    kind: Kind
    memory: Memory
    why: Why | None = None


class TraceStage(Output):
    """Plus stage-specific counts (vector, lexical, added, merged, near_duplicates_dropped, ...)."""

    model_config = {"extra": "allow"}
    stage: Literal["router", "recall", "expansion", "multihop", "weighting", "rank"]
    enabled: bool
    in_: NonNegativeInt = Field(alias="in")
    out: NonNegativeInt
    ms: float


class ResultsByKind(Output):
    direct: NonNegativeInt | None = None
    related: NonNegativeInt | None = None
    direct_related: NonNegativeInt | None = Field(None, alias="direct+related")


class Trace(Output):
    recipe: str
    k: int
    stages: list[TraceStage]
    results_by_kind: ResultsByKind
    total_ms: float


class SearchResponse(Output):
    query: str
    namespace: str
    results: list[SearchResult]
    trace: Trace | None = None


class ContextTrace(Output):
    """The search's trace plus what the block took: results used, neighbours added, tokens."""

    model_config = {"extra": "allow"}
    search: Trace
    block: dict[str, Any]


class ContextResponse(Output):
    """A prompt-ready context block: memories dated, grouped by thread, cut at the budget."""

    query: str
    namespace: str
    text: str
    tokens: NonNegativeInt = Field(description="Tokens of `text` (never more than max_tokens).")
    memories: list[str] = Field(description="Ids of the memories in `text`, in the order shown.")
    trace: ContextTrace
