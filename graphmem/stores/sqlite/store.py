"""Embedded store: SQLite (WAL, one transaction per write) + FTS5 + in-process vectors.

Safe for one process with many threads: each thread reads on its own connection, writes
are serialised by a lock. Every value reaches SQL as a bound parameter.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from graphmem.config import StoreSettings, load_settings
from graphmem.errors import StoreConfigError, StoreUnavailable, ValidationError
from graphmem.fastjson import loads
from graphmem.model import (
    EDGE_TYPES,
    HEALTH_BINS,
    Edge,
    Memory,
    MemoryFilter,
    ServerInfo,
    StoreStats,
    TermStats,
    health_bin,
)
from graphmem.stores.base import check_model, iter_pages
from graphmem.stores.sqlite import integrity, vector_log
from graphmem.stores.sqlite.ann import AnnSettings
from graphmem.stores.sqlite.vectors import VectorCache, limit_blas_threads
from graphmem.text import full_text_terms

SCHEMA = Path(__file__).with_name("schema.sql").read_text()
_COLUMNS = ("namespace, id, content, content_hash, tags_json, category, source, reason, metadata_json, "
            "created_at, updated_at, valid_until, expires_at, embedding, health, health_reasons_json, "
            "source_weight, term_counts_json, doc_length, near_duplicate_of, evidence_json")
SYNCHRONOUS = ("FULL", "NORMAL", "EXTRA")


def filter_sql(flt: MemoryFilter | None, now_iso: str, alias: str = "m") -> tuple[str, list]:
    """SQL conditions with the meaning of ``MemoryFilter.matches`` (minus the namespace)."""
    if flt is None:
        return "", []
    clauses: list[str] = []
    params: list = []
    if not flt.include_expired and now_iso:
        clauses.append(f"({alias}.expires_at IS NULL OR {alias}.expires_at > ?)")
        params.append(now_iso)
    for tag in flt.tags:
        clauses.append(f"EXISTS (SELECT 1 FROM memory_tags t WHERE t.namespace = {alias}.namespace "
                       f"AND t.memory_id = {alias}.id AND t.tag = ?)")
        params.append(tag)
    if flt.categories:
        clauses.append(f"{alias}.category IN ({','.join('?' * len(flt.categories))})")
        params.extend(flt.categories)
    if flt.sources:
        clauses.append(f"{alias}.source IN ({','.join('?' * len(flt.sources))})")
        params.extend(flt.sources)
    for column, op, value in (("health", ">=", flt.min_health), ("health", "<=", flt.max_health),
                              ("created_at", ">=", flt.created_after or None),
                              ("created_at", "<", flt.created_before or None)):
        if value is not None:
            clauses.append(f"{alias}.{column} {op} ?")
            params.append(value)
    return "".join(f" AND {c}" for c in clauses), params


def _phrase(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def fts_query(namespace: str, terms: list[str]) -> str:
    """FTS5 query: the namespace's rows holding any of the terms (the namespace is required
    inside the index; rows of a namespace that tokenises alike are dropped by the caller)."""
    any_term = " OR ".join(map(_phrase, dict.fromkeys(terms)))
    return f"{{namespace}} : {_phrase(namespace)} AND {{terms}} : ({any_term})"


class SQLiteStore:
    kind = "sqlite"

    def __init__(self, data_dir: str | Path, cfg: StoreSettings | None = None, ann: AnnSettings | None = None):
        """Settings from ``cfg`` (the ``sqlite_*`` keys; None: defaults.toml, the one place they are
        set). ``sqlite_synchronous``: FULL syncs the WAL at every commit, so an acknowledged write
        survives power loss; NORMAL is faster and can lose the last commits on power loss (never on a
        process crash). ``sqlite_vector_log_keep``: change-log rows kept (``vector_log``). ``ann``
        overrides ``cfg``'s ``sqlite_ann_*`` (when a namespace's vector recall turns approximate)."""
        cfg = cfg or load_settings(use_env=False).store
        synchronous = cfg.sqlite_synchronous
        if synchronous.upper() not in SYNCHRONOUS:
            raise StoreConfigError(f"store.sqlite_synchronous must be one of {', '.join(SYNCHRONOUS)}, "
                                   f"not {synchronous!r}", field="store.sqlite_synchronous")
        self.synchronous = synchronous.upper()
        self.ann = ann or AnnSettings.from_store(cfg)
        limit_blas_threads(cfg.sqlite_scan_threads)
        self.vector_log_keep = cfg.sqlite_vector_log_keep
        self._version_gate = vector_log.VersionGate()
        self.path = Path(data_dir) / "graphmem.sqlite"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._write_lock = threading.RLock()
        self._connections: list[sqlite3.Connection] = []
        self.vectors: VectorCache | None = None
        self.dim = 0

    # -- connections -------------------------------------------------------------------
    @property
    def db(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30)
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute(f"PRAGMA synchronous = {self.synchronous}")
            self._local.conn = conn
            self._connections.append(conn)
        return conn

    def _write(self):
        store = self

        class _Txn:
            def __enter__(self_inner):
                store._write_lock.acquire()
                try:
                    store.db.execute("BEGIN IMMEDIATE")
                except sqlite3.OperationalError as err:     # locked by another process, disk errors
                    store._write_lock.release()
                    raise StoreUnavailable(f"embedded store unavailable: {err}") from err
                return store.db

            def __exit__(self_inner, exc_type, exc, tb):
                try:
                    store.db.execute("ROLLBACK" if exc_type else "COMMIT")
                except sqlite3.OperationalError as err:
                    raise StoreUnavailable(f"embedded store unavailable: {err}") from err
                finally:
                    store._write_lock.release()
                if isinstance(exc, sqlite3.OperationalError):
                    raise StoreUnavailable(f"embedded store unavailable: {exc}") from exc
                return False

        return _Txn()

    def ensure_schema(self, model_id: str, dim: int, reindexing: bool = False) -> None:
        with self._write_lock:
            self.db.executescript(SCHEMA)
            self.db.executescript(vector_log.SCHEMA)
            rows = dict(self.db.execute("SELECT key, value FROM meta").fetchall())
            if "label_counts" not in rows:
                self._backfill_label_counts()
            if "fts_namespace" not in rows:
                self._rebuild_fts()
            if "model_id" not in rows:
                self.db.execute("INSERT INTO meta VALUES ('model_id', ?), ('dimension', ?)", (model_id, str(dim)))
            else:
                check_model(f"store {self.path}", rows["model_id"], int(rows["dimension"]),
                            json.loads(rows.get("reindex") or "null"), model_id, dim, reindexing)
        self.dim = dim
        self.vectors = VectorCache(dim, applied=vector_log.last_seq(self.db), ann=self.ann,
                                   ann_dir=self.path.with_name("graphmem.ann"))

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

    def _rebuild_fts(self) -> None:
        """Stores written before the FTS table had its namespace column: rebuilt once."""
        with self._write() as db:
            db.execute("DROP TABLE IF EXISTS memory_fts")
            db.execute(SCHEMA[SCHEMA.index("CREATE VIRTUAL TABLE"):].split(";")[0])
            db.execute("INSERT INTO memory_fts (memory_fts, rank) VALUES ('rank', 'bm25(1.0, 0.0)')")
            rows = db.execute("SELECT rowid, term_counts_json, namespace FROM memories").fetchall()
            db.executemany("INSERT INTO memory_fts (rowid, terms, namespace) VALUES (?, ?, ?)",
                           [(rowid, full_text_terms(json.loads(counts)), ns) for rowid, counts, ns in rows])
            db.execute("INSERT INTO meta VALUES ('fts_namespace', '1')")

    def _backfill_label_counts(self) -> None:
        """Stores written before ``label_counts`` existed: count once, then keep in step."""
        with self._write() as db:
            db.execute("DELETE FROM label_counts")
            db.execute("INSERT INTO label_counts SELECT namespace, 'tag', tag, count(*) FROM memory_tags "
                       "GROUP BY namespace, tag")
            db.execute("INSERT INTO label_counts SELECT namespace, 'category', category, count(*) FROM memories "
                       "WHERE category IS NOT NULL GROUP BY namespace, category")
            db.execute("INSERT INTO meta VALUES ('label_counts', '1')")

    def close(self) -> None:
        if self.vectors is not None:
            self.vectors.save()
        for conn in self._connections:
            conn.close()
        self._connections.clear()
        self._local = threading.local()
        self._version_gate.seen.clear()

    def ping(self) -> bool:
        return self.db.execute("SELECT 1").fetchone()[0] == 1

    def server_info(self, refresh: bool = True) -> ServerInfo:
        """The SQLite library this process links (there is no server: the store is in-process)."""
        return ServerInfo("sqlite", sqlite3.sqlite_version, "embedded", "embedded")

    # -- maintenance (graphmem check / backup; see stores/sqlite/integrity.py) ----------------
    def integrity(self, namespace: str) -> list[tuple[str, str, list[str]]]:
        matrix_ids = None
        if self.vectors is not None:
            if self._version_gate.changed(self.db):
                self.vectors.catch_up(self.db)
            loaded = self.vectors.namespaces.get(namespace)
            if loaded is not None:
                matrix_ids = loaded.snapshot_scores(np.zeros(self.dim, dtype=np.float32))[1]
        return integrity.integrity(self.db, namespace, matrix_ids)

    def recount(self, namespace: str) -> None:
        with self._write() as db:
            integrity.recount(db, namespace)
    # -- writes ------------------------------------------------------------------------
    @staticmethod
    def _add_counts(db, memories: list[Memory]) -> None:
        """Term document frequencies, label counts and namespace totals for memories being added,
        summed over the whole batch first: one upsert per distinct term or label, not per memory."""
        terms: Counter[tuple[str, str]] = Counter()
        labels: Counter[tuple[str, str, str]] = Counter()
        totals: dict[str, list[int]] = {}
        for mem in memories:
            terms.update((mem.namespace, t) for t in mem.term_counts)
            labels.update((mem.namespace, "tag", t) for t in mem.tags)
            if mem.category:
                labels[(mem.namespace, "category", mem.category)] += 1
            total = totals.setdefault(mem.namespace, [0, 0])
            total[0] += 1
            total[1] += sum(mem.term_counts.values())
        db.executemany("INSERT INTO term_df VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET df = df + excluded.df",
                       [(*key, n) for key, n in terms.items()])
        db.executemany("INSERT INTO label_counts VALUES (?, ?, ?, ?) ON CONFLICT DO UPDATE SET n = n + excluded.n",
                       [(*key, n) for key, n in labels.items()])
        db.executemany("INSERT INTO namespace_stats VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET "
                       "n_docs = n_docs + excluded.n_docs, total_length = total_length + excluded.total_length",
                       [(ns, n, length) for ns, (n, length) in totals.items()])

    @staticmethod
    def _subtract_counts(db, namespace: str, counts: dict[str, int], tags: list[str],
                         category: str | None) -> None:
        """The counts of a memory being removed; touches only that memory's own rows."""
        terms = [(namespace, t) for t in counts]
        labels = [(namespace, "tag", t) for t in tags] + ([(namespace, "category", category)] if category else [])
        db.executemany("UPDATE term_df SET df = df - 1 WHERE namespace = ? AND term = ?", terms)
        db.executemany("DELETE FROM term_df WHERE namespace = ? AND term = ? AND df <= 0", terms)
        db.executemany("UPDATE label_counts SET n = n - 1 WHERE namespace = ? AND kind = ? AND label = ?", labels)
        db.executemany("DELETE FROM label_counts WHERE namespace = ? AND kind = ? AND label = ? AND n <= 0",
                       labels)
        db.execute("INSERT INTO namespace_stats VALUES (?, -1, ?) ON CONFLICT DO UPDATE SET "
                   "n_docs = n_docs + excluded.n_docs, total_length = total_length + excluded.total_length",
                   (namespace, -sum(counts.values())))

    def _remove_row(self, db, namespace: str, memory_id: str) -> bool:
        row = db.execute("SELECT rowid, term_counts_json, tags_json, category FROM memories "
                         "WHERE namespace = ? AND id = ?", (namespace, memory_id)).fetchone()
        if row is None:
            return False
        self._subtract_counts(db, namespace, loads(row[1]), loads(row[2]), row[3])
        db.execute("DELETE FROM memory_fts WHERE rowid = ?", (row[0],))
        db.execute("DELETE FROM memory_tags WHERE namespace = ? AND memory_id = ?", (namespace, memory_id))
        db.execute("DELETE FROM memories WHERE rowid = ?", (row[0],))
        return True

    @staticmethod
    def _delete_edges_of(db, namespace: str, memory_id: str) -> None:
        """Two key lookups (primary key on a, edges_b on b); an OR here walks the namespace."""
        db.execute("DELETE FROM edges WHERE namespace = ? AND a = ?", (namespace, memory_id))
        db.execute("DELETE FROM edges WHERE namespace = ? AND b = ?", (namespace, memory_id))

    @staticmethod
    def _apply_edges(db, add_edges: list[Edge], remove_edges: list[Edge]) -> None:
        db.executemany("DELETE FROM edges WHERE namespace = ? AND a = ? AND b = ? AND type = ?",
                       [(e.namespace, e.a, e.b, e.type) for e in remove_edges])
        # A graph cannot hold an edge to a missing memory: such edges are skipped.
        db.executemany(
            "INSERT OR REPLACE INTO edges SELECT ?, ?, ?, ?, ?, ? WHERE "
            "(SELECT count(*) FROM memories WHERE namespace = ?1 AND id IN (?2, ?3)) = 2",
            [(e.namespace, e.a, e.b, e.type, e.weight, json.dumps(e.reason, sort_keys=True)) for e in add_edges])

    def write_edges(self, add_edges: list[Edge], remove_edges: list[Edge]) -> None:
        with self._write() as db:
            self._apply_edges(db, add_edges, remove_edges)

    def save_memory(self, mem: Memory, add_edges: list[Edge], remove_edges: list[Edge],
                    replace_edges: bool = False) -> None:
        self._save([mem], add_edges, remove_edges, replace_edges)

    def save_batch(self, memories: list[Memory], add_edges: list[Edge], remove_edges: list[Edge]) -> None:
        self._save(memories, add_edges, remove_edges, False)

    def _save(self, memories: list[Memory], add_edges: list[Edge], remove_edges: list[Edge],
              replace_edges: bool) -> None:
        for mem in memories:
            if mem.embedding is not None and self.dim and np.asarray(mem.embedding).shape != (self.dim,):
                raise ValidationError(f"embedding has shape {np.asarray(mem.embedding).shape}; this store "
                                      f"holds {self.dim}-dim vectors", field="embedding")
        with self._write_lock:   # commit and cache update in one critical section: applied in commit order
            with self._write() as db:
                if len({(m.namespace, m.id) for m in memories}) == len(memories):
                    seqs = [self._write_row(db, mem, replace_edges) for mem in memories]
                    self._add_counts(db, memories)
                else:                   # one id twice: each row's counts before the next replaces it
                    seqs = []
                    for mem in memories:
                        seqs.append(self._write_row(db, mem, replace_edges))
                        self._add_counts(db, [mem])
                self._apply_edges(db, add_edges, remove_edges)
            for mem, seq in zip(memories, seqs, strict=True):
                self._apply_vector(mem.namespace, mem.id, mem.embedding, seq)

    def _write_row(self, db, mem: Memory, replace_edges: bool) -> int:
        """One memory's rows, term counts and vector log entry (whose sequence number it returns)."""
        self._remove_row(db, mem.namespace, mem.id)
        if replace_edges:
            self._delete_edges_of(db, mem.namespace, mem.id)
        cur = db.execute(f"INSERT INTO memories ({_COLUMNS}) VALUES ({','.join('?' * 21)})", (
            mem.namespace, mem.id, mem.content, mem.content_hash, json.dumps(mem.tags), mem.category,
            mem.source, mem.reason, json.dumps(mem.metadata), mem.created_at, mem.updated_at,
            mem.valid_until, mem.expires_at,
            None if mem.embedding is None else np.asarray(mem.embedding, dtype=np.float32).tobytes(),
            mem.health, mem.health_reasons_json(), mem.source_weight, json.dumps(mem.term_counts),
            mem.doc_length, mem.near_duplicate_of,
            None if mem.evidence is None else json.dumps(mem.evidence)))
        db.execute("INSERT INTO memory_fts (rowid, terms, namespace) VALUES (?, ?, ?)",
                   (cur.lastrowid, full_text_terms(mem.term_counts), mem.namespace))
        db.executemany("INSERT INTO memory_tags VALUES (?, ?, ?, ?)",
                       [(mem.namespace, t, mem.id, mem.created_at) for t in mem.tags])
        return vector_log.record(db, mem.namespace, mem.id, self.vector_log_keep)

    def _apply_vector(self, namespace: str, memory_id: str, embedding, seq: int) -> None:
        if self.vectors is None:
            return
        if embedding is None:
            self.vectors.remove(namespace, memory_id)
        else:
            self.vectors.upsert(namespace, memory_id, np.asarray(embedding, dtype=np.float32))
        self.vectors.applied_own(seq)

    def delete_memory(self, namespace: str, memory_id: str) -> bool:
        with self._write_lock:
            with self._write() as db:
                existed = self._remove_row(db, namespace, memory_id)
                self._delete_edges_of(db, namespace, memory_id)
                seq = vector_log.record(db, namespace, memory_id, self.vector_log_keep)
            self._apply_vector(namespace, memory_id, None, seq)
        return existed

    def update_health(self, namespace: str, updates: list[tuple[str, float, list, float]]) -> int:
        with self._write() as db:
            db.executemany(
                "UPDATE memories SET health = ?, health_reasons_json = ?, source_weight = ? "
                "WHERE namespace = ? AND id = ?",
                [(h, json.dumps([p.to_dict() for p in reasons]), w, namespace, i) for i, h, reasons, w in updates])
        return len(updates)

    # -- reads -------------------------------------------------------------------------
    @staticmethod
    def _row_to_memory(row: tuple) -> Memory:
        (namespace, id_, content, chash, tags, category, source, reason, metadata, created, updated,
         valid_until, expires_at, emb, health, reasons, weight, terms, _len, near_dup, evidence) = row
        return Memory(
            id=id_, namespace=namespace, content=content, content_hash=chash, tags=loads(tags),
            category=category, source=source, reason=reason, metadata=loads(metadata),
            created_at=created, updated_at=updated, valid_until=valid_until, expires_at=expires_at,
            embedding=None if emb is None else np.frombuffer(emb, dtype=np.float32).copy(),
            health=health, health_reasons=Memory.parse_health_reasons(reasons), source_weight=weight,
            term_counts=loads(terms), near_duplicate_of=near_dup,
            evidence=loads(evidence) if evidence else None)

    def get_memories(self, namespace: str, ids: list[str]) -> dict[str, Memory]:
        out: dict[str, Memory] = {}
        unique = list(dict.fromkeys(ids))
        for start in range(0, len(unique), 500):
            chunk = unique[start:start + 500]
            rows = self.db.execute(f"SELECT {_COLUMNS} FROM memories WHERE namespace = ? AND id IN "
                                   f"({','.join('?' * len(chunk))})", [namespace, *chunk]).fetchall()
            for row in rows:
                out[row[1]] = self._row_to_memory(row)
        return out

    def find_by_hash(self, namespace: str, content_hash: str) -> Memory | None:
        row = self.db.execute(f"SELECT {_COLUMNS} FROM memories WHERE namespace = ? AND content_hash = ? "
                              "ORDER BY created_at, id LIMIT 1", (namespace, content_hash)).fetchone()
        return self._row_to_memory(row) if row else None

    def find_by_hashes(self, namespace: str, hashes: list[str]) -> dict[str, Memory]:
        found = (self.find_by_hash(namespace, h) for h in dict.fromkeys(hashes))
        return {m.content_hash: m for m in found if m is not None}

    def list_memories(self, namespace: str, flt: MemoryFilter, limit: int,
                      after: tuple[str, str] | None = None, now_iso: str = "") -> list[Memory]:
        where, params = filter_sql(flt, now_iso)
        if after:
            where += " AND (m.created_at > ? OR (m.created_at = ? AND m.id > ?))"
            params += [after[0], after[0], after[1]]
        cols = ", ".join(f"m.{c.strip()}" for c in _COLUMNS.split(","))
        rows = self.db.execute(f"SELECT {cols} FROM memories m WHERE m.namespace = ?{where} "
                               "ORDER BY m.created_at, m.id LIMIT ?", [namespace, *params, limit]).fetchall()
        return [self._row_to_memory(r) for r in rows]

    def iter_memories(self, namespace: str, batch_size: int = 500) -> Iterator[list[Memory]]:
        return iter_pages(self, namespace, batch_size)

    def namespaces(self) -> list[str]:
        return [r[0] for r in self.db.execute(
            "SELECT namespace FROM namespace_stats WHERE n_docs > 0 ORDER BY namespace")]

    # -- candidate indexes ----------------------------------------------------------------
    def tag_members(self, namespace: str, tag: str, limit: int, exclude_id: str | None = None) -> list[str]:
        rows = self.db.execute("SELECT memory_id FROM memory_tags WHERE namespace = ? AND tag = ? "
                               "AND memory_id != ? ORDER BY created_at DESC, memory_id DESC LIMIT ?",
                               (namespace, tag, exclude_id or "", limit))
        return [r[0] for r in rows]

    def category_members(self, namespace: str, category: str, limit: int,
                         exclude_id: str | None = None) -> list[str]:
        rows = self.db.execute("SELECT id FROM memories WHERE namespace = ? AND category = ? AND id != ? "
                               "ORDER BY created_at DESC, id DESC LIMIT ?",
                               (namespace, category, exclude_id or "", limit))
        return [r[0] for r in rows]

    def tag_members_many(self, namespace: str, tags: list[str], limit: int) -> dict[str, list[str]]:
        return {tag: self.tag_members(namespace, tag, limit) for tag in dict.fromkeys(tags)}

    def category_members_many(self, namespace: str, categories: list[str], limit: int) -> dict[str, list[str]]:
        return {c: self.category_members(namespace, c, limit) for c in dict.fromkeys(categories)}

    def _label_counts(self, namespace: str, kind: str, labels: list[str]) -> dict[str, int]:
        unique = list(dict.fromkeys(labels))
        if not unique:
            return {}
        found = dict(self.db.execute(f"SELECT label, n FROM label_counts WHERE namespace = ? AND kind = ? AND "
                                     f"label IN ({','.join('?' * len(unique))})", [namespace, kind, *unique]))
        return {label: found.get(label, 0) for label in unique}

    def tag_counts(self, namespace: str, tags: list[str]) -> dict[str, int]:
        return self._label_counts(namespace, "tag", tags)

    def category_counts(self, namespace: str, categories: list[str]) -> dict[str, int]:
        return self._label_counts(namespace, "category", categories)

    # -- recall --------------------------------------------------------------------------
    def _load_vectors(self, namespace: str):
        return self.db.execute("SELECT id, embedding FROM memories WHERE namespace = ? AND embedding IS NOT NULL",
                               (namespace,))

    def vector_candidates(self, namespace: str, vector: np.ndarray, limit: int,
                          flt: MemoryFilter, now_iso: str) -> list[str]:
        assert self.vectors is not None, "ensure_schema() first"
        if self._version_gate.changed(self.db):       # another connection or process committed
            self.vectors.catch_up(self.db)
        matrix = self.vectors.get(namespace, self._load_vectors, self.db)
        allowed = None
        needs_sql = not flt.is_empty() or (not flt.include_expired and self.db.execute(
            "SELECT 1 FROM memories WHERE namespace = ? AND expires_at IS NOT NULL LIMIT 1",
            (namespace,)).fetchone())
        if needs_sql:
            where, params = filter_sql(flt, now_iso)
            allowed = {r[0] for r in self.db.execute(
                f"SELECT m.id FROM memories m WHERE m.namespace = ?{where}", [namespace, *params])}
        return matrix.search(vector, limit, allowed)

    def lexical_candidates(self, namespace: str, terms: list[str], limit: int,
                           flt: MemoryFilter | None, now_iso: str, exclude_id: str | None = None) -> list[str]:
        if not terms or limit <= 0:
            return []
        where, params = filter_sql(flt, now_iso)
        match = fts_query(namespace, terms)
        # FTS5 ranks the namespace's matches on its own first (no per-match join: half the cost),
        # then the best ``window`` are checked against filters; a short page widens the window.
        window = max(2 * limit, 64)
        while True:
            rows = self.db.execute(
                "SELECT m.id, f.n FROM (SELECT rowid, rank, count(*) OVER () AS n FROM "
                "(SELECT rowid, rank FROM memory_fts WHERE memory_fts MATCH ? ORDER BY rank LIMIT ?)) f "
                f"JOIN memories m ON m.rowid = f.rowid WHERE m.namespace = ? AND m.id != ?{where} "
                "ORDER BY f.rank, m.id LIMIT ?",
                [match, window, namespace, exclude_id or "", *params, limit]).fetchall()
            matched = rows[0][1] if rows else self.db.execute(
                "SELECT count(*) FROM (SELECT rowid FROM memory_fts WHERE memory_fts MATCH ? LIMIT ?)",
                (match, window)).fetchone()[0]
            if len(rows) >= limit or matched < window:        # enough, or every match was seen
                return [r[0] for r in rows]
            window *= 4

    def lexical_candidates_many(self, namespace: str, term_lists: list[list[str]], limit: int) -> list[list[str]]:
        return [self.lexical_candidates(namespace, terms, limit, None, "") for terms in term_lists]

    def term_stats(self, namespace: str, terms: list[str]) -> TermStats:
        row = self.db.execute("SELECT n_docs, total_length FROM namespace_stats WHERE namespace = ?",
                              (namespace,)).fetchone()
        unique = list(dict.fromkeys(terms))
        df = dict(self.db.execute(f"SELECT term, df FROM term_df WHERE namespace = ? AND term IN "
                                  f"({','.join('?' * len(unique))})", [namespace, *unique])) if unique else {}
        return TermStats(n_docs=row[0] if row else 0, total_length=row[1] if row else 0, df=df)

    # -- graph ----------------------------------------------------------------------------
    @staticmethod
    def _edge(row: tuple) -> Edge:
        return Edge(row[0], row[1], row[2], row[3], row[4], loads(row[5]))

    def edges_of(self, namespace: str, ids: list[str], types: list[str] | None = None,
                 with_reasons: bool = True) -> list[Edge]:
        if not ids or types == []:
            return []
        marks = ",".join("?" * len(ids))
        kinds = list(types or EDGE_TYPES)
        type_marks = ",".join("?" * len(kinds))
        reason = "reason_json" if with_reasons else "'{}'"
        # Two index lookups (primary key on a, edges_b on b) instead of an OR that scans.
        rows = self.db.execute(
            f"SELECT namespace, a, b, type, weight, {reason} FROM edges WHERE namespace = ? AND a IN ({marks}) "
            f"AND type IN ({type_marks}) UNION "
            f"SELECT namespace, a, b, type, weight, {reason} FROM edges WHERE namespace = ? AND b IN ({marks}) "
            f"AND type IN ({type_marks})",
            [namespace, *ids, *kinds, namespace, *ids, *kinds]).fetchall()
        if not with_reasons:
            return [Edge(r[0], r[1], r[2], r[3], r[4], {}) for r in rows]
        return [self._edge(r) for r in rows]

    def neighbors(self, namespace: str, seed_ids: list[str], per_seed: int, min_weight: float,
                  edge_types: list[str]) -> list[Edge]:
        if not seed_ids or not edge_types or per_seed <= 0:
            return []
        seeds = ",".join("?" * len(seed_ids))
        types = ",".join("?" * len(edge_types))
        rows = self.db.execute(f"""
            WITH oriented AS (
                SELECT namespace, a AS seed, b AS other, type, weight, reason_json FROM edges
                WHERE namespace = ? AND a IN ({seeds}) AND type IN ({types}) AND weight >= ?
                UNION ALL
                SELECT namespace, b AS seed, a AS other, type, weight, reason_json FROM edges
                WHERE namespace = ? AND b IN ({seeds}) AND type IN ({types}) AND weight >= ?),
            ranked AS (
                SELECT *, ROW_NUMBER() OVER (PARTITION BY seed ORDER BY weight DESC, other, type) AS n
                FROM oriented)
            SELECT namespace, seed, other, type, weight, reason_json FROM ranked WHERE n <= ?
            ORDER BY seed, n""",
            [namespace, *seed_ids, *edge_types, min_weight, namespace, *seed_ids, *edge_types, min_weight,
             per_seed]).fetchall()
        # Oriented seed -> neighbour: ``a`` is the seed here (not the canonical order).
        return [Edge(r[0], r[1], r[2], r[3], r[4], loads(r[5])) for r in rows]

    def edges_among(self, namespace: str, ids: list[str]) -> list[Edge]:
        if not ids:
            return []
        marks = ",".join("?" * len(ids))
        rows = self.db.execute(f"SELECT * FROM edges WHERE namespace = ? AND a IN ({marks}) AND b IN ({marks}) "
                               "ORDER BY a, b, type", [namespace, *ids, *ids]).fetchall()
        return [self._edge(r) for r in rows]

    def stats(self, namespace: str | None) -> StoreStats:
        scope, params = ("WHERE namespace = ?", [namespace]) if namespace else ("", [])
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
