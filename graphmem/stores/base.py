"""The store contract shared by the embedded SQLite store and Neo4j.

Stores persist and *find candidates through indexes*; they never rank. Scores that
decide order (BM25, cosine, fusion, expansion, weighting) are computed above the store
from the data returned here, so both stores give the same ranking for the same data.

Ordering rules every implementation must follow (so candidate lists agree):
- ``tag_members`` / ``category_members`` / ``term_holders``: newest first (created_at desc, id desc).
- ``neighbors``: per seed, strongest first (weight desc, neighbour id asc).
- ``list_memories``: created_at asc, id asc, cursor = (created_at, id) of the last row.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from graphmem.errors import StoreConfigError
from graphmem.model import Edge, ListOrder, Memory, MemoryFilter, ServerInfo, StoreStats, TermStats


class TermHolders:
    """``term_holders``' answer: each term's newest holders as positions into one list of
    (created_at, id) keys in ascending order, so a position is a holder's recency and linking
    ranks candidates over integer arrays."""

    def __init__(self, keys: list[tuple[str, str]], positions: dict[str, np.ndarray]):
        self.keys = keys                # (created_at, id), oldest first, each once
        self.positions = positions      # per term: its holders' positions in ``keys``, newest first

    @classmethod
    def from_lists(cls, found: dict[str, list[tuple[str, str]]]) -> TermHolders:
        """From each term's (created_at, id) holders, newest first."""
        keys = sorted({h for held in found.values() for h in held})
        at = {key: k for k, key in enumerate(keys)}
        return cls(keys, {t: np.array([at[h] for h in held], dtype=np.int64) for t, held in found.items()})

    def __getitem__(self, term: str) -> list[tuple[str, str]]:
        """One term's holders as (created_at, id), newest first."""
        return [self.keys[k] for k in self.positions[term]]


@dataclass
class RecallHits:
    """One recall key's candidates from one ``recall`` call: the query terms' statistics, the
    vector arm's ids (most similar first), the full-text arm's ids (the index's order), and the
    memories of both (filtered as asked)."""
    stats: TermStats
    vector_ids: list[str]
    lexical_ids: list[str]
    memories: dict[str, Memory]


