"""Ingest orchestration: validate -> dedupe -> embed -> health/source -> link -> save.

Each step is its own unit (validate, health, source, evidence, linking); this module only
sequences them against a store, under one write lock so linking reads what it writes: this
process's lock, and the store's ``write_session`` (which on the embedded store holds the
database's write lock, so an id's create is a compare-and-set across processes too).
"""

from __future__ import annotations

import sys
import threading
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from graphmem.config import Settings
from graphmem.embedding.embedder import Embedder
from graphmem.errors import ConflictError, GraphmemError, NotFoundError, StoreUnavailable, ValidationError
from graphmem.ingest.batch import BatchView, link_labels
from graphmem.ingest.evidence import check_evidence
from graphmem.ingest.health import assess_health, health_score, kept_penalties
from graphmem.ingest.linking import EdgePlan, apply_degree_caps, propose_edges, reason_labels, reweigh
from graphmem.ingest.source import source_weight
from graphmem.ingest.supersede import SupersedePlan, Superseder
from graphmem.ingest.supersede_candidates import auto_plan
from graphmem.ingest.threads import ThreadKeeper
from graphmem.ingest.topics import extract_topics
from graphmem.ingest.validate import MemoryInput, validate_memory, validate_patch
from graphmem.model import LINK_TYPES, Edge, Memory, TermStats, utcnow_iso, window_namespace
from graphmem.stores.base import MemoryStore
from graphmem.text import content_hash, rarest_terms, term_counts


@dataclass
class IngestResult:
    status: str                    # created | duplicate | rejected
    memory: Memory | None = None
    duplicate_of: str | None = None
    error: GraphmemError | None = None
    index: int = 0

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"index": self.index, "status": self.status}
        if self.memory is not None:
            out["id"] = self.memory.id
            out["memory"] = self.memory.to_dict()
        if self.duplicate_of:
            out["duplicate_of"] = self.duplicate_of
        if self.error is not None:
            out["error"] = self.error.to_dict()
        return out


@dataclass
class PreparedBatch:
    """A validated, embedded batch not yet written: rejections by position, and each namespace's
    (position, input, embedding) in input order."""
    results: list[IngestResult | None]
    groups: dict[str, list[tuple[int, MemoryInput, np.ndarray]]]


