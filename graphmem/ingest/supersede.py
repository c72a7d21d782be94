"""Supersession: a memory replaces older ones, and can be undone exactly.

A write that ``supersedes`` older memories of its namespace changes each older one in the same
transaction as the write itself:

- ``superseded_by`` = the newer id, and ``valid_until`` = the newer memory's ``valid_from`` (else
  its ``created_at``) unless the older one already stopped being valid earlier;
- a health penalty "superseded by <id> at <time>" (``[health] superseded_penalty``);
- a SUPERSEDES edge newer -> older (weight ``[supersede] edge_weight``) whose reason keeps when,
  why, and the older memory's fields before the change, which undoing restores as they were.

The content and the exact lookup of an older memory never change. Chains (a -> b -> c) follow
``superseded_by`` upwards; a link that would close a cycle is refused (409), as is an older memory
already superseded by another (supersede that one instead: a chain stays a line).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from graphmem.config import Settings
from graphmem.errors import ConflictError, NotFoundError
from graphmem.ingest.health import SUPERSEDED, health_score, superseded_penalty
from graphmem.model import SUPERSEDES, Edge, Memory
from graphmem.stores.base import MemoryStore


@dataclass
class SupersedePlan:
    """The older memories as they become, and the SUPERSEDES edges to add."""

    older: list[Memory]
    edges: list[Edge]


def link_view(edge: Edge) -> dict[str, Any]:
    """The public shape of one SUPERSEDES edge (``contract.responses.Supersession``)."""
    r = edge.reason
    return {"newer": edge.a, "older": edge.b, "at": r.get("at", ""), "reason": r.get("reason"),
            "weight": edge.weight, "by": r.get("by", "explicit"), "older_valid_until": r.get("valid_until")}


def supersedes_edge(newer: Memory, older: Memory, at: str, reason: str | None, by: str,
                    weight: float) -> Edge:
    """newer -> older (stored in that direction, like FOLLOWS), with the older memory's prior state."""
    prior = {"superseded_by": older.superseded_by, "valid_until": older.valid_until,
             "updated_at": older.updated_at}
    return Edge(newer.namespace, newer.id, older.id, SUPERSEDES, round(float(weight), 6),
                {"from": newer.id, "to": older.id, "at": at, "reason": reason, "by": by,
                 "valid_until": end_of(newer, older), "prior": prior})


def end_of(newer: Memory, older: Memory) -> str | None:
    """The older memory's new ``valid_until``: when the newer became valid, or its own earlier end."""
    start = newer.effective_valid_from
    return older.valid_until if older.valid_until is not None and older.valid_until <= start else start


def successors(store: MemoryStore, namespace: str, memory: Memory, limit: int) -> list[str]:
    """Ids above ``memory`` along ``superseded_by`` (nearest first), at most ``limit``."""
    out: list[str] = []
    current = memory.superseded_by
    while current is not None and len(out) < limit and current not in out:
        out.append(current)
        found = store.get_memories(namespace, [current]).get(current)
        current = found.superseded_by if found is not None else None
    return out


