"""The embedded store's lexical engine: a tantivy index derived from SQLite, for candidates only.

Why: FTS5 ranks every posting of the lookup terms, so a lookup's cost grows with the store;
tantivy prunes to the top k (block-max WAND). It only finds candidate ids; graphmem's BM25 over
its own term statistics stays the score (retrieval computes it).

- *Derived.* One document per memory row: graphmem's own tokens (``text.full_text_terms``, split
  on whitespace, so terms match exactly), the namespace and the row's key (namespace + id), the
  rowid and a digest of the terms (fast fields: hits map to rows, ``verify`` compares contents),
  and created_at in microseconds (newest-first holder lookups). SQLite stays the truth.
- *Change log.* Every memory write appends (namespace, id) to ``vector_log`` in its own
  transaction; one meta document, committed atomically with the index's contents, holds the log
  sequence number the index reflects and the store it was built from (``meta.lexical_source``).
  Catching up replays the changed keys past that number from SQLite: idempotent, so a kill -9 at
  any point loses nothing and leaves no phantom. A log pruned past it, an index ahead of the
  database (a restored backup) or another store's index: the index is rebuilt.
- *Several processes.* tantivy allows one ``IndexWriter`` per index (a lock file). A process takes
  it only to catch up and drops it at once: at open, and once ``store.sqlite.lexical_commit_every``
  changed keys are pending (after its own write, or at a lookup). Until then, or while another
  process holds the writer, a lookup answers from the index plus the pending log rows, read from
  SQLite and merged in: no committed write is ever invisible, and a tantivy commit (several file
  syncs) is paid once per many writes.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import sqlite3
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import tantivy

from graphmem.errors import StoreUnavailable
from graphmem.private_files import FILE_MODE, private_dir
from graphmem.text import full_text_terms

Q = tantivy.Query
MUST, SHOULD = tantivy.Occur.Must, tantivy.Occur.Should
META_KEY = "\x00applied"
ROWS = "SELECT rowid, namespace, id, created_at, term_counts_json FROM memories"
BM25_K1, BM25_B = 1.2, 0.75
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)          # tantivy's, for pending rows merged into its hits


def _schema() -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    sb.add_text_field("terms", tokenizer_name="whitespace", index_option="freq")
    sb.add_text_field("namespace", tokenizer_name="raw", index_option="basic")
    sb.add_text_field("key", tokenizer_name="raw", index_option="basic")
    sb.add_integer_field("created_us", fast=True, indexed=False)
    sb.add_integer_field("rowid", fast=True, indexed=False)
    sb.add_integer_field("digest", fast=True, indexed=False)
    sb.add_integer_field("applied", stored=True, indexed=False)
    sb.add_text_field("source", stored=True, index_option="basic")
    return sb.build()


SCHEMA = _schema()


def key_of(namespace: str, memory_id: str) -> str:
    return f"{namespace}\x00{memory_id}"


def digest(counts: dict[str, int]) -> int:
    """A signed 64-bit digest of a row's terms (order-free), stored beside its document."""
    raw = hashlib.blake2b(json.dumps(sorted(counts.items())).encode(), digest_size=8).digest()
    return int.from_bytes(raw, "big", signed=True)


def created_us(created_at: str) -> int:
    """created_at as microseconds since the epoch: the order of graphmem's uniform UTC stamps."""
    try:
        stamp = datetime.fromisoformat(created_at.replace("Z", "+00:00"))
    except ValueError:
        return 0
    stamp = stamp if stamp.tzinfo is not None else stamp.replace(tzinfo=UTC)
    return (stamp - EPOCH) // timedelta(microseconds=1)


def log_bounds(db: sqlite3.Connection) -> tuple[int | None, int]:
    """(oldest kept change-log seq, newest seq ever given out) as ``db`` sees them."""
    # two statements: SQLite seeks the key's ends for a lone min() or max(), but scans for both
    first = db.execute("SELECT min(seq) FROM vector_log").fetchone()[0]
    last = db.execute("SELECT max(seq) FROM vector_log").fetchone()[0]
    newest = int(db.execute("SELECT coalesce(max(seq), 0) FROM sqlite_sequence WHERE name = 'vector_log'")
                 .fetchone()[0])
    return first, max(newest, last or 0)


