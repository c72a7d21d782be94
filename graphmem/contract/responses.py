"""Response models: what the server sends on each ``/v1`` operation (the OpenAPI responses).

They describe the engine's output; the server does not re-parse its own answers through
them (the API tests and schemathesis check every response against their schemas)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, NonNegativeInt, RootModel

from graphmem.contract.listing import ThreadPage
from graphmem.contract.types import Output
from graphmem.model import EDGE_TYPES

EdgeTypeName = Literal["SHARES_TAG", "SAME_CATEGORY", "OVERLAPS", "RELATED", "FOLLOWS", "SUPERSEDES"]
Kind = Literal["direct", "related", "direct+related"]
assert set(EdgeTypeName.__args__) == set(EDGE_TYPES)   # type: ignore[attr-defined]


class ErrorDetail(Output):
    code: str = Field(description="Stable machine code, e.g. validation_error, not_found.")
    message: str
    field: str | None = Field(description="The offending input, e.g. `params.k` or `memories[2].tags[0]`.")


class Error(Output):
    """Every failure: also unknown routes (404) and unsupported methods (405, with Allow)."""

    error: ErrorDetail


class NotReady(Output):
    error: ErrorDetail
    checks: dict[str, str]


class HealthPenalty(Output):
    rule: str
    penalty: float
    detail: str


class StoredEvidence(Output):
    source_text: str
    quote: str


class Topic(Output):
    """A topic graphmem extracted from the content (not the caller's): its key (graphmem's own
    terms) and the span of content it comes from."""

    topic: str
    quote: str


class TimeRef(Output):
    """A relative time phrase of the content resolved against the memory's time (``[time]``)."""

    phrase: str = Field(description="The phrase as written, e.g. `last week`.")
    span: list[int] = Field(description="[start, end) of the phrase in the content.")
    value: str = Field(description="ISO 8601: a date (`2023-05-07`) or an interval (`2023-05-29/2023-06-04`).")
    text: str = Field(description="A human rendering, e.g. `the week before 9 June 2023`.")


class EntityMention(Output):
    """An entity the memory mentions: its key (case, possessives, plurals folded) and its evidence."""

    entity: str = Field(description="The entity's key, e.g. `dog training`.")
    kind: Literal["name", "phrase"] = Field(description="A capitalised name or a noun phrase.")
    quote: str = Field(description="The span of the content it comes from.")


class Memory(Output):
    id: str
    namespace: str
    content: str
    tags: list[str]
    category: str | None
    source: str
    reason: str | None
    metadata: dict[str, Any]
    created_at: str
    updated_at: str
    valid_from: str | None = Field(None, description="When the fact became true (none: since created_at).")
    valid_until: str | None
    expires_at: str | None
    superseded_by: str | None = Field(None, description="The memory that replaced this one (GET .../history).")
    health: float = Field(ge=0, le=1)
    health_reasons: list[HealthPenalty]
    source_weight: float
    near_duplicate_of: str | None
    evidence: StoredEvidence | None = None
    topics: list[Topic] = Field(default_factory=list, description=(
        "Extracted at ingest (names and salient words, each with the span it comes from); they link "
        "memories through SHARES_TAG like tags do. Kept apart from `tags`, which are the caller's own."))
    thread: str | None = Field(None, description="The conversation (session, chat) the memory belongs to.")
    seq: int | None = Field(None, description="Its position in the thread (none: created_at order).")
    times: list[TimeRef] = Field(default_factory=list, description=(
        "Relative time phrases of the content (`yesterday`, `last week`, `3 years ago`) resolved at ingest "
        "against the memory's time (an export's message time, else created_at)."))
    entities: list[EntityMention] = Field(default_factory=list, description=(
        "People, places, things and key noun phrases the content mentions (extracted at ingest, each with "
        "the span it comes from); each is a MENTIONS link to an Entity the multi-hop stage walks."))


NOT_STORED = ("A duplicate's fields the stored memory does not hold (tags it lacks; a category, source, "
              "reason or metadata with another value): an add never changes a stored memory, PATCH does.")


class CreateResult(Output):
    status: Literal["created", "duplicate"]
    id: str
    memory: Memory
    duplicate_of: str | None = None
    not_stored: dict[str, Any] | None = Field(None, description=NOT_STORED)
    note: str | None = Field(None, description="With not_stored: what to do to store them.")


class BatchItemResult(Output):
    index: int
    status: Literal["created", "duplicate", "rejected"]
    id: str | None = None
    memory: Memory | None = None
    duplicate_of: str | None = None
    not_stored: dict[str, Any] | None = Field(None, description=NOT_STORED)
    note: str | None = Field(None, description="With not_stored: what to do to store them.")
    error: ErrorDetail | None = None


