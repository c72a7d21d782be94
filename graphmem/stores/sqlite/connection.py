"""The embedded store's connections: one per thread for reads, one lock-serialised write
transaction at a time (the base every other part of ``SQLiteStore`` builds on)."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from graphmem.config import StoreSettings, load_settings
from graphmem.errors import StoreConfigError, StoreUnavailable
from graphmem.model import ServerInfo
from graphmem.private_files import private_dir, private_file
from graphmem.stores.sqlite import vector_log
from graphmem.stores.sqlite.ann import AnnSettings
from graphmem.stores.sqlite.row_cache import RowCache
from graphmem.stores.sqlite.vectors import VectorCache, limit_blas_threads

SYNCHRONOUS = ("FULL", "NORMAL", "EXTRA")


class SQLiteBase:
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
        self.rows = RowCache(cfg.sqlite_row_cache)
        self.path = Path(data_dir) / "graphmem.sqlite"
        private_dir(self.path.parent)
        private_file(self.path)
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
                    store.rows.clear()          # after the commit: a read racing it cannot put old rows back
                    store._write_lock.release()
                if isinstance(exc, sqlite3.OperationalError):
                    raise StoreUnavailable(f"embedded store unavailable: {exc}") from exc
                return False

        return _Txn()

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
