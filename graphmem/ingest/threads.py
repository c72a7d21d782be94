"""Threads: FOLLOWS edges between consecutive memories of a conversation, and context windows.

A memory with a ``thread`` sits at ``thread_pos`` (``model.thread_position``). Ingest keeps two
things in step with every write, in the same transaction as the write itself:

- **FOLLOWS** edges from each thread member to the next one (at most one before, one after):
  a memory arriving in the middle replaces the edge across its position by two, a deletion
  joins the two sides of its gap.
- **Context windows**: the text of up to ``[context] before`` earlier and ``after`` later
  members around a memory, itself included, stored as a row of the same id in the companion
  namespace (``model.window_namespace``) with its own vector (``window_vector``) and full-text
  terms, so recall can match a turn by what surrounds it. Only the windows that span a changed
  position are rebuilt: at most ``before + after + 1`` per memory written, none re-embedded.

Everything here reads bounded neighbourhoods (``thread_context``: an index seek each way),
never a whole thread.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from graphmem.config import ContextSettings, EdgeSettings
from graphmem.model import Edge, Memory, window_namespace
from graphmem.stores.base import MemoryStore
from graphmem.text import content_hash, term_counts

FOLLOWS = "FOLLOWS"


@dataclass
class ThreadPlan:
    """What a write does to its threads: FOLLOWS edges to add and remove, windows to save."""

    add: list[Edge] = field(default_factory=list)
    remove: list[Edge] = field(default_factory=list)
    windows: list[Memory] = field(default_factory=list)


def follows_edge(namespace: str, earlier: Memory, later: Memory, weight: float) -> Edge:
    """The FOLLOWS edge from ``earlier`` to ``later`` (stored in that direction, not by id order,
    so a walk along ``-[:FOLLOWS]->`` reads the conversation forwards)."""
    return Edge(namespace, earlier.id, later.id, FOLLOWS, round(float(weight), 6),
                {"thread": earlier.thread, "from": earlier.id, "to": later.id})


class ThreadKeeper:
    """Plans FOLLOWS edges and context windows for memories being written or deleted."""

    def __init__(self, store: MemoryStore, context: ContextSettings, edges: EdgeSettings):
        self.store = store
        self.context = context
        self.edges = edges

    @property
    def radius(self) -> int:
        """How far around a changed position the stored thread is read: far enough that every
        window spanning the change can be rebuilt whole (and at least the direct neighbours)."""
        return max(1, self.context.before + self.context.after) if self.context.enabled else 1

    def plan_writes(self, namespace: str, written: list[Memory]) -> ThreadPlan:
        """FOLLOWS edges and windows for ``written`` (new memories, or new versions of stored ones)."""
        members = [m for m in written if m.thread is not None]
        if not members:
            return ThreadPlan()
        ctx = self.store.thread_context(namespace, [(m.thread, m.thread_pos) for m in members],  # type: ignore
                                        self.radius, self.radius)
        own = {m.id for m in members}
        stored = self.store.get_memories(namespace, sorted({i for b, a in ctx for i in (*b, *a)} - own))
        plan = ThreadPlan()
        for before, after in ctx:
            prev = next((i for i in before if i not in own), None)
            nxt = next((i for i in after if i not in own), None)
            if prev is not None and nxt is not None:      # the edge across this position, if any
                plan.remove.append(Edge(namespace, prev, nxt, FOLLOWS, 0.0, {}))
        for order in thread_orders([*stored.values(), *members]).values():
            changed = [i for i, m in enumerate(order) if m.id in own]
            for left, right in zip(order, order[1:], strict=False):
                if left.id in own or right.id in own:
                    plan.add.append(follows_edge(namespace, left, right, self.edges.follows_weight))
            plan.windows += self._windows(namespace, order, self._spanning(changed, len(order)))
        plan.remove = [e for e in plan.remove if e.key not in {a.key for a in plan.add}]
        return plan

    def plan_delete(self, mem: Memory) -> ThreadPlan:
        """The FOLLOWS edge across the gap ``mem`` leaves, and the windows that spanned it."""
        if mem.thread is None:
            return ThreadPlan()
        (before, after), = self.store.thread_context(mem.namespace, [(mem.thread, mem.thread_pos)],  # type: ignore
                                                     self.radius, self.radius)
        stored = self.store.get_memories(mem.namespace, [*before, *after])
        order = thread_orders(list(stored.values())).get(mem.thread, [])
        gap = sum(1 for m in order if (m.thread_pos or "") < (mem.thread_pos or ""))
        plan = ThreadPlan()
        if 0 < gap < len(order):
            plan.add.append(follows_edge(mem.namespace, order[gap - 1], order[gap], self.edges.follows_weight))
        spanning = [i for i in range(gap - self.context.after, gap + self.context.before)
                    if 0 <= i < len(order)]
        plan.windows = self._windows(mem.namespace, order, spanning)
        return plan

    def _spanning(self, changed: list[int], size: int) -> list[int]:
        """Positions whose window includes a changed position (window of i: i-before .. i+after)."""
        if not self.context.enabled:
            return []
        hit: set[int] = set()
        for j in changed:
            hit.update(range(max(0, j - self.context.after), min(size, j + self.context.before + 1)))
        return sorted(hit)

    def _windows(self, namespace: str, order: list[Memory], positions: list[int]) -> list[Memory]:
        """The window rows of ``order[i]`` for each i."""
        if not self.context.enabled or not positions:
            return []
        cfg = self.context
        return [window_row(namespace, order[i], order[max(0, i - cfg.before): i + cfg.after + 1], cfg.separator)
                for i in positions]


def thread_orders(memories: list[Memory]) -> dict[str, list[Memory]]:
    """Memories per thread in thread order (one copy per id: the last given wins)."""
    by_id = {m.id: m for m in memories if m.thread is not None}
    out: dict[str, list[Memory]] = {}
    for mem in sorted(by_id.values(), key=lambda m: m.thread_pos or ""):
        out.setdefault(mem.thread, []).append(mem)   # type: ignore[arg-type]
    return out


def window_vector(span: list[Memory]) -> np.ndarray | None:
    """A window's vector: the unit-length mean of its memories' embeddings. Measured against
    embedding the window's text on locomo-dev (all-MiniLM-L6-v2, every turn scored, no tuning),
    the mean matched or beat it, and it costs no embedding at all: a window changes without
    re-embedding anything."""
    vectors = [m.embedding for m in span if m.embedding is not None]
    if not vectors:
        return None
    mean = np.mean(np.stack(vectors).astype(np.float32), axis=0)
    norm = float(np.linalg.norm(mean))
    return (mean / norm).astype(np.float32) if norm > 0 else None


def window_row(namespace: str, mem: Memory, span: list[Memory], separator: str) -> Memory:
    """``mem``'s context window as a row of its window namespace: the span's text and vector, and
    ``mem``'s own labels, times and health, so the recall filters mean the same on both keys.
    ``metadata.turns`` lists the span's ids in thread order (what ``why`` shows, ``check`` verifies)."""
    text = separator.join(m.content for m in span)
    return replace(mem, namespace=window_namespace(namespace), content=text, content_hash=content_hash(text),
                   term_counts=term_counts(text), metadata={"turns": [m.id for m in span]},
                   embedding=window_vector(span), topics=[], entities=[], evidence=None, near_duplicate_of=None,
                   thread=None, seq=None, reason=None, health_reasons=list(mem.health_reasons))