class BatchSummary(Output):
    created: NonNegativeInt
    duplicate: NonNegativeInt
    rejected: NonNegativeInt


class BatchResponse(Output):
    namespace: str
    summary: BatchSummary
    results: list[BatchItemResult]


class MemoryList(Output):
    namespace: str
    memories: list[Memory]
    next_cursor: str | None
    thread: ThreadPage | None = Field(None, description="With `thread=`: the page's FOLLOWS edges and windows.")


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


class ValueSpan(Output):
    """A value in a memory's text (a number, version, date or name) and where it is."""

    kind: str
    text: str
    start: int
    end: int


class Candidate(Output):
    """A proposed "may supersede" link with its evidence: the two memories' differing value spans."""

    newer: str
    older: str
    cosine: float
    term_overlap: float
    shared: list[str] = Field(description="Shared tags, or the category.")
    newer_spans: list[ValueSpan]
    older_spans: list[ValueSpan]
    applied: bool = False


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


class Edge(Output):
    source: str
    target: str
    type: EdgeTypeName
    weight: float
    reason: dict[str, Any]


class Neighbor(Output):
    memory: Memory
    type: EdgeTypeName
    weight: float
    reason: dict[str, Any]


class NeighborsResponse(Output):
    memory: Memory
    neighbors: list[Neighbor]


class Graph(Output):
    nodes: list[Memory]
    edges: list[Edge]


class Supersession(Output):
    """One SUPERSEDES link: ``newer`` replaced ``older`` at ``at`` (``reason`` says why)."""

    newer: str
    older: str
    at: str
    reason: str | None
    weight: float
    by: Literal["explicit", "auto"]
    older_valid_until: str | None = Field(description="What the older memory's valid_until became.")


class SupersedeResponse(Output):
    namespace: str
    supersessions: list[Supersession]
    memories: list[Memory] = Field(description="The older memories as they are now.")


class UndoResponse(Output):
    namespace: str
    undone: Supersession
    memory: Memory = Field(description="The older memory, restored.")


class HistoryEntry(Output):
    memory: Memory


class History(Output):
    """The chain a memory belongs to, oldest first: each memory and the links between them."""

    namespace: str
    id: str
    current: list[str] = Field(description="The chain's current memories (superseded by none).")
    chain: list[HistoryEntry]
    links: list[Supersession]
    truncated: bool


class CandidateList(Output):
    namespace: str
    candidates: list[Candidate]


class Degree(Output):
    max: NonNegativeInt
    mean: float


class EdgeCounts(Output):
    SHARES_TAG: NonNegativeInt
    SAME_CATEGORY: NonNegativeInt
    OVERLAPS: NonNegativeInt
    RELATED: NonNegativeInt
    FOLLOWS: NonNegativeInt
    SUPERSEDES: NonNegativeInt


class DegreeStats(Output):
    SHARES_TAG: Degree
    SAME_CATEGORY: Degree
    OVERLAPS: Degree
    RELATED: Degree
    FOLLOWS: Degree
    SUPERSEDES: Degree


class Server(Output):
    """What the store runs on. ``/readyz`` (public) gives the count per role only; ``/v1/stats``
    also names the servers."""

    kind: Literal["sqlite", "neo4j"]
    version: str = Field(description="SQLite library or Neo4j kernel version; empty before the store answered.")
    edition: str = Field(description="`embedded` (SQLite), or the Neo4j edition, e.g. `community`, `enterprise`.")
    topology: Literal["embedded", "single", "cluster", "unknown"] = Field(
        description="`cluster` when the routing table names more than one server; `unknown` when the server "
                    "gave no routing table.")
    roles: dict[str, NonNegativeInt] = Field(description="Servers per routing role (WRITE, READ, ROUTE).")
    servers: dict[str, list[str]] | None = Field(default=None, description="Addresses per routing role.")


class Stats(Output):
    server: Server
    memories: NonNegativeInt
    namespaces: dict[str, NonNegativeInt]
    edges: EdgeCounts
    degree: DegreeStats
    health_histogram: dict[str, NonNegativeInt]


class Health(Output):
    status: Literal["ok"]


class Ready(Output):
    status: Literal["ready"]
    checks: dict[str, str]
    server: Server


class Text(RootModel[str]):
    """A text body (metrics exposition, HTML)."""


RESPONSE_MODELS: tuple[type[Output], ...] = (
    Error, NotReady, Memory, CreateResult, BatchResponse, MemoryList, SearchResponse, NeighborsResponse, Graph,
    Edge, Stats, Health, Ready, SupersedeResponse, UndoResponse, History, CandidateList, ContextResponse)
