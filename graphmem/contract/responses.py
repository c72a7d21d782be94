"""Response models: what the server sends on each ``/v1`` operation (the OpenAPI responses).

They describe the engine's output: the library answers with them (``graphmem.views`` builds them),
the HTTP client parses into them, and the API tests and schemathesis check every response against
their schemas. The memory and search models live in ``contract.memory`` and ``contract.why``; all
are named here."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, NonNegativeInt, RootModel

from graphmem.contract.listing import ThreadPage
from graphmem.contract.memory import (
    Candidate,
    EdgeTypeName,
    EntityMention,
    HealthPenalty,
    Kind,
    Memory,
    StoredEvidence,
    TimeRef,
    Topic,
    ValueSpan,
)
from graphmem.contract.types import Output
from graphmem.contract.why import (
    ContextResponse,
    ContextTrace,
    DirectWhy,
    FeedbackWhy,
    HealthWhy,
    Hit,
    MultiHopWhy,
    RelatedPath,
    ResolvedTime,
    ResultsByKind,
    RouterWhy,
    SearchResponse,
    SearchResult,
    SharedEntity,
    SourceWhy,
    SupersessionWhy,
    TimeBoost,
    TimeWhy,
    Trace,
    TraceStage,
    Why,
    WindowWhy,
)

__all__ = [
    "Candidate", "ContextResponse", "ContextTrace", "DirectWhy", "EdgeTypeName", "EntityMention", "FeedbackWhy",
    "HealthPenalty", "HealthWhy", "Hit", "Kind", "Memory", "MultiHopWhy", "RelatedPath", "ResolvedTime",
    "ResultsByKind", "RouterWhy", "SearchResponse", "SearchResult", "SharedEntity", "SourceWhy",
    "StoredEvidence", "SupersessionWhy", "ThreadPage", "TimeBoost", "TimeRef", "TimeWhy", "Topic", "Trace",
    "TraceStage", "ValueSpan", "WindowWhy", "Why", "ErrorDetail", "Error", "NotReady", "CreateResult",
    "BatchItemResult", "BatchSummary", "BatchResponse", "MemoryList", "Edge", "Neighbor", "NeighborsResponse",
    "Graph", "Supersession", "SupersedeResponse", "UndoResponse", "HistoryEntry", "History", "CandidateList",
    "Degree", "EdgeCounts", "DegreeStats", "Server", "Stats", "Health", "Ready", "Text", "NOT_STORED",
    "RESPONSE_MODELS",
]


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