@runtime_checkable
class MemoryStore(Protocol):
    kind: str

    # -- lifecycle -----------------------------------------------------------------
    def ensure_schema(self, model_id: str, dim: int, reindexing: bool = False) -> None:
        """Create tables/indexes idempotently; record model id and dimension on first use.

        Raises StoreConfigError naming both models (and ``graphmem reindex``) when the store
        was embedded with another model or a reindex is unfinished, unless ``reindexing``
        (the reindex command itself opens it)."""

    def model_record(self) -> dict:
        """{"model_id", "dimension", "reindex"}: the recorded model and an unfinished reindex's
        state (None when there is none)."""

    def set_model_record(self, model_id: str, dim: int, reindex: dict | None) -> None:
        """Record the store's model and reindex state (``graphmem reindex`` only)."""

    def close(self) -> None: ...

    def ping(self) -> bool:
        """True when the store answers (readiness)."""

    def server_info(self, refresh: bool = True) -> ServerInfo:
        """The server's kind, version and topology. Never waits longer than ``ping``: a remote
        store answers from a copy refreshed in the background at most every ``server_info_ttl``
        seconds (``refresh=False``: the copy as it is, no wait at all)."""

    # -- writes (each call is one transaction) -----------------------------------------
    def write_session(self) -> AbstractContextManager[None]:
        """Hold the store's write serialisation across a read-plan-write sequence (an ingest's
        duplicate check, linking and save), so what was read is what the write applies to: no
        other writer, of this process or (embedded store) another on the same data dir, writes in
        between. Reentrant. A wait past ``store.write_wait`` raises ``StoreUnavailable``."""

    def save_memory(self, mem: Memory, add_edges: list[Edge], remove_edges: list[Edge],
                    replace_edges: bool = False, also: Sequence[Memory] = ()) -> None:
        """Insert or update ``mem`` together with edge changes, atomically; ``also`` are rows
        written in the same transaction (the context windows that hold ``mem``, in its window
        namespace).

        ``replace_edges`` drops every existing edge of ``mem`` first (re-link on update).
        Term statistics (document frequency, namespace length) are kept in step."""

    def save_batch(self, memories: list[Memory], add_edges: list[Edge], remove_edges: list[Edge]) -> None:
        """Insert new memories of one namespace (and the context windows they change, in its window
        namespace) and the batch's net edge changes in one transaction (batch ingest); term
        statistics are kept in step as by ``save_memory``."""

    def write_edges(self, add_edges: list[Edge], remove_edges: list[Edge]) -> None:
        """Upsert ``add_edges`` (by key) and delete ``remove_edges`` in one transaction, without
        touching memories; an edge whose endpoints are not both stored is skipped."""

    def delete_memory(self, namespace: str, memory_id: str, companions: Sequence[str] = (),
                      save: Sequence[Memory] = (), add_edges: Sequence[Edge] = ()) -> bool:
        """Delete the memory and every edge touching it; False when it did not exist. In the same
        transaction: the rows of the same id in ``companions`` go too (its context window), and
        ``save`` and ``add_edges`` are written (its thread closing the gap it leaves)."""

    def update_health(self, namespace: str, updates: list[tuple[str, float, list, float]]) -> int:
        """Batch (id, health, health_reasons, source_weight) updates for rescoring."""

    # -- reads -------------------------------------------------------------------------
    def get_memories(self, namespace: str, ids: list[str]) -> dict[str, Memory]: ...

    def find_by_hash(self, namespace: str, content_hash: str) -> Memory | None:
        """The oldest memory (created_at, then id) with this content hash."""

    def find_by_hashes(self, namespace: str, hashes: list[str]) -> dict[str, Memory]:
        """``find_by_hash`` for many hashes at once: hash -> memory, absent when none."""

    def list_memories(self, namespace: str, flt: MemoryFilter, limit: int,
                      after: tuple[str, str] | None = None, now_iso: str = "") -> list[Memory]:
        """Filtered page; ``now_iso`` decides expiry (empty: nothing counts as expired)."""

    def list_ordered(self, namespace: str, flt: MemoryFilter, order: ListOrder, limit: int,
                     now_iso: str = "") -> list[Memory]:
        """A page in ``order.sort`` after ``order.after``, with ``order``'s thread and superseded filters."""

    def iter_memories(self, namespace: str, batch_size: int = 500) -> Iterator[list[Memory]]: ...

    def namespaces(self) -> list[str]:
        """The user namespaces holding memories (context-window namespaces left out)."""

    def thread_context(self, namespace: str, keys: list[tuple[str, str]], before: int,
                       after: int) -> list[tuple[list[str], list[str]]]:
        """Per (thread, thread_pos): ids of up to ``before`` stored memories just before that
        position in the thread and up to ``after`` just after, each list nearest first (an index
        seek each way; the position itself need not be stored)."""

    # -- candidate indexes (used by linking) ----------------------------------------------
    def tag_members(self, namespace: str, tag: str, limit: int, exclude_id: str | None = None) -> list[str]: ...

    def category_members(self, namespace: str, category: str, limit: int,
                         exclude_id: str | None = None) -> list[str]: ...

    def tag_members_many(self, namespace: str, tags: list[str], limit: int) -> dict[str, list[str]]:
        """``tag_members`` for many tags in one call (batch ingest): tag -> ids, same order."""

    def category_members_many(self, namespace: str, categories: list[str], limit: int) -> dict[str, list[str]]:
        """``category_members`` for many categories in one call: category -> ids, same order."""

    def entity_members(self, namespace: str, entities: list[str], limit: int) -> dict[str, list[str]]:
        """Per entity key, the ids of the newest ``limit`` memories mentioning it (MENTIONS)."""

    def entity_counts(self, namespace: str, entities: list[str]) -> dict[str, int]:
        """How many memories mention each entity key (0: none)."""

    def tag_counts(self, namespace: str, tags: list[str]) -> dict[str, int]:
        """How many memories carry each tag (for tag rarity and the router)."""

    def category_counts(self, namespace: str, categories: list[str]) -> dict[str, int]:
        """How many memories are in each category (for the router)."""

    def label_counts(self, namespace: str, tags: list[str],
                     categories: list[str]) -> tuple[dict[str, int], dict[str, int]]:
        """``tag_counts`` and ``category_counts`` in one call (the router's lookup, one round trip)."""

    # -- recall (used by retrieval) -----------------------------------------------------
    def vector_candidates(self, namespace: str, vector: np.ndarray, limit: int,
                          flt: MemoryFilter, now_iso: str) -> list[str]:
        """Ids of the ``limit`` memories most similar to ``vector`` that pass ``flt``."""

    def lexical_candidates(self, namespace: str, terms: list[str], limit: int,
                           flt: MemoryFilter | None, now_iso: str, exclude_id: str | None = None) -> list[str]:
        """Ids of memories containing any of ``terms`` (graphmem's own tokens), best first
        by the index's own relevance; the caller re-scores with BM25."""

    def term_holders(self, namespace: str, terms: list[str], limit: int) -> TermHolders:
        """Each term's ``limit`` newest holders in the namespace, newest first (created_at desc,
        id desc), in one call: linking's lexical candidates for a whole batch, a bounded read per
        term however many memories hold it."""

    def term_stats(self, namespace: str, terms: list[str]) -> TermStats: ...

    def recall(self, namespace: str, vector: np.ndarray | None, vector_limit: int, terms: list[str],
               lookup: Callable[[TermStats], list[str]], lexical_limit: int, flt: MemoryFilter,
               now_iso: str) -> RecallHits:
        """Both recall arms of one key in one call: ``term_stats(terms)``, ``vector_candidates``
        (none when ``vector`` is None), ``lexical_candidates`` over ``lookup(stats)`` (the caller's
        rule picks the terms searched; none without terms) and the memories of every id found.
        Ranking stays with the caller; the store only saves round trips (Neo4j: two, one per
        dependent step, where the reads one by one take five)."""

    # -- graph -------------------------------------------------------------------------
    def edges_of(self, namespace: str, ids: list[str], types: list[str] | None = None,
                 with_reasons: bool = True) -> list[Edge]:
        """Every edge touching any of ``ids`` (only of ``types`` when given). With
        ``with_reasons=False`` each reason is ``{}``: degree accounting needs only keys and
        weights, and skipping the reasons keeps an insert's cost down."""

    def neighbors(self, namespace: str, seed_ids: list[str], per_seed: int, min_weight: float,
                  edge_types: list[str]) -> list[Edge]:
        """One-hop expansion: for each seed, its ``per_seed`` strongest edges of the given
        types with weight >= ``min_weight``."""

    def neighbors_with_memories(self, namespace: str, seed_ids: list[str], per_seed: int, min_weight: float,
                                edge_types: list[str], known_ids: Collection[str]
                                ) -> tuple[list[Edge], dict[str, Memory]]:
        """``neighbors`` plus the memories of the neighbours not in ``known_ids``, in one read
        (one round trip on Neo4j; expansion and the neighbours view need both)."""

    def edges_among(self, namespace: str, ids: list[str]) -> list[Edge]:
        """Edges whose both endpoints are in ``ids`` (subgraph view)."""

    # -- maintenance: graphmem check and backup ------------------------------------------------
    def integrity(self, namespace: str) -> list[tuple[str, str, list[str]]]:
        """Findings only this store can make, beyond the shared check: ``(kind, detail, ids)``."""
        ...

    def recount(self, namespace: str) -> None:
        """Rebuild the namespace's tag, category and term counts from the memories (check --repair)."""
        ...

    def backup_file(self, destination: str | Path) -> Path:
        """A consistent copy of the store's database file while it stays in use. A store whose data
        is not one file raises ``ValidationError`` naming the portable alternative (the JSONL dump)."""
        ...

    def stats(self, namespace: str | None) -> StoreStats:
        """Raw counts of one namespace (None: all): memories per namespace, edges and maximum
        degree per type, the health histogram. Totals and means are the engine's."""


