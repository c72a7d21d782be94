"""Linking a batch of memories (or one) with bounded degree, as one insert after another would.

``candidates.gather`` finds every memory's candidates from a few store reads; each memory's
strongest ``K`` edges of a type are proposed (``linking.propose_edges``); the stored edges of
every proposed endpoint are read once, as bare key / weight tuples, and the proposals are then
accepted in batch order under the degree caps (``degrees.DegreeBook``). The result is the net
edge change of the whole batch, and each memory's near duplicate.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from graphmem.config import Settings
from graphmem.ingest.candidates import LinkInput, gather
from graphmem.ingest.degrees import DegreeBook
from graphmem.ingest.linking import propose_edges
from graphmem.model import LINK_TYPES, Edge, Memory
from graphmem.stores.base import MemoryStore


@dataclass
class LinkPlan:
    """A batch's net edge change and each memory's near duplicate (id -> id, or None)."""
    add: list[Edge] = field(default_factory=list)
    remove: list[Edge] = field(default_factory=list)
    near_duplicates: dict[str, str | None] = field(default_factory=dict)


def near_duplicate(inp: LinkInput, threshold: float) -> str | None:
    """The candidate most similar to the memory above ``threshold`` (the first of equals)."""
    mem = inp.mem
    others = [c for c in inp.candidates if c.embedding is not None]
    if mem.embedding is None or not others:
        return None
    matrix = np.stack([c.embedding for c in others if c.embedding is not None])
    cos = matrix @ np.asarray(mem.embedding, dtype=np.float32)
    best = int(np.argmax(cos))
    return others[best].id if float(cos[best]) > threshold else None


def link_memories(store: MemoryStore, namespace: str, memories: list[Memory], settings: Settings,
                  stored_labels: dict[str, list[str]] | None = None) -> LinkPlan:
    """Edges for ``memories`` saved in this order. ``stored_labels``: memories already stored
    (re-linked) and the labels they hold there; their old automatic edges are being replaced."""
    cfg = settings.edges
    inputs = gather(store, namespace, memories, cfg, stored_labels)
    proposals = [propose_edges(inp.mem, inp.candidates, inp.tag_df, cfg, inp.labels) for inp in inputs]
    batch = {m.id for m in memories}
    # the degree caps weigh an endpoint's stored edges of the types proposed to it, and only those
    endpoints: dict[str, set[str]] = {edge_type: set() for edge_type in LINK_TYPES}
    for inp, found in zip(inputs, proposals, strict=True):
        for edge_type, edges in found.items():
            endpoints[edge_type].update(e.other(inp.mem.id) for e in edges)
    book = DegreeBook(cfg)
    relinked = set(stored_labels or ())
    for edge_type, ids in endpoints.items():
        stored = sorted(ids - batch)
        if stored:
            book.load([(e.a, e.b, e.type, e.weight) for e in
                       store.edges_of(namespace, stored, types=[edge_type], with_reasons=False)], skip=relinked)
    for inp, found in zip(inputs, proposals, strict=True):
        book.accept(inp.mem.id, found)
    added, removed = book.net(namespace)
    threshold = settings.ingest.near_duplicate_threshold
    return LinkPlan(added, removed, {inp.mem.id: near_duplicate(inp, threshold) for inp in inputs})