class Superseder:
    def __init__(self, settings: Settings, store: MemoryStore):
        self.settings = settings
        self.store = store

    def plan(self, newer: Memory, older_ids: list[str], at: str, reason: str | None, by: str = "explicit",
             pending: dict[str, Memory] | None = None, field: str = "supersedes") -> SupersedePlan:
        """Check every older id, then plan the change; raises before anything is written.
        ``pending`` are memories of the same write not stored yet (a batch), looked up first."""
        ns = newer.namespace
        pending = pending or {}
        wanted = list(dict.fromkeys(older_ids))
        if newer.id in wanted:
            raise ConflictError(f"memory {newer.id!r} cannot supersede itself", field=field)
        stored = self.store.get_memories(ns, [i for i in wanted if i not in pending])
        found = {**stored, **{i: pending[i] for i in wanted if i in pending}}
        missing = [i for i in wanted if i not in found]
        if missing:
            raise NotFoundError(f"memory {missing[0]!r} (to supersede) not found in namespace {ns!r}", field=field)
        above = set(successors(self.store, ns, newer, self.settings.supersede.max_history))
        plan = SupersedePlan([], [])
        for older_id in wanted:
            older = found[older_id]
            if older_id in above:
                raise ConflictError(f"{newer.id!r} superseding {older_id!r} would close a cycle: {older_id!r} "
                                    f"already supersedes {newer.id!r} (directly or along its chain)", field=field)
            if older.superseded_by == newer.id:
                continue                                    # already so: a retried write
            if older.superseded_by is not None:
                raise ConflictError(f"memory {older_id!r} is already superseded by {older.superseded_by!r}; "
                                    f"supersede {older.superseded_by!r} instead", field=field)
            until = end_of(newer, older)
            if until is not None and until <= older.effective_valid_from:
                raise ConflictError(
                    f"{newer.id!r} became valid at {newer.effective_valid_from}, not after {older_id!r} did "
                    f"({older.effective_valid_from}): its valid_until would be before its valid_from", field=field)
            edge = supersedes_edge(newer, older, at, reason, by, self.settings.supersede.edge_weight)
            reasons = [*older.health_reasons, superseded_penalty(newer.id, at, self.settings.health)]
            plan.older.append(replace(older, superseded_by=newer.id, valid_until=until, updated_at=at,
                                      health_reasons=reasons, health=health_score(reasons)))
            plan.edges.append(edge)
        return plan

    def undo(self, namespace: str, newer_id: str, older_id: str) -> tuple[Memory, Edge]:
        """The older memory as it was before the link (its fields from the edge's record; the
        penalty removed), and the edge to delete. NotFound when there is no such link."""
        edges = [e for e in self.store.edges_of(namespace, [older_id], types=[SUPERSEDES])
                 if e.a == newer_id and e.b == older_id]
        older = self.store.get_memories(namespace, [older_id]).get(older_id)
        if not edges or older is None:
            raise NotFoundError(f"no supersession of {older_id!r} by {newer_id!r} in namespace {namespace!r}",
                                field="older")
        edge = edges[0]
        prior = edge.reason.get("prior", {})
        at = edge.reason.get("at")
        reasons = [p for p in older.health_reasons
                   if not (p.rule == SUPERSEDED and p.detail == f"superseded by {newer_id} at {at}")]
        unchanged = older.updated_at == at        # nothing else changed it since: its old updated_at too
        restored = replace(older, superseded_by=prior.get("superseded_by"), health_reasons=reasons,
                           health=health_score(reasons) if len(reasons) != len(older.health_reasons)
                           else older.health,
                           valid_until=prior.get("valid_until") if older.valid_until == edge.reason.get(
                               "valid_until") else older.valid_until,
                           updated_at=prior.get("updated_at", older.updated_at) if unchanged else older.updated_at)
        return restored, edge

    def history(self, namespace: str, memory_id: str) -> dict[str, Any]:
        """The chain ``memory_id`` is in, oldest first: memories reached along SUPERSEDES edges both
        ways (at most ``[supersede] max_history`` links), and the links."""
        cap = self.settings.supersede.max_history
        start = self.store.get_memories(namespace, [memory_id]).get(memory_id)
        if start is None:
            raise NotFoundError(f"memory {memory_id!r} not found in namespace {namespace!r}", field="id")
        seen: dict[str, Memory] = {memory_id: start}
        links: dict[tuple[str, str], Edge] = {}
        frontier = [memory_id]
        truncated = False
        while frontier:
            edges = self.store.edges_of(namespace, frontier, types=[SUPERSEDES])
            new = []
            for e in sorted(edges, key=lambda e: (e.a, e.b)):
                if (e.a, e.b) in links:
                    continue
                if len(links) >= cap:
                    truncated = True
                    break
                links[(e.a, e.b)] = e
                new += [i for i in (e.a, e.b) if i not in seen and i not in new]
            found = self.store.get_memories(namespace, new) if new else {}
            seen.update(found)
            frontier = [i for i in new if i in found] if not truncated else []
        chain = sorted(seen.values(), key=lambda m: (m.effective_valid_from, m.created_at, m.id))
        return {"namespace": namespace, "id": memory_id,
                "current": [m.id for m in chain if m.superseded_by is None],
                "chain": [{"memory": m.to_dict()} for m in chain],
                "links": [link_view(e) for e in sorted(links.values(),
                                                       key=lambda e: (e.reason.get("at", ""), e.a, e.b))],
                "truncated": truncated}