REINDEX_HINT = "run `graphmem reindex` to re-embed it with the configured model"


def check_model(where: str, recorded: str | None, recorded_dim: int | None, reindex: dict | None,
                model_id: str, dim: int, reindexing: bool = False) -> None:
    """The one rule both stores apply when opened: vectors from two models never mix.
    A store embedded by another model, or with an unfinished reindex, is refused with
    an error that names the command to fix it; ``graphmem reindex`` itself may open it."""
    if recorded is None or reindexing:
        return
    if reindex:
        raise StoreConfigError(
            f"{where} is half re-embedded ({recorded!r} -> {reindex.get('model_id')!r}); run `graphmem reindex` "
            "again with that model configured to finish", field="model")
    if recorded != model_id or int(recorded_dim or dim) != dim:
        raise StoreConfigError(
            f"{where} holds {recorded_dim}-dim embeddings from model {recorded!r}, but the configured model "
            f"{model_id!r} has {dim} dimensions; {REINDEX_HINT} (or configure {recorded!r})", field="model")


def neighbors_then_memories(store: MemoryStore, namespace: str, seed_ids: list[str], per_seed: int,
                            min_weight: float, edge_types: list[str], known_ids: Collection[str]
                            ) -> tuple[list[Edge], dict[str, Memory]]:
    """``neighbors_with_memories`` as two calls (an in-process store gains nothing from one)."""
    edges = store.neighbors(namespace, seed_ids, per_seed, min_weight, edge_types)
    return edges, store.get_memories(namespace, [e.b for e in edges if e.b not in known_ids])


def recall_in_turn(store: MemoryStore, namespace: str, vector: np.ndarray | None, vector_limit: int,
                   terms: list[str], lookup: Callable[[TermStats], list[str]], lexical_limit: int,
                   flt: MemoryFilter, now_iso: str) -> RecallHits:
    """``recall`` as the separate reads (an in-process store gains nothing from one call)."""
    vector_ids = (store.vector_candidates(namespace, vector, vector_limit, flt, now_iso)
                  if vector is not None and vector_limit > 0 else [])
    stats = store.term_stats(namespace, terms)
    searched = lookup(stats) if terms else []
    lexical_ids = (store.lexical_candidates(namespace, searched, lexical_limit, flt, now_iso)
                   if searched and lexical_limit > 0 else [])
    ids = list(dict.fromkeys([*vector_ids, *lexical_ids]))
    return RecallHits(stats, vector_ids, lexical_ids, store.get_memories(namespace, ids) if ids else {})


def iter_pages(store: MemoryStore, namespace: str, batch_size: int) -> Iterator[list[Memory]]:
    """Every memory of a namespace (expired included), a keyset-paged batch at a time."""
    after = None
    while True:
        batch = store.list_memories(namespace, MemoryFilter(include_expired=True), batch_size, after)
        if not batch:
            return
        yield batch
        after = (batch[-1].created_at, batch[-1].id)