class Ingestor:
    def __init__(self, settings: Settings, store: MemoryStore, embedder: Embedder, clock=utcnow_iso):
        self.settings = settings
        self.store = store
        self.embedder = embedder
        self.clock = clock
        self.lock = threading.RLock()
        self.threads = ThreadKeeper(store, settings.context, settings.edges)
        self.superseder = Superseder(settings, store)

    @contextmanager
    def serial(self) -> Iterator[None]:
        """The write path's critical section: this process's lock, then the store's write session
        (another process's writes wait, or this one does), each waited for at most ``store.write_wait``."""
        if not self.lock.acquire(timeout=self.settings.store.write_wait):
            raise StoreUnavailable("another write of this process held the write path longer than "
                                   "store.write_wait seconds; retry", retry_after=1)
        try:
            with self.store.write_session():
                yield
        finally:
            self.lock.release()

    # -- building a memory ----------------------------------------------------------------
    def build(self, inp: MemoryInput, embedding: np.ndarray | None, created_at: str | None = None,
              current: Memory | None = None) -> Memory:
        """A Memory with health, source weight and terms computed, not yet linked or saved; a new
        version of ``current`` keeps its supersession (``superseded_by`` and its penalty)."""
        now = self.clock()
        health, reasons = assess_health(inp.content, inp.tags, inp.category, self.settings.health)
        if current is not None and kept_penalties(current.health_reasons):
            reasons = [*reasons, *kept_penalties(current.health_reasons)]
            health = health_score(reasons)
        mem = Memory(
            id=inp.id or uuid.uuid4().hex, namespace=inp.namespace, content=inp.content,
            content_hash=content_hash(inp.content), tags=inp.tags, category=inp.category,
            source=inp.source, reason=inp.reason, metadata=inp.metadata,
            created_at=created_at or inp.created_at or now, updated_at=now,
            valid_until=inp.valid_until, expires_at=inp.expires_at,
            embedding=None if embedding is None else np.asarray(embedding, dtype=np.float32),
            health=health, health_reasons=reasons,
            source_weight=source_weight(inp.source, self.settings.sources),
            term_counts=term_counts(inp.content), evidence=inp.evidence,
            topics=extract_topics(inp.content, self.settings.topics), thread=inp.thread, seq=inp.seq,
            valid_from=inp.valid_from, superseded_by=current.superseded_by if current is not None else None)
        if mem.valid_until is not None and mem.valid_until <= mem.effective_valid_from:
            raise ConflictError(f"valid_until {mem.valid_until} is not after valid_from "
                                  f"{mem.effective_valid_from} (valid_from, else created_at)", field="valid_until")
        return mem

    def _candidates(self, mem: Memory, view: Any, labels: list[str], stats: TermStats) -> list[Memory]:
        """Link candidates from the tag (and topic), category and lexical indexes (never a scan)."""
        cfg = self.settings.edges
        ids: list[str] = []
        for tag in labels:
            ids += view.tag_members(mem.namespace, tag, cfg.candidates_per_tag, exclude_id=mem.id)
        if mem.category:
            ids += view.category_members(mem.namespace, mem.category, cfg.candidates_per_category,
                                         exclude_id=mem.id)
        ids += view.lexical_candidates(mem.namespace, self._rare_terms(mem, view, stats), cfg.candidates_lexical,
                                       None, self.clock(), exclude_id=mem.id)
        found = view.get_memories(mem.namespace, list(dict.fromkeys(ids)))
        return [found[i] for i in sorted(found)]

    def _rare_terms(self, mem: Memory, view: Any, stats: TermStats | None = None) -> list[str]:
        """The memory's rarest terms (``text.rarest_terms`` under ``edges.lexical_*``): a bounded
        postings budget keeps the cost of an insert flat as the store grows, and rare shared terms
        are the ones that make an OVERLAPS edge meaningful."""
        cfg = self.settings.edges
        stats = stats or view.term_stats(mem.namespace, list(mem.term_counts))
        return rarest_terms(mem.term_counts, stats.df, stats.n_docs, max_terms=cfg.lexical_lookup_terms,
                            max_df_ratio=cfg.lexical_max_df_ratio, max_postings=cfg.lexical_max_postings)

    def _link_topics(self, mem: Memory, tag_df: dict[str, int], n_docs: int) -> list[str]:
        """The topic labels ``mem`` links by: those other memories hold, skipping any held by more
        than ``edges.topic_max_df_ratio`` of the namespace (``text.rarest_terms``, the rule lexical
        lookups use; each topic's candidates are capped at ``candidates_per_tag`` already)."""
        topics = mem.topic_labels
        if not topics or self.settings.edges.topic_tag_weight <= 0:
            return []
        others = {t: tag_df[t] - 1 for t in topics}
        return rarest_terms(topics, others, n_docs, max_terms=len(topics),
                            max_df_ratio=self.settings.edges.topic_max_df_ratio, max_postings=sys.maxsize)

    def _link(self, mem: Memory, stored_tags: list[str] | tuple = (),
              view: Any = None) -> tuple[EdgePlan, str | None]:
        """Edges for ``mem`` and its near duplicate; ``stored_tags`` are the labels (tags and topic
        labels) it already holds in the store (on update), which the stored counts already include.
        ``view`` answers the reads: the store itself, or a ``BatchView`` (the store plus the batch
        planned so far)."""
        view = view or self.store
        stats = view.term_stats(mem.namespace, list(mem.term_counts))
        own = link_labels(mem, self.settings.edges)
        counts = view.tag_counts(mem.namespace, own)
        held = set(stored_tags)
        tag_df = {t: counts.get(t, 0) + (t not in held) for t in own}   # + the memory, counted once
        labels = [*mem.tags, *self._link_topics(mem, tag_df, stats.n_docs)]
        candidates = self._candidates(mem, view, labels, stats)
        near_dup = None
        best = self.settings.ingest.near_duplicate_threshold
        for other in candidates:
            if other.embedding is not None and mem.embedding is not None:
                cos = float(np.dot(mem.embedding, other.embedding))
                if cos > best:
                    best, near_dup = cos, other.id
        proposals = propose_edges(mem, candidates, tag_df, self.settings.edges, labels)
        endpoints = sorted({e.other(mem.id) for edges in proposals.values() for e in edges})
        existing: dict[str, list[Edge]] = {}
        for edge in view.edges_of(mem.namespace, endpoints, types=list(LINK_TYPES), with_reasons=False):
            if mem.id in (edge.a, edge.b):      # re-link: the memory's old edges are being replaced
                continue
            existing.setdefault(edge.a, []).append(edge)
            existing.setdefault(edge.b, []).append(edge)
        return apply_degree_caps(mem.id, proposals, existing, self.settings.edges), near_dup

    def _save_new(self, mem: Memory, supersede: SupersedePlan | None = None) -> Memory:
        """Link and save a new memory; the older memories it supersedes change in the same transaction."""
        plan, near_dup = self._link(mem)
        mem.near_duplicate_of = near_dup
        thread = self.threads.plan_writes(mem.namespace, [mem])
        sup = supersede or SupersedePlan([], [])
        self.store.save_memory(mem, plan.add + thread.add + sup.edges, plan.remove + thread.remove,
                               also=[*thread.windows, *sup.older])
        return mem

    # -- public operations ----------------------------------------------------------------
    def _existing(self, inp: MemoryInput, by_id: Callable[[str], Memory | None] | None = None,
                  by_hash: Callable[[str], Memory | None] | None = None) -> IngestResult | None:
        """The stored memory ``inp`` duplicates (same id, else the oldest with the same content);
        ConflictError for a known id with other content. A thread turn with an id is known by its
        id alone: "user: thanks" said in two chats is two turns, each needed in its thread.
        Lookups default to the store's."""
        ns = inp.namespace
        by_id = by_id or (lambda key: self.store.get_memories(ns, [key]).get(key))
        by_hash = by_hash or (lambda digest: self.store.find_by_hash(ns, digest))
        if inp.id:
            found = by_id(inp.id)
            if found is not None:
                if found.content_hash != content_hash(inp.content):
                    raise ConflictError(f"id {inp.id!r} already exists with different content", field="id")
                return IngestResult("duplicate", found, duplicate_of=found.id)
            if inp.thread is not None:
                return None
        same = by_hash(content_hash(inp.content))
        if same is not None:
            return IngestResult("duplicate", same, duplicate_of=same.id)
        return None

    def create(self, data: Any, default_namespace: str = "default") -> IngestResult:
        inp = validate_memory(data, self.settings.limits, default_namespace)
        embedding = self.embedder.embed_documents([inp.content])[0]
        with self.serial():
            existing = self._existing(inp)
            if existing is not None:
                if inp.supersedes and existing.memory is not None:    # a retried write: its links, once
                    self.supersede(inp.namespace, existing.memory.id, inp.supersedes, inp.reason, "supersedes")
                return existing
            mem = self.build(inp, embedding)
            plan = (self.superseder.plan(mem, inp.supersedes, mem.updated_at, inp.reason)
                    if inp.supersedes else auto_plan(self.superseder, self.store, mem, self.settings.supersede))
            return IngestResult("created", self._save_new(mem, plan))

    def supersede(self, namespace: str, newer_id: str, older_ids: list[str], reason: str | None,
                  field: str = "older", by: str = "explicit") -> SupersedePlan:
        """Stored ``older_ids`` superseded by the stored ``newer_id``, in one transaction."""
        with self.serial():
            newer = self.store.get_memories(namespace, [newer_id]).get(newer_id)
            if newer is None:
                raise NotFoundError(f"memory {newer_id!r} not found in namespace {namespace!r}", field="newer")
            plan = self.superseder.plan(newer, older_ids, self.clock(), reason, by, field=field)
            if plan.older:
                self.store.save_memory(plan.older[0], plan.edges, [], also=plan.older[1:])
            return plan

    def unsupersede(self, namespace: str, newer_id: str, older_id: str) -> tuple[Memory, Edge]:
        """Undo one link: the older memory restored, the edge removed, in one transaction."""
        with self.serial():
            restored, edge = self.superseder.undo(namespace, newer_id, older_id)
            self.store.save_memory(restored, [], [edge])
            return restored, edge

    def prepare_batch(self, items: list[Any], default_namespace: str = "default") -> PreparedBatch:
        """Validate and embed a batch, touching no store: the part bulk import runs ahead of the
        write path (in another thread) so embedding overlaps linking and writing."""
        results: list[IngestResult | None] = [None] * len(items)
        groups: dict[str, list[tuple[int, MemoryInput]]] = defaultdict(list)
        for i, item in enumerate(items):
            try:
                inp = validate_memory(item, self.settings.limits, default_namespace)
                groups[inp.namespace].append((i, inp))
            except GraphmemError as exc:
                results[i] = IngestResult("rejected", error=exc, index=i)
        valid = [pair for group in groups.values() for pair in group]
        vectors = list(self.embedder.embed_documents([inp.content for _, inp in valid])) if valid else []
        embedding = {i: vector for (i, _), vector in zip(valid, vectors, strict=True)}
        return PreparedBatch(results, {ns: [(i, inp, embedding[i]) for i, inp in group]
                                       for ns, group in groups.items()})

    def write_prepared(self, prepared: PreparedBatch, progress=None) -> list[IngestResult]:
        """Dedupe, link and save a prepared batch, namespace by namespace (``prepare_batch``'s second half)."""
        results = list(prepared.results)
        for namespace, group in prepared.groups.items():
            with self.serial():
                self._create_group(namespace, group, results)
            if progress is not None:
                progress(len(group))
        return [r for r in results if r is not None]

    def _create_group(self, namespace: str, group: list[tuple[int, MemoryInput, np.ndarray]],
                      results: list[IngestResult | None]) -> None:
        """Dedupe, build, link and save one namespace's items (under the write lock)."""
        stored_ids = self.store.get_memories(namespace, [inp.id for _, inp, _ in group if inp.id])
        stored_hashes = self.store.find_by_hashes(namespace, [content_hash(inp.content) for _, inp, _ in group])
        new_ids: dict[str, Memory] = {}
        new_hashes: dict[str, Memory] = {}

        def by_hash(digest: str) -> Memory | None:
            found = [m for m in (stored_hashes.get(digest), new_hashes.get(digest)) if m is not None]
            return min(found, key=lambda m: (m.created_at, m.id)) if found else None

        created: list[tuple[int, Memory]] = []
        changed: dict[str, Memory] = {}        # stored memories the batch supersedes, as they become
        sup_edges: list[Edge] = []
        for i, inp, vector in group:
            try:
                existing = self._existing(inp, lambda key: new_ids.get(key) or stored_ids.get(key), by_hash)
            except GraphmemError as exc:
                results[i] = IngestResult("rejected", error=exc, index=i)
                continue
            if existing is not None:
                existing.index = i
                results[i] = existing
                continue
            try:
                mem = self.build(inp, vector)
                # earlier items of the batch, or stored memories; else the candidate rule's pick
                pending = {**changed, **new_ids}
                sup = (self.superseder.plan(mem, inp.supersedes, mem.updated_at, inp.reason, pending=pending)
                       if inp.supersedes else auto_plan(self.superseder, self.store, mem, self.settings.supersede,
                                                        pending))
                if sup is not None:
                    for older in sup.older:
                        if older.id in new_ids:
                            new_ids[older.id] = older
                            created = [(j, older if m.id == older.id else m) for j, m in created]
                        else:
                            changed[older.id] = older
                    sup_edges += sup.edges
            except GraphmemError as exc:
                results[i] = IngestResult("rejected", error=exc, index=i)
                continue
            new_ids[mem.id] = mem
            new_hashes[mem.content_hash] = mem
            created.append((i, mem))
        if not created:
            return
        view = BatchView(self.store, namespace, self.settings.edges)
        view.prefetch([mem for _, mem in created], self._rare_terms)
        for _, mem in created:
            plan, mem.near_duplicate_of = self._link(mem, view=view)
            view.add(mem, plan.add, plan.remove)
        added, removed = view.net_edges()
        thread = self.threads.plan_writes(namespace, [mem for _, mem in created])
        try:
            self.store.save_batch([mem for _, mem in created] + thread.windows + list(changed.values()),
                                  added + thread.add + sup_edges, removed + thread.remove)
        except StoreUnavailable:
            raise                       # an outage is not a per-item rejection
        except GraphmemError as exc:
            for i, _ in created:
                results[i] = IngestResult("rejected", error=exc, index=i)
            return
        for i, mem in created:
            results[i] = IngestResult("created", mem, index=i)

    def update(self, namespace: str, memory_id: str, patch: Any) -> Memory:
        changes = validate_patch(patch, self.settings.limits)
        # Embedded before the write path is taken: no other writer waits on the model.
        embedded = self.embedder.embed_documents([changes["content"]])[0] if "content" in changes else None
        with self.serial():
            current = self.store.get_memories(namespace, [memory_id]).get(memory_id)
            if current is None:
                raise NotFoundError(f"memory {memory_id!r} not found", field="id")
            inp = MemoryInput(
                content=changes.get("content", current.content), namespace=namespace, id=memory_id,
                tags=changes.get("tags", current.tags), category=changes.get("category", current.category),
                source=changes.get("source", current.source), reason=changes.get("reason", current.reason),
                metadata=changes.get("metadata", current.metadata),
                valid_until=changes.get("valid_until", current.valid_until),
                expires_at=changes.get("expires_at", current.expires_at), evidence=current.evidence,
                thread=current.thread, seq=current.seq, valid_from=changes.get("valid_from", current.valid_from))
            relink = any(k in changes for k in ("content", "tags", "category"))
            embedding = embedded if "content" in changes else current.embedding
            mem = self.build(inp, embedding, created_at=current.created_at, current=current)
            if not relink:
                mem.near_duplicate_of = current.near_duplicate_of
                self.store.save_memory(mem, [], [], also=self.threads.plan_writes(namespace, [mem]).windows)
                return mem
            return self._relink(current, mem)

    def _relink(self, current: Memory, mem: Memory) -> Memory:
        """Save ``mem`` over the stored ``current`` with its automatic edges planned anew (explicit
        RELATED edges, its thread's FOLLOWS edges and its SUPERSEDES edges kept), as an update of its
        content, tags, category or topics needs; the context windows that hold it are rebuilt in the same write."""
        kept = self.store.edges_of(mem.namespace, [mem.id], types=["RELATED", "FOLLOWS", "SUPERSEDES"])
        plan, near_dup = self._link(replace(mem), stored_tags=current.index_labels)
        mem.near_duplicate_of = near_dup
        self.store.save_memory(mem, kept + plan.add, plan.remove, replace_edges=True,
                               also=self.threads.plan_writes(mem.namespace, [mem]).windows)
        return mem

    def delete(self, namespace: str, memory_id: str) -> bool:
        """Delete a memory; a thread member's context window goes with it, the FOLLOWS edge across
        its gap and the windows that held it are written in the same transaction."""
        with self.serial():
            current = self.store.get_memories(namespace, [memory_id]).get(memory_id)
            if current is None or current.thread is None:
                return self.store.delete_memory(namespace, memory_id)
            plan = self.threads.plan_delete(current)
            return self.store.delete_memory(namespace, memory_id, companions=[window_namespace(namespace)],
                                            save=plan.windows, add_edges=plan.add)

    def relate(self, namespace: str, a: str, b: str, evidence: dict[str, Any], label: str | None = None,
               weight: float | None = None) -> Edge:
        """An explicit relation between two stored memories (the values come parsed by the
        contract's ``RelationRequest``), saved only if its evidence quote is in its source text."""
        checked = check_evidence(evidence)
        with self.serial():
            found = self.store.get_memories(namespace, [a, b])
            for key, field_name in ((a, "from_id"), (b, "to_id")):
                if key not in found:
                    raise NotFoundError(f"memory {key!r} not found", field=field_name)
            if a == b:
                raise ValidationError("a memory cannot be related to itself", field="to_id")
            cap = self.settings.edges.max_degree("RELATED")
            related = self.store.edges_of(namespace, [a, b], types=["RELATED"], with_reasons=False)
            for key, field_name in ((a, "from_id"), (b, "to_id")):
                held = [e for e in related if key in (e.a, e.b)]
                if len(held) >= cap and not any({e.a, e.b} == {a, b} for e in held):
                    raise ConflictError(f"memory {key!r} already has {cap} explicit relations "
                                        "(edges.max_degree_related)", field=field_name)
            edge = Edge.make(namespace, a, b, "RELATED",
                             self.settings.edges.related_weight if weight is None else weight,
                             {"label": label or "related", "quote": checked["quote"]})
            self.store.write_edges([edge], [])
            return edge

    def rescore(self, namespace: str | None = None) -> dict[str, int]:
        """Re-apply health rules and source ranks to stored memories, re-derive their terms with the
        current tokeniser (a store written by an older release is brought up to date), and re-weigh
        their automatic edges from the stored reasons under the current edge rules and tag counts
        (tags grow common after an edge is made). Extracted topics are re-derived under ``[topics]``
        (a store written before topics gains them) and a memory whose topics change is re-linked.
        Nothing is deleted but edges that no longer qualify."""
        changed = seen = retokenised = reweighed = dropped = retopiced = 0
        for ns in [namespace] if namespace else self.store.namespaces():
            for batch in self.store.iter_memories(ns):
                updates, resaves, relinks = [], [], []
                for mem in batch:
                    seen += 1
                    health, reasons = assess_health(mem.content, mem.tags, mem.category, self.settings.health)
                    if kept_penalties(mem.health_reasons):      # supersession is not the content's rule
                        reasons = [*reasons, *kept_penalties(mem.health_reasons)]
                        health = health_score(reasons)
                    weight = source_weight(mem.source, self.settings.sources)
                    terms = term_counts(mem.content)
                    topics = extract_topics(mem.content, self.settings.topics)
                    new = replace(mem, term_counts=terms, topics=topics, health=health, health_reasons=reasons,
                                  source_weight=weight)
                    if topics != mem.topics:
                        relinks.append((mem, new))
                    elif terms != mem.term_counts:
                        resaves.append(new)
                    if (health, [r.to_dict() for r in reasons], weight) != (
                            mem.health, [r.to_dict() for r in mem.health_reasons], mem.source_weight):
                        changed += 1
                        if terms == mem.term_counts and topics == mem.topics:
                            updates.append((mem.id, health, reasons, weight))
                with self.serial():
                    if updates:
                        self.store.update_health(ns, updates)
                    for mem in resaves:             # the whole row, so the full-text index follows
                        self.store.save_memory(mem, [], [])
                    for old, new in relinks:        # new topic labels: the row, its index entries and edges
                        self._relink(old, new)
                    upserts, removals = self._reweigh_edges(ns, [m.id for m in batch])
                    if upserts or removals:
                        self.store.write_edges(upserts, removals)
                retokenised += len(resaves) + sum(old.term_counts != new.term_counts for old, new in relinks)
                retopiced += len(relinks)
                reweighed += len(upserts)
                dropped += len(removals)
        return {"memories": seen, "changed": changed, "terms_updated": retokenised, "topics_updated": retopiced,
                "edges_reweighted": reweighed, "edges_removed": dropped}

    def _reweigh_edges(self, namespace: str, ids: list[str]) -> tuple[list[Edge], list[Edge]]:
        """Automatic edges whose ``a`` end is in ``ids`` (each edge once), re-weighed."""
        batch = set(ids)
        edges = [e for e in self.store.edges_of(namespace, ids, types=list(LINK_TYPES)) if e.a in batch]
        tags = sorted({t for e in edges if e.type == "SHARES_TAG" for t in reason_labels(e.reason)})
        tag_df = self.store.tag_counts(namespace, tags)
        upserts, removals = [], []
        for edge in edges:
            new = reweigh(edge, tag_df, self.settings.edges)
            if new is None:
                removals.append(edge)
            elif (new.weight, new.reason) != (edge.weight, edge.reason):
                upserts.append(new)
        return upserts, removals
