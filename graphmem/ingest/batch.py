"""Batch ingest of one namespace: dedupe, build, supersede, link and save in one transaction.

The batch is linked as if its memories were saved one at a time in input order
(``linker.link_memories``: the same candidates, degree caps, evictions and edge reasons as
one insert after another), and everything it changes is written by one ``save_batch``.
"""

from __future__ import annotations

import numpy as np

from graphmem.contract.requests import MemoryInput
from graphmem.errors import GraphmemError, StoreUnavailable
from graphmem.ingest.context import IngestContext
from graphmem.ingest.linker import link_memories
from graphmem.ingest.results import IngestResult
from graphmem.ingest.supersede_candidates import auto_plan
from graphmem.model import Edge, Memory
from graphmem.text import content_hash


def write_group(ingestor: IngestContext, namespace: str, group: list[tuple[int, MemoryInput, np.ndarray]],
                results: list[IngestResult | None]) -> None:
    """Dedupe, build, link and save one namespace's items (under the write lock); each item's
    result is set at its position in ``results``."""
    store = ingestor.store
    stored_ids = store.get_memories(namespace, [inp.id for _, inp, _ in group if inp.id])
    stored_hashes = store.find_by_hashes(namespace, [content_hash(inp.content) for _, inp, _ in group])
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
            existing = ingestor.existing(namespace, inp, lambda key: new_ids.get(key) or stored_ids.get(key),
                                         by_hash)
        except GraphmemError as exc:
            results[i] = IngestResult("rejected", error=exc, index=i)
            continue
        if existing is not None:
            existing.index = i
            results[i] = existing
            continue
        try:
            mem = ingestor.build(namespace, inp, vector)
            # earlier items of the batch, or stored memories; else the candidate rule's pick
            pending = {**changed, **new_ids}
            sup = (ingestor.superseder.plan(mem, inp.supersedes, mem.updated_at, inp.reason, pending=pending)
                   if inp.supersedes else auto_plan(ingestor.superseder, store, mem, ingestor.settings.supersede,
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
    memories = [mem for _, mem in created]
    plan = link_memories(store, namespace, memories, ingestor.settings)
    for mem in memories:
        mem.near_duplicate_of = plan.near_duplicates[mem.id]
    thread = ingestor.threads.plan_writes(namespace, memories)
    try:
        store.save_batch(memories + thread.windows + list(changed.values()),
                         plan.add + thread.add + sup_edges, plan.remove + thread.remove)
    except StoreUnavailable:
        raise                       # an outage is not a per-item rejection
    except GraphmemError as exc:
        for i, _ in created:
            results[i] = IngestResult("rejected", error=exc, index=i)
        return
    for i, mem in created:
        results[i] = IngestResult("created", mem, index=i)
