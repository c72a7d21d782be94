"""Entity mentions in the embedded store: the MENTIONS rows derived from ``memories.entities_json``.

SQLite stays the source of truth: triggers on ``memories`` write a memory's rows in
``memory_entities`` and its counts in ``entity_counts`` in the same statement that writes, updates
or deletes the memory, so no write path can leave them out of step (a namespace drop, a supersede,
a rescore and a reindex included). ``graphmem check`` compares them with the column.
"""

from __future__ import annotations

from graphmem.stores.sqlite.connection import SQLiteBase

_ADD = """
    INSERT OR IGNORE INTO memory_entities
        SELECT {row}.namespace, json_extract(value, '$.entity'), {row}.id, {row}.created_at,
               json_extract(value, '$.kind'), json_extract(value, '$.quote')
        FROM json_each({row}.entities_json);
    INSERT INTO entity_counts
        SELECT namespace, entity, 1 FROM memory_entities WHERE namespace = {row}.namespace AND memory_id = {row}.id
        ON CONFLICT DO UPDATE SET n = n + 1;"""
_REMOVE = """
    UPDATE entity_counts SET n = n - 1 WHERE namespace = {row}.namespace AND entity IN
        (SELECT entity FROM memory_entities WHERE namespace = {row}.namespace AND memory_id = {row}.id);
    DELETE FROM entity_counts WHERE namespace = {row}.namespace AND n <= 0 AND entity IN
        (SELECT entity FROM memory_entities WHERE namespace = {row}.namespace AND memory_id = {row}.id);
    DELETE FROM memory_entities WHERE namespace = {row}.namespace AND memory_id = {row}.id;"""
_HAS = "{row}.entities_json IS NOT NULL AND {row}.entities_json <> '[]'"

TRIGGERS = [
    f"CREATE TRIGGER IF NOT EXISTS memories_entities_insert AFTER INSERT ON memories "
    f"WHEN {_HAS.format(row='NEW')} BEGIN {_ADD.format(row='NEW')} END",
    f"CREATE TRIGGER IF NOT EXISTS memories_entities_delete AFTER DELETE ON memories "
    f"WHEN {_HAS.format(row='OLD')} BEGIN {_REMOVE.format(row='OLD')} END",
    f"CREATE TRIGGER IF NOT EXISTS memories_entities_update AFTER UPDATE OF entities_json, created_at, id, "
    f"namespace ON memories BEGIN {_REMOVE.format(row='OLD')} {_ADD.format(row='NEW')} END",
]


class EntitiesMixin(SQLiteBase):
    def _add_entities_column(self) -> None:
        """Stores written before entities: the column is added empty (``graphmem rescore`` extracts
        each memory's entities), then the triggers that keep the MENTIONS rows."""
        columns = {r[1] for r in self.db.execute("PRAGMA table_info(memories)")}
        with self._write() as db:
            if "entities_json" not in columns:
                db.execute("ALTER TABLE memories ADD COLUMN entities_json TEXT")
            for statement in TRIGGERS:
                db.execute(statement)

    def entity_findings(self, namespace: str) -> list[tuple[str, str, list[str]]]:
        """``graphmem check``: memories whose MENTIONS rows differ from their ``entities_json``, and
        entity counts that differ from a recount."""
        wrong = [r[0] for r in self.db.execute(
            "SELECT m.id FROM memories m WHERE m.namespace = ?1 AND "
            "(SELECT group_concat(v, char(0)) FROM (SELECT json_extract(value, '$.entity') AS v "
            " FROM json_each(coalesce(m.entities_json, '[]')) ORDER BY v)) IS NOT "
            "(SELECT group_concat(entity, char(0)) FROM (SELECT entity FROM memory_entities e "
            " WHERE e.namespace = ?1 AND e.memory_id = m.id ORDER BY entity))", (namespace,))]
        stale = [r[0] for r in self.db.execute(
            "SELECT entity FROM entity_counts c WHERE namespace = ?1 AND n != "
            "(SELECT count(*) FROM memory_entities e WHERE e.namespace = ?1 AND e.entity = c.entity)",
            (namespace,))]
        out = []
        if wrong:
            out.append(("memory_entities", f"{len(wrong)} memories' entity rows differ from their entities",
                        wrong))
        if stale:
            out.append(("entity_counts", f"{len(stale)} entity counts differ from a recount", stale))
        return out

    @staticmethod
    def recount_entities(db, namespace: str) -> None:
        """Rebuild the MENTIONS rows and counts of ``namespace`` from its rows (caller's transaction)."""
        db.execute("DELETE FROM memory_entities WHERE namespace = ?", (namespace,))
        db.execute("INSERT OR IGNORE INTO memory_entities SELECT m.namespace, json_extract(j.value, '$.entity'), "
                   "m.id, m.created_at, json_extract(j.value, '$.kind'), json_extract(j.value, '$.quote') "
                   "FROM memories m, json_each(coalesce(m.entities_json, '[]')) j WHERE m.namespace = ?",
                   (namespace,))
        db.execute("DELETE FROM entity_counts WHERE namespace = ?", (namespace,))
        db.execute("INSERT INTO entity_counts SELECT namespace, entity, count(*) FROM memory_entities "
                   "WHERE namespace = ? GROUP BY namespace, entity", (namespace,))

    def entity_members(self, namespace: str, entities: list[str], limit: int) -> dict[str, list[str]]:
        """Per entity, the ids of the newest ``limit`` memories mentioning it (an index seek each)."""
        out: dict[str, list[str]] = {}
        for entity in dict.fromkeys(entities):
            rows = self.db.execute("SELECT memory_id FROM memory_entities WHERE namespace = ? AND entity = ? "
                                   "ORDER BY created_at DESC, memory_id DESC LIMIT ?", (namespace, entity, limit))
            out[entity] = [r[0] for r in rows]
        return out

    def entity_counts(self, namespace: str, entities: list[str]) -> dict[str, int]:
        """How many memories mention each entity (0: none)."""
        unique = list(dict.fromkeys(entities))
        if not unique:
            return {}
        found = dict(self.db.execute(f"SELECT entity, n FROM entity_counts WHERE namespace = ? AND entity IN "
                                     f"({','.join('?' * len(unique))})", [namespace, *unique]))
        return {e: found.get(e, 0) for e in unique}
