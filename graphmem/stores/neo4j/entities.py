"""Entity mentions on Neo4j: ``(:Memory)-[:MENTIONS]->(:Entity)``, written by memory_upsert.cypher
and removed by memory_unindex.cypher in the memory's own transaction; read here."""

from __future__ import annotations

from graphmem.stores.neo4j.connection import Neo4jBase


class EntitiesMixin(Neo4jBase):
    def entity_members(self, namespace: str, entities: list[str], limit: int) -> dict[str, list[str]]:
        """Per entity, the ids of the newest ``limit`` memories mentioning it (one index seek each)."""
        unique = list(dict.fromkeys(entities))
        out: dict[str, list[str]] = {e: [] for e in unique}
        if limit <= 0 or not unique:
            return out
        for r in self._read("entity_members", namespace=namespace, entities=unique, limit=int(limit)):
            out[r["entity"]].append(r["id"])
        return out

    def entity_counts(self, namespace: str, entities: list[str]) -> dict[str, int]:
        """How many memories mention each entity (the Entity node's degree; 0: none)."""
        unique = list(dict.fromkeys(entities))
        if not unique:
            return {}
        return {r["entity"]: r["count"] for r in self._read("entity_counts", namespace=namespace, entities=unique)}
