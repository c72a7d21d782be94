"""The embedded store's connections: one per thread for reads, one write transaction at a time
(the base every other part of ``SQLiteStore`` builds on).

Writes serialise on the database itself (``BEGIN IMMEDIATE``), so several processes on one data
dir (servers, CLI jobs) take turns; within a process a lock queues the threads first. A caller
that reads before it writes (an ingest's duplicate check, linking, the save) holds one
``write_session`` across all of it, so what it read is what its write applies to. Every wait is
bounded by ``store.write_wait`` and ends in ``StoreUnavailable`` (HTTP 503 with Retry-After).
"""

from __future__ import annotations

import sqlite3
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from graphmem.config import StoreSettings
from graphmem.errors import StoreConfigError, StoreUnavailable
from graphmem.model import ServerInfo
from graphmem.private_files import private_dir, private_file
from graphmem.stores.sqlite import vector_log
from graphmem.stores.sqlite.ann import AnnSettings
from graphmem.stores.sqlite.lexical import LexicalIndex
from graphmem.stores.sqlite.row_cache import RowCache
from graphmem.stores.sqlite.validity_mask import VALIDITY_COLUMNS
from graphmem.stores.sqlite.vector_cache import VectorCache
from graphmem.stores.sqlite.vectors import NamespaceVectors, limit_blas_threads

SYNCHRONOUS = ("FULL", "NORMAL", "EXTRA")
RETRY_AFTER = 1     # seconds: another writer holds the store for one write, rarely longer


class _Session:
    """This thread's open write session: whether it wrote yet, and what runs after its commit."""

    def __init__(self) -> None:
        self.dirty = False
        self.after: list[Callable[[], None]] = []


def _unavailable(err: Exception) -> StoreUnavailable:
    if "locked" in str(err) or "busy" in str(err):
        return StoreUnavailable("the embedded store is busy: another process or thread held its write lock "
                                "longer than store.write_wait seconds; retry", retry_after=RETRY_AFTER)
    return StoreUnavailable(f"embedded store unavailable: {err}", retry_after=RETRY_AFTER)


