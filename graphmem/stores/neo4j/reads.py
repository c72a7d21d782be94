"""Memory and graph reads of the Neo4j store: memories by id, hash or page, namespaces,
edges of / among memories and the strongest neighbours of seeds."""

from __future__ import annotations

from collections.abc import Collection
from functools import cache

from graphmem.model import Edge, ListOrder, Memory, MemoryFilter, is_window_namespace
from graphmem.stores.neo4j import queries as Q
from graphmem.stores.neo4j.connection import _TYPES, Neo4jBase
from graphmem.stores.neo4j.records import filter_params, to_edges, to_memories

# A list sort (model.LIST_SORTS) -> its property, direction and keyset comparison.
_LIST_KEYS = {"created": ("created_at", "ASC", ">"), "-created": ("created_at", "DESC", "<"),
              "health": ("health", "ASC", ">"), "-health": ("health", "DESC", "<"),
              "thread": ("thread_pos", "ASC", ">")}


@cache
def _page_query(sort: str) -> str:
    """memories_page.cypher for one whitelisted sort (a value never becomes Cypher text)."""
    key, direction, op = _LIST_KEYS[sort]
    return Q.load("memories_page").replace("{{KEY}}", key).replace("{{DIR}}", direction).replace("{{OP}}", op)


class ReadsMixin(Neo4jBase):
    # -- reads -------------------------------------------------------------------------
    def get_memories(self, namespace: str, ids: list[str]) -> dict[str, Memory]:
        unique = list(dict.fromkeys(ids))
        if not unique:
            return {}
        memories = self._read("memories_get", namespace=namespace, ids=unique)[0]["memories"]
        return to_memories(memories)

    def find_by_hash(self, namespace: str, content_hash: str) -> Memory | None:
        return self.find_by_hashes(namespace, [content_hash]).get(content_hash)

    def find_by_hashes(self, namespace: str, hashes: list[str]) -> dict[str, Memory]:
        unique = list(dict.fromkeys(hashes))
        if not unique:
            return {}
        rows = self._read("memory_by_hash", namespace=namespace, hashes=unique)
        found = to_memories([r["memory"] for r in rows]).values()
        return {m.content_hash: m for m in found}

    def list_memories(self, namespace: str, flt: MemoryFilter, limit: int,
                      after: tuple[str, str] | None = None, now_iso: str = "") -> list[Memory]:
        if limit <= 0:
            return []
        rows = self._read("memories_list", namespace=namespace, limit=int(limit),
                          after_created=after[0] if after else None, after_id=after[1] if after else None,
                          **filter_params(flt, now_iso))
        return list(to_memories([r["memory"] for r in rows]).values())

    def list_ordered(self, namespace: str, flt: MemoryFilter, order: ListOrder, limit: int,
                     now_iso: str = "") -> list[Memory]:
        if limit <= 0:
            return []
        params = {"namespace": namespace, "limit": int(limit), "thread": order.thread,
                  "superseded_only": bool(order.superseded_only),
                  "after_key": order.after[0] if order.after else None,
                  "after_id": order.after[1] if order.after else None, **filter_params(flt, now_iso)}
        query = _page_query(order.sort)
        rows = self._call("read", lambda timeout: self._read_once(query, params, timeout))
        return list(to_memories([r["memory"] for r in rows]).values())

    def namespaces(self) -> list[str]:
        return [r["namespace"] for r in self._read("namespaces") if not is_window_namespace(r["namespace"])]

    def thread_context(self, namespace: str, keys: list[tuple[str, str]], before: int,
                       after: int) -> list[tuple[list[str], list[str]]]:
        if not keys:
            return []
        rows = self._read("thread_context", namespace=namespace, before=int(before), after=int(after),
                          keys=[{"thread": t, "pos": p} for t, p in keys])
        return [(list(r["before"]), list(r["after"])) for r in rows]

    # -- graph ----------------------------------------------------------------------------
    def edges_of(self, namespace: str, ids: list[str], types: list[str] | None = None,
                 with_reasons: bool = True) -> list[Edge]:
        unique = list(dict.fromkeys(ids))
        if not unique or types == []:
            return []
        row = self._read("edges_of", namespace=namespace, ids=unique, types=list(types or _TYPES),
                         with_reasons=with_reasons)[0]
        return to_edges(namespace, row["edges"])

    def neighbors(self, namespace: str, seed_ids: list[str], per_seed: int, min_weight: float,
                  edge_types: list[str]) -> list[Edge]:
        return self._neighbors(namespace, seed_ids, per_seed, min_weight, edge_types, None)[0]

    def neighbors_with_memories(self, namespace: str, seed_ids: list[str], per_seed: int, min_weight: float,
                                edge_types: list[str], known_ids: Collection[str]
                                ) -> tuple[list[Edge], dict[str, Memory]]:
        return self._neighbors(namespace, seed_ids, per_seed, min_weight, edge_types, known_ids)

    def _neighbors(self, namespace: str, seed_ids: list[str], per_seed: int, min_weight: float,
                   edge_types: list[str], known_ids: Collection[str] | None
                   ) -> tuple[list[Edge], dict[str, Memory]]:
        """One query: the edges and (unless ``known_ids`` is None) the memories of the neighbours
        not in ``known_ids``, which would otherwise cost a second round trip."""
        if not seed_ids or not edge_types or per_seed <= 0:
            return [], {}
        row = self._read("neighbors", namespace=namespace, seed_ids=sorted(set(seed_ids)), per_seed=int(per_seed),
                         min_weight=float(min_weight), types=list(edge_types), with_memories=known_ids is not None,
                         known=sorted(known_ids or ()))[0]
        # Oriented seed -> neighbour: ``a`` is the seed here (not the stored direction).
        return to_edges(namespace, row["edges"]), to_memories(row["memories"])

    def edges_among(self, namespace: str, ids: list[str]) -> list[Edge]:
        unique = list(dict.fromkeys(ids))
        if not unique:
            return []
        rows = self._read("edges_among", namespace=namespace, ids=unique, types=_TYPES)
        return to_edges(namespace, rows)