def source_of(db: sqlite3.Connection) -> str:
    return row[0] if (row := db.execute("SELECT value FROM meta WHERE key = 'lexical_source'").fetchone()) else ""


def fast_ints(searcher: tantivy.Searcher, field: str, addresses: list) -> list[int]:
    """An integer fast field of each hit (every document of ours has one)."""
    return [int(v or 0) for v in searcher.fast_field_values(field, addresses)] if addresses else []


@dataclass
class View:
    """One consistent searcher, and the keys changed in SQLite after what it reflects."""
    searcher: tantivy.Searcher
    pending: set[tuple[str, str]]


class LexicalIndex:
    def __init__(self, db_path: Path, directory: Path, writer_memory: int, commit_every: int, wait: float):
        self.db_path, self.directory = db_path, private_dir(directory)
        self.commit_every = max(int(commit_every), 1)
        try:
            self.index = tantivy.Index(SCHEMA, path=str(directory), reuse=True)
        except (ValueError, OSError):       # unreadable (a disk fault, a foreign dir): it is derived
            shutil.rmtree(directory)
            self.directory = private_dir(directory)
            self.index = tantivy.Index(SCHEMA, path=str(directory), reuse=False)
        self.writer_memory, self.wait = max(int(writer_memory), 15_000_000), wait
        self._lock = threading.Lock()       # this process's catch-ups, one at a time
        self.catch_ups = 0                  # how many this process committed (tests and stats)
        self._private()

    # -- state ------------------------------------------------------------------------------
    @staticmethod
    def applied(searcher: tantivy.Searcher) -> tuple[int, str]:
        """(log seq the searcher's index reflects, store it was built from); (-1, '') when unbuilt."""
        hits = searcher.search(Q.term_query(SCHEMA, "key", META_KEY), 1, count=False).hits
        if not hits:
            return -1, ""
        doc = searcher.doc(hits[0][1]).to_dict()
        return int(doc["applied"][0]), str(doc["source"][0])

    def _pending(self, db: sqlite3.Connection, searcher: tantivy.Searcher) -> set[tuple[str, str]] | None:
        """Keys changed after the searcher's seq as ``db`` sees them; None when only a rebuild can tell."""
        applied, source = self.applied(searcher)
        first, newest = log_bounds(db)
        if applied < 0 or source != source_of(db) or applied > newest:
            return None
        if applied == newest:
            return set()
        if first is None or first > applied + 1:
            return None
        return {(r[0], r[1]) for r in db.execute(
            "SELECT DISTINCT namespace, memory_id FROM vector_log WHERE seq > ?", (applied,))}

    def view(self, db: sqlite3.Connection) -> View:
        """A searcher plus what SQLite holds beyond it: reloaded when another process committed,
        caught up here once ``commit_every`` keys are pending and the writer lock is free; otherwise
        the caller merges the pending rows (a tantivy commit syncs several files: too dear per write)."""
        pending = self._pending(db, searcher := self.index.searcher())
        if pending != set():
            self.index.reload()
            pending = self._pending(db, searcher := self.index.searcher())
        if (pending is None or len(pending) >= self.commit_every) and self.catch_up(block=pending is None):
            pending = self._pending(db, searcher := self.index.searcher())
        if pending is None:         # past a blocking catch-up: only a database newer than it (a restore)
            raise StoreUnavailable("the full-text index could not catch up with the database; retry",
                                   retry_after=1)
        return View(searcher, pending)

    # -- writes ------------------------------------------------------------------------------
    def _writer(self, block: bool) -> tantivy.IndexWriter | None:
        deadline = time.monotonic() + (self.wait if block else 0)
        while True:
            try:
                return self.index.writer(self.writer_memory, 1)
            except ValueError as err:
                if "LockBusy" not in str(err):
                    raise
                if time.monotonic() >= deadline:
                    if block:
                        raise StoreUnavailable("the full-text index is busy: another process held its writer "
                                               "longer than store.write_wait seconds; retry",
                                               retry_after=1) from err
                    return None
                time.sleep(0.01)

    def after_commit(self, db: sqlite3.Connection) -> None:
        """After a write: catch up once ``commit_every`` keys are pending (never waits for the lock)."""
        applied, _source = self.applied(self.index.searcher())
        if log_bounds(db)[1] - applied >= self.commit_every:
            self.catch_up(block=False)

    def catch_up(self, block: bool = False, rebuild: bool = False) -> bool:
        """Apply SQLite's committed changes past the index's seq (all rows when it cannot tell, or
        ``rebuild``), under the writer lock; False when another holder had it (``block``: wait for
        it up to ``store.write_wait``). Reads on a connection of its own: committed rows only."""
        if not self._lock.acquire(timeout=self.wait if block else 0):
            return False
        try:
            writer = self._writer(block)
            if writer is None:
                return False
            # files a killed writer left unreferenced: a new commit may reuse their names
            writer.garbage_collect_files()
            db = sqlite3.connect(self.db_path, timeout=self.wait)
            try:
                db.execute("BEGIN")         # one snapshot: the rows and the seq they reach
                self.index.reload()
                searcher = self.index.searcher()
                pending = None if rebuild else self._pending(db, searcher)
                _first, newest = log_bounds(db)
                if pending is None:
                    writer.delete_all_documents()
                    self._add_rows(writer, db.execute(ROWS))
                elif pending:
                    for ns, mid in pending:
                        writer.delete_documents_by_term("key", key_of(ns, mid))
                    self._add_rows(writer, self._rows_of(db, pending))
                if pending is None or pending or self.applied(searcher)[0] != newest:
                    writer.delete_documents_by_term("key", META_KEY)
                    meta = tantivy.Document()
                    meta.add_text("key", META_KEY)
                    meta.add_integer("applied", newest)
                    meta.add_text("source", source_of(db))
                    writer.add_document(meta)
                    writer.commit()
                    self.catch_ups += 1
                db.rollback()
            finally:
                db.close()
                writer.wait_merging_threads()       # drops the writer: its lock is free again
            self.index.reload()
            self._private()
            return True
        finally:
            self._lock.release()

    @staticmethod
    def _rows_of(db: sqlite3.Connection, keys: Iterable[tuple[str, str]]) -> list[tuple]:
        """The existing rows of these keys, 500 ids of a namespace per statement (not one each)."""
        by_ns: dict[str, dict[str, None]] = {}
        for ns, mid in keys:
            by_ns.setdefault(ns, {})[mid] = None
        out: list[tuple] = []
        for ns, found in by_ns.items():
            ids = list(found)
            for chunk in (ids[k:k + 500] for k in range(0, len(ids), 500)):
                marks = ",".join("?" * len(chunk))
                out += db.execute(f"{ROWS} WHERE namespace = ? AND id IN ({marks})", [ns, *chunk]).fetchall()
        return out

    @staticmethod
    def _add_rows(writer: tantivy.IndexWriter, rows: Iterable[tuple]) -> None:
        for rowid, ns, mid, created_at, counts_json in rows:
            counts = json.loads(counts_json)
            doc = tantivy.Document()
            doc.add_text("terms", full_text_terms(counts))
            doc.add_text("namespace", ns)
            doc.add_text("key", key_of(ns, mid))
            doc.add_integer("created_us", created_us(created_at))
            doc.add_integer("rowid", rowid)
            doc.add_integer("digest", digest(counts))
            writer.add_document(doc)

    def _private(self) -> None:
        """tantivy creates files under the umask: owner-only like the database (private_files)."""
        private_dir(self.directory)
        for entry in os.scandir(self.directory):
            if entry.is_file() and entry.stat().st_mode & 0o077:
                os.chmod(entry.path, FILE_MODE)

    # -- lookups -----------------------------------------------------------------------------
    @staticmethod
    def _in_namespace(namespace: str, query: tantivy.Query) -> tantivy.Query:
        scope = Q.const_score_query(Q.term_query(SCHEMA, "namespace", namespace), 0.0)
        return Q.boolean_query([(MUST, scope), (MUST, query)])

    def top(self, db: sqlite3.Connection, namespace: str, terms: list[str], window: int
            ) -> tuple[list[int], bool]:
        """Rowids of the namespace's ``window`` best BM25 matches of any of ``terms``, best first,
        and whether every match was seen (fewer than ``window`` came back)."""
        unique = list(dict.fromkeys(t for t in terms if t))
        if not unique or window <= 0:
            return [], True
        view = self.view(db)
        any_term = Q.boolean_query([(SHOULD, Q.term_query(SCHEMA, "terms", t)) for t in unique])
        stale = {mid for ns, mid in view.pending if ns == namespace}
        hits = view.searcher.search(self._in_namespace(namespace, any_term), window + len(stale), count=False).hits
        rowids = fast_ints(view.searcher, "rowid", [a for _, a in hits])
        exhausted = len(hits) < window + len(stale)
        if not view.pending:
            return rowids, exhausted
        scored = [(float(s), r) for (s, _), r in zip(hits, rowids, strict=True)]
        scored = self._without_stale(db, namespace, view.pending, scored)
        scored += self._score_pending(db, view.searcher, namespace, stale, unique)
        scored.sort(key=lambda sr: -sr[0])
        return [r for _, r in scored[:window]], exhausted and len(scored) <= window

    @staticmethod
    def _without_stale(db: sqlite3.Connection, namespace: str, pending: set[tuple[str, str]],
                       scored: list[tuple[float, int]]) -> list[tuple[float, int]]:
        """Hits whose row is unchanged since the index caught up (a changed row is scored afresh)."""
        if not scored:
            return []
        rows: dict[int, str] = {}
        for start in range(0, len(scored), 500):
            chunk = [r for _, r in scored[start:start + 500]]
            rows.update(db.execute(f"SELECT rowid, id FROM memories WHERE +namespace = ? AND rowid IN "
                                   f"({','.join('?' * len(chunk))})", [namespace, *chunk]))
        return [(s, r) for s, r in scored if r in rows and (namespace, rows[r]) not in pending]

    @staticmethod
    def _score_pending(db: sqlite3.Connection, searcher: tantivy.Searcher, namespace: str, ids: set[str],
                       terms: list[str]) -> list[tuple[float, int]]:
        """The changed rows holding a term, with the BM25 tantivy would give them (the index's stats)."""
        if not ids:
            return []
        n_docs = max(searcher.num_docs, 1)
        stats = db.execute("SELECT n_docs, total_length FROM namespace_stats WHERE namespace = ?",
                           (namespace,)).fetchone()
        avg_len = (stats[1] / stats[0]) if stats and stats[0] > 0 else 1.0
        out = []
        for rowid, _ns, _mid, _created, counts_json in LexicalIndex._rows_of(db, ((namespace, i) for i in ids)):
            counts = json.loads(counts_json)
            length = sum(counts.values())
            score = 0.0
            for t in terms:
                tf = counts.get(t, 0)
                if tf:
                    df = searcher.doc_freq("terms", t)
                    idf = math.log(1 + (n_docs - df + 0.5) / (df + 0.5))
                    score += idf * tf * (BM25_K1 + 1) / (tf + BM25_K1 * (1 - BM25_B + BM25_B * length / avg_len))
            if score > 0:
                out.append((score, rowid))
        return out

    def verify(self, db: sqlite3.Connection, namespace: str) -> list[str]:
        """Ids whose document differs from their row (missing, extra, stale or doubled), once caught
        up (rows still pending: this connection's own uncommitted writes are not counted)."""
        self.catch_up(block=True)
        view = self.view(db)
        rows = {r[0]: (r[1], digest(json.loads(r[2]))) for r in db.execute(
            "SELECT rowid, id, term_counts_json FROM memories WHERE namespace = ?", (namespace,))}
        query = Q.term_query(SCHEMA, "namespace", namespace)
        size = int(getattr(view.searcher.search(query, 1, count=True), "count", 0) or 0)
        hits = view.searcher.search(query, max(size, 1), count=False).hits
        addresses = [a for _, a in hits]
        rowids = fast_ints(view.searcher, "rowid", addresses)
        digests = fast_ints(view.searcher, "digest", addresses)
        seen: dict[int, int] = {}
        wrong: set[str] = set()
        for rowid, dig in zip(rowids, digests, strict=True):
            if rowid in seen or rowid not in rows or rows[rowid][1] != dig:
                wrong.add(rows[rowid][0] if rowid in rows else f"rowid:{rowid}")
            seen[rowid] = dig
        wrong |= {mid for rowid, (mid, _d) in rows.items() if rowid not in seen}
        return sorted(wrong - {mid for ns, mid in view.pending if ns == namespace})