class SQLiteBase:
    def __init__(self, data_dir: str | Path, cfg: StoreSettings, ann: AnnSettings | None = None):
        """Settings from ``cfg``, the caller's ``[store]`` (``[store.sqlite]`` for most of them).
        ``synchronous``: FULL syncs the WAL at every commit, so an acknowledged write
        survives power loss; NORMAL is faster and can lose the last commits on power loss (never on a
        process crash). ``vector_log_keep``: change-log rows kept (``vector_log``, replayed by the
        vector cache and the lexical index). ``lexical_writer_memory``: the lexical index's
        writer memory budget, bytes, and ``lexical_commit_every``: pending changes at which it
        commits (``lexical.py``). ``ann``
        overrides ``cfg``'s ``ann_*`` (when a namespace's vector recall turns approximate)."""
        synchronous = cfg.sqlite.synchronous
        if synchronous.upper() not in SYNCHRONOUS:
            raise StoreConfigError(f"store.sqlite.synchronous must be one of {', '.join(SYNCHRONOUS)}, "
                                   f"not {synchronous!r}", field="store.sqlite.synchronous")
        self.synchronous = synchronous.upper()
        self.ann = ann or AnnSettings.from_store(cfg)
        limit_blas_threads(cfg.sqlite.scan_threads)
        self.vector_log_keep = cfg.sqlite.vector_log_keep
        self.warm_after = cfg.sqlite.warm_after
        self.written: Counter[str] = Counter()      # memories this process wrote, per namespace (warm_after)
        if not cfg.write_wait > 0:
            raise StoreConfigError("store.write_wait must be a positive number of seconds",
                                   field="store.write_wait")
        self.write_wait = cfg.write_wait
        self._version_gate = vector_log.VersionGate()
        self.rows = RowCache(cfg.sqlite.row_cache)
        self.path = Path(data_dir) / "graphmem.sqlite"
        private_dir(self.path.parent)
        private_file(self.path)
        self._local = threading.local()
        self._write_lock = threading.RLock()
        self._connections: list[sqlite3.Connection] = []
        self.vectors: VectorCache | None = None
        self.lexical: LexicalIndex | None = None
        self.lexical_writer_memory = cfg.sqlite.lexical_writer_memory
        self.lexical_commit_every = cfg.sqlite.lexical_commit_every
        self.dim = 0

    # -- connections -------------------------------------------------------------------
    @property
    def db(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None,
                                   timeout=self.write_wait)     # the busy timeout: BEGIN IMMEDIATE waits this long
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute(f"PRAGMA synchronous = {self.synchronous}")
            self._local.conn = conn
            self._connections.append(conn)
        return conn

    def _session(self) -> _Session | None:
        return getattr(self._local, "session", None)

    def _caching(self) -> bool:
        """Whether reads may use the row cache: not after this thread's session wrote (the cache
        holds committed rows, and the session's own changes are not committed yet)."""
        session = self._session()
        return session is None or not session.dirty

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """This process's write lock, waited for at most ``store.write_wait`` seconds."""
        if not self._write_lock.acquire(timeout=self.write_wait):
            raise StoreUnavailable("the embedded store is busy: another write of this process held it longer "
                                   "than store.write_wait seconds; retry", retry_after=RETRY_AFTER)
        try:
            yield
        finally:
            self._write_lock.release()

    @contextmanager
    def write_session(self) -> Iterator[None]:
        """One write transaction held across a read-plan-write sequence: the database's write lock
        is taken at the start (``BEGIN IMMEDIATE``), so no other process or thread writes until it
        commits. Reentrant; writes inside are savepoints of it. What a write applies in memory
        (the vector matrices) runs after the commit, in commit order; nothing on a rollback."""
        if self._session() is not None:
            yield
            return
        with self._locked():
            try:
                self.db.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as err:     # locked past the busy timeout, disk errors
                raise _unavailable(err) from err
            session = self._local.session = _Session()
            committed = False
            try:
                yield
                try:
                    self.db.execute("COMMIT")
                except sqlite3.OperationalError as err:
                    raise _unavailable(err) from err
                committed = True
            finally:
                self._local.session = None
                if not committed and self.db.in_transaction:
                    self.db.execute("ROLLBACK")
                self.rows.clear()       # after the commit: a read racing it cannot put old rows back
                if committed:
                    for apply in session.after:
                        apply()

    def _after_commit(self, apply: Callable[[], None]) -> None:
        """Run ``apply`` once this thread's write is committed (now, outside a session)."""
        session = self._session()
        if session is None:
            apply()
        else:
            session.after.append(apply)

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One atomic write: its own transaction, or a savepoint of this thread's session."""
        session = self._session()
        if session is not None:
            session.dirty = True
            db = self.db
            db.execute("SAVEPOINT graphmem_write")
            try:
                yield db
            except BaseException as exc:
                db.execute("ROLLBACK TO graphmem_write")
                db.execute("RELEASE graphmem_write")
                if isinstance(exc, sqlite3.OperationalError):
                    raise _unavailable(exc) from exc
                raise
            db.execute("RELEASE graphmem_write")
            return
        with self._locked():
            db = self.db
            try:
                db.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as err:
                raise _unavailable(err) from err
            try:
                try:
                    yield db
                except BaseException as exc:
                    db.execute("ROLLBACK")
                    if isinstance(exc, sqlite3.OperationalError):
                        raise _unavailable(exc) from exc
                    raise
                try:
                    db.execute("COMMIT")
                except sqlite3.OperationalError as err:
                    if db.in_transaction:
                        db.execute("ROLLBACK")
                    raise _unavailable(err) from err
            finally:
                self.rows.clear()          # after the commit: a read racing it cannot put old rows back

    def _load_vectors(self, namespace: str) -> tuple[int, Iterable[tuple]]:
        """The namespace's row count (an index count: at least its vectors) and its vector rows."""
        bound = self.db.execute("SELECT count(*) FROM memories WHERE namespace = ?", (namespace,)).fetchone()[0]
        return bound, self.db.execute(f"SELECT id, embedding, {VALIDITY_COLUMNS} FROM memories "
                                      "WHERE namespace = ? AND embedding IS NOT NULL", (namespace,))

    def _matrix(self, namespace: str) -> NamespaceVectors:
        assert self.vectors is not None, "ensure_schema() first"
        if self._version_gate.changed(self.db):       # another connection or process committed
            self.vectors.catch_up(self.db)
        return self.vectors.get(namespace, self._load_vectors, self.db)

    def close(self) -> None:
        if self.vectors is not None:
            self.vectors.save()
        for conn in self._connections:
            conn.close()
        self._connections.clear()
        self._local = threading.local()
        self._version_gate.seen.clear()
        self.rows.clear()

    def ping(self) -> bool:
        return self.db.execute("SELECT 1").fetchone()[0] == 1

    def server_info(self, refresh: bool = True) -> ServerInfo:
        """The SQLite library this process links (there is no server: the store is in-process)."""
        return ServerInfo("sqlite", sqlite3.sqlite_version, "embedded", "embedded")
