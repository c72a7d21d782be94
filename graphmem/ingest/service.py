"""Ingest orchestration: validate -> dedupe -> embed -> health/source -> link -> save.

Each step is its own unit (validate, build, health, source, evidence, candidates and linker,
threads, supersede; batch writes in ``batch``, re-scoring in ``rescore``); this module only
sequences them against a store, under one write lock so linking reads what it writes: this
process's lock, and the store's ``write_session`` (which on the embedded store holds the
database's write lock, so an id's create is a compare-and-set across processes too).
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from graphmem.config import Settings
from graphmem.contract.requests import Evidence, MemoryInput
from graphmem.embedding.embedder import Embedder
from graphmem.errors import ConflictError, GraphmemError, NotFoundError, StoreUnavailable
from graphmem.ingest.batch import write_group
from graphmem.ingest.build import build_memory
from graphmem.ingest.evidence import check_evidence
from graphmem.ingest.linker import link_memories
from graphmem.ingest.rescore import rescore
from graphmem.ingest.results import IngestResult, PreparedBatch, duplicate_result
from graphmem.ingest.supersede import SupersedePlan, Superseder
from graphmem.ingest.supersede_candidates import auto_plan
from graphmem.ingest.threads import ThreadKeeper
from graphmem.ingest.validate import validate_memory, validate_patch
from graphmem.model import Edge, Memory, utcnow_iso, window_namespace
from graphmem.stores.base import MemoryStore
from graphmem.text import content_hash

__all__ = ["Ingestor", "IngestResult", "PreparedBatch"]


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

    # -- building and linking a memory -----------------------------------------------------
    def build(self, namespace: str, inp: MemoryInput, embedding: np.ndarray | None, created_at: str | None = None,
              current: Memory | None = None) -> Memory:
        """A Memory with health, source weight and terms computed, not yet linked or saved
        (``build.build_memory``)."""
        return build_memory(self.settings, namespace, inp, embedding, self.clock(), created_at, current)

    def _save_new(self, mem: Memory, supersede: SupersedePlan | None = None) -> Memory:
        """Link and save a new memory; the older memories it supersedes change in the same transaction."""
        plan = link_memories(self.store, mem.namespace, [mem], self.settings)
        mem.near_duplicate_of = plan.near_duplicates[mem.id]
        thread = self.threads.plan_writes(mem.namespace, [mem])
        sup = supersede or SupersedePlan([], [])
        self.store.save_memory(mem, plan.add + thread.add + sup.edges, plan.remove + thread.remove,
                               also=[*thread.windows, *sup.older])
        return mem

    # -- public operations ----------------------------------------------------------------
    def existing(self, namespace: str, inp: MemoryInput, by_id: Callable[[str], Memory | None] | None = None,
                 by_hash: Callable[[str], Memory | None] | None = None) -> IngestResult | None:
        """The stored memory ``inp`` duplicates (same id, else the oldest with the same content);
        ConflictError for a known id with other content. A thread turn with an id is known by its
        id alone: "user: thanks" said in two chats is two turns, each needed in its thread.
        Lookups default to the store's."""
        by_id = by_id or (lambda key: self.store.get_memories(namespace, [key]).get(key))
        by_hash = by_hash or (lambda digest: self.store.find_by_hash(namespace, digest))
        if inp.id:
            found = by_id(inp.id)
            if found is not None:
                if found.content_hash != content_hash(inp.content):
                    raise ConflictError(f"id {inp.id!r} already exists with different content; to change it, "
                                        f"update it: PATCH /v1/memories/{inp.id} (CLI: graphmem update "
                                        f"{inp.id} --content ...; MCP: update_memory)", field="id")
                return duplicate_result(inp, found)
            if inp.thread is not None:
                return None
        same = by_hash(content_hash(inp.content))
        if same is not None:
            return duplicate_result(inp, same)
        return None

    def create(self, data: Any, default_namespace: str = "default") -> IngestResult:
        inp = validate_memory(data, self.settings.limits, default_namespace)
        ns = inp.namespace or default_namespace
        embedding = self.embedder.embed_documents([inp.content])[0]
        with self.serial():
            existing = self.existing(ns, inp)
            if existing is not None:
                if inp.supersedes and existing.memory is not None:    # a retried write: its links, once
                    self.supersede(ns, existing.memory.id, inp.supersedes, inp.reason, "supersedes")
                return existing
            mem = self.build(ns, inp, embedding)
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
                groups[inp.namespace or default_namespace].append((i, inp))
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
                write_group(self, namespace, group, results)
            if progress is not None:
                progress(len(group))
        return [r for r in results if r is not None]

    def update(self, namespace: str, memory_id: str, patch: Any) -> Memory:
        changes = validate_patch(patch, self.settings.limits)
        # Embedded before the write path is taken: no other writer waits on the model.
        embedded = self.embedder.embed_documents([changes["content"]])[0] if "content" in changes else None
        with self.serial():
            current = self.store.get_memories(namespace, [memory_id]).get(memory_id)
            if current is None:
                raise NotFoundError(f"memory {memory_id!r} not found", field="id")
            # The stored memory with the validated patch applied: trusted values, so not validated again
            # (a limit lowered since the write must not refuse an edit of another field).
            inp = MemoryInput.model_construct(
                content=changes.get("content", current.content), namespace=namespace, id=memory_id,
                tags=changes.get("tags", current.tags), category=changes.get("category", current.category),
                source=changes.get("source", current.source), reason=changes.get("reason", current.reason),
                metadata=changes.get("metadata", current.metadata),
                valid_until=changes.get("valid_until", current.valid_until),
                expires_at=changes.get("expires_at", current.expires_at),
                evidence=Evidence.model_construct(**current.evidence) if current.evidence else None,
                thread=current.thread, seq=current.seq, valid_from=changes.get("valid_from", current.valid_from))
            relink = any(k in changes for k in ("content", "tags", "category"))
            embedding = embedded if "content" in changes else current.embedding
            mem = self.build(namespace, inp, embedding, created_at=current.created_at, current=current)
            if not relink:
                mem.near_duplicate_of = current.near_duplicate_of
                self.store.save_memory(mem, [], [], also=self.threads.plan_writes(namespace, [mem]).windows)
                return mem
            return self.relink(current, mem)

    def relink(self, current: Memory, mem: Memory) -> Memory:
        """Save ``mem`` over the stored ``current`` with its automatic edges planned anew (explicit
        RELATED edges, its thread's FOLLOWS edges and its SUPERSEDES edges kept), as an update of its
        content, tags, category or topics needs; the context windows that hold it are rebuilt in the same write."""
        kept = self.store.edges_of(mem.namespace, [mem.id], types=["RELATED", "FOLLOWS", "SUPERSEDES"])
        plan = link_memories(self.store, mem.namespace, [mem], self.settings, {mem.id: current.index_labels})
        mem.near_duplicate_of = plan.near_duplicates[mem.id]
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
        contract's ``RelationRequest``, which also refuses a memory related to itself), saved only
        if its evidence quote is in its source text."""
        checked = check_evidence(evidence)
        with self.serial():
            found = self.store.get_memories(namespace, [a, b])
            for key, field_name in ((a, "from_id"), (b, "to_id")):
                if key not in found:
                    raise NotFoundError(f"memory {key!r} not found", field=field_name)
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
        """Stored memories re-scored under the current rules (``rescore.rescore``)."""
        return rescore(self, namespace)
