"""Plain data types shared by ingest, retrieval and the stores.

Kept free of IO so the scoring code can be tested without a store.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import numpy as np

from graphmem.fastjson import loads

LINK_TYPES = ("SHARES_TAG", "SAME_CATEGORY", "OVERLAPS")   # maintained automatically on ingest
# RELATED: explicit, evidence-gated; FOLLOWS: a thread's order (earlier -> later), kept by ingest;
# SUPERSEDES: from a memory to the older one it replaces (ingest/supersede.py), its undo state in the reason
EDGE_TYPES = (*LINK_TYPES, "RELATED", "FOLLOWS", "SUPERSEDES")
SUPERSEDES = "SUPERSEDES"
# A thread member's context window is stored as a row of the same id in this companion namespace
# (user namespaces never contain "~"), so both stores index it with their own vector and full-text
# indexes; stores leave these namespaces out of ``namespaces()`` and ``stats``.
WINDOW_NAMESPACE_PREFIX = "~window:"
# Extracted topics live in the tag index under this prefix. Caller tags are case-folded
# (``text.normalize_tag``), so a label starting with an upper-case letter is never a caller's.
TOPIC_LABEL_PREFIX = "Topic:"
HEALTH_BINS = ("0.0-0.2", "0.2-0.4", "0.4-0.6", "0.6-0.8", "0.8-1.0")   # the stats histogram


def window_namespace(namespace: str) -> str:
    """The companion namespace holding ``namespace``'s context windows."""
    return WINDOW_NAMESPACE_PREFIX + namespace


def is_window_namespace(namespace: str) -> bool:
    return namespace.startswith(WINDOW_NAMESPACE_PREFIX)


def thread_position(seq: int | None, created_at: str, memory_id: str) -> str:
    """A memory's sort key within its thread, as one string (string order = thread order in both
    stores): by ``seq`` when given, then created_at, then id; memories without ``seq`` follow
    those with one."""
    head = f"{seq:016d}" if seq is not None else "~"
    return f"{head}|{created_at}|{memory_id}"


def health_bin(bucket: int) -> str:
    """The histogram bin of ``int(health * 5)`` (health 1.0, bucket 5, joins the last bin)."""
    return HEALTH_BINS[min(bucket, len(HEALTH_BINS) - 1)]


def topic_label(key: str) -> str:
    """The tag-index label of a topic key."""
    return TOPIC_LABEL_PREFIX + key


def is_topic_label(label: str) -> bool:
    return label.startswith(TOPIC_LABEL_PREFIX)


