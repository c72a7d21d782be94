"""Response models of a stored memory (every answer that carries one) and of a supersession proposal.

Part of ``graphmem.contract.responses`` (which names them all); kept apart so no module grows long."""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import Field

from graphmem.contract.types import Output
from graphmem.model import EDGE_TYPES

EdgeTypeName = Literal["SHARES_TAG", "SAME_CATEGORY", "OVERLAPS", "RELATED", "FOLLOWS", "SUPERSEDES"]
Kind = Literal["direct", "related", "direct+related"]
assert set(get_args(EdgeTypeName)) == set(EDGE_TYPES)


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


class EntityMention(Output):
    """An entity the memory mentions: its key (case, possessives, plurals folded) and its evidence."""

    entity: str = Field(description="The entity's key, e.g. `dog training`.")
    kind: Literal["name", "phrase"] = Field(description="A capitalised name or a noun phrase.")
    quote: str = Field(description="The span of the content it comes from.")


class TimeRef(Output):
    """A relative time phrase of the content resolved against the memory's time (``[time]``)."""

    phrase: str = Field(description="The phrase as written, e.g. `last week`.")
    span: list[int] = Field(description="[start, end) of the phrase in the content.")
    value: str = Field(description="ISO 8601: a date (`2023-05-07`) or an interval (`2023-05-29/2023-06-04`).")
    text: str = Field(description="A human rendering, e.g. `the week before 9 June 2023`.")


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
