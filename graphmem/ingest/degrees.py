"""Degree accounting for a batch: which automatic edges each memory holds, as bare tuples.

Each (memory, type) holds a map edge key -> strength key; accepting a proposed edge checks
its other end's room under ``edges.max_degree_*`` and evicts that end's weakest edge when the
new one is stronger (``linking.apply_degree_caps``'s rule, without building edge objects for
the stored edges it weighs). A batch's net change is then what it added minus what it evicted.
"""

from __future__ import annotations

from collections import defaultdict

from graphmem.config import EdgeSettings
from graphmem.model import Edge

Key = tuple[str, str, str]            # (a, b, type), a < b
Strength = tuple[float, str, str]


class DegreeBook:
    def __init__(self, cfg: EdgeSettings):
        self.cfg = cfg
        self.held: dict[tuple[str, str], dict[Key, Strength]] = defaultdict(dict)
        self.stored: set[Key] = set()
        self.added: dict[Key, Edge] = {}

    def load(self, rows: list[tuple[str, str, str, float]], skip: set[str] = frozenset()) -> None:  # type: ignore
        """Stored edges (a, b, type, weight); those touching ``skip`` (memories being re-linked,
        whose old edges are replaced) are left out, and so is an edge read without its key or
        weight (a remote store read it while another writer deleted it: it is no longer held)."""
        for a, b, edge_type, weight in rows:
            key = (a, b, edge_type)
            if key in self.stored or a in skip or b in skip or None in key or weight is None:
                continue
            self.stored.add(key)
            self._put(key, (-round(weight, 6), a, b))         # model.strength_key, inlined

    def _put(self, key: Key, strength: Strength) -> None:
        self.held[(key[0], key[2])][key] = strength
        self.held[(key[1], key[2])][key] = strength

    def _drop(self, key: Key) -> None:
        self.held[(key[0], key[2])].pop(key, None)
        self.held[(key[1], key[2])].pop(key, None)
        self.added.pop(key, None)

    def accept(self, mem_id: str, proposals: dict[str, list[Edge]]) -> None:
        """``mem_id``'s proposed edges, each kept if its other end has room or beats that end's
        weakest edge of the type (evicted); the book then holds the memory as saved."""
        for edge_type, edges in proposals.items():
            cap = self.cfg.max_degree(edge_type)
            accepted = []
            for edge in edges:
                current = self.held.get((edge.other(mem_id), edge_type))
                if current is None or len(current) < cap:
                    accepted.append(edge)
                    continue
                weakest = max(current, key=current.__getitem__)
                if edge.strength_key < current[weakest]:
                    self._drop(weakest)
                    accepted.append(edge)
            for edge in accepted:
                self._put(edge.key, edge.strength_key)
                self.added[edge.key] = edge

    def net(self, namespace: str) -> tuple[list[Edge], list[Edge]]:
        """(edges to write, stored edges to delete) after everything accepted so far."""
        added = [self.added[k] for k in sorted(self.added)]
        gone = sorted(k for k in self.stored if k not in self.held.get((k[0], k[2]), {}))
        return added, [Edge(namespace, a, b, edge_type, 0.0, {}) for a, b, edge_type in gone]