def utcnow_iso() -> str:
    """UTC timestamp as a fixed-width ISO string, so string order is time order in every store."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def normalize_timestamp(value: str) -> str:
    """Parse an ISO-8601 timestamp and return it in the fixed-width UTC form."""
    text = value.strip()
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    parsed = datetime.fromisoformat(text)
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    utc = parsed.astimezone(timezone.utc)   # OverflowError past year 1..9999
    return f"{utc.year:04d}-" + utc.strftime("%m-%dT%H:%M:%S.%fZ")   # %Y does not pad years < 1000


@dataclass
class HealthPenalty:
    rule: str
    penalty: float
    detail: str

    def to_dict(self) -> dict:
        return {"rule": self.rule, "penalty": self.penalty, "detail": self.detail}


@dataclass
class Memory:
    """A memory node. ``term_counts`` feeds BM25 and OVERLAPS; ``embedding`` is unit length."""

    id: str
    namespace: str
    content: str
    content_hash: str
    tags: list[str] = field(default_factory=list)
    category: str | None = None
    source: str = "unknown"
    reason: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    created_at: str = ""
    updated_at: str = ""
    valid_until: str | None = None
    expires_at: str | None = None
    valid_from: str | None = None          # when the fact became true (None: since created_at)
    superseded_by: str | None = None       # the memory that replaced it (a SUPERSEDES edge holds why)
    embedding: np.ndarray | None = None
    health: float = 1.0
    health_reasons: list[HealthPenalty] = field(default_factory=list)
    source_weight: float = 1.0
    term_counts: dict[str, int] = field(default_factory=dict)
    near_duplicate_of: str | None = None
    evidence: dict[str, Any] | None = None
    topics: list[dict[str, str]] = field(default_factory=list)   # extracted: [{"topic", "quote"}]
    thread: str | None = None              # the conversation (session, chat) it belongs to
    seq: int | None = None                 # its position there (None: created_at order)
    # relative time phrases resolved against the memory's time: [{"phrase", "span", "value", "text"}]
    times: list[dict[str, Any]] = field(default_factory=list)
    # extracted entity mentions, each a MENTIONS link (ingest/entities.py): [{"entity", "kind", "quote"}]
    entities: list[dict[str, str]] = field(default_factory=list)

    @property
    def thread_pos(self) -> str | None:
        """Sort key within the thread (``thread_position``); None outside a thread."""
        return None if self.thread is None else thread_position(self.seq, self.created_at, self.id)

    @property
    def topic_labels(self) -> list[str]:
        return [topic_label(t["topic"]) for t in self.topics]

    @property
    def index_labels(self) -> list[str]:
        """What the tag index holds for this memory: the caller's tags, then its topics' labels
        (so topic members, counts and rarity come from the same index and rule as tags)."""
        return list(dict.fromkeys([*self.tags, *self.topic_labels]))

    @property
    def doc_length(self) -> int:
        return sum(self.term_counts.values())

    def is_expired(self, now_iso: str) -> bool:
        return self.expires_at is not None and self.expires_at <= now_iso

    @property
    def effective_valid_from(self) -> str:
        return self.valid_from or self.created_at

    def is_valid_at(self, when: str) -> bool:
        """Valid from ``valid_from`` (else ``created_at``), inclusive, until ``valid_until``, exclusive."""
        return self.effective_valid_from <= when and (self.valid_until is None or self.valid_until > when)

    def to_dict(self, include_embedding: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "namespace": self.namespace,
            "content": self.content,
            "tags": list(self.tags),
            "category": self.category,
            "source": self.source,
            "reason": self.reason,
            "metadata": self.metadata,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "valid_from": self.valid_from,
            "valid_until": self.valid_until,
            "expires_at": self.expires_at,
            "superseded_by": self.superseded_by,
            "health": round(self.health, 4),
            "health_reasons": [p.to_dict() for p in self.health_reasons],
            "source_weight": round(self.source_weight, 4),
            "near_duplicate_of": self.near_duplicate_of,
            "topics": [dict(t) for t in self.topics],
            "thread": self.thread,
            "seq": self.seq,
            "times": [dict(t) for t in self.times],
            "entities": [dict(e) for e in self.entities],
        }
        if self.evidence is not None:
            out["evidence"] = self.evidence
        if include_embedding and self.embedding is not None:
            out["embedding"] = [float(x) for x in self.embedding]
        return out

    # Serialisation helpers shared by both stores (they persist these as JSON text).
    def health_reasons_json(self) -> str:
        return json.dumps([p.to_dict() for p in self.health_reasons])

    @staticmethod
    def parse_health_reasons(text: str | None) -> list[HealthPenalty]:
        return [HealthPenalty(**p) for p in loads(text or "[]")]


def strength_key(weight: float, a: str, b: str) -> tuple[float, str, str]:
    """An edge's place in the strength order: heavier first, ties by its endpoint ids (a < b),
    at the weight ``Edge.make`` rounds to, so a key computed before an edge exists equals its own."""
    return (-round(float(weight), 6), a, b)


@dataclass(frozen=True)
class Edge:
    """An undirected, typed, weighted relation; stored once with ``a < b``."""

    namespace: str
    a: str
    b: str
    type: str
    weight: float
    reason: dict[str, Any]

    @staticmethod
    def make(namespace: str, x: str, y: str, type_: str, weight: float, reason: dict) -> Edge:
        a, b = (x, y) if x < y else (y, x)
        return Edge(namespace, a, b, type_, round(float(weight), 6), reason)

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.a, self.b, self.type)

    @property
    def strength_key(self) -> tuple[float, str, str]:
        """Sort key, strongest first (degree caps keep, and eviction drops, by this order)."""
        return strength_key(self.weight, self.a, self.b)

    def other(self, node_id: str) -> str:
        return self.b if node_id == self.a else self.a

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.a, "target": self.b, "type": self.type,
                "weight": self.weight, "reason": self.reason}


@dataclass
class MemoryFilter:
    """Explicit filters applied by the router. ``matches`` is the reference semantics;
    stores pre-filter with the same meaning for speed."""

    tags: list[str] = field(default_factory=list)          # memory must carry all of these
    categories: list[str] = field(default_factory=list)    # any of these
    sources: list[str] = field(default_factory=list)       # any of these
    min_health: float | None = None
    max_health: float | None = None
    created_after: str | None = None
    created_before: str | None = None
    include_expired: bool = False
    current_only: bool = False                             # drop superseded memories
    as_of: str | None = None                               # only memories valid at this time

    def is_empty(self) -> bool:
        return not (self.tags or self.categories or self.sources or self.min_health is not None
                    or self.max_health is not None or self.created_after or self.created_before
                    or self.current_only or self.as_of)

    def only_validity(self) -> bool:
        """True when the filter holds nothing but expiry, ``current_only`` and ``as_of``: a store
        can then exclude the few memories these drop (index seeks) instead of listing all it keeps."""
        return not (self.tags or self.categories or self.sources or self.min_health is not None
                    or self.max_health is not None or self.created_after or self.created_before)

    def matches(self, mem: Memory, now_iso: str) -> bool:
        if not self.include_expired and mem.is_expired(now_iso):
            return False
        if self.current_only and mem.superseded_by is not None:
            return False
        if self.as_of is not None and not mem.is_valid_at(self.as_of):
            return False
        if self.tags and not set(self.tags).issubset(mem.tags):
            return False
        if self.categories and mem.category not in self.categories:
            return False
        if self.sources and mem.source not in self.sources:
            return False
        if self.min_health is not None and mem.health < self.min_health:
            return False
        if self.max_health is not None and mem.health > self.max_health:
            return False
        if self.created_after and mem.created_at < self.created_after:
            return False
        if self.created_before and mem.created_at >= self.created_before:
            return False
        return True


# GET /v1/memories orders: oldest / newest first, weakest / strongest first, and turn order
# (thread members only, by model.thread_position).
LIST_SORTS = ("created", "-created", "health", "-health", "thread")


@dataclass(frozen=True)
class ListOrder:
    """A listing's order and the two filters only a listing has (search never pages by them).

    ``after`` is the previous page's last row: its sort key (created_at, health or thread_pos)
    and id; the page holds the rows strictly after it in this order."""

    sort: str = "created"
    thread: str | None = None
    superseded_only: bool = False
    after: tuple[str | float, str] | None = None

    def is_plain(self) -> bool:
        """True for the store's original listing (oldest first, no thread or superseded filter)."""
        return self.sort == "created" and self.thread is None and not self.superseded_only


