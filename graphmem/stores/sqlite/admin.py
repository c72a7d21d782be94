"""Schema and model record, one-off migrations (FTS5 to the lexical engine, label-count
backfill), integrity, recount and stats of the embedded store."""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections import Counter
from pathlib import Path

from graphmem.errors import ConflictError
from graphmem.model import EDGE_TYPES, HEALTH_BINS, WINDOW_NAMESPACE_PREFIX, StoreStats, health_bin
from graphmem.private_files import loose_modes, private_file
from graphmem.stores.base import check_model
from graphmem.stores.sqlite import integrity, validity, vector_log
from graphmem.stores.sqlite.entities import EntitiesMixin
from graphmem.stores.sqlite.lexical import LexicalIndex, source_of
from graphmem.stores.sqlite.vector_cache import VectorCache

SCHEMA = Path(__file__).with_name("schema.sql").read_text()


class AdminMixin(EntitiesMixin):
    def ensure_schema(self, model_id: str, dim: int, reindexing: bool = False) -> None:
        with self._locked():        # idempotent statements, each its own transaction
            self.db.executescript(SCHEMA)
            self.db.executescript(vector_log.SCHEMA)
        with self.write_session():  # migrations decided and run under one lock: a second process waits
            rows = dict(self.db.execute("SELECT key, value FROM meta").fetchall())
            self._add_topics_column()
            self._add_thread_columns()
            self._add_times_column()
            self._add_entities_column()
            validity.add_columns(self)
            if "label_counts" not in rows:
                self._backfill_label_counts()
            if "lexical_source" not in rows:
                self._migrate_lexical()
            if "model_id" not in rows:
                self.db.execute("INSERT INTO meta VALUES ('model_id', ?), ('dimension', ?)", (model_id, str(dim)))
            else:
                check_model(f"store {self.path}", rows["model_id"], int(rows["dimension"]),
                            json.loads(rows.get("reindex") or "null"), model_id, dim, reindexing)
        self.dim = dim
        self.vectors = VectorCache(dim, applied=vector_log.last_seq(self.db), ann=self.ann,
                                   ann_dir=self.path.with_name("graphmem.ann"),
                                   save_every=self.vector_log_keep // 2, source=source_of(self.db))
        if self.lexical is None:
            self.lexical = LexicalIndex(self.path, self.path.with_name("graphmem.lexical"),
                                        self.lexical_writer_memory, self.lexical_commit_every, self.write_wait)
        self.lexical.catch_up(block=True)       # at open: the index reflects every committed write

    def model_record(self) -> dict:
        rows = dict(self.db.execute("SELECT key, value FROM meta WHERE key IN "
                                    "('model_id', 'dimension', 'reindex')").fetchall())
        dim = int(rows["dimension"]) if "dimension" in rows else None
        return {"model_id": rows.get("model_id"), "dimension": dim,
                "reindex": json.loads(rows.get("reindex") or "null")}

    def set_model_record(self, model_id: str, dim: int, reindex: dict | None) -> None:
        with self._write() as db:
            db.execute("INSERT OR REPLACE INTO meta VALUES ('model_id', ?), ('dimension', ?), ('reindex', ?)",
                       (model_id, str(dim), json.dumps(reindex) if reindex else ""))

    def _add_topics_column(self) -> None:
        """Stores written before extracted topics: the column is added empty (``graphmem rescore``
        derives each memory's topics and re-links the memories that gain some)."""
        columns = {r[1] for r in self.db.execute("PRAGMA table_info(memories)")}
        if "topics_json" not in columns:
            with self._write() as db:
                db.execute("ALTER TABLE memories ADD COLUMN topics_json TEXT")

    def _add_times_column(self) -> None:
        """Stores written before resolved time phrases: the column is added empty (``graphmem rescore``
        resolves each memory's phrases)."""
        columns = {r[1] for r in self.db.execute("PRAGMA table_info(memories)")}
        if "times_json" not in columns:
            with self._write() as db:
                db.execute("ALTER TABLE memories ADD COLUMN times_json TEXT")

    def _add_thread_columns(self) -> None:
        """Stores written before threads: the columns are added empty (no memory is in a thread)."""
        columns = {r[1] for r in self.db.execute("PRAGMA table_info(memories)")}
        with self._write() as db:
            for name, kind in (("thread", "TEXT"), ("seq", "INTEGER"), ("thread_pos", "TEXT")):
                if name not in columns:
                    db.execute(f"ALTER TABLE memories ADD COLUMN {name} {kind}")
            db.execute("CREATE INDEX IF NOT EXISTS memories_thread ON memories (namespace, thread, thread_pos) "
                       "WHERE thread IS NOT NULL")

    def _migrate_lexical(self) -> None:
        """New stores, and stores written with the FTS5 table: the lexical engine's index is built
        from the rows (at the catch-up that ends ``ensure_schema``), so the FTS5 table goes. The
        source id ties an index to this database (a copied index of another is rebuilt)."""
        with self._write() as db:
            db.execute("DROP TABLE IF EXISTS memory_fts")
            db.execute("DELETE FROM meta WHERE key = 'fts_namespace'")
            db.execute("INSERT INTO meta VALUES ('lexical_source', ?)", (uuid.uuid4().hex,))

    def _backfill_label_counts(self) -> None:
        """Stores written before ``label_counts`` existed: count once, then keep in step."""
        with self._write() as db:
            db.execute("DELETE FROM label_counts")
            db.execute("INSERT INTO label_counts SELECT namespace, 'tag', tag, count(*) FROM memory_tags "
                       "GROUP BY namespace, tag")
            db.execute("INSERT INTO label_counts SELECT namespace, 'category', category, count(*) FROM memories "
                       "WHERE category IS NOT NULL GROUP BY namespace, category")
            db.execute("INSERT INTO meta VALUES ('label_counts', '1')")

    # -- maintenance (graphmem check / backup; see stores/sqlite/integrity.py) ----------------
    def integrity(self, namespace: str) -> list[tuple[str, str, list[str]]]:
        matrix = None
        if self.vectors is not None:
            if self._version_gate.changed(self.db):
                self.vectors.catch_up(self.db)
            loaded = self.vectors.namespaces.get(namespace)
            if loaded is None and self.vectors.has_saved(namespace):     # what the next search would read
                loaded = self._matrix(namespace)
            if loaded is not None:
                matrix = loaded.copy_rows()
        found = integrity.integrity(self.db, namespace, matrix) + self.entity_findings(namespace)
        if self.lexical is not None:
            wrong = self.lexical.verify(self.db, namespace)
            if wrong:
                found.append(("lexical_index", f"{len(wrong)} memories' full-text index entries differ from their "
                                               "rows (missing, stale or extra)", wrong))
        index_dir = self.path.with_name("graphmem.lexical")
        index_files = tuple(f"{index_dir.name}/{p.name}" for p in index_dir.iterdir()) \
            if index_dir.is_dir() else ()
        loose = loose_modes(self.path.parent, (self.path.name, index_dir.name, *index_files))
        if loose:
            found.append(("file_modes", f"{len(loose)} files readable by others (want 0700 dir, 0600 files): "
                                        f"{loose[0]}", loose))
        return found

    def recount(self, namespace: str) -> None:
        """The maintained counts of ``namespace`` from its rows; and the lexical index rebuilt
        from SQLite (``graphmem check --repair``)."""
        with self._write() as db:
            integrity.recount(db, namespace)
            self.recount_entities(db, namespace)
        if self.lexical is not None:
            self.lexical.catch_up(block=True, rebuild=True)

    def backup_file(self, destination: str | Path) -> Path:
        """SQLite's online backup API: consistent while writers continue; the copy is private (0600)."""
        dest = Path(destination)
        if dest.exists():
            raise ConflictError(f"{dest} exists; choose a new file", field="output")
        dest.parent.mkdir(parents=True, exist_ok=True)
        private_file(dest)
        target = sqlite3.connect(dest)
        try:
            self.db.backup(target, pages=1024)
        finally:
            target.close()
        return dest

    def stats(self, namespace: str | None) -> StoreStats:
        # context windows live in companion namespaces (model.window_namespace): not the user's data
        prefix = WINDOW_NAMESPACE_PREFIX
        scope, params = (("WHERE namespace = ?", [namespace]) if namespace else
                         ("WHERE substr(namespace, 1, ?) <> ?", [len(prefix), prefix]))
        per_ns = dict(self.db.execute(f"SELECT namespace, count(*) FROM memories {scope} "
                                      "GROUP BY namespace ORDER BY namespace", params).fetchall())
        edges = dict(self.db.execute(f"SELECT type, count(*) FROM edges {scope} GROUP BY type", params))
        degree_rows = self.db.execute(f"""
            SELECT type, node, count(*) FROM (
                SELECT type, namespace || char(0) || a AS node FROM edges {scope}
                UNION ALL SELECT type, namespace || char(0) || b FROM edges {scope})
            GROUP BY type, node""", params * 2).fetchall()
        degree_max: Counter[str] = Counter()
        for type_, _node, count in degree_rows:
            degree_max[type_] = max(degree_max[type_], count)
        histogram = dict.fromkeys(HEALTH_BINS, 0)
        for (health,) in self.db.execute(f"SELECT health FROM memories {scope}", params):
            histogram[health_bin(int(health * 5))] += 1
        return StoreStats(namespaces=per_ns, edges={t: edges.get(t, 0) for t in EDGE_TYPES},
                          max_degree={t: degree_max.get(t, 0) for t in EDGE_TYPES}, health_bins=histogram)