@dataclass
class TermStats:
    """Corpus statistics for BM25 within one namespace."""

    n_docs: int
    total_length: int
    df: dict[str, int]

    @property
    def avg_length(self) -> float:
        return self.total_length / self.n_docs if self.n_docs else 0.0


@dataclass
class StoreStats:
    """Raw counts from one store call; the engine derives totals and means and merges scopes."""

    namespaces: dict[str, int]                 # memories per namespace
    edges: dict[str, int]                      # edges per type (every EDGE_TYPES key)
    max_degree: dict[str, int]                 # highest degree of one memory per type
    health_bins: dict[str, int]                # memories per HEALTH_BINS bin (every bin)


@dataclass(frozen=True)
class ServerInfo:
    """What a store runs on, for ``/readyz`` and ``stats``: operators of a cluster see the version
    and which servers write, read and route (a follower missing from READ shows here first)."""

    kind: str                                  # "sqlite" | "neo4j"
    version: str                               # SQLite library / Neo4j kernel version ("" before the first answer)
    edition: str                               # "embedded" | "community" | "enterprise" | "aura" ...
    topology: str                              # "embedded" | "single" | "cluster" | "unknown"
    servers: dict[str, list[str]] = field(default_factory=dict)  # role (WRITE/READ/ROUTE) -> addresses

    def view(self, addresses: bool = True) -> dict[str, Any]:
        """The JSON shape; without ``addresses`` only the count per role (the public probe)."""
        roles = {role: len(found) for role, found in sorted(self.servers.items())}
        out: dict[str, Any] = {"kind": self.kind, "version": self.version, "edition": self.edition,
                               "topology": self.topology, "roles": roles}
        if addresses:
            out["servers"] = {role: list(found) for role, found in sorted(self.servers.items())}
        return out
